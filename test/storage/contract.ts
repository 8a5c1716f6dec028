/**
 * The storage contract (abstract-level style): every `KvBackend` must pass this suite unchanged.
 * `makeBackend(dir)` returns a fresh, unopened backend for a directory; durable backends must find
 * their data again when a new instance is made for the same directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KvBackend, KvOp, RangeOptions } from '../../runtime/storage/backend.js';

const HIGH = '\u{10FFFF}';
const buf = (s: string) => Buffer.from(s, 'utf8');
const put = (key: string, value: string | Buffer): KvOp => ({ type: 'put', key, value: typeof value === 'string' ? buf(value) : value });
const del = (key: string): KvOp => ({ type: 'del', key });

async function collect(b: KvBackend, opts: RangeOptions): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for await (const [k, v] of b.iterate(opts)) out.push([k, v.toString('utf8')]);
  return out;
}
const keysOf = async (b: KvBackend, opts: RangeOptions) => (await collect(b, opts)).map(([k]) => k);

/** Keys sorted the way every backend must order them: by their UTF-8 bytes. */
const byteSorted = (keys: string[]) => [...keys].sort((a, b) => Buffer.compare(buf(a), buf(b)));

export function runBackendContract(name: string, makeBackend: (dir: string) => KvBackend): void {
  describe(`KvBackend contract: ${name}`, () => {
    let dir: string;
    let db: KvBackend;
    const opened: KvBackend[] = [];
    const open = async () => {
      const b = makeBackend(dir);
      await b.open();
      opened.push(b);
      return b;
    };

    beforeEach(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), `ctx-contract-${name}-`));
      db = await open();
    });
    afterEach(async () => {
      for (const b of opened.splice(0)) await b.close().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('declares its capabilities', () => {
      expect(typeof db.name).toBe('string');
      expect(typeof db.supports.durable).toBe('boolean');
      expect(db.supports.atomicBatch).toBe(true);
    });

    it('get returns undefined for a missing key and the value for a present one', async () => {
      expect(await db.get('missing')).toBeUndefined();
      await db.write([put('k', 'v')], false);
      const v = await db.get('k');
      expect(Buffer.isBuffer(v)).toBe(true);
      expect(v!.toString()).toBe('v');
    });

    it('put overwrites, del removes, del of a missing key is a no-op', async () => {
      await db.write([put('k', 'one')], true);
      await db.write([put('k', 'two')], true);
      expect((await db.get('k'))!.toString()).toBe('two');
      await db.write([del('k')], true);
      expect(await db.get('k')).toBeUndefined();
      await db.write([del('never-existed')], true);
      expect(await keysOf(db, {})).toEqual([]);
    });

    it('getMany keeps the order of the keys and gives undefined for missing ones', async () => {
      await db.write([put('a', '1'), put('c', '3')], false);
      const got = await db.getMany(['c', 'b', 'a', 'c']);
      expect(got.map((v) => v?.toString())).toEqual(['3', undefined, '1', '3']);
      expect(await db.getMany([])).toEqual([]);
      expect((await db.getMany(['a'])).map((v) => v?.toString())).toEqual(['1']);
    });

    it('a batch applies its ops in order (put then del of the same key deletes it; del then put keeps it)', async () => {
      await db.write([put('x', '1'), del('x'), del('y'), put('y', '2'), put('z', 'a'), put('z', 'b')], true);
      expect(await db.get('x')).toBeUndefined();
      expect((await db.get('y'))!.toString()).toBe('2');
      expect((await db.get('z'))!.toString()).toBe('b');
    });

    it('a batch is atomic: a batch with an invalid key is rejected and leaves none of its ops behind', async () => {
      await db.write([put('keep', 'old')], true);
      for (const badKey of [undefined as unknown as string, '']) {
        const bad = [put('keep', 'new'), del('keep2'), put('other', 'x'), { type: 'put', key: badKey, value: buf('v') } as KvOp, put('zzz', 'y')];
        await expect(db.write(bad, true)).rejects.toThrow();
        expect((await db.get('keep'))!.toString()).toBe('old');
        expect(await keysOf(db, {})).toEqual(['keep']);
      }
    });

    it('stores binary values byte for byte, including NUL and invalid UTF-8', async () => {
      const bin = Buffer.from([0, 255, 254, 0, 0xc3, 0x28, 0xf4, 0x90, 0x80, 0x80, 10, 13, 0]);
      const big = Buffer.alloc(300_000);
      for (let i = 0; i < big.length; i++) big[i] = (i * 7919) & 0xff;
      await db.write([put('bin', bin), put('big', big)], true);
      expect(Buffer.compare((await db.get('bin'))!, bin)).toBe(0);
      expect(Buffer.compare((await db.get('big'))!, big)).toBe(0);
      const [, v] = (await (async () => {
        for await (const e of db.iterate({ gte: 'bin', lte: 'bin' })) return e;
      })())!;
      expect(Buffer.compare(v, bin)).toBe(0);
    });

    it('stores empty values as present, empty buffers (distinct from missing)', async () => {
      await db.write([put('empty', Buffer.alloc(0)), { type: 'put', key: 'novalue' }], true);
      const v = await db.get('empty');
      expect(v).toBeDefined();
      expect(v!.length).toBe(0);
      expect((await db.get('novalue'))?.length).toBe(0);
      expect((await db.getMany(['empty', 'nothing'])).map((x) => x?.length)).toEqual([0, undefined]);
      expect(await collect(db, {})).toEqual([
        ['empty', ''],
        ['novalue', ''],
      ]);
    });

    it('a value buffer changed by the caller after write does not change the stored value', async () => {
      const b = buf('abc');
      await db.write([put('k', b)], true);
      b[0] = 0x7a;
      expect((await db.get('k'))!.toString()).toBe('abc');
    });

    it('a buffer returned by get, getMany or iterate changed by the caller does not change the stored value', async () => {
      await db.write([put('k', 'abc')], true);
      (await db.get('k'))![0] = 0x7a;
      (await db.getMany(['k']))[0]![1] = 0x7a;
      for await (const [, v] of db.iterate({})) v[2] = 0x7a;
      expect((await db.get('k'))!.toString()).toBe('abc');
    });

    describe('ranges', () => {
      const keys = ['a', 'b', 'c', 'd', 'e'];
      beforeEach(async () => {
        await db.write(
          keys.map((k) => put(k, k.toUpperCase())),
          true,
        );
      });

      it('iterates everything in order, and in reverse', async () => {
        expect(await collect(db, {})).toEqual(keys.map((k) => [k, k.toUpperCase()]));
        expect(await keysOf(db, { reverse: true })).toEqual([...keys].reverse());
      });

      it('gte / gt / lte / lt bounds, inclusive and exclusive, present or absent keys', async () => {
        expect(await keysOf(db, { gte: 'b' })).toEqual(['b', 'c', 'd', 'e']);
        expect(await keysOf(db, { gt: 'b' })).toEqual(['c', 'd', 'e']);
        expect(await keysOf(db, { lte: 'c' })).toEqual(['a', 'b', 'c']);
        expect(await keysOf(db, { lt: 'c' })).toEqual(['a', 'b']);
        expect(await keysOf(db, { gte: 'b', lt: 'd' })).toEqual(['b', 'c']);
        expect(await keysOf(db, { gt: 'b', lte: 'd' })).toEqual(['c', 'd']);
        expect(await keysOf(db, { gt: 'bb', lt: 'dd' })).toEqual(['c', 'd']);
        expect(await keysOf(db, { gte: 'bb', lte: 'cc' })).toEqual(['c']);
        expect(await keysOf(db, { gte: 'x' })).toEqual([]);
        expect(await keysOf(db, { gt: 'c', lt: 'c' })).toEqual([]);
        expect(await keysOf(db, { gte: 'd', lt: 'b' })).toEqual([]);
      });

      it('reverse honours the same bounds', async () => {
        expect(await keysOf(db, { gte: 'b', lt: 'e', reverse: true })).toEqual(['d', 'c', 'b']);
        expect(await keysOf(db, { gt: 'b', lte: 'e', reverse: true })).toEqual(['e', 'd', 'c']);
        expect(await keysOf(db, { lt: 'c', reverse: true })).toEqual(['b', 'a']);
      });

      it('limit counts from the start of the iteration direction; 0 yields nothing', async () => {
        expect(await keysOf(db, { limit: 2 })).toEqual(['a', 'b']);
        expect(await keysOf(db, { limit: 2, reverse: true })).toEqual(['e', 'd']);
        expect(await keysOf(db, { gt: 'a', limit: 3, reverse: true })).toEqual(['e', 'd', 'c']);
        expect(await keysOf(db, { gte: 'c', limit: 10 })).toEqual(['c', 'd', 'e']);
        expect(await keysOf(db, { limit: 0 })).toEqual([]);
        expect(await keysOf(db, { limit: -1 })).toEqual(keys);
      });

      it('an iterator abandoned early releases cleanly and later operations still work', async () => {
        for await (const [k] of db.iterate({})) {
          expect(k).toBe('a');
          break;
        }
        await db.write([put('f', 'F')], true);
        expect(await keysOf(db, { gte: 'e' })).toEqual(['e', 'f']);
      });

      it('an iteration sees a consistent view while a writer changes the range', async () => {
        const seen: string[] = [];
        for await (const [k] of db.iterate({})) {
          seen.push(k);
          if (k === 'a') await db.write([del('c'), put('c', 'again'), put('ab', 'new')], true);
        }
        // Whatever a backend chooses (snapshot or live), keys come in order and never twice.
        expect(seen).toEqual(byteSorted([...new Set(seen)]));
        expect(seen).toContain('e');
      });
    });

    it('iterateChunks (optional) yields exactly what iterate yields, in non-empty chunks', async () => {
      if (!db.iterateChunks) return;
      await db.write(
        Array.from({ length: 3000 }, (_, i) => put(`c/${String(i).padStart(5, '0')}`, Buffer.alloc(120, i & 0xff))),
        true,
      );
      for (const opts of [{}, { reverse: true }, { gt: 'c/00100', lte: 'c/02500' }, { gte: 'c/00010', limit: 2100, reverse: true }, { limit: 0 }, { gte: 'd' }] as RangeOptions[]) {
        const flat: string[] = [];
        for await (const chunk of db.iterateChunks(opts)) {
          expect(chunk.length).toBeGreaterThan(0);
          for (const [k, v] of chunk) flat.push(`${k}:${v[0]}`);
        }
        const plain: string[] = [];
        for await (const [k, v] of db.iterate(opts)) plain.push(`${k}:${v[0]}`);
        expect(flat, JSON.stringify(opts)).toEqual(plain);
      }
      await db.close();
      await expect((async () => {
        for await (const _ of db.iterateChunks!({})) void _;
      })()).rejects.toThrow();
    });

    it('orders keys by UTF-8 bytes: NUL separators, BMP above surrogates, astral planes, U+10FFFF bound', async () => {
      const keys = [
        'a',
        'a\x00',
        'a\x00b',
        'a\x00\x00',
        'a\x01',
        'a/b',
        'aa',
        'é',
        '\uFF5E', // U+FF5E sorts below astral characters in UTF-8 but above their surrogates in UTF-16
        '\uFFFF',
        '\u{10000}',
        '\u{1F600}',
        '\u{10FFFE}',
        'z',
      ];
      await db.write(
        keys.map((k, i) => put(k, String(i))),
        true,
      );
      const expected = byteSorted(keys);
      expect(await keysOf(db, {})).toEqual(expected);
      expect(await keysOf(db, { reverse: true })).toEqual([...expected].reverse());
      // Astral keys come back exactly (no surrogate mangling) and are found by get.
      for (const [i, k] of keys.entries()) expect((await db.get(k))?.toString()).toBe(String(i));
      // The prefix idiom used by Kv: [p, p + U+10FFFF) is exactly the keys starting with p.
      expect(await keysOf(db, { gte: 'a\x00', lt: 'a\x00' + HIGH })).toEqual(['a\x00', 'a\x00\x00', 'a\x00b']);
      expect(await keysOf(db, { gte: 'a', lt: 'a' + HIGH })).toEqual(expected.filter((k) => k.startsWith('a')));
      expect(await keysOf(db, { gt: '\uFFFF', lt: HIGH })).toEqual(['\u{10000}', '\u{1F600}', '\u{10FFFE}']);
      expect(await keysOf(db, { gte: '\u{10000}', reverse: true, limit: 2 })).toEqual(['\u{10FFFE}', '\u{1F600}']);
    });

    it('approximateSize: a number >= 0, and 0 for an empty range', async () => {
      const big = Buffer.alloc(2000, 1);
      await db.write(
        Array.from({ length: 300 }, (_, i) => put(`s/${String(i).padStart(4, '0')}`, big)),
        true,
      );
      const size = await db.approximateSize('s/', 's/' + HIGH);
      expect(size).toBeGreaterThanOrEqual(0);
      expect(await db.approximateSize('x/', 'x/' + HIGH)).toBe(0);
      if (!db.supports.durable) expect(size).toBeGreaterThan(0);
    });

    it('every operation fails after close (no crash, no hang)', async () => {
      await db.write([put('k', 'v')], true);
      await db.close();
      await expect(db.get('k')).rejects.toThrow();
      await expect(db.getMany(['k', 'j'])).rejects.toThrow();
      await expect(db.write([put('k', 'w')], true)).rejects.toThrow();
      await expect(collect(db, {})).rejects.toThrow();
      await expect(db.approximateSize('a', 'z')).rejects.toThrow();
      // Closing twice is harmless.
      await db.close();
    });

    it('an iteration in progress when the store closes fails instead of hanging', async () => {
      await db.write(
        Array.from({ length: 3000 }, (_, i) => put(`i/${String(i).padStart(5, '0')}`, Buffer.alloc(100, 1))),
        true,
      );
      // Closed while the first read of the iteration is under way.
      const whole = expect(collect(db, {})).rejects.toThrow(); // handler attached before the close
      await db.close();
      await whole;
      // Closed in the middle of an iteration.
      await db.open();
      const it = db.iterate({ gte: 'i/' })[Symbol.asyncIterator]();
      expect((await it.next()).value?.[0]).toBe('i/00000');
      await db.close();
      await expect((async () => {
        for (let r = await it.next(); !r.done; r = await it.next());
      })()).rejects.toThrow();
      await it.return?.(undefined);
    });

    it('a closed instance can be opened again and serves its data', async () => {
      await db.write([put('k', 'v')], true);
      await db.close();
      await db.open();
      if (db.supports.durable) expect((await db.get('k'))?.toString()).toBe('v');
      await db.write([put('k2', 'v2')], true);
      expect((await db.get('k2'))?.toString()).toBe('v2');
    });

    describe('durability (durable backends)', () => {
      it('acknowledged writes, deletes and batches survive close and reopen in a new instance', async () => {
        if (!db.supports.durable) return;
        await db.write([put('a', '1'), put('b', '2'), put('c\x00d', Buffer.from([0, 1, 2]))], true);
        await db.write([del('b'), put('e', Buffer.alloc(0))], false);
        await db.write([put('\u{1F600}', 'smile')], true);
        await db.close();
        const again = await open();
        expect(await keysOf(again, {})).toEqual(byteSorted(['a', 'c\x00d', 'e', '\u{1F600}']));
        expect((await again.get('c\x00d'))!.equals(Buffer.from([0, 1, 2]))).toBe(true);
        expect((await again.get('e'))!.length).toBe(0);
        expect((await again.get('\u{1F600}'))!.toString()).toBe('smile');
      });

      it('approximateSize reports stored data once it reached disk (after reopen)', async () => {
        if (!db.supports.durable) return;
        const big = Buffer.alloc(1000);
        for (let i = 0; i < big.length; i++) big[i] = (i * 31 + 7) & 0xff;
        await db.write(
          Array.from({ length: 500 }, (_, i) => put(`s/${String(i).padStart(4, '0')}`, big)),
          true,
        );
        await db.close();
        const again = await open();
        expect(await again.approximateSize('s/', 's/' + HIGH)).toBeGreaterThan(0);
        expect(await again.approximateSize('t/', 't/' + HIGH)).toBe(0);
      });
    });
  });
}
