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
import { packError, readCentralDirectory, readEntry, type ZipEntry } from './zip-read.js';
import { checkDense, isVectorLine, parseDenseMeta, type DenseSnapshot } from './dense.js';

/** Internal files are small; a larger one is not ours. */
const MAX_INTERNAL = 64 << 20;
/** dense.f32 is held in memory while an import runs: 2 GiB is 1.4 million 384-dim vectors. */
const MAX_DENSE = 2 * 2 ** 30;
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
}

export async function validatePack(file: string, signal?: AbortSignal): Promise<ValidatedPack> {
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
    if (internal && (internal.isDir || internal.size > (internal === denseEntry ? MAX_DENSE : MAX_INTERNAL))) throw packError(`${internal.name} is not a pack internal file`, { entry: internal.name });

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
    const vectorLines = recordsEntry ? checkRecords(await readEntry(fh, recordsEntry), listed) : [];
    const embedding = (manifest as { embedding?: unknown }).embedding;
    let dense: DenseSnapshot | null = null;
    if (denseEntry) {
      const kinds = new Map(manifest.entries.map((m) => [m.path, m.sha256 === undefined ? ('dir' as const) : ('file' as const)]));
      dense = checkDense(parseDenseMeta(embedding), vectorLines, await readEntry(fh, denseEntry), kinds);
    } else if (embedding !== undefined || vectorLines.length)
      throw packError(`embedding metadata or vector records without ${DENSE}`, { manifest_field: 'embedding' });
    // Every file's bytes against its sha256, a bounded batch at a time.
    for (const batch of batches(packFiles)) {
      if (signal?.aborted) throw packError('the request was aborted');
      await readBatch(fh, batch);
    }
    const dirList = manifest.entries.filter((m) => m.sha256 === undefined && m.path !== '').map((m) => m.path);
    dirList.sort((a, b) => a.split('/').length - b.split('/').length);
    return { file, manifest, root, files: packFiles, dirs: dirList, hasDense: Boolean(denseEntry), dense };
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
  const contents = await Promise.all(batch.map((f) => readEntry(fh, f.entry)));
  const digests = await hash.sha256ManyAsync(contents);
  digests.forEach((d, i) => {
    if (d !== batch[i]!.sha256) throw packError(`sha256 of ${JSON.stringify(batch[i]!.rel)} differs from the manifest`, { entry: batch[i]!.rel });
  });
  return contents;
}

/**
 * `index_records.jsonl`: one JSON object per line, each about an entry of the manifest. Returns the
 * lines that describe vectors of dense.f32 (checked against it by the caller).
 */
function checkRecords(raw: Buffer, listed: Set<string>): Array<{ line: number; record: Record<string, unknown> }> {
  const vectors: Array<{ line: number; record: Record<string, unknown> }> = [];
  const lines = raw.toString('utf8').split('\n');
  lines.forEach((line, n) => {
    if (line.trim() === '') return;
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch {
      throw packError(`${INDEX_RECORDS} line ${n + 1} is not valid JSON`, { line: n + 1 });
    }
    if (!r || typeof r !== 'object' || Array.isArray(r) || typeof (r as { path?: unknown }).path !== 'string')
      throw packError(`${INDEX_RECORDS} line ${n + 1} is not a record with a path`, { line: n + 1 });
    if (!listed.has((r as { path: string }).path)) throw packError(`${INDEX_RECORDS} line ${n + 1} names a path outside the manifest`, { line: n + 1 });
    if (isVectorLine(r as Record<string, unknown>)) vectors.push({ line: n + 1, record: r as Record<string, unknown> });
  });
  return vectors;
}
