/**
 * Durable queues in RocksDB (`Embedding`, `Semantic`, and any a plugin declares). A message is a key
 * `{queue}\0{seq}`; it is deleted only after its consumer succeeds, so messages survive restarts
 * (at-least-once). A failing message is retried with backoff a bounded number of times, then moved
 * to the dead-letter range with its error: a poison message can never loop forever.
 */
import type { KvOp } from '../storage/backend.js';
import type { Kv } from '../storage/kv.js';
import type { Logger } from '../logger.js';
import { activeTraceparent } from '../tracing/tracing.js';
import type { BackgroundGate } from '../cluster/background.js';

const S = '\x00';

export interface QueueMessage<P = unknown> {
  seq: number;
  queue: string;
  payload: P;
  attempts: number;
  enqueuedAt: number;
  notBefore?: number;
  taskId?: string;
  /** Messages with the same key coalesce while still pending. */
  dedupeKey?: string;
  lastError?: string;
  /** The trace that enqueued it (W3C traceparent), continued when it runs. */
  traceparent?: string;
  /** Cluster mode: the shard whose leader runs it (and whose log records its progress). */
  shard?: string;
}

/** Runs one delivery inside whatever the app wraps it in (a span, timing); must call `deliver`. */
export type DeliveryWrapper = (queue: string, msg: QueueMessage, deliver: () => Promise<void>) => Promise<void>;

export interface ConsumerOptions {
  concurrency?: number;
  maxAttempts?: number;
  /** Base backoff in ms; doubles per attempt. */
  backoffMs?: number;
}

export type Consumer<P = unknown> = (msg: QueueMessage<P>) => Promise<void>;

/** Told when a message leaves its queue: acked (`error` undefined) or dead-lettered (`error` set). */
export type SettleListener = (queue: string, msg: QueueMessage, error?: string) => void;

export interface QueueStats {
  processed: number;
  requeue_count: number;
  error_count: number;
  errors: string[];
  pending: number;
  in_flight: number;
  dead_letter: number;
}

interface QueueState {
  name: string;
  consumer?: Consumer;
  opts: Required<ConsumerOptions>;
  pending: Map<number, QueueMessage>;
  inFlight: Set<number>;
  dedupe: Map<string, number>;
  /** Pending (or in-flight) messages per `account\0path` of their payload, for `countPendingAt`. */
  byPath: Map<string, number>;
  /** Per `account\0dir`: those strictly below the directory (`countPendingBelow`). */
  below: Map<string, number>;
  /** Per `account\0dir`: those whose parent is the directory (`countPendingChildren`). */
  byParent: Map<string, number>;
  stats: { processed: number; requeue_count: number; error_count: number; errors: string[]; dead_letter: number };
  timer?: NodeJS.Timeout;
}

const MAX_ERRORS_KEPT = 20;

export function sanitizeError(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text
    .replace(/(bearer\s+)[^\s"']+/gi, '$1[redacted]')
    .replace(/((?:api[_-]?key|token|secret|password)["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, '$1[redacted]')
    .replace(/\bsk-[A-Za-z0-9_-]{8,}/g, '[redacted]')
    .slice(0, 500);
}

function bump(counts: Map<string, number>, key: string, delta: number): void {
  const n = (counts.get(key) ?? 0) + delta;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

/**
 * Keeps the path indexes (`byPath`, `below`, `byParent`) in step with `pending`, O(depth) per
 * message; payloads without a string account and path are not indexed. Writers and directory
 * refreshes ask "what is pending under this directory" after every request: a scan of the pending
 * messages was O(backlog) per question, 14% of the JS thread while 100k files were being indexed.
 */
function track(q: QueueState, msg: QueueMessage, delta: 1 | -1): void {
  const p = msg.payload as { account?: unknown; path?: unknown } | null;
  if (!p || typeof p.account !== 'string' || typeof p.path !== 'string') return;
  const prefix = `${p.account}${S}`;
  const path = p.path;
  bump(q.byPath, prefix + path, delta);
  if (path === '') return;
  let i = path.lastIndexOf('/');
  bump(q.byParent, prefix + (i > 0 ? path.slice(0, i) : ''), delta);
  for (; i > 0; i = path.lastIndexOf('/', i - 1)) bump(q.below, prefix + path.slice(0, i), delta);
  bump(q.below, prefix, delta);
}

export class QueueManager {
  private readonly queues = new Map<string, QueueState>();
  private nextSeq = 1;
  private closed = false;
  private idleWaiters: Array<() => void> = [];
  private readonly settleListeners = new Set<SettleListener>();
  /** Deliveries running now (shutdown waits for them before storage closes). */
  private readonly deliveries = new Set<Promise<void>>();
  /**
   * Tasks whose queue work must not run (cancelling or cancelled, spec "States and transitions"):
   * `prepare` refuses their new messages and `pump` drops theirs instead of delivering them.
   */
  private readonly blockedTasks = new Set<string>();

  /** Set by the app: metrics and tracing around each delivery. */
  wrapDelivery: DeliveryWrapper | undefined = undefined;
  /** Cluster mode only: messages run on their shard's leader (docs/scale-out.md, "Background work"). */
  private gate?: BackgroundGate;
  /** Cluster mode: the last sequence handed out per shard (each shard has its own range). */
  private readonly shardSeq = new Map<string, number>();

  constructor(private readonly kv: Kv, private readonly log: Logger) {}

  /** When the oldest pending message of each queue was enqueued (epoch ms), for age metrics. */
  oldestPending(): Map<string, number> {
    const out = new Map<string, number>();
    for (const q of this.queues.values()) {
      // Insertion order is sequence order (load() reads keys sorted by sequence): the first is the oldest.
      for (const msg of q.pending.values()) {
        out.set(q.name, msg.enqueuedAt);
        break;
      }
    }
    return out;
  }

  /**
   * Subscribes to settled messages (writers count what was processed for their paths while they
   * wait; polling would miss messages that come and go between two polls). Returns the unsubscribe.
   */
  onSettle(fn: SettleListener): () => void {
    this.settleListeners.add(fn);
    return () => this.settleListeners.delete(fn);
  }

  private settled(queue: string, msg: QueueMessage, error?: string): void {
    for (const fn of this.settleListeners) {
      try {
        fn(queue, msg, error);
      } catch (err) {
        this.log.warn('queue settle listener failed', { queue, error: err });
      }
    }
  }

  /** Loads persisted messages; call once at start, before consumers run. */
  async load(): Promise<void> {
    for await (const [key, value] of this.kv.iterate()) {
      const [kind, queue, seqText] = key.split(S);
      const seq = Number(seqText);
      this.nextSeq = Math.max(this.nextSeq, seq + 1);
      const q = this.state(queue!);
      if (kind === 'm') {
        const msg = JSON.parse(value.toString('utf8')) as QueueMessage;
        q.pending.set(seq, msg);
        track(q, msg, 1);
        if (msg.dedupeKey) q.dedupe.set(msg.dedupeKey, seq);
      } else if (kind === 'd') q.stats.dead_letter++;
    }
  }

  /**
   * Cluster mode: from now on only messages of shards this node leads are held and delivered, each
   * inside its shard's write context (so acks, retries and what consumers write are replicated).
   * Called before any consumer registers; what `load()` read belongs to no led shard yet.
   */
  setGate(gate: BackgroundGate): void {
    this.gate = gate;
    for (const q of this.queues.values()) {
      q.pending.clear();
      q.dedupe.clear();
      q.byPath.clear();
      q.below.clear();
      q.byParent.clear();
    }
    gate.onLeading((shard) => void this.adopt(shard).catch((err: unknown) => this.log.error('queue messages of a gained shard could not be loaded', { shard, error: err })));
    gate.onLosing((shard) => this.release(shard));
  }

  private shardOfMsg(msg: QueueMessage): string {
    const account = (msg.payload as { account?: unknown } | null)?.account;
    return msg.shard ?? this.gate!.shardOf(typeof account === 'string' ? account : undefined);
  }

  private nextShardSeq(shard: string): number {
    const seq = Math.max(this.shardSeq.get(shard) ?? 0, this.gate!.seqBase(shard)) + 1;
    this.shardSeq.set(shard, seq);
    return seq;
  }

  /** A shard's lease was gained: its persisted messages (the previous leader's backlog) run here now. */
  private async adopt(shard: string): Promise<void> {
    const gate = this.gate!;
    const touched = new Set<QueueState>();
    for await (const [key, value] of this.kv.iterate()) {
      const [kind, queue, seqText] = key.split(S);
      if (kind !== 'm' && kind !== 'd') continue;
      const msg = JSON.parse(value.toString('utf8')) as QueueMessage;
      if (this.shardOfMsg(msg) !== shard) continue;
      const seq = Number(seqText);
      this.shardSeq.set(shard, Math.max(this.shardSeq.get(shard) ?? 0, seq));
      if (kind !== 'm') continue;
      const q = this.state(queue!);
      if (q.pending.has(seq)) continue;
      msg.shard = shard;
      q.pending.set(seq, msg);
      track(q, msg, 1);
      if (msg.dedupeKey) q.dedupe.set(msg.dedupeKey, seq);
      touched.add(q);
    }
    if (!gate.leads(shard)) return this.release(shard);
    for (const q of touched) this.pump(q);
  }

  /** A shard's lease was lost: its messages are the new leader's; in-flight ones are forgotten as they end. */
  private release(shard: string): void {
    for (const q of this.queues.values()) for (const msg of [...q.pending.values()]) if (msg.shard === shard && !q.inFlight.has(msg.seq)) this.forget(q, msg);
    this.checkIdle();
  }

  /** Cluster mode: a message whose shard this node no longer leads (it is the new leader's). */
  private notMine(msg: QueueMessage): boolean {
    return !!this.gate && msg.shard !== undefined && !this.gate.leads(msg.shard);
  }

  declare(name: string): void {
    this.state(name);
  }

  names(): string[] {
    return [...this.queues.keys()];
  }

  private state(name: string): QueueState {
    let q = this.queues.get(name);
    if (!q) {
      q = {
        name,
        opts: { concurrency: 1, maxAttempts: 5, backoffMs: 200 },
        pending: new Map(),
        byPath: new Map(),
        below: new Map(),
        byParent: new Map(),
        inFlight: new Set(),
        dedupe: new Map(),
        stats: { processed: 0, requeue_count: 0, error_count: 0, errors: [], dead_letter: 0 },
      };
      this.queues.set(name, q);
    }
    return q;
  }

  consume<P>(name: string, consumer: Consumer<P>, opts: ConsumerOptions = {}): void {
    const q = this.state(name);
    if (q.consumer) throw new Error(`queue ${name} already has a consumer`);
    q.consumer = consumer as Consumer;
    q.opts = { concurrency: opts.concurrency ?? 1, maxAttempts: opts.maxAttempts ?? 5, backoffMs: opts.backoffMs ?? 200 };
    this.pump(q);
  }

  /**
   * Prepares a message as KV ops, so it can be written in the same batch as the change that causes
   * it; call `activate` after the batch committed. Returns null when it coalesced into a pending one,
   * or when its task is cancelled (see `cancelOwned`).
   */
  prepare<P>(name: string, payload: P, opts: { taskId?: string; dedupeKey?: string } = {}): { ops: KvOp[]; activate: () => void } | null {
    const q = this.state(name);
    // A cancelled task's handler may still be unwinding: what it enqueues now must never run.
    if (opts.taskId !== undefined && this.blockedTasks.has(opts.taskId)) return null;
    if (opts.dedupeKey) {
      const existing = q.dedupe.get(opts.dedupeKey);
      if (existing !== undefined && q.pending.has(existing) && !q.inFlight.has(existing)) return null;
    }
    const msg: QueueMessage<P> = { seq: 0, queue: name, payload, attempts: 0, enqueuedAt: Date.now(), taskId: opts.taskId, dedupeKey: opts.dedupeKey, traceparent: activeTraceparent() };
    if (this.gate) msg.shard = this.gate.current() ?? this.shardOfMsg(msg);
    const seq = (msg.seq = msg.shard === undefined ? this.nextSeq++ : this.nextShardSeq(msg.shard));
    if (opts.dedupeKey) q.dedupe.set(opts.dedupeKey, seq);
    // Registered as pending at once so a second prepare in the same batch coalesces.
    q.pending.set(seq, msg);
    track(q, msg, 1);
    return {
      ops: [this.kv.putJsonOp(this.msgKey(name, seq), msg)],
      activate: () => this.pump(q),
    };
  }

  async enqueue<P>(name: string, payload: P, opts: { taskId?: string; dedupeKey?: string } = {}): Promise<boolean> {
    const prepared = this.prepare(name, payload, opts);
    if (!prepared) return false;
    await this.kv.batch(prepared.ops);
    prepared.activate();
    return true;
  }

  private msgKey(queue: string, seq: number): string {
    return `m${S}${queue}${S}${String(seq).padStart(16, '0')}`;
  }

  private pump(q: QueueState): void {
    if (this.closed || !q.consumer) return;
    const now = Date.now();
    let nextWake = Infinity;
    let dropped: QueueMessage[] | undefined;
    for (const msg of q.pending.values()) {
      if (q.inFlight.has(msg.seq) || this.notMine(msg)) continue;
      // Before the concurrency cut, so a blocked message never waits behind running ones.
      if (msg.taskId !== undefined && this.blockedTasks.has(msg.taskId)) {
        (dropped ??= []).push(msg);
        continue;
      }
      if (q.inFlight.size >= q.opts.concurrency) break;
      if (msg.notBefore && msg.notBefore > now) {
        nextWake = Math.min(nextWake, msg.notBefore);
        continue;
      }
      q.inFlight.add(msg.seq);
      if (msg.dedupeKey && q.dedupe.get(msg.dedupeKey) === msg.seq) q.dedupe.delete(msg.dedupeKey);
      const delivery = this.gate && msg.shard !== undefined ? this.gate.run(msg.shard, () => this.run(q, msg)) : this.run(q, msg);
      this.deliveries.add(delivery);
      void delivery.finally(() => this.deliveries.delete(delivery));
    }
    if (dropped) void this.drop(q, dropped);
    if (nextWake !== Infinity && !q.timer) {
      q.timer = setTimeout(() => {
        q.timer = undefined;
        this.pump(q);
      }, Math.max(5, nextWake - now));
      q.timer.unref();
    }
    this.checkIdle();
  }

  private async run(q: QueueState, msg: QueueMessage): Promise<void> {
    try {
      if (this.wrapDelivery) await this.wrapDelivery(q.name, msg, () => q.consumer!(msg));
      else await q.consumer!(msg);
      await this.kv.del(this.msgKey(q.name, msg.seq));
      q.stats.processed++;
      if (this.settleListeners.size) this.settled(q.name, msg);
    } catch (err) {
      if (this.notMine(msg)) {
        // Leadership moved while it ran: the new leader holds it (persisted, unacked) and runs it.
        this.forget(q, msg);
        q.inFlight.delete(msg.seq);
        this.checkIdle();
        return;
      }
      if (this.closed) {
        // Failed while the service stops (its work was likely aborted by the shutdown): not a
        // verdict on the message. It stays pending on disk, unchanged, for the next start.
        q.inFlight.delete(msg.seq);
        return;
      }
      msg.attempts++;
      msg.lastError = sanitizeError(err);
      if (msg.attempts < q.opts.maxAttempts) {
        msg.notBefore = Date.now() + q.opts.backoffMs * 2 ** (msg.attempts - 1);
        q.stats.requeue_count++;
        await this.kv.putJson(this.msgKey(q.name, msg.seq), msg).catch(() => {});
        q.inFlight.delete(msg.seq);
        this.pump(q);
        return;
      }
      q.stats.error_count++;
      q.stats.errors.push(`${q.name}#${msg.seq}: ${msg.lastError}`);
      if (q.stats.errors.length > MAX_ERRORS_KEPT) q.stats.errors.shift();
      q.stats.dead_letter++;
      this.log.warn('queue message failed permanently', { queue: q.name, seq: msg.seq, attempts: msg.attempts, error: msg.lastError });
      await this.kv
        .batch([this.kv.delOp(this.msgKey(q.name, msg.seq)), this.kv.putJsonOp(`d${S}${q.name}${S}${String(msg.seq).padStart(16, '0')}`, msg)])
        .catch(() => {});
      if (this.settleListeners.size) this.settled(q.name, msg, msg.lastError);
    }
    if (q.pending.delete(msg.seq)) track(q, msg, -1);
    q.inFlight.delete(msg.seq);
    this.pump(q);
  }

  /**
   * No more queue work of these tasks runs: their new messages are refused from now on (this part is
   * synchronous, so a caller can block before its first await), pending ones are deleted, and one met
   * later (a retry of a message that was in flight, or one left on disk by a crash) is dropped
   * instead of delivered. Returns how many of their messages are in flight: those settle as usual.
   */
  async cancelOwned(taskIds: string | readonly string[]): Promise<number> {
    const ids = new Set(typeof taskIds === 'string' ? [taskIds] : taskIds);
    for (const id of ids) this.blockedTasks.add(id);
    if (ids.size === 0) return 0;
    let inFlight = 0;
    const ops: KvOp[] = [];
    for (const q of this.queues.values()) {
      for (const msg of [...q.pending.values()]) {
        if (msg.taskId === undefined || !ids.has(msg.taskId)) continue;
        if (q.inFlight.has(msg.seq)) inFlight++;
        else {
          this.forget(q, msg);
          ops.push(this.kv.delOp(this.msgKey(q.name, msg.seq)));
        }
      }
    }
    await this.kv.batch(ops);
    this.checkIdle();
    return inFlight;
  }

  /** For a task record that is gone (retention): nothing can enqueue under its id any more. */
  unblock(taskId: string): void {
    this.blockedTasks.delete(taskId);
  }

  isBlocked(taskId: string): boolean {
    return this.blockedTasks.has(taskId);
  }

  private forget(q: QueueState, msg: QueueMessage): void {
    if (q.pending.delete(msg.seq)) track(q, msg, -1);
    if (msg.dedupeKey && q.dedupe.get(msg.dedupeKey) === msg.seq) q.dedupe.delete(msg.dedupeKey);
  }

  /** Deletes messages of blocked tasks met while pumping: settled without running, not counted as processed. */
  private async drop(q: QueueState, msgs: QueueMessage[]): Promise<void> {
    for (const msg of msgs) this.forget(q, msg);
    try {
      await this.kv.batch(msgs.map((m) => this.kv.delOp(this.msgKey(q.name, m.seq))));
    } catch (err) {
      // Still blocked on disk: the next start drops them again (the task record says cancelled).
      this.log.warn('could not delete messages of a cancelled task', { queue: q.name, count: msgs.length, error: err });
    }
    this.checkIdle();
  }

  ownedCount(taskId: string): number {
    let n = 0;
    for (const q of this.queues.values()) for (const msg of q.pending.values()) if (msg.taskId === taskId) n++;
    return n;
  }

  hasConsumer(name: string): boolean {
    return !!this.queues.get(name)?.consumer;
  }

  /** Pending or in-flight messages whose payload matches, across the given queues. */
  countPending(pred: (payload: unknown) => boolean, queues?: string[]): number {
    let n = 0;
    for (const q of this.queues.values()) {
      if (queues && !queues.includes(q.name)) continue;
      for (const m of q.pending.values()) if (pred(m.payload)) n++;
    }
    return n;
  }

  /**
   * Pending or in-flight messages whose payload names `account` and exactly one of `paths`: a map
   * lookup per path instead of a scan, so a writer can ask after every write even when a large
   * backlog is queued (`countPending` is O(pending)).
   */
  countPendingAt(account: string, paths: readonly string[], queues?: string[]): number {
    return this.countIn(queues, (q) => paths.reduce((n, p) => n + (q.byPath.get(`${account}${S}${p}`) ?? 0), 0));
  }

  /**
   * Pending or in-flight messages whose payload names `account` and a path strictly below `dir`
   * (`''` is the account's root): a map lookup per queue.
   */
  countPendingBelow(account: string, dir: string, queues?: string[]): number {
    return this.countIn(queues, (q) => q.below.get(`${account}${S}${dir}`) ?? 0);
  }

  /** Pending or in-flight messages whose payload names `account` and a child of `dir` (not `dir` itself). */
  countPendingChildren(account: string, dir: string, queues?: string[]): number {
    return this.countIn(queues, (q) => q.byParent.get(`${account}${S}${dir}`) ?? 0);
  }

  private countIn(queues: string[] | undefined, count: (q: QueueState) => number): number {
    let n = 0;
    for (const q of this.queues.values()) if (!queues || queues.includes(q.name)) n += count(q);
    return n;
  }

  /**
   * Waits until no message matching `pred` is pending in `queues` (e.g. "the Semantic and Embedding
   * work for this file is done"). Resolves false on timeout. Consumers that enqueue follow-up work
   * must do so before they return, so there is no gap in which nothing matches.
   */
  async waitFor(pred: (payload: unknown) => boolean, queues: string[], timeoutMs?: number): Promise<boolean> {
    const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
    while (this.countPending(pred, queues) > 0) {
      if (Date.now() >= deadline || this.closed) return false;
      await new Promise((r) => setTimeout(r, Math.min(20, Math.max(1, deadline - Date.now()))));
    }
    return true;
  }

  /** Messages (pending or dead-lettered) whose payload matches, for backend sync status; `queues` limits where. */
  async matching(pred: (payload: unknown) => boolean, queues?: readonly string[]): Promise<{ pending: number; dead: number }> {
    let pending = 0;
    for (const q of this.queues.values()) if (!queues || queues.includes(q.name)) for (const m of q.pending.values()) if (pred(m.payload)) pending++;
    let dead = 0;
    for await (const [, v] of this.kv.scanPrefix(`d${S}`)) {
      const msg = JSON.parse(v.toString('utf8')) as QueueMessage;
      if ((!queues || queues.includes(msg.queue)) && pred(msg.payload)) dead++;
    }
    return { pending, dead };
  }

  /** Moves matching dead-lettered messages (of `queues`, or all) back to their queue with a fresh attempt budget. */
  async retryDead(pred: (payload: unknown) => boolean, queues?: readonly string[]): Promise<{ retried: number; failed: number }> {
    let retried = 0;
    let failed = 0;
    for await (const [key, v] of this.kv.scanPrefix(`d${S}`)) {
      const msg = JSON.parse(v.toString('utf8')) as QueueMessage;
      if (queues && !queues.includes(msg.queue)) continue;
      if (!pred(msg.payload)) continue;
      // Its task was cancelled: rescheduling it would only drop it, so it stays where it is.
      if (msg.taskId !== undefined && this.blockedTasks.has(msg.taskId)) {
        failed++;
        continue;
      }
      const q = this.state(msg.queue);
      const shard = this.gate ? this.shardOfMsg(msg) : undefined;
      // Cluster mode: another shard's dead letters are retried by that shard's leader.
      if (shard !== undefined && !this.gate!.leads(shard)) continue;
      const seq = shard === undefined ? this.nextSeq++ : this.nextShardSeq(shard);
      const next: QueueMessage = { ...msg, seq, attempts: 0, notBefore: undefined, lastError: undefined, shard };
      try {
        const ops = [this.kv.delOp(key), this.kv.putJsonOp(this.msgKey(msg.queue, seq), next)];
        await (shard === undefined ? this.kv.batch(ops) : this.gate!.run(shard, () => this.kv.batch(ops)));
        q.stats.dead_letter = Math.max(0, q.stats.dead_letter - 1);
        q.pending.set(seq, next);
        track(q, next, 1);
        retried++;
        this.pump(q);
      } catch {
        failed++;
      }
    }
    return { retried, failed };
  }

  stats(): Record<string, QueueStats> {
    const out: Record<string, QueueStats> = {};
    for (const q of this.queues.values())
      out[q.name] = { ...q.stats, errors: [...q.stats.errors], pending: q.pending.size, in_flight: q.inFlight.size };
    return out;
  }

  /** True when no queue that has a consumer holds work. Queues without a consumer are reported but not awaited. */
  isIdle(): boolean {
    for (const q of this.queues.values()) if (q.consumer && q.pending.size > 0) return false;
    return true;
  }

  private checkIdle(): void {
    if (!this.isIdle() || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Resolves true once idle, or false when `timeoutMs` elapses first. */
  waitIdle(timeoutMs?: number): Promise<boolean> {
    if (this.isIdle()) return Promise.resolve(true);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        if (timer) clearTimeout(timer);
        resolve(true);
      };
      this.idleWaiters.push(done);
      if (timeoutMs !== undefined)
        timer = setTimeout(() => {
          this.idleWaiters = this.idleWaiters.filter((w) => w !== done);
          resolve(false);
        }, timeoutMs);
    });
  }

  /** True after `close()`: no message will run any more, so waiting for one is pointless. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Waits up to `ms` for the deliveries running now to settle (after `close()`: graceful shutdown). */
  async settle(ms: number): Promise<boolean> {
    if (this.deliveries.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
    const all = Promise.allSettled([...this.deliveries]).then(() => true);
    const done = await Promise.race([all, timeout]);
    clearTimeout(timer);
    return done;
  }

  close(): void {
    this.closed = true;
    for (const q of this.queues.values()) if (q.timer) clearTimeout(q.timer);
  }
}
