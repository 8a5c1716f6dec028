/**
 * Semantic plugin: the indexer. It turns every durable VFS change into index work on its two
 * durable queues (Semantic, Embedding), writes L0/L1 sidecars bottom-up (LLM or extractive), and
 * embeds records into the retrieval plugin's store through its `vector-store` service. Other
 * plugins read index status through the `indexing` service. README.md describes the pipeline.
 */
import { HOST_VERSION, definePlugin, type CodeOutline, type Identity } from 'ctx/plugin';
import { Indexer, type IndexerStats } from './indexer.js';
import { EMBEDDING_QUEUE, SEMANTIC_QUEUE } from './indexing-contract.js';
import { createIndexingService, type IndexingService } from './indexing-status.js';
import { createSummarizer } from './summarize.js';

/** Owner of the internal `vector_reembed` task (not a real user; listed with include_internal). */
export const REEMBED_OWNER: Identity = { accountId: '-', userId: 'system', role: 'ROOT' };

export interface IndexingServiceWithStats extends IndexingService {
  /** Counters of the pipeline since start (the `retrieval` observer shows them). */
  stats(): Readonly<IndexerStats> & { llm: string | null; embedding: { pending: number; error_count: number } };
}

/**
 * Outlines of code files as the indexer stored them (computed once per content when the file was
 * indexed): code navigation reads these instead of parsing again. `files` are internal paths the
 * caller has already checked the requester may read, with the sha256 their node has now; a file
 * without a stored outline for that content gets null.
 */
export interface CodeOutlinesService {
  get(account: string, files: Array<{ path: string; sha256?: string }>): Promise<Array<CodeOutline | null>>;
}

declare module 'ctx/plugin' {
  interface Services {
    indexing: IndexingServiceWithStats;
    'code-outlines': CodeOutlinesService;
  }
}

export default definePlugin({
  name: 'semantic',
  version: HOST_VERSION,
  dependsOn: ['retrieval'],
  privileges: ['unscoped-vfs', 'all-account-changes'],
  privilegeReasons: {
    'unscoped-vfs': "the indexer: in the background, for every account, it reads what changed and writes the L0/L1 sidecars, with no caller whose view could apply (one of the three plugins keeping it)",
    'all-account-changes': "turns every account's change into index work in the change's own batch (onCommit)",
  },
  setup(host) {
    const store = host.use('vector-store');
    const llm = host.models.llm();
    const indexer = new Indexer(
      host,
      store,
      createSummarizer(llm, (err) => {
        indexer.stats.llmFallbacks++;
        host.log.warn('LLM failed; extractive L0/L1 used instead', { error: err });
      }),
    );
    // The queues are this plugin's contract: declared so observers list them even when idle.
    host.queues.declare(SEMANTIC_QUEUE);
    host.queues.declare(EMBEDDING_QUEUE);
    // The system plugin waits for them, shows their counts and retries their dead letters.
    host.shareQueue(SEMANTIC_QUEUE, ['system']);
    host.shareQueue(EMBEDDING_QUEUE, ['system']);
    indexer.install();
    host.provide('indexing', {
      ...createIndexingService(host.queues),
      stats() {
        const q = host.queues.stats()[EMBEDDING_QUEUE];
        return { ...indexer.stats, llm: llm ? llm.model : null, embedding: { pending: q?.pending ?? 0, error_count: q?.error_count ?? 0 } };
      },
    });
    host.provide('code-outlines', { get: (account, files) => indexer.outlines(account, files) });
    host.log.info('semantic processing ready', { llm: llm ? llm.model : null });

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
    const bg = host.cluster.background;
    if (bg) {
      // Cluster mode (docs/scale-out.md, "Start-up work"): the re-embed is each shard's, done once
      // by its leader through its log — never queued locally by every node at start. A shard's
      // replicated marker names the embedder its vectors come from: a later leader (failover,
      // hand-back) that finds the current one there has nothing to do.
      const markerKey = (shard: string) => `reembed-shard${'\x00'}${shard}`;
      host.cluster.onLeading?.((shard) => {
        if (!store.embedderChanged) return;
        void bg
          .run(shard, async () => {
            const tag = store.embedderTag();
            const marker = (await host.kv.get(markerKey(shard)))?.toString('utf8') ?? store.previousEmbedderTag;
            if (marker === tag || !bg.leads(shard)) return;
            // A shard with no records has nothing to re-embed and gets no marker (no stream is
            // created for it); finding its accounts is one seek per account with records.
            const accounts = (await store.recordAccounts()).filter((a) => bg.shardOf(a) === shard);
            if (!accounts.length) return;
            const n = await indexer.reembedShard(accounts, [host.kv.putOp(markerKey(shard), tag)]);
            store.setReembedQueued(n);
            host.log.info('re-embedding of a led shard queued after an embedder change', { shard, records: n });
            if (n > 0) await host.tasks.create('vector_reembed', REEMBED_OWNER, { internal: true, stage: 'queued', input: { records: n, shard } });
          })
          .catch((err: unknown) => host.log.error('re-embedding a led shard could not be queued; the next leader of the shard retries', { shard, error: err }));
      });
    }
    host.onReady(async () => {
      if (!store.embedderChanged || bg) return;
      const n = await indexer.reembedAll();
      store.setReembedQueued(n);
      host.log.info('re-embedding queued after an embedder change', { records: n });
      await host.tasks.create('vector_reembed', REEMBED_OWNER, { internal: true, stage: 'queued', input: { records: n } });
      // Only now is the re-embed durable (messages and task); a crash before this line repeats it.
      await store.reembedQueuedDone();
    });
  },
});
