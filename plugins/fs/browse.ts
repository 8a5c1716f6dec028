/**
 * `ls` and `tree` (spec Part 2, "File system"): sorting with directories first, hidden entries,
 * tag filters applied before paging, `access: denied` placeholders, namespace hiding, and the
 * optional fields (`extra_fields`, `include_tags`, the agent output's abstracts).
 */
import { notFound } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import type { PluginHost } from 'ctx/plugin';
import { authorize, legacySessionDirs, parseUri, sessionReadTarget, uriFromPath } from 'ctx/plugin';
import type { Entry } from 'ctx/plugin';
import { assertEntryAccess, deniedNode, namespaceVisible, needsNamespaceFilter, readAccessOf } from './access.js';
import { countsFor } from './count.js';
import { abstractText, entry, placeholder, type DirectoryEntry, type ExtraField } from './entries.js';
import type { ListingCache, SortBy, SortOrder } from './listing.js';
import type { RestrictedIndex } from './restricted.js';

export interface BrowseQuery {
  uri: string;
  simple?: boolean;
  recursive?: boolean;
  output: 'agent' | 'original';
  abs_limit: number;
  show_all_hidden: boolean;
  node_limit: number;
  limit?: number;
  offset: number;
  sort_by: SortBy;
  sort_order: SortOrder;
  extra_fields?: ExtraField[];
  tags?: string[];
  include_tags: boolean;
  level_limit?: number;
}

/** Subdirectory listings started ahead of the walk. */
const PREFETCH = 16;
/** Most nodes one subtree scan reads ahead of a recursive walk. */
const PRELOAD_MAX = 100_000;

interface Row {
  node: Entry;
  relPath?: string;
  denied: boolean;
}

export async function browse(host: PluginHost, cache: ListingCache, restricted: RestrictedIndex, identity: Identity, q: BrowseQuery, mode: 'ls' | 'tree'): Promise<Array<DirectoryEntry | string>> {
  const parsed = parseUri(q.uri, identity);
  authorize(parsed, identity, 'read');
  const u = await sessionReadTarget(host.unscopedVfs, identity, parsed);
  const account = identity.accountId;
  await assertEntryAccess(host.unscopedVfs, identity, u.path);
  // The `ctx://session` root also lists the caller's unmigrated legacy sessions, after the new ones.
  const legacy = u.aliasOf === 'ctx://session' ? await legacySessionDirs(host.unscopedVfs, identity) : [];
  const node = (await host.unscopedVfs.stat(account, u.path)) ?? (legacy.length ? { ...legacy[0]!, path: u.path, name: u.name } : null);
  if (!node) throw notFound(`no such file or directory: ${u.uri}`, { resource: u.uri });
  const withLegacy = async (path: string): Promise<Entry[]> => {
    const own = (await host.unscopedVfs.stat(account, path)) ? await visibleChildren(cache, identity, path, view) : [];
    if (path !== u.path || !legacy.length) return own;
    const names = new Set(own.map((e) => e.name));
    return [...own, ...legacy.filter((e) => !names.has(e.name))];
  };

  const limit = q.limit ?? q.node_limit;
  const tags = q.tags?.length ? q.tags : undefined;
  const matches = (e: Entry) => !tags || (e.tags !== undefined && tags.every((t) => e.tags!.includes(t)));
  const view = { showHidden: q.show_all_hidden, sortBy: q.sort_by, order: q.sort_order };
  const recursive = mode === 'tree' || q.recursive === true;
  const maxDepth = mode === 'tree' ? (q.level_limit ?? 3) : Infinity;

  // A placeholder carries no tags, so a tag filter never matches one (and says nothing about it).
  const accept = (r: Row) => (tags ? !r.denied && matches(r.node) : true);
  const rows: Row[] = [];

  if (node.kind === 'file') {
    const r: Row = { node, denied: false, relPath: recursive ? node.name : undefined };
    if (accept(r) && q.offset === 0) rows.push(r);
  } else if (!recursive) {
    const children = legacy.length ? await withLegacy(u.path) : await visibleChildren(cache, identity, u.path, view);
    // Without a tag filter the page is a slice: no per-entry work outside it.
    const source = tags ? children.filter((e) => !deniedNode(e, identity) && matches(e)) : children;
    for (const e of source.slice(q.offset, q.offset + limit)) rows.push({ node: e, denied: deniedNode(e, identity) });
  } else {
    let skip = q.offset;
    const base = u.path === '' ? '' : u.path + '/';
    // Listings of the subdirectories about to be visited are started together: each is a native
    // scan on the libuv pool, so they overlap with each other and with the JS work of the walk.
    const ahead = new Map<string, Promise<Entry[]>>();
    const prefetch = (entries: Entry[], depth: number) => {
      if (depth >= maxDepth) return;
      let started = 0;
      for (const e of entries) {
        if (started >= PREFETCH || ahead.size >= PREFETCH * 4) break;
        if (e.kind !== 'dir' || ahead.has(e.path) || deniedNode(e, identity)) continue;
        const p = visibleChildren(cache, identity, e.path, view);
        p.catch(() => {}); // awaited (and its error surfaced) when the walk gets there
        ahead.set(e.path, p);
        started++;
      }
    };
    const childrenOf = (path: string) => {
      const p = ahead.get(path);
      ahead.delete(path);
      return p ?? visibleChildren(cache, identity, path, view);
    };
    // Trees of many small directories: one subtree scan fills the listings the walk will need.
    await cache.preload(account, u.path, Math.min(PRELOAD_MAX, Math.max(2_000, (q.offset + limit) * 2)));
    // Depth-first, pre-order; each directory's children in the requested order.
    const rootEntries = legacy.length ? await withLegacy(u.path) : await visibleChildren(cache, identity, u.path, view);
    prefetch(rootEntries, 1);
    const stack: Array<{ entries: Entry[]; i: number; depth: number }> = [{ entries: rootEntries, i: 0, depth: 1 }];
    while (stack.length && rows.length < limit) {
      const top = stack[stack.length - 1]!;
      if (top.i >= top.entries.length) {
        stack.pop();
        continue;
      }
      const e = top.entries[top.i++]!;
      const denied = deniedNode(e, identity);
      const r: Row = { node: e, denied, relPath: e.path.slice(base.length) };
      if (accept(r)) {
        if (skip > 0) skip--;
        else rows.push(r);
      }
      if (e.kind === 'dir' && !denied && top.depth < maxDepth && rows.length < limit) {
        const entries = await childrenOf(e.path);
        prefetch(entries, top.depth + 1);
        if (ahead.size < PREFETCH) prefetch(top.entries.slice(top.i), top.depth);
        stack.push({ entries, i: 0, depth: top.depth + 1 });
      }
    }
  }

  if (q.simple) return rows.map((r) => uriFromPath(r.node.path));
  return format(host, restricted, identity, rows, q);
}

async function visibleChildren(cache: ListingCache, identity: Identity, dir: string, view: Parameters<ListingCache['view']>[2]): Promise<Entry[]> {
  const all = await cache.view(identity.accountId, dir, view);
  if (needsNamespaceFilter(dir)) return all.filter((e) => namespaceVisible(identity, e.path));
  if (view.sortBy === 'mtime' && identity.role === 'USER' && (dir === 'resources' || dir.startsWith('resources/'))) return placeDeniedNeutrally(all, identity, view.order);
  return all;
}

/** Entries of a cached mtime view that carry a reader list; found once per view (views are rebuilt after any change). */
const restrictedOfView = new WeakMap<Entry[], Entry[]>();

/**
 * A placeholder's mtime is hidden, so `sort_by=mtime` places it as if it were 0 (the epoch, what
 * unwritten scope roots show): first of its group ascending, last descending, ties by name.
 * Otherwise its position among its siblings would tell when it was last changed.
 */
function placeDeniedNeutrally(rows: Entry[], identity: Identity, order: SortOrder): Entry[] {
  let restricted = restrictedOfView.get(rows);
  if (!restricted) {
    restricted = rows.filter((e) => readAccessOf(e) !== null);
    restrictedOfView.set(rows, restricted);
  }
  if (restricted.length === 0) return rows;
  const denied = new Set(restricted.filter((e) => deniedNode(e, identity)));
  if (denied.size === 0) return rows;
  const out = rows.filter((e) => !denied.has(e));
  const sign = order === 'asc' ? 1 : -1;
  const mtime = (e: Entry) => (denied.has(e) ? 0 : e.mtime);
  // The order of deriveView: directories first, then mtime, then name (UTF-8 bytes), in `order`.
  const precedes = (a: Entry, b: Entry) => {
    if (a.kind !== b.kind) return a.kind === 'dir';
    if (mtime(a) !== mtime(b)) return (mtime(a) - mtime(b)) * sign < 0;
    return Buffer.compare(Buffer.from(a.name, 'utf8'), Buffer.from(b.name, 'utf8')) * sign < 0;
  };
  for (const e of denied) {
    let lo = 0;
    let hi = out.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (precedes(e, out[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    out.splice(lo, 0, e);
  }
  return out;
}

async function format(host: PluginHost, restricted: RestrictedIndex, identity: Identity, rows: Row[], q: BrowseQuery): Promise<DirectoryEntry[]> {
  const account = identity.accountId;
  const extra = new Set(q.extra_fields ?? []);
  const readable = rows.filter((r) => !r.denied);
  const abstracts = new Map<string, string>();
  if (q.output === 'agent') {
    const dirs = readable.filter((r) => r.node.kind === 'dir').map((r) => r.node.path);
    const raw = dirs.length ? await host.unscopedVfs.readMany(account, dirs.map((d) => (d === '' ? '' : d + '/') + '.abstract.md')) : [];
    dirs.forEach((d, i) => abstracts.set(d, abstractText(raw[i], q.abs_limit)));
  }
  const counts = extra.has('count')
    ? await countsFor(host, restricted, identity, readable.filter((r) => r.node.kind === 'dir').map((r) => r.node.path))
    : undefined;
  return rows.map((r) =>
    r.denied
      ? placeholder(r.node, r.relPath)
      : entry(r.node, {
          relPath: r.relPath,
          includeTags: q.include_tags,
          abstract: abstracts.get(r.node.path),
          isLocked: extra.has('locked') ? host.unscopedVfs.locks.isLocked(account, r.node.path) : undefined,
          withId: extra.has('id'),
          count: counts?.get(r.node.path),
        }),
  );
}
