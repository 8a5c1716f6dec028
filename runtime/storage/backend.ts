/**
 * The ordered key-value contract every storage backend implements (abstract-level style): backends
 * implement only these primitives; `Kv` (kv.ts) validates, prefixes and group-commits on top.
 * A distributed backend later must pass `test/storage/contract.ts` unchanged.
 */
export interface KvOp {
  type: 'put' | 'del';
  key: string;
  value?: Buffer;
}

export interface RangeOptions {
  gte?: string;
  gt?: string;
  lte?: string;
  lt?: string;
  reverse?: boolean;
  limit?: number;
}

export interface BackendSupports {
  /** Acknowledged writes survive a crash of the process and of the machine. */
  durable: boolean;
  /** Atomic multi-key batches. */
  atomicBatch: boolean;
}

export interface KvBackend {
  readonly name: string;
  readonly supports: BackendSupports;
  open(): Promise<void>;
  close(): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  getMany(keys: string[]): Promise<(Buffer | undefined)[]>;
  /** Atomic; with `sync` the write-ahead log is flushed to disk before it resolves. */
  write(ops: KvOp[], sync: boolean): Promise<void>;
  iterate(opts: RangeOptions): AsyncIterable<[string, Buffer]>;
  /**
   * Optional: the same entries in the chunks the backend fetches anyway (one await per chunk rather
   * than per entry; big listings). `Kv.iterateChunks` falls back to `iterate` without it.
   */
  iterateChunks?(opts: RangeOptions): AsyncIterable<Array<[string, Buffer]>>;
  /** Rough on-disk size of a key range (0 where the backend cannot tell). */
  approximateSize(gte: string, lt: string): Promise<number>;
  /** Optional: engine health numbers for metrics (only those the engine really reports). */
  engineStats?(): EngineStats | undefined;
}

export interface EngineStats {
  liveDataBytes: number;
  sstFilesBytes: number;
  memtableBytes: number;
  pendingCompactionBytes: number;
  runningCompactions: number;
  blockCacheUsageBytes: number;
  blockCacheCapacityBytes: number;
  /** Block-cache memory held by entries in use (pinned by iterators or readers). */
  blockCachePinnedBytes: number;
  /**
   * Block-cache lookups that hit and missed since open, when the engine keeps a Statistics object
   * (rocksdb@5.2.1 does not: see docs/operations.md); undefined otherwise.
   */
  blockCacheHits?: number;
  blockCacheMisses?: number;
  estimatedKeys: number;
  /** Write stalls and slowdowns since open (RocksDB's `Stalls(count)` total). */
  writeStalls: number;
  /** Time writes spent stalled since open, seconds (RocksDB's `Cumulative stall`). */
  writeStallSeconds: number;
  writesStopped: boolean;
  backgroundErrors: number;
}
