import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nativeErrorCode, needsRebuild, VectorIndex, type RecordAttrs, type VectorFilter, type VectorIndexOptions } from '../../runtime/native.js';

const dir = mkdtempSync(join(tmpdir(), 'ctx-vector-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DIM = 16;
const id = (i: number) => i.toString(16).padStart(32, '0');

/** Deterministic unit vectors (mulberry32). */
function vectors(n: number, seed: number, dim = DIM): Float32Array {
  let s = seed >>> 0;
  const rnd = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    let norm = 0;
    for (let j = 0; j < dim; j++) norm += (out[i * dim + j] = rnd()) ** 2;
    norm = Math.sqrt(norm);
    for (let j = 0; j < dim; j++) out[i * dim + j]! /= norm;
  }
  return out;
}

const row = (v: Float32Array, i: number, dim = DIM) => v.slice(i * dim, (i + 1) * dim);

function attrs(account: string, i: number, extra: Partial<RecordAttrs> = {}): RecordAttrs {
  return {
    account,
    ownerSpace: i % 2 ? 'user:alice' : '',
    uri: `ctx://resources/d${i % 4}/f${i}.md`,
    parentUri: `ctx://resources/d${i % 4}`,
    contextType: 'resource',
    level: 2,
    tags: [`t=${i % 3}`],
    createdAt: 1_000 + i,
    updatedAt: 2_000 + i,
    ...extra,
  };
}

/** Two accounts with interleaved, near-identical vectors: a leak would show up at the top. */
function twoAccounts(n = 200, opts: Partial<VectorIndexOptions> = {}) {
  const idx = new VectorIndex({ dim: DIM, ...opts });
  const v = vectors(n, 1);
  const ids = Array.from({ length: n }, (_, i) => id(i));
  idx.upsert(ids, v, ids.map((_, i) => attrs(i % 2 ? 'beta' : 'acme', i)));
  return { idx, v, ids };
}

function bruteForce(idx: VectorIndex, q: Float32Array, k: number, f: VectorFilter): string[] {
  const scored = idx.ids(f).map((rid) => {
    const vec = idx.get(rid)!.vector!;
    let s = 0;
    for (let j = 0; j < vec.length; j++) s += vec[j]! * q[j]!;
    return { rid, s };
  });
  scored.sort((a, b) => b.s - a.s);
  return scored.slice(0, k).map((x) => x.rid);
}

describe('VectorIndex (core-native)', () => {
  it('search returns only the filtered account, exact in flat mode', () => {
    const { idx, v } = twoAccounts();
    expect(idx.stats()).toMatchObject({ size: 200, dim: DIM, kind: 'flat' });
    for (const qi of [1, 2, 7]) {
      const q = row(v, qi);
      for (const account of ['acme', 'beta']) {
        const hits = idx.search(q, 10, { account });
        expect(hits).toHaveLength(10);
        for (const h of hits) expect(idx.get(h.id, false)!.account).toBe(account);
        expect(hits.map((h) => h.id)).toEqual(bruteForce(idx, q, 10, { account }));
      }
      // The query's own record is first in its account and absent from the other.
      const own = qi % 2 ? 'beta' : 'acme';
      expect(idx.search(q, 1, { account: own })[0]).toMatchObject({ id: id(qi) });
      expect(idx.search(q, 100, { account: own === 'acme' ? 'beta' : 'acme' }).map((h) => h.id)).not.toContain(id(qi));
    }
    expect(idx.search(row(v, 0), 5, { account: 'nobody' })).toEqual([]);
    expect(idx.count({ account: 'acme' })).toBe(100);
  });

  it('filters: prefixes, owner spaces, types, levels, tags, time, peer, exclusions', () => {
    const { idx } = twoAccounts();
    const c = (f: Omit<VectorFilter, 'account'>) => idx.count({ account: 'acme', ...f });
    expect(c({ uriPrefixes: ['ctx://resources/d0'] })).toBe(50);
    expect(c({ uriPrefixes: ['ctx://resources/d0/', 'ctx://resources/d2'] })).toBe(100);
    expect(c({ uriPrefixes: ['ctx://resources/d'] })).toBe(0);
    expect(c({ uriPrefixes: ['ctx://resources/d0/f4.md'] })).toBe(1);
    expect(c({ excludeUriPrefixes: ['ctx://resources/d0'] })).toBe(50);
    expect(c({ ownerSpaces: ['user:alice'] })).toBe(0); // acme holds the even records
    expect(c({ ownerSpaces: [''] })).toBe(100);
    expect(c({ contextTypes: ['memory'] })).toBe(0);
    expect(c({ contextTypes: ['resource', 'memory'] })).toBe(100);
    expect(c({ levels: [0, 1] })).toBe(0);
    expect(c({ tags: ['t=0'] })).toBe(34);
    expect(c({ tags: ['t=0', 't=1'] })).toBe(0);
    expect(c({ since: 2_100, until: 2_149 })).toBe(25);
    expect(c({ timeField: 'createdAt', until: 1_009 })).toBe(5);
    expect(c({ peer: 'p1' })).toBe(0);
    // A filter for one account never reaches the other, whatever else it says.
    expect(idx.count({ account: 'beta', uriPrefixes: ['ctx://resources/d0'] })).toBe(0);
    expect(idx.count({ account: 'beta', uriPrefixes: ['ctx://resources/d1'] })).toBe(50);
  });

  it('update replaces vector and attributes; remove and removeWhere', async () => {
    const { idx, v } = twoAccounts();
    const target = row(v, 10);
    idx.upsert([id(3)], target, [attrs('acme', 3, { uri: 'ctx://resources/moved.md', tags: ['k=v'], peer: 'p1' })]);
    expect(idx.get(id(3), false)).toMatchObject({ account: 'acme', uri: 'ctx://resources/moved.md', tags: ['k=v'], peer: 'p1' });
    expect(idx.count({ account: 'beta' })).toBe(99);
    const top2 = idx.search(target, 2, { account: 'acme' }).map((h) => h.id).sort();
    expect(top2).toEqual([id(3), id(10)].sort());
    expect(idx.ids({ account: 'acme', peer: 'p1' })).toEqual([id(3)]);
    expect(idx.remove([id(3), id(10), id(9999)])).toBe(2);
    expect(idx.get(id(3))).toBeNull();
    expect(idx.search(target, 5, { account: 'acme' }).map((h) => h.id)).not.toContain(id(10));
    expect(idx.removeWhere({ account: 'beta' })).toBe(99);
    expect(idx.count({ account: 'beta' })).toBe(0);
    expect(idx.stats().size).toBe(99);
    expect(await idx.searchAsync(target, 3, { account: 'beta' })).toEqual([]);
  });

  it('HNSW above the threshold: accounts isolated, tombstones, compaction, selective filters go exact', async () => {
    const n = 1_500;
    const idx = new VectorIndex({ dim: DIM, flatThreshold: 600, exactMaxCandidates: 150, buildThreads: 1 });
    const v = vectors(n, 3);
    const ids = Array.from({ length: n }, (_, i) => id(i));
    await idx.upsertAsync(ids, v, ids.map((_, i) => attrs(i % 3 ? 'acme' : 'beta', i)));
    expect(idx.stats().kind).toBe('hnsw');
    let found = 0;
    for (let qi = 0; qi < 30; qi++) {
      const q = row(v, qi);
      const { hits, plan } = idx.searchExplain(q, 10, { account: 'beta' }, { ef: 128 });
      expect(plan).toBe('graph');
      for (const h of hits) expect(idx.get(h.id, false)!.account).toBe('beta');
      const truth = new Set(bruteForce(idx, q, 10, { account: 'beta' }));
      found += hits.filter((h) => truth.has(h.id)).length;
    }
    expect(found / 300).toBeGreaterThan(0.9);
    const selective: VectorFilter = { account: 'beta', uriPrefixes: ['ctx://resources/d1'], tags: ['t=0'] };
    const sel = idx.searchExplain(row(v, 0), 5, selective);
    expect(['exact', 'exact-quantized']).toContain(sel.plan);
    expect(sel.hits.map((h) => h.id)).toEqual(bruteForce(idx, row(v, 0), 5, selective));
    // Re-upserting with new vectors leaves tombstones until compaction.
    const nv = vectors(500, 9);
    await idx.upsertAsync(ids.slice(0, 500), nv, ids.slice(0, 500).map((_, i) => attrs(i % 3 ? 'acme' : 'beta', i)));
    expect(idx.stats().deleted).toBe(500);
    expect(idx.search(row(nv, 4), 1, { account: 'acme' })[0]!.id).toBe(id(4));
    await idx.compactAsync();
    expect(idx.stats()).toMatchObject({ deleted: 0, size: n, kind: 'hnsw' });
    expect(idx.search(row(nv, 4), 1, { account: 'acme' })[0]!.id).toBe(id(4));
    const many = await idx.searchMany(nv.slice(0, 4 * DIM), 4, 1, { account: 'acme' });
    expect(many.map((h) => h[0]!.id)).toEqual([id(0), id(1), id(2), id(3)].map((x, i) => (i % 3 ? x : many[i]![0]!.id)));
    expect(many[1]![0]!.id).toBe(id(1));
  });

  it('sync upsert leaves the flat-to-graph build to compactAsync', async () => {
    const idx = new VectorIndex({ dim: DIM, flatThreshold: 300, buildThreads: 1 });
    const v = vectors(400, 5);
    const ids = Array.from({ length: 400 }, (_, i) => id(i));
    idx.upsert(ids, v, ids.map((_, i) => attrs('acme', i)));
    expect(idx.stats().kind).toBe('flat');
    expect(idx.needsCompaction()).toBe(true);
    expect(idx.search(row(v, 9), 1, { account: 'acme' })[0]!.id).toBe(id(9));
    await idx.compactAsync();
    expect(idx.stats()).toMatchObject({ kind: 'hnsw', size: 400 });
    expect(idx.needsCompaction()).toBe(false);
    expect(idx.search(row(v, 9), 1, { account: 'acme' })[0]!.id).toBe(id(9));
  });

  it('persists and reloads (atomic file, same answers); corrupt and truncated files are clear errors', async () => {
    const { idx, v, ids } = twoAccounts(300);
    idx.upsertText(ids, ids.map((_, i) => `document ${i} about ${i % 5 === 0 ? 'penguins' : 'lighthouses'}`));
    const path = join(dir, 'index.bin');
    await idx.saveAsync(path);
    const back = await VectorIndex.loadAsync(path);
    expect(back.stats().size).toBe(300);
    for (const account of ['acme', 'beta']) {
      expect(back.search(row(v, 5), 7, { account })).toEqual(idx.search(row(v, 5), 7, { account }));
      expect(back.searchText('penguins', 5, { account })).toEqual(idx.searchText('penguins', 5, { account }));
    }
    expect(back.get(id(8))).toEqual(idx.get(id(8)));
    const bytes = readFileSync(path);
    bytes[bytes.length >> 1] ^= 0xff;
    writeFileSync(path, bytes);
    const failsWith = async (p: Promise<unknown>, code: string, message: RegExp) => {
      const e = await p.then(() => undefined, (x: unknown) => x);
      expect(e).toBeInstanceOf(Error);
      expect((e as Error).message).toMatch(message);
      expect(nativeErrorCode(e)).toBe(code);
      return e;
    };
    const err = await failsWith(VectorIndex.loadAsync(path), 'VECTOR_INDEX_CORRUPT', /checksum|corrupt|truncated/i);
    expect(needsRebuild(err)).toBe(true);
    writeFileSync(path, bytes.subarray(0, 100));
    await failsWith(VectorIndex.loadAsync(path), 'VECTOR_INDEX_CORRUPT', /./);
    writeFileSync(path, 'not an index at all, but long enough to have a trailer');
    await failsWith(VectorIndex.loadAsync(path), 'VECTOR_INDEX_CORRUPT', /./);
    await failsWith(VectorIndex.loadAsync(join(dir, 'missing.bin')), 'VECTOR_INDEX_NOT_FOUND', /./);
  });

  it('BM25 and hybrid search honour the filter; hybrid scores lie in [0, 1]', () => {
    const { idx, v, ids } = twoAccounts(40);
    idx.upsertText(ids, ids.map((_, i) => (i === 4 || i === 5 ? 'kernel panic in the scheduler' : `note ${i} about gardening`)));
    const acme = idx.searchText('scheduler panic', 10, { account: 'acme' });
    expect(acme.map((h) => h.id)).toEqual([id(4)]);
    expect(idx.searchText('scheduler panic', 10, { account: 'beta' }).map((h) => h.id)).toEqual([id(5)]);
    expect(idx.searchText('scheduler', 10, { account: 'acme', uriPrefixes: ['ctx://resources/d1'] })).toEqual([]);
    const hybrid = idx.hybridSearch(row(v, 0), 'scheduler panic', 5, { account: 'acme' });
    expect(hybrid).toHaveLength(5);
    for (const h of hybrid) {
      expect(h.score).toBeGreaterThanOrEqual(0);
      expect(h.score).toBeLessThanOrEqual(1);
      expect(idx.get(h.id, false)!.account).toBe('acme');
    }
    // Record 4 matches the text best; record 0 is the query vector itself.
    expect(hybrid.slice(0, 2).map((h) => h.id).sort()).toEqual([id(0), id(4)].sort());
    expect(() => idx.upsertText([id(999)], ['x'])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => idx.hybridSearch(row(v, 0), 'x', 5, { account: 'acme' }, { alpha: 2 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('async variants run off the JS thread and agree with the sync ones', async () => {
    const { idx, v } = twoAccounts();
    const q = row(v, 6);
    const [a, many] = await Promise.all([idx.searchAsync(q, 5, { account: 'acme' }), idx.searchMany(v.slice(0, 3 * DIM), 3, 4, { account: 'beta' })]);
    expect(a).toEqual(idx.search(q, 5, { account: 'acme' }));
    expect(many).toEqual([0, 1, 2].map((i) => idx.search(row(v, i), 4, { account: 'beta' })));
  });

  it('rejects bad input with INVALID_ARGUMENT and changes nothing', async () => {
    const { idx } = twoAccounts(10);
    const bad = (fn: () => unknown) => {
      let e: unknown;
      try {
        fn();
      } catch (x) {
        e = x;
      }
      expect(nativeErrorCode(e)).toBe('INVALID_ARGUMENT');
    };
    bad(() => idx.search(new Float32Array(3), 5, { account: 'acme' }));
    bad(() => idx.search(new Float32Array(DIM), 0, { account: 'acme' }));
    bad(() => idx.search(new Float32Array(DIM), 5, { account: '' }));
    bad(() => idx.upsert(['xyz'], new Float32Array(DIM), [attrs('acme', 1)]));
    bad(() => idx.upsert([id(50)], new Float32Array(DIM).fill(Number.NaN), [attrs('acme', 1)]));
    bad(() => idx.upsert([id(50)], new Float32Array(DIM), [attrs('acme', 1, { contextType: 'nope' as 'memory' })]));
    bad(() => idx.upsert([id(50), id(51)], new Float32Array(DIM), [attrs('acme', 1), attrs('acme', 2)]));
    bad(() => idx.count({ account: 'acme', timeField: 'bogus' as 'createdAt' }));
    await expect(idx.searchAsync(new Float32Array(2), 1, { account: 'acme' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/dimension|floats/) });
    expect(idx.stats().size).toBe(10);
    expect(() => new VectorIndex({ dim: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
