/**
 * Shard snapshots and stream truncation (docs/scale-out.md, "Snapshots and truncation"). The
 * leader streams its copy of the shard — the keys `shard-state.ts` enumerates, read from RocksDB
 * between two applies, so exactly the state at its applied sequence — in chunks of mutation-record
 * frames into a local file, then from the file into the JetStream object store (`ctx_snapshots`,
 * object `shard.<n>`, newest only), and purges the stream up to it. A replica whose next record
 * was purged wipes its copy, reads the object as a stream, frame by frame, and goes on from the
 * stream after it. Memory is bounded by a chunk on both sides, never by the shard.
 *
 * Object layout: `CTXSNAP1`, the sequence (u64 BE), then frames `[u32 BE length][record]`, each
 * record (mutation-record.ts) up to 1,000 puts or 4 MiB.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { ObjectStore } from '@nats-io/obj';
import type { KvOp } from '../storage/backend.js';
import type { Logger } from '../logger.js';
import { decodeRecord, encodeRecord } from './mutation-record.js';
import { streamName, type Replicator } from './replicator.js';
import type { ConsistencyChecker } from './consistency.js';
import { shardEntries, wipeShardCopy } from './shard-state.js';

const MAGIC = Buffer.from('CTXSNAP1');
const FRAME_ENTRIES = 1000;
const FRAME_BYTES = 4 * 1024 * 1024;

export const SNAPSHOTS_BUCKET = 'ctx_snapshots';

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
    private readonly checker: ConsistencyChecker,
    /** Where a snapshot is spooled between the RocksDB scan and the upload. */
    private readonly spoolDir: string,
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
    const log = this.replicator.shard(shard);
    const prev = await this.storedSeq(shard);
    if (prev !== undefined && prev >= log.applied) {
      this.taken.set(shard, prev);
      return prev;
    }
    await fs.promises.mkdir(this.spoolDir, { recursive: true });
    const spool = path.join(this.spoolDir, `shard-${shard}.${process.pid}.${Date.now()}.snap`);
    try {
      // The scan runs between two applies (the state is exactly `target`) and only writes the local
      // spool: the shard's applies wait for a local disk, never for the upload.
      const { target, keys, bytes } = await log.atApplied(async (seq) => {
        const out = await fs.promises.open(spool, 'w');
        try {
          const head = Buffer.alloc(8);
          head.writeBigUInt64BE(BigInt(seq));
          await out.write(Buffer.concat([MAGIC, head]));
          let keys = 0;
          let bytes = 16;
          let ops: KvOp[] = [];
          let size = 0;
          const frame = async () => {
            if (!ops.length) return;
            const rec = encodeRecord(this.node, `snapshot.${shard}.${seq}`, ops, Number.MAX_SAFE_INTEGER)[0]!;
            const len = Buffer.alloc(4);
            len.writeUInt32BE(rec.length);
            await out.write(len);
            await out.write(rec);
            keys += ops.length;
            bytes += 4 + rec.length;
            ops = [];
            size = 0;
          };
          for await (const chunk of shardEntries(this.replicator, this.checker, shard))
            for (const [key, value] of chunk) {
              ops.push({ type: 'put', key, value });
              size += key.length + value.length;
              // A frame is what a reader holds at once: bounded in entries and in bytes (large files).
              if (ops.length >= FRAME_ENTRIES || size >= FRAME_BYTES) await frame();
            }
          await frame();
          return { target: seq, keys, bytes };
        } finally {
          await out.close();
        }
      });
      const body = Readable.toWeb(fs.createReadStream(spool, { highWaterMark: 256 * 1024 })) as unknown as ReadableStream<Uint8Array>;
      await (await this.bucket()).put({ name: `shard.${shard}`, metadata: { seq: String(target) } }, body);
      this.taken.set(shard, target);
      // Only the newest snapshot is kept, so it is the oldest one still needed: a replica further
      // behind installs it instead of reading records that are gone.
      await this.jsm.streams.purge(streamName(shard), { seq: target + 1 });
      this.log.info('shard snapshot stored; stream truncated behind it', { shard, seq: target, keys, bytes });
      return target;
    } finally {
      await fs.promises.rm(spool, { force: true });
    }
  }

  /** The sequence of the shard's stored snapshot (from the object's metadata), if there is one. */
  async storedSeq(shard: string): Promise<number | undefined> {
    const info = await (await this.bucket()).info(`shard.${shard}`);
    if (!info || info.deleted) return undefined;
    const seq = Number(info.metadata?.seq);
    return Number.isFinite(seq) ? seq : undefined;
  }

  /**
   * Reads the shard's snapshot as a stream: `onChunk` gets each frame's ops in order; resolves with
   * the snapshot's sequence, or undefined when there is none.
   */
  async read(shard: string, onStart: (seq: number) => Promise<boolean>, onChunk: (ops: KvOp[]) => Promise<void>): Promise<number | undefined> {
    const obj = await (await this.bucket()).get(`shard.${shard}`);
    if (!obj) return undefined;
    const reader = obj.data.getReader();
    let buf = Buffer.alloc(0);
    let seq: number | undefined;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (value) buf = buf.length ? Buffer.concat([buf, value]) : Buffer.from(value);
        if (seq === undefined && buf.length >= 16) {
          if (!buf.subarray(0, 8).equals(MAGIC)) throw new Error(`shard ${shard}: the stored snapshot is not in a format this node reads`);
          seq = Number(buf.readBigUInt64BE(8));
          buf = buf.subarray(16);
          if (!(await onStart(seq))) return seq;
        }
        while (seq !== undefined && buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
          const len = buf.readUInt32BE(0);
          await onChunk(decodeRecord(buf.subarray(4, 4 + len)).ops);
          buf = buf.subarray(4 + len);
        }
        if (done) break;
      }
    } finally {
      reader.releaseLock();
      void obj.data.cancel().catch(() => {});
    }
    const err = await obj.error;
    if (err) throw err;
    if (seq === undefined || buf.length) throw new Error(`shard ${shard}: the stored snapshot ends mid-frame`);
    return seq;
  }

  /**
   * Before a replica consumes a shard: when the stream no longer holds its next record (truncated
   * behind a snapshot), wipes this node's copy and installs the snapshot, streamed.
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
    const stored = await this.storedSeq(shard);
    if (stored === undefined || stored + 1 < first) throw new Error(`shard ${shard}: the stream starts at ${first}, past this replica's ${log.applied}, and no snapshot covers the gap`);
    await log.settled();
    if (stored <= log.applied) return;
    let keys = 0;
    // Between two applies: nothing else writes the shard while its copy is replaced.
    const seq = await log.atApplied(async (applied) =>
      this.read(
        shard,
        async (seq) => {
          if (seq <= applied) return false;
          await wipeShardCopy(this.replicator, this.checker, shard);
          return true;
        },
        async (ops) => {
          await this.replicator.backendStore.write(ops, false);
          // Announced like an applied record: caches drop, the vector index takes the records.
          await this.replicator.onApplied(shard, ops);
          keys += ops.length;
        },
      ),
    );
    if (seq === undefined || seq <= log.applied) return;
    // The sequence is recorded (and waiters woken) by the ordinary apply path, with no ops.
    await log.installSnapshot(seq, []);
    this.log.info('shard bootstrapped from its snapshot, streamed', { shard, seq, keys });
  }
}
