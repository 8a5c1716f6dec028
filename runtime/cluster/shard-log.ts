/**
 * One shard's replicated log on this node (docs/scale-out.md, "Write path" 3-5): the leader's
 * append (fenced by the stream's expected last sequence, acknowledged by its Raft quorum, then
 * applied to RocksDB with `applied_seq` in the same write) and every replica's in-order apply of
 * what the stream delivers. Both paths go through one serial `apply`, which skips what is already
 * applied, so the leader's own records arriving through its consumer are no-ops.
 */
import { performance as perfHooks } from 'node:perf_hooks';
import type { KvBackend, KvOp } from '../storage/backend.js';
import { CtxError } from '../errors.js';
import { decodeHeader, decodeRecord, encodeRecord } from './mutation-record.js';
import type { BatchTrace } from './write-trace.js';

export const APPLIED_PREFIX = 'ctx-cluster\x00applied\x00';

export interface StreamIo {
  /** Appends with the fence; resolves with the stream sequence once the quorum has it. */
  publish(shard: string, data: Buffer, expectedLastSeq: number): Promise<number>;
  /** The stream's last sequence (0 when it does not exist yet). */
  lastSeq(shard: string): Promise<number>;
  readonly maxPayload: number;
  readonly connected: boolean;
}

interface Pending {
  ops: KvOp[];
  resolve: (seq: number) => void;
  reject: (err: unknown) => void;
  /** Set when `CTX_CLUSTER_TRACE` is on and a request submitted the batch. */
  trace?: BatchTrace;
  /** Background work's (no request waits on it): may wait `BACKGROUND_WINDOW_MS` for company. */
  background?: boolean;
  /** `CTX_CLUSTER_TRACE`: when it was submitted (performance.now()). */
  at?: number;
}

/** One appended record's timing (`CTX_CLUSTER_TRACE`): what it carried and where its time went. */
export type RecordTrace = (fields: { shard: string; seq: number; batches: number; from_requests: number; ops: number; keyspaces: string[]; queued_ms: number; quorum_ms: number; apply_wait_ms: number; apply_ms: number; first_at: number; flushed_at: number; busy_in_quorum_ms: number; bytes: number }) => void;

export type Role = 'leader' | 'follower' | 'unassigned';

/**
 * A record's writers told it is applied: requests' batches now (those not answered at the ack
 * already), background work's after the next macrotask. A request's record usually carries the
 * background batches held for it, submitted before it; resolved in submission order, their
 * continuations (the indexer's next step, vectors into the index) ran as microtasks ahead of the
 * request's own, between every hop of its way back to the response: 0.8 ms more from the batch's
 * apply to `writeFile`'s return than on a single node (bench/RESULTS.md, stop 37).
 */
function resolveRequestsFirst(group: Pending[], seq: number): void {
  let background: Pending[] | undefined;
  for (const p of group) {
    if (p.background) (background ??= []).push(p);
    else p.resolve(seq);
  }
  if (background) setImmediate(() => background.forEach((p) => p.resolve(seq)));
}

/**
 * The records a leader answered at their ack and has not applied yet (docs/scale-out.md, "Answered
 * at the quorum ack"): `wait()` is what a read of the store waits for first — each record's apply,
 * rejecting (503) when it failed — or undefined, no wait at all, when nothing is ahead.
 */
export class ReadBarrier {
  private readonly ahead = new Set<Promise<void>>();

  track(applied: Promise<void>): void {
    this.ahead.add(applied);
    const done = () => void this.ahead.delete(applied);
    applied.then(done, done);
  }

  wait(): Promise<void> | undefined {
    if (this.ahead.size === 0) return undefined;
    return Promise.all(this.ahead).then(() => {});
  }
}

/** What a record touches, for its trace line: the distinct `<keyspace>\0<kind>` prefixes of its keys. */
const keyspaces = (ops: KvOp[]) => [...new Set(ops.map((o) => o.key.split('\x00', 2).join('/')))];

/**
 * How long background batches (and lazy ops) wait for company before they get a record of their
 * own: after they arrive, and after the shard's last answer to a request — a client writing in a
 * loop is back within it, and its request's record then carries them. Measured (issue 23, stop
 * 34): a background record in flight when the next request came cost that request its wait behind
 * it plus a second quorum round trip's CPU on 2 cores (client p50 13-16 ms against 7.9 ms for a
 * request whose record carried the previous write's background work). 5 ms was too short (stop 36):
 * a client's turnaround (answer read, next request sent, authenticated and admitted) took 5-8 ms on
 * this 2-core machine running 3 nats-servers and 3 nodes, so 38 of 80 sequential writes came after
 * a background record of their own; at 12 ms, 3 of 80 (bench/cluster-write-probe.ts: records
 * appended 415 → 259, the leader's client p50 15.5 → 10.7 ms with the trace on).
 */
export const BACKGROUND_WINDOW_MS = 12;
/**
 * The most background work waits for a request's record, whatever requests do: a delivery holding
 * a lock a request waits for (on its way to its batch) is held up this long at worst. Over two
 * windows, so that a window restarted by the next answer is not cut short.
 */
export const BACKGROUND_MAX_HOLD_MS = 30;
/**
 * Background work larger than this (in ops) is not held for a request's record: a batch write's
 * summaries and vectors (hundreds of ops) would make the next request's record many chunks long
 * and put their encode and quorum in series with it. Such work goes as before the hold: its own
 * record `BACKGROUND_WINDOW_MS` after it arrived, or at once after the record in flight.
 */
export const BACKGROUND_HOLD_MAX_OPS = 128;

/** How long a catch-up waits with nothing delivered before it has the shard's consumer reopened. */
const STALLED_MS = 5_000;

export const unavailable = (message: string, details?: Record<string, unknown>) => new CtxError('UNAVAILABLE', message, { retry_after_s: 1, ...details });

export class ShardLog {
  applied = 0;
  /** Last stream sequence delivered or appended, partial chunks included: the fence's expectation. */
  seen = 0;
  /** Best known last sequence of the stream (the lag is `streamLast - applied`). */
  streamLast = 0;
  /** Holds the lease; `ready` once caught up to the stream as it was when the lease was taken. */
  leading = false;
  ready = false;
  following = false;
  private chain: Promise<void> = Promise.resolve();
  private partial?: { txn: string; ops: KvOp[] };
  private waiters: { seq: number; resolve: () => void }[] = [];
  private queue: Pending[] = [];
  private inFlight = false;
  /** Ops nobody waits for (queue acks), riding in the next record (`submitLazy`). */
  private lazy: KvOp[] = [];
  private window: NodeJS.Timeout | undefined;
  /** When the oldest background batch or lazy op still waiting arrived (performance.now()). */
  private backgroundSince: number | undefined;
  /** Requests admitted for this shard that have neither submitted a batch nor ended (`beginRequest`). */
  private onTheWay = 0;
  private lastAnswer = -Infinity;
  /** Ops of background batches and lazy ops waiting (`BACKGROUND_HOLD_MAX_OPS`). */
  private backgroundOps = 0;
  private txnCounter = 0;
  /**
   * This node's appends not yet applied by the path that appended them, by transaction: the
   * consumer delivers them too, often before the publish's ack. `echoed` once the consumer applied
   * one (with the ops kept here: no decode, and no apply listener — the leader's caches and index
   * already hold what its own handler wrote; dropping them each time cost every next request).
   */
  private readonly own = new Map<string, { ops: KvOp[]; echoed: boolean }>();

  constructor(
    readonly shard: string,
    private readonly node: string,
    private readonly backend: KvBackend,
    private readonly io: StreamIo,
    /** Told of records applied from the stream (not the leader's own): caches to drop. */
    private readonly onApplied: (ops: KvOp[]) => void | Promise<void>,
    /** Set when `CTX_CLUSTER_TRACE` is on: told of every record this node appends. */
    private readonly traceRecord?: RecordTrace,
  ) {}

  /**
   * Told of every record whose requests were answered before it was applied here: the promise
   * settles when it is applied (rejects when the apply failed). Reads of the store wait for it.
   */
  answeredAhead?: (applied: Promise<void>) => void;

  get role(): Role {
    return this.leading ? 'leader' : this.following ? 'follower' : 'unassigned';
  }

  /**
   * Leader path: coalesces the batches submitted while an append is in flight into one record. A
   * request's batch goes at once (or next, after the record in flight) and takes whatever waits;
   * background work's (`background`) waits for a request's record to carry it (`arm`): its
   * summaries, vectors and queue progress come from separate deliveries milliseconds apart and
   * share a record, and a record of its own in flight when a request comes would hold that
   * request's record back a whole quorum round trip.
   */
  submit(ops: KvOp[], trace?: BatchTrace, background = false): Promise<number> {
    if (!this.leading || !this.ready) return Promise.reject(unavailable(`this node does not lead shard ${this.shard} (yet); retry`, { shard: this.shard }));
    if (!this.io.connected) return Promise.reject(unavailable('the replicated log (NATS) is unreachable; writes are refused until it is back, reads are served', { shard: this.shard }));
    return new Promise((resolve, reject) => {
      const now = performance.now();
      if (background) {
        this.backgroundSince ??= now;
        this.backgroundOps += ops.length;
      }
      this.queue.push({ ops, resolve, reject, trace, background, at: this.traceRecord ? now : undefined });
      if (this.inFlight) return;
      if (background) this.arm();
      else void this.flush();
    });
  }

  /**
   * A request admitted for this shard (the gate, before its handler runs): background records
   * hold back while it is on its way to its batch, and `BACKGROUND_WINDOW_MS` after it is answered
   * (the next request of a client writing in a loop takes them along). `arrived` when it submits
   * a batch, `end` when it is answered; both idempotent.
   */
  beginRequest(): { arrived(): void; end(): void } {
    this.onTheWay++;
    let counted = true;
    const arrived = () => {
      if (counted) (counted = false), this.onTheWay--;
    };
    return {
      arrived,
      end: () => {
        arrived();
        this.lastAnswer = performance.now();
        // What waited for this request's batch, and it had none: the window from now.
        if (this.backgroundSince !== undefined && !this.inFlight) this.arm();
      },
    };
  }

  /**
   * Schedules the record of what background work waits (nothing in flight): when its window is
   * over — `BACKGROUND_WINDOW_MS` after it arrived and after the last answer, later while a request
   * is on its way to its batch — and never later than `BACKGROUND_MAX_HOLD_MS` after it arrived. A
   * request's batch submitted meanwhile flushes it sooner, in its own record.
   */
  private arm(): void {
    if (this.inFlight || (this.queue.length === 0 && this.lazy.length === 0)) return;
    const now = performance.now();
    const since = (this.backgroundSince ??= now);
    const cap = since + BACKGROUND_MAX_HOLD_MS;
    const due =
      this.backgroundOps > BACKGROUND_HOLD_MAX_OPS ? since + BACKGROUND_WINDOW_MS : this.onTheWay > 0 ? cap : Math.min(cap, Math.max(since, this.lastAnswer) + BACKGROUND_WINDOW_MS);
    if (this.window) clearTimeout(this.window);
    this.window = undefined;
    // Within a timer tick of due: now (timers fire on whole milliseconds of the loop's clock).
    if (due - now < 1) {
      void this.flush();
      return;
    }
    this.window = setTimeout(() => {
      this.window = undefined;
      this.arm();
    }, due - now);
  }

  /**
   * Appends ops whose durability no caller waits for — a queue message's ack: at-least-once, so an
   * ack lost with its leader means the message runs again on the next one — in the next record
   * this shard appends, or after `BACKGROUND_WINDOW_MS`. A content write queues three or four deliveries
   * (summaries, embedding), each acked by one delete: as records of their own they were about half
   * of the records a write cost its leader (each a quorum round trip, an encode, an echo, an apply).
   */
  submitLazy(ops: KvOp[]): void {
    if (!this.leading || !this.ready) return;
    for (const op of ops) this.lazy.push(op);
    this.backgroundOps += ops.length;
    this.backgroundSince ??= performance.now();
    if (!this.inFlight) this.arm();
  }

  /** `CTX_CLUSTER_TRACE`: the encoded size of the record in flight (appends are serialised). */
  private recordBytes = 0;

  private async flush(): Promise<void> {
    const group = this.queue;
    if (group.length === 0 && this.lazy.length === 0) return;
    if (this.window) clearTimeout(this.window);
    this.window = undefined;
    this.backgroundSince = undefined;
    this.backgroundOps = 0;
    this.queue = [];
    this.inFlight = true;
    let ops = group.length === 1 ? group[0]!.ops : group.flatMap((p) => p.ops);
    if (this.lazy.length) {
      // Submitted before this group: first, in submission order.
      ops = this.lazy.concat(ops);
      this.lazy = [];
    }
    const t0 = this.traceRecord ? performance.now() : 0;
    // How much of the quorum wait this node's own event loop was busy (other work delays the ack's
    // processing: the wait is then not NATS's alone).
    const elu0 = this.traceRecord ? perfHooks.eventLoopUtilization() : undefined;
    if (this.traceRecord)
      for (const p of group)
        if (p.trace) {
          p.trace.flushed = t0;
          p.trace.coalesced = group.length;
        }
    let seq: number;
    const txn = `${this.node}.${Date.now().toString(36)}.${++this.txnCounter}`;
    try {
      seq = await this.append(txn, ops);
    } catch (err) {
      for (const p of group) p.reject(err);
      this.inFlight = false;
      this.next();
      return;
    }
    // The next record's quorum round trip overlaps this one's local apply (applies stay in stream
    // order through the chain); background writers are told only once their record is applied.
    this.inFlight = false;
    const acked = this.traceRecord ? performance.now() : 0;
    const elu = elu0 ? perfHooks.eventLoopUtilization(elu0) : undefined;
    // Read before `next()`: the next record's append overwrites it while this one is applied.
    const bytes = this.recordBytes;
    this.next();
    const timing = this.traceRecord ? { start: 0, end: 0 } : undefined;
    const applied = this.apply(seq, ops, false, timing).finally(() => this.own.delete(txn));
    // Requests are answered at the ack, before the local apply (docs/scale-out.md, "Answered at
    // the quorum ack"): the record is in the quorum log, and until it is applied here every read
    // of this node's store waits for it (`answeredAhead`, `Kv`'s read barrier). Only while ready:
    // a leader catching up runs the stream's listeners, which read, inside the apply chain.
    const answered = this.ready ? group.filter((p) => !p.background) : [];
    if (answered.length) {
      const failed = applied.then(
        () => {},
        (err: unknown) => {
          throw unavailable(`shard ${this.shard}: a write answered here was not applied locally (${(err as Error)?.message ?? err}); retry`, { shard: this.shard });
        },
      );
      failed.catch(() => {});
      // Before the answers: what they run next may read.
      this.answeredAhead?.(failed);
      for (const p of answered) {
        if (p.trace) p.trace.acked = acked;
        p.resolve(seq);
      }
    }
    applied.then(
      () => {
        if (timing) {
          for (const p of group)
            if (p.trace) Object.assign(p.trace, { acked, applying: timing.start, applied: timing.end });
          const r = (x: number) => Math.round(x * 1000) / 1000;
          this.traceRecord!({ shard: this.shard, seq, batches: group.length, from_requests: group.filter((p) => p.trace).length, ops: ops.length, keyspaces: keyspaces(ops), queued_ms: r(t0 - Math.min(...group.map((p) => p.trace?.submitted ?? t0))), quorum_ms: r(acked - t0), apply_wait_ms: r(timing.start - acked), apply_ms: r(timing.end - timing.start), first_at: r(performance.timeOrigin + Math.min(...group.map((p) => p.at ?? t0))), flushed_at: r(performance.timeOrigin + t0), busy_in_quorum_ms: elu ? r(elu.active) : 0, bytes });
        }
        resolveRequestsFirst(answered.length ? group.filter((p) => p.background) : group, seq);
      },
      (err: unknown) => {
        // In the log but not in RocksDB: this node cannot go on appending after a hole.
        this.stepDown();
        for (const p of answered.length ? group.filter((p) => p.background) : group) p.reject(unavailable(`shard ${this.shard}: the local apply failed (${(err as Error)?.message ?? err}); retry`, { shard: this.shard }));
      },
    );
  }

  /**
   * After a record: a request's batch that waited during its round trip goes now, with everything
   * else; background work alone waits for its window (`arm`), as it does when it finds the shard
   * idle — flushed here at once, it was in flight when the next request of a writing client came.
   */
  private next(): void {
    if (this.backgroundOps > BACKGROUND_HOLD_MAX_OPS || this.queue.some((p) => !p.background)) void this.flush();
    else this.arm();
  }

  /** Appends one batch (one or more chunks) under the fence; resolves with the last chunk's sequence. */
  private async append(txn: string, ops: KvOp[]): Promise<number> {
    if (!this.leading || !this.ready) throw unavailable(`this node no longer leads shard ${this.shard}; retry`, { shard: this.shard });
    const chunks = encodeRecord(this.node, txn, ops, this.io.maxPayload);
    if (this.traceRecord) this.recordBytes = chunks.reduce((n, c) => n + c.length, 0);
    this.own.set(txn, { ops, echoed: false });
    let seq = this.seen;
    try {
      for (const chunk of chunks) {
        seq = await this.io.publish(this.shard, chunk, seq);
        this.seen = Math.max(this.seen, seq);
        this.streamLast = Math.max(this.streamLast, seq);
      }
    } catch (err) {
      // Fenced (someone else appended: this node was deposed) or unknown outcome (timeout, NATS
      // gone): either way this node's idea of the stream is no longer exact. Nothing was applied
      // locally; re-synchronize from the stream before appending again. A record that did land is
      // applied from the stream like another leader's — with the listeners, since the handler that
      // wrote it failed: when the consumer already applied it as this node's own, they run now.
      const own = this.own.get(txn);
      this.own.delete(txn);
      if (own?.echoed) void this.afterApplies(() => this.onApplied(ops));
      this.ready = false;
      void this.resync();
      const fenced = /wrong last sequence|10071/i.test(String((err as Error)?.message ?? err));
      throw unavailable(fenced ? `shard ${this.shard} has a newer leader (${(err as Error)?.message ?? err}); retry` : `the replicated log did not confirm the write (${(err as Error)?.message ?? err}); retry`, { shard: this.shard });
    }
    return seq;
  }

  /** When the consumer last delivered a record (local clock), and when it was last reopened for silence. */
  private deliveredAt = Date.now();
  private reopenedAt = 0;

  /**
   * A reader waited in vain for `seq` (its consistency token): the stream holds that record, so a
   * consumer that has delivered nothing for `STALLED_MS` is sitting on a nats-server that died
   * (seen: a follower silent for 70 s while every token read through it waited its 2 s, then was
   * forwarded). It is reopened, at most once per `STALLED_MS`. An idle shard is never reopened:
   * only a token proves there is something to deliver.
   */
  behind(seq: number): void {
    if (this.leading || seq <= this.seen || !this.restartConsumer) return;
    const now = Date.now();
    if (now - this.deliveredAt < STALLED_MS || now - this.reopenedAt < STALLED_MS) return;
    this.reopenedAt = now;
    this.restartConsumer('a read waited for a record this replica has not been delivered');
  }

  /** A record delivered by the stream consumer, in stream order. */
  deliver(seq: number, data: Uint8Array, pending: number): Promise<void> {
    this.deliveredAt = Date.now();
    this.seen = Math.max(this.seen, seq);
    this.streamLast = Math.max(this.streamLast, seq + pending);
    if (seq <= this.applied) return this.chain;
    const head = this.own.size ? decodeHeader(data) : undefined;
    const own = head && this.own.get(head.txn);
    if (own) {
      // This node's own append, delivered before (or instead of) its ack: applied once, as the
      // appending path would; that path's apply is then a no-op.
      if (head.chunk < head.chunks) return this.chain;
      own.echoed = true;
      this.partial = undefined;
      return this.apply(seq, own.ops, false);
    }
    const { header, ops } = decodeRecord(data);
    if (header.chunks === 1) return this.apply(seq, ops, true);
    // A new transaction's first chunk discards the leftovers of one whose leader died mid-way.
    if (header.chunk === 1 || this.partial?.txn !== header.txn) this.partial = { txn: header.txn, ops: [] };
    this.partial.ops.push(...ops);
    if (header.chunk < header.chunks) return this.chain;
    const all = this.partial.ops;
    this.partial = undefined;
    return this.apply(seq, all, true);
  }

  private apply(seq: number, ops: KvOp[], fromStream: boolean, timing?: { start: number; end: number }): Promise<void> {
    const run = async () => {
      if (timing) timing.start = performance.now();
      if (seq <= this.applied) {
        if (timing) timing.end = timing.start;
        return;
      }
      // applied_seq in the same atomic write: a restart replays from exactly here. Not fsynced: the
      // quorum log is the durable record (the write was acknowledged by it); a machine crash loses
      // at most the last applies together with their applied_seq, and the restart replays them.
      // A synced write cost 0.3-4 ms p50 (7-11 ms p90) on this machine's disk, on every record —
      // the request's and each background record queued before it (docs/scale-out.md, "Costs").
      await this.backend.write([...ops, { type: 'put', key: APPLIED_PREFIX + this.shard, value: Buffer.from(String(seq)) }], false);
      // Derived in-memory state (the vector index) follows before the sequence counts as applied,
      // so a read waiting on a token sees it.
      if (fromStream) await this.onApplied(ops);
      this.applied = seq;
      if (timing) timing.end = performance.now();
      this.wake();
    };
    const next = this.chain.then(run);
    this.chain = next.catch(() => {});
    return next;
  }

  private wake(): void {
    if (!this.waiters.length) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) (w.seq <= this.applied ? w.resolve() : still.push(w));
    this.waiters = still;
  }

  /** Resolves true once `seq` is applied here, false after `timeoutMs`. */
  waitApplied(seq: number, timeoutMs: number): Promise<boolean> {
    if (seq <= this.applied) return Promise.resolve(true);
    return new Promise((resolve) => {
      const w = { seq, resolve: () => (clearTimeout(t), resolve(true)) };
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(w);
    });
  }

  /**
   * Lease taken: serve writes once everything the stream holds now is applied here. Resolves when
   * `ready`, or when the lease is lost meanwhile (`leading` false).
   */
  takeOver(): Promise<void> {
    this.leading = true;
    return this.resync();
  }

  private resyncing: Promise<void> | undefined;
  /**
   * Set by the replicator: closes the shard's stream consumer so its loop opens a new one from
   * `applied + 1`. Asked when a catch-up has waited `STALLED_MS` for deliveries that do not come (a
   * consumer left on a nats-server that died can sit silent): retrying forever is only useful if
   * something that can deliver is retried too.
   */
  restartConsumer?: (why: string) => void;

  /** Catching up before appending (again): one at a time, shared by whoever asks meanwhile. */
  private resync(): Promise<void> {
    this.resyncing ??= this.catchUp().finally(() => (this.resyncing = undefined));
    return this.resyncing;
  }

  /**
   * Retried for as long as this node holds the lease, never given up on: a deadline here once left
   * a leader holding its lease with `ready` false — nothing restarted the catch-up, so every write
   * of the shard waited in the gate and answered 503 until the lease was lost, which a live node
   * never does. A take-over that also arrived while a catch-up ran (the lease lost and regained)
   * shares it rather than returning at once without being ready.
   */
  private async catchUp(): Promise<void> {
    let waitingSince = Date.now();
    let waitingAt = this.seen;
    while (this.leading) {
      try {
        const last = await this.io.lastSeq(this.shard);
        this.streamLast = Math.max(this.streamLast, last);
        // Wait for the consumer to deliver up to `last` (a trailing partial transaction counts as
        // delivered: its leader is gone and the next append overwrites nothing of it); the stream's
        // end is asked again every second, in case it moved (a newer leader still appending).
        const until = Date.now() + 1000;
        while (this.leading && this.seen < last && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
        await this.chain;
        if (this.leading && this.seen >= last) {
          this.partial = undefined;
          this.ready = true;
          return;
        }
        if (this.seen !== waitingAt) [waitingSince, waitingAt] = [Date.now(), this.seen];
        else if (Date.now() - waitingSince >= STALLED_MS) {
          this.restartConsumer?.('its leader waits to catch up');
          waitingSince = Date.now();
        }
      } catch {
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  /**
   * Runs `fn` between two applies (none starts until it is done): what it reads of the store is the
   * state at exactly the sequence it is given (`system/consistency`).
   */
  atApplied<T>(fn: (seq: number) => Promise<T>): Promise<T> {
    const next = this.chain.then(() => fn(this.applied));
    this.chain = next.then(
      () => {},
      () => {},
    );
    return next;
  }

  /**
   * Installs a snapshot (the shard's whole state at `seq`, deletions included) on a replica whose
   * next records were truncated from the stream; the consumer then goes on from `seq + 1`.
   */
  installSnapshot(seq: number, ops: KvOp[]): Promise<void> {
    this.partial = undefined;
    this.seen = Math.max(this.seen, seq);
    this.streamLast = Math.max(this.streamLast, seq);
    return this.apply(seq, ops, true);
  }

  /** Runs `fn` after every apply queued so far, before the next. */
  private afterApplies(fn: () => void | Promise<void>): Promise<void> {
    const next = this.chain.then(fn);
    this.chain = next.catch(() => {});
    return this.chain;
  }

  /** Resolves when every apply queued so far is done. */
  settled(): Promise<void> {
    return this.chain;
  }

  stepDown(): void {
    this.leading = false;
    this.ready = false;
    // Lazy ops (acks) are dropped: their messages stay persisted, and the next leader runs them again.
    this.lazy = [];
    if (this.window) clearTimeout(this.window);
    this.window = undefined;
    this.backgroundSince = undefined;
    this.backgroundOps = 0;
    for (const p of this.queue.splice(0)) p.reject(unavailable(`this node no longer leads shard ${this.shard}; retry`, { shard: this.shard }));
  }
}
