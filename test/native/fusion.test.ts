/**
 * Hybrid fusion in the core (docs/retrieval.md, "Scores and fusion"): without an explicit alpha the
 * dense weight follows how well the query's words match, so neither signal drags the other down.
 */
import { describe, expect, it } from 'vitest';
import type { VectorIndex } from '../../runtime/native.js';
import { noteAttrs, noteId, noteIndex } from '../helpers/note-records.js';

const id = noteId;

/**
 * n0 holds the words "postgres failover"; n1's vector is the query vector but its words are
 * unrelated; n2..n9 are filler that share common words with everything.
 */
function build(): VectorIndex {
  const filler = Array.from({ length: 8 }, (_, i) => `weekly notes number ${i} for the team`);
  return noteIndex(
    [[0, 1, 0, 0], [1, 0, 0, 0], ...filler.map(() => [0.2, 0.2, 0.9, Math.sqrt(1 - 0.04 - 0.04 - 0.81)])],
    ['postgres failover runbook for the primary', 'notes about the team lunch order', ...filler],
  );
}
const q = new Float32Array([1, 0, 0, 0]);
const filter = { account: 'a' };

describe('adaptive fusion', () => {
  it('a query whose words one document holds ranks that document first, though the dense neighbour is another', () => {
    const idx = build();
    expect(idx.hybridSearch(q, 'postgres failover', 3, filter)[0]!.id).toBe(id(0));
    // The old fixed dense weight 0.6 put the dense neighbour first.
    expect(idx.hybridSearch(q, 'postgres failover', 3, filter, { alpha: 0.6 })[0]!.id).toBe(id(1));
  });

  it('a query whose words no document holds follows the dense ranking', () => {
    const idx = build();
    const hits = idx.hybridSearch(q, 'zebra giraffe savanna', 3, filter);
    expect(hits[0]!.id).toBe(id(1));
    expect(hits.every((h) => h.score >= 0 && h.score <= 1)).toBe(true);
  });

  it('an explicit alpha still fixes the weight; out of range is an error', () => {
    const idx = build();
    expect(idx.hybridSearch(q, 'postgres failover', 3, filter, { alpha: 1 })[0]!.id).toBe(id(1));
    expect(idx.hybridSearch(q, 'postgres failover', 3, filter, { alpha: 0 })[0]!.id).toBe(id(0));
    expect(() => idx.hybridSearch(q, 'postgres failover', 3, filter, { alpha: 1.5 })).toThrow(/alpha/);
  });

  it("the caller's range (a stronger embedder's) moves the weight towards dense; a bad range is an error", () => {
    const idx = build();
    // 0.7..0.95: even a full lexical match leaves dense 0.7 of the score.
    expect(idx.hybridSearch(q, 'postgres failover', 3, filter, { alphaMin: 0.7, alphaMax: 0.95 })[0]!.id).toBe(id(1));
    expect(idx.hierarchicalSearch(q, 'postgres failover', 3, [filter], [filter], { alphaMin: 0.7, alphaMax: 0.95 }).hits[0]!.id).toBe(id(1));
    expect(() => idx.hybridSearch(q, 'x', 3, filter, { alphaMin: 0.8, alphaMax: 0.5 })).toThrow(/range/);
  });

  it('hierarchical search weighs the same way (one weight per find, over its scope)', () => {
    const idx = build();
    const r = idx.hierarchicalSearch(q, 'postgres failover', 3, [filter], [filter]);
    expect(r.hits[0]!.id).toBe(id(0));
    const dense = idx.hierarchicalSearch(q, 'postgres failover', 3, [filter], [filter], { alpha: 1 });
    expect(dense.hits[0]!.id).toBe(id(1));
  });

  it('excludeTags leaves tagged records out of every search', () => {
    const idx = build();
    idx.upsert([id(0)], new Float32Array([0, 1, 0, 0]), [{ ...noteAttrs(0), tags: ['\u0000ctx:listing'] }]);
    const f = { account: 'a', excludeTags: ['\u0000ctx:listing'] };
    expect(idx.hybridSearch(q, 'postgres failover', 10, f).map((h) => h.id)).not.toContain(id(0));
    expect(idx.searchText('postgres failover', 10, f)).toEqual([]);
    expect(idx.search(new Float32Array([0, 1, 0, 0]), 10, f).map((h) => h.id)).not.toContain(id(0));
    expect(idx.hybridSearch(q, 'postgres failover', 10, filter).map((h) => h.id)).toContain(id(0));
  });
});
