/**
 * The cluster write path below `Kv.batch` (docs/scale-out.md, "The seam"): every durable batch is
 * routed to its shard's log — appended, quorum-acknowledged, then applied — instead of going
 * straight to RocksDB. It also runs the stream consumers that apply other leaders' records here.
 *
 * Which shard a batch belongs to: the request's (set by the request gate around the handler),
 * else the account of its VFS keys, else the system shard. A batch without a request whose shard
 * this node does not lead (start-up bootstrap, background work on a follower) stays local: phase 3
 * moves background work to the leader (docs/scale-out.md, "Phases").
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { NatsConnection } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { KvBackend, KvOp } from '../storage/backend.js';
import type { Logger } from '../logger.js';
import { shardOf } from './placement.js';
import { APPLIED_PREFIX, ReadBarrier, ShardLog, type RecordTrace, type StreamIo } from './shard-log.js';
import type { BatchTrace, WriteTrace } from './write-trace.js';

export const SYS_SHARD = 'sys';
/** How long a stream created here waits for its leader to move here (see `preferLocalStreamLeader`). */
const PREFER_LEADER_MS = 1000;

/** What a request carries down to `Kv.batch`: its shard, and the sequence its writes reached. */
export interface WriteTicket {
  shard: string;
  seq?: number;
  /** `CTX_CLUSTER_TRACE`: the request's timings. */
  trace?: WriteTrace;
  /** A request's ticket (the gate's); background work's tickets have none. */
  request?: boolean;
  /** The request's first batch is submitted to its shard (`ShardLog.beginRequest`). */
  arrived?: () => void;
}

export const writeContext = new AsyncLocalStorage<WriteTicket>();

const IDENTITY_KEY = 'identity\x00';
/** A queue message (`queues\0m\0<queue>\0<seq>`): deleting it is its ack. */
const QUEUE_MESSAGE_KEY = 'queues\x00m\x00';
const VFS_ACCOUNT_KEY = /^vfs\x00[mci]\x00([^\x00]+)\x00/;
/** An account-keyed plugin record (`p:<plugin>\0<kind letter>\0<account>\0…`: retrieval records and vectors, semantic state). */
const PLUGIN_ACCOUNT_KEY = /^p:[^\x00]+\x00[a-z]\x00([^\x00]+)\x00/;

export const streamName = (shard: string) => `CTX_SHARD_${shard.toUpperCase()}`;
export const subjectOf = (shard: string) => `ctx.shard.${shard}`;

export class Replicator {
  readonly shards = new Map<string, ShardLog>();
  private readonly io: StreamIo;
  private readonly created = new Set<string>();
  private stopped = false;
  private readonly consumers = new Map<string, { stop(): void }>();
  /** Streams known to exist, from one shared listing (see `streamKnown`). */
  private readonly known = new Set<string>();
  private listing: Promise<void> | undefined;
  private listedAt = 0;
  private readonly shardOfCache = new Map<string, string>();
  /**
   * Set by the cluster node: appends an identity batch through the system shard's leader when this
   * node does not lead it (system-writes.ts); resolves with the sequence, applied here.
   */
  remoteSystem?: (ops: KvOp[]) => Promise<number>;
  /** Set by the cluster node: before consuming, installs the snapshot when the stream was truncated. */
  beforeConsume?: (shard: string) => Promise<void>;
  /** Where records applied from the stream are announced (caches to drop). */
  onApplied: (shard: string, ops: KvOp[]) => void | Promise<void> = () => {};

  constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly backend: KvBackend,
    private readonly node: string,
    private readonly shardCount: number,
    private readonly streamReplicas: number,
    private readonly connected: () => boolean,
    private readonly log: Logger,
    /** `CTX_CLUSTER_TRACE`: every appended record's timing is logged. */
    private readonly traceRecord?: RecordTrace,
  ) {
    const self = this;
    this.io = {
      get maxPayload() {
        return nc.info?.max_payload ?? 1024 * 1024;
      },
      get connected() {
        return self.connected();
      },
      publish: async (shard, data, expected) => {
        await this.ensureStream(shard);
        // The fence is the stream's last sequence, not its subject's: a snapshot that purged every
        // record (taken at the last one, on a quiet shard) leaves the subject with no message, so
        // its last sequence read 0 and every later append was refused as if deposed, for good.
        const ack = await js.publish(subjectOf(shard), data, { expect: { lastSequence: expected }, timeout: 5000 });
        return ack.seq;
      },
      lastSeq: async (shard) => {
        try {
          return (await jsm.streams.info(streamName(shard))).state.last_seq;
        } catch (err) {
          if (/stream not found|10059/i.test(String((err as Error).message))) return 0;
          throw err;
        }
      },
    };
  }

  /** Records whose requests were answered before they were applied here (`ShardLog.answeredAhead`). */
  private readonly ahead = new ReadBarrier();

  /**
   * `Kv`'s read barrier: while a record answered at its ack is not applied to this node's store,
   * reads wait for it (rejecting, 503, when its apply failed), so no read here misses a write its
   * writer was told has landed. Undefined — no wait at all — otherwise.
   */
  readBarrier(): Promise<void> | undefined {
    return this.ahead.wait();
  }

  /** The local store the shards apply to (consistency digests read it). */
  get backendStore(): KvBackend {
    return this.backend;
  }

  allShards(): string[] {
    return [...Array.from({ length: this.shardCount }, (_, i) => String(i)), SYS_SHARD];
  }

  /** Loads every shard's persisted `applied_seq` (exact: it is written with each applied record). */
  async load(): Promise<void> {
    for (const shard of this.allShards()) {
      const log = new ShardLog(shard, this.node, this.backend, this.io, (ops) => this.onApplied(shard, ops), this.traceRecord);
      const v = await this.backend.get(APPLIED_PREFIX + shard);
      log.applied = log.seen = log.streamLast = v ? Number(v.toString()) : 0;
      log.answeredAhead = (applied) => this.ahead.track(applied);
      this.shards.set(shard, log);
    }
  }

  shard(id: string): ShardLog {
    const s = this.shards.get(id);
    if (!s) throw new Error(`no shard ${id}`);
    return s;
  }

  shardOfAccount(account: string): string {
    // Asked on every request (the gate) and batch: a sha256 each, remembered (bounded).
    let s = this.shardOfCache.get(account);
    if (s === undefined) {
      if (this.shardOfCache.size >= 10_000) this.shardOfCache.clear();
      this.shardOfCache.set(account, (s = String(shardOf(account, this.shardCount))));
    }
    return s;
  }

  /**
   * Whether the shard's stream exists (streams are created by a leader's first append). One
   * listing of the stream names, at most every 400 ms, answers every follower loop: asking for a
   * consumer of each missing stream twice a second was ~90 failing JetStream API calls a second per
   * node, most of an idle node's CPU and a visible share of a busy one's.
   */
  private async streamKnown(shard: string): Promise<boolean> {
    const name = streamName(shard);
    if (this.known.has(name) || this.created.has(shard)) return true;
    if (!this.listing && Date.now() - this.listedAt >= 400)
      this.listing = (async () => {
        try {
          for await (const n of this.jsm.streams.names()) this.known.add(n);
        } catch {
          // NATS away: the loops retry
        } finally {
          this.listedAt = Date.now();
          this.listing = undefined;
        }
      })();
    await this.listing;
    return this.known.has(name);
  }

  /** The stream's last sequence (0 before the shard's first record). */
  lastSeq(shard: string): Promise<number> {
    return this.io.lastSeq(shard);
  }

  /** The `Kv.batch` hook. */
  write(ops: KvOp[]): Promise<void> {
    const ticket = writeContext.getStore();
    // Identities belong to the system shard whichever request (or none) changes them.
    if (ops.length > 0 && ops.every((o) => o.key.startsWith(IDENTITY_KEY))) {
      const sys = this.shard(SYS_SHARD);
      const appended = sys.leading || !this.remoteSystem ? sys.submit(ops) : this.remoteSystem(ops);
      return appended.then((seq) => {
        if (ticket?.shard === SYS_SHARD && (ticket.seq === undefined || seq > ticket.seq)) ticket.seq = seq;
      });
    }
    let shard = ticket?.shard;
    if (shard === undefined) {
      // Background work (the indexer's records and vectors) goes to its account's shard, so the
      // shard's followers apply it and feed their index; before, it fell to the system shard.
      const m = VFS_ACCOUNT_KEY.exec(ops[0]!.key) ?? ops.map((o) => VFS_ACCOUNT_KEY.exec(o.key)).find(Boolean) ?? ops.map((o) => PLUGIN_ACCOUNT_KEY.exec(o.key)).find(Boolean);
      shard = m ? this.shardOfAccount(m[1]!) : SYS_SHARD;
      const log = this.shard(shard);
      if (!log.leading) return this.backend.write(ops, true);
      return log.submit(ops, undefined, true).then(() => {});
    }
    // Background work's acks ride in the shard's next record (ShardLog.submitLazy): answered now,
    // the message is at-least-once either way.
    if (!ticket?.request && ops.every((o) => o.type === 'del' && o.key.startsWith(QUEUE_MESSAGE_KEY)) && this.shard(shard).leading) {
      this.shard(shard).submitLazy(ops);
      return Promise.resolve();
    }
    let trace: BatchTrace | undefined;
    if (ticket?.trace) ticket.trace.batches.push((trace = { submitted: performance.now() }));
    ticket?.arrived?.();
    return this.shard(shard)
      .submit(ops, trace, !ticket?.request)
      .then((seq) => {
        if (ticket && (ticket.seq === undefined || seq > ticket.seq)) ticket.seq = seq;
      });
  }

  /** One creation per shard at a time: concurrent first appends (and a creation's leader move) share it. */
  private readonly creating = new Map<string, Promise<void>>();

  private ensureStream(shard: string): Promise<void> {
    if (this.created.has(shard)) return Promise.resolve();
    let p = this.creating.get(shard);
    if (!p) {
      p = this.createStream(shard).finally(() => this.creating.delete(shard));
      this.creating.set(shard, p);
    }
    return p;
  }

  private async createStream(shard: string): Promise<void> {
    const name = streamName(shard);
    try {
      await this.jsm.streams.info(name);
    } catch {
      const { RetentionPolicy, StorageType, DiscardPolicy } = await import('@nats-io/jetstream');
      try {
        await this.jsm.streams.add({ name, subjects: [subjectOf(shard)], storage: StorageType.File, retention: RetentionPolicy.Limits, discard: DiscardPolicy.Old, num_replicas: this.streamReplicas });
        await this.preferLocalStreamLeader(shard);
      } catch (err) {
        // Another node created it first: fine when it now exists.
        await this.jsm.streams.info(name).catch(() => {
          throw err;
        });
      }
    }
    this.created.add(shard);
  }

  /**
   * Moves the shard's stream leader to the nats-server this node is connected to, when it is one of
   * the stream's peers and not its leader already (nats-server 2.11+: a leader stepdown with a
   * preferred server). A publish then goes client → stream leader → quorum → client, instead of
   * through a server that relays it to the leader and the ack back: measured on this machine
   * 0.1-0.4 ms less per append (bench/nats-publish-probe.ts), and two fewer process wake-ups under
   * load. Asked only when this node creates the stream, before its first append (no consumer,
   * nothing in flight); bounded, errors ignored — the leader elsewhere only costs the relay. Not on
   * taking a lease: the move lengthened the take-over (up to seconds while JetStream re-elects after
   * a lost nats-server), and the cluster tests' failovers then read stale and refused writes.
   */
  private async preferLocalStreamLeader(shard: string): Promise<void> {
    const here = this.nc.info?.server_name;
    if (!here) return;
    const name = streamName(shard);
    // Bounded: JetStream calls during a re-election (a nats-server lost) can hang for seconds.
    const info = () => Promise.race([this.jsm.streams.info(name), new Promise<never>((_, reject) => setTimeout(() => reject(new Error('stream info timed out')), PREFER_LEADER_MS).unref())]);
    let asked = false;
    try {
      const c = (await info()).cluster;
      if (!c?.leader || c.leader === here || !(c.replicas ?? []).some((r) => r.name === here)) return;
      asked = true;
      await this.nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${name}`, JSON.stringify({ placement: { preferred: here } }), { timeout: PREFER_LEADER_MS });
    } catch (err) {
      // JetStream busy: the relay it is.
      this.log.debug('stream leader stepdown not done', { shard, error: err });
      if (!asked) return;
    }
    // Never leave with the stream between leaders (this node's first append would wait out its
    // timeout): here, or after PREFER_LEADER_MS any leader, or after the hard bound whatever it is.
    const soft = Date.now() + PREFER_LEADER_MS;
    const hard = Date.now() + 5 * PREFER_LEADER_MS;
    while (Date.now() < hard) {
      await new Promise((r) => setTimeout(r, 20));
      const leader = (await info().catch(() => undefined))?.cluster?.leader;
      if (leader === here || (leader && Date.now() >= soft)) return;
    }
    this.log.warn('the shard stream has no leader after a leader move; appends wait for JetStream', { shard });
  }

  /** Applies the shard's stream here from `applied_seq + 1`, in order, until `unfollow` or close. */
  follow(shard: string): void {
    if (this.consumers.has(shard) || this.stopped) return;
    const log = this.shard(shard);
    // A replica serves reads once it holds what the stream held when it started following: a node
    // that joins (or returns) replays the shard first, and its reads are forwarded until then.
    let current: { stop(): void } | undefined;
    let done = false;
    const caughtUp = () => {
      if (!done) log.following = true;
    };
    // Only an answer from the stream makes the copy caught up: with NATS unreachable the question
    // fails, and calling the copy current then would serve reads from whatever it holds (an empty
    // copy answered NOT_FOUND for a file every other replica has). Asked again until answered.
    void (async () => {
      let last: number | undefined;
      while (last === undefined && !done && !this.stopped) {
        last = await this.lastSeq(shard).catch((err: unknown) => {
          this.log.debug('shard stream not reachable to catch up against; asked again', { shard, error: err });
          return undefined;
        });
        if (last === undefined) await new Promise((r) => setTimeout(r, 500));
      }
      while (last !== undefined && !done && !this.stopped && !(await log.waitApplied(last, 10_000)));
      caughtUp();
    })();
    this.consumers.set(shard, {
      stop: () => {
        done = true;
        log.restartConsumer = undefined;
        current?.stop();
      },
    });
    // Closing the current consume ends its loop turn; the loop opens the next from `applied + 1`.
    log.restartConsumer = (why) => {
      this.log.warn(`shard consumer delivers nothing while ${why}; reopened`, { shard, applied_seq: log.applied });
      current?.stop();
    };
    void (async () => {
      const { DeliverPolicy } = await import('@nats-io/jetstream');
      let checkTruncation = true;
      while (!done && !this.stopped) {
        try {
          await log.settled();
          if (!(await this.streamKnown(shard))) throw new Error('stream not found (not created yet)');
          // Asked at the first start and after a hole only: a restart after a lost nats-server
          // should not add a JetStream API round trip while the cluster re-elects.
          if (checkTruncation) await this.beforeConsume?.(shard);
          checkTruncation = false;
          const consumer = await this.js.consumers.get(streamName(shard), { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: log.applied + 1 });
          // Short pulls: a pull parked on a nats-server that died is noticed (missed heartbeats) in ~2 s,
          // not the default 30.
          const messages = await consumer.consume({ max_messages: 256, expires: 2000 });
          current = { stop: () => void messages.close() };
          if (done) messages.close();
          for await (const m of messages) {
            // A hole (records purged behind a snapshot while this replica lagged): start over,
            // which installs the snapshot first.
            if (m.seq > log.seen + 1 && m.seq > log.applied + 1) {
              checkTruncation = true;
              messages.close();
              break;
            }
            await log.deliver(m.seq, m.data, m.info.pending);
          }
        } catch (err) {
          if (!/stream not found|10059/i.test(String((err as Error)?.message ?? err))) this.log.debug('shard consumer restarts', { shard, error: err });
        }
        if (!done && !this.stopped) await new Promise((r) => setTimeout(r, 500));
      }
    })();
  }

  /**
   * Stops applying a shard placed elsewhere (docs/scale-out.md, "Membership changes"): its role
   * becomes `unassigned`, so its reads are forwarded and never served from this copy, which stops
   * at `applied_seq`. The data stays: should the shard come back here, the copy replays from there
   * (or installs the snapshot when the stream was truncated past it), as a returning node does.
   */
  unfollow(shard: string): boolean {
    const log = this.shard(shard);
    const consumer = this.consumers.get(shard);
    if (!consumer || log.leading) return false;
    consumer.stop();
    this.consumers.delete(shard);
    log.following = false;
    return true;
  }

  following(): string[] {
    return [...this.consumers.keys()];
  }

  close(): void {
    this.stopped = true;
    for (const c of this.consumers.values()) c.stop();
    for (const s of this.shards.values()) s.stepDown();
  }
}
