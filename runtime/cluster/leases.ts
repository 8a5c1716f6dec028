/**
 * Shard leadership (docs/scale-out.md, "Write path" 2): a lease per shard in the `ctx_leases` KV
 * bucket, whose TTL is the lease time. The first live replica in placement order creates an absent
 * lease (`create` succeeds for exactly one node), renews it with `update(key, value, revision)` so a
 * renewal after losing it fails, and holds it until a renewal fails or goes unrenewed for a TTL.
 * The lease says who *should* append; the stream's expected-sequence check is what makes a deposed
 * leader's append fail.
 */
import type { KV, KvWatchEntry } from '@nats-io/kv';
import type { Logger } from '../logger.js';

export const LEASES_BUCKET = 'ctx_leases';

export interface LeaseValue {
  node: string;
  url: string;
}

interface Seen {
  value: LeaseValue;
  /** Local receive time: expiry is not announced to watchers, so staleness is judged here. */
  at: number;
}

export interface LeaseEvents {
  gained(shard: string): void;
  lost(shard: string): void;
}

export class Leases {
  private readonly seen = new Map<string, Seen>();
  private readonly held = new Map<string, { revision: number; renewedAt: number }>();
  private timer?: NodeJS.Timeout;
  private watching?: { stop(): void };
  private stopped = false;
  private ticking = false;

  constructor(
    private readonly kv: KV,
    private readonly self: LeaseValue,
    readonly ttlMs: number,
    /** The shards this node should try to lead now: those where it is the first live replica. */
    private readonly candidateShards: () => string[],
    private readonly events: LeaseEvents,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const w = await this.kv.watch({ key: 'shard.>' });
    this.watching = w;
    void (async () => {
      for await (const e of w) this.observe(e);
    })().catch((err: unknown) => {
      if (!this.stopped) this.log.error('lease watch ended', { error: err });
    });
    this.timer = setInterval(() => void this.tick(), Math.max(50, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
    void this.tick();
  }

  /** The leader this node believes in (its own lease, or the last one it saw, while fresh). */
  leaderOf(shard: string): LeaseValue | undefined {
    if (this.held.has(shard)) return this.self;
    const s = this.seen.get(shard);
    return s && Date.now() - s.at < this.ttlMs ? s.value : undefined;
  }

  /**
   * `leaderOf`, asking the bucket when the watch has gone quiet (its consumer is re-created only
   * after missed heartbeats, ~10 s, e.g. when the nats-server it was on died).
   */
  async lookup(shard: string): Promise<LeaseValue | undefined> {
    const known = this.leaderOf(shard);
    if (known) return known;
    try {
      const e = await this.kv.get(`shard.${shard}`);
      if (!e || e.operation !== 'PUT') return undefined;
      const value = JSON.parse(new TextDecoder().decode(e.value)) as LeaseValue;
      this.seen.set(shard, { value, at: Date.now() });
      return value;
    } catch {
      return undefined;
    }
  }

  heldShards(): string[] {
    return [...this.held.keys()];
  }

  /** Gives a held lease up now (deleted, so the node it is handed to need not wait out the TTL). */
  async release(shard: string, why: string): Promise<void> {
    const h = this.held.get(shard);
    if (!h) return;
    this.lose(shard, why);
    await this.kv.delete(`shard.${shard}`, { previousSeq: h.revision }).catch(() => {});
  }

  holds(shard: string): boolean {
    return this.held.has(shard);
  }

  private observe(e: KvWatchEntry): void {
    const shard = e.key.slice('shard.'.length);
    if (e.operation === 'PUT') {
      try {
        this.seen.set(shard, { value: JSON.parse(new TextDecoder().decode(e.value)) as LeaseValue, at: Date.now() });
      } catch {
        this.seen.delete(shard);
      }
    } else this.seen.delete(shard);
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.ticking) return;
    this.ticking = true;
    try {
      const now = Date.now();
      const value = JSON.stringify(this.self);
      await Promise.all(
        [...this.held].map(async ([shard, h]) => {
          if (now - h.renewedAt >= this.ttlMs) return this.lose(shard, 'not renewed within the lease time');
          try {
            const revision = await this.kv.update(`shard.${shard}`, value, h.revision);
            if (this.held.get(shard) === h) this.held.set(shard, { revision, renewedAt: now });
          } catch (err) {
            // A wrong-revision failure means someone else holds it now; anything else (NATS away)
            // is retried until the lease time runs out.
            if (/wrong last sequence|10071/.test(String((err as Error).message ?? err))) this.lose(shard, 'lease taken over');
          }
        }),
      );
      await Promise.all(
        this.candidateShards().map(async (shard) => {
          if (this.held.has(shard)) return;
          const s = this.seen.get(shard);
          if (s && now - s.at < this.ttlMs && s.value.node !== this.self.node) return;
          try {
            const revision = await this.kv.create(`shard.${shard}`, value);
            if (this.stopped) return;
            this.held.set(shard, { revision, renewedAt: now });
            this.seen.set(shard, { value: this.self, at: now });
            this.log.info('shard lease taken', { shard });
            this.events.gained(shard);
          } catch {
            // Held by another node (its TTL has not run out on the server yet): next tick.
          }
        }),
      );
    } finally {
      this.ticking = false;
    }
  }

  private lose(shard: string, why: string): void {
    if (!this.held.delete(shard)) return;
    this.log.warn('shard lease lost', { shard, why });
    this.events.lost(shard);
  }

  /** Stops renewing and releases the held leases so successors need not wait out the TTL. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.watching?.stop();
    const mine = [...this.held.entries()];
    this.held.clear();
    for (const [shard] of mine) this.events.lost(shard);
    await Promise.all(mine.map(([shard, h]) => this.kv.delete(`shard.${shard}`, { previousSeq: h.revision }).catch(() => {})));
  }
}
