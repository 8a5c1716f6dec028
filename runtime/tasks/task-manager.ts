/**
 * Background tasks: persistent records (sublevel `tasks`) that survive restarts, run by handlers that
 * plugins register per task type. Status rules are spec Part 1 "States and transitions"; execution
 * events are capped at 64 events / 32 KiB with `dropped_count`, and `seq` is never reset.
 */
import { randomUUID } from 'node:crypto';
import { CtxError, notFound, permissionDenied } from '../errors.js';
import type { Identity } from '../identity/types.js';
import type { Logger } from '../logger.js';
import type { Kv } from '../storage/kv.js';
import { sanitizeError, type QueueManager } from '../queues/queue.js';
import { activeTraceparent } from '../tracing/tracing.js';
import type { BackgroundGate } from '../cluster/background.js';

export const TASK_STATUSES = ['pending', 'running', 'cancelling', 'completed', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
const TERMINAL = new Set<TaskStatus>(['completed', 'failed', 'cancelled']);
export const MAX_EVENTS = 64;
export const MAX_EVENT_BYTES = 32 * 1024;

export type EventKind = 'created' | 'status_changed' | 'stage_changed' | 'error_recorded' | 'waiting_for_descendants';

export interface TaskEvent {
  seq: number;
  recorded_at: string;
  kind: EventKind;
  status: TaskStatus;
  stage: string | null;
  operation: string | null;
  error: string | null;
}

export interface TaskRecord {
  task_id: string;
  task_type: string;
  status: TaskStatus;
  resource_id: string | null;
  stage: string | null;
  created_at: number;
  updated_at: number;
  result: Record<string, unknown> | null;
  error: string | null;
  owner: { account_id: string; user_id: string };
  internal?: boolean;
  parent_task_id?: string;
  /** The trace that created it (W3C traceparent), continued by its run; never shown to clients. */
  traceparent?: string;
  /** Cluster mode: the shard whose leader runs it and whose log holds the record. */
  shard?: string;
  events: { items: TaskEvent[]; dropped_count: number; next_seq: number; bytes: number; started_mid_task: boolean };
}

export interface TaskContext {
  readonly task: Readonly<TaskRecord>;
  readonly signal: AbortSignal;
  setStage(stage: string, operation?: string): Promise<void>;
  recordError(error: unknown, operation?: string): Promise<void>;
  event(kind: EventKind, operation?: string): Promise<void>;
}

export interface TaskTypeDef {
  type: string;
  cancellable: boolean;
  /** Runs the task; its return value becomes `result`. */
  run(ctx: TaskContext, input: unknown): Promise<Record<string, unknown> | void>;
  /** After a restart: re-run unfinished tasks (`resume`) or mark them failed (`fail`, default). */
  onRestart?: 'resume' | 'fail';
}

interface Running {
  controller: AbortController;
  done: Promise<void>;
  /** While a task runs, this object is the authority; cancel() mutates it, so saves never race. */
  record?: TaskRecord;
  /** Cluster mode: the shard it runs for (stopped when that lease is lost). */
  shard?: string;
}

const nowSec = () => Date.now() / 1000;
/** Abort reason of a graceful shutdown (distinct from a user's cancel). */
const SHUTDOWN = Symbol('shutdown');

/** Set by the app: metrics and tracing around task runs and their outcomes. */
export interface TaskHooks {
  /** Runs one task's `run` (a span around it); must call `run`. */
  around<T>(t: TaskRecord, run: () => Promise<T>): Promise<T>;
  /** A task reached a terminal state. */
  finished(type: string, status: TaskStatus, seconds: number): void;
}

export class TaskManager {
  hooks: TaskHooks | undefined = undefined;
  private readonly types = new Map<string, TaskTypeDef>();
  private readonly running = new Map<string, Running>();
  private sweepTimer?: NodeJS.Timeout;
  /** Polls of tasks in `cancelling` waiting for their in-flight queue messages (cleared by `drain`). */
  private readonly settlePolls = new Set<NodeJS.Timeout>();
  private workBlocked = false;
  /** Cluster mode only: tasks run on their shard's leader (docs/scale-out.md, "Background work"). */
  private gate?: BackgroundGate;

  constructor(
    private readonly kv: Kv,
    private readonly queues: QueueManager,
    private readonly log: Logger,
    private readonly retentionHours: number,
  ) {}

  /**
   * Cluster mode: a task runs on the leader of its shard, in the shard's write context. Unfinished
   * tasks of a shard are settled when its lease is gained (not at start); a lost lease stops the
   * runs of that shard, leaving their records to the new leader.
   */
  setGate(gate: BackgroundGate): void {
    this.gate = gate;
    gate.onLeading((shard) => void this.handOver(shard).catch((err: unknown) => this.log.error('tasks of a gained shard could not be settled', { shard, error: err })));
    gate.onLosing((shard) => {
      for (const r of this.running.values()) if (r.record?.shard === shard || r.shard === shard) r.controller.abort(SHUTDOWN);
    });
  }

  private shardOf(t: TaskRecord): string {
    return t.shard ?? this.gate!.shardOf(t.owner.account_id);
  }

  /**
   * A shard's lease was gained: its tasks left unfinished by the previous leader (killed, or
   * deposed) are resumed when their type allows it, else failed with NODE_LOST — never left running.
   */
  private async handOver(shard: string): Promise<void> {
    const gate = this.gate!;
    const stale: TaskRecord[] = [];
    for await (const [, value] of this.kv.scanPrefix('t\x00')) {
      const t = JSON.parse(value.toString('utf8')) as TaskRecord;
      if (!TERMINAL.has(t.status) && !this.running.has(t.task_id) && this.shardOf(t) === shard) stale.push(t);
    }
    for (const t of stale) {
      if (!gate.leads(shard)) return;
      t.shard = shard;
      const def = this.types.get(t.task_type);
      if (t.status === 'cancelling') await gate.run(shard, () => this.transition(t, 'cancelled'));
      else if (def?.onRestart === 'resume') {
        const input = await this.kv.getJson<unknown>(`in\x00${t.task_id}`);
        this.launch(t, input, true);
      } else {
        t.error = 'NODE_LOST: the node running this task was lost during execution; tasks of this type are not resumed, start it again';
        await gate.run(shard, () => this.transition(t, 'failed', 'error_recorded'));
      }
    }
  }

  registerType(def: TaskTypeDef): void {
    if (this.types.has(def.type)) throw new Error(`task type ${def.type} is already registered`);
    this.types.set(def.type, def);
  }

  hasType(type: string): boolean {
    return this.types.has(type);
  }

  /**
   * Drops the persisted queue messages of cancelling and cancelled tasks and blocks new ones. A
   * message that was in flight when the process stopped is still on disk and consumers pump as soon
   * as they register, so the app calls this after `queues.load()` and before any plugin's setup.
   */
  async blockCancelledWork(): Promise<void> {
    this.workBlocked = true;
    const ids: string[] = [];
    for await (const [, value] of this.kv.scanPrefix('t\x00')) {
      const t = JSON.parse(value.toString('utf8')) as TaskRecord;
      if (t.status === 'cancelling' || t.status === 'cancelled') ids.push(t.task_id);
    }
    await this.queues.cancelOwned(ids);
  }

  /** Settles tasks interrupted by a restart, sweeps expired records, starts the retention timer. */
  async start(): Promise<void> {
    // Late (consumers may have run already) but still needed if the embedder skipped the early call.
    if (!this.workBlocked) await this.blockCancelledWork();
    const resume: TaskRecord[] = [];
    // Cluster mode: this node leads no shard yet; each shard's tasks are settled on gaining it.
    if (!this.gate) for await (const [, value] of this.kv.scanPrefix('t\x00')) {
      const t = JSON.parse(value.toString('utf8')) as TaskRecord;
      if (TERMINAL.has(t.status)) continue;
      const def = this.types.get(t.task_type);
      // Its queue work was dropped by blockCancelledWork and its run died with the process.
      if (t.status === 'cancelling') await this.transition(t, 'cancelled');
      else if (def?.onRestart === 'resume') resume.push(t);
      else {
        t.error = 'interrupted by a server restart';
        await this.transition(t, 'failed', 'error_recorded');
      }
    }
    for (const t of resume) {
      const input = await this.kv.getJson<unknown>(`in\x00${t.task_id}`);
      this.launch(t, input, true);
    }
    await this.sweep();
    this.sweepTimer = setInterval(() => void this.sweep().catch(() => {}), 3600_000);
    this.sweepTimer.unref();
  }

  async create(type: string, owner: Identity, opts: { resourceId?: string | null; input?: unknown; internal?: boolean; parentTaskId?: string; stage?: string } = {}): Promise<TaskRecord> {
    const def = this.types.get(type);
    if (!def) throw new Error(`unknown task type ${type}`);
    const t: TaskRecord = {
      task_id: randomUUID(),
      task_type: type,
      status: 'pending',
      resource_id: opts.resourceId ?? null,
      stage: opts.stage ?? null,
      created_at: nowSec(),
      updated_at: nowSec(),
      result: null,
      error: null,
      owner: { account_id: owner.accountId, user_id: owner.userId },
      internal: opts.internal || undefined,
      parent_task_id: opts.parentTaskId,
      traceparent: activeTraceparent(),
      events: { items: [], dropped_count: 0, next_seq: 1, bytes: 0, started_mid_task: false },
    };
    if (this.gate) t.shard = this.gate.current() ?? this.gate.shardOf(owner.accountId);
    this.pushEvent(t, 'created');
    const ops = [this.kv.putJsonOp(this.recordKey(t.task_id), t), this.kv.putOp(this.ownerKey(t), '')];
    if (opts.input !== undefined) ops.push(this.kv.putJsonOp(`in\x00${t.task_id}`, opts.input));
    await this.kv.batch(ops);
    this.launch(t, opts.input);
    return t;
  }

  private recordKey(id: string): string {
    return `t\x00${id}`;
  }
  private ownerKey(t: TaskRecord): string {
    return `o\x00${t.owner.account_id}\x00${t.owner.user_id}\x00${String(Math.floor(t.created_at * 1000)).padStart(15, '0')}\x00${t.task_id}`;
  }

  private pushEvent(t: TaskRecord, kind: EventKind, operation?: string): void {
    const ev: TaskEvent = {
      seq: t.events.next_seq++,
      recorded_at: new Date().toISOString(),
      kind,
      status: t.status,
      stage: t.stage,
      operation: operation ?? null,
      error: kind === 'error_recorded' ? t.error : null,
    };
    t.events.items.push(ev);
    // The 32 KiB cap is on serialized bytes (UTF-8), not UTF-16 string length.
    t.events.bytes += Buffer.byteLength(JSON.stringify(ev));
    while (t.events.items.length > MAX_EVENTS || (t.events.bytes > MAX_EVENT_BYTES && t.events.items.length > 1)) {
      const dropped = t.events.items.shift()!;
      t.events.bytes -= Buffer.byteLength(JSON.stringify(dropped));
      t.events.dropped_count++;
    }
  }

  private async save(t: TaskRecord): Promise<void> {
    t.updated_at = nowSec();
    await this.kv.putJson(this.recordKey(t.task_id), t);
  }

  private async transition(t: TaskRecord, status: TaskStatus, extraKind?: EventKind): Promise<void> {
    if (extraKind) this.pushEvent(t, extraKind);
    t.status = status;
    this.pushEvent(t, 'status_changed');
    await this.save(t);
    if (this.hooks && TERMINAL.has(status)) this.hooks.finished(t.task_type, status, Math.max(0, nowSec() - t.created_at));
  }

  private launch(t: TaskRecord, input: unknown, resumed = false): void {
    const def = this.types.get(t.task_type)!;
    const controller = new AbortController();
    const body = async () => {
      // Yield first so `create` returns the pending record before work starts.
      await new Promise((r) => setImmediate(r));
      const entry = this.running.get(t.task_id);
      const loaded = await this.load(t.task_id);
      // cancel() may have claimed the record while it was loading: one object, so no lost update.
      const current = entry?.record ?? loaded;
      if (!current) return;
      if (entry) entry.record = current;
      // Cancelled before it started: nothing ran, settle it here or it would stay `cancelling`.
      if (current.status === 'cancelling') return this.settleCancel(current);
      // A resumed task was `running` when the process stopped; it runs again from the start.
      if (current.status !== 'pending' && !(resumed && current.status === 'running')) return;
      if (current.status === 'pending') await this.transition(current, 'running');
      const ctx: TaskContext = {
        task: current,
        signal: controller.signal,
        setStage: async (stage, operation) => {
          current.stage = stage;
          this.pushEvent(current, 'stage_changed', operation);
          await this.save(current);
        },
        recordError: async (error, operation) => {
          current.error = sanitizeError(error);
          this.pushEvent(current, 'error_recorded', operation);
          await this.save(current);
        },
        event: async (kind, operation) => {
          this.pushEvent(current, kind, operation);
          await this.save(current);
        },
      };
      try {
        const result = this.hooks ? await this.hooks.around(current, () => def.run(ctx, input)) : await def.run(ctx, input);
        const cancelled = controller.signal.aborted && controller.signal.reason !== SHUTDOWN;
        if (cancelled || (current.status as TaskStatus) === 'cancelling') await this.settleCancel(current);
        else {
          current.result = result ?? {};
          await this.transition(current, 'completed');
        }
      } catch (err) {
        // Interrupted by a shutdown, not by a cancel: left `running` for start() to fail or resume.
        if (controller.signal.reason === SHUTDOWN && (current.status as TaskStatus) !== 'cancelling') return;
        if (controller.signal.aborted) await this.settleCancel(current);
        else {
          current.error = sanitizeError(err);
          this.pushEvent(current, 'error_recorded');
          await this.transition(current, 'failed');
          this.log.warn('task failed', { task_id: current.task_id, task_type: current.task_type, error: current.error });
        }
      }
    };
    const done = (this.gate && t.shard !== undefined ? this.gate.run(t.shard, body) : body())
      .catch((err) => this.log.error('task bookkeeping failed', { task_id: t.task_id, error: err }))
      .finally(() => this.running.delete(t.task_id));
    this.running.set(t.task_id, { controller, done, shard: t.shard });
  }

  private async settleCancel(t: TaskRecord): Promise<void> {
    const inFlight = await this.queues.cancelOwned(t.task_id);
    if (inFlight > 0) {
      if (t.status !== 'cancelling') await this.transition(t, 'cancelling');
      this.pollUntilSettled(t.task_id);
      return;
    }
    await this.transition(t, 'cancelled');
  }

  /**
   * Owned queue messages still in flight: poll briefly until they settle, then `cancelled`. A failed
   * save leaves the task `cancelling`; the next start settles it (its queue work stays blocked).
   */
  private pollUntilSettled(id: string): void {
    const poll = setInterval(() => {
      if (this.queues.ownedCount(id) > 0) return;
      clearInterval(poll);
      this.settlePolls.delete(poll);
      void this.finishCancel(id).catch((err) => this.log.warn('cancelled task could not be settled', { task_id: id, error: err }));
    }, 50);
    poll.unref();
    this.settlePolls.add(poll);
  }

  private async finishCancel(id: string): Promise<void> {
    const latest = await this.load(id);
    if (latest && latest.status === 'cancelling') await this.transition(latest, 'cancelled');
  }

  async load(id: string): Promise<TaskRecord | undefined> {
    return this.running.get(id)?.record ?? this.kv.getJson<TaskRecord>(this.recordKey(id));
  }

  private expired(t: TaskRecord): boolean {
    return TERMINAL.has(t.status) && t.updated_at < nowSec() - this.retentionHours * 3600;
  }

  /** The record as its owner sees it; 404 for missing, expired or foreign tasks. */
  async get(id: string, who: Identity): Promise<TaskRecord> {
    const t = await this.load(id);
    if (!t || this.expired(t) || t.owner.account_id !== who.accountId || t.owner.user_id !== who.userId)
      throw notFound(`task not found: ${id}`, { task_id: id });
    return t;
  }

  async list(who: Identity, filter: { task_type?: string; status?: TaskStatus; resource_id?: string; include_internal?: boolean; limit?: number }): Promise<TaskRecord[]> {
    const prefix = `o\x00${who.accountId}\x00${who.userId}\x00`;
    const out: TaskRecord[] = [];
    const limit = filter.limit ?? 50;
    for await (const [key] of this.kv.scanPrefix(prefix, { reverse: true })) {
      const id = key.slice(key.lastIndexOf('\x00') + 1);
      const t = await this.load(id);
      if (!t || this.expired(t)) continue;
      if (filter.task_type && t.task_type !== filter.task_type) continue;
      if (filter.status && t.status !== filter.status) continue;
      if (filter.resource_id && t.resource_id !== filter.resource_id) continue;
      if (t.internal && !filter.include_internal) continue;
      out.push(t);
      if (out.length >= limit) break;
    }
    return out;
  }

  async cancel(id: string, who: Identity): Promise<TaskRecord> {
    if (who.role === 'ROOT') throw permissionDenied('ROOT identities cannot cancel tasks; cancel as the owning user', { task_id: id });
    let t = await this.get(id, who);
    const running = this.running.get(id);
    // One record object per live task: the runner may have claimed it while get() read a copy from
    // disk (use the runner's), or not loaded it yet (hand it ours), so neither overwrites the other.
    if (running?.record) t = running.record;
    else if (running) running.record = t;
    const def = this.types.get(t.task_type);
    if (!def?.cancellable) throw new CtxError('FAILED_PRECONDITION', `tasks of type ${t.task_type} cannot be cancelled`, { task_id: id, task_type: t.task_type });
    if (t.status === 'completed' || t.status === 'failed')
      throw new CtxError('FAILED_PRECONDITION', `task ${id} already ${t.status}`, { task_id: id, status: t.status });
    if (t.status === 'cancelling' || t.status === 'cancelled') return t;
    // cancelOwned is synchronous up to its first await: new queue work of this task is refused from
    // here and its pending messages are forgotten, so what is left are the ones in flight.
    const dropping = this.queues.cancelOwned(id);
    const inFlight = this.queues.ownedCount(id);
    // transition() sets the status before it awaits, so a runner finishing now sees `cancelling`.
    await Promise.all([dropping, this.transition(t, running || inFlight > 0 ? 'cancelling' : 'cancelled')]);
    running?.controller.abort(new CtxError('FAILED_PRECONDITION', 'task cancelled'));
    if (!running && inFlight > 0) await this.settleCancel(t);
    return (await this.load(id)) ?? t;
  }

  /** Deletes terminal records past retention. */
  async sweep(): Promise<number> {
    let n = 0;
    for await (const [, value] of this.kv.scanPrefix('t\x00')) {
      const t = JSON.parse(value.toString('utf8')) as TaskRecord;
      if (!this.expired(t)) continue;
      const ops = [this.kv.delOp(this.recordKey(t.task_id)), this.kv.delOp(this.ownerKey(t)), this.kv.delOp(`in\x00${t.task_id}`)];
      if (!this.gate) await this.kv.batch(ops);
      else {
        // Cluster mode: a shard's records are swept by its leader, through its log.
        const shard = this.shardOf(t);
        if (!this.gate.leads(shard)) continue;
        await this.gate.run(shard, () => this.kv.batch(ops));
      }
      this.queues.unblock(t.task_id);
      n++;
    }
    return n;
  }

  runningCount(): number {
    return this.running.size;
  }

  /** Running tasks per type (metrics). */
  runningByType(): Map<string, number> {
    const out = new Map<string, number>();
    for (const type of this.types.keys()) out.set(type, 0);
    for (const r of this.running.values()) if (r.record?.status === 'running') out.set(r.record.task_type, (out.get(r.record.task_type) ?? 0) + 1);
    return out;
  }

  /** Waits for in-process task runs to settle (graceful shutdown); aborts them after `ms`. */
  async drain(ms: number): Promise<void> {
    const all = [...this.running.values()];
    const timeout = new Promise<void>((r) => setTimeout(r, ms).unref());
    await Promise.race([Promise.all(all.map((r) => r.done)), timeout]);
    for (const r of this.running.values()) r.controller.abort(SHUTDOWN);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    // Their tasks stay `cancelling` on disk; the next start settles them.
    for (const poll of this.settlePolls) clearInterval(poll);
    this.settlePolls.clear();
  }
}

/** The public shape of a task (spec "Task record"); internal bookkeeping stays inside. */
export function publicTask(t: TaskRecord, includeEvents = false): Record<string, unknown> {
  const out: Record<string, unknown> = {
    task_id: t.task_id,
    task_type: t.task_type,
    status: t.status,
    resource_id: t.resource_id,
    stage: t.stage,
    created_at: t.created_at,
    updated_at: t.updated_at,
    result: TERMINAL.has(t.status) ? t.result : null,
    error: t.error,
  };
  if (includeEvents) {
    const result = (out.result as Record<string, unknown> | null) ?? {};
    out.result = {
      ...result,
      execution_events: t.events ? { items: t.events.items, dropped_count: t.events.dropped_count, started_mid_task: t.events.started_mid_task } : null,
    };
  }
  return out;
}
