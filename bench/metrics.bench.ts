/**
 * The cost of metrics and tracing (issue 24 target: <= 3% of fs/stat and of find throughput against
 * the same build with them off, in one run), made measurable on a shared machine.
 *
 * Each epoch starts four fresh servers of the same build side by side (child processes,
 * bench/servers/ctx-server.ts, seeded corpus): two of the baseline configuration (--a, default
 * `off`: CTX_METRICS=off, CTX_TRACING=false) and two of the measured one (--b, default `on`: the
 * defaults, request metrics and trace context, no OTLP endpoint, scraped every few seconds like
 * Prometheus would so the process collectors run). Each round sends a short burst (tens of ms) to
 * each server in a fresh random order over persistent connections (bench/metrics-client.ts) and
 * yields per-round ratios: b against a (the cost), and the second server of each configuration
 * against the first (an A/A control of the same two-against-two shape: the method's noise floor).
 * Other load drifts over seconds; turns a few ms apart see nearly the same machine; fresh
 * processes per epoch average out each process's own luck (JIT, layout), and the median of the
 * rounds comes with a two-level bootstrap 95% interval (epochs, then rounds) and the IQR. Per
 * burst: throughput (requests / wall time, 16 or 8 connections, one request at a time each) and
 * the server's CPU time per request (all its threads, from the scheduler's ns accounting):
 * throughput at saturation is its inverse, and other load disturbs it far less than wall time.
 *   npx tsx bench/metrics.bench.ts [--epochs 6] [--rounds 100] [--a off] [--b on] [--ticks 10]
 *     [--stat-burst 300] [--find-burst 40] [--seed 300] [--a-tree DIR] [--b-tree DIR]
 * (--a/--b: off, on, on-unscraped, on-scraped-once, on-scrape-none, on-scrape-process, on-nocollectors, on-norecord, on-requests-only, on-ascii-size, metrics, tracing:
 * to find where a cost comes from;
 * --a-tree/--b-tree: run that side's servers from another checkout, e.g. a worktree of main's HEAD
 * with this copy's node_modules and native core linked in: a before/after of two builds, same run)
 */
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import { BurstClient, type RequestSpec } from './metrics-client.js';
import { clusterBootstrapMedian, median, mulberry32, quantile, shuffle } from './metrics-stats.js';
import { cpuMicros } from './proc-cpu.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const rounds = arg('rounds', 100);
const epochs = arg('epochs', 6);
const seed = arg('seed', 300);
const SCRAPE_EVERY_MS = 5000;
/** Scrape-and-mix ticks before the warm-up. */
const ticks = arg('ticks', 10);

/**
 * What a server runs with: `off` (no metrics, no trace context), `on` (the defaults, scraped),
 * and for finding where a cost comes from: `on-unscraped` (never scraped: no process collectors),
 * `metrics` (trace context off, scraped), `tracing` (metrics off, trace context on).
 */
const CONFIGS = {
  off: { ops: 'off', scraped: false },
  on: { ops: 'on', scraped: true },
  'on-unscraped': { ops: 'on', scraped: false },
  metrics: { ops: 'metrics', scraped: true },
  tracing: { ops: 'tracing', scraped: false },
  // Scraped once, at the first round: what stays after a scrape (collectors started, code paths
  // taken) without the work of each scrape (its CPU, its garbage) recurring during the rounds.
  'on-scraped-once': { ops: 'on', scraped: 'once' },
  // Scraped, but /metrics renders only a constant line (bench/servers/ctx-server.ts BENCH_SCRAPE)
  // or only the process metrics.
  'on-scrape-none': { ops: 'on', scraped: true, env: { BENCH_SCRAPE: 'none' } },
  'on-scrape-process': { ops: 'on', scraped: true, env: { BENCH_SCRAPE: 'process' } },
  // Scraped, but the process collectors (event-loop delay, GC observer) never start and /metrics
  // renders the app's families only: the per-request recording without any process-level work.
  'on-nocollectors': { ops: 'on', scraped: true, env: { BENCH_NO_COLLECTORS: '1' } },
  // Never scraped and no process collectors: the per-request work alone.
  'on-requests-only': { ops: 'on', scraped: false, env: { BENCH_NO_COLLECTORS: '1' } },
  // Everything on, the response size read without the native call (exact for the bench's ASCII bodies).
  'on-ascii-size': { ops: 'on', scraped: true, env: { BENCH_ASCII_SIZE: '1' } },
  // Scraped, everything on, but the pipeline's per-request record skipped.
  'on-norecord': { ops: 'on', scraped: true, env: { BENCH_NO_RECORD: '1' } },
} as const;
type Config = keyof typeof CONFIGS;
interface ConfigDef {
  ops: string;
  scraped: boolean | 'once';
  env?: Record<string, string>;
}
const configDef = (c: Config): ConfigDef => CONFIGS[c];
const pick = (flag: string, dflt: Config): Config => {
  const i = process.argv.indexOf(`--${flag}`);
  const v = i > 0 ? process.argv[i + 1]! : dflt;
  if (!(v in CONFIGS)) throw new Error(`--${flag}: one of ${Object.keys(CONFIGS).join(', ')}`);
  return v as Config;
};
/** The baseline (a) and the configuration measured against it (b), two servers each. */
const A = pick('a', 'off');
const B = pick('b', 'on');
const treeArg = (flag: string) => {
  const i = process.argv.indexOf(`--${flag}`);
  return i > 0 ? path.resolve(process.argv[i + 1]!) : process.cwd();
};
const TREES = { a: treeArg('a-tree'), b: treeArg('b-tree') };
type Name = 'a1' | 'a2' | 'b1' | 'b2';
const NAMES: Name[] = ['a1', 'a2', 'b1', 'b2'];
const configOf = (name: Name): ConfigDef => configDef(name.startsWith('a') ? A : B);
interface Server {
  child: ChildProcess;
  port: number;
  key: string;
}

async function start(ops: string, extraEnv: Record<string, string> = {}, cwd = process.cwd()): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers/ctx-server.ts'], {
    cwd,
    env: { ...process.env, BENCH_OPS: ops, BENCH_SEED: String(seed), ...extraEnv },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rl = readline.createInterface({ input: child.stdout as Readable });
  const line = await new Promise<string>((resolve, reject) => {
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, ...(JSON.parse(line) as { port: number; key: string }) };
}

interface Turn {
  rps: number;
  /** Server CPU µs per request. */
  cpu: number;
}

const TARGETS = {
  'GET /api/v1/fs/stat': { connections: 16, burst: arg('stat-burst', 300), spec: (key: string): RequestSpec => ({ path: '/api/v1/fs/stat?uri=ctx://resources/docs/readme.md', headers: { 'x-api-key': key } }) },
  'POST /api/v1/search/find': { connections: 8, burst: arg('find-burst', 40), spec: (key: string): RequestSpec => ({ method: 'POST', path: '/api/v1/search/find', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'notes about ledgers and audits', limit: 10 }) }) },
} as const;
type Target = keyof typeof TARGETS;

async function turn(s: Server, client: BurstClient, n: number): Promise<Turn> {
  const cpu0 = cpuMicros(s.child.pid!);
  const t0 = performance.now();
  await client.burst(n);
  const t1 = performance.now();
  // The server records metrics and ends spans right after handing the response to the socket:
  // give it that moment before reading its CPU time.
  await new Promise((r) => setImmediate(r));
  return { rps: n / ((t1 - t0) / 1000), cpu: (cpuMicros(s.child.pid!) - cpu0) / n };
}

const random = mulberry32(20261127);
const loadAt = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const loadStart = loadAt();
const t0 = Date.now();
/** Per target, per epoch, the rounds. */
const results = new Map<Target, Array<Array<Record<Name, Turn>>>>(Object.keys(TARGETS).map((t) => [t as Target, []]));

async function epoch(): Promise<void> {
  const servers = new Map<Name, Server>();
  try {
    const started = await Promise.all(NAMES.map((name) => start(configOf(name).ops, configOf(name).env ?? {}, TREES[name[0] as 'a' | 'b'])));
    NAMES.forEach((name, i) => servers.set(name, started[i]!));
    let lastScrape = 0;
    let scrapes = 0;
    // Every few seconds: Prometheus scrapes the servers that serve /metrics, and every server
    // answers a few other routes, as a real one does between the measured requests. Without that
    // mix, a server only ever running fs/stat keeps its pipeline's code specialised to one route,
    // while the scraped ones also answer a text body through the same pipeline: a first series
    // without the mix charged `on` +10% CPU on fs/stat, with it +5% (bench/RESULTS.md).
    const scrape = async () => {
      lastScrape = Date.now();
      for (const name of NAMES) {
        const s = servers.get(name)!;
        const get = (p: string) => fetch(`http://127.0.0.1:${s.port}${p}`, { headers: { 'x-api-key': s.key } }).then((r) => r.text().then(() => r.status));
        const scraped = configOf(name).scraped;
        if ((scraped === true || (scraped === 'once' && scrapes === 0)) && (await get('/metrics')) !== 200) throw new Error('/metrics failed');
        for (const p of ['/health', '/api/v1/system/status', '/api/v1/fs/ls?uri=ctx://resources/docs', '/api/v1/fs/read?uri=ctx://resources/docs/readme.md', '/api/v1/fs/stat?uri=ctx://resources/nowhere.md', '/api/v1/no-such-route']) await get(p);
      }
      scrapes++;
    };
    for (const [target, t] of Object.entries(TARGETS) as Array<[Target, (typeof TARGETS)[Target]]>) {
      const clients = new Map<Name, BurstClient>();
      for (const name of NAMES) {
        const s = servers.get(name)!;
        clients.set(name, await BurstClient.open(s.port, t.connections, t.spec(s.key)));
      }
      // Warm-up: JIT, caches, with scrapes and the mix of other routes first, as in steady state:
      // a server's first scrape deoptimises the request path and V8 takes tens of rounds to settle
      // again (+20% CPU per fs/stat in the first third of the rounds after it, +2% in the last:
      // bench/scrape-effect.bench.ts), which a first scrape at round 0 put inside the measurement.
      // Several times (--ticks): V8 gives a function type feedback only from about its 8th call, so
      // routes seen once before the warm-up left nothing in the optimised code, and the first tick
      // of the rounds deoptimised every server's request path (the scraped ones' more) and had it
      // recompiled, on the servers' own CPU, inside the measured bursts (bench/RESULTS.md, ops6).
      for (let i = 0; i < ticks; i++) await scrape();
      for (let w = 0; w < 20; w++) for (const name of NAMES) await clients.get(name)!.burst(t.burst * 5);
      const rows: Array<Record<Name, Turn>> = [];
      for (let r = 0; r < rounds; r++) {
        if (Date.now() - lastScrape > SCRAPE_EVERY_MS) await scrape();
        const row = {} as Record<Name, Turn>;
        for (const name of shuffle(NAMES, random)) row[name] = await turn(servers.get(name)!, clients.get(name)!, t.burst);
        rows.push(row);
      }
      for (const c of clients.values()) c.close();
      results.get(target)!.push(rows);
    }
  } finally {
    for (const s of servers.values()) {
      s.child.kill('SIGTERM');
      await new Promise((r) => s.child.once('exit', r));
    }
  }
}

for (let e = 0; e < epochs; e++) {
  await epoch();
  process.stderr.write(`epoch ${e + 1}/${epochs} done, ${Math.round((Date.now() - t0) / 1000)} s, load ${loadAt()}\n`);
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
if (TREES.a !== TREES.b) console.log(`\na servers from ${TREES.a}, b servers from ${TREES.b}`);
console.log(`\n${epochs} epochs (4 fresh servers each) × ${rounds} rounds per target (bursts of ${TARGETS['GET /api/v1/fs/stat'].burst} fs/stat, ${TARGETS['POST /api/v1/search/find'].burst} find), servers in random order per round, corpus of ${seed} documents; ${Math.round((Date.now() - t0) / 1000)} s; load average ${loadStart} at the start, ${loadAt()} at the end\n`);
console.log('| target | server | req/s (median burst) | CPU µs/req (median burst) |');
console.log('|---|---|---|---|');
for (const [target, epochsRows] of results) {
  const rows = epochsRows.flat();
  for (const name of NAMES) console.log(`| ${target} | ${name} (${name.startsWith('a') ? A : B}) | ${Math.round(median(rows.map((r) => r[name].rps)))} | ${median(rows.map((r) => r[name].cpu)).toFixed(1)} |`);
}

// Per round: cost = both `on` servers against both `off` servers (geometric means); A/A = the
// second server of each configuration against the first, the same two-against-two shape with no
// difference in configuration. Throughput change (negative = slower), CPU-per-request change
// (positive = costlier); the median of all rounds, its two-level bootstrap 95% interval (epochs,
// then rounds), the IQR of the rounds and each epoch's median.
const gm = (a: number, b: number) => Math.sqrt(a * b);
console.log('\n| target | comparison | measure | median [95% CI] | IQR of rounds | epoch medians |');
console.log('|---|---|---|---|---|---|');
for (const [target, epochsRows] of results) {
  for (const [label, ratio] of [
    [`${B} vs ${A} (cost)`, (r: Record<Name, Turn>, f: (t: Turn) => number) => gm(f(r.b1), f(r.b2)) / gm(f(r.a1), f(r.a2)) - 1],
    ['A/A control', (r: Record<Name, Turn>, f: (t: Turn) => number) => gm(f(r.a2), f(r.b2)) / gm(f(r.a1), f(r.b1)) - 1],
  ] as const) {
    for (const [measure, f] of [['throughput', (t: Turn) => t.rps], ['CPU per request', (t: Turn) => t.cpu]] as const) {
      const clusters = epochsRows.map((rows) => rows.map((r) => ratio(r, f)));
      const all = clusters.flat();
      const [lo, hi] = clusterBootstrapMedian(clusters, 2000, random);
      console.log(`| ${target} | ${label} | ${measure} | **${pct(median(all))}** [${pct(lo)}, ${pct(hi)}] | ${pct(quantile(all, 0.25))} .. ${pct(quantile(all, 0.75))} | ${clusters.map((c) => pct(median(c))).join(', ')} |`);
    }
  }
}
