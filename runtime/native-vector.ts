/**
 * Typed surface of core-native's vector index (crate ctx-vector, FAISS underneath). Filters are
 * evaluated inside the core over per-account bitmaps, so a query never sees another account's
 * records and nothing is over-fetched and dropped in JS. Design, thresholds and measurements:
 * docs/vector-index.md.
 *
 * Errors thrown by the addon carry `CODE: message` (see `nativeErrorCode` in runtime/native.ts):
 * INVALID_ARGUMENT, VECTOR_INDEX_CORRUPT / VECTOR_INDEX_INCOMPATIBLE (rebuild from the source of
 * truth), VECTOR_INDEX_IO, VECTOR_INDEX_FAISS.
 */
import { native, nativeErrorCode } from './native.js';

export type ContextType = 'resource' | 'memory' | 'skill' | 'session';

/** Stored next to each vector and used by filters. */
export interface RecordAttrs {
  account: string;
  /** '' for shared resources, 'user:<id>', 'peer:<id>'. */
  ownerSpace: string;
  /** Canonical ctx:// uri of the node (L0/L1 records: the directory uri). */
  uri: string;
  parentUri: string;
  contextType: ContextType;
  level: 0 | 1 | 2;
  /** 'k=v' strings. */
  tags: string[];
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
  peer?: string;
}

/** All conditions AND; account is mandatory. */
export interface VectorFilter {
  account: string;
  /** OR of prefixes; 'ctx://resources/docs' matches itself and everything below (whole segments). */
  uriPrefixes?: string[];
  ownerSpaces?: string[];
  contextTypes?: string[];
  levels?: number[];
  /** AND of exact 'k=v' tags. */
  tags?: string[];
  timeField?: 'createdAt' | 'updatedAt';
  /** Inclusive bounds, epoch ms, on `timeField` (default updatedAt). */
  since?: number;
  until?: number;
  peer?: string;
  excludeUriPrefixes?: string[];
}

/** id = 32-hex record id; score = inner product (vectors are L2-normalized). */
export interface Hit {
  id: string;
  score: number;
}

export interface SearchOptions {
  /** HNSW beam width (default 160: recall@10 0.95 at 1M; at least k). */
  ef?: number;
  /** Score every filtered candidate in float32 (no graph, no 8-bit first pass). */
  exact?: boolean;
}

export type SearchPlan = 'empty' | 'exact' | 'exact-quantized' | 'graph' | 'graph-then-exact';

export interface VectorIndexOptions {
  dim: number;
  metric?: 'ip';
  /** Live records above which the flat store becomes an HNSW graph (default 20,000). */
  flatThreshold?: number;
  hnswM?: number;
  efConstruction?: number;
  efSearch?: number;
  /** Filters admitting at most this many records are answered by an exact scan (default 20,000). */
  exactMaxCandidates?: number;
  /** ... and so are filters admitting less than this fraction of the records (default 0.02). */
  exactMaxSelectivity?: number;
  /** Threads for HNSW construction (0 = all cores). */
  buildThreads?: number;
}

export interface VectorIndexStats {
  size: number;
  dim: number;
  kind: 'flat' | 'hnsw';
  vectorBytes: number;
  codeBytes: number;
  graphBytes: number;
  attrBytes: number;
  textBytes: number;
  /** Tombstoned graph slots awaiting `compactAsync`. */
  deleted: number;
  textDocs: number;
}

export type StoredRecord = RecordAttrs & { vector?: Float32Array };

/** The napi class, as napi-derive exports it. */
export interface NativeVectorIndex {
  configure(opts: VectorIndexOptions): void;
  upsert(ids: string[], vectors: Float32Array, attrs: RecordAttrs[]): void;
  upsertAsync(ids: string[], vectors: Float32Array, attrs: RecordAttrs[]): Promise<void>;
  remove(ids: string[]): number;
  removeWhere(filter: VectorFilter): number;
  search(query: Float32Array, k: number, filter: VectorFilter, opts?: SearchOptions): Hit[];
  searchExplain(query: Float32Array, k: number, filter: VectorFilter, opts?: SearchOptions): { hits: Hit[]; plan: SearchPlan };
  searchAsync(query: Float32Array, k: number, filter: VectorFilter, opts?: SearchOptions): Promise<Hit[]>;
  searchMany(queries: Float32Array, n: number, k: number, filter: VectorFilter, opts?: SearchOptions): Promise<Hit[][]>;
  benchFaissSearch(query: Float32Array, k: number, ef: number): Hit[];
  get(id: string, withVector?: boolean): StoredRecord | null;
  count(filter: VectorFilter): number;
  ids(filter: VectorFilter, limit?: number): string[];
  stats(): VectorIndexStats;
  needsCompaction(): boolean;
  compactAsync(): Promise<void>;
  compacting(): boolean;
  saveAsync(path: string): Promise<void>;
  upsertText(ids: string[], texts: string[]): void;
  searchText(query: string, k: number, filter: VectorFilter): Hit[];
  hybridSearch(query: Float32Array, text: string, k: number, filter: VectorFilter, opts?: { alpha?: number }): Hit[];
  hybridSearchAsync(query: Float32Array, text: string, k: number, filter: VectorFilter, opts?: { alpha?: number }): Promise<Hit[]>;
  hierarchicalSearch(query: Float32Array, text: string, limit: number, filters: VectorFilter[], navs: VectorFilter[], params?: HierarchicalParams): HierarchicalResult;
  hierarchicalSearchAsync(query: Float32Array, text: string, limit: number, filters: VectorFilter[], navs: VectorFilter[], params?: HierarchicalParams): Promise<HierarchicalResult>;
}

/** Tunables of `hierarchicalSearch`; defaults in parentheses (docs/retrieval.md). */
export interface HierarchicalParams {
  /** final = max(s, propagation·s + (1−propagation)·parent) (0.7). */
  propagation?: number;
  maxExpansions?: number;
  stableRounds?: number;
  globalKMin?: number;
  navK?: number;
  /** Dense weight of the hybrid score (0.6). */
  alpha?: number;
}

export interface HierarchicalResult {
  /** Every scored record, best first. */
  hits: Array<{ id: string; score: number; raw: number; viaUri?: string | null; viaScore?: number | null }>;
  globalHits: number;
  navigationHits: number;
  expanded: Array<{ uri: string; score: number; childHits: number; round: number }>;
  rounds: number;
  stopReason: 'stable' | 'max_expansions' | 'frontier_exhausted' | 'frontier_below_topk' | 'no_hits';
}

interface NativeVectorClass {
  new (opts: VectorIndexOptions): NativeVectorIndex;
  loadAsync(path: string): Promise<NativeVectorIndex>;
}

function nativeClass(): NativeVectorClass {
  const cls = native().VectorIndex as NativeVectorClass | undefined;
  if (typeof cls !== 'function' || typeof cls.loadAsync !== 'function') {
    throw new Error('core-native lacks VectorIndex: it is stale, run `npm run build:native`');
  }
  return cls;
}

/**
 * One in-memory index (flat below `flatThreshold` records, HNSW above). Methods without `Async`
 * run on the calling thread; use the async ones for large batches, saving, loading, compaction.
 * Hybrid fusion: `alpha * max(0, cosine) + (1 - alpha) * bm25 / maxBm25` (alpha default 0.6),
 * always in [0, 1].
 */
export class VectorIndex {
  private constructor(private readonly n: NativeVectorIndex) {}

  static create(opts: VectorIndexOptions): VectorIndex {
    const Cls = nativeClass();
    return new VectorIndex(new Cls(opts));
  }

  /** Rejects with VECTOR_INDEX_CORRUPT / _INCOMPATIBLE when the file must be rebuilt. */
  static async loadAsync(path: string): Promise<VectorIndex> {
    return new VectorIndex(await nativeClass().loadAsync(path));
  }

  configure(opts: VectorIndexOptions): void {
    this.n.configure(opts);
  }
  /**
   * Inserts or replaces by id, on this thread. Never builds the graph (a flat store that outgrows
   * the threshold waits for `compactAsync`, see `needsCompaction`); inserts into an existing graph
   * cost ~1 ms of CPU each, so batches belong in `upsertAsync`.
   */
  upsert(ids: string[], vectors: Float32Array, attrs: RecordAttrs[]): void {
    this.n.upsert(ids, vectors, attrs);
  }
  upsertAsync(ids: string[], vectors: Float32Array, attrs: RecordAttrs[]): Promise<void> {
    return this.n.upsertAsync(ids, vectors, attrs);
  }
  remove(ids: string[]): number {
    return this.n.remove(ids);
  }
  removeWhere(filter: VectorFilter): number {
    return this.n.removeWhere(filter);
  }
  search(query: Float32Array, k: number, filter: VectorFilter, opts?: SearchOptions): Hit[] {
    return opts === undefined ? this.n.search(query, k, filter) : this.n.search(query, k, filter, opts);
  }
  /** `search` plus the plan the core chose (exact scan of the candidates or graph walk). */
  searchExplain(query: Float32Array, k: number, filter: VectorFilter, opts?: SearchOptions): { hits: Hit[]; plan: SearchPlan } {
    return opts === undefined ? this.n.searchExplain(query, k, filter) : this.n.searchExplain(query, k, filter, opts);
  }
  searchAsync(query: Float32Array, k: number, filter: VectorFilter, opts?: SearchOptions): Promise<Hit[]> {
    return opts === undefined ? this.n.searchAsync(query, k, filter) : this.n.searchAsync(query, k, filter, opts);
  }
  /** `n` queries packed in one Float32Array (n*dim), one filter, off the JS thread on all cores. */
  searchMany(queries: Float32Array, n: number, k: number, filter: VectorFilter, opts?: SearchOptions): Promise<Hit[][]> {
    return opts === undefined ? this.n.searchMany(queries, n, k, filter) : this.n.searchMany(queries, n, k, filter, opts);
  }
  /** Benchmarks only: FAISS's own HNSW search (one thread, unfiltered) as a baseline. */
  benchFaissSearch(query: Float32Array, k: number, ef: number): Hit[] {
    return this.n.benchFaissSearch(query, k, ef);
  }
  get(id: string, withVector = true): StoredRecord | null {
    const r = this.n.get(id, withVector);
    if (!r) return null;
    if (r.peer === null || r.peer === undefined) delete r.peer;
    if (!withVector) delete r.vector;
    return r;
  }
  count(filter: VectorFilter): number {
    return this.n.count(filter);
  }
  ids(filter: VectorFilter, limit?: number): string[] {
    return limit === undefined ? this.n.ids(filter) : this.n.ids(filter, limit);
  }
  stats(): VectorIndexStats {
    return this.n.stats();
  }
  /** Tombstones passed a quarter of the graph, or a flat store outgrew the threshold. */
  needsCompaction(): boolean {
    return this.n.needsCompaction();
  }
  /** Rebuilds the graph without tombstones (seconds per 100k vectors; searches wait). */
  compactAsync(): Promise<void> {
    return this.n.compactAsync();
  }
  /**
   * True while `compactAsync` builds the new store. It holds the index only at its two short ends,
   * so searches and upserts go on meanwhile; changes made during the build are carried over.
   */
  compacting(): boolean {
    return this.n.compacting();
  }
  /** Atomic (temp file + fsync + rename), checksummed. */
  saveAsync(path: string): Promise<void> {
    return this.n.saveAsync(path);
  }
  upsertText(ids: string[], texts: string[]): void {
    this.n.upsertText(ids, texts);
  }
  searchText(query: string, k: number, filter: VectorFilter): Hit[] {
    return this.n.searchText(query, k, filter);
  }
  hybridSearch(query: Float32Array, text: string, k: number, filter: VectorFilter, opts?: { alpha?: number }): Hit[] {
    return opts === undefined ? this.n.hybridSearch(query, text, k, filter) : this.n.hybridSearch(query, text, k, filter, opts);
  }
  /**
   * A whole hierarchical find in the core: global + navigation searches, then subtree expansions
   * with score propagation until the top-k is stable (`filters` OR'ed into the scope, `navs`
   * bounding navigation). One call instead of one per search.
   */
  hierarchicalSearch(query: Float32Array, text: string, limit: number, filters: VectorFilter[], navs: VectorFilter[], params?: HierarchicalParams): HierarchicalResult {
    return params === undefined ? this.n.hierarchicalSearch(query, text, limit, filters, navs) : this.n.hierarchicalSearch(query, text, limit, filters, navs, params);
  }
  hierarchicalSearchAsync(query: Float32Array, text: string, limit: number, filters: VectorFilter[], navs: VectorFilter[], params?: HierarchicalParams): Promise<HierarchicalResult> {
    return params === undefined ? this.n.hierarchicalSearchAsync(query, text, limit, filters, navs) : this.n.hierarchicalSearchAsync(query, text, limit, filters, navs, params);
  }
  /** `hybridSearch` on the libuv pool: for searches over many candidates (~20 µs of hop). */
  hybridSearchAsync(query: Float32Array, text: string, k: number, filter: VectorFilter, opts?: { alpha?: number }): Promise<Hit[]> {
    return opts === undefined ? this.n.hybridSearchAsync(query, text, k, filter) : this.n.hybridSearchAsync(query, text, k, filter, opts);
  }
}

/** True when a load error means "rebuild the index from RocksDB" rather than a fatal problem. */
export function needsRebuild(err: unknown): boolean {
  const { code } = nativeErrorCode(err);
  return code === 'VECTOR_INDEX_CORRUPT' || code === 'VECTOR_INDEX_INCOMPATIBLE' || (code === 'VECTOR_INDEX_IO' && /No such file|not found/i.test(String(err)));
}
