/**
 * Retrieval plugin: semantic processing (L0/L1), vector records, the `vector-index` service, and the
 * search routes (find, search, grep, glob), consistency and the `vectordb`/`retrieval` observers.
 * See README.md and docs/retrieval.md.
 */
import { definePlugin, s, type Identity, type PluginHost } from 'ctx/plugin';
import type { KvOp } from 'ctx/plugin';
import { HOST_VERSION } from 'ctx/plugin';
import { loadBackends } from './backends.js';
import { registerRoutes, type RerankerLike } from './routes.js';
import { QueryEmbeddingCache } from './query-embedding-cache.js';
import { RecordStore, embedderTag, type RecordDoc } from './store.js';
import type { RecordAttrs } from './backends.js';
import { parentPath, placement, recordAttrs, type Placement } from './space.js';
import { vectorRecords, type VectorRecordsService } from './records.js';
import { registerIndexMetrics } from './metrics.js';
import { replicatedChanges } from './follower-index.js';

/** What other plugins get from `host.optional('vector-index')`. */
export interface VectorIndexService {
  /**
   * Items below `path` estimated from the index (stat `count`): files and subdirectories, once
   * each; only in `ownerSpaces` when given (`''` shared resources, `user:<id>` a user's space).
   */
  countUnder(identity: Identity, path: string, ownerSpaces?: string[]): Promise<number>;
  /**
   * The node a 32-hex record id of the caller's account stands for (any level), or null when
   * unindexed, deleted, or not readable by the caller.
   */
  resolve(identity: Identity, id: string): Promise<{ path: string; uri: string; level: 0 | 1 | 2 } | null>;
  /**
   * The embedder the index actually runs on, after the remote model's dimension probe, which the
   * configuration alone cannot tell.
   */
  embedderInfo(): { provider: string; model: string; dim: number; inputMode: string; params: Record<string, unknown> };
}

/**
 * The record store as the semantic plugin (the indexer) writes it: records per node and level, the
 * embedder they are embedded with, and which paths are indexed at all. Not for reading on behalf of
 * a caller (no access checks): `vector-index` and the search routes are.
 */
export interface VectorStoreService {
  readonly embedder: RecordStore['embedder'];
  /** Tag of the running embedder stored with each record (provider/model/dim/fingerprint). */
  embedderTag(): string;
  /** The stored records were embedded by another embedder: re-embed every record once. */
  readonly embedderChanged: boolean;
  /** Cluster mode, after an embedder change: the tag of the embedder the stored vectors came from. */
  readonly previousEmbedderTag?: string;
  /** Cluster mode: the delete of a record's stored vector, for the shard leader's re-embed batch. */
  vectorDelOp(account: string, id: string): KvOp;
  /** Accounts with stored records, and one account's records (cluster mode: a shard's re-embed). */
  recordAccounts(): Promise<string[]>;
  recordsOf(account: string): AsyncIterable<RecordDoc>;
  /** Re-embedding was queued durably (called once, after the messages and the task exist). */
  reembedQueuedDone(): Promise<void>;
  setReembedQueued(n: number): void;
  /** Where a path sits for indexing (context type, owner space), or null when it is not indexed. */
  placement(path: string): Placement | null;
  parentPath(path: string): string;
  /** The attributes a record of `level` of this placed node carries. */
  recordAttrs: typeof recordAttrs;
  id(account: string, path: string, level: 0 | 1 | 2): string;
  get(account: string, path: string, level: number): Promise<RecordDoc | undefined>;
  allRecords(): AsyncIterable<RecordDoc>;
  /** `keepEquivalent`: skip records whose stored one has the same source, text and embedder. */
  upsert(docs: RecordDoc[], vectors: Float32Array[], opts?: { keepEquivalent?: boolean }): Promise<void>;
  updateAttrs(doc: RecordDoc): Promise<void>;
  remove(account: string, path: string, opts: { level?: number; subtree?: boolean; keep?: (paths: string[]) => Promise<Set<string>> }): Promise<number>;
}

export type { RecordDoc, RecordAttrs, Placement };
export type { EmbeddingMeta, PortableRecord, VectorRecordsService } from './records.js';

declare module 'ctx/plugin' {
  interface Services {
    'vector-index': VectorIndexService;
    'vector-store': VectorStoreService;
    'vector-records': VectorRecordsService;
  }
}

export default definePlugin({
  name: 'retrieval',
  version: HOST_VERSION,
  bootTimeoutMs: 120_000,
  config: s.object({
    queryEmbeddingCache: s.int({ min: 0, max: 1_000_000 }).default(1024).describe('query vectors kept for repeated find/search texts (least recently used out; ~1.5 KB each at 384 dimensions); 0 = off'),
    recordCacheMb: s.int({ min: 0, max: 4096 }).default(16).describe('MiB (estimated) of what find answers read of records, kept for the records written and found last (slim record cache: uri, level, abstract, overview, the text\'s distinct words); 0 = off'),
  }),
  async setup(host: PluginHost) {
    const backends = await loadBackends(host.models.embedder(), host.config.vectorFlatThreshold);
    const store = new RecordStore(host.kv, backends, host.dataDir, host.log);
    store.slim.resize((host.pluginConfig.recordCacheMb as number) * 1024 * 1024);
    const { embedderChanged, previousTag } = await store.open({ replicated: !!host.cluster.background });
    const llm = host.models.llm();
    host.log.info('retrieval ready', { backend: backends.kind, embedder: backends.embedder.info, index: store.loaded ? 'loaded' : 'loading in the background' });
    // Cluster mode (docs/scale-out.md, phase 3): records another node's leader wrote reach RocksDB
    // below this store; they are fed into the index as they are applied (the replica's token wait
    // covers this too), so any replica serves find/search with the leader's results.
    host.cluster.onApplied?.((ops) => {
      const changes = replicatedChanges(host.kv.prefix, ops);
      return changes.length ? store.applyReplicated(changes) : undefined;
    });

    const service: VectorIndexService = {
      // Scoped like every index query: the caller's account only, and only what they may read.
      countUnder: (identity, path, ownerSpaces) => store.countUnder(identity.accountId, path, ownerSpaces),
      async resolve(identity, id) {
        const d = await store.getById(identity.accountId, id);
        if (!d || !(await host.access.canReadPath(identity, d.path))) return null;
        return { path: d.path, uri: d.attrs.uri, level: d.level };
      },
      embedderInfo: () => structuredClone(store.embedder.info),
    };
    host.provide('vector-index', service);
    host.provide('vector-store', {
      get embedder() {
        return store.embedder;
      },
      embedderTag: () => embedderTag(store.embedder.info),
      embedderChanged,
      previousEmbedderTag: previousTag,
      vectorDelOp: (account, id) => store.vectorDelOp(account, id),
      recordAccounts: () => store.recordAccounts(),
      recordsOf: (account) => store.recordsOf(account),
      reembedQueuedDone: () => store.reembedQueuedDone(),
      setReembedQueued: (n) => void (store.reembedQueued = n),
      placement,
      parentPath,
      recordAttrs,
      id: (account, path, level) => store.id(account, path, level),
      get: (account, path, level) => store.get(account, path, level),
      allRecords: () => store.allRecords(),
      upsert: (docs, vectors, opts) => store.upsert(docs, vectors, opts),
      updateAttrs: (doc) => store.updateAttrs(doc),
      remove: (account, path, opts) => store.remove(account, path, opts),
    } satisfies VectorStoreService);
    host.provide('vector-records', vectorRecords(host, store));
    host.on('account-deleted', ({ account }) => store.dropAccount(account));
    // Not ready while the index loads in the background (store.open): find and search wait for it
    // meanwhile, so a load balancer holding traffic back until 200 is what keeps them fast.
    const vectordbReady = () => {
      if (store.loadError) throw new Error(`index load failed: ${store.loadError.message}`);
      if (!store.loaded) throw new Error('loading the vector index');
      store.index.stats();
      return 'ok';
    };
    host.readyCheck('vectordb', vectordbReady);
    registerIndexMetrics(host, store);
    const reranker: RerankerLike | null = host.models.reranker();
    registerRoutes(host, store, llm, reranker, new QueryEmbeddingCache(host.pluginConfig.queryEmbeddingCache as number));

    host.onClose(() => store.close());
  },
});
