/**
 * The time before the handler (issue 27 item 2 target: <= 0.1 ms), measured by the server itself:
 * a ctx server with profiling on answers `fs/stat?profile=1` with its own timings, from the moment
 * the socket adapter saw the request: `body` (a POST's body arriving after its headers: the client's
 * pace, reported apart), `queued` (the hop to the next loop turn, waiting behind other requests),
 * `auth` (routing, body limit, authentication) and `parse` (query and body validation); queued +
 * auth + parse is the time before the handler starts. One client (requests one after
 * another: the floor itself) and 16 (queueing included), over keep-alive connections.
 *   npx tsx bench/floor.bench.ts [--requests 3000]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
import type { Readable } from 'node:stream';

const i = process.argv.indexOf('--requests');
const requests = i > 0 ? Number(process.argv[i + 1]) : 3000;
const loadAt = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

// The defaults (metrics and trace context on), and a corpus for find.
const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers/ctx-server.ts'], { env: { ...process.env, BENCH_PROFILING: '1', BENCH_OPS: 'on', BENCH_SEED: '300' }, stdio: ['ignore', 'pipe', 'inherit'] });
const line = await new Promise<string>((resolve, reject) => {
  readline.createInterface({ input: child.stdout as Readable }).once('line', resolve);
  child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
});
const { port, key } = JSON.parse(line) as { port: number; key: string };
const base = `http://127.0.0.1:${port}`;
const TARGETS = {
  'GET /api/v1/fs/stat': () => fetch(`${base}/api/v1/fs/stat?uri=ctx://resources/docs/readme.md&profile=1`, { headers: { 'x-api-key': key } }),
  'POST /api/v1/search/find': () =>
    fetch(`${base}/api/v1/search/find?profile=1`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'notes about ledgers and audits', limit: 10 }) }),
};
type Target = keyof typeof TARGETS;

interface Sample {
  body: number;
  queued: number;
  auth: number;
  parse: number;
  handler: number;
}

async function one(target: Target): Promise<Sample> {
  const r = await TARGETS[target]();
  const body = (await r.json()) as { profile?: string[] };
  if (r.status !== 200 || !body.profile) throw new Error(`${target}: ${r.status} ${JSON.stringify(body)}`);
  const ms = (label: string) => {
    const line = body.profile!.find((l) => l.startsWith(label + ':'));
    return line === undefined ? 0 : Number(/: ([\d.]+) ms$/.exec(line)![1]);
  };
  return { body: ms('body'), queued: ms('queued'), auth: ms('auth'), parse: ms('parse'), handler: ms('handler') };
}

async function run(target: Target, clients: number, n: number): Promise<Sample[]> {
  const out: Sample[] = [];
  await Promise.all(Array.from({ length: clients }, async () => {
    for (let k = 0; k < Math.ceil(n / clients); k++) out.push(await one(target));
  }));
  return out;
}

const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const f = (x: number) => x.toFixed(3);
const load0 = loadAt();
try {
  console.log(`${requests} requests per row (find: a tenth); load average ${load0} at the start\n`);
  console.log('| target | clients | before the handler p50 / p90 ms | body p50 (apart) | queued p50 | auth p50 | parse p50 | handler p50 |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const target of Object.keys(TARGETS) as Target[]) {
    const n = target.includes('find') ? Math.ceil(requests / 10) : requests;
    await run(target, 4, n); // warm-up: JIT, caches
    for (const clients of [1, 16]) {
      const s = await run(target, clients, n);
      const before = s.map((x) => x.queued + x.auth + x.parse);
      console.log(`| ${target} | ${clients} | **${f(q(before, 0.5))}** / ${f(q(before, 0.9))} | ${f(q(s.map((x) => x.body), 0.5))} | ${f(q(s.map((x) => x.queued), 0.5))} | ${f(q(s.map((x) => x.auth), 0.5))} | ${f(q(s.map((x) => x.parse), 0.5))} | ${f(q(s.map((x) => x.handler), 0.5))} |`);
    }
  }
  console.log(`\nload average ${loadAt()} at the end`);
} finally {
  child.kill('SIGTERM');
}
