/**
 * The hierarchical search in two calls (`prepareHierarchical[Async]` before the query vector is
 * known, `hierarchicalSearchPrepared[Async]` with it: what find runs while a remote embedder
 * answers): the same ranking as one `hierarchicalSearch`, and still the index's current answer
 * when it was written to, or replaced, in between.
 */
import { describe, expect, it } from 'vitest';
import { VectorIndex } from '../../runtime/native.js';
import { noteAttrs, noteId, noteIndex } from '../helpers/note-records.js';

const DIM = 8;
let seed = 7;
const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) - 0.5;
const unit = () => {
  const v = Array.from({ length: DIM }, rnd);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const WORDS = ['postgres', 'failover', 'runbook', 'lunch', 'team', 'weekly', 'backup', 'restore', 'index', 'vector'];
const texts = Array.from({ length: 60 }, (_, i) => `${WORDS[i % 10]} ${WORDS[(i * 3) % 10]} ${WORDS[(i * 7) % 10]} note ${i}`);
const build = () => noteIndex(texts.map(unit), texts);
const filters = [{ account: 'a' }];
const params = { alphaMin: 0.8, alphaMax: 0.95, maxHits: 12 };

describe('prepared hierarchical search', () => {
  it('ranks exactly as one call does, on the JS thread and on the pool', async () => {
    const idx = build();
    for (const text of ['postgres failover', 'lunch team note', 'nothing here', '']) {
      const q = new Float32Array(unit());
      const one = idx.hierarchicalSearch(q, text, 5, filters, filters, params);
      const prep = await idx.prepareHierarchicalAsync(text, filters, filters, params);
      expect(prep.size).toBe(60);
      expect(idx.hierarchicalSearchPrepared(prep, q, 5)).toEqual(one);
      expect(await idx.hierarchicalSearchPreparedAsync(prep, q, 5)).toEqual(one);
      // One prepared search serves any number of finishes (and the sync preparation is the same).
      expect(idx.hierarchicalSearchPrepared(idx.prepareHierarchical(text, filters, filters, params), q, 5)).toEqual(one);
      expect(one.hits.length).toBe(12);
    }
  });

  it('answers for the index as it is when written to after the preparation', async () => {
    const idx = build();
    const q = new Float32Array(unit());
    const prep = await idx.prepareHierarchicalAsync('postgres failover', filters, filters, params);
    // A new note that is the query vector itself and holds its words: it must rank first.
    idx.upsert([noteId(60)], q, [noteAttrs(60)]);
    idx.upsertText([noteId(60)], ['postgres failover']);
    const now = idx.hierarchicalSearch(q, 'postgres failover', 5, filters, filters, params);
    expect(now.hits[0]!.id).toBe(noteId(60));
    expect(idx.hierarchicalSearchPrepared(prep, q, 5)).toEqual(now);
    expect(await idx.hierarchicalSearchPreparedAsync(prep, q, 5)).toEqual(now);
    // Removed: gone from the answer, not an error about a missing record.
    idx.remove([noteId(60)]);
    const prep2 = idx.prepareHierarchical('postgres failover', filters, filters, params);
    idx.remove([noteId(0)]);
    const after = idx.hierarchicalSearchPrepared(prep2, q, 5);
    expect(after).toEqual(idx.hierarchicalSearch(q, 'postgres failover', 5, filters, filters, params));
    expect(after.hits.map((h) => h.id)).not.toContain(noteId(0));
  });

  it("on another index (the store's was replaced) it searches that one", () => {
    const a = build();
    const b = new VectorIndex({ dim: DIM });
    const q = new Float32Array(unit());
    b.upsert([noteId(0)], q, [noteAttrs(0)]);
    const prep = a.prepareHierarchical('note', filters, filters, params);
    expect(b.hierarchicalSearchPrepared(prep, q, 5).hits.map((h) => h.id)).toEqual([noteId(0)]);
  });

  it('checks its arguments: a bad weight when prepared, a bad vector or limit when finished; an unknown account finds nothing', async () => {
    const idx = build();
    expect(() => idx.prepareHierarchical('x', filters, filters, { alpha: 1.5 })).toThrow(/alpha/);
    await expect(idx.prepareHierarchicalAsync('x', filters, filters, { alphaMin: 0.9, alphaMax: 0.1 })).rejects.toThrow(/range/);
    const prep = idx.prepareHierarchical('note', filters, filters, params);
    expect(() => idx.hierarchicalSearchPrepared(prep, new Float32Array(3), 5)).toThrow(/dimension/);
    expect(() => idx.hierarchicalSearchPrepared(prep, new Float32Array(unit()), 0)).toThrow(/k must be/);
    await expect(idx.hierarchicalSearchPreparedAsync(prep, new Float32Array(DIM).fill(Number.NaN), 5)).rejects.toThrow(/non-finite/);
    const none = idx.prepareHierarchical('note', [{ account: 'zz' }], [{ account: 'zz' }], params);
    expect(none.size).toBe(0);
    expect(idx.hierarchicalSearchPrepared(none, new Float32Array(unit()), 5)).toMatchObject({ hits: [], stopReason: 'no_hits' });
  });
});
