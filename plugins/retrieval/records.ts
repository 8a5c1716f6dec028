/**
 * The `vector-records` service: stored records with their vectors, read out of an account subtree
 * and written back with supplied vectors (packs' dense snapshots). Written records are rebuilt for
 * the target (id, URI, account, owner space, tags and times come from where they land), so only
 * what was embedded travels: the text, the abstract/overview shown with hits, and the vector.
 */
import type { Entry, PluginHost } from 'ctx/plugin';
import { sha256Of } from 'ctx/plugin';
import { embedderTag, type RecordDoc, type RecordStore } from './store.js';
import { placement, recordAttrs } from './space.js';

/**
 * What a dense snapshot says about its vectors (spec Part 2: provider, model, input mode,
 * query/document parameters and dimensions). Where the embedder is reached (`baseUrl`) is not part
 * of it: the same model behind another address gives the same vectors.
 */
export interface EmbeddingMeta {
  provider: string;
  model: string;
  input_mode: string;
  dim: number;
  params: Record<string, unknown>;
}

export interface PortableRecord {
  /** Account-internal path (no `ctx://`). */
  path: string;
  level: 0 | 1 | 2;
  text: string;
  abstract: string;
  overview?: string;
  /** The source's sha256 (`sha256:<hex>`) for files: a record is only written onto the same bytes. */
  source_sha256?: string;
  vector: Float32Array;
}

export interface VectorRecordsService {
  /** The running embedder, as a dense snapshot records it. */
  embedding(): EmbeddingMeta;
  /** Whether vectors described by `meta` can be used by the running embedder, and if not, why. */
  compatible(meta: unknown): { ok: true } | { ok: false; reason: string };
  /**
   * Records of `path` and below (every level), with vectors computed by the running embedder, in
   * path order. No access checks: the caller filters paths for whom it reads on behalf of.
   */
  read(account: string, path: string): AsyncIterable<PortableRecord>;
  /**
   * Stores records with the given vectors (no embedding). A record is skipped when its node is
   * missing, not indexed, of the other kind, holds other bytes than `source_sha256` (files), or its
   * vector does not fit the running embedder; the indexer then computes it as for any write.
   * `nodes` are the records' nodes (null when missing) as the caller sees them: this plugin reads
   * no account's tree on another's behalf.
   */
  write(account: string, records: PortableRecord[], nodes: ReadonlyArray<Entry | null>): Promise<{ written: number; skipped: number }>;
  /** Stored records of `path` and below, with a vector or not (what `read` leaves out included). */
  count(account: string, path: string): Promise<number>;
  /** Removes the records of `path` and below; returns how many. */
  remove(account: string, path: string): Promise<number>;
}

/** JSON with sorted keys: equal metadata compares equal whatever the key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

export function vectorRecords(host: PluginHost, store: RecordStore): VectorRecordsService {
  const embedding = (): EmbeddingMeta => {
    const info = store.embedder.info;
    const { baseUrl: _where, ...params } = (info.params ?? {}) as Record<string, unknown>;
    return { provider: info.provider, model: info.model, input_mode: info.inputMode, dim: info.dim, params };
  };
  const FIELDS = ['provider', 'model', 'input_mode', 'dim', 'params'] as const;

  return {
    embedding,
    compatible(meta) {
      if (!meta || typeof meta !== 'object' || Array.isArray(meta)) return { ok: false, reason: 'the pack has no embedding metadata' };
      const m = meta as Record<string, unknown>;
      const mine = embedding();
      for (const f of FIELDS)
        if (canonical(m[f] ?? (f === 'params' ? {} : null)) !== canonical(mine[f]))
          return { ok: false, reason: `embedding ${f} differs: the pack has ${canonical(m[f] ?? null)}, this server runs ${canonical(mine[f])}` };
      return { ok: true };
    },
    async *read(account, path) {
      const tag = embedderTag(store.embedder.info);
      const dim = store.embedder.info.dim;
      for await (const { doc, vector } of store.subtreeWithVectors(account, path)) {
        if (doc.embedder !== tag || vector.length !== dim) continue;
        const r: PortableRecord = { path: doc.path, level: doc.level, text: doc.text, abstract: doc.abstract, vector };
        if (doc.overview !== undefined) r.overview = doc.overview;
        if (doc.sourceSha !== undefined) r.source_sha256 = doc.sourceSha;
        yield r;
      }
    },
    async write(account, records, nodes) {
      const dim = store.embedder.info.dim;
      const tag = embedderTag(store.embedder.info);
      const docs: RecordDoc[] = [];
      const vectors: Float32Array[] = [];
      records.forEach((r, i) => {
        const node = nodes[i];
        const place = placement(r.path);
        if (!node || !place || node.kind !== (r.level === 2 ? 'file' : 'dir')) return;
        if (r.level === 2 && (!r.source_sha256 || node.sha256 !== r.source_sha256)) return;
        if (r.vector.length !== dim || !r.vector.every(Number.isFinite)) return;
        const attrs = recordAttrs(account, r.path, r.level, node, place);
        // sourceSha as the indexer computes it, so its next pass over the node sees nothing to redo.
        const sourceSha = r.level === 2 ? node.sha256 : sha256Of(Buffer.from(r.text));
        const doc: RecordDoc = { id: store.id(account, r.path, r.level), path: r.path, level: r.level, attrs, text: r.text, abstract: r.abstract, kind: node.kind, size: node.size, sourceSha, embedder: tag };
        if (r.overview !== undefined) doc.overview = r.overview;
        docs.push(doc);
        vectors.push(r.vector);
      });
      await store.guardedWrite(() => store.upsert(docs, vectors));
      return { written: docs.length, skipped: records.length - docs.length };
    },
    async count(account, path) {
      let n = 0;
      for await (const _ of store.subtreeRecords(account, path)) n++;
      return n;
    },
    remove: (account, path) => store.remove(account, path, { subtree: true }),
  };
}
