/**
 * Directory `count` (stat, `extra_fields=count`; spec Part 2: "estimated number of items under it
 * from the vector index"). A USER is not told how much lies inside subtrees they may not read: the
 * items inside an `access: denied` directory below the counted one are subtracted (the placeholder
 * itself still counts, since the listing shows it).
 */
import type { Identity } from 'ctx/plugin';
import type { PluginHost } from 'ctx/plugin';
import { isAncestorPath } from 'ctx/plugin';
import { deniedNode } from './access.js';
import type { RestrictedIndex } from './restricted.js';

/** The retrieval plugin's index, when loaded: the estimated number of records under a path. */
export interface VectorCount {
  countUnder(identity: Identity, path: string, ownerSpaces?: string[]): Promise<number> | number;
}

/** Counts per directory path, or undefined without a vector index (no figure beats a made-up one). */
export async function countsFor(host: PluginHost, restricted: RestrictedIndex, identity: Identity, dirs: string[]): Promise<Map<string, number> | undefined> {
  const index = host.optional<VectorCount>('vector-index');
  if (!index) return undefined;
  const hidden = await deniedDirsBelow(host, restricted, identity, dirs);
  // A USER never sees other users' spaces: `ctx://` and `ctx://user` count only theirs.
  const spaces = identity.role === 'USER' ? ['', `user:${identity.userId}`] : undefined;
  const out = new Map<string, number>();
  for (const dir of dirs) {
    let n = await index.countUnder(identity, dir, spaces);
    for (const d of hidden) if (d !== dir && isAncestorPath(dir, d)) n -= await index.countUnder(identity, d, spaces);
    out.set(dir, Math.max(0, n));
  }
  return out;
}

/** The outermost directories below any of `dirs` that `identity` may not read. */
async function deniedDirsBelow(host: PluginHost, restricted: RestrictedIndex, identity: Identity, dirs: string[]): Promise<string[]> {
  // Reader lists exist only inside ctx://resources: other spaces need no lookup at all.
  if (identity.role !== 'USER' || !dirs.some((d) => d === '' || isAncestorPath('resources', d))) return [];
  const all = await restricted.under(identity.accountId, '');
  const candidates = all.filter((p) => dirs.some((d) => d !== p && isAncestorPath(d, p)));
  if (candidates.length === 0) return [];
  const nodes = await host.unscopedVfs.statMany(identity.accountId, candidates);
  const denied = nodes.filter((n) => n !== null && n.kind === 'dir' && deniedNode(n, identity)).map((n) => n!.path);
  return denied.filter((p) => !denied.some((q) => q !== p && isAncestorPath(q, p)));
}
