/**
 * Retrieval end to end over HTTP with the local embedder (issue 4), server in a child process:
 * 1. write-to-findable throughput: N × ~1 KB files sent with batch-write (256 per request, 2
 *    clients), timed until `POST /api/v1/system/wait` returns (Semantic + Embedding drained) —
 *    baseline: the same batch-writes timed to their responses (storage only, indexing excluded);
 *    then one probe per 500 files checks that the file is findable;
 * 2. `find` latency at 16 concurrent clients (autocannon, distinct queries drawn from the corpus) —
 *    baseline: authenticated `GET /api/v1/system/status` at 16 clients (the HTTP ceiling).
 * Corpus: synthetic text, 40 topics × 200-word vocabularies over a 4,000-word lexicon, so queries
 * have lexical and topical neighbours.
 *   npx tsx bench/retrieval.bench.ts [--files 10000] [--duration 10]
 */
import autocannon from 'autocannon';
import { doc } from './synthetic-corpus.js';
import { findLoad, startServer } from './find-load.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const FILES = arg('files', 10_000);
const duration = arg('duration', 10);


async function call(base: string, key: string, method: string, path: string, body?: unknown) {
  const r = await fetch(base + path, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const j = (await r.json()) as { status: string; result: any; error?: unknown };
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(j.error)}`);
  return j.result;
}

async function main() {
  const rows: string[] = [];
  const server = await startServer();
  const base = `http://127.0.0.1:${server.port}`;
  const key = server.key;
  try {
    const docs = Array.from({ length: FILES }, (_, i) => doc(i));
    await call(base, key, 'POST', '/api/v1/fs/mkdir', { uri: 'ctx://resources/bench' });
    await call(base, key, 'POST', '/api/v1/system/wait', { timeout: 60 });
    const batches: (typeof docs)[] = [];
    for (let i = 0; i < docs.length; i += 256) batches.push(docs.slice(i, i + 256));
    let next = 0;
    const t0 = performance.now();
    const client = async () => {
      while (next < batches.length) {
        const b = batches[next++]!;
        await call(base, key, 'POST', '/api/v1/content/batch-write', { root_uri: 'ctx://resources/bench', operations: b.map((d) => ({ uri: d.uri, content: d.content, mode: 'upsert' })), wait: false });
      }
    };
    await Promise.all([client(), client()]);
    const stored = performance.now() - t0;
    let lastLog = performance.now();
    for (;;) {
      try {
        await call(base, key, 'POST', '/api/v1/system/wait', { timeout: 30 });
        break;
      } catch {
        if (performance.now() - lastLog > 30_000) {
          lastLog = performance.now();
          console.error(`still indexing after ${((performance.now() - t0) / 1000).toFixed(0)} s`);
        }
      }
    }
    const findable = performance.now() - t0;
    let found = 0;
    let probes = 0;
    for (let i = 0; i < docs.length; i += 500) {
      probes++;
      const d = docs[i]!;
      const r = await call(base, key, 'POST', '/api/v1/search/find', { query: d.words.slice(0, 12).join(' '), target_uri: d.uri.slice(0, d.uri.lastIndexOf('/')), limit: 10 });
      if ([...r.resources].some((m: any) => m.uri === d.uri)) found++;
    }
    const fps = FILES / (findable / 1000);
    rows.push(
      `| write-to-findable, ${FILES} × 1 KB files, batch-write 256/request, 2 clients | ${Math.round(fps)} files/s (${(findable / 1000).toFixed(1)} s; probes found ${found}/${probes}) | storage only (batch-write responses) ${Math.round(FILES / (stored / 1000))} files/s | ${(fps / (FILES / (stored / 1000))).toFixed(2)} | ≥ 1,000 files/s: ${fps >= 1000 ? 'met' : 'NOT met'} |`,
    );
    console.log(rows.at(-1));

    const status = await autocannon({ url: `${base}/api/v1/system/status`, connections: 16, duration, headers: { 'x-api-key': key } });
    const finds = await findLoad(base, key, (i) => docs[i]!.words, docs.length, duration);
    rows.push(
      `| find over ${FILES} files (+ directory records), 16 clients | p50 ${finds.latency.p50} ms, p99 ${finds.latency.p99} ms, ${Math.round(finds.requests.average)} req/s (non-2xx ${finds.non2xx}) | authenticated GET status ${Math.round(status.requests.average)} req/s, p50 ${status.latency.p50} ms | ${(finds.requests.average / status.requests.average).toFixed(3)} | p50 ≤ 10 ms: ${finds.latency.p50 <= 10 ? 'met' : 'NOT met'}; p99 ≤ 30 ms: ${finds.latency.p99 <= 30 ? 'met' : 'NOT met'} |`,
    );
    console.log(rows.at(-1));
    const obs = await call(base, key, 'GET', '/api/v1/observer/vectordb');
    console.log(obs.status);
  } finally {
    server.child.kill('SIGTERM');
  }
  console.log('\n| case | figure | baseline (same run) | ratio | target |\n|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

await main();
