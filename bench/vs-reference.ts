/**
 * The comparison of issue 27, rerunnable on any machine: ctx (a fresh `node dist/server/main.js`,
 * build dist first) and, when `--reference URL` is given, a running OpenViking server, through the
 * same HTTP calls (the spec is the reference's API renamed: `viking://` for `ctx://`), against the
 * same OpenAI-compatible fake embedder on loopback (bench/servers/fake-embedder.ts, which the
 * reference must be configured to use: its URL is printed first). Rows:
 *   start-up to healthy (ctx; the reference's only with --reference-cmd), idle RSS,
 *   ingest to findable (add-resource of a local directory of N ~1 KB notes, then find polled until
 *   the last note is found), RSS after ingest, find p50 at 1 client and p50/throughput at 8,
 *   the same at 1 client over 20 repeated texts (the query-embedding cache), fs/ls at 8 clients. RSS needs the process id (`--reference-pid` for the reference).
 *   With the remote embedder: find against the embedder's own round trip, alternating (the issue's
 *   gap), and its floors — an authenticated fs/stat and a bare uWebSockets.js hello-world, each paced
 *   like the find (after an embedder call: every process has slept), p50; and a bare relay
 *   (bench/servers/bare-relay.ts: uWS that only asks the embedder and answers empty) timed against
 *   the embedder as the find is, in the find's own loop: the gap no server in ctx's place can go
 *   below here.
 *   npx tsx bench/vs-reference.ts [--files 2000] [--duration 5] [--embedder remote|local] [--delay-ms 0]
 *       [--main dist/server/main.js] [--server-flags '--max-semi-space-size=2' (default: the node flags of `npm start`)] [--reference URL --reference-key KEY [--reference-pid PID] [--reference-dir DIR]]
 * ctx's configuration can be varied through the environment (CTX_* variables pass through).
 * --reference-dir: a directory both servers may read (the reference reads the corpus from there);
 * ctx gets it as CTX_IMPORT_ROOTS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { doc } from './synthetic-corpus.js';

const arg = (name: string, dflt?: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const FILES = Number(arg('files', '2000'));
const DURATION = Number(arg('duration', '5'));
const EMBEDDER = arg('embedder', 'remote')!;
const DELAY = arg('delay-ms', '0')!;
const REFERENCE = arg('reference');
const ROOT = 'vs-reference-root-key-0123456789';
// What npm start runs; `--main` another build (a copy of dist/server from before a change).
const MAIN = path.resolve(import.meta.dirname, '..', arg('main', 'dist/server/main.js')!);
/** The node flags `npm start` passes (package.json), so the bench serves as `npm start` does. */
const START_FLAGS = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ').filter((a) => a.startsWith('--')).join(' ');

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
const rssMib = (pid: number | undefined) => {
  if (!pid) return NaN;
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 102.4) / 10 : NaN;
};
/** RSS split into anonymous memory (heaps, arenas, the index) and pages mapped from files (code). */
const rssSplit = (pid: number | undefined): Record<string, number> => {
  if (!pid) return {};
  const kb = (k: string, t: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(t)?.[1] ?? NaN);
  const t = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const mib = (x: number) => Math.round(x / 102.4) / 10;
  return { rss_anonymous_mib: mib(kb('Anonymous', t)), rss_file_mib: mib(kb('Rss', t) - kb('Anonymous', t)) };
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitHealthy(base: string, t0: number): Promise<number> {
  for (;;) {
    try {
      if ((await fetch(`${base}/health`)).status === 200) return performance.now() - t0;
    } catch {
      /* not listening yet */
    }
    if (performance.now() - t0 > 120_000) throw new Error(`${base} not healthy`);
    await sleep(2);
  }
}

// The corpus as files on disk, the tree add-resource imports.
const corpusDir = arg('reference-dir') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-vsref-corpus-'));
const docs = Array.from({ length: FILES }, (_, i) => doc(i));
for (const d of docs) {
  const rel = d.uri.replace('ctx://resources/bench/', '');
  fs.mkdirSync(path.join(corpusDir, path.dirname(rel)), { recursive: true });
  fs.writeFileSync(path.join(corpusDir, rel), d.content);
}

let embedder: ChildProcess | undefined;
let embedderUrl = '';
if (EMBEDDER === 'remote') {
  embedder = spawn(process.execPath, ['--import', 'tsx', 'bench/servers/fake-embedder.ts', '--dim', '256', '--delay-ms', DELAY], { stdio: ['ignore', 'pipe', 'inherit'] });
  embedderUrl = (JSON.parse(await new Promise<string>((r) => readline.createInterface({ input: embedder!.stdout! }).once('line', r))) as { url: string }).url;
  console.log(`fake embedder: ${embedderUrl} (model bench-embed, dim 256, delay ${DELAY} ms)`);
}

interface Target {
  name: string;
  base: string;
  key: string;
  scheme: string;
  pid?: number;
  startupMs?: number;
  idleRss?: number;
}

async function startCtx(): Promise<{ target: Target; child: ChildProcess; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-vsref-'));
  const port = await freePort();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    CTX_DATA_DIR: dir,
    CTX_PORT: String(port),
    CTX_HOST: '127.0.0.1',
    CTX_GRPC_PORT: String(await freePort()),
    CTX_ROOT_API_KEY: ROOT,
    CTX_IMPORT_ROOTS: corpusDir,
    CTX_LOG_LEVEL: 'warn',
  };
  if (EMBEDDER === 'remote') Object.assign(env, { CTX_EMBEDDING_PROVIDER: 'openai', CTX_EMBEDDING_BASE_URL: embedderUrl, CTX_EMBEDDING_MODEL: 'bench-embed', CTX_EMBEDDING_DIM: '256' });
  const t0 = performance.now();
  const child = spawn(process.execPath, [...(arg('server-flags') ?? START_FLAGS).split(' ').filter(Boolean), MAIN], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  const startupMs = await waitHealthy(base, t0);
  await sleep(3000);
  return { target: { name: 'ctx', base, key: ROOT, scheme: 'ctx://', pid: child.pid, startupMs, idleRss: rssMib(child.pid) }, child, dir };
}

const post = (t: Target, p: string, body: unknown) =>
  fetch(t.base + p, { method: 'POST', headers: { 'x-api-key': t.key, 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Note i comes back from find for its own title (`Note {i} on topic {t}`). */
async function found(t: Target, i: number): Promise<boolean> {
  const d = docs[i]!;
  const r = await post(t, '/api/v1/search/find', { query: d.content.split('\n')[0]!.slice(2), target_uri: `${t.scheme}resources/bench`, limit: 5 });
  if (r.status !== 200) return false;
  const suffix = d.uri.replace('ctx://', '');
  return JSON.stringify(await r.json()).includes(suffix);
}

async function ingest(t: Target): Promise<number> {
  const t0 = performance.now();
  const r = await post(t, '/api/v1/resources', { path: corpusDir, to: `${t.scheme}resources/bench`, wait: true, timeout: 3600 });
  if (r.status !== 200) throw new Error(`${t.name} add-resource: ${r.status} ${await r.text()}`);
  // Findable: the last note and a middle one come back from find.
  while (!(await found(t, FILES - 1)) || !(await found(t, FILES >> 1))) {
    if (performance.now() - t0 > 3_600_000) throw new Error(`${t.name}: not findable after an hour`);
    await sleep(50);
  }
  return performance.now() - t0;
}

function load(t: Target, connections: number, request: () => { method: string; path: string; body?: string }) {
  return autocannon({
    url: t.base,
    connections,
    duration: DURATION,
    requests: [{ headers: { 'x-api-key': t.key, 'content-type': 'application/json' }, setupRequest: (req: Record<string, unknown>) => ({ ...req, ...request() }) }],
  });
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
/** One client, one request at a time for DURATION s, timed with sub-millisecond resolution (autocannon rounds to 1 ms). */
type Req = { method: string; path: string; body?: string };
/** One embedding of a text no find asks for, as ctx's embedder client sends it (base64 vectors: the same bytes). */
const embedderRequest = (u: URL, i: number): Req => ({ method: 'POST', path: `${u.pathname}/embeddings`, body: JSON.stringify({ model: 'bench-embed', input: [`kalo mine rutavo zipe ${i}`], encoding_format: 'base64' }) });
/** One request on the keep-alive agent: its status and wall time, ms. */
function timed(url: string, headers: Record<string, string>, r: Req): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(url + r.path, { method: r.method, headers, agent: keepAlive }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
    });
    req.on('error', reject);
    req.end(r.body);
  });
}
const p50 = (xs: number[]) => Math.round(xs.slice().sort((a, b) => a - b)[xs.length >> 1]! * 100) / 100;

async function sequential(url: string, headers: Record<string, string>, next: () => Req): Promise<{ p50: number; perSecond: number; non2xx: number }> {
  const times: number[] = [];
  let non2xx = 0;
  const end = performance.now() + DURATION * 1000;
  while (performance.now() < end) {
    const { status, ms } = await timed(url, headers, next());
    times.push(ms);
    if (status < 200 || status >= 300) non2xx++;
  }
  return { p50: p50(times), perSecond: Math.round(times.length / DURATION), non2xx };
}

/**
 * find against the embedder's own round trip, one request of each in turn from one client for
 * DURATION seconds: both see the same moment of the machine, so their difference is ctx's own
 * part of a find with a remote embedder (the issue's target: ≤ round trip + 1 ms).
 */
async function findVsEmbedder(t: Target): Promise<{ find: number; embedder: number; gap: number; floor: number; bareFloor: number; relayGap: number } | undefined> {
  if (!embedderUrl || t.name !== 'ctx') return undefined;
  const u = new URL(embedderUrl);
  const nextFind = findRequest(t, 'alt');
  const findHeaders = { 'x-api-key': t.key, 'content-type': 'application/json' };
  const f: number[] = [];
  const e: number[] = [];
  const gaps: number[] = [];
  // The floor of the gap itself: a bare relay (bench/servers/bare-relay.ts) that only asks the
  // embedder with ctx's model client and answers an empty result, timed against the bare embedder
  // call as the find is, in the same loop (the same moments of the machine). Its gap is the two
  // extra hops and the two wake-ups (the request's, the vector's) that any server in ctx's place
  // pays, with no work at all.
  const relay = spawn(process.execPath, [...START_FLAGS.split(' ').filter(Boolean), '--import', 'tsx', 'bench/servers/bare-relay.ts', '--embedder', embedderUrl], { stdio: ['ignore', 'pipe', 'inherit'] });
  const relayPort: number = await new Promise((r) => readline.createInterface({ input: relay.stdout! }).once('line', (l) => r(JSON.parse(l).port)));
  const relayGaps: number[] = [];
  let q = 0;
  const end = performance.now() + DURATION * 1000;
  // Ended with the loop whichever way it ends: a throw here must not leave the relay running.
  try {
    while (performance.now() < end) {
      const a = await timed(t.base, findHeaders, nextFind());
      // The bare client asks what ctx's embedder client asks (base64 vectors): the same bytes.
      const b = await timed(u.origin, { 'content-type': 'application/json' }, embedderRequest(u, q++));
      f.push(a.ms);
      e.push(b.ms);
      gaps.push(a.ms - b.ms);
      const c = await timed(`http://127.0.0.1:${relayPort}`, { 'content-type': 'application/json' }, { method: 'POST', path: '/', body: JSON.stringify({ query: `relay ${q} nolu tekavi` }) });
      if (c.status !== 200) throw new Error(`bare relay answered ${c.status}`);
      const d = await timed(u.origin, { 'content-type': 'application/json' }, embedderRequest(u, q++));
      relayGaps.push(c.ms - d.ms);
    }
  } finally {
    relay.kill('SIGTERM');
  }
  // The floor this machine sets under the gap: one authenticated fs/stat (no embedder, no search)
  // in place of each find, with ctx idle for the embedder's round trip before it as before each
  // find. A find cannot cost less than this hop (client → ctx → client, both processes waking
  // from sleep); the gap's target (≤ 1 ms) is measured against the bare embedder, not this.
  // A bare uWebSockets.js hello-world, paced the same way, says how much of that hop is ctx's.
  const bare = spawn(process.execPath, ['--import', 'tsx', 'bench/servers/bare-uws.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const barePort: number = await new Promise((r) => readline.createInterface({ input: bare.stdout! }).once('line', (l) => r(JSON.parse(l).port)));
  // A note's stat (a directory's would count its children): the lightest authenticated read there is.
  const stat: Req = { method: 'GET', path: `/api/v1/fs/stat?uri=${encodeURIComponent(docs[0]!.uri)}` };
  const floor: number[] = [];
  const bareFloor: number[] = [];
  const floorEnd = performance.now() + DURATION * 1000;
  for (let i = 0; performance.now() < floorEnd; i++) {
    const s = i % 2 ? await timed(`http://127.0.0.1:${barePort}`, {}, { method: 'GET', path: '/' }) : await timed(t.base, { 'x-api-key': t.key }, stat);
    if (s.status !== 200) throw new Error(`${i % 2 ? 'bare uWS' : 'fs/stat'} answered ${s.status}`);
    await timed(u.origin, { 'content-type': 'application/json' }, embedderRequest(u, q++));
    (i % 2 ? bareFloor : floor).push(s.ms);
  }
  bare.kill('SIGTERM');
  return { find: p50(f), embedder: p50(e), gap: p50(gaps), floor: p50(floor), bareFloor: p50(bareFloor), relayGap: p50(relayGaps) };
}

/** Distinct query texts; `salt` makes a row's texts unseen by an earlier row (the query-embedding cache). */
function findRequest(t: Target, salt = '') {
  let q = 0;
  return () => {
    const w = docs[(q++ * 7919) % FILES]!.words;
    const o = (q * 13) % Math.max(1, w.length - 4);
    return { method: 'POST', path: '/api/v1/search/find', body: JSON.stringify({ query: w.slice(o, o + 4).join(' ') + (salt && ` ${salt}${q}`), limit: 10 }) };
  };
}

/** The embedder's own round trip at one client (one query text per call), p50 ms. */
async function embedderRoundTrip(): Promise<number | undefined> {
  if (!embedderUrl) return undefined;
  const u = new URL(embedderUrl);
  let q = 0;
  const r = await sequential(u.origin, { 'content-type': 'application/json' }, () => embedderRequest(u, q++));
  return r.p50;
}

interface Rows {
  startup_ms?: number;
  idle_rss_mib?: number;
  ingest_files_per_s: number;
  rss_after_ingest_mib?: number;
  find_1_p50_ms: number;
  find_1_req_s: number;
  find_1_repeated_p50_ms: number;
  find_8_p50_ms: number;
  find_8_req_s: number;
  ls_8_req_s: number;
  ls_8_p50_ms: number;
  breakdown?: Record<string, number>;
  find_vs_embedder?: { find: number; embedder: number; gap: number; floor: number; bareFloor: number; relayGap: number };
}

async function metricsBreakdown(t: Target): Promise<Record<string, number>> {
  const text = await (await fetch(`${t.base}/metrics`)).text();
  // Summed over labels (the vector index reports one line per part).
  const get = (name: string) => {
    let sum = 0;
    for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'gm'))) sum += Number(m[1]);
    return Math.round((sum / 2 ** 20) * 10) / 10;
  };
  return {
    v8_heap_used_mib: get('nodejs_heap_size_used_bytes'),
    v8_heap_total_mib: get('nodejs_heap_size_total_bytes'),
    external_mib: get('nodejs_external_memory_bytes'),
    rocksdb_memtables_mib: get('ctx_rocksdb_memtable_bytes'),
    rocksdb_block_cache_mib: get('ctx_rocksdb_block_cache_usage_bytes'),
    vector_index_mib: get('ctx_retrieval_vector_index_bytes'),
  };
}

async function measure(t: Target): Promise<Rows> {
  const ingestMs = await ingest(t);
  // Settled: 15 s without requests after the last note became findable (background indexing of
  // directory summaries ends, and V8's memory reducer runs after a few idle seconds, as in service).
  await sleep(15_000);
  const rssAfter = rssMib(t.pid);
  const breakdown = t.name === 'ctx' ? { ...rssSplit(t.pid), ...(await metricsBreakdown(t)) } : undefined;
  const f1s = await sequential(t.base, { 'x-api-key': t.key, 'content-type': 'application/json' }, findRequest(t));
  const f1 = { latency: { p50: f1s.p50 }, requests: { average: f1s.perSecond }, non2xx: f1s.non2xx };
  // The same 20 texts over and over: the query-embedding cache's case (a reference without one pays the embedder each time).
  const few = findRequest(t);
  const pool = Array.from({ length: 20 }, () => few());
  let k = 0;
  const f1r = await sequential(t.base, { 'x-api-key': t.key, 'content-type': 'application/json' }, () => pool[k++ % pool.length]!);
  const findVsEmb = await findVsEmbedder(t);
  const f8 = await load(t, 8, findRequest(t));
  const ls = await load(t, 8, () => ({ method: 'GET', path: `/api/v1/fs/ls?uri=${encodeURIComponent(`${t.scheme}resources/bench/t0/d0`)}` }));
  for (const [what, r] of [['find 1', f1], ['find 8', f8], ['ls 8', ls]] as const) if (r.non2xx) console.warn(`${t.name} ${what}: ${r.non2xx} non-2xx answers`);
  return {
    startup_ms: t.startupMs && Math.round(t.startupMs),
    idle_rss_mib: t.idleRss,
    ingest_files_per_s: Math.round((FILES / ingestMs) * 1000 * 10) / 10,
    rss_after_ingest_mib: rssAfter,
    find_1_p50_ms: f1.latency.p50,
    find_1_req_s: Math.round(f1.requests.average),
    find_1_repeated_p50_ms: f1r.p50,
    find_8_p50_ms: f8.latency.p50,
    find_8_req_s: Math.round(f8.requests.average),
    ls_8_req_s: Math.round(ls.requests.average),
    ls_8_p50_ms: ls.latency.p50,
    breakdown,
    find_vs_embedder: findVsEmb,
  };
}

const results: Array<[string, Rows]> = [];
const ctx = await startCtx();
try {
  results.push(['ctx', await measure(ctx.target)]);
} finally {
  ctx.child.kill('SIGTERM');
  await new Promise((r) => ctx.child.once('exit', r));
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}
if (REFERENCE) {
  const pid = arg('reference-pid');
  const ref: Target = { name: 'reference', base: REFERENCE.replace(/\/+$/, ''), key: arg('reference-key', '')!, scheme: 'viking://', pid: pid ? Number(pid) : undefined };
  ref.idleRss = rssMib(ref.pid);
  results.push(['reference', await measure(ref)]);
}
const rtt = await embedderRoundTrip();
embedder?.kill('SIGTERM');
if (!arg('reference-dir')) fs.rmSync(corpusDir, { recursive: true, force: true });

keepAlive.destroy();
const [c, r] = [results[0]![1], results[1]?.[1]];
const ratio = (ours: number | undefined, theirs: number | undefined, higherIsBetter: boolean) =>
  ours === undefined || theirs === undefined || !Number.isFinite(ours) || !Number.isFinite(theirs) ? '' : `${(higherIsBetter ? ours / theirs : theirs / ours).toFixed(1)}×`;
const row = (name: string, ours: string, theirs: string, x: string) => console.log(`| ${name} | ${ours} | ${theirs || '—'} | ${x || '—'} |`);
console.log(`\n${FILES} files, ${EMBEDDER === 'remote' ? `fake remote embedder (delay ${DELAY} ms; its own round trip p50 ${rtt} ms)` : 'local embedder'}, ${DURATION} s per load row, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}\n`);
console.log('| row | ctx | reference | ratio |\n|---|---|---|---|');
row('ingest to findable', `${c.ingest_files_per_s} files/s`, r ? `${r.ingest_files_per_s} files/s` : '', ratio(c.ingest_files_per_s, r?.ingest_files_per_s, true));
row('`find` one client, p50', `${c.find_1_p50_ms} ms (${c.find_1_req_s} req/s)`, r ? `${r.find_1_p50_ms} ms` : '', ratio(c.find_1_p50_ms, r?.find_1_p50_ms, false));
row('`find` one client, 20 texts repeated, p50', `${c.find_1_repeated_p50_ms} ms`, r ? `${r.find_1_repeated_p50_ms} ms` : '', ratio(c.find_1_repeated_p50_ms, r?.find_1_repeated_p50_ms, false));
row('`find` 8 clients, p50 / throughput', `${c.find_8_p50_ms} ms / ${c.find_8_req_s} req/s`, r ? `${r.find_8_p50_ms} ms / ${r.find_8_req_s} req/s` : '', r ? `${ratio(c.find_8_p50_ms, r.find_8_p50_ms, false)} / ${ratio(c.find_8_req_s, r.find_8_req_s, true)}` : '');
row('`fs/ls` 8 clients', `${c.ls_8_req_s} req/s (p50 ${c.ls_8_p50_ms} ms)`, r ? `${r.ls_8_req_s} req/s` : '', ratio(c.ls_8_req_s, r?.ls_8_req_s, true));
row('RSS idle (fresh server)', `${c.idle_rss_mib} MB`, r?.idle_rss_mib ? `${r.idle_rss_mib} MB` : '', ratio(c.idle_rss_mib, r?.idle_rss_mib, false));
row('RSS after ingest (15 s settled)', `${c.rss_after_ingest_mib} MB`, r?.rss_after_ingest_mib ? `${r.rss_after_ingest_mib} MB` : '', ratio(c.rss_after_ingest_mib, r?.rss_after_ingest_mib, false));
row('start-up to healthy', `${c.startup_ms} ms`, '', '');
if (c.find_vs_embedder)
  row('`find` vs the embedder\'s round trip, alternating, p50', `${c.find_vs_embedder.find} vs ${c.find_vs_embedder.embedder} ms (per-pair gap p50 ${c.find_vs_embedder.gap} ms)`, '', '');
if (c.find_vs_embedder)
  row('floor: `fs/stat` paced like the find (ctx idle for the embedder\'s round trip before each), p50', `${c.find_vs_embedder.floor} ms (gap − floor ${Math.round((c.find_vs_embedder.gap - c.find_vs_embedder.floor) * 100) / 100} ms); bare uWS paced the same ${c.find_vs_embedder.bareFloor} ms`, '', '');
if (c.find_vs_embedder)
  row('floor of the gap: a bare relay (uWS + ctx\'s model client, no auth, no search, empty answer) vs the embedder, in the find\'s loop, per-pair gap p50', `${c.find_vs_embedder.relayGap} ms (find's gap − the relay's ${Math.round((c.find_vs_embedder.gap - c.find_vs_embedder.relayGap) * 100) / 100} ms)`, '', '');
console.log(`\nctx memory after ingest (MiB): ${JSON.stringify(c.breakdown)}`);
