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

export interface DenseSnapshot {
  meta: DenseMeta;
  /** Vector lines by pack-relative path. */
  byPath: Map<string, VectorLine[]>;
  rows: Float32Array;
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
 * rows against the metadata: each row described exactly once, each (path, level) once, the level
 * fitting the entry's kind, and the bytes matching `sha256` and `count × dim` float32 values.
 */
export function checkDense(meta: DenseMeta, lines: Array<{ line: number; record: Record<string, unknown> }>, bytes: Buffer, kinds: Map<string, 'file' | 'dir'>): DenseSnapshot {
  if (bytes.length !== meta.count * meta.dim * 4) throw packError(`${DENSE} holds ${bytes.length} bytes; embedding.count × dim float32 values are ${meta.count * meta.dim * 4}`, { entry: DENSE });
  if (createHash('sha256').update(bytes).digest('hex') !== meta.sha256) throw packError(`sha256 of ${DENSE} differs from embedding.sha256`, { entry: DENSE });
  if (lines.length !== meta.count) throw packError(`${INDEX_RECORDS} describes ${lines.length} vectors; embedding.count is ${meta.count}`, { entry: INDEX_RECORDS });
  const rowsSeen = new Uint8Array(meta.count);
  const byPath = new Map<string, VectorLine[]>();
  for (const { line, record: r } of lines) {
    const at = { entry: INDEX_RECORDS, line };
    for (const k of Object.keys(r)) if (!LINE_KEYS.has(k)) throw packError(`${INDEX_RECORDS} line ${line}: unknown vector field ${JSON.stringify(k)}`, at);
    const kind = kinds.get(r.path as string);
    if (r.level !== 0 && r.level !== 1 && r.level !== 2) throw packError(`${INDEX_RECORDS} line ${line}: level must be 0, 1 or 2`, at);
    if ((r.level === 2) !== (kind === 'file')) throw packError(`${INDEX_RECORDS} line ${line}: level ${r.level} does not fit a ${kind}`, at);
    const row = r.dense_row;
    if (!Number.isSafeInteger(row) || (row as number) < 0 || (row as number) >= meta.count) throw packError(`${INDEX_RECORDS} line ${line}: dense_row is not a row of ${DENSE}`, at);
    if (rowsSeen[row as number]) throw packError(`${INDEX_RECORDS} line ${line}: dense_row ${row} is described twice`, at);
    rowsSeen[row as number] = 1;
    if (typeof r.text !== 'string' || typeof r.abstract !== 'string') throw packError(`${INDEX_RECORDS} line ${line}: a vector needs its text and abstract`, at);
    for (const k of ['overview', 'source_sha256'] as const)
      if (r[k] !== undefined && typeof r[k] !== 'string') throw packError(`${INDEX_RECORDS} line ${line}: ${k} must be a string`, at);
    const list = byPath.get(r.path as string) ?? [];
    if (list.some((v) => v.level === r.level)) throw packError(`${INDEX_RECORDS} line ${line}: a second level ${r.level} vector of ${JSON.stringify(r.path)}`, at);
    list.push(r as unknown as VectorLine);
    byPath.set(r.path as string, list);
  }
  // Copied out of the archive buffer: rows are read by offset, which must be 4-byte aligned.
  const rows = new Float32Array(meta.count * meta.dim);
  new Uint8Array(rows.buffer).set(bytes);
  if (!rows.every(Number.isFinite)) throw packError(`${DENSE} holds values that are not finite numbers`, { entry: DENSE });
  return { meta, byPath, rows };
}

export function rowOf(d: DenseSnapshot, row: number): Float32Array {
  return d.rows.subarray(row * d.meta.dim, (row + 1) * d.meta.dim);
}
