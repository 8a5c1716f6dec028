/** Following background tasks: wait for the end with progress callbacks, or iterate their events. */
import type { Transport } from './transport.js';
import { sleep } from './transport.js';
import type { QueryOf, RequestOptions, ResultOf } from './types.js';

export type TaskRecord = ResultOf<'getTasksTaskId'>;
/** One execution event (spec Part 1, Task record); the route schema leaves `result` open, so this shape is the spec's. */
export interface TaskEvent {
  seq: number;
  recorded_at: string;
  kind: string;
  status: string | null;
  stage: string | null;
  operation: string | null;
  error: string | null;
}
interface EventsResult {
  execution_events?: { items?: TaskEvent[] } | null;
}
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export function isTerminal(status: string): boolean {
  return TERMINAL.has(status);
}

export interface WaitOptions {
  /** Called whenever the status or stage changes (and once at the start). */
  onProgress?: (task: TaskRecord) => void;
  /** Poll interval in ms (default 250, backing off to 2000). */
  intervalMs?: number;
  /** Give up after this many ms (throws an AbortError-like TimeoutError); default: never. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export function tasksGroup(t: Transport) {
  const get = (taskId: string, query?: QueryOf<'getTasksTaskId'>, o?: RequestOptions) => t.call('getTasksTaskId', { path: { task_id: taskId }, query, ...o });

  /** Polls until the task is completed, failed or cancelled and returns its final record (a failure is returned, not thrown). */
  async function wait(taskId: string, opts: WaitOptions = {}): Promise<TaskRecord> {
    const signal = combine(opts.signal, opts.timeoutMs);
    let interval = opts.intervalMs ?? 250;
    let last = '';
    for (;;) {
      const task = await get(taskId, undefined, { signal });
      const key = `${task.status}|${task.stage ?? ''}`;
      if (key !== last) {
        last = key;
        opts.onProgress?.(task);
      }
      if (isTerminal(task.status)) return task;
      await sleep(interval, signal);
      interval = Math.min(2000, Math.round(interval * 1.25));
    }
  }

  /** Yields the task's execution events as they are recorded, then ends when the task does. */
  async function* events(taskId: string, opts: Omit<WaitOptions, 'onProgress'> = {}): AsyncGenerator<TaskEvent> {
    const signal = combine(opts.signal, opts.timeoutMs);
    let seen = -1;
    let interval = opts.intervalMs ?? 250;
    for (;;) {
      const task = await get(taskId, { include_events: true }, { signal });
      for (const ev of (task.result as EventsResult | null)?.execution_events?.items ?? []) {
        if (ev.seq > seen) {
          seen = ev.seq;
          yield ev;
        }
      }
      if (isTerminal(task.status)) return;
      await sleep(interval, signal);
      interval = Math.min(2000, Math.round(interval * 1.25));
    }
  }

  return {
    list: (query?: QueryOf<'getTasks'>, o?: RequestOptions) => t.call('getTasks', { query, ...o }),
    get,
    cancel: (taskId: string, o?: RequestOptions) => t.call('postTasksTaskIdCancel', { path: { task_id: taskId }, ...o }),
    wait,
    events,
  };
}

function combine(signal: AbortSignal | undefined, timeoutMs: number | undefined): AbortSignal | undefined {
  if (timeoutMs === undefined) return signal;
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

