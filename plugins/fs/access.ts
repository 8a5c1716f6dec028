/**
 * Per-entry read rules on top of the namespace check of runtime/uri (spec Part 2, "Directory entry"):
 * - under the shared `ctx://resources`, an entry may carry a reader list (`meta.read_access.users`).
 *   ADMIN and ROOT read everything; a USER not on the list sees the entry as an `access: denied`
 *   placeholder, gets 403 for any operation on it or below it, and listings do not descend into it;
 * - private user and peer namespaces are hidden (not shown as placeholders) from callers who may not
 *   read them, as `authorize` decides.
 */
import { CtxError } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import { canRead, parseUri, uriFromPath } from 'ctx/plugin';
import type { Entry } from 'ctx/plugin';
import type { Vfs } from 'ctx/plugin';

/** The key in `NodeMeta.meta` holding the reader list of a restricted resources entry. */
export const READ_ACCESS_KEY = 'read_access';

export interface ReadAccess {
  users: string[];
}

/** The reader list of a node, when it is restricted. */
export function readAccessOf(node: Pick<Entry, 'meta'> | null | undefined): ReadAccess | null {
  const acl = node?.meta?.[READ_ACCESS_KEY] as ReadAccess | null | undefined;
  return acl && Array.isArray(acl.users) ? acl : null;
}

/** True when this single node (ignoring its ancestors) is unreadable for `identity`. */
export function deniedNode(node: Pick<Entry, 'meta' | 'path'>, identity: Identity): boolean {
  if (identity.role !== 'USER') return false;
  if (!node.path.startsWith('resources/')) return false;
  const acl = readAccessOf(node);
  return acl !== null && !acl.users.includes(identity.userId);
}

/** `resources/a/b/c` → [`resources/a`, `resources/a/b`, `resources/a/b/c`]; [] outside resources. */
function resourceChain(path: string): string[] {
  if (!path.startsWith('resources/')) return [];
  const out: string[] = [];
  for (let i = 'resources/'.length; ; ) {
    const slash = path.indexOf('/', i);
    if (slash < 0) {
      out.push(path);
      return out;
    }
    out.push(path.slice(0, slash));
    i = slash + 1;
  }
}

/**
 * The first node on the way from `ctx://resources` down to `path` (inclusive) that `identity` may
 * not read, or null. One multi-get; nothing to read for ADMIN/ROOT or outside resources.
 */
export async function deniedOnPath(vfs: Vfs, identity: Identity, path: string): Promise<string | null> {
  if (identity.role !== 'USER') return null;
  const chain = resourceChain(path);
  if (chain.length === 0) return null;
  const nodes = await vfs.statMany(identity.accountId, chain);
  for (const node of nodes) if (node && deniedNode(node, identity)) return node.path;
  return null;
}

/**
 * `deniedOnPath` of each path, with ONE multi-get of the union of their chains (a batch of files
 * below one directory shares most of it): 256 checks were 256 thread-pool round trips.
 */
export async function deniedOnPaths(vfs: Vfs, identity: Identity, paths: string[]): Promise<(string | null)[]> {
  if (identity.role !== 'USER') return paths.map(() => null);
  const chains = paths.map(resourceChain);
  const union = [...new Set(chains.flat())];
  if (union.length === 0) return paths.map(() => null);
  const nodes = await vfs.statMany(identity.accountId, union);
  const denied = new Set<string>();
  nodes.forEach((node, i) => {
    if (node && deniedNode(node, identity)) denied.add(union[i]!);
  });
  return chains.map((chain) => chain.find((p) => denied.has(p)) ?? null);
}

export function deniedError(uri: string, identity: Identity, blockedAt: string): CtxError {
  const at = uriFromPath(blockedAt);
  const why = at === uri ? `${uri} is not readable by ${identity.userId}` : `${uri} is inside ${at}, which is not readable by ${identity.userId}`;
  return new CtxError('PERMISSION_DENIED', why, { resource: uri, access: 'denied' });
}

/** Throws 403 PERMISSION_DENIED when `path` or one of its ancestors under resources is denied. */
export async function assertEntryAccess(vfs: Vfs, identity: Identity, path: string): Promise<void> {
  const blocked = await deniedOnPath(vfs, identity, path);
  if (blocked !== null) throw deniedError(uriFromPath(path), identity, blocked);
}

/**
 * Whether the children of `dir` need the namespace filter: only the containers above the spaces
 * (`ctx://`, `ctx://user`, `ctx://user/{u}`, `.../peers`, `ctx://agent`, `ctx://agent/{a}`) hold
 * children of different owners. Below them every child shares its parent's namespace access.
 */
export function needsNamespaceFilter(dir: string): boolean {
  if (dir === '') return true;
  const segs = dir.split('/');
  if (segs[0] === 'user') return segs.length <= 2 || (segs.length === 3 && segs[2] === 'peers');
  if (segs[0] === 'agent') return segs.length <= 1;
  return false;
}

/** A child under a container is shown only when its URI parses and the caller may read it. */
export function namespaceVisible(identity: Identity, path: string): boolean {
  try {
    return canRead(parseUri(uriFromPath(path), identity), identity);
  } catch {
    return false; // internal scopes and malformed stored names never surface
  }
}
