/**
 * Where a small request's CPU goes, from the kernel's view: Linux `perf record` (on-CPU samples,
 * JIT frames named through --perf-basic-prof) of one server under an autocannon load. V8's own
 * --cpu-prof samples wall time, which on a shared machine charges the time a thread waits to be
 * scheduled back to whatever JS frame made the syscall (a loopback send() wakes the client); perf
 * counts only time on a CPU. Prints the command to read the result.
 *   npx tsx bench/perf-record.ts [--target stat|find|status|health|bare] [--ops off|on] [--requests 60000]
 *     [--scrape] [--mix] [--ticks 1]
 * (--scrape: GET /metrics before the warm-up and every 5 s, as Prometheus would: a server with
 * metrics on is in that state in production; --mix: the same few other routes bench/metrics.bench.ts
 * sends between its bursts, at the same moments, so that an `on --scrape --mix` profile differs from
 * an `off --mix` one by the metrics only, not by the other routes' type feedback; --ticks N: that
 * scrape/mix N times before the warm-up — V8 gives a function type feedback only from about its 8th
 * call, so a route seen once before the warm-up leaves no trace in the optimised code and its next
 * call deoptimises the request path inside the measured window)
 *   perf report -i /tmp/ctx-perf.data --no-children --sort dso -g none     (kernel / node / JIT shares)
 *   perf report -i /tmp/ctx-perf.data --children --sort sym -g none        (inclusive, by function)
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import autocannon from 'autocannon';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const target = arg('target', 'stat');
const requests = Number(arg('requests', '60000'));
const out = arg('out', '/tmp/ctx-perf.data');
const PATHS: Record<string, string> = { stat: '/api/v1/fs/stat?uri=ctx://resources/docs/readme.md', find: '/api/v1/search/find', status: '/api/v1/system/status', health: '/health', bare: '/' };
const flag = (name: string) => process.argv.includes(`--${name}`);

const child = spawn(process.execPath, ['--perf-basic-prof', '--import', 'tsx', target === 'bare' ? 'bench/servers/bare-uws.ts' : 'bench/servers/ctx-server.ts'], {
  env: {
    ...process.env,
    BENCH_OPS: arg('ops', 'off'),
    // find needs a corpus (the same as bench/metrics.bench.ts's).
    ...(target === 'find' ? { BENCH_SEED: '300' } : {}),
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const info = JSON.parse(await new Promise<string>((r) => readline.createInterface({ input: child.stdout as Readable }).once('line', r))) as { port: number; key?: string };
const opts =
  target === 'find'
    ? { url: `http://127.0.0.1:${info.port}${PATHS[target]}`, connections: 8, method: 'POST' as const, headers: { 'x-api-key': info.key ?? '', 'content-type': 'application/json' }, body: JSON.stringify({ query: 'notes about ledgers and audits', limit: 10 }) }
    : { url: `http://127.0.0.1:${info.port}${PATHS[target]}`, connections: 16, headers: { 'x-api-key': info.key ?? '' } };
const MIX = ['/health', '/api/v1/system/status', '/api/v1/fs/ls?uri=ctx://resources/docs', '/api/v1/fs/read?uri=ctx://resources/docs/readme.md', '/api/v1/fs/stat?uri=ctx://resources/nowhere.md', '/api/v1/no-such-route'];
const get = async (p: string) => {
  const r = await fetch(`http://127.0.0.1:${info.port}${p}`, { headers: { 'x-api-key': info.key ?? '' } });
  await r.text();
  return r.status;
};
const tick = async () => {
  if (flag('scrape') && (await get('/metrics')) !== 200) throw new Error('/metrics failed');
  if (flag('mix')) for (const p of MIX) await get(p);
};
let scraper: NodeJS.Timeout | undefined;
if (flag('scrape') || flag('mix')) {
  for (let i = Number(arg('ticks', '1')); i > 0; i--) await tick();
  scraper = setInterval(() => void tick(), 5000);
}
try {
  await autocannon({ ...opts, amount: target === 'find' ? 4000 : 20000 }); // warm-up: JIT
  const perf = spawn('perf', ['record', '-e', 'cpu-clock', '-c', '200000', '-g', '-o', out, '-p', String(child.pid)], { stdio: 'inherit' });
  await new Promise((r) => setTimeout(r, 500));
  const r = await autocannon({ ...opts, amount: target === 'find' ? Math.round(requests / 8) : requests });
  perf.kill('SIGINT');
  await new Promise((r) => perf.once('exit', r));
  console.log(`${r.requests.total} requests (${r.non2xx} non-2xx) recorded in ${out}: samples / 4999 / requests = CPU s per request`);
} finally {
  clearInterval(scraper);
  child.kill('SIGTERM');
}
