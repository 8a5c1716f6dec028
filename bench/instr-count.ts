/**
 * Instructions per request, counted by valgrind's callgrind: a measure of a server's own work that
 * other load on the machine does not move (this VM has no hardware counters, and at load 5-10 the
 * timing benches' A/A control moves as much as the few-µs effects being looked for). One server
 * (bench/servers/ctx-server.ts) runs under callgrind, uninstrumented through start-up; the client
 * (bench/metrics-client.ts) warms it up with the same scrape/route mix as bench/metrics.bench.ts,
 * then instrumentation is switched on for exactly the measured requests and the counts dumped.
 *   npx tsx bench/instr-count.ts [--ops on|off|metrics|tracing] [--requests 20000] [--warmup 40000]
 *     [--ticks 10] [--scrape] [--mix] [--target stat|find] [--env K=V,K=V] [--out DIR] [--cache-sim]
 * (--cache-sim: callgrind's cache simulation too; the dump then has D1/LL misses per function)
 * Prints Ir (instructions) per request for the whole process; the dump
 * (callgrind_annotate DIR/callgrind.out.<pid>) splits it by native function (JIT code is `???`).
 * Caveat: under callgrind the server runs ~50× slower, so work done per unit of wall time
 * (timers: the event-loop-delay monitor's 20 ms tick, the 5 s scrape) is ~50× over-represented per
 * request; the dump names those frames, and --no-scrape-during keeps the scrape out of the window.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import { BurstClient, type RequestSpec } from './metrics-client.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const flag = (name: string) => process.argv.includes(`--${name}`);
const ops = arg('ops', 'on');
const requests = Number(arg('requests', '20000'));
const warmup = Number(arg('warmup', '40000'));
const ticks = Number(arg('ticks', '10'));
const target = arg('target', 'stat');
const outDir = path.resolve(arg('out', '/tmp/ctx-instr'));
const extraEnv = Object.fromEntries(
  arg('env', '')
    .split(',')
    .filter(Boolean)
    .map((kv) => kv.split('=') as [string, string]),
);
fs.mkdirSync(outDir, { recursive: true });

const child = spawn(
  'valgrind',
  ['--tool=callgrind', ...(flag('cache-sim') ? ['--cache-sim=yes'] : []), '--smc-check=all-non-file', '--instr-atstart=no', '--dump-instr=no', `--callgrind-out-file=${outDir}/callgrind.out.%p`, process.execPath, '--perf-basic-prof', '--import', 'tsx', 'bench/servers/ctx-server.ts'],
  {
    env: { ...process.env, BENCH_OPS: ops, BENCH_INFO_FD: '3', ...(target === 'find' ? { BENCH_SEED: '300' } : {}), ...extraEnv },
    stdio: ['ignore', 'ignore', fs.openSync(path.join(outDir, 'valgrind.log'), 'a'), 'pipe'],
  },
);
const info = JSON.parse(await new Promise<string>((r) => readline.createInterface({ input: child.stdio[3] as Readable }).once('line', r))) as { port: number; key: string };
const spec: RequestSpec =
  target === 'find'
    ? { method: 'POST', path: '/api/v1/search/find', headers: { 'x-api-key': info.key, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'notes about ledgers and audits', limit: 10 }) }
    : { path: '/api/v1/fs/stat?uri=ctx://resources/docs/readme.md', headers: { 'x-api-key': info.key } };
const MIX = ['/health', '/api/v1/system/status', '/api/v1/fs/ls?uri=ctx://resources/docs', '/api/v1/fs/read?uri=ctx://resources/docs/readme.md', '/api/v1/fs/stat?uri=ctx://resources/nowhere.md', '/api/v1/no-such-route'];
const get = async (p: string) => {
  const r = await fetch(`http://127.0.0.1:${info.port}${p}`, { headers: { 'x-api-key': info.key } });
  await r.text();
  return r.status;
};
const tick = async () => {
  if (flag('scrape') && (await get('/metrics')) !== 200) throw new Error('/metrics failed');
  if (flag('mix')) for (const p of MIX) await get(p);
};
const ctl = (...a: string[]) => execFileSync('callgrind_control', [...a, String(child.pid)], { encoding: 'utf8' });
const t0 = Date.now();
try {
  for (let i = 0; i < ticks; i++) await tick();
  const client = await BurstClient.open(info.port, target === 'find' ? 8 : 16, spec);
  for (let done = 0; done < warmup; done += 1000) await client.burst(1000);
  // One more tick so the measured window starts right after one, as the timing bench's rounds do.
  await tick();
  const tWarm = Date.now();
  ctl('--instr=on');
  ctl('--zero');
  for (let done = 0; done < requests; done += 1000) await client.burst(Math.min(1000, requests - done));
  ctl('--dump=measured');
  const tEnd = Date.now();
  ctl('--instr=off');
  client.close();
  const dumps = fs.readdirSync(outDir).filter((f) => f.startsWith(`callgrind.out.${child.pid}`));
  let ir = 0;
  for (const f of dumps) {
    const text = fs.readFileSync(path.join(outDir, f), 'utf8');
    if (!/^desc: Trigger: dump measured$/m.test(text)) continue;
    const summary = /^summary: (\d+)/m.exec(text);
    if (summary) ir += Number(summary[1]);
  }
  // JIT code has no symbols for valgrind: name it from the perf map --perf-basic-prof wrote.
  const mapFile = `/tmp/perf-${child.pid}.map`;
  if (fs.existsSync(mapFile)) fs.copyFileSync(mapFile, path.join(outDir, `perf-${child.pid}.map`));
  console.log(
    JSON.stringify({ ops, target, env: extraEnv, scrape: flag('scrape'), mix: flag('mix'), requests, warmup, irPerRequest: Math.round(ir / requests), dumps, warmupS: (tWarm - t0) / 1000, measuredS: (tEnd - tWarm) / 1000 }),
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}
