/**
 * Where a small request's CPU goes, from the kernel's view: Linux `perf record` (on-CPU samples,
 * JIT frames named through --perf-basic-prof) of one server under an autocannon load. V8's own
 * --cpu-prof samples wall time, which on a shared machine charges the time a thread waits to be
 * scheduled back to whatever JS frame made the syscall (a loopback send() wakes the client); perf
 * counts only time on a CPU. Prints the command to read the result.
 *   npx tsx bench/perf-record.ts [--target stat|status|health|bare] [--ops off|on] [--requests 60000]
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
const PATHS: Record<string, string> = { stat: '/api/v1/fs/stat?uri=ctx://resources/docs/readme.md', status: '/api/v1/system/status', health: '/health', bare: '/' };

const child = spawn(process.execPath, ['--perf-basic-prof', '--import', 'tsx', target === 'bare' ? 'bench/servers/bare-uws.ts' : 'bench/servers/ctx-server.ts'], {
  env: { ...process.env, BENCH_OPS: arg('ops', 'off') },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const info = JSON.parse(await new Promise<string>((r) => readline.createInterface({ input: child.stdout as Readable }).once('line', r))) as { port: number; key?: string };
const opts = { url: `http://127.0.0.1:${info.port}${PATHS[target]}`, connections: 16, headers: { 'x-api-key': info.key ?? '' } };
try {
  await autocannon({ ...opts, amount: 20000 }); // warm-up: JIT
  const perf = spawn('perf', ['record', '-F', '4999', '-g', '-o', out, '-p', String(child.pid)], { stdio: 'inherit' });
  await new Promise((r) => setTimeout(r, 500));
  const r = await autocannon({ ...opts, amount: requests });
  perf.kill('SIGINT');
  await new Promise((r) => perf.once('exit', r));
  console.log(`${r.requests.total} requests (${r.non2xx} non-2xx) recorded in ${out}: samples / 4999 / requests = CPU s per request`);
} finally {
  child.kill('SIGTERM');
}
