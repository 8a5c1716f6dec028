import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KvBackend, KvOp } from '../../runtime/storage/backend.js';
import { HIGH, Kv } from '../../runtime/storage/kv.js';
import { MemoryBackend } from '../../runtime/storage/memory.js';
import { RocksDbBackend } from '../../runtime/storage/rocksdb.js';
import { tempDir } from '../helpers/app.js';

async function entries(it: AsyncIterable<[string, Buffer]>): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for await (const [k, v] of it) out.push([k, v.toString()]);
  return out;
}
const keys = async (it: AsyncIterable<[string, Buffer]>) => (await entries(it)).map(([k]) => k);

for (const [name, make] of [
  ['rocksdb', (dir: string) => new RocksDbBackend(dir)],
  ['memory', () => new MemoryBackend()],
] as Array<[string, (dir: string) => KvBackend]>) {
  describe(`Kv on ${name}`, () => {
    let dir: string;
    let kv: Kv;
    beforeEach(async () => {
      dir = tempDir('ctx-kv-');
      kv = await Kv.open(make(dir));
    });
    afterEach(async () => {
      await kv.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('sublevels are isolated: same key in two sublevels, prefix-sharing names, nesting', async () => {
      const a = kv.sub('a');
      const ab = kv.sub('ab');
      const nested = a.sub('x');
      await a.put('k', 'in a');
      await ab.put('k', 'in ab');
      await nested.put('k', 'in a/x');
      await kv.put('top', 'root');
      expect((await a.get('k'))!.toString()).toBe('in a');
      expect((await ab.get('k'))!.toString()).toBe('in ab');
      expect((await nested.get('k'))!.toString()).toBe('in a/x');
      expect(await a.get('top')).toBeUndefined();
      expect(await keys(ab.iterate())).toEqual(['k']);
      // The parent sees its child's keys under the child's prefix, never a sibling's.
      expect(await keys(a.iterate())).toEqual(['k', 'x\x00k']);
      expect(await keys(nested.iterate())).toEqual(['k']);
      expect(await keys(ab.iterate({ reverse: true }))).toEqual(['k']);
      await a.del('k');
      expect(await ab.get('k')).toBeDefined();
      expect(nested.key('k')).toBe('a\x00x\x00k');
    });

    it('sublevel names must be non-empty and free of NUL', () => {
      expect(() => kv.sub('')).toThrow();
      expect(() => kv.sub('a\x00b')).toThrow();
    });

    it('iterate bounds are relative to the sublevel and never leak outside it', async () => {
      const s = kv.sub('s');
      await kv.batch([kv.putOp('r', '0'), ...['a', 'b', 'c'].map((k) => s.putOp(k, k)), kv.sub('t').putOp('a', 'other')]);
      expect(await keys(s.iterate({ gt: 'a' }))).toEqual(['b', 'c']);
      expect(await keys(s.iterate({ lte: 'b' }))).toEqual(['a', 'b']);
      expect(await keys(s.iterate({ lt: 'c', reverse: true }))).toEqual(['b', 'a']);
      expect(await keys(s.iterate({ limit: 1, reverse: true }))).toEqual(['c']);
      expect(await keys(s.iterate({ gte: 'c' }))).toEqual(['c']);
    });

    it('JSON helpers round-trip values and give undefined for missing keys', async () => {
      const s = kv.sub('json');
      const value = { n: 1, s: 'héllo \u{1F600}', nested: { arr: [1, null, true] }, nul: 'a\x00b' };
      await s.putJson('v', value);
      expect(await s.getJson('v')).toEqual(value);
      expect(await s.getJson('missing')).toBeUndefined();
      await s.batch([s.putJsonOp('w', [1, 2]), s.delOp('v')]);
      expect(await s.getJson('w')).toEqual([1, 2]);
      expect(await s.getJson('v')).toBeUndefined();
      expect((await s.getMany(['w', 'v'])).map((b) => b?.toString())).toEqual(['[1,2]', undefined]);
    });

    it('a batch may mix ops of several sublevels and is applied atomically', async () => {
      const a = kv.sub('a');
      const b = kv.sub('b');
      await kv.batch([a.putOp('1', 'x'), b.putOp('1', 'y'), a.delOp('none')]);
      expect((await a.get('1'))!.toString()).toBe('x');
      expect((await b.get('1'))!.toString()).toBe('y');
      // A batch the backend rejects (empty key) leaves nothing behind.
      await expect(kv.batch([a.putOp('2', 'x'), { type: 'put', key: '', value: Buffer.from('bad') }])).rejects.toThrow();
      expect(await a.get('2')).toBeUndefined();
      await expect(kv.batch([])).resolves.toBeUndefined();
    });

    describe('scanPrefix', () => {
      let s: Kv;
      beforeEach(async () => {
        s = kv.sub('scan');
        await s.batch(['p/a', 'p/b', 'p/c', 'p/d', 'p', 'p0', 'q/a', 'p/\u{1F600}', 'p/\uFFFD'].map((k) => s.putOp(k, k)));
      });

      it('returns exactly the keys that start with the prefix, in UTF-8 byte order', async () => {
        expect(await keys(s.scanPrefix('p/'))).toEqual(['p/a', 'p/b', 'p/c', 'p/d', 'p/\uFFFD', 'p/\u{1F600}']);
        expect(await keys(s.scanPrefix('q/'))).toEqual(['q/a']);
        expect(await keys(s.scanPrefix('z'))).toEqual([]);
      });

      it('limit and reverse', async () => {
        expect(await keys(s.scanPrefix('p/', { limit: 2 }))).toEqual(['p/a', 'p/b']);
        expect(await keys(s.scanPrefix('p/', { reverse: true, limit: 3 }))).toEqual(['p/\u{1F600}', 'p/\uFFFD', 'p/d']);
      });

      it('after is an exclusive cursor; pages concatenate to the whole scan in both directions', async () => {
        expect(await keys(s.scanPrefix('p/', { after: 'b' }))).toEqual(['p/c', 'p/d', 'p/\uFFFD', 'p/\u{1F600}']);
        expect(await keys(s.scanPrefix('p/', { after: 'bb', limit: 1 }))).toEqual(['p/c']);
        expect(await keys(s.scanPrefix('p/', { after: 'c', reverse: true }))).toEqual(['p/b', 'p/a']);
        for (const reverse of [false, true]) {
          const all = await keys(s.scanPrefix('p/', { reverse }));
          const paged: string[] = [];
          let after: string | undefined;
          for (let guard = 0; guard < 10; guard++) {
            const page = await keys(s.scanPrefix('p/', { after, limit: 2, reverse }));
            if (page.length === 0) break;
            paged.push(...page);
            after = page[page.length - 1]!.slice('p/'.length);
          }
          expect(paged).toEqual(all);
        }
      });
    });

    it('approximateSize is scoped to the sublevel prefix', async () => {
      const s = kv.sub('size');
      await s.put('a', Buffer.alloc(5000, 1));
      expect(await s.approximateSize()).toBeGreaterThanOrEqual(0);
      expect(await kv.sub('empty').approximateSize()).toBe(0);
    });
  });
}

describe('group commit (RocksDB, synced writes)', () => {
  let dir: string;
  let kv: Kv;
  beforeEach(async () => {
    dir = tempDir('ctx-kv-gc-');
    kv = await Kv.open(new RocksDbBackend(dir));
  });
  afterEach(async () => {
    await kv.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('merges many concurrent writers into fewer synced flushes; every write is acknowledged and readable', async () => {
    const s = kv.sub('gc');
    const before = { ...kv.commitStats };
    const n = 300;
    const acks = await Promise.all(Array.from({ length: n }, (_, i) => s.batch([s.putOp(`k${i}`, `v${i}`), s.putOp(`k${i}:b`, `w${i}`)]).then(() => i)));
    expect(acks).toHaveLength(n);
    const flushes = kv.commitStats.flushes - before.flushes;
    expect(flushes).toBeGreaterThanOrEqual(1);
    expect(flushes).toBeLessThan(n / 10);
    expect(kv.commitStats.maxGroup).toBeGreaterThan(1);
    expect(kv.commitStats.ops - before.ops).toBe(2 * n);
    const got = await s.getMany(Array.from({ length: n }, (_, i) => `k${i}`));
    expect(got.map((b) => b?.toString())).toEqual(Array.from({ length: n }, (_, i) => `v${i}`));
    expect(await keys(s.iterate())).toHaveLength(2 * n);
  });

  it('a failing batch in a group fails alone: its neighbours are written and acknowledged', async () => {
    const s = kv.sub('gc');
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => {
        const ops: KvOp[] = [s.putOp(`n${i}`, String(i))];
        // Batches 7 and 23 carry an op RocksDB refuses (an empty key), in the middle of the batch.
        if (i === 7 || i === 23) ops.push({ type: 'put', key: '', value: Buffer.from('x') }, s.putOp(`n${i}:after`, 'x'));
        return s.batch(ops);
      }),
    );
    results.forEach((r, i) => expect(r.status, `batch ${i}`).toBe(i === 7 || i === 23 ? 'rejected' : 'fulfilled'));
    const stored = new Set(await keys(s.iterate()));
    for (let i = 0; i < 40; i++) {
      expect(stored.has(`n${i}`), `n${i}`).toBe(i !== 7 && i !== 23);
      expect(stored.has(`n${i}:after`)).toBe(false);
    }
    // The committer keeps going afterwards.
    await s.put('later', '1');
    expect((await s.get('later'))!.toString()).toBe('1');
  });

  it('a failing group keeps write order: members are retried one at a time, before the next group', async () => {
    // Observe the real backend: the committer must never have two writes in flight, or a retried
    // earlier write could land after a later write to the same key.
    await kv.close();
    const inner = new RocksDbBackend(dir);
    let inFlight = 0;
    let maxInFlight = 0;
    const observed: KvBackend = {
      name: inner.name,
      supports: inner.supports,
      open: () => inner.open(),
      close: () => inner.close(),
      get: (k) => inner.get(k),
      getMany: (k) => inner.getMany(k),
      iterate: (o) => inner.iterate(o),
      approximateSize: (a, b) => inner.approximateSize(a, b),
      async write(ops, sync) {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        try {
          await inner.write(ops, sync);
        } finally {
          inFlight--;
        }
      },
    };
    kv = await Kv.open(observed);
    const s = kv.sub('order');
    for (let round = 0; round < 10; round++) {
      const first = s.put('blocker', String(round)); // flushed alone; the next ones queue behind it
      const group = [s.put('k', `old${round}`), s.batch([{ type: 'put', key: '', value: Buffer.from('x') }]), s.put('k2', 'x')];
      await first;
      // Queued while the failing group is in flight: must land after its members are retried.
      const later = s.put('k', `new${round}`);
      const settled = await Promise.allSettled([...group, later]);
      expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect((await s.get('k'))!.toString()).toBe(`new${round}`);
    }
    expect(maxInFlight).toBe(1);
  });

  it('rejects writes after close instead of crashing', async () => {
    const s = kv.sub('x');
    await s.put('a', '1');
    await kv.close();
    await expect(s.put('b', '2')).rejects.toThrow(/not open/);
    await expect(s.get('a')).rejects.toThrow(/not open/);
    kv = await Kv.open(new RocksDbBackend(dir));
    expect((await kv.sub('x').get('a'))!.toString()).toBe('1');
    expect(await kv.sub('x').get('b')).toBeUndefined();
  });

  it('HIGH is the largest code point (4-byte UTF-8 F4 8F BF BF)', () => {
    expect(Buffer.from(HIGH)).toEqual(Buffer.from([0xf4, 0x8f, 0xbf, 0xbf]));
  });
});
