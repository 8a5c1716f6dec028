/**
 * Which record a batch rides in on a shard's leader (runtime/cluster/shard-log.ts: `submit`,
 * `submitLazy`, `beginRequest`, the background window), over a fake stream whose quorum acks the
 * test releases and fake timers: a request's record never waits behind a background record that
 * could have waited for it — background work rides in the next request's record, or gets one of its
 * own only when no request is coming — and the order of what is appended is the order submitted.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BACKGROUND_HOLD_MAX_OPS, BACKGROUND_MAX_HOLD_MS, BACKGROUND_WINDOW_MS, ShardLog, type StreamIo } from '../../runtime/cluster/shard-log.js';
import { decodeRecord } from '../../runtime/cluster/mutation-record.js';
import { MemoryBackend } from '../../runtime/storage/memory.js';

const put = (k: string) => ({ type: 'put' as const, key: `vfs\x00m\x00acct\x00${k}`, value: Buffer.from(k) });
const ack = (k: string) => ({ type: 'del' as const, key: `queues\x00m\x00q\x00${k}` });

/** A fenced stream whose publishes wait until the test acks them (the quorum round trip). */
class HeldStream implements StreamIo {
  readonly records: Buffer[] = [];
  readonly maxPayload = 1 << 20;
  readonly connected = true;
  private held: (() => void)[] = [];
  async publish(_shard: string, data: Buffer, expectedLastSeq: number): Promise<number> {
    if (expectedLastSeq !== this.records.length) throw new Error(`wrong last sequence: ${this.records.length}`);
    this.records.push(data);
    const seq = this.records.length;
    await new Promise<void>((r) => this.held.push(r));
    return seq;
  }
  async lastSeq(): Promise<number> {
    return this.records.length;
  }
  /** Publishes waiting for their ack. */
  get inFlight(): number {
    return this.held.length;
  }
  ackAll(): void {
    for (const r of this.held.splice(0)) r();
  }
  /** The keys of record `seq` (1-based), in their order. */
  keys(seq: number): string[] {
    return decodeRecord(this.records[seq - 1]!).ops.map((o) => o.key.split('\x00').at(-1)!);
  }
}

describe('a shard leader: which record carries a batch', () => {
  let stream: HeldStream;
  let log: ShardLog;

  beforeEach(async () => {
    const backend = new MemoryBackend();
    await backend.open();
    stream = new HeldStream();
    log = new ShardLog('0', 'me', backend, stream, () => {});
    await log.takeOver();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
  });
  afterEach(() => {
    log.stepDown();
    vi.useRealTimers();
  });

  /** Lets the promise chains run, then `ms` of fake time. */
  const tick = (ms = 0) => vi.advanceTimersByTimeAsync(ms);

  it('background work waits its window for a request, whose record carries it (one record, in submission order)', async () => {
    const bg = log.submit([put('summary')], undefined, true);
    log.submitLazy([ack('m1')]);
    await tick(BACKGROUND_WINDOW_MS - 2);
    expect(stream.records).toHaveLength(0);
    const req = log.submit([put('file')]);
    await tick();
    expect(stream.records).toHaveLength(1);
    stream.ackAll();
    expect(await req).toBe(1);
    expect(await bg).toBe(1);
    // Lazy ops were submitted first of all, then the batches in their order.
    expect(stream.keys(1)).toEqual(['m1', 'summary', 'file']);
  });

  it('a record carrying background batches tells its request first: the background writers hear of it a macrotask later', async () => {
    const order: string[] = [];
    const bg = log.submit([put('summary')], undefined, true).then(() => order.push('background'));
    const req = log.submit([put('file')]).then(() => {
      order.push('request');
      // The request's continuation runs on (microtasks) before any background continuation.
      return Promise.resolve().then(() => order.push('request, next hop'));
    });
    await tick();
    expect(stream.records).toHaveLength(1);
    stream.ackAll();
    await req;
    expect(order).toEqual(['request', 'request, next hop']);
    await bg;
    expect(order).toEqual(['request', 'request, next hop', 'background']);
    expect(stream.keys(1)).toEqual(['summary', 'file']);
  });

  it('background work nobody comes for gets its own record when its window is over', async () => {
    const bg = log.submit([put('vector')], undefined, true);
    await tick(BACKGROUND_WINDOW_MS - 1);
    expect(stream.records).toHaveLength(0);
    await tick(1);
    expect(stream.records).toHaveLength(1);
    stream.ackAll();
    expect(await bg).toBe(1);
  });

  it('background work arriving while a request\'s record is in flight is not sent at its ack: the next request carries it', async () => {
    const first = log.beginRequest();
    const a = log.submit([put('a')]);
    await tick();
    const bg = log.submit([put('a-summary')], undefined, true);
    stream.ackAll();
    expect(await a).toBe(1);
    first.end();
    // Acked, answered: nothing in flight while the client's next request is on its way.
    await tick(2);
    expect(stream.records).toHaveLength(1);
    expect(stream.inFlight).toBe(0);
    const b = log.submit([put('b')]);
    await tick();
    expect(stream.records).toHaveLength(2);
    stream.ackAll();
    expect(await b).toBe(2);
    expect(await bg).toBe(2);
    expect(stream.keys(2)).toEqual(['a-summary', 'b']);
  });

  it('the window restarts at each answer, and waits for a request admitted but not yet at its batch', async () => {
    const bg = log.submit([put('s')], undefined, true);
    await tick(BACKGROUND_WINDOW_MS - 1);
    const r1 = log.beginRequest();
    r1.end();
    await tick(BACKGROUND_WINDOW_MS - 1);
    expect(stream.records).toHaveLength(0);
    // A request on its way to its batch: the window is over, the record waits for it.
    const r2 = log.beginRequest();
    await tick(3);
    expect(stream.records).toHaveLength(0);
    r2.arrived();
    const req = log.submit([put('r2')]);
    await tick();
    expect(stream.records).toHaveLength(1);
    stream.ackAll();
    expect(await req).toBe(1);
    expect(await bg).toBe(1);
  });

  it('background work arriving after a request\'s ack, while that request is not answered yet (waiting for its own indexing), waits one window, not longer', async () => {
    const r = log.beginRequest();
    r.arrived();
    const a = log.submit([put('a')]);
    await tick();
    stream.ackAll();
    expect(await a).toBe(1);
    const bg = log.submit([put('a-summary')], undefined, true);
    await tick(BACKGROUND_WINDOW_MS - 1);
    expect(stream.records).toHaveLength(1);
    await tick(1);
    expect(stream.records).toHaveLength(2);
    stream.ackAll();
    expect(await bg).toBe(2);
    r.end();
  });

  it('a request that ends without a batch lets the background record go a window after its answer', async () => {
    const bg = log.submit([put('s')], undefined, true);
    const r = log.beginRequest();
    await tick(BACKGROUND_WINDOW_MS + 2);
    expect(stream.records).toHaveLength(0);
    r.end();
    await tick(BACKGROUND_WINDOW_MS - 1);
    expect(stream.records).toHaveLength(0);
    await tick(1);
    expect(stream.records).toHaveLength(1);
    stream.ackAll();
    expect(await bg).toBe(1);
  });

  it('background work never waits longer than the hold limit, whatever requests do', async () => {
    const bg = log.submit([put('s')], undefined, true);
    const stuck = log.beginRequest();
    for (let t = 0; t < BACKGROUND_MAX_HOLD_MS - 2; t += 2) {
      log.beginRequest().end();
      await tick(2);
    }
    expect(stream.records.length).toBe(0);
    await tick(2);
    expect(stream.records).toHaveLength(1);
    stream.ackAll();
    expect(await bg).toBe(1);
    stuck.end();
  });

  it('a request\'s batch queued behind a record in flight goes at its ack, carrying the background work queued with it', async () => {
    const bg1 = log.submit([put('bg1')], undefined, true);
    await tick(BACKGROUND_WINDOW_MS);
    expect(stream.inFlight).toBe(1);
    const bg2 = log.submit([put('bg2')], undefined, true);
    const req = log.submit([put('req')]);
    stream.ackAll();
    expect(await bg1).toBe(1);
    await tick();
    expect(stream.records).toHaveLength(2);
    stream.ackAll();
    expect(await req).toBe(2);
    expect(await bg2).toBe(2);
    expect(stream.keys(2)).toEqual(['bg2', 'req']);
  });

  it('lazy acks alone wait for company like background batches, and are dropped (not appended) by a step-down', async () => {
    log.submitLazy([ack('m1')]);
    await tick(BACKGROUND_WINDOW_MS - 1);
    expect(stream.records).toHaveLength(0);
    log.stepDown();
    await tick(BACKGROUND_MAX_HOLD_MS);
    expect(stream.records).toHaveLength(0);
  });
  it('large background work (a batch write\'s) is not held for a request: its own record after its window, or at once after the record in flight', async () => {
    const many = (tag: string) => Array.from({ length: BACKGROUND_HOLD_MAX_OPS + 1 }, (_, i) => put(`${tag}${i}`));
    const r = log.beginRequest();
    const big = log.submit(many('v'), undefined, true);
    await tick(BACKGROUND_WINDOW_MS);
    // A request on its way would have held small work; this goes when its window is over.
    expect(stream.records).toHaveLength(1);
    const big2 = log.submit(many('w'), undefined, true);
    stream.ackAll();
    expect(await big).toBe(1);
    await tick();
    expect(stream.records).toHaveLength(2);
    stream.ackAll();
    expect(await big2).toBe(2);
    r.end();
  });
});
