import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hash, nativeErrorCode } from '../../runtime/native.js';

const nodeSha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const dir = mkdtempSync(join(tmpdir(), 'ctx-hash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('core-native sha256', () => {
  const buffers = [Buffer.alloc(0), Buffer.from('abc'), Buffer.alloc(1 << 20, 7), Buffer.from('héllo 🌍')];

  it('hashMany matches node:crypto, sync and async, in order', async () => {
    const expected = buffers.map(nodeSha);
    expect(hash.sha256Many(buffers)).toEqual(expected);
    expect(await hash.sha256ManyAsync(buffers)).toEqual(expected);
    expect(hash.sha256Many([])).toEqual([]);
  });

  it('hashes files across read-chunk boundaries, sync and parallel', async () => {
    const sizes = [0, 1, 256 * 1024, 256 * 1024 + 1, 3 * 1024 * 1024 + 5];
    const paths = sizes.map((size, i) => {
      const p = join(dir, `f${i}.bin`);
      const data = Buffer.alloc(size);
      for (let j = 0; j < size; j++) data[j] = (j * 131 + i) & 0xff;
      writeFileSync(p, data);
      return { p, data };
    });
    for (const { p, data } of paths) {
      expect(hash.sha256File(p)).toEqual({ sha256: nodeSha(data), size: data.length });
    }
    const all = await hash.sha256Files(paths.map((x) => x.p), 2);
    expect(all).toEqual(paths.map(({ data }) => ({ sha256: nodeSha(data), size: data.length })));
  });

  it('reports a missing file with its path, never crashing', async () => {
    const missing = join(dir, 'nope.bin');
    expect(() => hash.sha256File(missing)).toThrow(/nope\.bin/);
    const err = await hash.sha256Files([missing]).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/nope\.bin/);
    expect(nativeErrorCode(err)).toBe('IO');
  });

  it('rejects wrong argument types with a TypeError-like error instead of aborting', () => {
    expect(() => hash.sha256Many(['not a buffer' as unknown as Buffer])).toThrow();
  });
});
