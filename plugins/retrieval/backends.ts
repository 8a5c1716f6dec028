/**
 * The vector index and the embedder the plugin runs on: core-native's `VectorIndex` (FAISS
 * underneath; filters evaluated in the core over per-account bitmaps, so a filtered query never
 * touches another tenant's vectors) and the configured embedder (runtime/models/embedder.ts:
 * the core's local lexical embedder or an OpenAI-compatible API).
 */
import { VectorIndex, type Embedder } from 'ctx/plugin';

export type { Hit, RecordAttrs, VectorFilter } from 'ctx/plugin';

/** What the plugin needs of an embedder (tests substitute their own). */
export type EmbedderLike = Pick<Embedder, 'info' | 'supportsImages' | 'embed' | 'remote'>;

export interface Backends {
  embedder: EmbedderLike;
  createIndex(dim: number): VectorIndex;
  loadIndex(path: string): Promise<VectorIndex>;
  /** Written into the saved index's metadata; an index saved by another backend is rebuilt. */
  kind: 'native';
}

/** `embedder` is the host's (`host.models.embedder()`), which checks a remote model's dimension before the index is sized by it. */
export async function loadBackends(embedderReady: Promise<Embedder>, flatThreshold: number): Promise<Backends> {
  const embedder = await embedderReady;
  return {
    embedder,
    kind: 'native',
    createIndex: (dim) => new VectorIndex({ dim, metric: 'ip', flatThreshold }),
    loadIndex: async (p) => {
      const idx = await VectorIndex.loadAsync(p);
      idx.configure({ dim: idx.stats().dim, flatThreshold });
      return idx;
    },
  };
}
