/**
 * Membership's bucket watch going silent (runtime/cluster/membership.ts): after a nats-server died,
 * a watch was seen delivering nothing for 80 s while heartbeats still landed, so each node saw
 * itself alone. Over a fake KV bucket (the logic is pure over its `put`/`watch`): a watch that
 * stops delivering is reopened once this node's own heartbeat has not come back for a TTL, and the
 * peers are live again from the new watch's replay.
 */
import { describe, expect, it } from 'vitest';
import type { KV } from '@nats-io/kv';
import { Membership } from '../../runtime/cluster/membership.js';
import { createLogger } from '../../runtime/logger.js';
import { pollUntil } from '../helpers/poll.js';

interface Entry {
  key: string;
  operation: 'PUT';
  string(): string;
}

/** A KV bucket in memory whose watches can be made to go silent (`silence`). */
class FakeBucket {
  readonly values = new Map<string, string>();
  watches: Array<{ push: (e: Entry) => void; silent: boolean }> = [];
  opened = 0;
  private entry(key: string): Entry {
    const v = this.values.get(key)!;
    return { key, operation: 'PUT', string: () => v };
  }
  async put(key: string, value: string): Promise<number> {
    this.values.set(key, value);
    for (const w of this.watches) if (!w.silent) w.push(this.entry(key));
    return 1;
  }
  async delete(key: string): Promise<void> {
    this.values.delete(key);
  }
  async watch(): Promise<AsyncIterable<Entry> & { stop(): void }> {
    this.opened++;
    const queue: Entry[] = [...this.values.keys()].map((k) => this.entry(k));
    let wake: (() => void) | undefined;
    let stopped = false;
    const w = { push: (e: Entry) => (queue.push(e), wake?.()), silent: false };
    this.watches.push(w);
    return {
      stop: () => {
        stopped = true;
        this.watches = this.watches.filter((x) => x !== w);
        wake?.();
      },
      async *[Symbol.asyncIterator]() {
        while (!stopped) {
          if (queue.length) yield queue.shift()!;
          else await new Promise<void>((r) => (wake = r));
        }
      },
    };
  }
  silence(): void {
    for (const w of this.watches) w.silent = true;
  }
  /**
   * One node's connection to the bucket, which can be cut (`cut.down`): its puts fail and its
   * watches hear nothing, and what was put meanwhile is not delivered later (the harsher case).
   */
  client(cut: { down: boolean }): KV {
    return {
      put: async (key: string, value: string) => {
        if (cut.down) throw new Error('CONNECTION_REFUSED');
        this.values.set(key, value);
        for (const w of this.watches) if (!w.silent && !(w as { cut?: { down: boolean } }).cut?.down) w.push(this.entry(key));
        return 1;
      },
      delete: (key: string) => this.delete(key),
      watch: async () => {
        const w = await this.watch();
        Object.assign(this.watches[this.watches.length - 1]!, { cut });
        return w;
      },
    } as unknown as KV;
  }
}

const HEARTBEAT_MS = 40;

describe('membership watch', () => {
  it('a watch that stops delivering is reopened after a TTL without this node\'s own heartbeat; peers come back', async () => {
    const bucket = new FakeBucket();
    const a = new Membership(bucket as unknown as KV, { id: 'a', url: 'http://a', started_at: '' }, HEARTBEAT_MS, createLogger('error'));
    const b = new Membership(bucket as unknown as KV, { id: 'b', url: 'http://b', started_at: '' }, HEARTBEAT_MS, createLogger('error'));
    await a.start();
    await b.start();
    try {
      await pollUntil(() => a.liveIds().join() === 'a,b', { what: 'a sees b' });
      expect(bucket.opened).toBe(2);
      // Both watches go silent (their consumer on a dead server); the heartbeats still land.
      bucket.silence();
      await pollUntil(() => bucket.opened >= 4, { what: 'both watches reopened', timeoutMs: 5_000 });
      await pollUntil(() => a.liveIds().join() === 'a,b' && b.liveIds().join() === 'a,b', { what: 'both see each other again' });
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('a watch that keeps delivering is never reopened', async () => {
    const bucket = new FakeBucket();
    const a = new Membership(bucket as unknown as KV, { id: 'a', url: 'http://a', started_at: '' }, HEARTBEAT_MS, createLogger('error'));
    await a.start();
    try {
      await new Promise((r) => setTimeout(r, HEARTBEAT_MS * 10));
      expect(bucket.opened).toBe(1);
      expect(a.liveIds()).toEqual(['a']);
    } finally {
      await a.stop();
    }
  });

  describe('cut off from the bucket (NATS unreachable)', () => {
    // Wider beats than above: the checks below sample every few ms that nobody is ever dropped.
    const BEAT = 100;
    const member = (bucket: FakeBucket, id: string, cut = { down: false }) => ({ cut, m: new Membership(bucket.client(cut), { id, url: `http://${id}`, started_at: '' }, BEAT, createLogger('error')) });
    /** Samples `a`'s live set for `ms`, returning every distinct set seen. */
    const sample = async (m: Membership, ms: number) => {
      const seen = new Set<string>();
      for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 5))) seen.add(m.liveIds().join());
      return [...seen];
    };

    it('hearing nobody, a node drops nobody; back in sight, a peer that kept beating was never dropped', async () => {
      const bucket = new FakeBucket();
      const a = member(bucket, 'a');
      const b = member(bucket, 'b');
      await a.m.start();
      await b.m.start();
      try {
        await pollUntil(() => a.m.liveIds().join() === 'a,b', { what: 'a sees b' });
        a.cut.down = true;
        // Ten TTLs without a heartbeat from anyone, its own included: the view stands.
        expect(await sample(a.m, 10 * 3 * BEAT)).toEqual(['a,b']);
        // b still sees the bucket, and a's silence there is real: b drops a.
        expect(b.m.liveIds()).toEqual(['b']);
        a.cut.down = false;
        expect(await sample(a.m, 4 * 3 * BEAT)).toEqual(['a,b']);
        await pollUntil(() => b.m.liveIds().join() === 'a,b', { what: 'b sees a again' });
      } finally {
        await a.m.stop();
        await b.m.stop();
      }
    });

    it('a peer that died while this node was cut off expires about a TTL after sight comes back', async () => {
      const bucket = new FakeBucket();
      const a = member(bucket, 'a');
      const b = member(bucket, 'b');
      const c = member(bucket, 'c');
      for (const x of [a, b, c]) await x.m.start();
      try {
        await pollUntil(() => a.m.liveIds().join() === 'a,b,c', { what: 'a sees b and c' });
        a.cut.down = true;
        // c dies without leaving (its record is not deleted where a's watch would hear it).
        c.cut.down = true;
        await new Promise((r) => setTimeout(r, 5 * 3 * BEAT));
        expect(a.m.liveIds()).toEqual(['a', 'b', 'c']);
        a.cut.down = false;
        const back = Date.now();
        await pollUntil(() => a.m.liveIds().join() === 'a,b', { what: 'a drops c', timeoutMs: 10 * 3 * BEAT, intervalMs: 5 });
        const took = Date.now() - back;
        // Not at once (the blind time does not count against c), and within a TTL and two beats of sight.
        expect(took).toBeGreaterThanOrEqual(BEAT);
        expect(took).toBeLessThan(3 * BEAT + 2 * BEAT + 500);
      } finally {
        for (const x of [a, b, c]) await x.m.stop();
      }
    });

    it('in sight, a peer that stops beating expires after its TTL as before', async () => {
      const bucket = new FakeBucket();
      const a = member(bucket, 'a');
      const c = member(bucket, 'c');
      await a.m.start();
      await c.m.start();
      try {
        await pollUntil(() => a.m.liveIds().join() === 'a,c', { what: 'a sees c' });
        c.cut.down = true;
        const died = Date.now();
        await pollUntil(() => a.m.liveIds().join() === 'a', { what: 'a drops c', timeoutMs: 10 * 3 * BEAT, intervalMs: 5 });
        expect(Date.now() - died).toBeLessThan(3 * BEAT + 2 * BEAT + 500);
      } finally {
        await a.m.stop();
        await c.m.stop();
      }
    });
  });
});
