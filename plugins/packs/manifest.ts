/**
 * `_ctxpack/manifest.json` (spec Part 2, "Pack layout"): `format_version` 3, one entry per file and
 * directory below the exported root (`''` is the root itself), files with `size` and `sha256`, and
 * `content_sha256` over the sorted list of every file's path, size and sha256. Checked strictly on
 * import: a manifest is the pack's contract, so an unknown field is a pack this version does not
 * understand, not something to skip.
 */
import { createHash } from 'node:crypto';
import { packError } from './zip-read.js';
import type { DenseMeta } from './dense.js';

export const FORMAT_VERSION = 3;
export const PACK_DIR = '_ctxpack';
export const FILES_DIR = 'files';
export const MANIFEST = `${PACK_DIR}/manifest.json`;
export const INDEX_RECORDS = `${PACK_DIR}/index_records.jsonl`;
export const DENSE = `${PACK_DIR}/dense.f32`;

export interface ManifestEntry {
  path: string;
  size?: number;
  sha256?: string;
}

export interface Manifest {
  format_version: number;
  /** `export` packs go to import, `backup` packs to restore (spec Part 2, import rule 8). */
  kind: 'export' | 'backup';
  /** The exported URI (`ctx://` for a backup); the pack's root directory is its last segment. */
  source_uri: string;
  /** True for a top-level scope (`ctx://resources`): it imports only to parent `ctx://` (rule 7). */
  scope_pack: boolean;
  context_type: string | null;
  created_at: string;
  include_vectors: boolean;
  entries: ManifestEntry[];
  content_sha256: string;
  /** With `include_vectors`: what computed the rows of dense.f32 (dense.ts). */
  embedding?: DenseMeta;
}

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/**
 * sha256 of the JSON text of `[[path, size, sha256], ...]` over every file, sorted by the UTF-8
 * bytes of the path: one canonical text any reader can rebuild.
 */
export function contentSha256(entries: ManifestEntry[]): string {
  const files = entries.filter((e) => e.sha256 !== undefined).map((e) => [e.path, e.size, e.sha256] as const);
  files.sort((a, b) => byteOrder(a[0], b[0]));
  return createHash('sha256').update(JSON.stringify(files)).digest('hex');
}

export function sortEntries(entries: ManifestEntry[]): ManifestEntry[] {
  return entries.sort((a, b) => byteOrder(a.path, b.path));
}

const KEYS = new Set(['format_version', 'kind', 'source_uri', 'scope_pack', 'context_type', 'created_at', 'include_vectors', 'entries', 'content_sha256', 'embedding']);
const ENTRY_KEYS = new Set(['path', 'size', 'sha256']);
const HEX64 = /^[0-9a-f]{64}$/;

/** Parses and checks a manifest's shape (not yet against the archive). */
export function parseManifest(raw: Buffer): Manifest {
  let m: unknown;
  try {
    m = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw packError(`${MANIFEST} is not valid JSON (${(err as Error).message})`);
  }
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw packError(`${MANIFEST} must be a JSON object`);
  const o = m as Record<string, unknown>;
  if (o.format_version !== FORMAT_VERSION)
    throw packError(`format_version must be ${FORMAT_VERSION}, got ${JSON.stringify(o.format_version)}`, { format_version: o.format_version ?? null, expected: FORMAT_VERSION });
  for (const k of Object.keys(o)) if (!KEYS.has(k)) throw packError(`unknown manifest field ${JSON.stringify(k)}`, { manifest_field: k });
  if (o.kind !== 'export' && o.kind !== 'backup') throw packError('manifest kind must be "export" or "backup"', { manifest_field: 'kind' });
  if (typeof o.source_uri !== 'string' || !o.source_uri.startsWith('ctx://')) throw packError('manifest source_uri must be a ctx:// URI', { manifest_field: 'source_uri' });
  if (typeof o.scope_pack !== 'boolean') throw packError('manifest scope_pack must be a boolean', { manifest_field: 'scope_pack' });
  if (o.context_type !== null && typeof o.context_type !== 'string') throw packError('manifest context_type must be a string or null', { manifest_field: 'context_type' });
  if (typeof o.include_vectors !== 'boolean') throw packError('manifest include_vectors must be a boolean', { manifest_field: 'include_vectors' });
  if (typeof o.content_sha256 !== 'string' || !HEX64.test(o.content_sha256)) throw packError('manifest content_sha256 is missing or not a sha256', { manifest_field: 'content_sha256' });
  if (!Array.isArray(o.entries)) throw packError('manifest entries must be an array', { manifest_field: 'entries' });
  const seen = new Set<string>();
  for (const e of o.entries as unknown[]) {
    if (!e || typeof e !== 'object' || Array.isArray(e)) throw packError('a manifest entry must be an object', { manifest_field: 'entries' });
    const r = e as Record<string, unknown>;
    for (const k of Object.keys(r)) if (!ENTRY_KEYS.has(k)) throw packError(`unknown manifest entry field ${JSON.stringify(k)}`, { manifest_field: `entries.${k}` });
    if (typeof r.path !== 'string') throw packError('a manifest entry has no path', { manifest_field: 'entries.path' });
    if (seen.has(r.path)) throw packError(`manifest lists ${JSON.stringify(r.path)} twice`, { entry: r.path });
    seen.add(r.path);
    const file = r.sha256 !== undefined || r.size !== undefined;
    if (file && (typeof r.size !== 'number' || !Number.isSafeInteger(r.size) || r.size < 0 || typeof r.sha256 !== 'string' || !HEX64.test(r.sha256)))
      throw packError(`manifest entry ${JSON.stringify(r.path)} needs both size and a hex sha256`, { entry: r.path });
    if (file && r.path === '') throw packError('the root entry "" is a directory', { entry: '' });
  }
  if (!seen.has('')) throw packError('manifest has no root entry ""', { manifest_field: 'entries' });
  return o as unknown as Manifest;
}
