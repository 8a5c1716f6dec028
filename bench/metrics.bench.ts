/**
 * The cost of metrics and tracing (issue 24 target: <= 3% of fs/stat and of find throughput).
 * The same build, three configurations, measured in one run: `off` (CTX_METRICS=off,
 * CTX_TRACING=false), `metrics` (request metrics, no trace context) and `on` (the defaults: request
 * metrics recorded, trace context on every request, no OTLP endpoint). Servers run in child processes (bench/servers/ctx-server.ts, BENCH_OPS=off|on) with a
 * seeded corpus; autocannon drives them from here, alternating off/on for --rounds rounds so drift
 * on the shared machine hits both. Each row gives req/s and the server's CPU time per request (from
 * /proc), which other load disturbs much less than req/s.
 *   npx tsx bench/metrics.bench.ts [--duration 5] [--rounds 3] [--seed 300]
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
const duration = arg('duration', 5);
const rounds = arg('rounds', 3);
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
  const row = { target, ops, rps: r.requests.average, cpu: (cpuMicros(pid) - cpu0) / r.requests.total };
  console.log(JSON.stringify({ ...row, rps: Math.round(row.rps), cpu: Math.round(row.cpu * 10) / 10, p99: r.latency.p99 }));
  return row;
}

const rows: Row[] = [];
for (let round = 0; round < rounds; round++) {
  const order: Ops[] = ['off', 'metrics', 'on'];
  for (const ops of round % 2 === 0 ? order : [...order].reverse()) {
    const s = await start(ops);
    try {
      const headers = { 'x-api-key': s.key, 'content-type': 'application/json' };
      const base = `http://127.0.0.1:${s.port}`;
      // Warm-up: JIT, caches.
      await autocannon({ url: `${base}/api/v1/fs/stat?uri=ctx://resources/docs/readme.md`, headers, connections: 16, duration: 1 });
      rows.push(await load('GET /api/v1/fs/stat', ops, s.child.pid!, { url: `${base}/api/v1/fs/stat?uri=ctx://resources/docs/readme.md`, headers, connections: 64 }));
      rows.push(
        await load('POST /api/v1/search/find', ops, s.child.pid!, {
          url: `${base}/api/v1/search/find`,
          method: 'POST',
          headers,
          connections: 16,
          body: JSON.stringify({ query: 'notes about ledgers and audits', limit: 10 }),
        }),
      );
    } finally {
      s.child.kill('SIGTERM');
      await new Promise((r) => s.child.once('exit', r));
    }
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`\n${rounds} rounds of ${duration} s per target and configuration, corpus of ${seed} documents\n`);
// Means over rounds, and the best (lowest CPU/request) round: contention only ever adds CPU time.
console.log('| target | config | req/s (mean) | throughput vs off | CPU µs/req (mean) | CPU vs off | CPU µs/req (best round) | best vs off |');
console.log('|---|---|---|---|---|---|---|---|');
for (const target of [...new Set(rows.map((r) => r.target))]) {
  const of = (ops: Ops) => rows.filter((r) => r.target === target && r.ops === ops);
  const base = of('off');
  const [rBase, cBase, bBase] = [mean(base.map((r) => r.rps)), mean(base.map((r) => r.cpu)), Math.min(...base.map((r) => r.cpu))];
  for (const ops of ['off', 'metrics', 'on'] as const) {
    const rs = of(ops);
    const [r, c, b] = [mean(rs.map((x) => x.rps)), mean(rs.map((x) => x.cpu)), Math.min(...rs.map((x) => x.cpu))];
    const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
    console.log(`| ${target} | ${ops} | ${Math.round(r)} | ${pct(r / rBase - 1)} | ${c.toFixed(1)} | ${pct(c / cBase - 1)} | ${b.toFixed(1)} | ${pct(b / bBase - 1)} |`);
  }
}
