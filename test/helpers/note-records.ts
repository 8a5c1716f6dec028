import { VectorIndex, type RecordAttrs } from '../../runtime/native.js';

/** Record ids and attributes of small hand-built indexes: note i of account `a` under ctx://resources/notes. */
export const noteId = (i: number) => (i + 1).toString(16).padStart(32, '0');
export const noteAttrs = (i: number): RecordAttrs => ({
  account: 'a',
  ownerSpace: '',
  uri: `ctx://resources/notes/n${i}.md`,
  parentUri: 'ctx://resources/notes',
  contextType: 'resource',
  level: 2,
  tags: [],
  createdAt: 0,
  updatedAt: 0,
});

/** An index of notes n0..n(k-1): note i has vectors[i] and texts[i]. */
export function noteIndex(vectors: number[][], texts: string[]): VectorIndex {
  const dim = vectors[0]!.length;
  const idx = new VectorIndex({ dim });
  const v = new Float32Array(vectors.length * dim);
  vectors.forEach((x, i) => v.set(x, i * dim));
  const ids = vectors.map((_, i) => noteId(i));
  idx.upsert(ids, v, ids.map((_, i) => noteAttrs(i)));
  idx.upsertText(ids, texts);
  return idx;
}
