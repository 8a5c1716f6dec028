/**
 * Where a resource goes: `to` (the exact root; a space root such as `ctx://resources` is taken as
 * the parent, as the reference does) or `parent` + the source's name, made unique with `_1`, `_2`…
 * so adding the same source twice gives two resources. Roots being imported are reserved in
 * memory, so two concurrent imports of one name do not pick the same root.
 */
import { conflict, invalidArgument, spaceRootDepth, type CtxUri, type PluginHost, type ScopedVfs } from 'ctx/plugin';

const key = (account: string, path: string) => `${account}\0${path}`;

/** Roots being imported into, per host (one set per plugin instance, so test apps never share it). */
export class Reservations {
  private readonly held = new Set<string>();
  has = (account: string, path: string) => this.held.has(key(account, path));
  add = (account: string, path: string) => void this.held.add(key(account, path));
  release = (account: string, path: string) => void this.held.delete(key(account, path));
}

function resourceUri(vfs: ScopedVfs, uri: string, field: string): CtxUri {
  const u = vfs.resolve(uri, 'write', field);
  if (u.contextType !== 'resource') throw invalidArgument(`${field} must be in a resources space (ctx://resources/... or ctx://~/resources/...), got ${u.uri}`, { field, resource: u.uri });
  return u;
}

/** The source's name as one ctx:// segment. */
export function cleanName(name: string): string {
  const s = name
    .replace(/[\x00-\x1f\x7f\\%/\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '_')
    .replace(/^\.+/, '')
    .trim();
  let out = s || 'resource';
  while (Buffer.byteLength(out) > 200) out = out.slice(0, -1);
  return out;
}

export interface Target {
  uri: string;
  path: string;
  /** `to` named an existing directory: the import replaces its content. */
  replace: boolean;
}

/** Resolves and reserves the root; the caller releases it when the import ends. */
export async function planTarget(host: PluginHost, reserved: Reservations, vfs: ScopedVfs, body: { to?: string | null; parent?: string | null; create_parent?: boolean }, name: string): Promise<Target> {
  const account = vfs.identity.accountId;
  let parent: CtxUri;
  if (body.to) {
    const to = resourceUri(vfs, body.to, 'to');
    if (to.segments.length > spaceRootDepth(to)) {
      await host.access.assertEntryReadable(vfs.identity, to.path);
      const node = await vfs.stat(to.uri);
      if (node?.kind === 'file') throw conflict(`to names a file, not a directory: ${to.uri}`, to.uri);
      if (reserved.has(account, to.path)) throw conflict(`another import into ${to.uri} is running`, to.uri);
      reserved.add(account, to.path);
      return { uri: to.uri, path: to.path, replace: node !== null };
    }
    parent = to;
  } else if (body.parent) {
    parent = resourceUri(vfs, body.parent, 'parent');
    if (parent.segments.length > spaceRootDepth(parent)) {
      await host.access.assertEntryReadable(vfs.identity, parent.path);
      const node = await vfs.stat(parent.uri);
      if (node?.kind === 'file') throw invalidArgument(`parent is a file, not a directory: ${parent.uri}`, { field: 'parent', resource: parent.uri });
      if (!node && !body.create_parent) throw invalidArgument(`parent does not exist: ${parent.uri} (create_parent: true creates it)`, { field: 'parent', resource: parent.uri });
    }
  } else parent = resourceUri(vfs, 'ctx://resources', 'parent');
  await host.access.assertEntryReadable(vfs.identity, parent.path);
  const base = cleanName(name);
  for (let i = 0; ; i++) {
    const candidate = vfs.resolve(`${parent.uri}/${i === 0 ? base : `${base}_${i}`}`, 'write', 'to');
    if (reserved.has(account, candidate.path)) continue;
    if (await vfs.stat(candidate.uri)) continue;
    reserved.add(account, candidate.path);
    return { uri: candidate.uri, path: candidate.path, replace: false };
  }
}
