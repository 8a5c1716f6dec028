/**
 * A snapshot as a flat map (`path → blob oid`) and the git tree objects it becomes. Trees are
 * serialized here rather than by isomorphic-git's `writeTree`, because git orders entries by their
 * UTF-8 bytes (a directory as if its name ended in '/') and `git fsck` rejects any other order;
 * computing the oid before writing also lets unchanged subtrees be skipped without touching disk.
 */
import { createHash } from 'node:crypto';

/** Every snapshot file is a regular, non-executable file (the VFS has no other kind). */
export const FILE_MODE = '100644';
export const TREE_MODE = '40000';

export type Flat = Map<string, string>;

export interface TreeObject {
  /** Directory path ('' for the root). */
  path: string;
  oid: string;
  content: Buffer;
}

export function objectId(type: 'blob' | 'tree' | 'commit', content: Buffer): string {
  return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest('hex');
}

interface Dir {
  files: Map<string, string>;
  dirs: Map<string, Dir>;
}

const newDir = (): Dir => ({ files: new Map(), dirs: new Map() });

function nest(flat: Flat): Dir {
  const root = newDir();
  for (const [path, oid] of flat) {
    const parts = path.split('/');
    let d = root;
    for (let i = 0; i < parts.length - 1; i++) {
      let next = d.dirs.get(parts[i]!);
      if (!next) d.dirs.set(parts[i]!, (next = newDir()));
      d = next;
    }
    d.files.set(parts[parts.length - 1]!, oid);
  }
  return root;
}

export function serializeTree(entries: Array<{ name: string; mode: string; oid: string }>): Buffer {
  const keyed = entries.map((e) => ({ e, key: Buffer.from(e.mode === TREE_MODE ? e.name + '/' : e.name, 'utf8') }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  const parts: Buffer[] = [];
  for (const { e } of keyed) parts.push(Buffer.from(`${e.mode} ${e.name}\0`, 'utf8'), Buffer.from(e.oid, 'hex'));
  return Buffer.concat(parts);
}

/**
 * Every tree object of a snapshot, children before parents (so a writer that stops half-way never
 * leaves a parent pointing at a missing child); the root comes last and always exists, empty or not.
 */
export function treeObjects(flat: Flat): TreeObject[] {
  const out: TreeObject[] = [];
  const visit = (d: Dir, path: string): string | null => {
    const entries: Array<{ name: string; mode: string; oid: string }> = [];
    for (const [name, oid] of d.files) entries.push({ name, mode: FILE_MODE, oid });
    for (const [name, child] of d.dirs) {
      const oid = visit(child, path === '' ? name : `${path}/${name}`);
      if (oid) entries.push({ name, mode: TREE_MODE, oid });
    }
    // git keeps no empty directories: an empty subtree is left out of its parent.
    if (entries.length === 0 && path !== '') return null;
    const content = serializeTree(entries);
    const oid = objectId('tree', content);
    out.push({ path, oid, content });
    return oid;
  };
  visit(nest(flat), '');
  return out;
}

/** Whether `path` is `scope` or lies below it ('' covers everything). */
export function within(scope: string, path: string): boolean {
  return scope === '' || path === scope || (path.startsWith(scope) && path.charCodeAt(scope.length) === 0x2f);
}

/** The scopes without those covered by another one (a list of paths may name a dir and its file). */
export function outermost(paths: string[]): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const p of sorted) if (!kept.some((k) => within(k, p))) kept.push(p);
  return kept.sort();
}
