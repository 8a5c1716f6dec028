/**
 * `ctx` start-up: wall time of `ctx --version` and of `ctx ls` against a running local server
 * (median of 20 child processes each, interleaved), with bare `node -e 0` measured in the same run
 * as the floor no Node CLI can beat, and bare scripts making the same `ls` request with fetch and
 * with node:http (what the CLI uses) as the floors for `ls`. Targets (issue 21): --version ≤ 100 ms, ls ≤ 200 ms.
 *   npx tsx bench/cli.bench.ts [--runs 20]
 * Needs the built CLI (npm run setup, or npm run build -w ctx-client -w ctx-cli).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startServer } from './find-load.js';

const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 20;
const BIN = path.resolve('clients/cli/bin/ctx.js');
if (!fs.existsSync(path.resolve('clients/cli/dist/main.js'))) throw new Error('build the CLI first: npm run build -w ctx-client -w ctx-cli');

const server = await startServer();
const env = { PATH: process.env.PATH ?? '', HOME: '/nonexistent', CTX_URL: `http://127.0.0.1:${server.port}`, CTX_API_KEY: server.key };
const cases: Array<[string, string[]]> = [
  ['node -e 0 (floor)', ['-e', '0']],
  ['ctx --version', [BIN, '--version']],
  // The floor for `ls`: the same request from a bare script (Node's fetch is lazily loaded and its
  // first request costs tens of ms on its own).
  ['node: one fetch of fs/ls (floor for ls)', ['--input-type=module', '-e', `const r = await fetch(process.env.CTX_URL + '/api/v1/fs/ls?uri=ctx%3A%2F%2Fresources%2Fdocs', { headers: { 'x-api-key': process.env.CTX_API_KEY } }); if (!r.ok) process.exit(1); process.stdout.write(await r.text()); process.exit();`]],
  // The floor for the CLI's own transport: the same request with node:http (no undici to load).
  ['node: one node:http GET of fs/ls (floor for ls over node:http)', ['--input-type=module', '-e', `import http from 'node:http'; http.get(process.env.CTX_URL + '/api/v1/fs/ls?uri=ctx%3A%2F%2Fresources%2Fdocs', { headers: { 'x-api-key': process.env.CTX_API_KEY } }, (res) => { if (res.statusCode !== 200) process.exit(1); const c = []; res.on('data', (d) => c.push(d)); res.on('end', () => { process.stdout.write(Buffer.concat(c)); process.exit(); }); });`]],
  ['ctx ls resources/docs', [BIN, 'ls', 'resources/docs']],
  ['ctx ls resources/docs --json', [BIN, 'ls', 'resources/docs', '--json']],
];
const times = new Map<string, number[]>(cases.map(([name]) => [name, []]));
try {
  const check = spawnSync(process.execPath, [BIN, 'ls', 'resources/docs'], { env, encoding: 'utf8' });
  if (check.status !== 0 || !check.stdout.includes('readme.md')) throw new Error(`ctx ls failed: ${check.stderr}`);
  // Interleaved, so a load spike on the shared machine hits every case alike.
  for (let i = 0; i < RUNS + 2; i++) {
    for (const [name, args] of cases) {
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, args, { env, stdio: 'ignore' });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0) throw new Error(`${name} exited ${r.status}`);
      if (i >= 2) times.get(name)!.push(ms); // two warm-up rounds (page cache)
    }
  }
} finally {
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const floor = median(times.get('node -e 0 (floor)')!);
console.log(`| command (median of ${RUNS}) | wall ms | over node -e 0 | ratio to node -e 0 |`);
console.log('|---|---|---|---|');
for (const [name] of cases) {
  const m = median(times.get(name)!);
  console.log(`| ${name} | ${m.toFixed(0)} | +${(m - floor).toFixed(0)} | ${(m / floor).toFixed(2)} |`);
}
console.log(`(load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')})`);
