/**
 * The runtime's own families beside HTTP: queues, tasks and the storage engine. Depths, ages and
 * engine numbers are read at scrape time from their owners; only deliveries and task outcomes are
 * counted as they happen (through the queue's and the task manager's hooks, which also carry
 * tracing: a delivery or a task run is a span continuing the trace that caused it).
 */
import type { QueueManager } from '../queues/queue.js';
import type { Kv } from '../storage/kv.js';
import type { TaskHooks, TaskManager, TaskStatus } from '../tasks/task-manager.js';
import type { Tracing } from '../tracing/tracing.js';
import { CollectedFamily, CounterFamily, HistogramFamily, type HistogramChild } from './families.js';
import type { Metrics } from './registry.js';

export function instrumentQueues(metrics: Metrics | undefined, tracing: Tracing | undefined, queues: QueueManager): void {
  let delivery: HistogramFamily | undefined;
  if (metrics) {
    const stats = () => Object.entries(queues.stats());
    const per = (name: string, help: string, type: 'counter' | 'gauge', pick: (s: ReturnType<QueueManager['stats']>[string]) => number) =>
      metrics.add(new CollectedFamily(name, help, type, ['queue'], () => stats().map(([q, s]) => [[q], pick(s)] as [string[], number])));
    per('ctx_queue_depth', 'Messages waiting or running, per queue', 'gauge', (s) => s.pending);
    per('ctx_queue_in_flight', 'Messages being processed now, per queue', 'gauge', (s) => s.in_flight);
    per('ctx_queue_processed_total', 'Messages processed successfully since start, per queue', 'counter', (s) => s.processed);
    per('ctx_queue_retried_total', 'Failed deliveries put back for a retry since start, per queue', 'counter', (s) => s.requeue_count);
    per('ctx_queue_failed_total', 'Messages that failed permanently (dead-lettered) since start, per queue', 'counter', (s) => s.error_count);
    per('ctx_queue_dead_letter', 'Messages in the dead-letter range now, per queue', 'gauge', (s) => s.dead_letter);
    metrics.add(
      new CollectedFamily('ctx_queue_oldest_message_age_seconds', 'Age of the oldest waiting message, per queue (0 when empty)', 'gauge', ['queue'], () => {
        const oldest = queues.oldestPending();
        const now = Date.now();
        return queues.names().map((q) => [[q], oldest.has(q) ? (now - oldest.get(q)!) / 1000 : 0] as [string[], number]);
      }),
    );
    delivery = metrics.add(new HistogramFamily('ctx_queue_delivery_duration_seconds', 'Time a consumer took per message, per queue', ['queue']));
  }
  if (!delivery && !tracing?.enabled) return;
  const children = new Map<string, HistogramChild>();
  queues.wrapDelivery = async (queue, msg, deliver) => {
    const t0 = performance.now();
    try {
      if (tracing?.enabled) await tracing.work(`queue ${queue}`, 'consumer', msg.traceparent, { 'messaging.destination.name': queue, 'messaging.message.id': String(msg.seq) }, deliver);
      else await deliver();
    } finally {
      if (delivery) {
        let c = children.get(queue);
        if (!c) children.set(queue, (c = delivery.child(queue)));
        c.observe((performance.now() - t0) / 1000);
      }
    }
  };
}

export function instrumentTasks(metrics: Metrics | undefined, tracing: Tracing | undefined, tasks: TaskManager): void {
  let finished: CounterFamily | undefined;
  let duration: HistogramFamily | undefined;
  if (metrics) {
    finished = metrics.add(new CounterFamily('ctx_tasks_finished_total', 'Tasks that reached a final state since start, by type and state', ['type', 'state']));
    duration = metrics.add(new HistogramFamily('ctx_task_duration_seconds', 'Time from creation to final state, by type', ['type'], [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600]));
    metrics.add(
      new CollectedFamily('ctx_tasks_running', 'Tasks running in this process now, by type', 'gauge', ['type'], () =>
        [...tasks.runningByType()].map(([type, n]) => [[type], n] as [string[], number]),
      ),
    );
  }
  const hooks: TaskHooks = {
    around: (t, run) => (tracing?.enabled ? tracing.work(`task ${t.task_type}`, 'internal', t.traceparent, { 'ctx.task.type': t.task_type, 'ctx.task.id': t.task_id }, run) : run()),
    finished(type: string, status: TaskStatus, seconds: number) {
      finished?.child(type, status).inc();
      duration?.child(type).observe(seconds);
    },
  };
  tasks.hooks = hooks;
}

export function instrumentStorage(metrics: Metrics, kv: Kv): void {
  const read = () => kv.backend.engineStats?.();
  const one = (name: string, help: string, type: 'counter' | 'gauge', pick: (s: NonNullable<ReturnType<typeof read>>) => number) =>
    metrics.add(
      new CollectedFamily(name, help, type, [], () => {
        const s = read();
        return s ? [[[], pick(s)]] : [];
      }),
    );
  one('ctx_rocksdb_live_data_bytes', 'RocksDB estimate of live data size', 'gauge', (s) => s.liveDataBytes);
  one('ctx_rocksdb_sst_files_bytes', 'Size of all RocksDB SST files', 'gauge', (s) => s.sstFilesBytes);
  one('ctx_rocksdb_memtable_bytes', 'Size of all RocksDB memtables', 'gauge', (s) => s.memtableBytes);
  one('ctx_rocksdb_pending_compaction_bytes', 'Bytes RocksDB estimates compaction must rewrite', 'gauge', (s) => s.pendingCompactionBytes);
  one('ctx_rocksdb_running_compactions', 'Compactions running now', 'gauge', (s) => s.runningCompactions);
  one('ctx_rocksdb_block_cache_usage_bytes', 'Block cache memory in use', 'gauge', (s) => s.blockCacheUsageBytes);
  one('ctx_rocksdb_block_cache_capacity_bytes', 'Block cache capacity', 'gauge', (s) => s.blockCacheCapacityBytes);
  one('ctx_rocksdb_block_cache_pinned_bytes', 'Block cache memory held by entries in use', 'gauge', (s) => s.blockCachePinnedBytes);
  // Only served when the engine keeps statistics (rocksdb@5.2.1 does not: no samples, see
  // docs/operations.md); a NaN reading is dropped by CollectedFamily.
  one('ctx_rocksdb_block_cache_hits_total', 'Block cache lookups that hit, since the database opened', 'counter', (s) => s.blockCacheHits ?? NaN);
  one('ctx_rocksdb_block_cache_misses_total', 'Block cache lookups that missed, since the database opened', 'counter', (s) => s.blockCacheMisses ?? NaN);
  one('ctx_rocksdb_estimated_keys', 'RocksDB estimate of the number of keys', 'gauge', (s) => s.estimatedKeys);
  one('ctx_rocksdb_write_stalls_total', 'Write stalls and slowdowns since the database opened', 'counter', (s) => s.writeStalls);
  one('ctx_rocksdb_write_stall_seconds_total', 'Time writes spent stalled since the database opened', 'counter', (s) => s.writeStallSeconds);
  one('ctx_rocksdb_writes_stopped', '1 while RocksDB stops writes', 'gauge', (s) => (s.writesStopped ? 1 : 0));
  one('ctx_rocksdb_background_errors', 'Background errors RocksDB has seen', 'gauge', (s) => s.backgroundErrors);
}
