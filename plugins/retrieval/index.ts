/**
 * Retrieval plugin: semantic processing (L0/L1), vector records, the `vector-index` service, and the
 * search routes (find, search, grep, glob), consistency and the `vectordb`/`retrieval` observers.
 * See README.md and docs/retrieval.md.
 */
import { definePlugin, type Identity, type PluginHost } from '../../runtime/sdk/index.js';
import { createLlm, createReranker } from '../../runtime/sdk/index.js';
import { EMBEDDING_QUEUE, SEMANTIC_QUEUE } from './indexing-contract.js';
import { createIndexingService, type IndexingService } from './indexing-status.js';
import { HOST_VERSION } from '../../runtime/sdk/index.js';
import { loadBackends } from './backends.js';
import { Indexer } from './indexer.js';
import { registerRoutes, type RerankerLike } from './routes.js';
import { RecordStore } from './store.js';
import { createSummarizer } from './summarize.js';

/** Owner of the internal `vector_reembed` task (not a real user; listed with include_internal). */
export const REEMBED_OWNER = { accountId: '-', userId: 'system', role: 'ROOT' } as const;

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

declare module '../../runtime/sdk/index.js' {
  interface Services {
    'vector-index': VectorIndexService;
    indexing: IndexingService;
  }
}

export default definePlugin({
  name: 'retrieval',
  version: HOST_VERSION,
  // The indexer reads every account's changes; search hits are filtered by host.access.
  privileges: ['unscoped-vfs'],
  bootTimeoutMs: 120_000,
  async setup(host: PluginHost) {
    const backends = await loadBackends(host.config);
    const store = new RecordStore(host.kv, backends, host.dataDir, host.log);
    const { embedderChanged } = await store.open();
    const llm = createLlm(host.config.llm);
    const indexer = new Indexer(
      host,
      store,
      createSummarizer(llm, (err) => {
        indexer.stats.llmFallbacks++;
        host.log.warn('LLM failed; extractive L0/L1 used instead', { error: err });
      }),
    );
    indexer.install();
    host.log.info('retrieval ready', { backend: backends.kind, embedder: backends.embedder.info, llm: llm ? llm.model : null, records: store.index.stats().size });

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
    // The queues are this plugin's contract: declared here so observers list them even when idle.
    host.queues.declare(SEMANTIC_QUEUE);
    host.queues.declare(EMBEDDING_QUEUE);
    host.provide('indexing', createIndexingService(host.queues));
    const vectordbReady = () => {
      store.index.stats();
      return 'ok';
    };
    host.readyCheck('vectordb', vectordbReady);
    const reranker: RerankerLike | null = createReranker(host.config.rerank);
    registerRoutes(host, store, indexer, llm, reranker);

    // Re-embedding after an embedder change: an Embedding message per stored record is queued
    // (durable) before the server takes requests, and an internal task tracks it until the queue
    // has drained them (resumed after a restart).
    host.taskType({
      type: 'vector_reembed',
      cancellable: false,
      onRestart: 'resume',
      async run(ctx, input) {
        await ctx.setStage('embedding');
        await host.queues.waitFor((p) => (p as { op?: string }).op === 'upsert', [EMBEDDING_QUEUE]);
        return { records: (input as { records?: number } | undefined)?.records ?? 0, embedder: store.embedder.info };
      },
    });
    host.onReady(async () => {
      if (!embedderChanged) return;
      const n = await indexer.reembedAll();
      store.reembedQueued = n;
      host.log.info('re-embedding queued after an embedder change', { records: n });
      await host.tasks.create('vector_reembed', REEMBED_OWNER, { internal: true, stage: 'queued', input: { records: n } });
      // Only now is the re-embed durable (messages and task); a crash before this line repeats it.
      await store.reembedQueuedDone();
    });
    host.onClose(() => store.close());
  },
});
