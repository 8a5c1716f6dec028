/**
 * The real service in its own process, on a free port, with a fresh data dir; prints its port and a
 * user key as one JSON line: on stdout, or on the file descriptor named by BENCH_INFO_FD. With
 * BENCH_LOG=1 the logs (access log included) go to stdout as in production, so the bench measures
 * their real cost (point stdout at a file or a pipe that is read); otherwise logging is off.
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../runtime/app.js';
import { builtinPlugins } from '../../plugins/index.js';

// BENCH_DATA_DIR: serve a data dir bench/find-profile.ts ingested (kept at exit; its key is in
// ingested.json) instead of a fresh one.
const kept = process.env.BENCH_DATA_DIR;
// BENCH_NO_RECORD=1: the pipeline skips its per-request metrics record (everything else as configured).
if (process.env.BENCH_NO_RECORD === '1') {
  const { Pipeline } = await import('../../runtime/http/pipeline.js');
  (Pipeline.prototype as unknown as { record: () => void }).record = () => {};
}
// BENCH_ASCII_SIZE=1: Buffer.byteLength of a string answers its length without the native call
// (exact for ASCII: the bench's bodies): what the response-size metric's native call costs.
if (process.env.BENCH_ASCII_SIZE === '1') {
  const native = Buffer.byteLength;
  Buffer.byteLength = ((s: Parameters<typeof native>[0], e?: BufferEncoding) => (typeof s === 'string' && e === undefined ? s.length : native(s, e))) as typeof native;
}
// BENCH_NO_COLLECTORS=1: the process collectors (event-loop-delay histogram, GC observer) never
// start, and /metrics renders the app's families only (bench/metrics.bench.ts `on-nocollectors`).
const noCollectors = process.env.BENCH_NO_COLLECTORS === '1';
if (noCollectors) {
  const { Metrics } = await import('../../runtime/metrics/registry.js');
  Metrics.prototype.startProcessCollectors = () => {};
  Metrics.prototype.text = async function (this: InstanceType<typeof Metrics>) {
    let s = '';
    for (const f of (this as unknown as { families: Map<string, { render(): string | Promise<string> }> }).families.values()) s += await f.render();
    return s;
  };
}
const dir = kept ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-bench-'));
const app = await createApp({
  env: {},
  plugins: builtinPlugins,
  config: {
    dataDir: dir,
    rootApiKey: 'bench-root-key-0123456789',
    authMode: 'api_key',
    logLevel: process.env.BENCH_LOG === '1' ? 'info' : 'silent',
    accessLog: process.env.BENCH_LOG === '1',
    // BENCH_PROFILING=1: `?profile=1` answers with the server's own timings (bench/floor.bench.ts).
    ...(process.env.BENCH_PROFILING === '1' ? { profiling: true } : {}),
    // BENCH_OPS=off: no request metrics and no trace context (bench/metrics.bench.ts's baseline);
    // BENCH_OPS=metrics: metrics without trace context; BENCH_OPS=tracing: trace context without metrics.
    ...({ off: { metrics: 'off' as const, tracing: false }, metrics: { tracing: false }, tracing: { metrics: 'off' as const } } as Record<string, object>)[process.env.BENCH_OPS ?? ''],
    // Several of these servers run at once there: no gRPC listener to fight over.
    ...(process.env.BENCH_OPS ? { grpcPort: 0 } : {}),
  },
});
let key: string;
if (kept) key = JSON.parse(fs.readFileSync(path.join(kept, 'ingested.json'), 'utf8')).key as string;
else {
  const created = await app.inject({ method: 'POST', url: '/api/v1/admin/accounts', headers: { 'x-api-key': 'bench-root-key-0123456789' }, body: { account_id: 'bench', admin_user_id: 'alice' } });
  key = created.json().result.user_key as string;
  await app.vfs.writeFile('bench', 'resources/docs/readme.md', Buffer.from('# bench\n'.repeat(64)));
  // BENCH_SEED=n: n more small documents, indexed before the port is announced (find has a corpus).
  const seed = Number(process.env.BENCH_SEED ?? 0);
  for (let i = 0; i < seed; i++)
    await app.vfs.writeFile('bench', `resources/corpus/d${i}.md`, Buffer.from(`# Document ${i}\n\nNote ${i} about ${['rivers', 'engines', 'ledgers', 'gardens', 'compilers'][i % 5]} and ${['tides', 'pistons', 'audits', 'seeds', 'parsers'][(i * 7) % 5]} number ${i % 37}.\n`));
  if (seed) await app.queues.waitIdle(600_000);
}
// BENCH_SCRAPE=none|process|elu: what GET /metrics renders (a bench switch, to find which part of a
// scrape costs the requests after it): `none` a constant line, `process` only the process families
// (not the app's: HTTP, queues, tasks, RocksDB, plugins), `elu` one performance.eventLoopUtilization().
// Unset: everything, as in production.
const scrapeOnly = process.env.BENCH_SCRAPE;
if (scrapeOnly === 'none') (app.metrics as { text: () => Promise<string> }).text = async () => '# scrape switched off (BENCH_SCRAPE=none)\n';
if (scrapeOnly === 'elu') (app.metrics as { text: () => Promise<string> }).text = async () => `# elu ${performance.eventLoopUtilization().utilization}\n`;
if (scrapeOnly === 'process') {
  const { processFamilies } = await import('../../runtime/metrics/process-metrics.js');
  (app.metrics as { text: () => Promise<string> }).text = async () => {
    let s = '';
    for (const f of processFamilies()) s += await f.render();
    return s;
  };
}
// BENCH_PRELOAD=render: the whole exposition rendered once before the port is announced.
if (process.env.BENCH_PRELOAD === 'render') await app.metrics.text();
const server = await app.listen(0, '127.0.0.1');
const info = JSON.stringify({ port: server.port, key }) + '\n';
if (process.env.BENCH_INFO_FD) fs.writeSync(Number(process.env.BENCH_INFO_FD), info);
else process.stdout.write(info);
const stop = async () => {
  await app.close();
  if (!kept) fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
