/**
 * The BM25 workload both core benches measure (bench/core-wasm.bench.ts, bench/bm25-cores.bench.ts):
 * `n` records of 60 Zipf-distributed words and queries of 4, on any core's VectorIndex, so the two
 * benches' rows stay comparable.
 */
import { mulberry32 } from './metrics-stats.js';

type VectorIndexClass = typeof import('#core-native').VectorIndex;

const WORDS = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}x`);

/** Zipf-like text: low word numbers are common, as in prose. */
export function zipfText(r: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(WORDS.length * r() ** 3)]).join(' ');
}

/** An index of `n` records (8-dimensional vectors, one account, one directory) with their texts, and `queries` queries. */
export function bm25Workload(VectorIndex: VectorIndexClass, n: number, queries: number): { idx: InstanceType<VectorIndexClass>; queries: string[] } {
  const idx = new VectorIndex({ dim: 8 });
  const r = mulberry32(n);
  const attrs = Array.from({ length: n }, (_, i) => ({ account: 'a', ownerSpace: '', uri: `ctx://resources/d/f${i}.md`, parentUri: 'ctx://resources/d', contextType: 'resource' as const, level: 2, tags: [], createdAt: 0, updatedAt: 0 }));
  const ids = Array.from({ length: n }, (_, i) => i.toString(16).padStart(32, '0'));
  const vecs = new Float32Array(n * 8).map(() => r() - 0.5);
  for (let s = 0; s < n; s += 10_000) idx.upsert(ids.slice(s, s + 10_000), vecs.subarray(s * 8, (s + 10_000) * 8), attrs.slice(s, s + 10_000));
  const texts = ids.map(() => zipfText(r, 60));
  for (let s = 0; s < n; s += 10_000) idx.upsertText(ids.slice(s, s + 10_000), texts.slice(s, s + 10_000));
  return { idx, queries: Array.from({ length: queries }, () => zipfText(r, 4)) };
}
