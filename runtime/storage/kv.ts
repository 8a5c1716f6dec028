/**
 * The storage front every module uses: sublevels (each consumer gets its own key prefix), JSON
 * helpers, and group commit. Durable writes issued while a synced flush is in flight are merged into
 * the next flush, so throughput holds under concurrency while every acknowledged write is on disk.
 */
import type { KvBackend, KvOp, RangeOptions } from './backend.js';

const SEP = '\x00';
/** Upper bound for "every key with this prefix": U+10FFFF is the largest UTF-8 sequence (F4 8F BF BF). */
export const HIGH = '\u{10FFFF}';

/** Cluster mode's write path (runtime/cluster/replicator.ts). */
export interface KvReplicator {
  write(ops: KvOp[]): Promise<void>;
  /** What reads wait for first: a write answered before this node applied it; undefined = nothing. */
  readBarrier?(): Promise<void> | undefined;
}

interface Pending {
  ops: KvOp[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

class GroupCommitter {
  private queue: Pending[] = [];
  private inFlight = false;
  /** Flushes performed and ops written, for the observer. */
  stats = { flushes: 0, ops: 0, maxGroup: 0 };

  /**
   * Cluster mode's write path (runtime/cluster/replicator.ts): when set, batches go to the shard's
   * replicated log, which applies them locally after the quorum ack. Unset on a single node.
   */
  replicator: KvReplicator | undefined = undefined;

  constructor(private readonly backend: KvBackend) {}

  submit(ops: KvOp[]): Promise<void> {
    if (this.replicator) return this.replicator.write(ops);
    return new Promise((resolve, reject) => {
      this.queue.push({ ops, resolve, reject });
      if (!this.inFlight) this.flush();
    });
  }

  private flush(): void {
    const group = this.queue;
    if (group.length === 0) return;
    this.queue = [];
    this.inFlight = true;
    const ops = group.length === 1 ? group[0]!.ops : group.flatMap((p) => p.ops);
    this.stats.flushes++;
    this.stats.ops += ops.length;
    this.stats.maxGroup = Math.max(this.stats.maxGroup, group.length);
    this.backend.write(ops, true).then(
      () => {
        this.inFlight = false;
        for (const p of group) p.resolve();
        this.flush();
      },
      (err) => {
        if (group.length === 1) {
          this.inFlight = false;
          group[0]!.reject(err);
          this.flush();
          return;
        }
        // One failed batch must not fail its neighbours: retry each member alone, one after the
        // other and before the next group, so a later write to the same key still lands last.
        void (async () => {
          for (const p of group) {
            try {
              await this.backend.write(p.ops, true);
              p.resolve();
            } catch (e) {
              p.reject(e);
            }
          }
          this.inFlight = false;
          this.flush();
        })();
      },
    );
  }
}

export class Kv {
  private constructor(
    readonly backend: KvBackend,
    private readonly committer: GroupCommitter,
    readonly prefix: string,
  ) {}

  static async open(backend: KvBackend): Promise<Kv> {
    await backend.open();
    return new Kv(backend, new GroupCommitter(backend), '');
  }

  /** A child keyspace; names must not contain NUL. */
  sub(name: string): Kv {
    if (name.includes(SEP) || name.length === 0) throw new Error(`invalid sublevel name ${JSON.stringify(name)}`);
    return new Kv(this.backend, this.committer, `${this.prefix}${name}${SEP}`);
  }

  get commitStats() {
    return this.committer.stats;
  }

  /** Routes every batch of every sublevel through a replicated log (cluster mode), or back to RocksDB. */
  setReplicator(r: KvReplicator | undefined): void {
    this.committer.replicator = r;
  }

  key(k: string): string {
    return this.prefix + k;
  }

  /** Cluster mode: what a read waits for first (a write answered before it was applied here). */
  private barrier(): Promise<void> | undefined {
    return this.committer.replicator?.readBarrier?.();
  }

  get(key: string): Promise<Buffer | undefined> {
    const b = this.barrier();
    return b ? b.then(() => this.backend.get(this.prefix + key)) : this.backend.get(this.prefix + key);
  }

  getMany(keys: string[]): Promise<(Buffer | undefined)[]> {
    const b = this.barrier();
    return b ? b.then(() => this.backend.getMany(keys.map((k) => this.prefix + k))) : this.backend.getMany(keys.map((k) => this.prefix + k));
  }

  async getJson<T>(key: string): Promise<T | undefined> {
    const v = await this.get(key);
    return v === undefined ? undefined : (JSON.parse(v.toString('utf8')) as T);
  }

  put(key: string, value: Buffer | string): Promise<void> {
    return this.batch([this.putOp(key, value)]);
  }

  putJson(key: string, value: unknown): Promise<void> {
    return this.put(key, JSON.stringify(value));
  }

  del(key: string): Promise<void> {
    return this.batch([this.delOp(key)]);
  }

  putOp(key: string, value: Buffer | string): KvOp {
    return { type: 'put', key: this.prefix + key, value: typeof value === 'string' ? Buffer.from(value) : value };
  }

  putJsonOp(key: string, value: unknown): KvOp {
    return this.putOp(key, JSON.stringify(value));
  }

  delOp(key: string): KvOp {
    return { type: 'del', key: this.prefix + key };
  }

  /** Atomic and durable. Ops may come from any sublevel (they carry full keys). */
  batch(ops: KvOp[]): Promise<void> {
    if (ops.length === 0) return Promise.resolve();
    return this.committer.submit(ops);
  }

  /** Iterates keys of this sublevel; returned keys have the sublevel prefix removed. */
  async *iterate(opts: RangeOptions = {}): AsyncIterable<[string, Buffer]> {
    const p = this.prefix;
    const full: RangeOptions = { reverse: opts.reverse, limit: opts.limit };
    if (opts.gte !== undefined) full.gte = p + opts.gte;
    else if (opts.gt !== undefined) full.gt = p + opts.gt;
    else full.gte = p;
    if (opts.lt !== undefined) full.lt = p + opts.lt;
    else if (opts.lte !== undefined) full.lte = p + opts.lte;
    else full.lt = p + HIGH;
    const b = this.barrier();
    if (b) await b;
    for await (const [k, v] of this.backend.iterate(full)) yield [k.slice(p.length), v];
  }

  /**
   * Every entry whose key starts with `prefix` (within this sublevel). `after` is a cursor: the
   * scan resumes past it in the scan's direction (keys below it when `reverse`).
   */
  scanPrefix(prefix: string, opts: { limit?: number; reverse?: boolean; after?: string } = {}): AsyncIterable<[string, Buffer]> {
    if (opts.after !== undefined && opts.reverse) return this.iterate({ gte: prefix, lt: prefix + opts.after, limit: opts.limit, reverse: true });
    return this.iterate({
      gte: opts.after === undefined ? prefix : undefined,
      gt: opts.after === undefined ? undefined : prefix + opts.after,
      lt: prefix + HIGH,
      limit: opts.limit,
      reverse: opts.reverse,
    });
  }

  /** `iterate` in chunks (one await per chunk rather than per entry); same entries, same order. */
  async *iterateChunks(opts: RangeOptions = {}): AsyncIterable<Array<[string, Buffer]>> {
    const p = this.prefix;
    const full: RangeOptions = { reverse: opts.reverse, limit: opts.limit };
    if (opts.gte !== undefined) full.gte = p + opts.gte;
    else if (opts.gt !== undefined) full.gt = p + opts.gt;
    else full.gte = p;
    if (opts.lt !== undefined) full.lt = p + opts.lt;
    else if (opts.lte !== undefined) full.lte = p + opts.lte;
    else full.lt = p + HIGH;
    const n = p.length;
    const b = this.barrier();
    if (b) await b;
    if (this.backend.iterateChunks) {
      for await (const chunk of this.backend.iterateChunks(full)) {
        if (n) for (const e of chunk) e[0] = e[0].slice(n);
        yield chunk;
      }
      return;
    }
    let chunk: Array<[string, Buffer]> = [];
    for await (const [k, v] of this.backend.iterate(full)) {
      chunk.push([k.slice(n), v]);
      if (chunk.length >= 256) {
        yield chunk;
        chunk = [];
      }
    }
    if (chunk.length) yield chunk;
  }

  /** `scanPrefix` in chunks (same cursor rules). */
  scanPrefixChunks(prefix: string, opts: { limit?: number; reverse?: boolean; after?: string } = {}): AsyncIterable<Array<[string, Buffer]>> {
    if (opts.after !== undefined && opts.reverse) return this.iterateChunks({ gte: prefix, lt: prefix + opts.after, limit: opts.limit, reverse: true });
    return this.iterateChunks({
      gte: opts.after === undefined ? prefix : undefined,
      gt: opts.after === undefined ? undefined : prefix + opts.after,
      lt: prefix + HIGH,
      limit: opts.limit,
      reverse: opts.reverse,
    });
  }

  approximateSize(prefix = ''): Promise<number> {
    return this.backend.approximateSize(this.prefix + prefix, this.prefix + prefix + HIGH);
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}

export { SEP };
