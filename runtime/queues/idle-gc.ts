/**
 * One full garbage collection when a burst of background work has drained. Why: after a bulk
 * ingest V8's old space holds the garbage of every parsed file, record and embedding batch; with
 * no allocation pressure once the queues are empty, V8 leaves it there (2,000 notes: heap 46 MB
 * used / 74 MB total, 15 s after the last note was findable). One collection then brings the heap
 * to 19 / 21 MB and the RSS from 185 to 135 MB (bench/RESULTS.md, issue 27, "Memory").
 *
 * It runs only after at least `minSettled` queue messages settled and then `quietMs` passed with
 * no further message and every queue idle: a steady trickle of writes never triggers it, and a
 * server serving only reads never pays it. The pause is that of one full collection of the live
 * heap (tens of milliseconds), once per burst.
 */
import { runInNewContext } from 'node:vm';
import v8 from 'node:v8';
import type { Logger } from '../logger.js';
import type { QueueManager } from './queue.js';

export interface IdleGcOptions {
  /** Quiet period after the last settled message, ms; 0 = off. */
  quietMs: number;
  /** Messages a burst must have settled to be worth a collection. */
  minSettled?: number;
  /**
   * Collections per burst, `quietMs / 4` apart: the first frees the old space; V8 shrinks the young
   * generation (grown to its maximum during the ingest) only over the following ones.
   */
  rounds?: number;
}

let gcFn: (() => void) | undefined;
/** V8's `gc()`: exposed by flag at run time, reachable from a context created after it. */
function fullGc(): () => void {
  if (gcFn) return gcFn;
  if (typeof (globalThis as { gc?: () => void }).gc === 'function') return (gcFn = (globalThis as unknown as { gc: () => void }).gc);
  v8.setFlagsFromString('--expose-gc');
  return (gcFn = runInNewContext('gc') as () => void);
}

export interface IdleGc {
  /** Collections run so far, every round counted (for tests and the log). */
  readonly runs: number;
  stop(): void;
}

export function startIdleGc(queues: QueueManager, log: Logger, opts: IdleGcOptions): IdleGc {
  const minSettled = opts.minSettled ?? 200;
  const rounds = opts.rounds ?? 3;
  let settled = 0;
  let runs = 0;
  let timer: NodeJS.Timeout | undefined;
  const fire = (round: number) => {
    timer = undefined;
    // Work arrived meanwhile without settling yet: its own settle re-arms the timer.
    if (!queues.isIdle()) return;
    const before = process.memoryUsage();
    const t0 = performance.now();
    fullGc()();
    const after = process.memoryUsage();
    runs++;
    log.debug('idle garbage collection after background work', {
      messages: settled,
      round,
      ms: Math.round((performance.now() - t0) * 10) / 10,
      heap_used_mib: [before.heapUsed, after.heapUsed].map((b) => Math.round(b / 2 ** 20)),
      rss_mib: [before.rss, after.rss].map((b) => Math.round(b / 2 ** 20)),
    });
    if (round < rounds) timer = setTimeout(() => fire(round + 1), Math.max(1, opts.quietMs / 4)).unref();
    else settled = 0;
  };
  const unsubscribe =
    opts.quietMs > 0
      ? queues.onSettle(() => {
          if (++settled < minSettled) return;
          clearTimeout(timer);
          timer = setTimeout(() => fire(1), opts.quietMs).unref();
        })
      : () => {};
  return {
    get runs() {
      return runs;
    },
    stop() {
      unsubscribe();
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
