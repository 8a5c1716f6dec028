/**
 * Writing an import into the VFS under one tree lock on its root: files in atomic batches of
 * bounded size (the semantic plugin's commit hook queues their index work in the same batches),
 * then, when the import replaces an existing root, what the source no longer has is removed; tags
 * and the resource's own metadata (source, reason, instruction) go on last.
 *
 * A replaced root (a watch run, a re-add) is compared with what is stored first: a file whose size
 * and SHA-256 match the stored node is not written again, so its mtime stays and no index work is
 * queued for it (index work follows VFS changes). Only new and changed files are written.
 */
import { SIDECARS, hash, mergeTags, uriFromPath, type Entry, type ScopedVfs } from 'ctx/plugin';
import type { OutFile } from './convert.js';

const BATCH_FILES = 256;
const BATCH_BYTES = 16 << 20;

export interface ResourceMeta {
  source_type: string;
  source: string;
  reason: string;
  instruction: string;
  imported_at: string;
  task_id: string;
  commit?: string;
  media?: Record<string, unknown>;
  processing_mode?: string;
}

export interface WriteInput {
  root: string;
  files: OutFile[];
  replace: boolean;
  tags?: string[];
  tagMode: 'replace' | 'append';
  meta: ResourceMeta;
  signal: AbortSignal;
  /** `vectors_only`: the indexer embeds what changed and generates no L0/L1 text (the hint below). */
  vectorsOnly?: boolean;
}

export interface WriteOutcome {
  /** Files the import holds (written or unchanged). */
  files: number;
  /** New or changed files written. */
  written: number;
  /** Files left as they were: same size and SHA-256 as stored. */
  unchanged: number;
  /** Nodes (files or directories) of a replaced root the source no longer has. */
  removed: number;
}

const sameTags = (a: string[] | undefined, b: string[] | undefined) => JSON.stringify([...(a ?? [])].sort()) === JSON.stringify([...(b ?? [])].sort());

/** Writes through `vfs`, the import owner's view: every target is authorized as theirs. */
export async function writeResource(vfs: ScopedVfs, w: WriteInput): Promise<WriteOutcome> {
  const u = uriFromPath;
  const lock = await vfs.lock(u(w.root), 'tree');
  try {
    const paths = w.files.map((f) => `${w.root}/${f.rel}`);
    const wanted = new Set(paths);
    const keepDirs = new Set<string>();
    for (const p of wanted) for (let i = p.indexOf('/', w.root.length + 1); i > 0; i = p.indexOf('/', i + 1)) keepDirs.add(p.slice(0, i));
    const stale: string[] = [];
    const stored = new Map<string, Entry>();
    if (w.replace) {
      // A stale directory goes whole: nothing below it is visited.
      for await (const e of vfs.walk(u(w.root), { descend: (d) => keepDirs.has(d.path) })) {
        if (SIDECARS.has(e.name)) continue;
        if (e.kind === 'dir' ? !keepDirs.has(e.path) : !wanted.has(e.path)) stale.push(e.path);
        else stored.set(e.path, e);
      }
    }
    if (w.signal.aborted) throw w.signal.reason;
    // Hashed on the libuv pool (the core's bulk SHA-256) when there is something to compare with, in
    // the VFS's digest form (`sha256:{hex}`), which writeFiles then stores instead of hashing again.
    const shas = stored.size ? (await hash.sha256ManyAsync(w.files.map((f) => f.data))).map((h) => `sha256:${h}`) : [];
    const changed: Array<{ f: OutFile; path: string; sha256?: string }> = [];
    const unchanged: Entry[] = [];
    w.files.forEach((f, i) => {
      const old = stored.get(paths[i]!);
      const mediaSame = JSON.stringify(old?.meta?.media ?? null) === JSON.stringify(f.media ?? null);
      if (old && old.kind === 'file' && old.size === f.data.length && old.sha256 === shas[i] && mediaSame) unchanged.push(old);
      else changed.push({ f, path: paths[i]!, sha256: shas[i] });
    });
    // A directory where a file now goes (or a file where a directory now goes) must go first;
    // everything else stale goes after the writes, so a failed run leaves the previous files.
    const inTheWay = new Set(stale.filter((p) => wanted.has(p) || keepDirs.has(p)));
    for (const p of inTheWay) await vfs.rm(u(p), { recursive: true, lock });
    const hint = { ...(w.tags ? { tags: w.tags, tag_mode: w.tagMode } : {}), ...(w.vectorsOnly ? { index: 'vectors-only' } : {}) };
    const opts = { lock, ...(Object.keys(hint).length ? { hint } : {}) };
    for (let at = 0; at < changed.length; ) {
      if (w.signal.aborted) throw w.signal.reason;
      const batch: typeof changed = [];
      let bytes = 0;
      while (at < changed.length && batch.length < BATCH_FILES && (batch.length === 0 || bytes + changed[at]!.f.data.length <= BATCH_BYTES)) {
        bytes += changed[at]!.f.data.length;
        batch.push(changed[at++]!);
      }
      await vfs.writeFiles(u(w.root), batch.map((c) => ({ uri: u(c.path), data: c.f.data, ...(c.sha256 ? { sha256: c.sha256 } : {}) })), opts);
    }
    for (const p of stale) if (!inTheWay.has(p)) await vfs.rm(u(p), { recursive: true, lock });
    for (const c of changed) if (c.f.media) await vfs.setMeta(u(c.path), { meta: { media: c.f.media } }, opts);
    if (w.tags) {
      // Only nodes whose tags would change: a tag write is a change the index follows.
      const dirs = new Set<string>([w.root, ...keepDirs]);
      const all = [...dirs, ...wanted];
      const nodes = await vfs.statMany(all.map(u));
      const touch = all.filter((_, i) => !nodes[i] || !sameTags(nodes[i]!.tags, mergeTags(nodes[i]!.tags, w.tags, w.tagMode)));
      if (touch.length) await vfs.setTags(touch.map(u), w.tags, w.tagMode, opts);
    }
    await vfs.setMeta(u(w.root), { meta: { resource: w.meta } }, opts);
    return { files: w.files.length, written: changed.length, unchanged: unchanged.length, removed: stale.length };
  } finally {
    lock.release();
  }
}
