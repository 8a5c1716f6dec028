/**
 * Writing a validated pack into an account (import and restore), under one tree lock on the target
 * so no other writer interleaves. Files go in atomic multi-file batches of bounded size read from
 * the pack again (and their hashes checked again); the L0/L1 sidecars go last, marked as edited, so the indexer rebuilds their
 * directories' L0/L1 vectors from the restored text (spec Part 2, import rule 5).
 */
import fs from 'node:fs';
import { uriFromPath, type LockHandle, type ScopedVfs } from 'ctx/plugin';
import { EXCLUDED_NAMES } from './export.js';
import { batches, readBatch, type PackFile, type ValidatedPack } from './validate.js';

const SIDECAR_NAMES = new Set(['.abstract.md', '.overview.md']);

export const joinPath = (base: string, rel: string) => (base === '' ? rel : rel === '' ? base : `${base}/${rel}`);
const nameOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** Whether a packed file is written at all (`.relations.json` is derived: never restored). */
export const restorable = (rel: string) => !EXCLUDED_NAMES.has(nameOf(rel));

/**
 * Called under the tree lock as content lands (pack-relative paths), so a dense snapshot's records
 * are stored before the indexer reaches those nodes and it finds nothing left to embed.
 */
export interface WriteHooks {
  /** Files of one batch, about to be written: read what `files` will store, so it lands at once. */
  prepare?(rels: string[]): Promise<void>;
  /** Files of one batch, just written. */
  files(rels: string[]): Promise<void>;
  /** At the end: directories ('' the root) created, or whose sidecars were written. */
  dirs(rels: string[]): Promise<void>;
}

/** Writes through the caller's view: every target authorized for them (checkTargets said why first). */
export async function writePack(vfs: ScopedVfs, target: string, pack: ValidatedPack, opts: { replace: boolean; hooks?: WriteHooks }): Promise<{ files: number; dirs: number }> {
  const at = (p: string) => uriFromPath(p);
  const lock = await vfs.lock(at(target), 'tree');
  try {
    const dirRels = ['', ...pack.dirs];
    // A merge refreshes the vectors of new directories and of those whose sidecars it rewrites only.
    const existed = opts.hooks && !opts.replace ? await vfs.statMany(dirRels.map((d) => at(joinPath(target, d)))) : null;
    if (opts.replace && target !== '' && (await vfs.stat(at(target)))) await vfs.rm(at(target), { recursive: true, lock });
    if (target !== '') await vfs.mkdir(at(target), { lock });
    for (const d of pack.dirs) await vfs.mkdir(at(joinPath(target, d)), { lock });
    const files = pack.files.filter((f) => restorable(f.rel));
    const content = files.filter((f) => !SIDECAR_NAMES.has(nameOf(f.rel)));
    const sidecars = files.filter((f) => SIDECAR_NAMES.has(nameOf(f.rel)));
    const fh = await fs.promises.open(pack.file, 'r');
    try {
      const sidecarDirs = new Set<string>();
      await writeBatches(vfs, target, fh, content, lock, undefined, !opts.replace, (rels) => opts.hooks?.files(rels), (rels) => opts.hooks?.prepare?.(rels));
      await writeBatches(vfs, target, fh, sidecars, lock, { index: 'sidecar-edited' }, !opts.replace, async (rels) => {
        for (const r of rels) sidecarDirs.add(r.includes('/') ? r.slice(0, r.lastIndexOf('/')) : '');
      });
      await opts.hooks?.dirs(dirRels.filter((d, i) => !existed || !existed[i] || sidecarDirs.has(d)));
    } finally {
      await fh.close();
    }
    return { files: files.length, dirs: pack.dirs.length };
  } finally {
    lock.release();
  }
}

async function writeBatches(
  vfs: ScopedVfs,
  target: string,
  fh: fs.promises.FileHandle,
  files: PackFile[],
  lock: LockHandle,
  hint: Record<string, unknown> | undefined,
  skipUnchanged: boolean,
  written: (rels: string[]) => Promise<void> | undefined,
  before?: (rels: string[]) => Promise<void> | undefined,
): Promise<void> {
  // Two batches in flight: the next one is read, inflated and hashed while this one is written.
  // A batch's hook (its vector records) runs beside the next batch's file write, the two sharing
  // the store's group commits; hooks stay in batch order.
  let filesDone: Promise<void> | null = null;
  let hooksDone: Promise<void> = Promise.resolve();
  let failure: unknown = null;
  const fail = (err: unknown) => void (failure ??= err);
  try {
    for (const all of batches(files)) {
      if (failure) throw failure;
      let batch = all;
      if (skipUnchanged) {
        // A merge rewrites only added or changed files, so only their vectors are refreshed.
        const nodes = await vfs.statMany(all.map((f) => uriFromPath(joinPath(target, f.rel))));
        batch = all.filter((f, i) => nodes[i]?.sha256 !== 'sha256:' + f.sha256);
        if (batch.length === 0) continue;
      }
      const rels = batch.map((f) => f.rel);
      const reading = Promise.all([readBatch(fh, batch), before?.(rels)]);
      reading.catch(() => {}); // awaited below, after the write in flight
      if (filesDone) await filesDone;
      const [contents] = await reading;
      const filesWritten: Promise<void> = vfs
        .writeFiles(uriFromPath(target), batch.map((f, i) => ({ uri: uriFromPath(joinPath(target, f.rel)), data: contents[i]!, sha256: 'sha256:' + f.sha256 })), { lock, hint })
        .then(() => {});
      filesWritten.catch(fail);
      filesDone = filesWritten;
      hooksDone = Promise.all([filesWritten, hooksDone]).then(() => written(rels));
      hooksDone.catch(fail);
    }
  } finally {
    // Never leave a write running past the lock's release, whatever failed.
    await filesDone?.catch(() => {});
    await hooksDone.catch(() => {});
  }
  if (failure) throw failure;
}
