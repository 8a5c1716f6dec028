/**
 * The contract between writers (VFS, content, fs) and the indexer (retrieval plugin) on the two
 * built-in durable queues. Every payload carries `account` and `path` so status and wait can be
 * answered per path without knowing who consumes the queue.
 *
 * - `Semantic`: a node changed; the consumer refreshes L0/L1 sidecars bottom-up and enqueues the
 *   `Embedding` work for the records concerned (before it acks, so `waitFor` sees no gap).
 * - `Embedding`: (re)compute or delete the vector record of one level of one node.
 */
import type { KvOp } from '../storage/backend.js';
import type { ChangeEvent } from '../vfs/types.js';

export const SEMANTIC_QUEUE = 'Semantic';
export const EMBEDDING_QUEUE = 'Embedding';
export const INDEX_QUEUES = [SEMANTIC_QUEUE, EMBEDDING_QUEUE];

export interface SemanticMessage {
  account: string;
  /** Internal VFS path (no scheme). */
  path: string;
  kind: 'file' | 'dir';
  /** upsert: content or metadata changed; delete: node removed; refresh: reindex request. */
  op: 'upsert' | 'delete' | 'refresh';
  /** For refresh: what to rebuild. */
  mode?: 'vectors_only' | 'semantic_and_vectors';
  recursive?: boolean;
  /** Tags to put into the first vector upsert of a file. */
  tags?: string[];
}

export interface EmbeddingMessage {
  account: string;
  path: string;
  level: 0 | 1 | 2;
  op: 'upsert' | 'delete';
}

/** Matches index work on `path` itself or below it (for `wait` on a write or a subtree). */
export function touchesPath(account: string, path: string) {
  return (payload: unknown): boolean => {
    const p = payload as { account?: string; path?: string } | null;
    if (!p || p.account !== account || typeof p.path !== 'string') return false;
    return p.path === path || p.path.startsWith(path + '/') || path === '';
  };
}

interface CommitHost {
  unscopedVfs: { onCommit(hook: (events: ChangeEvent[]) => KvOp[]): void; on(event: 'change', fn: (ev: ChangeEvent) => void): unknown };
  queues: { hasConsumer(name: string): boolean; prepare<P>(name: string, payload: P, opts?: { dedupeKey?: string }): { ops: KvOp[]; activate: () => void } | null };
}

/**
 * Puts a Semantic message into the same atomic batch as the VFS change that calls for it (so it
 * exists exactly when the change does) and hands it to the consumer once the batch is durable,
 * which the change event signals. `pick` chooses the events and their message and dedupe key.
 * Nothing is queued while no indexer consumes the queue: the messages would pile up unread.
 */
export function queueSemanticOnCommit(host: CommitHost, pick: (ev: ChangeEvent) => { message: SemanticMessage; dedupeKey: string } | null): void {
  const activations = new WeakMap<ChangeEvent, () => void>();
  host.unscopedVfs.onCommit((events) => {
    const ops: KvOp[] = [];
    if (!host.queues.hasConsumer(SEMANTIC_QUEUE)) return ops;
    for (const ev of events) {
      const picked = pick(ev);
      if (!picked) continue;
      const prepared = host.queues.prepare(SEMANTIC_QUEUE, picked.message, { dedupeKey: picked.dedupeKey });
      if (!prepared) continue;
      ops.push(...prepared.ops);
      activations.set(ev, prepared.activate);
    }
    return ops;
  });
  host.unscopedVfs.on('change', (ev: ChangeEvent) => {
    const activate = activations.get(ev);
    if (!activate) return;
    activations.delete(ev);
    activate();
  });
}
