/**
 * The `neural` embedder (all-MiniLM-L6-v2 in core-native) against the `local` lexical one, same run:
 * 1. embedding throughput, texts/s, for ~64-token and ~256-token English texts (prose from
 *    bench/retrieval-quality/corpus.txt, cut to 48 and 200 words: ~64 and ~256 WordPiece tokens),
 *    in calls of 1, 16 and 64 texts; baseline: the local embedder on the same texts and calls
 *    (its async path, on the libuv pool);
 * 2. write-to-findable: 2,000 × ~1 KB files through `content/batch-write` (256 per request) into
 *    an in-process app, timed until `system/wait` returns (indexed and embedded), then a probe
 *    find per 100 files; each provider in a child process of its own, which also reports its
 *    peak RSS (the model's weights are part of it).
 * Wall-clock figures suffer from other work on a shared machine; the per-CPU-second figures (this
 * process's user + system time) much less.
 * 3. find under load on those files: 16 concurrent clients for --find-seconds, p50 / p99 and finds/s.
 *   npx tsx bench/embed-neural.bench.ts [--files 2000] [--seconds 4] [--find-seconds 10] [--only throughput|ingest]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const FILES = arg('files', 2000);
const SECONDS = arg('seconds', 4);
const FIND_SECONDS = arg('find-seconds', 10);
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? process.argv[onlyAt + 1] : undefined;

const paragraphs = fs
  .readFileSync(new URL('./retrieval-quality/corpus.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('#') && !l.startsWith('@'));
let seed = 11;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
/** `words` words of corpus prose starting at a random paragraph (distinct texts: no cache helps). */
function prose(words: number): string {
  const out: string[] = [];
  while (out.length < words) out.push(...paragraphs[Math.floor(rand() * paragraphs.length)]!.split(/\s+/).filter(Boolean));
  return out.slice(0, words).join(' ');
}

async function child(provider: 'local' | 'neural'): Promise<void> {
  const { createApp } = await import('../runtime/app.js');
  const { builtinPlugins } = await import('../plugins/index.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-bench-neural-'));
  const rssBefore = process.memoryUsage().rss;
  const app = await createApp({
    env: {},
    plugins: builtinPlugins,
    config: { dataDir: dir, rootApiKey: 'bench-root-key-0123456789', authMode: 'api_key', logLevel: 'silent', accessLog: false, grpcPort: 0, embedding: { provider } },
    logSink: () => {},
  });
  const root = { 'x-api-key': 'bench-root-key-0123456789' };
  const created = await app.inject({ method: 'POST', url: '/api/v1/admin/accounts', headers: root, body: { account_id: 'bench', admin_user_id: 'alice' } });
  const key = { 'x-api-key': created.json().result.user_key as string };
  const rssStarted = process.memoryUsage().rss;
  const docs = Array.from({ length: FILES }, (_, i) => ({ uri: `ctx://resources/bench/d${Math.floor(i / 256)}/f${i}.md`, content: `# Note ${i}\n\n${prose(170)}`.slice(0, 1024) }));
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < docs.length; i += 256) {
    const r = await app.inject({ method: 'POST', url: '/api/v1/content/batch-write', headers: key, body: { root_uri: 'ctx://resources', operations: docs.slice(i, i + 256).map((d) => ({ ...d, mode: 'upsert' })) } });
    if (r.status !== 200) throw new Error(`batch-write: ${r.status} ${r.text.slice(0, 300)}`);
  }
  const stored = performance.now() - t0;
  const w = await app.inject({ method: 'POST', url: '/api/v1/system/wait', headers: root, body: { timeout: 3600 } });
  if (w.status !== 200) throw new Error(`wait: ${w.text}`);
  const findable = performance.now() - t0;
  const cu = process.cpuUsage(c0);
  const cpuSec = (cu.user + cu.system) / 1e6;
  let found = 0;
  let probes = 0;
  for (let i = 0; i < docs.length; i += 100) {
    probes++;
    const words = docs[i]!.content.split(/\s+/).slice(4, 16).join(' ');
    const r = await app.inject({ method: 'POST', url: '/api/v1/search/find', headers: key, body: { query: words, limit: 10 } });
    const hits = [...r.json().result.resources].map((m: { uri: string }) => m.uri);
    if (hits.includes(docs[i]!.uri)) found++;
  }
  // find under load: 16 concurrent clients in-process for FIND_SECONDS, each query 6 words of a
  // stored file; the query's embedding is most of a neural find's cost.
  const latencies: number[] = [];
  const findStart = performance.now();
  let q = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (performance.now() - findStart < FIND_SECONDS * 1000) {
        const d = docs[(q++ * 7919) % docs.length]!;
        const t = performance.now();
        const r = await app.inject({ method: 'POST', url: '/api/v1/search/find', headers: key, body: { query: d.content.split(/\s+/).slice(8, 14).join(' '), limit: 10 } });
        if (r.status !== 200) throw new Error(`find: ${r.status}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  const finds = { findsPerSec: latencies.length / ((performance.now() - findStart) / 1000), findP50: pct(0.5), findP99: pct(0.99) };
  const out = { provider, files: FILES, cpuSec, storedMs: stored, findableMs: findable, found, probes, ...finds, rssBeforeMb: rssBefore / 2 ** 20, rssStartedMb: rssStarted / 2 ** 20, rssEndMb: process.memoryUsage().rss / 2 ** 20, maxRssMb: process.resourceUsage().maxRSS / 1024 };
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
  process.stdout.write(JSON.stringify(out) + '\n');
}

async function runChild(provider: 'local' | 'neural'): Promise<Record<string, number | string>> {
  const p = spawn(process.execPath, ['--import', 'tsx', 'bench/embed-neural.bench.ts', '--child', provider, '--files', String(FILES), '--find-seconds', String(FIND_SECONDS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  p.stdout!.on('data', (b) => (out += b));
  const code = await new Promise<number | null>((r) => p.once('exit', r));
  if (code !== 0) throw new Error(`${provider} child exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

async function throughput(): Promise<string[]> {
  const { localEmbed, NeuralEmbedder } = await import('../runtime/native.js');
  const { defaultNeuralModelDir } = await import('../runtime/models/embedder.js');
  const neural = new NeuralEmbedder(defaultNeuralModelDir());
  const rows: string[] = [];
  /** Texts/s of `embed` over calls of `batch` texts, for about SECONDS (after one warm-up call). */
  async function rate(embed: (t: string[]) => Promise<unknown>, pool: string[][], batch: number): Promise<{ wall: number; cpu: number }> {
    await embed(pool[0]!.slice(0, batch));
    let n = 0;
    let k = 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    while (performance.now() - t0 < SECONDS * 1000 || n < batch * 2) {
      const call = pool[k++ % pool.length]!.slice(0, batch);
      await embed(call);
      n += call.length;
    }
    const wall = (n / (performance.now() - t0)) * 1000;
    const c = process.cpuUsage(c0);
    return { wall, cpu: n / ((c.user + c.system) / 1e6) };
  }
  for (const [label, words] of [
    ['~64 tokens', 48],
    ['~256 tokens', 200],
  ] as const) {
    const pool = Array.from({ length: 8 }, () => Array.from({ length: 64 }, () => prose(words)));
    for (const batch of [1, 16, 64]) {
      const n = await rate((t) => neural.embed(t), pool, batch);
      const l = await rate((t) => localEmbed.embedAsync(t, 384), pool, batch);
      rows.push(`| ${label}, calls of ${batch} | ${n.wall.toFixed(1)} texts/s (${n.cpu.toFixed(1)} per CPU-second) | local (lexical) ${Math.round(l.wall)} texts/s (${Math.round(l.cpu)} per CPU-second) | ${(n.wall / l.wall).toFixed(4)} |`);
      console.log(rows.at(-1));
    }
  }
  // Concurrent single-text calls (queries from 16 clients): the worker merges them into batches.
  const qs = Array.from({ length: 256 }, () => prose(10));
  const t0 = performance.now();
  for (let i = 0; i < qs.length; i += 16) await Promise.all(qs.slice(i, i + 16).map((q) => neural.embed([q])));
  const conc = (qs.length / (performance.now() - t0)) * 1000;
  const t1 = performance.now();
  for (const q of qs) await neural.embed([q]);
  const seq = (qs.length / (performance.now() - t1)) * 1000;
  rows.push(`| ~12-token queries, 16 concurrent single-text calls | ${conc.toFixed(1)} texts/s | the same calls one after another ${seq.toFixed(1)} texts/s | ${(conc / seq).toFixed(2)} |`);
  console.log(rows.at(-1));
  return rows;
}

const childAt = process.argv.indexOf('--child');
if (childAt > 0) {
  await child(process.argv[childAt + 1] as 'local' | 'neural');
} else {
  // Other work on a shared machine slows wall-clock figures; per-CPU-second figures much less.
  console.log(`cores: ${os.availableParallelism()}, ${os.cpus()[0]?.model}; load average at start ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log('| input, call size | neural | baseline | ratio |\n|---|---|---|---|');
  if (only !== 'ingest') await throughput();
  if (only === 'throughput') process.exit(0);
  const local = await runChild('local');
  const neural = await runChild('neural');
  const fps = (r: Record<string, number | string>) => FILES / (Number(r.findableMs) / 1000);
  console.log('\n| write-to-findable | neural | local (lexical) | ratio |\n|---|---|---|---|');
  console.log(
    `| ${FILES} × ~1 KB files, batch-write 256/request, until system/wait | ${fps(neural).toFixed(1)} files/s (${(Number(neural.findableMs) / 1000).toFixed(1)} s, ${(FILES / Number(neural.cpuSec)).toFixed(1)} files per CPU-second; probes found ${neural.found}/${neural.probes}) | ${fps(local).toFixed(1)} files/s (${(Number(local.findableMs) / 1000).toFixed(1)} s, ${(FILES / Number(local.cpuSec)).toFixed(1)} per CPU-second; probes ${local.found}/${local.probes}) | ${(fps(neural) / fps(local)).toFixed(3)} |`,
  );
  const findRow = (r: Record<string, number | string>) => `p50 ${Number(r.findP50).toFixed(1)} ms, p99 ${Number(r.findP99).toFixed(1)} ms, ${Number(r.findsPerSec).toFixed(0)} finds/s`;
  console.log(`| find over the ${FILES} files, 16 concurrent, in-process, ${FIND_SECONDS} s | ${findRow(neural)} | ${findRow(local)} | ${(Number(neural.findsPerSec) / Number(local.findsPerSec)).toFixed(3)} |`);
  console.log(`load average at end ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log(
    `| process RSS: after start / peak | ${Number(neural.rssStartedMb).toFixed(0)} / ${Number(neural.maxRssMb).toFixed(0)} MiB | ${Number(local.rssStartedMb).toFixed(0)} / ${Number(local.maxRssMb).toFixed(0)} MiB | +${(Number(neural.maxRssMb) - Number(local.maxRssMb)).toFixed(0)} MiB peak |`,
  );
}
