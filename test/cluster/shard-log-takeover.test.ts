/**
 * A shard leader catching up before it appends (runtime/cluster/shard-log.ts, `takeOver` and the
 * re-synchronization after a refused append), over a fake stream `io` that speaks the fence as
 * JetStream does and an in-memory store: the logic is pure over that interface, so the timings that
 * make it fail under load (a catch-up longer than any deadline, a lease lost and regained while one
 * runs) are set here instead of hoped for. A leader holding its lease must end up ready, never keep
 * the lease and refuse writes.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ShardLog, type StreamIo } from '../../runtime/cluster/shard-log.js';
import { encodeRecord } from '../../runtime/cluster/mutation-record.js';
import { MemoryBackend } from '../../runtime/storage/memory.js';

const put = (k: string, v: string) => ({ type: 'put' as const, key: `vfs\x00m\x00acct\x00${k}`, value: Buffer.from(v) });

/** A one-subject stream: appends fenced on its last sequence; `failLastSeq` calls of `lastSeq` throw. */
class FakeStream implements StreamIo {
  readonly records: Buffer[] = [];
  readonly maxPayload = 1 << 20;
  readonly connected = true;
  failLastSeq = 0;
  async publish(_shard: string, data: Buffer, expectedLastSeq: number): Promise<number> {
    if (expectedLastSeq !== this.records.length) throw new Error(`wrong last sequence: ${this.records.length}`);
    this.records.push(data);
    return this.records.length;
  }
  async lastSeq(): Promise<number> {
    if (this.failLastSeq > 0) {
      this.failLastSeq--;
      throw new Error('JetStream API timed out');
    }
    return this.records.length;
  }
  /** Another node's record, appended behind this one's back. */
  foreign(key: string, value: string): number {
    this.records.push(encodeRecord('other', `other.${this.records.length}`, [put(key, value)], this.maxPayload)[0]!);
    return this.records.length;
  }
}

/** What the node's consumer does: delivers the stream from `from`, in order. */
async function deliverFrom(log: ShardLog, stream: FakeStream, from: number): Promise<void> {
  for (let seq = from; seq <= stream.records.length; seq++) await log.deliver(seq, stream.records[seq - 1]!, stream.records.length - seq);
}

describe('a shard leader catching up', () => {
  let backend: MemoryBackend;
  let stream: FakeStream;
  let log: ShardLog;

  beforeEach(async () => {
    backend = new MemoryBackend();
    await backend.open();
    stream = new FakeStream();
    log = new ShardLog('0', 'me', backend, stream, () => {});
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps catching up for as long as it holds the lease, past any deadline, and is ready once the stream is applied', async () => {
    vi.useFakeTimers();
    stream.foreign('a', '1');
    stream.foreign('b', '2');
    let done = false;
    const taking = log.takeOver().then(() => (done = true));
    // The consumer delivers nothing for two minutes (a busy JetStream, a consumer being recreated).
    await vi.advanceTimersByTimeAsync(120_000);
    expect(done).toBe(false);
    expect(log.leading).toBe(true);
    expect(log.ready).toBe(false);
    await deliverFrom(log, stream, 1);
    await vi.advanceTimersByTimeAsync(1_100);
    await taking;
    expect(log.ready).toBe(true);
    vi.useRealTimers();
    expect(await log.submit([put('c', '3')])).toBe(3);
  });

  it('a catch-up that gets no delivery for 5 s has the shard\'s consumer reopened, and again while nothing comes', async () => {
    vi.useFakeTimers();
    stream.foreign('a', '1');
    let reopened = 0;
    log.restartConsumer = () => reopened++;
    const taking = log.takeOver();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(reopened).toBe(0);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(reopened).toBe(1);
    await vi.advanceTimersByTimeAsync(6_000);
    expect(reopened).toBe(2);
    // The reopened consumer delivers.
    await deliverFrom(log, stream, 1);
    await vi.advanceTimersByTimeAsync(1_100);
    await taking;
    expect(log.ready).toBe(true);
    expect(reopened).toBe(2);
  });

  it('a take-over while an earlier catch-up still runs (the lease lost and taken again) waits for that one to finish, ready', async () => {
    stream.foreign('a', '1');
    void log.takeOver();
    log.stepDown();
    let done = false;
    const again = log.takeOver().then(() => (done = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(done).toBe(false);
    await deliverFrom(log, stream, 1);
    await again;
    expect(log.leading && log.ready).toBe(true);
    expect(await log.submit([put('b', '2')])).toBe(2);
  });

  it('asking the stream for its end failing (JetStream away) is retried, not given up on', async () => {
    stream.failLastSeq = 3;
    await log.takeOver();
    expect(stream.failLastSeq).toBe(0);
    expect(log.ready).toBe(true);
  });

  it('losing the lease ends a catch-up: not ready, and no append', async () => {
    stream.foreign('a', '1');
    const taking = log.takeOver();
    log.stepDown();
    await taking;
    expect(log.ready).toBe(false);
    await expect(log.submit([put('b', '2')])).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(stream.records).toHaveLength(1);
  });

  it('an append refused by the fence (another writer appended) is answered 503; the leader applies that record, then appends behind it', async () => {
    await log.takeOver();
    expect(await log.submit([put('a', '1')])).toBe(1);
    // The consumer echoes this node's own record.
    await deliverFrom(log, stream, 1);
    const theirs = stream.foreign('x', 'theirs');
    await expect(log.submit([put('late', '1')])).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(log.ready).toBe(false);
    await deliverFrom(log, stream, theirs);
    for (let i = 0; i < 200 && !log.ready; i++) await new Promise((r) => setTimeout(r, 10));
    expect(log.ready).toBe(true);
    expect((await backend.get(put('x', '').key))?.toString()).toBe('theirs');
    expect(await backend.get(put('late', '').key)).toBeUndefined();
    expect(await log.submit([put('again', '1')])).toBe(theirs + 1);
  });
});
