/**
 * Fusion experiments on the TUNED set only (corpus.txt / queries.txt in this folder): for every
 * query the pool is the union of the dense and BM25 top 40, each member with its exact cosine and
 * BM25 score, and fusion rules are compared on recall@10 / MRR@10. The held-out sets
 * (bench/retrieval-heldout) are never used here.
 *
 *   npx tsx bench/retrieval-quality/tune-fusion.ts [--weak | --neural]
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localEmbed, textKernels, VectorIndex, type RecordAttrs } from '../../runtime/native.js';
import { createEmbedder } from '../../runtime/models/embedder.js';

const here = dirname(fileURLToPath(import.meta.url));
const K = 10;
const POOL = 40;

interface Doc {
  id: string;
  uri: string;
  text: string;
}
const docs: Doc[] = [];
{
  let cur: Doc | null = null;
  for (const line of readFileSync(join(here, 'corpus.txt'), 'utf8').split('\n')) {
    if (line.startsWith('#') && !cur) continue;
    const m = /^@(\S+) (\S+)$/.exec(line);
    if (m) docs.push((cur = { id: m[1]!, uri: m[2]!, text: '' }));
    else if (line.trim() === '') cur = null;
    else if (cur) cur.text += (cur.text ? '\n' : '') + line;
  }
}
const queries = readFileSync(join(here, 'queries.txt'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'))
  .map((l) => {
    const [id, rel, kind, text] = l.split(' | ').map((s) => s.trim());
    return { id: id!, relevant: rel!.split(',').map((s) => s.trim()), kind: kind!, text: text! };
  });

// What the product indexes for a file: its name, then the text (the abstract is its start).
const recText = (d: Doc) => `${d.uri.slice(d.uri.lastIndexOf('/') + 1)}\n${d.text}`;
const dim = 384;
const rid = (id: string) => createHash('sha256').update(id).digest('hex').slice(0, 32);
const index = new VectorIndex({ dim });
const ids = docs.map((d) => rid(d.id));
const byRec = new Map(ids.map((r, i) => [r, docs[i]!.id]));
const now = Date.now();
const attrs: RecordAttrs[] = docs.map((d) => ({ account: 'a', ownerSpace: '', uri: d.uri, parentUri: d.uri.slice(0, d.uri.lastIndexOf('/')), contextType: 'resource', level: 2, tags: [], createdAt: now, updatedAt: now }));
// --weak: a deliberately weaker dense signal (word features only), to see which rules stay at or
// above the better input when dense and BM25 are far apart (as they are on conversations).
const params = process.argv.includes('--weak') ? { bigramWeight: 0, charWeight: 0 } : undefined;
// --neural: the neural embedder (all-MiniLM-L6-v2 in core-native), whose dense signal is the
// stronger one: the fusion must not fall below it either.
const neural = process.argv.includes('--neural') ? await createEmbedder({ provider: 'neural' }) : null;
const flat = (vs: Float32Array[]) => {
  const out = new Float32Array(vs.length * dim);
  vs.forEach((v, i) => out.set(v, i * dim));
  return out;
};
const dv = neural ? flat(await neural.embed(docs.map(recText), 'document')) : localEmbed.embed(docs.map(recText), dim, params);
index.upsert(ids, dv, attrs);
index.upsertText(ids, docs.map(recText));
const qv = neural ? flat(await neural.embed(queries.map((q) => q.text), 'query')) : localEmbed.embed(queries.map((q) => q.text), dim, params);
const filter = { account: 'a' };

// Document frequencies with the index's own tokenizer, for the query-confidence rules.
const df = new Map<string, number>();
for (const d of docs) for (const t of new Set(textKernels.tokenizeStemmed(recText(d)))) df.set(t, (df.get(t) ?? 0) + 1);
const idf = (t: string) => Math.log(1 + (docs.length - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
/** Σ idf of the query's distinct terms: what a document matching every term once would score, roughly. */
const idfMass = queries.map((q) => [...new Set(textKernels.tokenizeStemmed(q.text))].reduce((a, t) => a + idf(t), 0));

interface Member {
  id: string;
  cos: number;
  bm: number;
}
/** Per query: the pool with both raw scores (BM25 0 when no term matches). */
const pools: Member[][] = queries.map((q, i) => {
  const v = qv.subarray(i * dim, (i + 1) * dim);
  const all = index.search(v, docs.length, filter);
  const cos = new Map(all.map((h) => [h.id, h.score]));
  const bmAll = index.searchText(q.text, docs.length, filter);
  const bm = new Map(bmAll.map((h) => [h.id, h.score]));
  const pool = new Set([...all.slice(0, POOL).map((h) => h.id), ...bmAll.slice(0, POOL).map((h) => h.id)]);
  return [...pool].map((id) => ({ id: byRec.get(id)!, cos: cos.get(id) ?? 0, bm: bm.get(id) ?? 0 }));
});

type Rule = (pool: Member[], qi: number) => Map<string, number>;
function evaluate(rule: Rule) {
  let recall = 0;
  let mrr = 0;
  const kinds: Record<string, { r: number; n: number }> = {};
  queries.forEach((q, i) => {
    const s = rule(pools[i]!, i);
    const top = [...s].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, K).map(([id]) => id);
    const r = q.relevant.filter((x) => top.includes(x)).length / q.relevant.length;
    const first = top.findIndex((d) => q.relevant.includes(d));
    recall += r;
    mrr += first < 0 ? 0 : 1 / (first + 1);
    (kinds[q.kind] ??= { r: 0, n: 0 }).r += r;
    kinds[q.kind]!.n++;
  });
  return { recall: recall / queries.length, mrr: mrr / queries.length, kinds: Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, v.r / v.n])) };
}

const max = (xs: number[]) => xs.reduce((a, b) => Math.max(a, b), 0);
const stats = (xs: number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length) || 1;
  return { m, sd };
};
const rankOf = (pool: Member[], key: 'cos' | 'bm') => {
  const sorted = [...pool].filter((x) => x[key] > 0).sort((a, b) => b[key] - a[key]);
  return new Map(sorted.map((x, i) => [x.id, i]));
};

const rules: Record<string, Rule> = {
  dense: (p) => new Map(p.map((x) => [x.id, x.cos])),
  bm25: (p) => new Map(p.map((x) => [x.id, x.bm])),
};
for (const a of [0.3, 0.5, 0.6, 0.7, 0.8, 0.9]) {
  rules[`linear a=${a} (cos, bm/max)`] = (p) => {
    const mb = max(p.map((x) => x.bm));
    return new Map(p.map((x) => [x.id, a * Math.max(0, x.cos) + (1 - a) * (mb > 0 ? x.bm / mb : 0)]));
  };
}
for (const k of [10, 30, 60]) {
  rules[`rrf k=${k}`] = (p) => {
    const rd = rankOf(p, 'cos');
    const rb = rankOf(p, 'bm');
    return new Map(p.map((x) => [x.id, (rd.has(x.id) ? 1 / (k + rd.get(x.id)! + 1) : 0) + (rb.has(x.id) ? 1 / (k + rb.get(x.id)! + 1) : 0)]));
  };
}
for (const a of [0.3, 0.4, 0.5]) {
  rules[`minmax a=${a}`] = (p) => {
    const cs = p.map((x) => x.cos);
    const lo = Math.min(...cs);
    const hi = Math.max(...cs);
    const mb = max(p.map((x) => x.bm));
    return new Map(p.map((x) => [x.id, a * (hi > lo ? (x.cos - lo) / (hi - lo) : 0) + (1 - a) * (mb > 0 ? x.bm / mb : 0)]));
  };
}
for (const a of [0.3, 0.4, 0.5]) {
  rules[`zscore a=${a}`] = (p) => {
    const d = stats(p.map((x) => x.cos));
    const b = stats(p.map((x) => x.bm));
    return new Map(p.map((x) => [x.id, (a * (x.cos - d.m)) / d.sd + ((1 - a) * (x.bm - b.m)) / b.sd]));
  };
}

// Per-query confidence of the lexical evidence: the best BM25 score over the query's idf mass
// (≈1 when a document matches every query term; low for paraphrases whose words are absent).
for (const [lo, hi] of [[0, 0.2], [0, 0.3], [0.2, 0.7], [0.3, 0.7], [0.3, 0.8], [0.2, 0.8], [0.4, 0.8], [0.3, 0.6], [0.6, 0.9], [0.7, 0.9], [0.8, 0.9], [0.7, 0.95]] as const) {
  rules[`adaptive linear a=${lo}..${hi}`] = (p, qi) => {
    const mb = max(p.map((x) => x.bm));
    const conf = Math.min(1, mb / (idfMass[qi]! || 1));
    const a = hi - (hi - lo) * conf;
    return new Map(p.map((x) => [x.id, a * Math.max(0, x.cos) + (1 - a) * (mb > 0 ? x.bm / mb : 0)]));
  };
}

// Adaptive fusion whose top 10 always keeps each input's first `nb` (BM25) and `nd` (dense) hits.
for (const [nb, nd] of [[1, 1], [2, 1], [3, 2], [2, 2], [3, 3], [5, 2]] as const) {
  rules[`adaptive 0.3..0.7 + keep bm25 top${nb}, dense top${nd}`] = (p, qi) => {
    const mb = max(p.map((x) => x.bm));
    const conf = Math.min(1, mb / (idfMass[qi]! || 1));
    const a = 0.7 - 0.4 * conf;
    const fused = new Map(p.map((x) => [x.id, a * Math.max(0, x.cos) + (1 - a) * (mb > 0 ? x.bm / mb : 0)]));
    const order = [...fused].sort((x, y) => y[1] - x[1]).map(([id]) => id);
    const keep = new Set([...[...p].filter((x) => x.bm > 0).sort((x, y) => y.bm - x.bm).slice(0, nb).map((x) => x.id), ...[...p].sort((x, y) => y.cos - x.cos).slice(0, nd).map((x) => x.id)]);
    const top = order.slice(0, K);
    for (const id of keep) {
      if (top.includes(id)) continue;
      // Replace the lowest fused member that is not itself kept.
      for (let j = top.length - 1; j >= 0; j--) if (!keep.has(top[j]!)) { top[j] = id; break; }
    }
    const rest = order.filter((id) => !top.includes(id));
    const ranked = [...top.sort((x, y) => fused.get(y)! - fused.get(x)!), ...rest];
    return new Map(ranked.map((id, i) => [id, ranked.length - i]));
  };
}

const f3 = (x: number) => x.toFixed(3);
console.log(`tuned set: ${docs.length} docs, ${queries.length} queries; pool = dense top ${POOL} ∪ bm25 top ${POOL}`);
for (const [name, rule] of Object.entries(rules)) {
  const r = evaluate(rule);
  console.log(`${name.padEnd(34)} R@10 ${f3(r.recall)}  MRR ${f3(r.mrr)}  ${Object.entries(r.kinds).map(([k, v]) => `${k} ${f3(v)}`).join('  ')}`);
}
