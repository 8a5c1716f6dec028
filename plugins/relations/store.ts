/**
 * Where relations live: in the `.relations.json` sidecar of a directory, written only by this plugin
 * (the content plugin refuses writes to the name; the spec calls it a derived file). A sidecar holds
 * the relations whose source is the directory itself (`source: ''`) or one of its direct child files
 * (`source: <file name>`). So a directory's relations move and disappear with it, atomically, through
 * the VFS's own mv and rm; a file's are patched by the change listener in index.ts, and `sourceCtime`
 * hides any entry left behind (a crash before the patch) from a later file at the same path.
 * Every read-modify-write of a sidecar holds the VFS path lock of the sidecar.
 */
import type { LockHandle, OwnFiles, ScopedVfs } from 'ctx/plugin';
import type { Entry } from 'ctx/plugin';
import { splitPath, uriFromPath } from 'ctx/plugin';

/**
 * How sidecars are read and written, by internal path within one account: a request's scoped view
 * (`scopedSidecars`), or the plugin's own files when no caller is behind the change (host.ownFiles).
 */
export type SidecarIo = OwnFiles;

/** The caller's view as SidecarIo: every call checked as the caller's own. */
export function scopedSidecars(vfs: ScopedVfs): SidecarIo {
  return {
    stat: (path) => vfs.stat(uriFromPath(path)),
    readFile: (path) => vfs.readFile(uriFromPath(path)),
    async writeFile(path, data, opts = {}) {
      await vfs.writeFile(uriFromPath(path), data, { mode: 'replace', lock: opts.lock });
    },
    async rm(path, opts = {}) {
      await vfs.rm(uriFromPath(path), { lock: opts.lock });
    },
    lockAll: (paths) => vfs.lockAll(paths.map(uriFromPath), 'path'),
  };
}

export const RELATIONS_FILE = '.relations.json';

export interface StoredRelation {
  /** '' for the directory holding the sidecar, else the name of a child file. */
  source: string;
  /** File sources: the file's creation time when linked (mv keeps it; a re-created file differs). */
  sourceCtime?: number;
  uri: string;
  reason: string;
  created_at: string;
}

interface SidecarDoc {
  format: 1;
  relations: StoredRelation[];
}

export interface Location {
  /** Path of the sidecar holding the source's relations. */
  sidecar: string;
  source: string;
  sourceCtime?: number;
}

const join = (dir: string, name: string) => (dir === '' ? name : `${dir}/${name}`);

export function locate(node: Entry): Location {
  if (node.kind === 'dir') return { sidecar: join(node.path, RELATIONS_FILE), source: '' };
  const [dir, name] = splitPath(node.path);
  return { sidecar: join(dir, RELATIONS_FILE), source: name, sourceCtime: node.ctime };
}

/** The relation entries of a sidecar; a damaged sidecar reads as empty rather than failing every call. */
export async function readSidecar(io: SidecarIo, path: string): Promise<StoredRelation[]> {
  const node = await io.stat(path);
  if (!node || node.kind !== 'file') return [];
  try {
    const doc = JSON.parse((await io.readFile(path)).toString('utf8')) as SidecarDoc;
    return Array.isArray(doc.relations) ? doc.relations.filter((r) => typeof r?.uri === 'string' && typeof r.source === 'string') : [];
  } catch {
    return [];
  }
}

/** Entries of `loc`'s source, without those a re-created file would otherwise inherit. */
export function entriesOf(all: StoredRelation[], loc: Location): StoredRelation[] {
  return all.filter((r) => r.source === loc.source && (loc.source === '' || r.sourceCtime === loc.sourceCtime));
}

/**
 * Applies `change` to the sidecar under its path lock (or `held`). An empty result removes the file.
 * `guard` runs under the lock first; returning false aborts without writing (the source went away).
 */
export async function updateSidecar<T>(
  io: SidecarIo,
  path: string,
  change: (current: StoredRelation[]) => { next: StoredRelation[]; result: T },
  opts: { held?: LockHandle; guard?: () => Promise<boolean> } = {},
): Promise<T | undefined> {
  const lock = opts.held ?? (await io.lockAll([path]))[0]!;
  try {
    if (opts.guard && !(await opts.guard())) return undefined;
    const current = await readSidecar(io, path);
    const { next, result } = change(current);
    if (sameEntries(current, next)) return result;
    if (next.length === 0) await io.rm(path, { lock });
    else await io.writeFile(path, Buffer.from(JSON.stringify({ format: 1, relations: next } satisfies SidecarDoc, null, 1)), { lock });
    return result;
  } finally {
    if (!opts.held) lock.release();
  }
}

function sameEntries(a: StoredRelation[], b: StoredRelation[]): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}
