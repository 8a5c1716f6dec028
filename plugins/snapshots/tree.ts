/**
 * A snapshot's tree: its files (`path → blob oid`), the oid of each directory, and each directory's
 * children. A commit applies its changes to the previous state and re-serializes only the
 * directories on the way from a changed file to the root; every other subtree keeps its tree
 * object (10 changed files among 100,000 touch a handful of trees, not a thousand).
 *
 * Trees are serialized here rather than by isomorphic-git's `writeTree`: git orders entries by their
 * UTF-8 bytes (a directory as if its name ended in '/'), `git fsck` rejects any other order, and an
 * oid known before writing lets an existing object be skipped without touching disk.
 */
import { createHash } from 'node:crypto';

/** Every snapshot file is a regular, non-executable file (the VFS has no other kind). */
export const FILE_MODE = '100644';
export const TREE_MODE = '40000';

export type Flat = Map<string, string>;
type Kind = 'file' | 'dir';

export interface TreeState {
  commit: string | null;
  files: Flat;
  /** Directory ('' = root) → tree oid. */
  dirs: Map<string, string>;
  /** Directory → child name → kind. Inner maps are shared between states and never mutated. */
  children: Map<string, Map<string, Kind>>;
}

export const EMPTY_STATE: TreeState = Object.freeze({ commit: null, files: new Map(), dirs: new Map(), children: new Map() }) as TreeState;

export interface TreeObject {
  path: string;
  oid: string;
  content: Buffer;
}

export function objectId(type: 'blob' | 'tree' | 'commit', content: Buffer): string {
  return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest('hex');
}

export function serializeTree(entries: Array<{ name: string; mode: string; oid: string }>): Buffer {
  const keyed = entries.map((e) => ({ e, key: Buffer.from(e.mode === TREE_MODE ? e.name + '/' : e.name, 'utf8') }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  const parts: Buffer[] = [];
  for (const { e } of keyed) parts.push(Buffer.from(`${e.mode} ${e.name}\0`, 'utf8'), Buffer.from(e.oid, 'hex'));
  return Buffer.concat(parts);
}

const parentOf = (p: string) => {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
};
const nameOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const depth = (p: string) => (p === '' ? 0 : p.split('/').length);

/**
 * The state after `changes` (path → new blob oid, or null for a removed file) and its new tree
 * objects: only directories holding a change are serialized; those whose oid `prev` already has are
 * left out of `fresh` (nothing to write).
 */
export function applyChanges(prev: TreeState, changes: Map<string, string | null>): { next: Omit<TreeState, 'commit'>; root: string; fresh: TreeObject[] } {
  const files = new Map(prev.files);
  const children = new Map(prev.children);
  const copied = new Set<string>();
  const kidsOf = (dir: string): Map<string, Kind> => {
    let m = children.get(dir);
    if (!m || !copied.has(dir)) {
      m = new Map(m);
      children.set(dir, m);
      copied.add(dir);
    }
    return m;
  };
  const dirty = new Set<string>(['']);
  const touch = (p: string) => {
    for (let d = parentOf(p); !dirty.has(d); d = parentOf(d)) dirty.add(d);
  };
  // Removals first: a file may give way to a directory of the same name, or the reverse.
  for (const [p, oid] of changes) {
    if (oid !== null || !files.has(p)) continue;
    files.delete(p);
    touch(p);
    // Directories emptied by the removal disappear (git keeps no empty trees).
    for (let child = p, dir = parentOf(p); ; child = dir, dir = parentOf(dir)) {
      const kids = kidsOf(dir);
      kids.delete(nameOf(child));
      if (kids.size > 0 || dir === '') break;
      children.delete(dir);
    }
  }
  for (const [p, oid] of changes) {
    if (oid === null) continue;
    files.set(p, oid);
    touch(p);
    kidsOf(parentOf(p)).set(nameOf(p), 'file');
    for (let child = parentOf(p); child !== ''; child = parentOf(child)) {
      const kids = kidsOf(parentOf(child));
      if (kids.get(nameOf(child)) === 'dir') break;
      kids.set(nameOf(child), 'dir');
    }
  }
  const dirs = new Map(prev.dirs);
  const fresh: TreeObject[] = [];
  for (const d of [...dirty].sort((a, b) => depth(b) - depth(a))) {
    const kids = children.get(d);
    if (!kids && d !== '') {
      dirs.delete(d);
      continue;
    }
    const entries: Array<{ name: string; mode: string; oid: string }> = [];
    for (const [name, kind] of kids ?? []) {
      const path = d === '' ? name : `${d}/${name}`;
      entries.push(kind === 'file' ? { name, mode: FILE_MODE, oid: files.get(path)! } : { name, mode: TREE_MODE, oid: dirs.get(path)! });
    }
    const content = serializeTree(entries);
    const oid = objectId('tree', content);
    if (prev.dirs.get(d) !== oid) fresh.push({ path: d, oid, content });
    dirs.set(d, oid);
  }
  // Removed directories below a removed one were never visited as dirty: drop what no longer exists.
  for (const d of dirs.keys()) if (d !== '' && !children.has(d)) dirs.delete(d);
  return { next: { files, dirs, children }, root: dirs.get('')!, fresh };
}

/** Whether `path` is `scope` or lies below it ('' covers everything). */
export function within(scope: string, path: string): boolean {
  return scope === '' || path === scope || (path.startsWith(scope) && path.charCodeAt(scope.length) === 0x2f);
}

/** The files of a state at or below `scope`. */
export function filesWithin(state: TreeState, scope: string): Map<string, string> {
  const out = new Map<string, string>();
  const file = state.files.get(scope);
  if (file !== undefined) out.set(scope, file);
  else if (scope === '' || state.dirs.has(scope)) for (const [p, oid] of state.files) if (within(scope, p)) out.set(p, oid);
  return out;
}

/** The scopes without those covered by another one (a list of paths may name a dir and its file). */
export function outermost(paths: Iterable<string>): string[] {
  const set = new Set(paths);
  if (set.has('')) return [''];
  const kept: string[] = [];
  for (const p of set) {
    let covered = false;
    for (let d = parentOf(p); d !== ''; d = parentOf(d))
      if (set.has(d)) {
        covered = true;
        break;
      }
    if (!covered) kept.push(p);
  }
  return kept.sort();
}
