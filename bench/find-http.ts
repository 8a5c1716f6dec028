/**
 * `find` over HTTP at 16 clients on a data dir already ingested by bench/find-profile.ts, so find
 * changes can be measured in a minute instead of re-ingesting 100,000 files each time (the full
 * bench/retrieval.bench.ts does both). Server in a child process (bench/servers/ctx-server.ts with
 * BENCH_DATA_DIR), autocannon here, queries as bench/retrieval.bench.ts draws them (4 consecutive
 * words of a corpus document). Baseline in the same run: authenticated GET /api/v1/system/status.
 *   npx tsx bench/find-profile.ts --files 100000 --finds 100   # once, builds /tmp/ctx-find-100000
 *   npx tsx bench/find-http.ts [--dir /tmp/ctx-find-100000] [--duration 10] [--cpu-prof-dir d] [--no-status] [--oov]
 * --oov: each query gets a word no document has, so the fusion keeps a dense weight and the graph
 * walk runs (the path of paraphrases and typos; the bench's plain queries skip it).
 * --cpu-prof-dir d: the server writes a V8 CPU profile of its whole run into d at exit.
 */
import fs from 'node:fs';
import autocannon from 'autocannon';
import { doc } from './synthetic-corpus.js';
import { findLoad, startServer } from './find-load.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const DIR = arg('dir', '/tmp/ctx-find-100000');
const duration = Number(arg('duration', '10'));
const profDir = arg('cpu-prof-dir', '');
const { files } = JSON.parse(fs.readFileSync(`${DIR}/ingested.json`, 'utf8')) as { files: number };

const words = Array.from({ length: files }, (_, i) => doc(i).words);
const server = await startServer({ BENCH_DATA_DIR: DIR }, profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []);
const base = `http://127.0.0.1:${server.port}`;
const headers = { 'x-api-key': server.key, 'content-type': 'application/json' };
try {
  // The index loads (or rebuilds) before the first find; wait until it is the graph.
  for (const t0 = Date.now(); Date.now() - t0 < 600_000; ) {
    const r = await fetch(`${base}/api/v1/observer/vectordb`, { headers });
    const st = ((await r.json()) as { result: { status: string } }).result.status;
    if (/\(hnsw\)/.test(st) || files < 20_000) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  // --no-status: skip the baseline (a CPU profile of the server then shows the find phase alone).
  const status = process.argv.includes('--no-status')
    ? { requests: { average: NaN } }
    : await autocannon({ url: `${base}/api/v1/system/status`, connections: 16, duration, headers: { 'x-api-key': server.key } });
  const oov = process.argv.includes('--oov');
  const finds = await findLoad(base, server.key, (i) => words[i]!, files, duration, oov);
  console.log(
    `| find over ${files} files, 16 clients (kept data dir${oov ? '; each query with a word no document has' : ''}) | p50 ${finds.latency.p50} ms, p99 ${finds.latency.p99} ms, ${Math.round(finds.requests.average)} req/s (non-2xx ${finds.non2xx}) | status ${Math.round(status.requests.average)} req/s | ${(finds.requests.average / status.requests.average).toFixed(3)} |`,
  );
} finally {
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
}
