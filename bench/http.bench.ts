/**
 * HTTP host under load (issue 2 target: authenticated fs/stat at >= 50% of bare uWS requests/s).
 * Servers run in child processes; autocannon drives them from this process, one target at a time.
 * With the access log on, the server's stdout is a real file, as when a process manager captures
 * it: the figure includes formatting the lines and writing them (a discarding sink would hide the
 * writes). The fs plugin's `GET /api/v1/fs/stat` is the authenticated request; without that plugin
 * the bench falls back to `GET /api/v1/system/status` and says so in the row's label. Each row also
 * gives the server process's CPU time per request (from /proc), which other load on the machine
 * disturbs much less than req/s.
 *   npx tsx bench/http.bench.ts [--duration 10] [--connections 64]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import autocannon from 'autocannon';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const duration = arg('duration', 10);
const connections = arg('connections', 64);

/** Starts a server; with `stdoutFile` its stdout goes there and it reports its port on fd 3. */
async function start(script: string, env: Record<string, string> = {}, stdoutFile?: string): Promise<{ child: ChildProcess; info: { port: number; key?: string } }> {
  const out = stdoutFile ? fs.openSync(stdoutFile, 'w') : 'pipe';
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env, ...(stdoutFile ? { BENCH_INFO_FD: '3' } : {}) },
    stdio: ['ignore', out, 'inherit', 'pipe'],
  });
  if (typeof out === 'number') fs.closeSync(out);
  const rl = readline.createInterface({ input: (stdoutFile ? child.stdio[3] : child.stdout) as Readable });
  const line = await new Promise<string>((resolve, reject) => {
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, info: JSON.parse(line) };
}

/** CPU time (user + system, µs) the server process has used, from /proc: contention on a shared machine changes req/s far more than it changes this. */
function cpuMicros(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the file, 12 and 13 after "pid (comm) ".
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100;

async function load(title: string, url: string, server: ChildProcess, headers: Record<string, string> = {}) {
  const cpu0 = cpuMicros(server.pid!);
  const r = await autocannon({ url, connections, duration, pipelining: 1, headers });
  const cpuPerReq = (cpuMicros(server.pid!) - cpu0) / r.requests.total;
  const row = { target: title, 'req/s': Math.round(r.requests.average), 'server CPU µs/req': Math.round(cpuPerReq * 10) / 10, 'p50 ms': r.latency.p50, 'p99 ms': r.latency.p99, non2xx: r.non2xx, errors: r.errors };
  console.log(JSON.stringify(row));
  return row;
}

const rows: Array<Record<string, unknown>> = [];
const bare = await start('bench/servers/bare-uws.ts');
rows.push(await load('bare uWS hello-world', `http://127.0.0.1:${bare.info.port}/`, bare.child));
bare.child.kill('SIGTERM');

const logFile = path.join(os.tmpdir(), `ctx-http-bench-${process.pid}.log`);
for (const log of ['0', '1']) {
  const ctx = await start('bench/servers/ctx-server.ts', { BENCH_LOG: log }, log === '1' ? logFile : undefined);
  const suffix = log === '1' ? ' (access log on, stdout to a file)' : '';
  rows.push(await load(`ctx GET /health${suffix}`, `http://127.0.0.1:${ctx.info.port}/health`, ctx.child));
  const hasStat = (await fetch(`http://127.0.0.1:${ctx.info.port}/api/v1/fs/stat?uri=ctx://resources/docs/readme.md`, { headers: { 'x-api-key': ctx.info.key! } })).status === 200;
  const statUrl = hasStat
    ? `http://127.0.0.1:${ctx.info.port}/api/v1/fs/stat?uri=ctx://resources/docs/readme.md`
    : `http://127.0.0.1:${ctx.info.port}/api/v1/system/status`;
  rows.push(await load(`ctx authenticated ${hasStat ? 'GET /api/v1/fs/stat' : 'GET /api/v1/system/status (fs plugin absent)'}${suffix}`, statUrl, ctx.child, { 'x-api-key': ctx.info.key! }));
  // The host's own cost (auth, routing, envelope, access log) without the fs plugin's work.
  if (hasStat) rows.push(await load(`ctx authenticated GET /api/v1/system/status${suffix}`, `http://127.0.0.1:${ctx.info.port}/api/v1/system/status`, ctx.child, { 'x-api-key': ctx.info.key! }));
  ctx.child.kill('SIGTERM');
  if (log === '1') {
    await new Promise((r) => ctx.child.once('exit', r));
    const lines = fs.readFileSync(logFile, 'utf8').split('\n').filter((l) => l.includes('"msg":"request"')).length;
    console.log(`access-log lines written: ${lines}`);
    fs.rmSync(logFile, { force: true });
  }
}

// Two ratios against bare uWS: measured req/s (what the target names; noisy when other work shares
// the cores) and server CPU per request inverted (the req/s ratio an otherwise idle core would give).
const baseline = rows[0]!['req/s'] as number;
const baseCpu = rows[0]!['server CPU µs/req'] as number;
console.log('\n| target | req/s | × bare uWS (req/s) | server CPU µs/req | × bare uWS (CPU) | p50 ms | p99 ms | non-2xx |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${r.target} | ${r['req/s']} | ${((r['req/s'] as number) / baseline).toFixed(2)} | ${r['server CPU µs/req']} | ${(baseCpu / (r['server CPU µs/req'] as number)).toFixed(2)} | ${r['p50 ms']} | ${r['p99 ms']} | ${r.non2xx} |`,
  );
