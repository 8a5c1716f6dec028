/**
 * Everything an import or restore checks before its first write (spec Part 2, import rules 1, 2 and
 * 8): the archive is safe to read (zip-read.ts), has one top directory holding `files/` and
 * `_ctxpack/`, a manifest of format 3 whose entries are exactly the archive's files and directories,
 * and every file's size and sha256 (core-native bulk sha256) and the `content_sha256` match.
 * Content is inflated in batches of bounded size and dropped once hashed; the write pass reads it
 * again (`readFiles`), checking each batch's hashes once more before it is written.
 */
import fs from 'node:fs';
import { hash } from 'ctx/plugin';
import { DENSE, FILES_DIR, INDEX_RECORDS, MANIFEST, PACK_DIR, contentSha256, parseManifest, type Manifest } from './manifest.js';
import { entryChunks, entryDataStart, entryLines, packError, readCentralDirectory, readEntries, readEntry, type ZipEntry } from './zip-read.js';
import { DenseChecker, denseSnapshot, isVectorLine, parseDenseMeta, type DenseSnapshot } from './dense.js';
import { Spool } from './spool.js';

/** The manifest is parsed whole: a larger one is not ours. */
const MAX_MANIFEST = 64 << 20;
const BATCH_FILES = 128;
const BATCH_BYTES = 16 << 20;

export interface PackFile {
  /** Path relative to the pack root. */
  rel: string;
  size: number;
  sha256: string;
  entry: ZipEntry;
}

export interface ValidatedPack {
  /** The uploaded archive. */
  file: string;
  manifest: Manifest;
  /** The archive's top directory: the imported root's name. */
  root: string;
  files: PackFile[];
  /** Directories relative to the pack root, parents first ('' excluded). */
  dirs: string[];
  hasDense: boolean;
  /** The checked dense snapshot (`include_vectors`), or null. */
  dense: DenseSnapshot | null;
  /** Removes the scratch files of the dense snapshot; call once the import is done. */
  close(): Promise<void>;
}

export async function validatePack(file: string, scratch: string, signal?: AbortSignal): Promise<ValidatedPack> {
  const entries = await readCentralDirectory(file);
  const roots = new Set(entries.map((e) => e.name.split('/')[0]!));
  if (roots.size !== 1) throw packError(roots.size === 0 ? 'an empty archive (no manifest)' : 'a pack has exactly one top directory', { top_directories: [...roots].slice(0, 10) });
  const root = [...roots][0]!;
  if (!entries.some((e) => e.name.startsWith(`${root}/`))) throw packError('a pack has exactly one top directory holding files/ and _ctxpack/');
  const filesPrefix = `${root}/${FILES_DIR}/`;
  let manifestEntry: ZipEntry | undefined;
  let recordsEntry: ZipEntry | undefined;
  let denseEntry: ZipEntry | undefined;
  let rootDir = false;
  const dirs = new Set<string>();
  const files = new Map<string, ZipEntry>();
  for (const e of entries) {
    const n = e.name;
    if (n === `${root}/` || n === `${root}/${PACK_DIR}/`) continue;
    if (n === `${root}/${MANIFEST}`) manifestEntry = e;
    else if (n === `${root}/${INDEX_RECORDS}`) recordsEntry = e;
    else if (n === `${root}/${DENSE}`) denseEntry = e;
    else if (n === filesPrefix) rootDir = true;
    else if (n.startsWith(filesPrefix)) {
      const rel = n.slice(filesPrefix.length);
      if (e.isDir) dirs.add(rel.slice(0, -1));
      else files.set(rel, e);
    } else throw packError(`unexpected entry ${JSON.stringify(n)} (only files/ and _ctxpack/ belong in a pack)`, { entry: n });
  }
  if (!manifestEntry) throw packError(`no ${MANIFEST}: packs without a manifest are rejected`);
  for (const internal of [manifestEntry, recordsEntry, denseEntry])
    if (internal && (internal.isDir || (internal === manifestEntry && internal.size > MAX_MANIFEST))) throw packError(`${internal.name} is not a pack internal file`, { entry: internal.name });

  const fh = await fs.promises.open(file, 'r');
  try {
    const manifest = parseManifest(await readEntry(fh, manifestEntry));
    // The manifest's entries are exactly the archive's files and directories.
    const byPath = new Map(manifest.entries.map((m) => [m.path, m]));
    const listed = new Set(byPath.keys());
    const packFiles: PackFile[] = [];
    for (const m of manifest.entries) {
      if (m.path === '') {
        if (!rootDir) throw packError(`the root directory ${filesPrefix} is missing`, { entry: '' });
      } else if (m.sha256 === undefined) {
        if (!dirs.has(m.path)) throw packError(`directory ${JSON.stringify(m.path)} of the manifest is missing from the archive`, { entry: m.path });
      } else {
        const z = files.get(m.path);
        if (!z) throw packError(`file ${JSON.stringify(m.path)} of the manifest is missing from the archive`, { entry: m.path });
        if (z.size !== m.size) throw packError(`size of ${JSON.stringify(m.path)} differs from the manifest (${z.size} != ${m.size})`, { entry: m.path, size: z.size, expected: m.size });
        packFiles.push({ rel: m.path, size: m.size, sha256: m.sha256, entry: z });
      }
    }
    for (const d of dirs) if (!listed.has(d)) throw packError(`directory ${JSON.stringify(d)} is not in the manifest`, { entry: d });
    for (const f of files.keys()) if (byPath.get(f)?.sha256 === undefined) throw packError(`file ${JSON.stringify(f)} is not in the manifest`, { entry: f });
    if (manifest.content_sha256 !== contentSha256(manifest.entries)) throw packError('content_sha256 does not match the manifest entries', { manifest_field: 'content_sha256' });
    if (manifest.include_vectors !== Boolean(denseEntry)) throw packError(manifest.include_vectors ? `include_vectors is true but ${DENSE} is missing` : `${DENSE} is present but include_vectors is false`);
    const embedding = (manifest as { embedding?: unknown }).embedding;
    if (!denseEntry && embedding !== undefined) throw packError(`embedding metadata without ${DENSE}`, { manifest_field: 'embedding' });
    let dense: DenseSnapshot | null = null;
    let checker: DenseChecker | null = null;
    let lines: Spool | null = null;
    let rowsSpool: Spool | null = null;
    try {
      if (denseEntry) {
        const kinds = new Map(manifest.entries.map((m) => [m.path, m.sha256 === undefined ? ('dir' as const) : ('file' as const)]));
        lines = await Spool.create(scratch, 'import-vectors');
        checker = new DenseChecker(parseDenseMeta(embedding), kinds, lines);
      }
      if (recordsEntry) await checkRecords(file, recordsEntry, listed, checker, signal);
      if (checker && denseEntry) {
        // Rows are read back by offset while writing: straight from the archive when stored, else
        // from an inflated copy made in this same pass.
        if (denseEntry.method !== 0) rowsSpool = await Spool.create(scratch, 'import-rows');
        for await (const piece of entryChunks(file, denseEntry)) {
          checker.rows(piece);
          if (rowsSpool) await rowsSpool.append(piece);
        }
        checker.finish();
        await lines!.flush();
        await rowsSpool?.flush();
        dense = rowsSpool
          ? denseSnapshot(checker.meta, checker.byPath, lines!, rowsSpool.file, 0, rowsSpool)
          : denseSnapshot(checker.meta, checker.byPath, lines!, file, entryDataStart(denseEntry), null);
      }
    } catch (err) {
      await lines?.close();
      await rowsSpool?.close();
      throw err;
    }
    // Every file's bytes against its sha256, a bounded batch at a time.
    try {
      // Two batches in flight: one inflating while the other is hashed (both off the JS thread).
      let previous: Promise<unknown> | null = null;
      for (const batch of batches(packFiles)) {
        if (signal?.aborted) throw packError('the request was aborted');
        const current = readBatch(fh, batch);
        current.catch(() => {}); // awaited on the next round or below
        if (previous) await previous;
        previous = current;
      }
      if (previous) await previous;
    } catch (err) {
      await (dense as DenseSnapshot | null)?.close();
      throw err;
    }
    const dirList = manifest.entries.filter((m) => m.sha256 === undefined && m.path !== '').map((m) => m.path);
    dirList.sort((a, b) => a.split('/').length - b.split('/').length);
    const snapshot = dense as DenseSnapshot | null;
    return { file, manifest, root, files: packFiles, dirs: dirList, hasDense: Boolean(denseEntry), dense: snapshot, close: async () => void (await snapshot?.close()) };
  } finally {
    await fh.close();
  }
}

/** Files in batches of at most 128 files or 16 MiB (a larger file alone). */
export function* batches(files: PackFile[]): Iterable<PackFile[]> {
  for (let at = 0; at < files.length; ) {
    const batch: PackFile[] = [];
    let bytes = 0;
    while (at < files.length && batch.length < BATCH_FILES && (batch.length === 0 || bytes + files[at]!.size <= BATCH_BYTES)) {
      bytes += files[at]!.size;
      batch.push(files[at++]!);
    }
    yield batch;
  }
}

/** A batch's bytes, each checked against the manifest's sha256 (core-native, off the JS thread). */
export async function readBatch(fh: fs.promises.FileHandle, batch: PackFile[]): Promise<Buffer[]> {
  const contents = await readEntries(fh, batch.map((f) => f.entry));
  const digests = await hash.sha256ManyAsync(contents);
  digests.forEach((d, i) => {
    if (d !== batch[i]!.sha256) throw packError(`sha256 of ${JSON.stringify(batch[i]!.rel)} differs from the manifest`, { entry: batch[i]!.rel });
  });
  return contents;
}

/**
 * `index_records.jsonl`, streamed line by line: one JSON object per line, each about an entry of
 * the manifest. Lines that describe vectors go to the dense checker (none allowed without one).
 */
async function checkRecords(file: string, entry: ZipEntry, listed: Set<string>, dense: DenseChecker | null, signal?: AbortSignal): Promise<void> {
  for await (const { n, text, raw } of entryLines(file, entry)) {
    if (text.trim() === '') continue;
    if (n % 4096 === 0 && signal?.aborted) throw packError('the request was aborted');
    let r: unknown;
    try {
      r = JSON.parse(text);
    } catch {
      throw packError(`${INDEX_RECORDS} line ${n} is not valid JSON`, { line: n });
    }
    if (!r || typeof r !== 'object' || Array.isArray(r) || typeof (r as { path?: unknown }).path !== 'string')
      throw packError(`${INDEX_RECORDS} line ${n} is not a record with a path`, { line: n });
    if (!listed.has((r as { path: string }).path)) throw packError(`${INDEX_RECORDS} line ${n} names a path outside the manifest`, { line: n });
    if (!isVectorLine(r as Record<string, unknown>)) continue;
    if (!dense) throw packError(`vector records without ${DENSE}`, { manifest_field: 'embedding' });
    await dense.line(n, r as Record<string, unknown>, raw);
  }
}
