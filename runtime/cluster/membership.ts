/**
 * Membership: each node heartbeats `node.<id>` in the `ctx_members` KV bucket and watches the
 * bucket. Bucket TTL removes a dead node's record from storage, but JetStream does not tell
 * watchers when max-age expires an entry, so a peer is live while its last heartbeat (local
 * receive time) is younger than 3 heartbeats; a graceful stop deletes the record at once.
 */
import type { KV, KvWatchEntry } from '@nats-io/kv';
import type { Logger } from '../logger.js';

export interface MemberRecord {
  id: string;
  url: string;
  started_at: string;
}

export interface Peer extends MemberRecord {
  /** ms since this node last saw the peer's heartbeat. */
  last_seen_ms: number;
}

export const MEMBERS_BUCKET = 'ctx_members';
const key = (id: string) => `node.${id}`;

export class Membership {
  private readonly seen = new Map<string, { rec: MemberRecord; at: number }>();
  private timer?: NodeJS.Timeout;
  private sweeper?: NodeJS.Timeout;
  private watching?: { stop(): void };
  private stopped = false;
  /** Called when the set of live node ids changes (joined, left, expired). */
  onChange: (ids: string[]) => void = () => {};

  constructor(
    private readonly kv: KV,
    private readonly self: MemberRecord,
    private readonly heartbeatMs: number,
    private readonly log: Logger,
  ) {}

  get ttlMs(): number {
    return this.heartbeatMs * 3;
  }

  async start(): Promise<void> {
    await this.beat();
    await this.watch();
    this.timer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.floor(this.heartbeatMs / 4)));
    this.timer.unref();
    this.sweeper.unref();
  }

  /** When the watch last delivered this node's own heartbeat back (local clock). */
  private echoedAt = 0;
  private rewatching = false;

  /** Opens the bucket watch (it replays every current record first). */
  private async watch(): Promise<void> {
    const w = await this.kv.watch({ key: 'node.>' });
    this.watching = w;
    this.echoedAt = Date.now();
    void (async () => {
      for await (const e of w) this.observe(e);
    })().catch((err: unknown) => {
      if (!this.stopped && this.watching === w) this.log.error('membership watch ended', { error: err });
    });
  }

  /**
   * A watch whose consumer sat on a nats-server that died can stay silent long after the client
   * reconnected (seen: 80 s), while heartbeats still land: every peer then expires here and the
   * node places every shard on itself. Its own heartbeat not coming back within a TTL of a put
   * that succeeded is the sign: the watch is reopened.
   */
  private async rewatchIfSilent(): Promise<void> {
    if (this.stopped || this.rewatching || !this.watching || Date.now() - this.echoedAt < this.ttlMs) return;
    this.rewatching = true;
    try {
      this.log.warn('membership watch silent (this node\'s own heartbeats do not come back); reopened', { silent_ms: Date.now() - this.echoedAt });
      this.watching.stop();
      this.watching = undefined;
      await this.watch();
    } catch (err) {
      this.log.warn('membership watch could not be reopened; retried at the next heartbeat', { error: err });
      this.watching ??= { stop() {} };
    } finally {
      this.rewatching = false;
    }
  }

  /**
   * Live node ids, sorted; always includes this node while it runs. A peer's silence counts only
   * while this node can see the bucket (its own heartbeats come back): cut off from NATS it hears
   * nobody, which says nothing of the others, and expiring them would place every shard here and
   * serve reads from copies this node never held or has dropped.
   */
  liveIds(): string[] {
    const sightedUntil = Math.min(Date.now(), this.echoedAt + this.heartbeatMs);
    const ids = new Set([this.self.id]);
    for (const [id, p] of this.seen) if (sightedUntil - p.at < this.ttlMs) ids.add(id);
    return [...ids].sort();
  }

  /**
   * This node's heartbeat came back after more than two beats without (it was cut off from the
   * bucket): the blind time is added to every peer's last sighting, so a peer that kept beating is
   * not dropped before its next heartbeat arrives, and one that died meanwhile expires a TTL of
   * sight later.
   */
  private regainedSight(now: number): void {
    if (now - this.echoedAt <= 2 * this.heartbeatMs) return;
    const blind = now - (this.echoedAt + this.heartbeatMs);
    for (const [id, p] of this.seen) if (id !== this.self.id) p.at = Math.min(now, p.at + blind);
  }

  peers(): Peer[] {
    const now = Date.now();
    const out: Peer[] = [];
    for (const id of this.liveIds()) {
      const p = this.seen.get(id);
      out.push(p ? { ...p.rec, last_seen_ms: now - p.at } : { ...this.self, last_seen_ms: 0 });
    }
    return out;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearInterval(this.sweeper);
    this.watching?.stop();
    // Leaving gracefully: peers drop this node now rather than after the TTL.
    await this.kv.delete(key(this.self.id)).catch((err: unknown) => this.log.warn('could not remove the membership record', { error: err }));
  }

  private last: string[] = [];

  private async beat(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.kv.put(key(this.self.id), JSON.stringify(this.self));
      await this.rewatchIfSilent();
    } catch (err) {
      this.log.warn('membership heartbeat failed', { error: err });
    }
  }

  private observe(e: KvWatchEntry): void {
    const id = e.key.slice('node.'.length);
    if (e.operation === 'PUT') {
      try {
        const rec = JSON.parse(e.string()) as MemberRecord;
        // Local receive time, not the server's timestamp: clocks of nodes and servers may differ.
        // A dead node's record replayed at start thus counts as live for one TTL at most.
        const now = Date.now();
        if (id === this.self.id) {
          this.regainedSight(now);
          this.echoedAt = now;
        }
        this.seen.set(id, { rec, at: now });
      } catch {
        this.log.warn('ignoring an unreadable membership record', { key: e.key });
      }
    } else this.seen.delete(id);
    this.sweep();
  }

  private sweep(): void {
    const ids = this.liveIds();
    if (ids.length === this.last.length && ids.every((id, i) => id === this.last[i])) return;
    this.last = ids;
    this.onChange(ids);
  }
}
