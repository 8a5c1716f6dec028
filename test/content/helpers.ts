/**
 * Apps for the content tests. The content plugin reports indexing status from the durable queues,
 * so tests choose who consumes them: nobody (`deferred`), or a probe indexer that speaks the queue
 * contract of plugins/retrieval/indexing-contract.ts (enqueue on commit, Semantic → Embedding) and can be held
 * or made to fail, so "queued", "complete" and errors are reached without timing.
 */
import { builtinPlugins } from '../../plugins/index.js';
import { definePlugin, type PluginDefinition } from '../../runtime/plugin.js';
import { EMBEDDING_QUEUE, SEMANTIC_QUEUE, type EmbeddingMessage, type SemanticMessage } from '../../plugins/semantic/indexing-contract.js';
import { createIndexingService } from '../../plugins/semantic/indexing-status.js';
import type { QueueMessage } from '../../runtime/queues/queue.js';
import type { ChangeEvent } from '../../runtime/vfs/types.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

/** Built-in plugins minus any that consume the index queues (and their dependants). */
export function pluginsWithoutIndexer(): PluginDefinition[] {
  const drop = new Set(['retrieval']);
  let changed = true;
  while (changed) {
    changed = false;
    for (const p of builtinPlugins)
      if (!drop.has(p.name) && (p.dependsOn ?? []).some((d) => drop.has(d))) {
        drop.add(p.name);
        changed = true;
      }
  }
  return builtinPlugins.filter((p) => !drop.has(p.name));
}

export interface Probe {
  plugin: PluginDefinition;
  semantic: Array<SemanticMessage & { seq: number; existing?: boolean[] }>;
  embedding: EmbeddingMessage[];
  /** Events per commit seen by the probe's commit hook. */
  commits: ChangeEvent[][];
  /** While held, consumers wait; release() lets them run. */
  hold(): void;
  release(): void;
  /** Paths whose Semantic messages fail (dead-letter after one attempt). */
  failing: Set<string>;
  /** Paths whose existence is recorded when their first Semantic message is consumed. */
  watch: string[];
}

export function probeIndexer(): Probe {
  let gate: Promise<void> | null = null;
  let open: () => void = () => {};
  const probe: Probe = {
    semantic: [],
    embedding: [],
    commits: [],
    failing: new Set(),
    watch: [],
    hold() {
      gate = new Promise((r) => (open = r));
    },
    release() {
      gate = null;
      open();
    },
    plugin: definePlugin({
      name: 'probe-indexer',
      privileges: ['unscoped-vfs'],
      version: '0.0.0',
      setup(host) {
        // Status is read through the same service the retrieval plugin offers, over these queues.
        host.provide('indexing', createIndexingService(host.queues));
        const activations = new WeakMap<ChangeEvent, () => void>();
        host.unscopedVfs.onCommit((events) => {
          probe.commits.push(events);
          const ops = [];
          for (const ev of events) {
            if (ev.type !== 'write' || ev.path.split('/').pop()!.startsWith('.')) continue;
            const prepared = host.queues.prepare<SemanticMessage>(SEMANTIC_QUEUE, { account: ev.account, path: ev.path, kind: 'file', op: 'upsert', tags: ev.hint?.tags as string[] | undefined });
            if (!prepared) continue;
            ops.push(...prepared.ops);
            activations.set(ev, prepared.activate);
          }
          return ops;
        });
        host.unscopedVfs.on('change', (ev: ChangeEvent) => activations.get(ev)?.());
        host.consume<SemanticMessage>(
          SEMANTIC_QUEUE,
          async (msg: QueueMessage<SemanticMessage>) => {
            while (gate) await gate;
            const p = msg.payload;
            const entry: Probe['semantic'][number] = { ...p, seq: msg.seq };
            if (probe.watch.length && !probe.semantic.some((s) => s.existing))
              entry.existing = (await host.unscopedVfs.statMany(p.account, probe.watch)).map((n) => n !== null);
            probe.semantic.push(entry);
            if (probe.failing.has(p.path)) throw new Error(`probe failure for ${p.path}`);
            await host.queues.enqueue<EmbeddingMessage>(EMBEDDING_QUEUE, { account: p.account, path: p.path, level: p.kind === 'dir' ? 0 : 2, op: 'upsert' });
          },
          { maxAttempts: 1, backoffMs: 1 },
        );
        host.consume<EmbeddingMessage>(EMBEDDING_QUEUE, async (msg) => {
          while (gate) await gate;
          probe.embedding.push(msg.payload);
        });
      },
    }),
  };
  return probe;
}

export async function contentApp(probe?: Probe): Promise<TestApp> {
  return startTestApp({ plugins: [...pluginsWithoutIndexer(), ...(probe ? [probe.plugin] : [])] });
}
