/**
 * The semantic plugin's indexing queues. Writers never touch them: the indexer turns durable VFS
 * changes (and their `IndexHint`s) into messages itself, and other plugins read index status
 * through the `indexing` service (indexing-status.ts). Every payload carries `account` and `path`
 * so status and wait can be answered per path without knowing who consumes the queue.
 *
 * - `Semantic`: a node changed; the consumer refreshes L0/L1 sidecars bottom-up and enqueues the
 *   `Embedding` work for the records concerned (before it acks, so `waitFor` sees no gap).
 * - `Embedding`: (re)compute or delete the vector record of one level of one node.
 */
import { isAncestorPath } from 'ctx/plugin';

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
    return isAncestorPath(path, p.path);
  };
}
