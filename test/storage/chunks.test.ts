/**
 * `Kv.iterateChunks` / `scanPrefixChunks` (used by Vfs.list for big directories) yield exactly what
 * `iterate` / `scanPrefix` yield, in order, on RocksDB (native batches taken from the iterator
 * cache) and on the memory backend (the generic fallback), across several native batches.
 */
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KvBackend } from '../../runtime/storage/backend.js';
import { Kv } from '../../runtime/storage/kv.js';
import { MemoryBackend } from '../../runtime/storage/memory.js';
import { RocksDbBackend } from '../../runtime/storage/rocksdb.js';
import { tempDir } from '../helpers/app.js';

async function flat(it: AsyncIterable<[string, Buffer]>): Promise<string[]> {
  const out: string[] = [];
  for await (const [k, v] of it) out.push(`${k}=${v.toString()}`);
  return out;
}
async function flatChunks(it: AsyncIterable<Array<[string, Buffer]>>): Promise<{ rows: string[]; chunks: number }> {
  const rows: string[] = [];
  let chunks = 0;
  for await (const chunk of it) {
    chunks++;
    expect(chunk.length).toBeGreaterThan(0);
    for (const [k, v] of chunk) rows.push(`${k}=${v.toString()}`);
  }
  return { rows, chunks };
}

for (const [name, make] of [
  ['rocksdb', (dir: string) => new RocksDbBackend(dir)],
  ['memory', () => new MemoryBackend()],
] as Array<[string, (dir: string) => KvBackend]>) {
  describe(`chunked scans on ${name}`, () => {
    let dir: string;
    let kv: Kv;
    beforeEach(async () => {
      dir = tempDir('ctx-chunks-');
      kv = await Kv.open(make(dir));
      const sub = kv.sub('s');
      // 3,000 entries of ~200 bytes: more than one 256 KiB native batch on RocksDB.
      const ops = [];
      for (let i = 0; i < 3000; i++) ops.push(sub.putOp(`p\x00k${String(i).padStart(5, '0')}`, `v${i}-${'x'.repeat(190)}`));
      ops.push(sub.putOp('pz', 'outside the prefix'), kv.putOp('p\x00k', 'outside the sublevel'));
      await kv.batch(ops);
    });
    afterEach(async () => {
      await kv.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('scanPrefixChunks equals scanPrefix for plain, limit, after, reverse and reverse+after scans', async () => {
      const sub = kv.sub('s');
      for (const opts of [{}, { limit: 10 }, { after: 'k01000' }, { after: 'k01000', limit: 1500 }, { reverse: true }, { reverse: true, after: 'k02000', limit: 7 }]) {
        const expected = await flat(sub.scanPrefix('p\x00', opts));
        const got = await flatChunks(sub.scanPrefixChunks('p\x00', opts));
        expect(got.rows, JSON.stringify(opts)).toEqual(expected);
      }
      const all = await flatChunks(sub.scanPrefixChunks('p\x00'));
      expect(all.rows).toHaveLength(3000);
      expect(all.chunks).toBeGreaterThan(1);
    });

    it('an empty range yields nothing', async () => {
      expect((await flatChunks(kv.sub('s').scanPrefixChunks('nothing\x00'))).rows).toEqual([]);
    });
  });
}
