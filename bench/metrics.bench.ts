/**
 * The cost of metrics and tracing (issue 24 target: <= 3% of fs/stat and of find throughput).
 * The same build, three configurations, measured in one run: `off` (CTX_METRICS=off,
 * CTX_TRACING=false), `metrics` (request metrics, no trace context) and `on` (the defaults: request
 * metrics recorded, trace context on every request, no OTLP endpoint). The servers run in child
 * processes (bench/servers/ctx-server.ts, BENCH_OPS=off|metrics|on) with a seeded corpus;
 * autocannon drives them from here in turns of --duration seconds. Reported: req/s and the
 * server's CPU time per request (from /proc), which other load disturbs much less than req/s.
 *   npx tsx bench/metrics.bench.ts [--duration 1] [--turns 12] [--seed 300]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import autocannon from 'autocannon';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const duration = arg('duration', 1);
const rounds = arg('turns', 12);
const seed = arg('seed', 300);

type Ops = 'off' | 'metrics' | 'on';

async function start(ops: Ops): Promise<{ child: ChildProcess; port: number; key: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers/ctx-server.ts'], {
    env: { ...process.env, BENCH_OPS: ops, BENCH_SEED: String(seed) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rl = readline.createInterface({ input: child.stdout as Readable });
  const line = await new Promise<string>((resolve, reject) => {
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const info = JSON.parse(line) as { port: number; key: string };
  return { child, ...info };
}

function cpuMicros(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

interface Row {
  target: string;
  ops: string;
  rps: number;
  cpu: number;
}

async function load(target: string, ops: string, pid: number, opts: Record<string, unknown>): Promise<Row> {
  const cpu0 = cpuMicros(pid);
  const r = await autocannon({ ...opts, duration, pipelining: 1 });
  if (r.non2xx || r.errors) throw new Error(`${target} (${ops}): ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { target, ops, rps: r.requests.total / duration, cpu: (cpuMicros(pid) - cpu0) / r.requests.total };
}

// All three servers run at once and are loaded in turns of one second, rotating the order, so
// the other load on this shared machine falls on all of them alike (sequential runs of several
// seconds each measured mostly that load's drift).
const rows: Row[] = [];
const order: Ops[] = ['off', 'metrics', 'on'];
const servers = new Map<Ops, Awaited<ReturnType<typeof start>>>();
try {
  for (const ops of order) servers.set(ops, await start(ops));
  const targets = (s: Awaited<ReturnType<typeof start>>) => {
    const headers = { 'x-api-key': s.key, 'content-type': 'application/json' };
    const base = `http://127.0.0.1:${s.port}`;
    return [
      { name: 'GET /api/v1/fs/stat', opts: { url: `${base}/api/v1/fs/stat?uri=ctx://resources/docs/readme.md`, headers, connections: 64 } },
      { name: 'POST /api/v1/search/find', opts: { url: `${base}/api/v1/search/find`, method: 'POST', headers, connections: 16, body: JSON.stringify({ query: 'notes about ledgers and audits', limit: 10 }) } },
    ];
  };
  // Warm-up: JIT, caches.
  for (const s of servers.values()) for (const t of targets(s)) await autocannon({ ...t.opts, duration: 1 });
  for (let slice = 0; slice < rounds; slice++) {
    const turn = order.map((_, k) => order[(k + slice) % order.length]!);
    for (const ops of turn) {
      const s = servers.get(ops)!;
      for (const t of targets(s)) rows.push(await load(t.name, ops, s.child.pid!, t.opts));
    }
  }
} finally {
  for (const s of servers.values()) {
    s.child.kill('SIGTERM');
    await new Promise((r) => s.child.once('exit', r));
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`\n${rounds} turns of ${duration} s per target and configuration, corpus of ${seed} documents\n`);
// Means over the turns, and the median turn.
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log('| target | config | req/s (mean) | throughput vs off | CPU µs/req (mean) | CPU vs off | CPU µs/req (median turn) | median vs off |');
console.log('|---|---|---|---|---|---|---|---|');
for (const target of [...new Set(rows.map((r) => r.target))]) {
  const of = (ops: Ops) => rows.filter((r) => r.target === target && r.ops === ops);
  const base = of('off');
  const [rBase, cBase, bBase] = [mean(base.map((r) => r.rps)), mean(base.map((r) => r.cpu)), median(base.map((r) => r.cpu))];
  for (const ops of ['off', 'metrics', 'on'] as const) {
    const rs = of(ops);
    const [r, c, b] = [mean(rs.map((x) => x.rps)), mean(rs.map((x) => x.cpu)), median(rs.map((x) => x.cpu))];
    const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
    console.log(`| ${target} | ${ops} | ${Math.round(r)} | ${pct(r / rBase - 1)} | ${c.toFixed(1)} | ${pct(c / cBase - 1)} | ${b.toFixed(1)} | ${pct(b / bBase - 1)} |`);
  }
}
