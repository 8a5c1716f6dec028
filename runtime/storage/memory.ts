/** In-memory backend: ordered, atomic, not durable. Used to prove the storage contract has two implementations. */
import type { KvBackend, KvOp, RangeOptions } from './backend.js';

export class MemoryBackend implements KvBackend {
  readonly name = 'memory';
  readonly supports = { durable: false, atomicBatch: true };
  private keys: string[] = [];
  private values = new Map<string, Buffer>();
  /** Same contract as the durable backends: every call on a closed store rejects. */
  private isOpen = false;

  async open(): Promise<void> {
    this.isOpen = true;
  }
  async close(): Promise<void> {
    this.isOpen = false;
  }

  private check(): void {
    if (!this.isOpen) throw new Error('memory backend is not open');
  }

  async get(key: string): Promise<Buffer | undefined> {
    this.check();
    // Copies out, as the durable backends do: a caller editing a returned buffer must not edit the store.
    return copy(this.values.get(key));
  }

  async getMany(keys: string[]): Promise<(Buffer | undefined)[]> {
    this.check();
    return keys.map((k) => copy(this.values.get(k)));
  }

  async write(ops: KvOp[]): Promise<void> {
    this.check();
    // Validate the whole batch before applying any of it: a batch is all-or-nothing.
    for (const op of ops) if (typeof op.key !== 'string' || op.key.length === 0) throw new Error('key must be a non-empty string');
    for (const op of ops) {
      const i = this.search(op.key);
      const present = this.keys[i] === op.key;
      if (op.type === 'put') {
        if (!present) this.keys.splice(i, 0, op.key);
        this.values.set(op.key, Buffer.from(op.value ?? Buffer.alloc(0)));
      } else if (present) {
        this.keys.splice(i, 1);
        this.values.delete(op.key);
      }
    }
  }

  async *iterate(opts: RangeOptions): AsyncIterable<[string, Buffer]> {
    this.check();
    const lo = opts.gte !== undefined ? this.search(opts.gte) : opts.gt !== undefined ? this.searchAfter(opts.gt) : 0;
    const hi = opts.lt !== undefined ? this.search(opts.lt) : opts.lte !== undefined ? this.searchAfter(opts.lte) : this.keys.length;
    const slice = this.keys.slice(lo, Math.max(lo, hi));
    if (opts.reverse) slice.reverse();
    const limit = opts.limit !== undefined && opts.limit >= 0 ? opts.limit : Infinity;
    let n = 0;
    for (const k of slice) {
      if (n++ >= limit) return;
      this.check();
      const v = this.values.get(k);
      if (v !== undefined) yield [k, Buffer.from(v)];
    }
  }

  async approximateSize(gte: string, lt: string): Promise<number> {
    this.check();
    let size = 0;
    for await (const [k, v] of this.iterate({ gte, lt })) size += k.length + v.length;
    return size;
  }

  private search(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      // RocksDB orders keys by their UTF-8 bytes; JS `<` compares UTF-16 units, which differs above U+FFFF.
      if (Buffer.compare(Buffer.from(this.keys[mid]!), Buffer.from(key)) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private searchAfter(key: string): number {
    const i = this.search(key);
    return this.keys[i] === key ? i + 1 : i;
  }
}

const copy = (v: Buffer | undefined) => (v === undefined ? undefined : Buffer.from(v));
