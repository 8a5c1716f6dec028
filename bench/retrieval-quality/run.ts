/**
 * Retrieval quality on the labelled set in this folder (corpus.txt: 200 documents; queries.txt:
 * 156 queries, keyword and paraphrase). Reports recall@10 and MRR@10 for
 *   dense   — local embedder + VectorIndex.search (exact flat at this size),
 *   bm25    — VectorIndex.searchText,
 *   hybrid  — VectorIndex.hybridSearch (alpha · cosine + (1 − alpha) · bm25/max),
 *   rrf     — reciprocal rank fusion of the two lists, computed here as a reference point,
 * with a brute-force cosine scorer as a cross-check of the dense path.
 *
 *   npx tsx bench/retrieval-quality/run.ts            # the table
 *   npx tsx bench/retrieval-quality/run.ts --sweep    # embedder parameters and alpha grid
 *   npx tsx bench/retrieval-quality/run.ts --misses   # dense/hybrid misses, for inspection
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localEmbed, textKernels, VectorIndex, type Hit, type LocalEmbedParams, type RecordAttrs } from '../../runtime/native.js';

const here = dirname(fileURLToPath(import.meta.url));
const K = 10;

interface Doc {
  id: string;
  uri: string;
  text: string;
}
interface Query {
  id: string;
  relevant: string[];
  kind: 'keyword' | 'paraphrase';
  text: string;
}

function loadDocs(): Doc[] {
  const docs: Doc[] = [];
  let cur: Doc | null = null;
  for (const line of readFileSync(join(here, 'corpus.txt'), 'utf8').split('\n')) {
    if (line.startsWith('#') && !cur) continue;
    const m = /^@(\S+) (\S+)$/.exec(line);
    if (m) {
      cur = { id: m[1]!, uri: m[2]!, text: '' };
      docs.push(cur);
    } else if (line.trim() === '') cur = null;
    else if (cur) cur.text += (cur.text ? '\n' : '') + line;
  }
  return docs;
}

function loadQueries(ids: Set<string>): Query[] {
  const out: Query[] = [];
  for (const line of readFileSync(join(here, 'queries.txt'), 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [id, rel, kind, text] = line.split(' | ').map((s) => s.trim());
    const relevant = rel!.split(',').map((s) => s.trim());
    for (const r of relevant) if (!ids.has(r)) throw new Error(`${id}: unknown document ${r}`);
    if (kind !== 'keyword' && kind !== 'paraphrase') throw new Error(`${id}: bad kind ${kind}`);
    out.push({ id: id!, relevant, kind, text: text! });
  }
  return out;
}

/** 32-hex record ids, as the index requires. */
const recordId = (id: string) => createHash('sha256').update(id).digest('hex').slice(0, 32);

interface Score {
  recall: number;
  mrr: number;
  n: number;
}

function score(queries: Query[], ranked: string[][]): Record<'all' | 'keyword' | 'paraphrase', Score> {
  const acc = { all: { recall: 0, mrr: 0, n: 0 }, keyword: { recall: 0, mrr: 0, n: 0 }, paraphrase: { recall: 0, mrr: 0, n: 0 } };
  queries.forEach((q, i) => {
    const top = ranked[i]!.slice(0, K);
    const found = q.relevant.filter((r) => top.includes(r)).length / q.relevant.length;
    const first = top.findIndex((d) => q.relevant.includes(d));
    const rr = first < 0 ? 0 : 1 / (first + 1);
    for (const s of [acc.all, acc[q.kind]]) {
      s.recall += found;
      s.mrr += rr;
      s.n++;
    }
  });
  for (const s of Object.values(acc)) {
    s.recall /= s.n || 1;
    s.mrr /= s.n || 1;
  }
  return acc;
}

const dot = (a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number) => {
  let s = 0;
  for (let i = 0; i < dim; i++) s += a[ao + i]! * b[bo + i]!;
  return s;
};

interface Setup {
  docs: Doc[];
  queries: Query[];
  dim: number;
  params?: LocalEmbedParams;
}

function bruteForce(s: Setup, dv: Float32Array, qv: Float32Array): string[][] {
  return s.queries.map((_, qi) => {
    const scored = s.docs.map((d, di) => ({ id: d.id, s: dot(qv, qi * s.dim, dv, di * s.dim, s.dim) }));
    scored.sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : 1));
    return scored.slice(0, K * 4).map((x) => x.id);
  });
}

function rrf(lists: Hit[][], k = 60): string[] {
  const acc = new Map<string, number>();
  for (const l of lists) l.forEach((h, r) => acc.set(h.id, (acc.get(h.id) ?? 0) + 1 / (k + r + 1)));
  return [...acc.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
}

async function evaluate(s: Setup, alphas: number[]) {
  const dv = await localEmbed.embedAsync(s.docs.map((d) => d.text), s.dim, s.params);
  const qv = localEmbed.embed(s.queries.map((q) => q.text), s.dim, s.params);
  const index = new VectorIndex({ dim: s.dim });
  const byRec = new Map<string, string>();
  const now = Date.now();
  const attrs: RecordAttrs[] = s.docs.map((d) => ({
    account: 'bench',
    ownerSpace: '',
    uri: d.uri,
    parentUri: d.uri.slice(0, d.uri.lastIndexOf('/')),
    contextType: 'resource',
    level: 2,
    tags: [],
    createdAt: now,
    updatedAt: now,
  }));
  const ids = s.docs.map((d) => recordId(d.id));
  s.docs.forEach((d, i) => byRec.set(ids[i]!, d.id));
  index.upsert(ids, dv, attrs);
  index.upsertText(ids, s.docs.map((d) => d.text));
  const filter = { account: 'bench' };
  const names = (hits: Hit[]) => hits.map((h) => byRec.get(h.id)!);
  const dense: Hit[][] = [];
  const sparse: Hit[][] = [];
  const hybrid = new Map<number, string[][]>(alphas.map((a) => [a, []]));
  s.queries.forEach((q, i) => {
    const v = qv.subarray(i * s.dim, (i + 1) * s.dim);
    dense.push(index.search(v, K * 4, filter));
    sparse.push(index.searchText(q.text, K * 4, filter));
    for (const a of alphas) hybrid.get(a)!.push(names(index.hybridSearch(v, q.text, K, filter, { alpha: a })));
  });
  // Experiment for the BM25 tokenizer: the same index fed stemmed token streams (documents and
  // queries alike), to see whether stemming in BM25 would help.
  const stemmedIndex = new VectorIndex({ dim: s.dim });
  const stemmed = (t: string) => textKernels.tokenizeStemmed(t).join(' ');
  stemmedIndex.upsert(ids, dv, attrs);
  stemmedIndex.upsertText(ids, s.docs.map((d) => stemmed(d.text)));
  const sparseStemmed = s.queries.map((q) => names(stemmedIndex.searchText(stemmed(q.text), K * 4, filter)));
  const hybridStemmed = s.queries.map((q, i) => names(stemmedIndex.hybridSearch(qv.subarray(i * s.dim, (i + 1) * s.dim), stemmed(q.text), K, filter, { alpha: alphas[0] })));
  return {
    bm25Stemmed: score(s.queries, sparseStemmed),
    hybridStemmed: score(s.queries, hybridStemmed),
    brute: score(s.queries, bruteForce(s, dv, qv)),
    dense: score(s.queries, dense.map(names)),
    bm25: score(s.queries, sparse.map(names)),
    rrf: score(s.queries, dense.map((d, i) => rrf([d, sparse[i]!]).map((id) => byRec.get(id)!))),
    hybrid: new Map([...hybrid].map(([a, r]) => [a, score(s.queries, r)])),
    raw: { dense: dense.map(names), hybrid: hybrid.get(alphas[0]!)! },
  };
}

const f3 = (x: number) => x.toFixed(3);
const row = (name: string, r: ReturnType<typeof score>) =>
  `| ${name.padEnd(34)} | ${f3(r.all.recall)} | ${f3(r.all.mrr)} | ${f3(r.keyword.recall)} | ${f3(r.keyword.mrr)} | ${f3(r.paraphrase.recall)} | ${f3(r.paraphrase.mrr)} |`;
const header = [
  `| ${'method'.padEnd(34)} | R@10  | MRR   | kw R@10 | kw MRR | para R@10 | para MRR |`,
  `|${'-'.repeat(36)}|-------|-------|-------|-------|-------|-------|`,
];

async function main() {
  const docs = loadDocs();
  const queries = loadQueries(new Set(docs.map((d) => d.id)));
  if (new Set(docs.map((d) => d.id)).size !== docs.length) throw new Error('duplicate document ids');
  const kw = queries.filter((q) => q.kind === 'keyword').length;
  const info = localEmbed.info();
  console.log(`retrieval quality: ${docs.length} documents, ${queries.length} queries (${kw} keyword, ${queries.length - kw} paraphrase); k=${K}`);
  console.log(`local embedder v${info.version}: ${JSON.stringify(info)}\n`);

  if (process.argv.includes('--sweep')) {
    await sweep(docs, queries);
    return;
  }
  const alphas = [0.6, 0.3, 0.5, 0.7, 0.8];
  const r = await evaluate({ docs, queries, dim: 384 }, alphas);
  console.log(header.join('\n'));
  console.log(row('dense (local, VectorIndex)', r.dense));
  console.log(row('dense (brute-force cosine check)', r.brute));
  console.log(row('bm25 (VectorIndex.searchText)', r.bm25));
  for (const [a, s] of r.hybrid) console.log(row(`hybrid alpha=${a}${a === 0.6 ? ' (default)' : ''}`, s));
  console.log(row('rrf(dense, bm25), k=60 (reference)', r.rrf));
  console.log(row('bm25, stemmed tokens (experiment)', r.bm25Stemmed));
  console.log(row('hybrid 0.6, stemmed bm25 (experiment)', r.hybridStemmed));

  if (process.argv.includes('--misses')) {
    console.log('\nmisses (dense top-3 | hybrid top-3):');
    queries.forEach((q, i) => {
      const d = r.raw.dense[i]!.slice(0, K);
      if (!q.relevant.some((x) => d.includes(x))) console.log(`  ${q.id} [${q.relevant}] "${q.text}" → dense ${d.slice(0, 3)} | hybrid ${r.raw.hybrid[i]!.slice(0, 3)}`);
    });
  }
}

/** Embedder parameter grid (dense and hybrid at the default alpha), then alpha for the best. */
async function sweep(docs: Doc[], queries: Query[]) {
  const grid: Array<[string, LocalEmbedParams, number]> = [
    ['default', {}, 384],
    ['words only', { bigramWeight: 0, charWeight: 0 }, 384],
    ['words+bigrams', { charWeight: 0 }, 384],
    ['words+chars', { bigramWeight: 0 }, 384],
    ['chars only', { wordWeight: 0, bigramWeight: 0 }, 384],
    ['char 0.3', { charWeight: 0.3 }, 384],
    ['char 0.8', { charWeight: 0.8 }, 384],
    ['char 1.0', { charWeight: 1.0 }, 384],
    ['bigram 0.25', { bigramWeight: 0.25 }, 384],
    ['bigram 0.8', { bigramWeight: 0.8 }, 384],
    ['char 3..4', { charMin: 3, charMax: 4 }, 384],
    ['char 4..5', { charMin: 4, charMax: 5 }, 384],
    ['char 3..6', { charMin: 3, charMax: 6 }, 384],
    ['char 2..4', { charMin: 2, charMax: 4 }, 384],
    ['word 0.3, bigram 0.15, char 1', { wordWeight: 0.3, bigramWeight: 0.15, charWeight: 1 }, 384],
    ['word 0.3, bigram 0, char 1', { wordWeight: 0.3, bigramWeight: 0, charWeight: 1 }, 384],
    ['word 0.2, bigram 0.1, char 1, 3..4', { wordWeight: 0.2, bigramWeight: 0.1, charWeight: 1, charMin: 3, charMax: 4 }, 384],
    ['chars only 3..4', { wordWeight: 0, bigramWeight: 0, charMin: 3, charMax: 4 }, 384],
    ['chars+bigram 0.2', { wordWeight: 0, bigramWeight: 0.2, charWeight: 1 }, 384],
    ['dim 256', {}, 256],
    ['dim 768', {}, 768],
    ['dim 1024', {}, 1024],
  ];
  console.log('embedder parameters (dense; hybrid at alpha 0.6):');
  console.log(header.join('\n'));
  for (const [name, params, dim] of grid) {
    const r = await evaluate({ docs, queries, dim, params }, [0.6]);
    console.log(row(`${name} dense`, r.dense));
    console.log(row(`${name} hybrid`, r.hybrid.get(0.6)!));
  }
  console.log('\nalpha (default embedder):');
  const alphas = [0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
  const r = await evaluate({ docs, queries, dim: 384 }, alphas);
  console.log(header.join('\n'));
  for (const [a, s] of r.hybrid) console.log(row(`hybrid alpha=${a}`, s));
}

await main();
