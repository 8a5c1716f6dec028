/**
 * Everything an import or restore checks before its first write (spec Part 2, import rules 1, 2 and
 * 8): the archive is safe to extract (zip-read.ts), has one top directory holding `files/` and
 * `_ctxpack/`, a manifest of format 3 whose entries are exactly the archive's files and directories,
 * and every file's size and sha256 (core-native, streamed from the staging copy) and the
 * `content_sha256` match. Files are staged on disk, never held in memory; the caller removes the
 * staging directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { hash } from '../../runtime/sdk/index.js';
import { DENSE, FILES_DIR, INDEX_RECORDS, MANIFEST, PACK_DIR, contentSha256, parseManifest, type Manifest } from './manifest.js';
import { extract, packError, readCentralDirectory, type ZipEntry } from './zip-read.js';

/** Internal files are small; a larger one is not ours. */
const MAX_INTERNAL = 64 << 20;

export interface StagedFile {
  /** Path relative to the pack root. */
  rel: string;
  staged: string;
  size: number;
}

export interface ValidatedPack {
  manifest: Manifest;
  /** The archive's top directory: the imported root's name. */
  root: string;
  files: StagedFile[];
  /** Directories relative to the pack root, parents first ('' excluded). */
  dirs: string[];
  hasDense: boolean;
}

export async function validatePack(file: string, staging: string, signal?: AbortSignal): Promise<ValidatedPack> {
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
    if (internal && (internal.isDir || internal.size > MAX_INTERNAL)) throw packError(`${internal.name} is not a pack internal file`, { entry: internal.name });
  const manifest = parseManifest((await extract(file, manifestEntry))!);

  // The manifest's entries are exactly the archive's files and directories.
  const byPath = new Map(manifest.entries.map((m) => [m.path, m]));
  const listed = new Set(byPath.keys());
  for (const m of manifest.entries) {
    if (m.path === '') {
      if (!rootDir) throw packError(`the root directory ${filesPrefix} is missing`, { entry: '' });
    } else if (m.sha256 === undefined) {
      if (!dirs.has(m.path)) throw packError(`directory ${JSON.stringify(m.path)} of the manifest is missing from the archive`, { entry: m.path });
    } else {
      const z = files.get(m.path);
      if (!z) throw packError(`file ${JSON.stringify(m.path)} of the manifest is missing from the archive`, { entry: m.path });
      if (z.size !== m.size) throw packError(`size of ${JSON.stringify(m.path)} differs from the manifest (${z.size} != ${m.size})`, { entry: m.path, size: z.size, expected: m.size });
    }
  }
  for (const d of dirs) if (!listed.has(d)) throw packError(`directory ${JSON.stringify(d)} is not in the manifest`, { entry: d });
  for (const f of files.keys()) if (byPath.get(f)?.sha256 === undefined) throw packError(`file ${JSON.stringify(f)} is not in the manifest`, { entry: f });
  if (manifest.content_sha256 !== contentSha256(manifest.entries)) throw packError('content_sha256 does not match the manifest entries', { manifest_field: 'content_sha256' });
  if (manifest.include_vectors !== Boolean(denseEntry)) throw packError(manifest.include_vectors ? `include_vectors is true but ${DENSE} is missing` : `${DENSE} is present but include_vectors is false`);
  if (recordsEntry) checkRecords((await extract(file, recordsEntry))!, listed);

  // Content: staged on disk, hashed off the JS thread.
  await fs.promises.mkdir(staging, { recursive: true });
  const staged: StagedFile[] = [];
  const expected: string[] = [];
  let i = 0;
  const fh = await fs.promises.open(file, 'r');
  try {
    for (const m of manifest.entries) {
      if (m.sha256 === undefined) continue;
      if (signal?.aborted) throw packError('the request was aborted');
      const dest = path.join(staging, String(i++));
      await extract(fh, files.get(m.path)!, dest);
      staged.push({ rel: m.path, staged: dest, size: m.size! });
      expected.push(m.sha256);
    }
  } finally {
    await fh.close();
  }
  const digests = staged.length ? await hash.sha256Files(staged.map((f) => f.staged)) : [];
  digests.forEach((d, j) => {
    if (d.sha256 !== expected[j]) throw packError(`sha256 of ${JSON.stringify(staged[j]!.rel)} differs from the manifest`, { entry: staged[j]!.rel });
    if (d.size !== staged[j]!.size) throw packError(`size of ${JSON.stringify(staged[j]!.rel)} differs from the manifest`, { entry: staged[j]!.rel });
  });
  const dirList = manifest.entries.filter((m) => m.sha256 === undefined && m.path !== '').map((m) => m.path);
  dirList.sort((a, b) => a.split('/').length - b.split('/').length);
  return { manifest, root, files: staged, dirs: dirList, hasDense: Boolean(denseEntry) };
}

/** `index_records.jsonl`: one JSON object per line, each about an entry of the manifest. */
function checkRecords(raw: Buffer, listed: Set<string>): void {
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
  });
}
