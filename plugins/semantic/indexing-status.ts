/**
 * `semantic_status`, `vector_status` and `queue_status` of a write, read from the durable queues
 * (indexing-contract.ts), never assumed:
 * - `deferred`: no consumer is registered for the queue (no indexer loaded), so nothing runs now;
 * - `queued`: work for the path (or one of its ancestors' L0/L1) is still pending or in flight;
 * - `complete`: nothing is pending for it (processed, or nothing was needed).
 * While waiting, messages that settle for the path are counted through `queues.onSettle`.
 */
import { EMBEDDING_QUEUE, SEMANTIC_QUEUE, type SemanticMessage } from './indexing-contract.js';
import type { PluginQueues } from 'ctx/plugin';

/**
 * What other plugins get from `host.optional('indexing')`: index status of a path, and refreshes
 * owned by a task. Without the retrieval plugin there is no service, and callers report `deferred`.
 */
export interface IndexingService {
  /** Statuses of index work concerning `path` (the path, below it, its ancestors' L0/L1); waits when asked. */
  report(account: string, path: string, opts: { wait: boolean; timeoutMs?: number; signal?: AbortSignal; kind?: 'file' | 'dir' }): Promise<IndexingReport>;
  /** Whether an indexer consumes the queues now (reindex refuses without one). */
  running(): boolean;
  /**
   * A report in the reference's compact shape (`queue_status: {pending, processing, completed,
   * errors}`), which its add-resource and skill clients read.
   */
  compact(report: IndexingReport): CompactIndexingReport;
  /** Queues a rebuild of `path`'s index owned by `taskId` (cancelling the task drops it). */
  refresh(request: Omit<SemanticMessage, 'op'> & { mode: NonNullable<SemanticMessage['mode']> }, taskId: string): Promise<void>;
}

export function createIndexingService(queues: PluginQueues): IndexingService {
  return {
    report: (account, path, opts) =>
      indexingReport(queues, concerns(account, path), { wait: opts.wait, timeoutMs: opts.timeoutMs, signal: opts.signal, at: { account, path, file: opts.kind === 'file' } }),
    running: () => queues.hasConsumer(SEMANTIC_QUEUE) && queues.hasConsumer(EMBEDDING_QUEUE),
    compact(report) {
      const q = report.queue_status;
      return {
        semantic_status: report.semantic_status,
        vector_status: report.vector_status,
        queue_status: {
          pending: q.Semantic.pending + q.Embedding.pending,
          // The queues do not tell pending from in-flight messages apart.
          processing: 0,
          completed: q.Semantic.processed + q.Embedding.processed,
          errors: q.Semantic.error_count + q.Embedding.error_count,
        },
      };
    },
    async refresh(request, taskId) {
      await queues.enqueue<SemanticMessage>(SEMANTIC_QUEUE, { ...request, op: 'refresh' }, { taskId });
    },
  };
}

export interface CompactIndexingReport {
  semantic_status: IndexStatus;
  vector_status: IndexStatus;
  queue_status: { pending: number; processing: number; completed: number; errors: number };
}

export type IndexStatus = 'queued' | 'complete' | 'deferred';

export interface QueueCounters {
  processed: number;
  error_count: number;
  errors: string[];
  /** Messages for the path still pending or in flight when the response was built. */
  pending: number;
}

export interface IndexingReport {
  semantic_status: IndexStatus;
  vector_status: IndexStatus;
  queue_status: { Semantic: QueueCounters; Embedding: QueueCounters };
}

/**
 * Index work that concerns `path`: messages for the path, anything below it, and its ancestor
 * directories (whose L0/L1 are refreshed because of it).
 */
export function concerns(account: string, path: string) {
  return (payload: unknown): boolean => {
    const p = payload as { account?: unknown; path?: unknown } | null;
    if (!p || p.account !== account || typeof p.path !== 'string') return false;
    const q = p.path;
    if (q === path || q === '' || path === '') return true;
    if (q.length > path.length) return q.startsWith(path) && q[path.length] === '/';
    return path.startsWith(q) && path[q.length] === '/';
  };
}

const MAX_ERRORS = 20;

/**
 * Waits (when `wait`) until no work concerning the path is pending in the queues that have a
 * consumer, or until `timeoutMs` or the signal; then reports. Never throws on timeout: content is
 * already durable, the statuses say what is still outstanding.
 */
export async function indexingReport(
  queues: PluginQueues,
  pred: (payload: unknown) => boolean,
  opts: {
    wait: boolean;
    timeoutMs?: number;
    signal?: AbortSignal;
    /**
     * The path `pred` is `concerns` of: counted through the queues' path indexes, O(depth), instead
     * of a scan of every pending message (O(backlog) per write while a large import is indexed).
     * A file has nothing below it.
     */
    at?: { account: string; path: string; file?: boolean };
  },
): Promise<IndexingReport> {
  const at = opts.at;
  const lineage = at ? [at.path, ...ancestorsOf(at.path)] : null;
  const pendingIn = (names: string[]) =>
    at ? queues.countPendingAt(at.account, lineage!, names) + (at.file ? 0 : queues.countPendingBelow(at.account, at.path, names)) : queues.countPending(pred, names);
  const counters = { [SEMANTIC_QUEUE]: fresh(), [EMBEDDING_QUEUE]: fresh() } as Record<string, QueueCounters>;
  const active = [SEMANTIC_QUEUE, EMBEDDING_QUEUE].filter((q) => queues.hasConsumer(q));
  if (opts.wait && active.length > 0) {
    const off = queues.onSettle((queue, msg, error) => {
      const c = counters[queue];
      if (!c || !pred(msg.payload)) return;
      if (error === undefined) c.processed++;
      else {
        c.error_count++;
        if (c.errors.length < MAX_ERRORS) c.errors.push(`${queue}#${msg.seq}: ${error}`);
      }
    });
    try {
      await waitUntilSettled(() => (queues.isClosed ? 0 : pendingIn(active)), opts.timeoutMs, opts.signal);
    } finally {
      off();
    }
  }
  const pendingSemantic = pendingIn([SEMANTIC_QUEUE]);
  const pendingEmbedding = pendingIn([EMBEDDING_QUEUE]);
  counters[SEMANTIC_QUEUE]!.pending = pendingSemantic;
  counters[EMBEDDING_QUEUE]!.pending = pendingEmbedding;
  const semantic: IndexStatus = !queues.hasConsumer(SEMANTIC_QUEUE) ? 'deferred' : pendingSemantic > 0 ? 'queued' : 'complete';
  // Embedding work for a change is enqueued by the Semantic consumer, so it is outstanding while
  // the Semantic message is.
  const vector: IndexStatus = !queues.hasConsumer(EMBEDDING_QUEUE) ? 'deferred' : pendingEmbedding > 0 || pendingSemantic > 0 ? 'queued' : 'complete';
  return {
    semantic_status: semantic,
    vector_status: vector,
    queue_status: { Semantic: counters[SEMANTIC_QUEUE]!, Embedding: counters[EMBEDDING_QUEUE]! },
  };
}

function fresh(): QueueCounters {
  return { processed: 0, error_count: 0, errors: [], pending: 0 };
}

/** `resources/a/b.md` → `resources/a`, `resources`, `''`. */
function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1)) out.push(path.slice(0, i));
  if (path !== '') out.push('');
  return out;
}

/** Polls `pending()` until it is 0, the timeout passes or the signal aborts (consumers give no push). */
async function waitUntilSettled(pending: () => number, timeoutMs: number | undefined, signal?: AbortSignal): Promise<void> {
  const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
  let delay = 1;
  while (pending() > 0 && !signal?.aborted) {
    const left = deadline - Date.now();
    if (left <= 0) return;
    await new Promise((r) => setTimeout(r, Math.min(delay, left)));
    delay = Math.min(20, delay * 2);
  }
}
