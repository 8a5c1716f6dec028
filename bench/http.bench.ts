/**
 * HTTP host under load (issue 2 target: authenticated fs/stat at >= 50% of bare uWS requests/s).
 * Servers run in child processes; autocannon drives them from this process, one target at a time.
 *   npx tsx bench/http.bench.ts [--duration 10] [--connections 64]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import autocannon from 'autocannon';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const duration = arg('duration', 10);
const connections = arg('connections', 64);

async function start(script: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; info: { port: number; key?: string } }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const rl = readline.createInterface({ input: child.stdout! });
  const line = await new Promise<string>((resolve, reject) => {
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, info: JSON.parse(line) };
}

async function load(title: string, url: string, headers: Record<string, string> = {}) {
  const r = await autocannon({ url, connections, duration, pipelining: 1, headers });
  const row = { target: title, 'req/s': Math.round(r.requests.average), 'p50 ms': r.latency.p50, 'p99 ms': r.latency.p99, non2xx: r.non2xx, errors: r.errors };
  console.log(JSON.stringify(row));
  return row;
}

const rows: Array<Record<string, unknown>> = [];
const bare = await start('bench/servers/bare-uws.ts');
rows.push(await load('bare uWS hello-world', `http://127.0.0.1:${bare.info.port}/`));
bare.child.kill('SIGTERM');

for (const log of ['0', '1']) {
  const ctx = await start('bench/servers/ctx-server.ts', { BENCH_LOG: log });
  const suffix = log === '1' ? ' (access log on)' : '';
  rows.push(await load(`ctx GET /health${suffix}`, `http://127.0.0.1:${ctx.info.port}/health`));
  const hasStat = (await fetch(`http://127.0.0.1:${ctx.info.port}/api/v1/fs/stat?uri=ctx://resources/docs/readme.md`, { headers: { 'x-api-key': ctx.info.key! } })).status === 200;
  const statUrl = hasStat
    ? `http://127.0.0.1:${ctx.info.port}/api/v1/fs/stat?uri=ctx://resources/docs/readme.md`
    : `http://127.0.0.1:${ctx.info.port}/api/v1/system/status`;
  rows.push(await load(`ctx authenticated ${hasStat ? 'GET /api/v1/fs/stat' : 'GET /api/v1/system/status (fs plugin absent)'}${suffix}`, statUrl, { 'x-api-key': ctx.info.key! }));
  ctx.child.kill('SIGTERM');
}

const baseline = rows[0]!['req/s'] as number;
console.log('\n| target | req/s | ratio vs bare uWS | p50 ms | p99 ms | non-2xx |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.target} | ${r['req/s']} | ${((r['req/s'] as number) / baseline).toFixed(2)} | ${r['p50 ms']} | ${r['p99 ms']} | ${r.non2xx} |`);
