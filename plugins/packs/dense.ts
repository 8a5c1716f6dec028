/**
 * Dense snapshots (`_ctxpack/dense.f32`, spec Part 2 "Pack layout"): the stored vectors of the
 * packed tree as little-endian float32 rows, `count` rows of `dim` values, no header. What each row
 * is comes from two places:
 *
 * - the manifest's `embedding`: the embedder that computed the rows (provider, model, input mode,
 *   dimension, query/document parameters) plus `count`, `dtype` and the file's `sha256`;
 * - one `index_records.jsonl` line per vector: `{path, level, dense_row, text, abstract, overview?,
 *   source_sha256?}` (`level` 2 for files, 0 and 1 for directories). The text travels so the target
 *   stores the same record the indexer would build, and so skips re-embedding it.
 *
 * Everything is checked before an import writes anything, like the rest of the pack.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Spool } from './spool.js';
import { DENSE, INDEX_RECORDS } from './manifest.js';
import { packError } from './zip-read.js';

export interface DenseMeta {
  provider: string;
  model: string;
  input_mode: string;
  dim: number;
  params: Record<string, unknown>;
  count: number;
  dtype: 'float32';
  sha256: string;
}

export interface VectorLine {
  path: string;
  level: 0 | 1 | 2;
  dense_row: number;
  text: string;
  abstract: string;
  overview?: string;
  source_sha256?: string;
}

/** Where one vector line of a checked pack is: its level and row, and its JSON in the lines spool. */
export interface VectorRef {
  level: 0 | 1 | 2;
  row: number;
  at: number;
  len: number;
}

/**
 * A checked dense snapshot, kept on disk: the vector lines in a spool, the rows where they are
 * (dense.f32 inside the archive when stored, or a spool of it when the pack deflated it). Only
 * the small per-vector references stay in memory.
 */
export interface DenseSnapshot {
  meta: DenseMeta;
  /** Vector lines by pack-relative path. */
  byPath: Map<string, VectorRef[]>;
  /** The lines and rows of `refs`, in order. */
  read(refs: VectorRef[]): Promise<Array<{ line: VectorLine; vector: Float32Array }>>;
  close(): Promise<void>;
}

const META_KEYS = new Set(['provider', 'model', 'input_mode', 'dim', 'params', 'count', 'dtype', 'sha256']);
const LINE_KEYS = new Set(['path', 'level', 'dense_row', 'text', 'abstract', 'overview', 'source_sha256']);
const HEX64 = /^[0-9a-f]{64}$/;
const bad = (message: string, details: Record<string, unknown> = {}) => packError(message, { manifest_field: 'embedding', ...details });

/** A record line of index_records.jsonl that describes a vector rather than an entry. */
export const isVectorLine = (r: Record<string, unknown>) => 'dense_row' in r;

export function parseDenseMeta(raw: unknown): DenseMeta {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw bad('include_vectors is true but the manifest has no embedding object');
  const m = raw as Record<string, unknown>;
  for (const k of Object.keys(m)) if (!META_KEYS.has(k)) throw bad(`unknown embedding field ${JSON.stringify(k)}`, { manifest_field: `embedding.${k}` });
  for (const k of ['provider', 'model', 'input_mode'] as const) if (typeof m[k] !== 'string' || m[k] === '') throw bad(`embedding.${k} must be a non-empty string`, { manifest_field: `embedding.${k}` });
  if (!Number.isSafeInteger(m.dim) || (m.dim as number) < 1) throw bad('embedding.dim must be a positive integer', { manifest_field: 'embedding.dim' });
  if (!Number.isSafeInteger(m.count) || (m.count as number) < 0) throw bad('embedding.count must be a non-negative integer', { manifest_field: 'embedding.count' });
  if (m.dtype !== 'float32') throw bad('embedding.dtype must be "float32"', { manifest_field: 'embedding.dtype' });
  if (!m.params || typeof m.params !== 'object' || Array.isArray(m.params)) throw bad('embedding.params must be an object', { manifest_field: 'embedding.params' });
  if (typeof m.sha256 !== 'string' || !HEX64.test(m.sha256)) throw bad('embedding.sha256 must be the hex sha256 of dense.f32', { manifest_field: 'embedding.sha256' });
  return m as unknown as DenseMeta;
}

/**
 * Checks the vector lines against the manifest (`kinds`: pack-relative path → entry kind) and the
 * rows against the metadata as they stream by: each row described exactly once, each (path, level)
 * once, the level fitting the entry's kind, and the bytes matching `sha256` and `count × dim`
 * finite float32 values. Lines go to `lines` (a spool) as they are checked.
 */
export class DenseChecker {
  private readonly rowsSeen: Uint8Array;
  readonly byPath = new Map<string, VectorRef[]>();
  private described = 0;
  private bytes = 0;
  private readonly digest = createHash('sha256');
  /** 0-3 bytes of a float split across chunks. */
  private carry = Buffer.alloc(0);

  constructor(
    readonly meta: DenseMeta,
    private readonly kinds: Map<string, 'file' | 'dir'>,
    private readonly lines: Spool,
  ) {
    this.rowsSeen = new Uint8Array(meta.count);
  }

  async line(line: number, r: Record<string, unknown>, raw: Buffer): Promise<void> {
    const at = { entry: INDEX_RECORDS, line };
    for (const k of Object.keys(r)) if (!LINE_KEYS.has(k)) throw packError(`${INDEX_RECORDS} line ${line}: unknown vector field ${JSON.stringify(k)}`, at);
    const kind = this.kinds.get(r.path as string);
    if (r.level !== 0 && r.level !== 1 && r.level !== 2) throw packError(`${INDEX_RECORDS} line ${line}: level must be 0, 1 or 2`, at);
    if ((r.level === 2) !== (kind === 'file')) throw packError(`${INDEX_RECORDS} line ${line}: level ${r.level} does not fit a ${kind}`, at);
    const row = r.dense_row;
    if (!Number.isSafeInteger(row) || (row as number) < 0 || (row as number) >= this.meta.count) throw packError(`${INDEX_RECORDS} line ${line}: dense_row is not a row of ${DENSE}`, at);
    if (this.rowsSeen[row as number]) throw packError(`${INDEX_RECORDS} line ${line}: dense_row ${row} is described twice`, at);
    this.rowsSeen[row as number] = 1;
    if (typeof r.text !== 'string' || typeof r.abstract !== 'string') throw packError(`${INDEX_RECORDS} line ${line}: a vector needs its text and abstract`, at);
    for (const k of ['overview', 'source_sha256'] as const)
      if (r[k] !== undefined && typeof r[k] !== 'string') throw packError(`${INDEX_RECORDS} line ${line}: ${k} must be a string`, at);
    const list = this.byPath.get(r.path as string) ?? [];
    if (list.some((v) => v.level === r.level)) throw packError(`${INDEX_RECORDS} line ${line}: a second level ${r.level} vector of ${JSON.stringify(r.path)}`, at);
    list.push({ level: r.level, row: row as number, at: await this.lines.append(raw), len: raw.length });
    this.byPath.set(r.path as string, list);
    this.described++;
  }

  /** The next piece of dense.f32. */
  rows(chunk: Buffer): void {
    this.digest.update(chunk);
    this.bytes += chunk.length;
    if (this.bytes > this.meta.count * this.meta.dim * 4) throw packError(`${DENSE} holds more than embedding.count × dim float32 values`, { entry: DENSE });
    const all = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    const whole = all.length - (all.length % 4);
    // Copied to an aligned buffer: a Float32Array view needs a 4-byte aligned offset.
    const values = new Float32Array(whole / 4);
    new Uint8Array(values.buffer).set(all.subarray(0, whole));
    for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i]!)) throw packError(`${DENSE} holds values that are not finite numbers`, { entry: DENSE });
    this.carry = Buffer.from(all.subarray(whole));
  }

  finish(): void {
    const { meta } = this;
    if (this.bytes !== meta.count * meta.dim * 4) throw packError(`${DENSE} holds ${this.bytes} bytes; embedding.count × dim float32 values are ${meta.count * meta.dim * 4}`, { entry: DENSE });
    if (this.digest.digest('hex') !== meta.sha256) throw packError(`sha256 of ${DENSE} differs from embedding.sha256`, { entry: DENSE });
    if (this.described !== meta.count) throw packError(`${INDEX_RECORDS} describes ${this.described} vectors; embedding.count is ${meta.count}`, { entry: INDEX_RECORDS });
  }
}

/** Reads rows at `base + row × dim × 4` of `file` (the archive's stored dense.f32, or a spool of it). */
export function denseSnapshot(meta: DenseMeta, byPath: Map<string, VectorRef[]>, lines: Spool, file: string, base: number, owned: Spool | null): DenseSnapshot {
  let fh: Promise<fs.promises.FileHandle> | null = null;
  const rowBytes = meta.dim * 4;
  return {
    meta,
    byPath,
    async read(refs) {
      fh ??= fs.promises.open(file, 'r');
      const h = await fh;
      if (refs.length === 0) return [];
      // A batch's lines and rows sit close together (both written in the store's order): one read
      // of each span instead of two small reads per vector.
      const lineSpan = await span(refs.map((r) => [r.at, r.len] as const), (at, len) => lines.read(at, len));
      const rowSpan = await span(refs.map((r) => [base + r.row * rowBytes, rowBytes] as const), (at, len) => readAt(h, at, len));
      return refs.map((ref, i) => {
        const vector = new Float32Array(meta.dim);
        new Uint8Array(vector.buffer).set(rowSpan(base + ref.row * rowBytes, rowBytes, i));
        return { line: JSON.parse(lineSpan(ref.at, ref.len, i).toString('utf8')) as VectorLine, vector };
      });
    },
    async close() {
      if (fh) await (await fh).close().catch(() => {});
      await lines.close();
      await owned?.close();
    },
  };
}

async function readAt(h: fs.promises.FileHandle, at: number, len: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(len);
  for (let done = 0; done < len; ) {
    const { bytesRead } = await h.read(buf, done, len - done, at + done);
    if (bytesRead === 0) throw packError(`${DENSE} ended early`, { entry: DENSE });
    done += bytesRead;
  }
  return buf;
}

/**
 * Byte ranges read with one read of their span when they lie close together (at most twice
 * their total plus 64 KiB), else one read each. Returns a lookup of range `i`.
 */
async function span(ranges: ReadonlyArray<readonly [number, number]>, read: (at: number, len: number) => Promise<Buffer>): Promise<(at: number, len: number, i: number) => Buffer> {
  let from = Infinity;
  let to = 0;
  let sum = 0;
  for (const [at, len] of ranges) {
    from = Math.min(from, at);
    to = Math.max(to, at + len);
    sum += len;
  }
  if (to - from <= 2 * sum + 65536) {
    const all = await read(from, to - from);
    return (at, len) => all.subarray(at - from, at - from + len);
  }
  const each = await Promise.all(ranges.map(([at, len]) => read(at, len)));
  return (_at, _len, i) => each[i]!;
}
