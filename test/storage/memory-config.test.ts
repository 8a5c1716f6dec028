/**
 * The memory bounds (issue 27): RocksDB's memtable and block cache sizes and the VFS metadata cache
 * are configuration, reach the real database, and bad values refuse to start.
 */
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../runtime/config.js';
import { startTestApp } from '../helpers/app.js';

describe('configuration', () => {
  test('defaults and environment', () => {
    const d = loadConfig({});
    expect([d.rocksdbWriteBufferMb, d.rocksdbBlockCacheMb, d.vfsMetaCacheEntries]).toEqual([64, 8, 100_000]);
    const c = loadConfig({ CTX_ROCKSDB_WRITE_BUFFER_MB: '16', CTX_ROCKSDB_BLOCK_CACHE_MB: '0', CTX_VFS_META_CACHE_ENTRIES: '0' });
    expect([c.rocksdbWriteBufferMb, c.rocksdbBlockCacheMb, c.vfsMetaCacheEntries]).toEqual([16, 0, 0]);
  });

  test('bad values name their variable', () => {
    expect(() => loadConfig({ CTX_ROCKSDB_WRITE_BUFFER_MB: '0' })).toThrow(/CTX_ROCKSDB_WRITE_BUFFER_MB must be between 1 and 4096/);
    expect(() => loadConfig({ CTX_ROCKSDB_WRITE_BUFFER_MB: 'lots' })).toThrow(/CTX_ROCKSDB_WRITE_BUFFER_MB must be a non-negative integer/);
    expect(() => loadConfig({ CTX_ROCKSDB_BLOCK_CACHE_MB: '-1' })).toThrow(/CTX_ROCKSDB_BLOCK_CACHE_MB must be a non-negative integer/);
    expect(() => loadConfig({ CTX_ROCKSDB_BLOCK_CACHE_MB: '70000' })).toThrow(/CTX_ROCKSDB_BLOCK_CACHE_MB must be at most 65536/);
    expect(() => loadConfig({ CTX_VFS_META_CACHE_ENTRIES: '1.5' })).toThrow(/CTX_VFS_META_CACHE_ENTRIES must be a non-negative integer/);
  });
});

const capacity = async (t: Awaited<ReturnType<typeof startTestApp>>) => {
  const text = (await t.req({ url: '/metrics' })).text;
  return Number(/^ctx_rocksdb_block_cache_capacity_bytes (\d+)$/m.exec(text)?.[1]);
};

test('the block cache size reaches RocksDB', async () => {
  const small = await startTestApp({ config: { rocksdbBlockCacheMb: 4 } });
  try {
    expect(await capacity(small)).toBe(4 * 2 ** 20);
  } finally {
    await small.close();
  }
  const dflt = await startTestApp();
  try {
    expect(await capacity(dflt)).toBe(8 * 2 ** 20);
  } finally {
    await dflt.close();
  }
});

test('without a VFS metadata cache every stat reads RocksDB and stays right', async () => {
  const t = await startTestApp({ config: { vfsMetaCacheEntries: 0, rocksdbWriteBufferMb: 1 } });
  try {
    for (const [i, content] of ['one', 'two, longer'].entries()) {
      const w = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: t.root, body: { uri: 'ctx://resources/m/a.md', content, mode: 'replace' } });
      expect(w.status, w.text).toBe(200);
      const st = await t.req({ url: '/api/v1/fs/stat?uri=ctx://resources/m/a.md', headers: t.root });
      expect(st.status).toBe(200);
      expect(st.json().result.size, `write ${i}`).toBe(Buffer.byteLength(content));
    }
  } finally {
    await t.close();
  }
});
