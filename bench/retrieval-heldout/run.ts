/**
 * Retrieval quality through the real product path, as a new user meets it: the app starts
 * in-process on a fresh data dir, every document is written with `POST /api/v1/content/batch-write`,
 * the runner waits for indexing (`POST /api/v1/system/wait`) and asks `POST /api/v1/search/find`.
 *
 * Sets (bench/retrieval-heldout/README.md):
 *   tuned  — bench/retrieval-quality (200 docs, 156 queries): the set scoring WAS tuned on;
 *   conv   — held-out conversations: 4 users' memories, asked by each user (default find scope:
 *            shared resources + their own space, so the technical docs are in scope too);
 *   tech   — held-out README sections, asked by a user without memories;
 *   locomo — optional, `--locomo <locomo10.json>` (not committed): every turn a memory file.
 *
 * Methods, recall@10 and MRR@10 per set and per question kind:
 *   find        — the product's default find (hierarchical, directories included);
 *   find: bm25 only / find: dense only — find with the dense weight fixed at 0 / 1: the two inputs
 *                 find fuses, as find computes them (BM25 statistics of the set's account, its
 *                 directory records included; the flat columns below see its leaves only);
 *   dense       — ctx's embedder + VectorIndex.search over the same leaf records (L2) in scope;
 *   bm25 (ctx)  — VectorIndex.searchText over those records (the BM25 inside ctx);
 *   fusion      — VectorIndex.hybridSearch over them, weighted as find weighs it for this embedder;
 *   bm25 plain  — an independent BM25 written here (k1 1.2, b 0.75, lowercase letter/digit
 *                 words) over the raw file contents in scope: the baseline;
 * plus `dir@10`, the fraction of default-find top-10 hits that are directory records.
 *
 *   npx tsx bench/retrieval-heldout/run.ts [--sets tuned,conv,tech] [--locomo <locomo10.json | folder>] [--misses]
 *   npx tsx bench/retrieval-heldout/run.ts --sets tuned --sweep   # fixed fusion weights (tuned set only)
 *   npx tsx bench/retrieval-heldout/run.ts --sets tuned --ranges 0..0.2,0.3..0.7   # find with other dense-weight ranges (tuned set only)
 *   npx tsx bench/retrieval-heldout/run.ts --find-range 0.3..0.7   # find with another range on every set: a before/after on one tree, never for choosing
 *   CTX_EMBEDDING_PROVIDER=... npx tsx bench/retrieval-heldout/run.ts   # another embedder
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp, type App } from '../../runtime/app.js';
import { builtinPlugins } from '../../plugins/index.js';
import { VectorIndex, type Hit, type VectorFilter } from '../../runtime/native.js';
import type { VectorStoreService } from '../../plugins/retrieval/index.js';
import { denseWeight } from '../../plugins/retrieval/store.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const K = 10;
const ROOT = 'heldout-root-key-0123456789abcdef';
/** Asker of a question over the whole account (ROOT's default find scope). */
const ALL = '*';

interface Doc {
  id: string;
  uri: string;
  content: string;
  /** The user whose memory this is; undefined for shared resources. */
  user?: string;
}
interface Question {
  id: string;
  kind: string;
  relevant: string[];
  query: string;
  /** Who asks (their default find scope); ALL: ROOT, the whole account. */
  user: string;
}
interface BenchSet {
  name: string;
  account: string;
  docs: Doc[];
  questions: Question[];
}

// ------------------------------------------------------------------------------------ the sets

const jsonl = (f: string) =>
  fs
    .readFileSync(path.join(here, f), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

function tunedSet(): BenchSet {
  const dir = path.join(here, '../retrieval-quality');
  const docs: Doc[] = [];
  let cur: Doc | null = null;
  for (const line of fs.readFileSync(path.join(dir, 'corpus.txt'), 'utf8').split('\n')) {
    if (line.startsWith('#') && !cur) continue;
    const m = /^@(\S+) (\S+)$/.exec(line);
    if (m) {
      // The set predates the spec's user spaces: its `ctx://user/u/notes/...` become memories.
      const uri = m[2]!.replace(/^(ctx:\/\/user\/[^/]+)\/(?!memories\/|resources\/|skills\/)/, '$1/memories/');
      docs.push((cur = { id: m[1]!, uri, content: '', user: /^ctx:\/\/user\/([^/]+)\//.exec(uri)?.[1] }));
    }
    else if (line.trim() === '') cur = null;
    else if (cur) cur.content += (cur.content ? '\n' : '') + line;
  }
  const questions: Question[] = [];
  for (const line of fs.readFileSync(path.join(dir, 'queries.txt'), 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [id, rel, kind, text] = line.split(' | ').map((s) => s.trim());
    // Asked over the whole account, as the set was built (several users' memories and resources).
    questions.push({ id: id!, kind: kind!, relevant: rel!.split(',').map((s) => s.trim()), query: text!, user: ALL });
  }
  return { name: 'tuned', account: 'tuned', docs, questions };
}

function convSet(): BenchSet {
  const docs: Doc[] = jsonl('sets/conversations.jsonl').map((d) => ({ id: d.id, uri: d.uri, content: d.content, user: d.user }));
  const questions: Question[] = jsonl('sets/conv-questions.jsonl').map((q) => ({ id: q.id, kind: q.kind, relevant: q.relevant, query: q.query, user: q.user }));
  return { name: 'conv', account: 'heldout', docs: [...docs, ...techDocs()], questions };
}

function techDocs(): Doc[] {
  return jsonl('sets/tech-docs.jsonl').map((d) => ({ id: d.id, uri: `ctx://resources/docs/${d.id}.md`, content: d.text }));
}

function techSet(): BenchSet {
  const questions: Question[] = [];
  let n = 0;
  for (const line of fs.readFileSync(path.join(here, 'sets/tech-questions.txt'), 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [kind, rel, text] = line.split(' | ').map((s) => s.trim());
    questions.push({ id: `t${++n}`, kind: kind!, relevant: rel!.split(',').map((s) => s.trim()), query: text!, user: 'reader' });
  }
  return { name: 'tech', account: 'heldout', docs: techDocs(), questions };
}

/**
 * LoCoMo (snap-research/locomo): one user per conversation, one memory file per turn. Accepts
 * locomo10.json (an array of {conversation, qa}) or the folder of per-conversation files found in
 * the repository's data/locomo10.zip (data/multimodal_dialog/locomo10_v2/*.json: sessions and qa
 * at the top level).
 */
function locomoSet(file: string): BenchSet {
  type Conv = { conversation?: Record<string, unknown>; qa: Array<{ question: string; evidence?: string[]; category: number }> } & Record<string, unknown>;
  const data: Conv[] = fs.statSync(file).isDirectory()
    ? fs.readdirSync(file).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(fs.readFileSync(path.join(file, f), 'utf8')))
    : JSON.parse(fs.readFileSync(file, 'utf8'));
  const kinds: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };
  const docs: Doc[] = [];
  const questions: Question[] = [];
  data.forEach((conv, ci) => {
    const user = `locomo${ci}`;
    const c = conv.conversation ?? conv;
    const ids = new Set<string>();
    for (const key of Object.keys(c)) {
      const m = /^session_(\d+)$/.exec(key);
      if (!m || !Array.isArray(c[key])) continue;
      const when = String(c[`${key}_date_time`] ?? '');
      for (const turn of c[key] as Array<{ speaker: string; dia_id: string; text: string; blip_caption?: string }>) {
        const id = `${user}/${turn.dia_id}`;
        ids.add(id);
        const safe = turn.dia_id.replace(/[^A-Za-z0-9]+/g, '-');
        const extra = turn.blip_caption ? ` [shares a photo: ${turn.blip_caption}]` : '';
        docs.push({ id, user, uri: `ctx://user/${user}/memories/chats/session-${m[1]!.padStart(2, '0')}/${safe}.md`, content: `${when}\n${turn.speaker}: ${turn.text}${extra}\n` });
      }
    }
    conv.qa.forEach((q, qi) => {
      const kind = kinds[q.category];
      // Category 5 is adversarial (unanswerable): nothing to retrieve.
      const relevant = (q.evidence ?? []).flatMap((e) => e.split(/[;,\s]+/)).filter(Boolean).map((e) => `${user}/${e.trim()}`).filter((e) => ids.has(e));
      if (!kind || !relevant.length) return;
      questions.push({ id: `${user}-q${qi}`, kind, relevant, query: String(q.question), user });
    });
  });
  return { name: 'locomo', account: 'locomo', docs, questions };
}

// --------------------------------------------------------------------------- the product path

async function startApp(): Promise<{ app: App; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-heldout-'));
  // Only the embedder settings are taken from the environment: the rest is a new user's default.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('CTX_EMBEDDING_')));
  const app = await createApp({
    env,
    plugins: builtinPlugins,
    config: { dataDir: dir, rootApiKey: ROOT, authMode: 'api_key', logLevel: 'silent', accessLog: false, grpcPort: 0 },
  });
  return { app, dir };
}

async function call(app: App, headers: Record<string, string>, url: string, body: unknown) {
  const r = await app.inject({ method: 'POST', url, headers, body });
  if (r.status >= 300) throw new Error(`${url}: ${r.status} ${r.text.slice(0, 500)}`);
  return r.json().result;
}

/** Creates the account and its users; returns each user's headers (and the admin's as `admin`). */
async function accountWith(app: App, account: string, users: string[]): Promise<Record<string, Record<string, string>>> {
  const root = { 'x-api-key': ROOT };
  const a = await call(app, root, '/api/v1/admin/accounts', { account_id: account, admin_user_id: 'admin' });
  const out: Record<string, Record<string, string>> = { admin: { 'x-api-key': a.user_key } };
  for (const u of users) {
    const r = await call(app, out.admin!, `/api/v1/admin/accounts/${account}/users`, { user_id: u, role: 'USER' });
    out[u] = { 'x-api-key': r.user_key };
  }
  return out;
}

/** Writes documents with batch-write, 128 per request, each user into their own space. */
async function writeDocs(app: App, headers: Record<string, Record<string, string>>, docs: Doc[]) {
  const groups = new Map<string, Doc[]>();
  for (const d of docs) {
    const space = /^ctx:\/\/(resources|user\/[^/]+\/[^/]+)\//.exec(d.uri)![1];
    const key = `${d.user ?? 'admin'} ctx://${space}`;
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  for (const [key, list] of groups) {
    const [owner, rootUri] = key.split(' ') as [string, string];
    // A new user's memories directory exists once something is written there; mkdir is what a
    // client does first.
    await call(app, headers[owner]!, '/api/v1/fs/mkdir', { uri: rootUri });
    for (let i = 0; i < list.length; i += 128) {
      const ops = list.slice(i, i + 128).map((d) => ({ uri: d.uri, content: d.content, mode: 'upsert' }));
      await call(app, headers[owner]!, '/api/v1/content/batch-write', { root_uri: rootUri, operations: ops });
    }
  }
}

async function waitIndexed(app: App) {
  await call(app, { 'x-api-key': ROOT }, '/api/v1/system/wait', {});
}

// ------------------------------------------------------------------------------------ scoring

interface Acc {
  recall: number;
  mrr: number;
  n: number;
}
type Scores = Map<string, Acc>;

function scoreInto(s: Scores, kind: string, relevant: string[], ranked: string[]) {
  const top = ranked.slice(0, K);
  const recall = relevant.filter((r) => top.includes(r)).length / relevant.length;
  const first = top.findIndex((d) => relevant.includes(d));
  for (const key of ['all', kind]) {
    const a = s.get(key) ?? { recall: 0, mrr: 0, n: 0 };
    a.recall += recall;
    a.mrr += first < 0 ? 0 : 1 / (first + 1);
    a.n++;
    s.set(key, a);
  }
}

/** An independent Okapi BM25 (k1 1.2, b 0.75) over the raw documents: the baseline. */
class PlainBm25 {
  private postings = new Map<string, Array<[number, number]>>();
  private lens: number[] = [];
  private avg = 0;
  constructor(private docs: Doc[]) {
    docs.forEach((d, i) => {
      const tf = new Map<string, number>();
      const words = PlainBm25.words(d.content);
      for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const [w, n] of tf) {
        let p = this.postings.get(w);
        if (!p) this.postings.set(w, (p = []));
        p.push([i, n]);
      }
      this.lens.push(words.length);
    });
    this.avg = this.lens.reduce((a, b) => a + b, 0) / Math.max(1, this.lens.length);
  }
  static words(t: string): string[] {
    return t.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
  }
  search(q: string, allowed: (d: Doc) => boolean): string[] {
    const acc = new Map<number, number>();
    const n = this.docs.length;
    for (const w of new Set(PlainBm25.words(q))) {
      const p = this.postings.get(w);
      if (!p) continue;
      const idf = Math.log(1 + (n - p.length + 0.5) / (p.length + 0.5));
      for (const [i, tf] of p) acc.set(i, (acc.get(i) ?? 0) + (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * this.lens[i]!) / this.avg)));
    }
    return [...acc]
      .filter(([i]) => allowed(this.docs[i]!))
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, K)
      .map(([i]) => this.docs[i]!.id);
  }
}

const METHODS = ['find', 'dense', 'bm25 (ctx)', 'fusion', 'bm25 plain'] as const;
/** `--sweep`: fixed-weight fusions beside the adaptive default, on the TUNED set only (tuning happens there, never on held-out sets). */
const SWEEP = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7];

/**
 * `--ranges lo..hi,...` (TUNED set only): find again through the whole product path with another
 * adaptive dense-weight range. find takes its range from the running embedder (denseWeight), so
 * the range is swapped where find hands it to the index, leaving everything else as shipped.
 */
type Weight = { alphaMin: number; alphaMax: number } | { alpha: number };
let rangeOverride: Weight | null = null;
function overridableFindRange() {
  // find hands its parameters to the core when it prepares the search (argument 3), or in one call
  // (argument 5) when it searches without preparing.
  const proto = VectorIndex.prototype as unknown as Record<'hierarchicalSearchAsync' | 'prepareHierarchicalAsync', (...a: unknown[]) => unknown>;
  for (const [method, at] of [['hierarchicalSearchAsync', 5], ['prepareHierarchicalAsync', 3]] as const) {
    const shipped = proto[method];
    proto[method] = function (this: VectorIndex, ...a: unknown[]) {
      const params = a[at] as Record<string, unknown> | undefined;
      // A find without query text weighs dense alone (alpha 1): nothing to swap.
      if (rangeOverride && params && params.alpha === undefined) a[at] = { ...params, ...rangeOverride };
      return shipped.apply(this, a);
    };
  }
}
const INPUTS: Array<{ name: string; weight: Weight }> = [
  { name: 'find: bm25 only', weight: { alpha: 0 } },
  { name: 'find: dense only', weight: { alpha: 1 } },
];
function parseRanges(s: string | undefined): Array<{ alphaMin: number; alphaMax: number }> {
  if (!s) return [];
  return s.split(',').map((r) => {
    const m = /^([\d.]+)\.\.([\d.]+)$/.exec(r.trim());
    if (!m) throw new Error(`--ranges: expected lo..hi, got ${r}`);
    return { alphaMin: Number(m[1]), alphaMax: Number(m[2]) };
  });
}

interface Prepared {
  headers: Record<string, Record<string, string>>;
  ingestMs: number;
}

/** One account per name: its users, every document of the sets that use it, indexed. */
async function prepare(app: App, account: string, sets: BenchSet[]): Promise<Prepared> {
  const docs = new Map<string, Doc>();
  for (const s of sets) for (const d of s.docs) docs.set(d.id, d);
  const users = new Set<string>();
  for (const s of sets) {
    for (const d of s.docs) if (d.user) users.add(d.user);
    for (const q of s.questions) if (q.user !== ALL) users.add(q.user);
  }
  const headers = await accountWith(app, account, [...users]);
  headers[ALL] = { 'x-api-key': ROOT, 'x-ctx-account': account };
  const t0 = performance.now();
  await writeDocs(app, headers, [...docs.values()]);
  await waitIndexed(app);
  return { headers, ingestMs: performance.now() - t0 };
}

async function runSet(app: App, set: BenchSet, prep: Prepared, opts: { misses: boolean; sweep: boolean; ranges: Array<{ alphaMin: number; alphaMax: number }>; findRange: Weight | null }) {
  const { headers, ingestMs } = prep;
  const byUri = new Map(set.docs.map((d) => [d.uri, d]));
  for (const q of set.questions) for (const r of q.relevant) if (!set.docs.some((d) => d.id === r)) throw new Error(`${set.name} ${q.id}: unknown document ${r}`);

  // The leaf records the product stored, re-embedded with the product's own embedder into a flat
  // index: dense, BM25 and fusion on exactly what find searches, without the hierarchy.
  const vs = app.service<VectorStoreService>('vector-store');
  const recs: Array<{ id: string; attrs: any; text: string }> = [];
  for await (const d of vs.allRecords()) if (d.attrs.account === set.account && d.level === 2) recs.push({ id: d.id, attrs: d.attrs, text: d.text });
  const dim = vs.embedder.info.dim;
  const flat = new VectorIndex({ dim });
  const vecs = await vs.embedder.embed(
    recs.map((r) => r.text),
    'document',
  );
  const buf = new Float32Array(recs.length * dim);
  vecs.forEach((v, i) => buf.set(v, i * dim));
  flat.upsert(
    recs.map((r) => r.id),
    buf,
    recs.map((r) => r.attrs),
  );
  flat.upsertText(
    recs.map((r) => r.id),
    recs.map((r) => r.text),
  );
  const recUri = new Map(recs.map((r) => [r.id, r.attrs.uri as string]));
  const plain = new PlainBm25(set.docs);
  const weight = opts.findRange ?? denseWeight(vs.embedder.info.provider);

  const sweep = opts.sweep && set.name === 'tuned' ? SWEEP : [];
  const ranges = set.name === 'tuned' ? opts.ranges : [];
  const rangeName = (r: { alphaMin: number; alphaMax: number }) => `find dense weight ${r.alphaMin}..${r.alphaMax}`;
  const extra = [...INPUTS, ...ranges.map((r) => ({ name: rangeName(r), weight: r }))];
  const names = ['find', ...INPUTS.map((i) => i.name), ...METHODS.slice(1), ...sweep.map((a) => `fusion alpha=${a}`), ...ranges.map(rangeName)];
  const scores = new Map<string, Scores>(names.map((m) => [m, new Map()]));
  let dirHits = 0;
  let allHits = 0;
  const qv = await vs.embedder.embed(
    set.questions.map((q) => q.query),
    'query',
  );
  const misses: string[] = [];
  const find = async (q: Question) => {
    const r = await call(app, headers[q.user]!, '/api/v1/search/find', { query: q.query, limit: K });
    return [...r.memories, ...r.resources, ...r.skills].sort((a: any, b: any) => b.score - a.score).slice(0, K);
  };
  rangeOverride = opts.findRange;
  for (const [qi, q] of set.questions.entries()) {
    const hits = await find(q);
    allHits += hits.length;
    dirHits += hits.filter((h: any) => !h.is_leaf).length;
    const findRanked = hits.map((h: any) => byUri.get(h.uri)?.id ?? `dir:${h.uri}`);
    const filter: VectorFilter = q.user === ALL ? { account: set.account, levels: [2] } : { account: set.account, ownerSpaces: ['', `user:${q.user}`], levels: [2] };
    const ids = (hs: Hit[]) => hs.map((h) => byUri.get(recUri.get(h.id)!)?.id ?? `?${h.id}`);
    const v = qv[qi]!;
    const ranked: Record<(typeof METHODS)[number], string[]> = {
      find: findRanked,
      dense: ids(flat.search(v, K, filter)),
      'bm25 (ctx)': ids(flat.searchText(q.query, K, filter)),
      fusion: ids(flat.hybridSearch(v, q.query, K, filter, weight)),
      'bm25 plain': plain.search(q.query, (d) => q.user === ALL || !d.user || d.user === q.user),
    };
    for (const m of METHODS) scoreInto(scores.get(m)!, q.kind, q.relevant, ranked[m]);
    for (const a of sweep) scoreInto(scores.get(`fusion alpha=${a}`)!, q.kind, q.relevant, ids(flat.hybridSearch(v, q.query, K, filter, { alpha: a })));
    if (opts.misses && !q.relevant.some((x) => findRanked.includes(x)))
      misses.push(`  ${q.id} [${q.kind}] "${q.query}" want ${q.relevant.join(',')} → find ${findRanked.slice(0, 3).join(' | ')} ; bm25 ${ranked['bm25 plain'].slice(0, 3).join(' | ')}`);
  }
  rangeOverride = null;
  for (const { name, weight } of extra) {
    rangeOverride = weight;
    try {
      for (const q of set.questions) scoreInto(scores.get(name)!, q.kind, q.relevant, (await find(q)).map((h: any) => byUri.get(h.uri)?.id ?? `dir:${h.uri}`));
    } finally {
      rangeOverride = null;
    }
  }
  return { scores, dirShare: dirHits / Math.max(1, allHits), ingestMs, records: recs.length, misses };
}

const f3 = (x: number) => x.toFixed(3);

function table(set: BenchSet, r: Awaited<ReturnType<typeof runSet>>) {
  const kinds = ['all', ...new Set(set.questions.map((q) => q.kind))];
  const counts = new Map(kinds.map((k) => [k, k === 'all' ? set.questions.length : set.questions.filter((q) => q.kind === k).length]));
  const lines = [
    `\n### ${set.name}: ${set.docs.length} documents (${r.records} leaf records in the account), ${set.questions.length} questions; written + indexed in ${(r.ingestMs / 1000).toFixed(1)} s; directory records among find's top-10 hits: ${(100 * r.dirShare).toFixed(1)}%`,
    '',
    `| method | ${kinds.map((k) => `${k} (${counts.get(k)}) R@10 / MRR`).join(' | ')} |`,
    `|---|${kinds.map(() => '---').join('|')}|`,
  ];
  const base = r.scores.get('bm25 plain')!;
  for (const m of r.scores.keys()) {
    const s = r.scores.get(m)!;
    lines.push(`| ${m} | ${kinds.map((k) => { const a = s.get(k)!; return `${f3(a.recall / a.n)} / ${f3(a.mrr / a.n)}`; }).join(' | ')} |`);
  }
  const recallOf = (m: string) => {
    const a = r.scores.get(m)!.get('all')!;
    return a.recall / a.n;
  };
  const ratio = (m: string) => {
    const a = r.scores.get(m)!.get('all')!;
    const b = base.get('all')!;
    return (a.recall / a.n / (b.recall / b.n)).toFixed(3);
  };
  lines.push('', `recall@10 ratio to plain BM25 (all questions): find ${ratio('find')}×, fusion ${ratio('fusion')}×, dense ${ratio('dense')}×, bm25 (ctx) ${ratio('bm25 (ctx)')}×; find − its own bm25 ${(recallOf('find') - recallOf('find: bm25 only')).toFixed(3)}`);
  return lines.join('\n');
}

async function main() {
  const argv = process.argv.slice(2);
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const which = (arg('--sets') ?? 'tuned,conv,tech').split(',');
  const sets: BenchSet[] = [];
  if (which.includes('tuned')) sets.push(tunedSet());
  if (which.includes('conv')) sets.push(convSet());
  if (which.includes('tech')) sets.push(techSet());
  const ranges = parseRanges(arg('--ranges'));
  const findRange = arg('--find-range') ? parseRanges(arg('--find-range'))[0]! : null;
  overridableFindRange();
  const locomo = arg('--locomo');
  if (locomo) sets.push(locomoSet(locomo));
  const { app, dir } = await startApp();
  try {
    const info = app.service<VectorStoreService>('vector-store').embedder.info;
    console.log(`retrieval held-out run: embedder ${info.provider}/${info.model} dim ${info.dim}; k=${K}; node ${process.version}`);
    const prepared = new Map<string, Prepared>();
    for (const account of new Set(sets.map((s) => s.account))) prepared.set(account, await prepare(app, account, sets.filter((s) => s.account === account)));
    for (const set of sets) {
      const r = await runSet(app, set, prepared.get(set.account)!, { misses: argv.includes('--misses'), sweep: argv.includes('--sweep'), ranges, findRange });
      console.log(table(set, r));
      if (r.misses.length) console.log(`\nfind misses (no relevant document in the top 10):\n${r.misses.join('\n')}`);
    }
  } finally {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
