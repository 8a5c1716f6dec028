/**
 * Shard snapshots and stream truncation (docs/scale-out.md, "Snapshots"). A shard's keys are not
 * one RocksDB range (queue and task keys carry no account), so a snapshot is built from the log
 * itself: the previous snapshot folded with the records after it, last op per key, deletions kept
 * as deletions. Applied on any replica whose state is an earlier point of the same log, it yields
 * exactly the state at the snapshot's sequence. The leader stores it in the JetStream object store
 * (`ctx_snapshots`, object `shard.<n>`, newest only) and then purges the stream up to it; a replica
 * whose next record was purged installs the snapshot and goes on from the stream after it.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { ObjectStore } from '@nats-io/obj';
import type { KvOp } from '../storage/backend.js';
import type { Logger } from '../logger.js';
import { decodeRecord, encodeRecord } from './mutation-record.js';
import { streamName, type Replicator } from './replicator.js';

export const SNAPSHOTS_BUCKET = 'ctx_snapshots';

interface Snapshot {
  seq: number;
  ops: KvOp[];
}

export class Snapshots {
  private store?: Promise<ObjectStore>;
  private readonly building = new Set<string>();
  private readonly taken = new Map<string, number>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly replicator: Replicator,
    private readonly node: string,
    /** Records between two snapshots of a shard; 0 = never. */
    private readonly every: number,
    private readonly replicas: number,
    private readonly log: Logger,
  ) {}

  private bucket(): Promise<ObjectStore> {
    this.store ??= (async () => {
      const { Objm } = await import('@nats-io/obj');
      const { StorageType } = await import('@nats-io/jetstream');
      return new Objm(this.nc).create(SNAPSHOTS_BUCKET, { replicas: this.replicas, storage: StorageType.File });
    })().catch((err: unknown) => {
      this.store = undefined;
      throw err;
    });
    return this.store;
  }

  /** Leader, called on a timer: snapshots a shard whose log grew by `every` records since the last. */
  maybeTake(shard: string): void {
    const log = this.replicator.shard(shard);
    if (this.every <= 0 || !log.leading || !log.ready || this.building.has(shard)) return;
    if (log.applied - (this.taken.get(shard) ?? 0) < this.every) return;
    this.building.add(shard);
    void this.take(shard)
      .catch((err: unknown) => this.log.warn('shard snapshot failed; the stream is kept whole', { shard, error: err }))
      .finally(() => this.building.delete(shard));
  }

  /** Builds, stores and truncates behind a snapshot at this node's applied sequence; returns it. */
  async take(shard: string): Promise<number> {
    const target = this.replicator.shard(shard).applied;
    const prev = await this.load(shard);
    if (prev && prev.seq >= target) {
      this.taken.set(shard, prev.seq);
      return prev.seq;
    }
    const state = new Map<string, KvOp>();
    for (const op of prev?.ops ?? []) state.set(op.key, op);
    await this.fold(shard, (prev?.seq ?? 0) + 1, target, state);
    const body = encodeRecord(this.node, `snapshot.${shard}.${target}`, [...state.values()], Number.MAX_SAFE_INTEGER)[0]!;
    const head = Buffer.alloc(8);
    head.writeBigUInt64BE(BigInt(target));
    await (await this.bucket()).putBlob({ name: `shard.${shard}` }, Buffer.concat([head, body]));
    this.taken.set(shard, target);
    // Only the newest snapshot is kept, so it is the oldest one still needed: a replica further
    // behind installs it instead of reading records that are gone.
    await this.jsm.streams.purge(streamName(shard), { seq: target + 1 });
    this.log.info('shard snapshot stored; stream truncated behind it', { shard, seq: target, keys: state.size });
    return target;
  }

  /** Folds records `from..to` into `state` (complete transactions only, as replicas apply them). */
  private async fold(shard: string, from: number, to: number, state: Map<string, KvOp>): Promise<void> {
    if (from > to) return;
    const { DeliverPolicy } = await import('@nats-io/jetstream');
    const consumer = await this.js.consumers.get(streamName(shard), { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from });
    const messages = await consumer.consume({ max_messages: 256, expires: 2000 });
    let partial: { txn: string; ops: KvOp[] } | undefined;
    try {
      let expected = from;
      for await (const m of messages) {
        // A record missing from the fold would be missing from every replica bootstrapped from it.
        if (m.seq !== expected) throw new Error(`shard ${shard}: the stream skipped from ${expected} to ${m.seq} while folding a snapshot`);
        expected = m.seq + 1;
        const { header, ops } = decodeRecord(m.data);
        let done: KvOp[] | undefined;
        if (header.chunks === 1) done = ops;
        else {
          if (header.chunk === 1 || partial?.txn !== header.txn) partial = { txn: header.txn, ops: [] };
          partial.ops.push(...ops);
          if (header.chunk === header.chunks) {
            done = partial.ops;
            partial = undefined;
          }
        }
        for (const op of done ?? []) state.set(op.key, op);
        if (m.seq >= to) break;
      }
    } finally {
      messages.close();
    }
  }

  async load(shard: string): Promise<Snapshot | undefined> {
    const blob = await (await this.bucket()).getBlob(`shard.${shard}`);
    if (!blob || blob.length < 8) return undefined;
    const b = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
    return { seq: Number(b.readBigUInt64BE(0)), ops: decodeRecord(b.subarray(8)).ops };
  }

  /**
   * Before a replica consumes a shard: when the stream no longer holds its next record (truncated
   * behind a snapshot), installs the snapshot first.
   */
  async bootstrap(shard: string): Promise<void> {
    const log = this.replicator.shard(shard);
    let first: number;
    try {
      const info = await this.jsm.streams.info(streamName(shard));
      first = info.state.first_seq;
      if (info.state.messages === 0) first = info.state.last_seq + 1;
    } catch {
      return; // no stream yet: nothing was ever written, nothing to install
    }
    if (first <= log.applied + 1) return;
    const snap = await this.load(shard);
    if (!snap || snap.seq + 1 < first) throw new Error(`shard ${shard}: the stream starts at ${first}, past this replica's ${log.applied}, and no snapshot covers the gap`);
    await log.settled();
    if (snap.seq <= log.applied) return;
    await log.installSnapshot(snap.seq, snap.ops);
    this.log.info('shard bootstrapped from its snapshot', { shard, seq: snap.seq, keys: snap.ops.length });
  }
}
