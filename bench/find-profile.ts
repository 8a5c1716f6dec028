/**
 * `find` CPU cost at scale, in-process (issue 14): the same synthetic corpus as
 * bench/retrieval.bench.ts ingested once into a kept data dir, then `find` through `app.inject`
 * (auth, schema, handler, JSON) at a fixed concurrency. Reports CPU milliseconds per find (all
 * threads of the process: JS, libuv pool, RocksDB) next to wall latency, because CPU per request
 * is what the 2 shared cores turn into req/s and it moves far less than latency when other work
 * shares the machine. Baseline in the same run: authenticated `GET /api/v1/system/status`.
 *   npx tsx bench/find-profile.ts [--files 100000] [--finds 4000] [--conc 16] [--dir /tmp/ctx-find-100000] [--cpu-prof-out f.cpuprofile] [--cpu-prof-ingest f.cpuprofile]
 * The data dir is reused when it holds a finished ingest of the same size (delete it to rebuild).
 */
import fs from 'node:fs';
import { createApp } from '../runtime/app.js';
import { builtinPlugins } from '../plugins/index.js';
import { doc } from './synthetic-corpus.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const FILES = Number(arg('files', '100000'));
const FINDS = Number(arg('finds', '4000'));
const CONC = Number(arg('conc', '16'));
const DIR = arg('dir', `/tmp/ctx-find-${FILES}`);


const ROOT = 'bench-root-key-0123456789';
// Only the queried documents' words are kept: the whole corpus (15M words) in this heap would make
// every major GC of the server under test mark it (bench/retrieval.bench.ts keeps it in another process).
const queryOf = (i: number) => {
  const q = i + 1;
  return { doc: (q * 7919) % FILES, offset: (q * 13) };
};
const WARM = 200;
const needed = new Set<number>();
for (let i = 0; i < FINDS; i++) needed.add(queryOf(i).doc);
for (let i = 0; i < WARM; i++) needed.add(queryOf(i + 50_000).doc);
const kept = new Map<number, string[]>();
const fresh = !fs.existsSync(`${DIR}/ingested.json`);
if (fresh) fs.rmSync(DIR, { recursive: true, force: true });
fs.mkdirSync(DIR, { recursive: true });
// Cache sizes for experiments (CACHE_MAX=2000, LOC_MAX=0 ...).
const { RecordStore } = await import('../plugins/retrieval/store.js');
if (process.env.CACHE_MAX) RecordStore.CACHE_MAX = Number(process.env.CACHE_MAX);
if (process.env.LOC_MAX && 'LOC_MAX' in RecordStore) (RecordStore as unknown as { LOC_MAX: number }).LOC_MAX = Number(process.env.LOC_MAX);
// CTX_* variables pass through (e.g. CTX_VECTOR_FLAT_THRESHOLD, CTX_EMBEDDING_PROVIDER) for experiments.
const app = await createApp({ env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('CTX_'))), plugins: builtinPlugins, config: { dataDir: DIR, rootApiKey: ROOT, authMode: 'api_key', logLevel: 'silent', accessLog: false } });

async function call(key: string, method: 'GET' | 'POST', url: string, body?: unknown) {
  const r = await app.inject({ method, url, headers: { 'x-api-key': key }, body: body as never });
  if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.json().result;
}

/**
 * `--cpu-prof-out F` / `--cpu-prof-ingest F`: a V8 CPU profile of the JS thread during the find
 * phase / the ingest only (start-up and the corpus generation left out).
 */
const profiler = {
  session: null as import('node:inspector').Session | null,
  post(m: string, p?: object) {
    return new Promise<any>((res, rej) => this.session!.post(m, p ?? {}, (e, r) => (e ? rej(e) : res(r))));
  },
  async start() {
    this.session = new (await import('node:inspector')).Session();
    this.session.connect();
    await this.post('Profiler.enable');
    await this.post('Profiler.start');
  },
  async stop(file: string) {
    fs.writeFileSync(file, JSON.stringify((await this.post('Profiler.stop')).profile));
    this.session!.disconnect();
  },
};

let key: string;
if (fresh) {
  const ingestProf = arg('cpu-prof-ingest', '');
  if (ingestProf) await profiler.start();
  key = (await call(ROOT, 'POST', '/api/v1/admin/accounts', { account_id: 'bench', admin_user_id: 'alice' })).user_key;
  await call(key, 'POST', '/api/v1/fs/mkdir', { uri: 'ctx://resources/bench' });
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let batch: ReturnType<typeof doc>[] = [];
  for (let i = 0; i < FILES; i++) {
    const d = doc(i);
    if (needed.has(i)) kept.set(i, d.words);
    batch.push(d);
    if (batch.length === 256 || i === FILES - 1) {
      await call(key, 'POST', '/api/v1/content/batch-write', { root_uri: 'ctx://resources/bench', operations: batch.map((d) => ({ uri: d.uri, content: d.content, mode: 'upsert' })), wait: false });
      batch = [];
    }
  }
  for (;;) {
    try {
      await call(key, 'POST', '/api/v1/system/wait', { timeout: 30 });
      break;
    } catch {
      console.error(`still indexing after ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
  }
  const cpu = process.cpuUsage(c0);
  const s = (performance.now() - t0) / 1000;
  if (ingestProf) await profiler.stop(ingestProf);
  console.log(`ingest ${FILES} files: ${s.toFixed(1)} s wall, ${Math.round(FILES / s)} files/s; CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (${((cpu.user + cpu.system) / 1e3 / FILES).toFixed(3)} ms/file)`);
  // What the ingest did: file messages, directory refreshes, records embedded.
  console.log(((await call(key, 'GET', '/api/v1/observer/retrieval')).status as string).split('\n\n').at(-1));
  fs.writeFileSync(`${DIR}/ingested.json`, JSON.stringify({ key, files: FILES }));
} else {
  for (let i = 0; i < FILES; i++) {
    const d = doc(i);
    if (needed.has(i)) kept.set(i, d.words);
  }
  key = JSON.parse(fs.readFileSync(`${DIR}/ingested.json`, 'utf8')).key;
  await call(key, 'POST', '/api/v1/system/wait', { timeout: 600 });
}

// Finds are measured on the graph the background compaction builds past the flat threshold, with
// no compaction running (its threads would be counted as find CPU).
for (const t0 = Date.now(); ; ) {
  const st = (await call(key, 'GET', '/api/v1/observer/vectordb')).status as string;
  if (/\(hnsw\)/.test(st) || FILES < 20_000 || Date.now() - t0 > 900_000) {
    console.log(st.split('\n').find((l) => l.includes('backend'))?.trim());
    break;
  }
  await new Promise((r) => setTimeout(r, 2000));
}
const idle0 = process.cpuUsage();
await new Promise((r) => setTimeout(r, 2000));
const idle = process.cpuUsage(idle0);
console.log(`idle CPU over 2 s: ${((idle.user + idle.system) / 1e3).toFixed(0)} ms (background work still running if large)`);

async function load(n: number, req: (i: number) => Promise<unknown>) {
  const lat: number[] = [];
  let next = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONC }, async () => {
      while (next < n) {
        const i = next++;
        const s = performance.now();
        await req(i);
        lat.push(performance.now() - s);
      }
    }),
  );
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  lat.sort((a, b) => a - b);
  const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))]!.toFixed(1);
  return { cpuMs: (cpu.user + cpu.system) / 1e3 / n, rps: n / (wall / 1000), p50: pct(50), p99: pct(99) };
}

// The queries of bench/retrieval.bench.ts: 4 consecutive words of a corpus document.
const findBody = (i: number) => {
  const { doc: d, offset } = queryOf(i);
  const words = kept.get(d)!;
  const o = offset % Math.max(1, words.length - 4);
  return { query: words.slice(o, o + 4).join(' '), limit: 10 };
};
await load(WARM, (i) => call(key, 'POST', '/api/v1/search/find', findBody(i + 50_000))); // warm-up
const status = await load(FINDS, () => call(key, 'GET', '/api/v1/system/status'));
const profOut = arg('cpu-prof-out', '');
if (profOut) await profiler.start();
const find = await load(FINDS, (i) => call(key, 'POST', '/api/v1/search/find', findBody(i)));
if (profOut) await profiler.stop(profOut);
console.log(`| find, ${FILES} files, ${CONC} concurrent, in-process | CPU ${find.cpuMs.toFixed(2)} ms/find, ${Math.round(find.rps)} finds/s, p50 ${find.p50} ms, p99 ${find.p99} ms | status: CPU ${status.cpuMs.toFixed(3)} ms/req, ${Math.round(status.rps)} req/s | ${(find.cpuMs / status.cpuMs).toFixed(1)}× the CPU of status |`);
await app.close();
