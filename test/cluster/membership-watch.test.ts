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
});
