/**
 * Sorted directory listings with a cache. `ls` pages with `offset`, sorts directories first and may
 * sort by mtime, so a page of a 100,000-entry directory cannot be served from one KV range read:
 * the full listing is read once (one prefix scan), kept in memory, and each view (hidden entries
 * shown or not, sort key, order) is derived once. A VFS change event (emitted only after its batch
 * is durable) notes the changed child in each cached ancestor listing; the next request re-reads
 * those children (one multi-get) and patches the listing in place, so a write into a big directory
 * does not cost the next reader a full scan, and a cached listing never shows less than what a
 * write acknowledged.
 */
import type { Entry } from 'ctx/plugin';
import type { Vfs } from 'ctx/plugin';
import type { ChangeEvent } from 'ctx/plugin';
import { isAncestorPath } from 'ctx/plugin';

export type SortBy = 'name' | 'mtime';
export type SortOrder = 'asc' | 'desc';

export interface ViewKey {
  showHidden: boolean;
  sortBy: SortBy;
  order: SortOrder;
}

interface Cached {
  /** Name order (the KV's byte order), directories first. */
  base: Entry[];
  views: Map<string, Entry[]>;
  /** Child paths changed since the listing was read; re-read before the next use. */
  pending: Set<string>;
  patching: Promise<void> | null;
}

/** Position of the child called `name` in a name-ordered listing (either group), or -1. */
function indexOfName(rows: Entry[], name: string): number {
  for (const kind of ['dir', 'file'] as const) {
    const i = insertionPoint(rows, { name, kind } as Entry);
    if (rows[i]?.name === name && rows[i]!.kind === kind) return i;
  }
  return -1;
}

/** Where `node` goes in a base listing: its group (directories first), then UTF-8 byte order of names. */
function insertionPoint(base: Entry[], node: Entry): number {
  const key = Buffer.from(node.name, 'utf8');
  const isDir = node.kind === 'dir';
  let lo = 0;
  let hi = base.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const e = base[mid]!;
    const before = e.kind !== node.kind ? e.kind === 'dir' && !isDir : Buffer.compare(Buffer.from(e.name, 'utf8'), key) < 0;
    if (before) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const isHidden = (e: Entry) => e.name.charCodeAt(0) === 0x2e;

/** Directories first, then by `sortBy` in `order`; ties by name so pages are stable. */
export function deriveView(base: Entry[], key: ViewKey): Entry[] {
  const rows = key.showHidden ? base.slice() : base.filter((e) => !isHidden(e));
  if (key.sortBy === 'name' && key.order === 'asc') return rows;
  const rank = new Map<Entry, number>();
  rows.forEach((e, i) => rank.set(e, i));
  const dir = key.order === 'asc' ? 1 : -1;
  rows.sort((a, b) => {
    if (a.kind !== b.kind) return a.kind === 'dir' ? -1 : 1;
    if (key.sortBy === 'mtime' && a.mtime !== b.mtime) return (a.mtime - b.mtime) * dir;
    return (rank.get(a)! - rank.get(b)!) * dir;
  });
  return rows;
}

export class ListingCache {
  private readonly map = new Map<string, Cached>();
  /** Builds in flight; an invalidation deletes the token so a stale build is not stored. */
  private readonly building = new Map<string, object>();
  private total = 0;
  /** Counts change events: a subtree scan that saw one in flight is not stored. */
  private epoch = 0;
  /** Subtrees preloaded since the last change (a repeated tree request skips the scan). */
  private readonly preloaded = new Set<string>();
  stats = { hits: 0, misses: 0, invalidations: 0, patched: 0 };

  /**
   * @param maxEntries entries kept over all cached directories (least recently used dropped first);
   *   a directory larger than this is listed from the KV on every request.
   */
  constructor(private readonly vfs: Vfs, private readonly maxEntries = 400_000) {
    vfs.on('change', (ev: ChangeEvent) => this.onChange(ev));
    vfs.on('drop', (account: string) => {
      this.epoch++;
      this.preloaded.clear();
      this.dropWhere((k) => k.startsWith(account + '\x00'));
    });
  }

  /** Children of `dir` in name order with directories first (callers must not mutate the array). */
  async children(account: string, dir: string): Promise<Entry[]> {
    return (await this.load(account, dir)).base;
  }

  async view(account: string, dir: string, key: ViewKey): Promise<Entry[]> {
    const c = await this.load(account, dir);
    const k = `${key.showHidden ? 1 : 0}${key.sortBy}${key.order}`;
    let rows = c.views.get(k);
    if (!rows) {
      rows = deriveView(c.base, key);
      c.views.set(k, rows);
    }
    return rows;
  }

  /**
   * Fills the cache for `dir` and the directories below it from one subtree scan of at most
   * `budget` nodes (a tree walk then finds its listings ready instead of opening an iterator per
   * directory). Listings already cached are kept; nothing is stored if any change happened during
   * the scan.
   */
  async preload(account: string, dir: string, budget: number): Promise<void> {
    if (dir === '' || (this.map.has(`${account}\x00${dir}`) && this.preloaded.has(`${account}\x00${dir}`))) return;
    const epoch = this.epoch;
    const { groups, complete } = await this.vfs.listSubtree(account, dir, budget);
    if (this.epoch !== epoch) return;
    this.preloaded.add(`${account}\x00${dir}`);
    if (complete) {
      // Directories without children have no group: their listing is known to be empty.
      if (!groups.has(dir)) groups.set(dir, []);
      for (const list of [...groups.values()]) for (const e of list) if (e.kind === 'dir' && !groups.has(e.path)) groups.set(e.path, []);
    }
    for (const [parent, list] of groups) {
      const key = `${account}\x00${parent}`;
      if (this.map.has(key) || this.building.has(key)) continue;
      const base = list.filter((e) => e.kind === 'dir');
      for (const e of list) if (e.kind !== 'dir') base.push(e);
      this.store(key, { base, views: new Map(), pending: new Set(), patching: null });
    }
  }

  private store(key: string, cached: Cached): void {
    if (cached.base.length > this.maxEntries) return;
    this.map.set(key, cached);
    this.total += cached.base.length;
    for (const [k, v] of this.map) {
      if (this.total <= this.maxEntries) break;
      this.map.delete(k);
      this.total -= v.base.length;
    }
  }

  private async load(account: string, dir: string): Promise<Cached> {
    const key = `${account}\x00${dir}`;
    const hit = this.map.get(key);
    if (hit) {
      this.stats.hits++;
      this.map.delete(key); // re-insert: Map order is the LRU order
      this.map.set(key, hit);
      // Changes noted since the last request are applied first; a load that finds a patch in
      // flight waits for it, so no request started after an acknowledged write misses it.
      while (hit.patching || hit.pending.size) {
        if (!hit.patching) hit.patching = this.patch(account, hit).finally(() => (hit.patching = null));
        await hit.patching;
      }
      return hit;
    }
    this.stats.misses++;
    const token = {};
    this.building.set(key, token);
    const all = await this.vfs.list(account, dir);
    const base = all.filter((e) => e.kind === 'dir');
    for (const e of all) if (e.kind !== 'dir') base.push(e);
    const cached: Cached = { base, views: new Map(), pending: new Set(), patching: null };
    if (this.building.get(key) === token) {
      this.building.delete(key);
      this.store(key, cached);
    }
    return cached;
  }

  /**
   * Re-reads the noted children (one multi-get) and puts each in its place, or removes it, in the
   * base listing and in the name-ascending views (the default `ls`); other views are derived again
   * on demand. Binary searches: a patch costs O(log n) compares plus the array splice.
   */
  private async patch(account: string, c: Cached): Promise<void> {
    const paths = [...c.pending];
    c.pending.clear();
    const nodes = await this.vfs.statMany(account, paths);
    this.stats.patched += paths.length;
    for (const k of [...c.views.keys()]) if (!k.endsWith('nameasc')) c.views.delete(k);
    paths.forEach((path, i) => {
      const name = path.slice(path.lastIndexOf('/') + 1);
      const node = nodes[i];
      const before = c.base.length;
      for (const rows of [c.base, ...c.views.values()]) {
        const at = indexOfName(rows, name);
        if (at >= 0) rows.splice(at, 1);
      }
      if (node) {
        c.base.splice(insertionPoint(c.base, node), 0, node);
        for (const [k, rows] of c.views) if (k.startsWith('1') || !isHidden(node)) rows.splice(insertionPoint(rows, node), 0, node);
      }
      this.total += c.base.length - before;
    });
  }

  private onChange(ev: ChangeEvent): void {
    this.stats.invalidations++;
    this.epoch++;
    this.preloaded.clear();
    const removes = ev.type === 'rm' || ev.type === 'mv';
    this.note(ev.account, ev.type === 'mv' ? ev.from! : ev.path, removes);
    if (ev.type === 'mv') this.note(ev.account, ev.path, true);
  }

  /**
   * A change at `path` alters one child of each cached ancestor (the node itself, or the directory
   * on the way to it, which may just have been created): that child is noted and re-read on the
   * next request. Listings at or below a removed or moved path are dropped. The root listing is
   * small and merges unwritten scope roots, so it is simply dropped.
   */
  private note(account: string, path: string, removed: boolean): void {
    const prefix = account + '\x00';
    const touched = (k: string) => {
      if (!k.startsWith(prefix)) return false;
      const dir = k.slice(prefix.length);
      return isAncestorPath(dir, path) || (removed && isAncestorPath(path, dir));
    };
    for (const k of this.building.keys()) if (touched(k)) this.building.delete(k);
    for (const [k, c] of this.map) {
      if (!touched(k)) continue;
      const dir = k.slice(prefix.length);
      if (dir === path && !removed) continue; // the directory's own tags or meta: its children are unchanged
      if (dir === '' || dir === path || !isAncestorPath(dir, path)) {
        this.map.delete(k);
        this.total -= c.base.length;
        continue;
      }
      const next = path.indexOf('/', dir.length + 1);
      c.pending.add(next < 0 ? path : path.slice(0, next));
    }
  }

  private dropWhere(pred: (key: string) => boolean): void {
    for (const k of this.building.keys()) if (pred(k)) this.building.delete(k);
    for (const [k, v] of this.map)
      if (pred(k)) {
        this.map.delete(k);
        this.total -= v.base.length;
      }
  }
}
