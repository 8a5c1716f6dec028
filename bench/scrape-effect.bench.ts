/**
 * What being scraped does to the requests after it (issue 24: metrics on vs off cost more than the
 * per-request recording once the server is scraped), as a difference in differences, so that each
 * process's own luck (JIT decisions, memory layout, which differ between fresh processes by more
 * than the effect) cancels out: two servers of the same build and configuration, `a` never scraped
 * and `b` scraped once halfway; per round, b's CPU time per request against a's; the figure is how
 * much that ratio moved from the rounds before the scrape to the rounds after it. Both servers get
 * the same mix of other routes every few seconds (as bench/metrics.bench.ts does); halfway b gets
 * `GET <--scrape-path>` (default /metrics) while a gets `GET <--null-path>` (default /health) from
 * the same client (`--scrape-path /health` is the null comparison).
 *   npx tsx bench/scrape-effect.bench.ts [--epochs 6] [--rounds 40] [--target stat|find]
 *     [--b-env BENCH_SCRAPE=none] [--scrape-path /metrics] [--null-path /health] [--pre-scrape]
 * (--b-env KEY=VALUE,...: b's environment for bench/servers/ctx-server.ts: BENCH_SCRAPE to render
 * only part of a scrape.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import { BurstClient, type RequestSpec } from './metrics-client.js';
import { clusterBootstrapMedian, median, mulberry32, shuffle } from './metrics-stats.js';
import { cpuMicros } from './proc-cpu.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const epochs = Number(arg('epochs', '6'));
const rounds = Number(arg('rounds', '40'));
const target = arg('target', 'stat');
const scrapePath = arg('scrape-path', '/metrics');
const nullPath = arg('null-path', '/health');
const bEnv = Object.fromEntries(
  arg('b-env', '')
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
const MIX_EVERY_MS = 5000;

interface Server {
  child: ChildProcess;
  port: number;
  key: string;
}

async function start(extraEnv: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers/ctx-server.ts'], {
    env: { ...process.env, BENCH_OPS: 'on', BENCH_SEED: target === 'find' ? '300' : '0', ...extraEnv },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout as Readable }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, ...(JSON.parse(line) as { port: number; key: string }) };
}

const spec = (key: string): RequestSpec =>
  target === 'find'
    ? { method: 'POST', path: '/api/v1/search/find', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'notes about ledgers and audits', limit: 10 }) }
    : { path: '/api/v1/fs/stat?uri=ctx://resources/docs/readme.md', headers: { 'x-api-key': key } };
const connections = target === 'find' ? 8 : 16;
const burst = target === 'find' ? 40 : 300;

async function cpuPerRequest(s: Server, c: BurstClient): Promise<number> {
  const cpu0 = cpuMicros(s.child.pid!);
  await c.burst(burst);
  await new Promise((r) => setImmediate(r));
  return (cpuMicros(s.child.pid!) - cpu0) / burst;
}

const get = (s: Server, p: string) => fetch(`http://127.0.0.1:${s.port}${p}`, { headers: { 'x-api-key': s.key } }).then((r) => r.text().then(() => r.status));
const MIX = ['/health', '/api/v1/system/status', '/api/v1/fs/ls?uri=ctx://resources/docs', '/api/v1/fs/read?uri=ctx://resources/docs/readme.md', '/api/v1/fs/stat?uri=ctx://resources/nowhere.md', '/api/v1/no-such-route'];

const random = mulberry32(20261127);
const loadAt = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const loadStart = loadAt();
const t0 = Date.now();
/** Per epoch: b/a − 1 per round after the scrape, against the median b/a before it. */
const moved: number[][] = [];
const before: number[] = [];
const after: number[] = [];

for (let e = 0; e < epochs; e++) {
  const [a, b] = await Promise.all([start({}), start(bEnv)]);
  try {
    const servers = { a: a!, b: b! };
    const clients = { a: await BurstClient.open(a!.port, connections, spec(a!.key)), b: await BurstClient.open(b!.port, connections, spec(b!.key)) };
    let lastMix = 0;
    const mix = async () => {
      lastMix = Date.now();
      for (const s of [a!, b!]) for (const p of MIX) await get(s, p);
    };
    await mix();
    // --pre-scrape: b is scraped once before the warm-up too, so the halfway scrape is its second
    // (does every scrape cost, or only the first?).
    if (process.argv.includes('--pre-scrape') && (await get(b!, scrapePath)) !== 200) throw new Error(`${scrapePath} failed`);
    for (let w = 0; w < 10; w++) for (const n of ['a', 'b'] as const) await clients[n].burst(burst * 5);
    const phase = async () => {
      const ratios: number[] = [];
      for (let r = 0; r < rounds; r++) {
        if (Date.now() - lastMix > MIX_EVERY_MS) await mix();
        const row: Record<string, number> = {};
        for (const n of shuffle(['a', 'b'] as const, random)) row[n] = await cpuPerRequest(servers[n], clients[n]);
        ratios.push(row.b! / row.a!);
      }
      return ratios;
    };
    const r1 = await phase();
    // a gets a request of the same client at the same moment: the first request of a client other
    // than the burst client's after the warm-up deoptimises the request path by itself (its headers
    // object has another hidden class), and that must cancel out of b/a.
    if ((await get(a!, nullPath)) !== 200) throw new Error(`${nullPath} failed`);
    if ((await get(b!, scrapePath)) !== 200) throw new Error(`${scrapePath} failed`);
    const r2 = await phase();
    const base = median(r1);
    moved.push(r2.map((r) => r / base - 1));
    before.push(base);
    after.push(median(r2));
    clients.a.close();
    clients.b.close();
  } finally {
    for (const s of [a, b]) {
      s!.child.kill('SIGTERM');
      await new Promise((r) => s!.child.once('exit', r));
    }
  }
  process.stderr.write(`epoch ${e + 1}/${epochs}: b/a ${before[e]!.toFixed(3)} before, ${after[e]!.toFixed(3)} after; ${Math.round((Date.now() - t0) / 1000)} s, load ${loadAt()}\n`);
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
const [lo, hi] = clusterBootstrapMedian(moved, 2000, random);
console.log(
  `\n${target === 'find' ? 'POST /api/v1/search/find' : 'GET /api/v1/fs/stat'}: ${epochs} epochs × ${rounds} + ${rounds} rounds (bursts of ${burst}), b scraped once (${scrapePath}, a got ${nullPath}${Object.keys(bEnv).length ? `, b env ${JSON.stringify(bEnv)}` : ''}); ${Math.round((Date.now() - t0) / 1000)} s; load ${loadStart} → ${loadAt()}`,
);
console.log(`b's CPU per request against a's, after the scrape vs before: **${pct(median(moved.flat()))}** [${pct(lo)}, ${pct(hi)}]; per epoch ${moved.map((m) => pct(median(m))).join(', ')}`);
// Whether it fades (V8 re-optimising after the scrape's deoptimisations) or stays.
const third = Math.max(1, Math.floor(rounds / 3));
console.log(`first third of the rounds after the scrape ${pct(median(moved.flatMap((m) => m.slice(0, third))))}, last third ${pct(median(moved.flatMap((m) => m.slice(-third))))}`);
