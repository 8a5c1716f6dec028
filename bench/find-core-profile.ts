/**
 * Where the core's prepared hierarchical search spends its time at the bench's 2,000-file shape,
 * in-process (random unit vectors, the synthetic corpus's texts and tree): the whole call, with the
 * hits cut to one (the JS objects of the head), and without expansions (the global and navigation
 * passes alone), and the whole call with the caches emptied before it. `npx tsx bench/find-core-profile.ts`
 * (issue 27, speed7; [--native PATH] another build of core-native's .node, for a before/after).
 */
import { createRequire } from 'node:module';
import { doc } from './synthetic-corpus.js';
const require = createRequire(import.meta.url);
const nativeAt = process.argv.indexOf('--native');
const { VectorIndex } = require(nativeAt > 0 ? process.argv[nativeAt + 1]! : '../core-native/index.cjs');
const dim = 256;
const idx = new VectorIndex({ dim, metric: 'ip', flatThreshold: 20000 });
let seed = 1; const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
const vec = () => { const v = new Float32Array(dim); let n = 0; for (let i = 0; i < dim; i++) { v[i] = rnd(); n += v[i] * v[i]; } n = Math.sqrt(n); for (let i = 0; i < dim; i++) v[i] /= n; return v; };
const ids: string[] = [], attrs: any[] = [], texts: string[] = [];
const dirs = new Set<string>();
for (let i = 0; i < 2000; i++) {
  const d = doc(i); const parent = d.uri.slice(0, d.uri.lastIndexOf('/'));
  dirs.add(parent); dirs.add(parent.slice(0, parent.lastIndexOf('/')));
  ids.push(`f${i}`.padEnd(32, '0')); texts.push(d.content);
  attrs.push({ account: 'acme', ownerSpace: '', uri: d.uri, parentUri: parent, contextType: 'resource', level: 2, tags: [], createdAt: 1, updatedAt: 1 });
}
let j = 0;
for (const u of dirs) for (const level of [0, 1]) { ids.push(`d${j++}`.padEnd(32, '0')); texts.push(`${u} directory`); attrs.push({ account: 'acme', ownerSpace: '', uri: u, parentUri: u.slice(0, u.lastIndexOf('/')), contextType: 'resource', level, tags: [], createdAt: 1, updatedAt: 1 }); }
const flat = new Float32Array(ids.length * dim); for (let i = 0; i < ids.length; i++) flat.set(vec(), i * dim);
idx.upsert(ids.map((s) => s.replace(/[^0-9a-f]/g, 'a')), flat, attrs); idx.upsertText(ids.map((s) => s.replace(/[^0-9a-f]/g, 'a')), texts);
const filters = [{ account: 'acme', contextTypes: ['memory', 'resource', 'skill'], uriPrefixes: ['ctx://resources'] }];
const navs = [{ account: 'acme', uriPrefixes: ['ctx://resources'] }];
const base = { propagation: 0.7, maxExpansions: 6, stableRounds: 2, globalKMin: 20, navK: 8, alphaMin: 0.8, alphaMax: 0.95 };
// 8 MB written between calls when cold: the caches hold none of the index, as after a find's
// process slept through its embedder's round trip (L2 here is 512 KB per core).
const thrash = new Float64Array(1 << 20);
function time(label: string, params: any, cold = false) {
  const qs = Array.from({ length: 50 }, () => [vec(), doc(Math.floor(Math.random() * 2000)).words.slice(0, 3).join(' ')] as const);
  const out: number[] = []; let hits = 0, rounds = 0;
  for (let rep = 0; rep < 8; rep++) for (const [q, text] of qs) {
    const prep = idx.prepareHierarchical(text, filters, navs, params);
    if (cold) for (let i = 0; i < thrash.length; i += 8) thrash[i] += 1;
    const t0 = performance.now(); const r = idx.hierarchicalSearchPrepared(prep, q, 10); out.push(performance.now() - t0); hits += r.hits.length; rounds += r.rounds;
  }
  out.sort((a, b) => a - b);
  console.log(label.padEnd(40), 'p50', out[out.length >> 1]!.toFixed(3), 'ms  hits/call', (hits / out.length).toFixed(0), 'rounds', (rounds / out.length).toFixed(1));
}
for (let k = 0; k < 2; k++) {
  time('full (maxHits 40)', { ...base, maxHits: 40 });
  time('full, caches cold', { ...base, maxHits: 40 }, true);
  time('maxHits 1 (objects)', { ...base, maxHits: 1 });
  time('no expansions, maxHits 40', { ...base, maxExpansions: 0, maxHits: 40 });
  time('no expansions, maxHits 1', { ...base, maxExpansions: 0, maxHits: 1 });
}
