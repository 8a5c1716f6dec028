/**
 * Vector records: RocksDB (this plugin's keyspace) is the source of truth, the in-memory vector
 * index is a cache of it, persisted under `<dataDir>/vectors/` and rebuilt when missing or stale.
 *
 * Keys (plugin sublevel):
 *   r\0{account}\0{path}\0{level} → RecordDoc JSON (path order: a subtree is one prefix scan)
 *   v\0{account}\0{id}            → the vector, raw float32
 *   i\0{account}\0{id}            → `{path}\0{level}` (record id resolution)
 *   a\0{account}\0{path}          → FileAbstract JSON (L0 text of a file, from semantic processing)
 *   meta\0seq                     → change counter; the index file is current when it saved the same value
 *   meta\0embedder                → the embedder info the stored vectors were computed with
 *   meta\0reembed                 → set with a new meta\0embedder until its re-embed is queued
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'ctx/plugin';
import type { KvOp } from 'ctx/plugin';
import type { Kv } from 'ctx/plugin';
import { recordId, unavailable } from 'ctx/plugin';
import type { Backends, EmbedderLike, Hit, RecordAttrs, VectorFilter } from './backends.js';
import type { VectorIndex } from 'ctx/plugin';
import { SlimRecordCache, slimOf, type SlimRecord } from './slim-records.js';

const S = '\x00';
const META_SEQ = `meta${S}seq`;
const META_EMBEDDER = `meta${S}embedder`;
const META_REEMBED = `meta${S}reembed`;

/** Durable marker of an embedder change whose re-embed is not queued yet. */
interface ReembedPending {
  from: EmbedderLike['info'] | undefined;
  to: EmbedderLike['info'];
  since: number;
}

/** JSON with object keys sorted at every depth: equal embedder infos give equal strings. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/**
 * What makes two embedders' vectors comparable: provider, model, dimension, input mode and every
 * parameter (openai base URL and prefixes, local weights).
 */
export function embedderFingerprint(info: EmbedderLike['info']): string {
  return stableJson({ provider: info.provider, model: info.model, dim: info.dim, inputMode: info.inputMode, params: info.params ?? {} });
}

/**
 * The `embedder` tag of a record: readable `provider/model/dim` plus a short hash of the
 * fingerprint, so a change of parameters alone also marks the stored vector as foreign.
 */
export function embedderTag(info: EmbedderLike['info']): string {
  return `${info.provider}/${info.model}/${info.dim}/${createHash('sha256').update(embedderFingerprint(info)).digest('hex').slice(0, 12)}`;
}

export interface RecordDoc {
  id: string;
  path: string;
  level: 0 | 1 | 2;
  attrs: RecordAttrs;
  /** What was embedded (L2: truncated to the token budget). */
  text: string;
  /** L0 text shown as `abstract` (for files: the file's abstract). */
  abstract: string;
  /** L1 text of directories. */
  overview?: string;
  kind: 'file' | 'dir';
  size: number;
  /** sha256 of the source, to skip re-embedding unchanged text. */
  sourceSha?: string;
  /** `embedderTag()` of the embedder the vector was computed with. */
  embedder?: string;
  /**
   * A directory record whose text only lists its children (set by the indexer): it does not
   * compete with leaves in find unless the request asks for directories (docs/retrieval.md).
   */
  listing?: true;
}

/**
 * Index-only tag of `listing` records, so find can leave them out inside the core's candidate
 * filter. The NUL makes it a tag no write can store (tags refuse control characters); it is added
 * to what the index holds, never to the stored record's attributes.
 */
export const LISTING_TAG = '\u0000ctx:listing';

/**
 * The range of the adaptive dense weight of the fusion (docs/retrieval.md, "Scores and fusion"),
 * per embedder provider, each chosen on the tuned set (bench/retrieval-quality/tune-fusion.ts,
 * bench/retrieval-heldout/run.ts --sets tuned --ranges).
 * The lexical embedder gets 0..0.2: BM25 leads and its dense score only reorders near-ties. Its
 * vectors are hashed character n-grams of the same words BM25 sees, without idf, so where the
 * query's words are missing (low lexical confidence, where the range gives dense the most weight)
 * its cosines are near zero (-0.1..0.3) and carry no meaning BM25 lacks; with 0.3..0.7 they pushed
 * BM25's rank 6-9 hits out of the top 10 and find fell below ctx's own BM25 (0.882 vs 0.886
 * recall@10). 0..0.2 is at or above BM25 at every embedding size tried (128..1536). On the
 * held-out sets it keeps find at about its own BM25, which is 0.7-2.3 points of recall@10 fewer
 * than 0.3..0.7 gave there (bench/RESULTS.md, "Lexical fusion vs its own BM25").
 * The neural model is much better than BM25 and gets 0.7..0.95 (0.3..0.7 put its fusion 2.7 points
 * of recall@10 below dense alone). A remote (openai) model is unmeasured and assumed to be a
 * transformer like the neural one.
 */
export function denseWeight(provider: string): { alphaMin: number; alphaMax: number } {
  return provider === 'local' ? { alphaMin: 0, alphaMax: 0.2 } : { alphaMin: 0.8, alphaMax: 0.95 };
}

/** The attributes the index holds for a record: its own, plus LISTING_TAG for listings. */
export function indexAttrs(d: Pick<RecordDoc, 'attrs' | 'listing'>): RecordAttrs {
  return d.listing ? { ...d.attrs, tags: [...d.attrs.tags, LISTING_TAG] } : d.attrs;
}

export interface FileAbstract {
  abstract: string;
  sha256: string;
  generator: string;
}

/** One record change applied from the replicated log (see `replicatedChanges`). */
export type ReplicatedChange =
  | { kind: 'put'; account: string; id: string; doc?: RecordDoc; vector?: Buffer }
  | { kind: 'del'; account: string; id: string }
  | { kind: 'seq'; value: number };

export class RecordStore {
  index!: VectorIndex;
  private seq = 0;
  private savedSeq = -1;
  private saveTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> | null = null;
  readonly dir: string;
  rebuildInfo: { at: number; records: number; reason: string; ms: number } | null = null;
  /**
   * Recently read whole records by `account\0id` (LRU by insertion order), for the readers that
   * need a record's text (the reranker); a find's answer reads the slim cache below.
   */
  private readonly cache = new Map<string, RecordDoc>();
  static CACHE_MAX = 50_000;
  /**
   * What a find's answer reads of each record (slim-records.ts), by `account\0id`: filled at write
   * and on a find's first read, bounded by bytes (`plugins.retrieval.recordCacheMb`).
   */
  static SLIM_CACHE_BYTES = 16 * 1024 * 1024;
  readonly slim = new SlimRecordCache(RecordStore.SLIM_CACHE_BYTES);
  /** Record changes applied (writes, removals, replicated changes): a read racing one is not cached. */
  private changeCount = 0;
  /**
   * Record id → `path\0level`, as the id keys store it. An id is a hash of account, uri and level,
   * so an entry never goes stale (a removed record is simply not found under its key): a record
   * cache miss then costs one RocksDB read instead of two.
   */
  private readonly locs = new Map<string, string>();
  static LOC_MAX = 200_000;
  /** Vectors per exclusive graph insert: ~10-20 ms of holding the index at ~1 ms per insert. */
  static GRAPH_INSERT_CHUNK = 16;
  reembedQueued = 0;
  private indexChain: Promise<void> = Promise.resolve();
  private compaction: Promise<void> | null = null;
  /** `flat` or `hnsw`; changes only through a compaction. */
  indexKind = 'flat';
  compactions = 0;
  /** Full rebuilds from RocksDB since start (metrics). */
  rebuilds = 0;
  /** Times each search inside the core (metrics): called at the start, its result at the end. */
  searchTimer: ((mode: 'hybrid' | 'dense') => () => void) | undefined = undefined;
  private closed = false;
  /** The vectors were dropped for an embedder change and the re-embed is not queued yet. */
  reembedPending = false;

  constructor(
    private readonly kv: Kv,
    private readonly backends: Backends,
    dataDir: string,
    private readonly log: Logger,
  ) {
    this.dir = path.join(dataDir, 'vectors');
  }

  get embedder(): EmbedderLike {
    return this.backends.embedder;
  }
  get backendKind(): string {
    return this.backends.kind;
  }
  private get file(): string {
    return path.join(this.dir, 'index.bin');
  }
  private get metaFile(): string {
    return path.join(this.dir, 'index.meta.json');
  }

  recKey(account: string, p: string, level: number): string {
    return `r${S}${account}${S}${p}${S}${level}`;
  }
  /** Deletes a record's stored vector (cluster mode: in the shard leader's re-embed batch). */
  vectorDelOp(account: string, id: string): KvOp {
    return this.kv.delOp(this.vecKey(account, id));
  }

  private vecKey(account: string, id: string): string {
    return `v${S}${account}${S}${id}`;
  }
  private idKey(account: string, id: string): string {
    return `i${S}${account}${S}${id}`;
  }
  absKey(account: string, p: string): string {
    return `a${S}${account}${S}${p}`;
  }

  /**
   * Reads the store's metadata and starts loading the index: the persisted file when it matches
   * RocksDB (same change counter, same embedder), else a rebuild from RocksDB. The load runs in the
   * background (100k records: ~280 MB read off the JS thread, 1-2 s; a rebuild much longer), so the
   * server answers `/health` meanwhile; until it is done `loaded` is false, `/ready` reports it, every
   * index read waits for it (`whenLoaded`) and every index change queues behind it. Returns true when
   * the stored vectors must be re-embedded (the caller queues it, then calls `reembedQueuedDone()`):
   * that path drops the vectors before returning, with an empty index, loaded.
   */
  async open(opts: { replicated?: boolean } = {}): Promise<{ embedderChanged: boolean; previousTag?: string }> {
    await fs.mkdir(this.dir, { recursive: true });
    this.seq = (await this.kv.getJson<number>(META_SEQ)) ?? 0;
    const stored = await this.kv.getJson<EmbedderLike['info']>(META_EMBEDDER);
    const pending = await this.kv.getJson<ReembedPending>(META_REEMBED);
    const info = this.embedder.info;
    const changed = !!stored && embedderFingerprint(stored) !== embedderFingerprint(info);
    let previousTag: string | undefined;
    if (!stored) await this.kv.putJson(META_EMBEDDER, info);
    if (changed) {
      // The new meta never becomes durable without the flag that forces the re-embed, and the
      // counter moves with it so an index file saved with the old vectors can no longer load:
      // a crash anywhere after this batch resumes below on the next start.
      await this.kv.batch([
        this.kv.putJsonOp(META_EMBEDDER, info),
        this.kv.putJsonOp(META_REEMBED, { from: stored, to: info, since: Date.now() } satisfies ReembedPending),
        this.kv.putJsonOp(META_SEQ, ++this.seq),
      ]);
    }
    if (!changed && pending && opts.replicated) {
      // Cluster mode, a restart after the change: the stored vectors (re-embedded or still to be,
      // by their shards' leaders) load as usual; the change stays pending for the shards whose
      // marker does not name the current embedder yet (the semantic plugin checks each it leads).
      previousTag = pending.from ? embedderTag(pending.from) : '';
    } else if (changed && opts.replicated) {
      // Cluster mode (docs/scale-out.md, "Start-up work"): the stored vectors are the shards' and
      // leave only through their logs — each shard's leader drops and re-embeds its records once.
      // Locally only the index (memory and file, derived) is dropped, so no old vector is served.
      this.log.warn('embedder changed: the index starts empty; each shard\'s leader re-embeds its records', { old: stored ?? pending?.from, current: info });
      this.index = this.backends.createIndex(info.dim);
      await fs.rm(this.metaFile, { force: true });
      await fs.rm(this.file, { force: true });
      this.savedSeq = -1;
      this.reembedPending = true;
      this.loadState = { loaded: true, error: null, done: Promise.resolve() };
      return { embedderChanged: true, previousTag: stored ? embedderTag(stored) : undefined };
    } else if (changed || pending) {
      // In the foreground: the re-embed that follows writes new vectors, which the drop must not race.
      this.log.warn('embedder changed: dropping vectors computed with the old one and re-embedding', { old: stored, current: info, resumed: !changed });
      this.index = this.backends.createIndex(info.dim);
      await this.dropVectors();
      this.reembedPending = true;
      this.loadState = { loaded: true, error: null, done: Promise.resolve() };
      return { embedderChanged: true };
    }
    // Until the load is done the index is an empty one, so synchronous readers (stats for metrics
    // and observers) see "0 records" rather than fail; readers that answer requests wait.
    this.index = this.backends.createIndex(info.dim);
    if (this.seq === 0) {
      // Nothing was ever stored (every change moves the counter): the empty index is the whole one.
      this.loadState = { loaded: true, error: null, done: Promise.resolve() };
      return { embedderChanged: previousTag !== undefined, previousTag };
    }
    const done = this.load().then(
      () => {
        this.loadState.loaded = true;
      },
      (err: Error) => {
        this.loadState.error = err;
        this.log.error('loading the vector index failed: find and search answer UNAVAILABLE until a restart', { error: err });
      },
    );
    this.loadState = { loaded: false, error: null, done };
    this.indexChain = done;
    return { embedderChanged: previousTag !== undefined, previousTag };
  }

  /** Where the index load stands (`open`). */
  private loadState: { loaded: boolean; error: Error | null; done: Promise<void> } = { loaded: false, error: null, done: Promise.resolve() };

  /** The index holds every stored record (loaded or rebuilt since start). */
  get loaded(): boolean {
    return this.loadState.loaded;
  }

  /** Why the index could not be loaded, or null. */
  get loadError(): Error | null {
    return this.loadState.error;
  }

  /**
   * Resolves once the index holds every stored record; rejects with UNAVAILABLE (503) when it could
   * not be loaded, rather than answer from a partial index.
   */
  async whenLoaded(): Promise<void> {
    if (!this.loadState.loaded) await this.loadState.done;
    if (this.loadState.error) throw unavailable(`the vector index could not be loaded: ${this.loadState.error.message}`);
  }

  /** Tests hold the background load here (after the counter is read) to see a server mid-load. */
  static loadGate: Promise<void> | null = null;

  private async load(): Promise<void> {
    const info = this.embedder.info;
    // The counter the file must match: changes committed while it loads queue behind the load.
    const seq = this.seq;
    if (RecordStore.loadGate) await RecordStore.loadGate;
    let reason = 'no index file';
    try {
      const meta = JSON.parse(await fs.readFile(this.metaFile, 'utf8')) as { seq: number; backend: string; dim: number };
      if (meta.seq !== seq) reason = `index file is stale (saved at change ${meta.seq}, store at ${seq})`;
      else if (meta.backend !== this.backends.kind || meta.dim !== info.dim) reason = 'index file was written by another backend';
      else {
        const started = performance.now();
        const index = await this.backends.loadIndex(this.file);
        this.index = index;
        this.indexKind = index.stats().kind;
        this.savedSeq = seq;
        this.log.info('vector index loaded', { records: index.stats().size, file: this.file, ms: Math.round(performance.now() - started) });
        return;
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') reason = `index file unreadable: ${(err as Error).message}`;
    }
    await this.rebuild(reason);
  }

  /** Rebuilds the in-memory index from the records in RocksDB, logging progress. */
  async rebuild(reason: string): Promise<void> {
    const started = Date.now();
    // What the scan reflects at least: a change committed while it runs may be missing from it (it
    // is applied after, from the index chain), so the file is saved as of here.
    const seq = this.seq;
    const dim = this.embedder.info.dim;
    this.index = this.backends.createIndex(dim);
    this.log.info('rebuilding the vector index from RocksDB', { reason });
    let n = 0;
    let batch: RecordDoc[] = [];
    const flush = async () => {
      if (!batch.length) return;
      const vecs = await this.kv.getMany(batch.map((d) => this.vecKey(d.attrs.account, d.id)));
      const ids: string[] = [];
      const attrs: RecordAttrs[] = [];
      const texts: string[] = [];
      const out = new Float32Array(batch.length * dim);
      batch.forEach((d, i) => {
        const v = vecs[i];
        if (!v || v.length !== dim * 4) return;
        out.set(new Float32Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.length)), ids.length * dim);
        ids.push(d.id);
        attrs.push(indexAttrs(d));
        texts.push(d.text);
      });
      if (ids.length) {
        this.index.upsert(ids, out.subarray(0, ids.length * dim), attrs);
        this.index.upsertText(ids, texts);
      }
      n += ids.length;
      batch = [];
      if (n % 10_000 < ids.length) this.log.info('vector index rebuild progress', { records: n });
    };
    for await (const [, value] of this.kv.scanPrefix(`r${S}`)) {
      batch.push(JSON.parse(value.toString('utf8')) as RecordDoc);
      if (batch.length >= 1000) await flush();
      // Shutdown during a start-up rebuild: stop reading a store that is about to close.
      if (this.closed) throw new Error('closed while rebuilding the vector index');
    }
    await flush();
    this.rebuildInfo = { at: Date.now(), records: n, reason, ms: Date.now() - started };
    this.rebuilds++;
    this.log.info('vector index rebuilt', { records: n, ms: Date.now() - started });
    this.indexKind = this.index.stats().kind;
    this.savedSeq = -1;
    await this.save(seq);
    // Rebuilt through sync upserts, a large collection is still flat: its graph is built next.
    this.maybeCompact();
  }

  /**
   * Deletes every stored vector and the index files. Idempotent: it runs again after a crash while
   * the re-embed flag is set. Records stay (the re-embed reads them); their vectors are gone, so a
   * rebuild meanwhile skips them instead of mixing vector spaces.
   */
  private async dropVectors(): Promise<void> {
    await fs.rm(this.metaFile, { force: true });
    await fs.rm(this.file, { force: true });
    this.savedSeq = -1;
    let ops: KvOp[] = [];
    for await (const [key] of this.kv.scanPrefix(`v${S}`)) {
      ops.push(this.kv.delOp(key));
      if (ops.length >= 1000) {
        await this.kv.batch(ops);
        ops = [];
      }
    }
    await this.kv.batch([...ops, this.kv.putJsonOp(META_SEQ, ++this.seq)]);
  }

  /**
   * Clears the durable re-embed flag once an Embedding message per record and the tracking task
   * are stored; until then every start drops the vectors and queues the re-embed again.
   */
  async reembedQueuedDone(): Promise<void> {
    await this.kv.del(META_REEMBED);
    this.reembedPending = false;
  }

  /** Accounts with stored records (one seek each: the record keys are sorted by account). */
  async recordAccounts(): Promise<string[]> {
    const out: string[] = [];
    let from = `r${S}`;
    for (;;) {
      let next: string | undefined;
      for await (const [key] of this.kv.iterate({ gte: from, lt: `r\x01`, limit: 1 })) next = key;
      if (next === undefined) return out;
      const account = next.split(S)[1]!;
      out.push(account);
      from = `r${S}${account}\x01`;
    }
  }

  /** One account's records (account, path, level), for a shard's re-embed (cluster mode). */
  async *recordsOf(account: string): AsyncIterable<RecordDoc> {
    for await (const [, value] of this.kv.scanPrefix(`r${S}${account}${S}`)) yield JSON.parse(value.toString('utf8')) as RecordDoc;
  }

  /** Every record (account, path, level), for re-embedding. */
  async *allRecords(): AsyncIterable<RecordDoc> {
    for await (const [, value] of this.kv.scanPrefix(`r${S}`)) yield JSON.parse(value.toString('utf8')) as RecordDoc;
  }

  /**
   * The records of `p` and everything below it with their vectors, in path order, a bounded batch
   * of RocksDB reads at a time. Records without a vector (dropped for an embedder change and not
   * re-embedded yet) are left out: they hold no vector to hand over.
   */
  /** The records of `p` and below, vector or not. */
  async *subtreeRecords(account: string, p: string): AsyncIterable<RecordDoc> {
    const prefixes = p === '' ? [`r${S}${account}${S}`] : [`r${S}${account}${S}${p}${S}`, `r${S}${account}${S}${p}/`];
    for (const prefix of prefixes) for await (const [, value] of this.kv.scanPrefix(prefix)) yield JSON.parse(value.toString('utf8')) as RecordDoc;
  }

  async *subtreeWithVectors(account: string, p: string): AsyncIterable<{ doc: RecordDoc; vector: Float32Array }> {
    const prefixes = p === '' ? [`r${S}${account}${S}`] : [`r${S}${account}${S}${p}${S}`, `r${S}${account}${S}${p}/`];
    for (const prefix of prefixes) {
      let batch: RecordDoc[] = [];
      const flush = async function* (this: RecordStore) {
        const vecs = await this.kv.getMany(batch.map((d) => this.vecKey(account, d.id)));
        for (let i = 0; i < batch.length; i++) {
          const v = vecs[i];
          if (!v || v.length % 4 !== 0) continue;
          yield { doc: batch[i]!, vector: new Float32Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.length)) };
        }
        batch = [];
      };
      for await (const [, value] of this.kv.scanPrefix(prefix)) {
        batch.push(JSON.parse(value.toString('utf8')) as RecordDoc);
        if (batch.length >= 256) yield* flush.call(this);
      }
      if (batch.length) yield* flush.call(this);
    }
  }

  async get(account: string, p: string, level: number): Promise<RecordDoc | undefined> {
    return this.kv.getJson<RecordDoc>(this.recKey(account, p, level));
  }

  async getById(account: string, id: string): Promise<RecordDoc | undefined> {
    const loc = await this.kv.get(this.idKey(account, id));
    if (!loc) return undefined;
    const [p, level] = loc.toString('utf8').split(S);
    return this.get(account, p!, Number(level));
  }

  private remember(d: RecordDoc): void {
    const k = `${d.attrs.account}${S}${d.id}`;
    this.cache.delete(k);
    this.cache.set(k, d);
    if (this.cache.size > RecordStore.CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
  }

  getMany(account: string, ids: string[]): Promise<(RecordDoc | undefined)[]> {
    return this.readThrough(account, ids, (k) => this.cache.get(k), (d) => d, (_k, d) => this.remember(d));
  }

  /**
   * What a find's answer reads of these records (slim-records.ts), from the slim cache, else read
   * from RocksDB (then cached). Undefined for a record that is gone.
   */
  slimMany(account: string, ids: string[]): Promise<(SlimRecord | undefined)[]> {
    return this.readThrough(account, ids, (k) => this.slim.get(k), (d) => this.slimOf(account, d), (k, r) => this.slim.set(k, r));
  }

  /**
   * A cache's read-through: the records in it, the rest read from RocksDB in one go and kept —
   * unless a change was applied while reading (it may have replaced or dropped an entry with
   * something newer than what was read: then the read answers this call only).
   */
  private async readThrough<T>(account: string, ids: string[], cached: (key: string) => T | undefined, convert: (d: RecordDoc) => T, keep: (key: string, v: T) => void): Promise<(T | undefined)[]> {
    const out: (T | undefined)[] = ids.map((id) => cached(`${account}${S}${id}`));
    const missing = ids.filter((_, i) => out[i] === undefined);
    if (!missing.length) return out;
    const seen = this.changeCount;
    const got = await this.loadByLocation(account, missing);
    const unchanged = seen === this.changeCount;
    let j = 0;
    ids.forEach((id, i) => {
      if (out[i] !== undefined) return;
      const d = got[j++];
      if (!d) return;
      const v = (out[i] = convert(d));
      if (unchanged) keep(`${account}${S}${id}`, v);
    });
    return out;
  }

  /**
   * A directory's L0 and L1 records carry the same overview (~10 KB at 2,000 files, often in two
   * bytes a character): the slim form of one shares the string of the other when it is cached.
   */
  private slimOf(account: string, d: RecordDoc): SlimRecord {
    const s = slimOf(d);
    if (d.kind === 'dir' && s.overview) {
      const other = this.slim.peek(`${account}${S}${this.id(account, d.path, d.level === 0 ? 1 : 0)}`);
      if (other?.overview === s.overview) s.overview = other.overview;
    }
    return s;
  }

  /**
   * `loadMany` with the id → location step answered from `locs`, else from the index: an id is a
   * hash of account, URI and level, so the index's URI and level for it are its location. A find's
   * hits are in the index; reading their locations there (a few µs each, on this thread) saves the
   * RocksDB round trip before the records' own (~0.2-0.3 ms of a find on a loaded machine).
   */
  private async loadByLocation(account: string, ids: string[]): Promise<(RecordDoc | undefined)[]> {
    const locs = ids.map((id) => this.locs.get(`${account}${S}${id}`) ?? this.indexedLocation(account, id));
    const unknown = ids.filter((_, i) => locs[i] === undefined);
    if (unknown.length) {
      const got = await this.kv.getMany(unknown.map((id) => this.idKey(account, id)));
      let j = 0;
      ids.forEach((id, i) => {
        if (locs[i] !== undefined) return;
        const l = got[j++];
        if (!l) return;
        locs[i] = l.toString('utf8');
        this.locs.set(`${account}${S}${id}`, locs[i]!);
        if (this.locs.size > RecordStore.LOC_MAX) this.locs.delete(this.locs.keys().next().value!);
      });
    }
    return this.loadAt(account, locs);
  }

  private indexedLocation(account: string, id: string): string | undefined {
    let r: ReturnType<VectorIndex['get']> | undefined;
    try {
      r = this.index?.get(id, false);
    } catch {
      return undefined; // not an id the index can hold: RocksDB answers
    }
    if (!r || r.account !== account || !r.uri.startsWith('ctx://')) return undefined;
    return `${r.uri.slice('ctx://'.length)}${S}${r.level}`;
  }

  private async loadAt(account: string, locs: (string | undefined)[]): Promise<(RecordDoc | undefined)[]> {
    const keys = locs.map((l) => {
      if (!l) return '';
      const [p, level] = l.split(S);
      return this.recKey(account, p!, Number(level));
    });
    const docs = await this.kv.getMany(keys.map((k) => k || `r${S}-missing`));
    return docs.map((d, i) => (keys[i] && d ? (JSON.parse(d.toString('utf8')) as RecordDoc) : undefined));
  }

  /** Straight from RocksDB, bypassing the cache (consistency checks the source of truth). */
  async loadMany(account: string, ids: string[]): Promise<(RecordDoc | undefined)[]> {
    const locs = await this.kv.getMany(ids.map((id) => this.idKey(account, id)));
    return this.loadAt(
      account,
      locs.map((l) => l?.toString('utf8')),
    );
  }

  private guarded: Promise<unknown> = Promise.resolve();

  /**
   * Runs `fn` after every earlier guarded write: the check and the write of a `keepEquivalent`
   * upsert see no other guarded write in between.
   */
  guardedWrite<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.guarded.then(fn);
    this.guarded = run.catch(() => undefined);
    return run;
  }

  /**
   * Writes records with their vectors (RocksDB first, then the index). `keepEquivalent` (the
   * indexer) leaves alone a record stored meanwhile for the same source, text and embedder: vectors
   * supplied by packs or migration (`vector-records`, also guarded) are kept, not recomputed over.
   * The guard covers the check and the RocksDB commit only: the index change is queued in commit
   * order before the guard is released, so the next batch's commit overlaps this one's graph insert.
   */
  async upsert(docs: RecordDoc[], vectors: Float32Array[], opts: { keepEquivalent?: boolean } = {}): Promise<void> {
    if (!opts.keepEquivalent) return (await this.commit(docs, vectors)).indexed;
    const { indexed } = await this.guardedWrite(async () => {
      const current = await this.stored(docs);
      const keep = docs.map((d, i) => {
        const c = current[i];
        return !(c && c.sourceSha === d.sourceSha && c.text === d.text && c.embedder === d.embedder);
      });
      return this.commit(
        docs.filter((_, i) => keep[i]),
        vectors.filter((_, i) => keep[i]),
      );
    });
    return indexed;
  }

  /** The stored records at these docs' places (one multi-get), straight from RocksDB. */
  private async stored(docs: RecordDoc[]): Promise<(RecordDoc | undefined)[]> {
    const got = await this.kv.getMany(docs.map((d) => this.recKey(d.attrs.account, d.path, d.level)));
    return got.map((v) => (v ? (JSON.parse(v.toString('utf8')) as RecordDoc) : undefined));
  }

  /**
   * Commits records and vectors to RocksDB, then queues their index change (wrapped: a bare
   * promise would be awaited by the caller's `await`, holding its guard over the graph insert).
   */
  private async commit(docs: RecordDoc[], vectors: Float32Array[]): Promise<{ indexed: Promise<void> }> {
    if (!docs.length) return { indexed: Promise.resolve() };
    const ops: KvOp[] = [];
    const json: string[] = [];
    docs.forEach((d, i) => {
      const v = vectors[i]!;
      json.push(JSON.stringify(d));
      ops.push(this.kv.putOp(this.recKey(d.attrs.account, d.path, d.level), json[i]!));
      ops.push(this.kv.putOp(this.vecKey(d.attrs.account, d.id), Buffer.from(v.buffer, v.byteOffset, v.byteLength)));
      ops.push(this.kv.putOp(this.idKey(d.attrs.account, d.id), `${d.path}${S}${d.level}`));
    });
    ops.push(this.kv.putJsonOp(`meta${S}seq`, ++this.seq));
    await this.kv.batch(ops);
    this.changeCount++;
    for (const d of docs) {
      const k = `${d.attrs.account}${S}${d.id}`;
      this.cache.delete(k);
      // Filled at write, so the finds after an ingest read no record (slim-records.ts).
      this.slim.set(k, this.slimOf(d.attrs.account, d));
    }
    const dim = this.embedder.info.dim;
    const flat = new Float32Array(docs.length * dim);
    vectors.forEach((v, i) => flat.set(v, i * dim));
    const ids = docs.map((d) => d.id);
    const attrs = docs.map(indexAttrs);
    const texts = docs.map((d) => d.text);
    const indexed = this.mutateIndex(async () => {
      // A graph insert costs ~1 ms of CPU per vector: off the JS thread, and in chunks, because
      // each holds the index exclusively (searches wait for it).
      if (this.indexKind === 'hnsw') {
        for (let i = 0; i < ids.length; i += RecordStore.GRAPH_INSERT_CHUNK) {
          const j = Math.min(ids.length, i + RecordStore.GRAPH_INSERT_CHUNK);
          await this.index.upsertAsync(ids.slice(i, j), flat.subarray(i * dim, j * dim), attrs.slice(i, j));
        }
      } else this.index.upsert(ids, flat, attrs);
      this.index.upsertText(ids, texts);
    }).then(() => {
      this.scheduleSave();
      this.maybeCompact();
    });
    return { indexed };
  }

  /** Updates attributes (tags, times) without re-embedding. */
  async updateAttrs(doc: RecordDoc): Promise<void> {
    const v = await this.kv.get(this.vecKey(doc.attrs.account, doc.id));
    if (!v) return;
    await this.upsert([doc], [new Float32Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.length))]);
  }

  /** Removes the records of `p` (one level, or all levels) — and of its subtree when `subtree`. */
  async remove(account: string, p: string, opts: { level?: number; subtree?: boolean; keep?: (paths: string[]) => Promise<Set<string>> }): Promise<number> {
    let victims: RecordDoc[] = [];
    const scan = async (prefix: string) => {
      for await (const [, value] of this.kv.scanPrefix(prefix)) victims.push(JSON.parse(value.toString('utf8')) as RecordDoc);
    };
    if (opts.level !== undefined) {
      const d = await this.get(account, p, opts.level);
      if (d) victims.push(d);
    } else await scan(`r${S}${account}${S}${p}${S}`);
    if (opts.subtree) await scan(`r${S}${account}${S}${p === '' ? '' : p + '/'}`);
    if (opts.keep && victims.length) {
      const kept = await opts.keep([...new Set(victims.map((d) => d.path))]);
      victims = victims.filter((d) => !kept.has(d.path));
    }
    if (!victims.length) return 0;
    const ops: KvOp[] = [];
    for (const d of victims) {
      ops.push(this.kv.delOp(this.recKey(account, d.path, d.level)));
      ops.push(this.kv.delOp(this.vecKey(account, d.id)));
      ops.push(this.kv.delOp(this.idKey(account, d.id)));
    }
    ops.push(this.kv.putJsonOp(`meta${S}seq`, ++this.seq));
    await this.kv.batch(ops);
    this.changeCount++;
    for (const d of victims) {
      this.cache.delete(`${account}${S}${d.id}`);
      this.slim.delete(`${account}${S}${d.id}`);
    }
    await this.mutateIndex(() => void this.index.remove(victims.map((d) => d.id)));
    this.scheduleSave();
    this.maybeCompact();
    return victims.length;
  }

  /**
   * Cluster mode: records another node's leader wrote, already in RocksDB here (full keys of this
   * store's keyspace), followed into the index in the order they were applied, so a follower's index
   * equals the leader's without a rebuild (docs/scale-out.md, phase 3). A record and its vector travel
   * in one batch; one missing from the batch is read back from RocksDB, which holds the applied state.
   */
  applyReplicated(changes: ReplicatedChange[]): Promise<void> {
    this.changeCount++;
    for (const c of changes)
      if (c.kind !== 'seq') {
        this.cache.delete(`${c.account}${S}${c.id}`);
        this.slim.delete(`${c.account}${S}${c.id}`);
      }
    for (const c of changes) if (c.kind === 'seq') this.seq = c.value;
    return this.mutateIndex(async () => {
      const dim = this.embedder.info.dim;
      const removed = changes.filter((c) => c.kind === 'del').map((c) => c.id);
      if (removed.length) this.index.remove(removed);
      const puts = changes.filter((c): c is Extract<ReplicatedChange, { kind: 'put' }> => c.kind === 'put');
      const docs: RecordDoc[] = [];
      const vecs: Float32Array[] = [];
      for (const c of puts) {
        const doc = c.doc ?? (await this.getById(c.account, c.id));
        const raw = c.vector ?? (doc ? await this.kv.get(this.vecKey(c.account, c.id)) : undefined);
        if (!doc || !raw || raw.length !== dim * 4) continue;
        docs.push(doc);
        vecs.push(new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length)));
      }
      if (docs.length) {
        const flat = new Float32Array(docs.length * dim);
        vecs.forEach((v, i) => flat.set(v, i * dim));
        const ids = docs.map((d) => d.id);
        if (this.indexKind === 'hnsw') await this.index.upsertAsync(ids, flat, docs.map(indexAttrs));
        else this.index.upsert(ids, flat, docs.map(indexAttrs));
        this.index.upsertText(ids, docs.map((d) => d.text));
      }
    }).then(() => {
      this.scheduleSave();
      this.maybeCompact();
    });
  }

  /** Drops every record of an account (account deletion). */
  async dropAccount(account: string): Promise<void> {
    await this.mutateIndex(() => void this.index.removeWhere({ account }));
    this.changeCount++;
    for (const k of [...this.cache.keys()]) if (k.startsWith(account + S)) this.cache.delete(k);
    this.slim.deletePrefix(account + S);
    for (const kind of ['r', 'v', 'i', 'a']) {
      let ops: KvOp[] = [];
      for await (const [key] of this.kv.scanPrefix(`${kind}${S}${account}${S}`)) {
        ops.push(this.kv.delOp(key));
        if (ops.length >= 1000) {
          await this.kv.batch(ops);
          ops = [];
        }
      }
      await this.kv.batch([...ops, this.kv.putJsonOp(`meta${S}seq`, ++this.seq)]);
    }
    this.scheduleSave();
  }

  /** Hybrid (dense + BM25, fused in the core) when there is query text, else dense. */
  async search(query: Float32Array, text: string, k: number, filter: VectorFilter): Promise<Hit[]> {
    if (!this.loaded) await this.whenLoaded();
    if (text) {
      const done = this.searchTimer?.('hybrid');
      const hits = this.index.hybridSearch(query, text, k, filter, denseWeight(this.embedder.info.provider));
      done?.();
      return hits;
    }
    const done = this.searchTimer?.('dense');
    const p = this.index.searchAsync(query, k, filter);
    return done ? p.finally(done) : p;
  }

  /**
   * Applies index changes one at a time, in the order their RocksDB batches committed (a graph
   * insert is asynchronous, and two changes of one record must not swap).
   */
  private mutateIndex(change: () => void | Promise<void>): Promise<void> {
    const run = this.indexChain.then(change);
    this.indexChain = run.catch(() => undefined);
    return run;
  }

  /**
   * Starts a background compaction when the index asks for one: the flat store outgrew its
   * threshold (it becomes an HNSW graph) or tombstones passed a quarter of the graph. The core
   * holds the index only at the two ends, so searches and writes go on while the graph is built.
   */
  private maybeCompact(): void {
    const index = this.index;
    if (this.compaction || !index.needsCompaction()) return;
    const started = Date.now();
    const before = index.stats();
    this.log.info('vector index compaction started', { records: before.size, kind: before.kind });
    this.compaction = index.compactAsync()
      .then(() => {
        if (this.index !== index) return;
        const after = index.stats();
        this.indexKind = after.kind;
        this.compactions++;
        this.log.info('vector index compaction done', { records: after.size, kind: after.kind, ms: Date.now() - started });
        this.savedSeq = -1;
        this.scheduleSave();
      })
      .catch((err) => this.log.warn('vector index compaction failed', { error: err }))
      .finally(() => {
        this.compaction = null;
      });
  }

  /** Resolves when no compaction is running (tests, shutdown). */
  async compactionIdle(): Promise<void> {
    while (this.compaction) await this.compaction;
  }

  /**
   * Items below a directory (stat `count`), estimated from the index: each file once (its L2
   * record) and each subdirectory once (its L0 record); the directory's own record is not counted.
   * `ownerSpaces` limits the count to those spaces (a USER counts shared resources and their own).
   */
  async countUnder(account: string, p: string, ownerSpaces?: string[]): Promise<number> {
    if (!this.loaded) await this.whenLoaded();
    const n = this.index.count({ account, uriPrefixes: ['ctx://' + p], levels: [0, 2], ...(ownerSpaces ? { ownerSpaces } : {}) });
    const own = p === '' ? undefined : await this.get(account, p, 0);
    return n - (own ? 1 : 0);
  }

  id(account: string, p: string, level: 0 | 1 | 2): string {
    return recordId(account, 'ctx://' + p, level);
  }

  /** How long the last save took: the next one waits SAVE_COST_FACTOR times that (at least 2 s). */
  private lastSaveMs = 0;
  static SAVE_COST_FACTOR = 10;
  static SAVE_DELAY_MAX_MS = 60_000;

  /**
   * The index file only spares a rebuild after a crash (RocksDB is the source of truth), and a save
   * writes the whole index (~290 MB at 100k files) while holding it against inserts: saving every
   * 2 s under a steady ingest spent ~40% of the time blocked. So a save waits ten times what the
   * last one took: at most ~1/11 of the time goes to saving, whatever the size.
   */
  private scheduleSave(): void {
    if (this.saveTimer || this.closed) return;
    const delay = Math.min(RecordStore.SAVE_DELAY_MAX_MS, Math.max(2000, RecordStore.SAVE_COST_FACTOR * this.lastSaveMs));
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.save().catch((err) => this.log.warn('saving the vector index failed', { error: err }));
    }, delay);
    this.saveTimer.unref();
  }

  /**
   * Persists the index when it changed since the last save (temp file + rename, then the meta).
   * `asOf`: the change counter the index is known to reflect, when it may lag the store's.
   */
  async save(asOf?: number): Promise<void> {
    if (this.saving) await this.saving;
    const seq = asOf ?? this.seq;
    if (this.savedSeq === seq || !this.index) return;
    this.saving = (async () => {
      const started = performance.now();
      await fs.mkdir(this.dir, { recursive: true });
      await this.index.saveAsync(this.file);
      const tmp = this.metaFile + '.tmp';
      await fs.writeFile(tmp, JSON.stringify({ seq, backend: this.backends.kind, dim: this.embedder.info.dim, saved_at: Date.now(), records: this.index.stats().size }));
      await fs.rename(tmp, this.metaFile);
      this.savedSeq = seq;
      this.lastSaveMs = performance.now() - started;
    })();
    try {
      await this.saving;
    } finally {
      this.saving = null;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    // A rebuild stops at its next batch; an index that never finished loading is not saved over
    // the file it was loading from.
    await this.loadState.done;
    if (!this.loaded) return;
    await this.save();
  }
}
