/**
 * The fusion's dense-weight range per embedder (plugins/retrieval/store.ts `denseWeight`,
 * docs/retrieval.md "Scores and fusion"): with the lexical embedder BM25 leads and the dense score
 * only reorders near-ties, because that embedder's cosines carry no meaning BM25 lacks; the neural
 * range is unchanged.
 */
import { describe, expect, it } from 'vitest';
import type { VectorIndex } from '../../runtime/native.js';
import { noteId, noteIndex } from '../helpers/note-records.js';
import { denseWeight } from '../../plugins/retrieval/store.js';

const id = noteId;

/**
 * The query vector is [1, 0, 0, 0]. n0 holds one of the query's words, its vector unrelated; n1's
 * vector is the query's but none of its words; n2 has n0's words (same BM25) and a vector halfway
 * to the query's; n3..n9 are filler.
 */
function build(): VectorIndex {
  const filler = Array.from({ length: 7 }, (_, i) => `weekly notes number ${i} for the team`);
  return noteIndex(
    [[0, 1, 0, 0], [1, 0, 0, 0], [Math.SQRT1_2, Math.SQRT1_2, 0, 0], ...filler.map(() => [0, 0, 1, 0])],
    ['the failover checklist', 'notes about the team lunch order', 'the failover handbook', ...filler],
  );
}
const q = new Float32Array([1, 0, 0, 0]);
const filter = { account: 'a' };
// One word of four is in the collection: a low lexical confidence, where the range weighs dense most.
const partial = 'postgres failover replica promotion';

describe('denseWeight', () => {
  it('gives the lexical embedder 0..0.2 and the neural and remote ones 0.8..0.95', () => {
    expect(denseWeight('local')).toEqual({ alphaMin: 0, alphaMax: 0.2 });
    expect(denseWeight('neural')).toEqual({ alphaMin: 0.8, alphaMax: 0.95 });
    expect(denseWeight('openai')).toEqual({ alphaMin: 0.8, alphaMax: 0.95 });
  });

  it('with the lexical range a dense neighbour without the query words cannot displace the documents BM25 found', () => {
    const idx = build();
    const lexical = idx.hybridSearch(q, partial, 3, filter, denseWeight('local')).map((h) => h.id);
    expect(lexical.slice(0, 2).sort()).toEqual([id(0), id(2)]);
    // The former lexical range (0.3..0.7) put the word-less dense neighbour above a BM25 hit.
    expect(idx.hybridSearch(q, partial, 3, filter, { alphaMin: 0.3, alphaMax: 0.7 }).map((h) => h.id).slice(0, 2)).toEqual([id(2), id(1)]);
    // find resolves the same weight over its scope.
    const found = idx.hierarchicalSearch(q, partial, 3, [filter], [filter], denseWeight('local')).hits.map((h) => h.id);
    expect(found.slice(0, 2).sort()).toEqual([id(0), id(2)]);
  });

  it('with the lexical range the dense score still orders BM25 ties and decides when no word matches', () => {
    const idx = build();
    // n0 and n2 have the same BM25; n2's vector is nearer the query's.
    expect(idx.hybridSearch(q, partial, 3, filter, denseWeight('local'))[0]!.id).toBe(id(2));
    expect(idx.hybridSearch(q, 'zebra giraffe savanna', 3, filter, denseWeight('local'))[0]!.id).toBe(id(1));
  });
});
