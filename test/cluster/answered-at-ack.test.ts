/**
 * A leader answers a request at its record's quorum ack, before the local apply
 * (runtime/cluster/shard-log.ts, docs/scale-out.md "Answered at the quorum ack"), and every read of
 * the node's store waits for that apply (`Kv`'s read barrier): over a fake stream and a store whose
 * writes the test releases, the request is answered while the store does not have it yet, a read
 * through `Kv` issued then sees it, and an apply that fails makes the read fail (503), never stale.
 */
import { describe, expect, it } from 'vitest';
import { ReadBarrier, ShardLog, type StreamIo } from '../../runtime/cluster/shard-log.js';
import type { KvOp } from '../../runtime/storage/backend.js';
import { Kv } from '../../runtime/storage/kv.js';
import { MemoryBackend } from '../../runtime/storage/memory.js';

const key = (k: string) => `vfs\x00m\x00acct\x00${k}`;
const put = (k: string, v: string): KvOp => ({ type: 'put', key: key(k), value: Buffer.from(v) });

/** A stream whose publishes are acknowledged at once (the quorum is not what is tested here). */
class AckingStream implements StreamIo {
  last = 0;
  readonly maxPayload = 1 << 20;
  readonly connected = true;
  async publish(_shard: string, _data: Buffer, expected: number): Promise<number> {
    if (expected !== this.last) throw new Error(`wrong last sequence: ${this.last}`);
    return ++this.last;
  }
  async lastSeq(): Promise<number> {
    return this.last;
  }
}

/** A store whose writes wait until the test releases (or fails) them. */
class HeldBackend extends MemoryBackend {
  held: Array<{ go: () => void; fail: (e: Error) => void }> = [];
  hold = false;
  override async write(ops: KvOp[]): Promise<void> {
    if (this.hold) await new Promise<void>((go, fail) => this.held.push({ go, fail }));
    return super.write(ops);
  }
}

async function leader() {
  const backend = new HeldBackend();
  const kv = await Kv.open(backend);
  const ahead = new ReadBarrier();
  const log = new ShardLog('0', 'me', backend, new AckingStream(), () => {});
  log.answeredAhead = (p) => ahead.track(p);
  // The replicator's part: batches to the shard, reads behind what was answered ahead.
  kv.setReplicator({ write: (ops) => log.submit(ops).then(() => {}), readBarrier: () => ahead.wait() });
  await log.takeOver();
  return { backend, kv, log };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
};

describe('a leader answers at the quorum ack; reads wait for the apply', () => {
  it('answers before the store has the write, and a read through Kv issued then sees it', async () => {
    const { backend, kv, log } = await leader();
    backend.hold = true;
    await kv.batch([put('a', 'one')]);
    // Answered: the store has not been written yet.
    expect(log.applied).toBe(0);
    expect(await backend.get(key('a'))).toBeUndefined();
    let read: Buffer | undefined | 'pending' = 'pending';
    const reading = kv.get(key('a')).then((v) => (read = v));
    await new Promise((r) => setTimeout(r, 20));
    expect(read).toBe('pending');
    await until(() => backend.held.length > 0);
    backend.held.shift()!.go();
    await reading;
    expect(read?.toString()).toBe('one');
    expect(log.applied).toBe(1);
    // Nothing ahead any more: reads go straight to the store.
    expect((kv as unknown as { barrier(): unknown }).barrier()).toBeUndefined();
  });

  it('a failed apply fails the reads that waited for it (503), never answers them stale, and the leader steps down', async () => {
    const { backend, kv, log } = await leader();
    backend.hold = true;
    await kv.batch([put('b', 'two')]);
    const reading = kv.get(key('b'));
    const listing = (async () => {
      const out: string[] = [];
      for await (const [k] of kv.iterate({ gte: 'vfs' })) out.push(k);
      return out;
    })();
    await until(() => backend.held.length > 0);
    backend.held.shift()!.fail(new Error('disk full'));
    await expect(reading).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(listing).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(log.leading).toBe(false);
  });

  it('background batches are not answered ahead: they hear once the store has them', async () => {
    const { backend, log } = await leader();
    backend.hold = true;
    let heard = false;
    const bg = log.submit([put('c', 'derived')], undefined, true).then(() => (heard = true));
    // Its window, then its record.
    await until(() => backend.held.length > 0);
    expect(heard).toBe(false);
    backend.held.shift()!.go();
    await bg;
    expect((await backend.get(key('c')))?.toString()).toBe('derived');
  });
});
