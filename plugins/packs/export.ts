/**
 * Export and backup as a zip stream (spec Part 2, "Pack layout"): the tree is walked once for its
 * metadata, then files are read, hashed (core-native bulk sha256) and deflated (zlib, thread pool) in bounded batches
 * as the client pulls the stream, so memory holds one batch whatever the tree's size. The manifest
 * comes last, when every hash is known; zip readers find entries through the central directory, so
 * order does not matter to them.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Zip, ZipDeflate, ZipPassThrough, deflateSync, type ZipInputFile } from 'fflate';
import type { Entry, PluginHost, ScopedVfs } from 'ctx/plugin';
import { hash, uriFromPath } from 'ctx/plugin';
import { createHash } from 'node:crypto';
import { DENSE, FILES_DIR, FORMAT_VERSION, INDEX_RECORDS, MANIFEST, contentSha256, sortEntries, type Manifest, type ManifestEntry } from './manifest.js';
import type { DenseMeta, VectorLine } from './dense.js';
import { Spool } from './spool.js';

/** Files never packed: derived data the target rebuilds (spec Part 2, import rule 5). */
export const EXCLUDED_NAMES = new Set(['.relations.json']);
const BATCH_FILES = 128;
const BATCH_BYTES = 16 << 20;
// DOS timestamps cannot express anything before 1980.
const MIN_MTIME = Date.UTC(1980, 0, 2);

export interface PackSource {
  account: string;
  /** The caller's view: file contents are read through it. */
  vfs: ScopedVfs;
  /** Internal path of the exported root ('' for a backup). */
  path: string;
  /** Name of the pack's top directory. */
  root: string;
  /** Nodes below the root (not the root itself), already filtered for the caller. */
  nodes: Entry[];
  manifest: Pick<Manifest, 'kind' | 'source_uri' | 'scope_pack' | 'context_type'>;
  /** Where the export's scratch file goes (spool.ts). */
  spoolDir: string;
  /** Context type of a node, for index_records.jsonl. */
  contextTypeOf(path: string): string | null;
  /** With `include_vectors`: the stored records below the root and the embedder that made them. */
  vectors?: {
    embedding: Omit<DenseMeta, 'count' | 'dtype' | 'sha256'>;
    read(): AsyncIterable<{ path: string; level: 0 | 1 | 2; text: string; abstract: string; overview?: string; source_sha256?: string; vector: Float32Array }>;
  };
}

/**
 * fflate's `Zip` with the zip64 end records added when the archive holds more than 65,535 entries
 * (fflate writes only the 16-bit counts; the spec sets packs no count limit). Entry sizes and
 * offsets stay below 4 GiB (checked before streaming), so no entry needs zip64 fields.
 */
export class ZipWriter {
  private chunks: Uint8Array[] = [];
  private error: Error | null = null;
  private entries = 0;
  /** Bytes handed out by `drain` so far: where the central directory starts once `end` is called. */
  private written = 0;
  private ended = false;
  private beforeEnd: Uint8Array[] = [];
  private readonly zip = new Zip((err, data) => {
    if (err) this.error = err;
    else this.chunks.push(data);
  });

  /**
   * Adds a file deflated beforehand (`deflated`, raw deflate of `data`): fflate writes the zip
   * structure, node's zlib does the compression on the thread pool, several files at once.
   */
  file(name: string, data: Uint8Array, deflated: Uint8Array, mtime: number): void {
    const f: ZipInputFile & { ondata?: (err: Error | null, chunk: Uint8Array, final: boolean) => void } = {
      filename: name,
      size: data.length,
      crc: zlib.crc32(data),
      compression: 8,
      mtime: new Date(Math.max(mtime, MIN_MTIME)),
    };
    this.zip.add(f);
    this.entries++;
    f.ondata!(null, deflated, true);
  }

  /** Adds a stored (uncompressed) entry whose bytes come in pieces; `push(chunk, true)` ends it. */
  stream(name: string, mtime: number): (chunk: Uint8Array, final: boolean) => void {
    const f = new ZipPassThrough(name);
    f.mtime = new Date(Math.max(mtime, MIN_MTIME));
    this.zip.add(f);
    this.entries++;
    return (chunk, final) => f.push(chunk, final);
  }

  /** Adds a deflated entry whose bytes come in pieces (compressed as they come, level 1). */
  deflating(name: string, mtime: number): (chunk: Uint8Array, final: boolean) => void {
    const f = new ZipDeflate(name, { level: 1 });
    f.mtime = new Date(Math.max(mtime, MIN_MTIME));
    this.zip.add(f);
    this.entries++;
    return (chunk, final) => f.push(chunk, final);
  }

  dir(name: string, mtime: number): void {
    const f = new ZipPassThrough(name.endsWith('/') ? name : name + '/');
    f.mtime = new Date(Math.max(mtime, MIN_MTIME));
    this.zip.add(f);
    this.entries++;
    f.push(new Uint8Array(0), true);
  }

  end(): void {
    // What is still buffered precedes the central directory: count it before fflate writes that.
    this.beforeEnd = this.drain();
    this.ended = true;
    this.zip.end();
  }

  drain(): Uint8Array[] {
    if (this.error) throw this.error;
    const out = this.chunks;
    this.chunks = [];
    if (!this.ended) {
      for (const c of out) this.written += c.length;
      return out;
    }
    // After end: fflate's central directory and end record (one buffer), patched for zip64.
    const before = this.beforeEnd;
    this.beforeEnd = [];
    if (this.entries > 0xffff && out.length) return [...before, withZip64End(Buffer.concat(out), this.written, this.entries)];
    return [...before, ...out];
  }
}

/** The central directory and end record fflate wrote, with a zip64 end record and locator before it. */
function withZip64End(tail: Buffer, cdOffset: number, entries: number): Buffer {
  const eocdAt = tail.length - 22;
  if (tail.readUInt32LE(eocdAt) !== 0x06054b50) throw new Error('zip writer: no end of central directory record where expected');
  const cdSize = eocdAt;
  const z64 = Buffer.alloc(56);
  z64.writeUInt32LE(0x06064b50, 0);
  z64.writeBigUInt64LE(44n, 4);
  z64.writeUInt16LE(45, 12);
  z64.writeUInt16LE(45, 14);
  z64.writeBigUInt64LE(BigInt(entries), 24);
  z64.writeBigUInt64LE(BigInt(entries), 32);
  z64.writeBigUInt64LE(BigInt(cdSize), 40);
  z64.writeBigUInt64LE(BigInt(cdOffset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(cdOffset + cdSize), 8);
  locator.writeUInt32LE(1, 16);
  const eocd = Buffer.from(tail.subarray(eocdAt));
  eocd.writeUInt16LE(0xffff, 8);
  eocd.writeUInt16LE(0xffff, 10);
  return Buffer.concat([tail.subarray(0, eocdAt), z64, locator, eocd]);
}

const deflateRaw = promisify(zlib.deflateRaw);
/**
 * Small files are deflated by fflate on this thread: a zlib stream per file costs more to set up
 * and tear down than compressing a few kilobytes. Large ones go to zlib on the thread pool.
 */
const SMALL = 32 * 1024;
const deflateOne = (c: Buffer): Promise<Uint8Array> => (c.length < SMALL ? Promise.resolve(deflateSync(c, { level: 1 })) : deflateRaw(c, { level: 1 }));
const deflateAll = (contents: Buffer[]) => Promise.all(contents.map(deflateOne));

const rel = (root: string, path: string) => (root === '' ? path : path.slice(root.length + 1));

export async function* packStream(host: PluginHost, src: PackSource, signal?: AbortSignal): AsyncIterable<Uint8Array> {
  // Vector lines wait in a scratch file until index_records.jsonl is written, after dense.f32.
  const spool = src.vectors ? await Spool.create(src.spoolDir, 'export-vectors') : null;
  try {
    yield* packEntries(host, src, spool, signal);
  } finally {
    await spool?.close();
  }
}

async function* packEntries(host: PluginHost, src: PackSource, spool: Spool | null, signal?: AbortSignal): AsyncIterable<Uint8Array> {
  const zip = new ZipWriter();
  const base = `${src.root}/${FILES_DIR}/`;
  const entries: ManifestEntry[] = [{ path: '' }];
  zip.dir(base, Date.now());
  const files = src.nodes.filter((n) => n.kind === 'file' && !EXCLUDED_NAMES.has(n.name));
  const dirs = src.nodes.filter((n) => n.kind === 'dir');
  for (const n of dirs) {
    const p = rel(src.path, n.path);
    zip.dir(base + p + '/', n.mtime);
    entries.push({ path: p });
  }
  yield* zip.drain();
  // The size each file had when read (what the manifest says), for its record line.
  const sizes = new Float64Array(files.length);
  for (let at = 0; at < files.length; ) {
    if (signal?.aborted) return;
    const first = at;
    const batch: Entry[] = [];
    let bytes = 0;
    while (at < files.length && batch.length < BATCH_FILES && (batch.length === 0 || bytes + files[at]!.size <= BATCH_BYTES)) {
      bytes += files[at]!.size;
      batch.push(files[at++]!);
    }
    const contents = (await src.vfs.readMany(batch.map((n) => uriFromPath(n.path)))).map((b) => b ?? Buffer.alloc(0));
    const [digests, deflated] = await Promise.all([hash.sha256ManyAsync(contents), deflateAll(contents)]);
    batch.forEach((n, i) => {
      const p = rel(src.path, n.path);
      zip.file(base + p, contents[i]!, deflated[i]!, n.mtime);
      entries.push({ path: p, size: contents[i]!.length, sha256: digests[i]! });
      sizes[first + i] = contents[i]!.length;
    });
    yield* zip.drain();
  }
  let embedding: DenseMeta | undefined;
  if (src.vectors && spool) {
    // Only records of packed nodes: a USER's export leaves out what they may not read, vectors too.
    const packed = new Set(src.nodes.map((n) => n.path));
    packed.add(src.path);
    // Stored, not deflated: float32 noise does not compress, and rows stay at fixed offsets.
    const push = zip.stream(`${src.root}/${DENSE}`, Date.now());
    const digest = createHash('sha256');
    let count = 0;
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    let lines: string[] = [];
    let lineChars = 0;
    for await (const r of src.vectors.read()) {
      if (!packed.has(r.path) || r.vector.length !== src.vectors.embedding.dim) continue;
      const line: VectorLine = { path: rel(src.path, r.path), level: r.level, dense_row: count++, text: r.text, abstract: r.abstract };
      if (r.overview !== undefined) line.overview = r.overview;
      if (r.source_sha256 !== undefined) line.source_sha256 = r.source_sha256;
      const json = JSON.stringify(line);
      lines.push(json);
      lineChars += json.length;
      const bytes = new Uint8Array(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength);
      digest.update(bytes);
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (lineChars >= 1 << 20) {
        await spool.append(Buffer.from(lines.join('\n') + '\n'));
        lines = [];
        lineChars = 0;
      }
      if (pendingBytes >= 1 << 20) {
        push(Buffer.concat(pending), false);
        pending = [];
        pendingBytes = 0;
        yield* zip.drain();
        if (signal?.aborted) return;
      }
    }
    if (lines.length) await spool.append(Buffer.from(lines.join('\n') + '\n'));
    push(Buffer.concat(pending), true);
    yield* zip.drain();
    embedding = { ...src.vectors.embedding, count, dtype: 'float32', sha256: digest.digest('hex') };
  }
  // index_records.jsonl, deflated as it is written: the entries' lines, then the vectors' lines.
  const records = zip.deflating(`${src.root}/${INDEX_RECORDS}`, Date.now());
  let chunk: string[] = [JSON.stringify({ path: '', kind: 'dir', context_type: src.contextTypeOf(src.path) })];
  let chunkChars = 0;
  const emit = function* (line: string, force = false): Iterable<Uint8Array> {
    if (line) {
      chunk.push(line);
      chunkChars += line.length;
    }
    if ((chunkChars >= 1 << 20 || force) && chunk.length) {
      records(Buffer.from(chunk.join('\n') + '\n'), false);
      chunk = [];
      chunkChars = 0;
      yield* zip.drain();
    }
  };
  for (const n of dirs) yield* emit(JSON.stringify({ path: rel(src.path, n.path), kind: 'dir', context_type: src.contextTypeOf(n.path), tags: n.tags ?? [] }));
  for (const [i, n] of files.entries()) yield* emit(JSON.stringify({ path: rel(src.path, n.path), kind: 'file', context_type: src.contextTypeOf(n.path), tags: n.tags ?? [], size: sizes[i] }));
  yield* emit('', true);
  if (spool) for await (const piece of spool.chunks()) {
    records(piece, false);
    yield* zip.drain();
  }
  records(new Uint8Array(0), true);
  yield* zip.drain();
  sortEntries(entries);
  const manifest: Manifest = {
    format_version: FORMAT_VERSION,
    ...src.manifest,
    created_at: new Date().toISOString(),
    include_vectors: Boolean(src.vectors),
    entries,
    content_sha256: contentSha256(entries),
    ...(embedding ? { embedding } : {}),
  };
  const data = Buffer.from(JSON.stringify(manifest, null, 2));
  zip.file(`${src.root}/${MANIFEST}`, data, await deflateOne(data), Date.now());
  zip.end();
  yield* zip.drain();
}
