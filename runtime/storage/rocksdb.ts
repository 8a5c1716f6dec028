/**
 * RocksDB backend (`rocksdb@5.2.1`, RocksDB 6.17). Chosen over @nxtedition/rocksdb by measurement
 * (docs/architecture.md): its writes run on the libuv pool, so a synced WAL flush never blocks the
 * event loop, and behind our group commit it sustains ~47k durable 1 KB puts/s on this machine.
 */
import { createRequire } from 'node:module';
import fs from 'node:fs';
import type { EngineStats, KvBackend, KvOp, RangeOptions } from './backend.js';

const require = createRequire(import.meta.url);
const EMPTY = Buffer.alloc(0);
/**
 * Memtable size. The binding's default (4 MB, from LevelDB) makes an L0->L1 compaction every 16 MB
 * written against a 256 MB L1 target, i.e. heavy rewriting: sustained 1 MB batches of new text
 * files spent ~17 ms of compaction CPU per batch on this 2-core machine, vs ~3.4 ms at 64 MB, which
 * is RocksDB's own default and matches its level sizing (bench/RESULTS.md, content). Memory: up to
 * two memtables, allocated as filled; WAL replay on restart covers at most one of them.
 */
export const WRITE_BUFFER_BYTES = 64 * 1024 * 1024;
/** The binding's block cache default (LevelDB's 8 MB), kept: reads of hot metadata go through the VFS's own cache first. */
export const BLOCK_CACHE_BYTES = 8 * 1024 * 1024;

interface RocksIterator {
  next(cb: (err: Error | null | undefined, key?: string, value?: Buffer) => void): void;
  /** rocksdb@5.2.1 internals: the rest of the last native batch, reversed (pop key, then value). */
  cache?: Array<string | Buffer> | null;
  end(cb: (err?: Error | null) => void): void;
}
interface RocksChainedBatch {
  put(key: string, value: Buffer): void;
  del(key: string): void;
  write(opts: object, cb: (err?: Error | null) => void): void;
}
interface RocksDb {
  open(opts: object, cb: (err?: Error | null) => void): void;
  close(cb: (err?: Error | null) => void): void;
  get(key: string, opts: object, cb: (err: Error | null | undefined, value?: Buffer) => void): void;
  getMany(keys: string[], opts: object, cb: (err: Error | null | undefined, values?: (Buffer | undefined)[]) => void): void;
  batch(ops: KvOp[], opts: object, cb: (err?: Error | null) => void): void;
  batch(): RocksChainedBatch;
  iterator(opts: object): RocksIterator;
  approximateSize(start: string, end: string, cb: (err: Error | null | undefined, size?: number) => void): void;
  getProperty(property: string): string;
}

export class RocksDbBackend implements KvBackend {
  readonly name = 'rocksdb';
  readonly supports = { durable: true, atomicBatch: true };
  private db: RocksDb;
  /**
   * The binding dereferences its freed native handle when get/put/approximateSize run after close
   * (SIGSEGV, the whole process dies), so calls on a closed database are refused here.
   */
  private isOpen = false;

  constructor(
    private readonly location: string,
    private readonly memory: { writeBufferBytes?: number; blockCacheBytes?: number } = {},
  ) {
    const factory = require('rocksdb') as (location: string) => RocksDb;
    this.db = factory(location);
  }

  /**
   * RocksDB's own numbers through `getProperty` (synchronous, in-memory reads). This binding opens
   * RocksDB without a Statistics object, so block-cache hit and miss counts do not exist here:
   * only the cache's usage and capacity are reported.
   */
  engineStats(): EngineStats | undefined {
    if (!this.isOpen) return undefined;
    const num = (p: string) => {
      const v = Number(this.db.getProperty(p));
      return Number.isFinite(v) ? v : 0;
    };
    const stats = this.db.getProperty('rocksdb.stats');
    const stalls = /Stalls\(count\):.*?(\d+) total count/.exec(stats);
    const cumulative = /Cumulative stall: (\d+):(\d+):([\d.]+) H:M:S/.exec(stats);
    return {
      liveDataBytes: num('rocksdb.estimate-live-data-size'),
      sstFilesBytes: num('rocksdb.total-sst-files-size'),
      memtableBytes: num('rocksdb.cur-size-all-mem-tables'),
      pendingCompactionBytes: num('rocksdb.estimate-pending-compaction-bytes'),
      runningCompactions: num('rocksdb.num-running-compactions'),
      blockCacheUsageBytes: num('rocksdb.block-cache-usage'),
      blockCacheCapacityBytes: num('rocksdb.block-cache-capacity'),
      estimatedKeys: num('rocksdb.estimate-num-keys'),
      writeStalls: stalls ? Number(stalls[1]) : 0,
      writeStallSeconds: cumulative ? Number(cumulative[1]) * 3600 + Number(cumulative[2]) * 60 + Number(cumulative[3]) : 0,
      writesStopped: num('rocksdb.is-write-stopped') !== 0,
      backgroundErrors: num('rocksdb.background-errors'),
    };
  }

  async open(): Promise<void> {
    fs.mkdirSync(this.location, { recursive: true });
    await new Promise<void>((resolve, reject) =>
      this.db.open({ createIfMissing: true, errorIfExists: false, maxOpenFiles: 512, writeBufferSize: this.memory.writeBufferBytes ?? WRITE_BUFFER_BYTES, cacheSize: this.memory.blockCacheBytes ?? BLOCK_CACHE_BYTES }, (err) => (err ? reject(err) : resolve())),
    );
    this.isOpen = true;
  }

  close(): Promise<void> {
    if (!this.isOpen) return Promise.resolve();
    this.isOpen = false;
    // Close ends open iterators without calling back their pending next(): fail those reads
    // instead of leaving their callers waiting forever.
    for (const fail of this.pendingNext) fail(new Error(`rocksdb at ${this.location} was closed during an iteration`));
    this.pendingNext.clear();
    return new Promise((resolve, reject) => this.db.close((err) => (err ? reject(err) : resolve())));
  }

  private readonly pendingNext = new Set<(err: Error) => void>();

  private next(it: RocksIterator): Promise<[string, Buffer] | undefined> {
    if (!this.isOpen) return this.notOpen();
    return new Promise((resolve, reject) => {
      this.pendingNext.add(reject);
      it.next((err, key, value) => {
        this.pendingNext.delete(reject);
        if (err) reject(err);
        else resolve(key === undefined ? undefined : [key, value!]);
      });
    });
  }

  private notOpen(): Promise<never> {
    return Promise.reject(new Error(`rocksdb at ${this.location} is not open`));
  }

  get(key: string): Promise<Buffer | undefined> {
    if (!this.isOpen) return this.notOpen();
    return new Promise((resolve, reject) =>
      this.db.get(key, { asBuffer: true, fillCache: true }, (err, value) => {
        if (err) {
          if (/NotFound/i.test(err.message)) resolve(undefined);
          else reject(err);
        } else resolve(value);
      }),
    );
  }

  /** One native multi-get (one thread-pool job) instead of one job per key: ~2× faster for 256 keys. */
  getMany(keys: string[]): Promise<(Buffer | undefined)[]> {
    if (!this.isOpen) return this.notOpen();
    if (keys.length <= 1) return Promise.all(keys.map((k) => this.get(k)));
    return new Promise((resolve, reject) =>
      this.db.getMany(keys, { asBuffer: true, fillCache: true }, (err, values) => (err ? reject(err) : resolve(values ?? keys.map(() => undefined)))),
    );
  }

  /**
   * A chained batch: one native call per op with plain arguments costs the JS thread 3-4× less
   * than the array form, whose binding reads `type`/`key`/`value` properties of every op object
   * (~1 ms instead of ~3 ms for 512 ops; bench/RESULTS.md, content).
   */
  write(ops: KvOp[], sync: boolean): Promise<void> {
    if (!this.isOpen) return this.notOpen();
    return new Promise((resolve, reject) => {
      const batch = this.db.batch();
      for (const op of ops) {
        if (op.type === 'put') batch.put(op.key, op.value ?? EMPTY);
        else batch.del(op.key);
      }
      batch.write({ sync }, (err) => (err ? reject(err) : resolve()));
    });
  }

  async *iterate(opts: RangeOptions): AsyncIterable<[string, Buffer]> {
    if (!this.isOpen) await this.notOpen();
    const it = this.db.iterator({
      ...opts,
      limit: opts.limit ?? -1,
      keyAsBuffer: false,
      valueAsBuffer: true,
      // Larger read-ahead per native round trip: listings of big directories are the main consumer.
      highWaterMark: 256 * 1024,
    });
    try {
      while (true) {
        const entry = await this.next(it);
        if (!entry) return;
        yield entry;
      }
    } finally {
      // close() already ended it (and the binding would not call back).
      if (this.isOpen) await new Promise<void>((resolve) => it.end(() => resolve()));
    }
  }

  /**
   * `iterate` in chunks: each native round trip already returns up to `highWaterMark` bytes of
   * entries, which `next` would hand out one per nextTick + promise; here the rest of that batch is
   * taken at once from the iterator's cache (rocksdb@5.2.1 internals, pinned). About 3-4x less
   * JS time per entry on large scans.
   */
  async *iterateChunks(opts: RangeOptions): AsyncIterable<Array<[string, Buffer]>> {
    if (!this.isOpen) await this.notOpen();
    const it = this.db.iterator({ ...opts, limit: opts.limit ?? -1, keyAsBuffer: false, valueAsBuffer: true, highWaterMark: 256 * 1024 });
    try {
      while (true) {
        const first = await this.next(it);
        if (!first) return;
        const chunk: Array<[string, Buffer]> = [first];
        const cache = it.cache;
        while (cache && cache.length >= 2) {
          const key = cache.pop() as string;
          chunk.push([key, cache.pop() as Buffer]);
        }
        yield chunk;
      }
    } finally {
      // close() already ended it (and the binding would not call back).
      if (this.isOpen) await new Promise<void>((resolve) => it.end(() => resolve()));
    }
  }

  approximateSize(gte: string, lt: string): Promise<number> {
    if (!this.isOpen) return this.notOpen();
    return new Promise((resolve) => this.db.approximateSize(gte, lt, (err, size) => resolve(err ? 0 : (size ?? 0))));
  }
}
