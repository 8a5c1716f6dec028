/**
 * GC events per request with --trace-gc: how many scavenges and mark-compacts N fs/stat cause after
 * a warm-up, for one server configuration (throw-away diagnostic, issue 24 ops7).
 *   npx tsx bench/gc-count.ts [--ops on|off] [--requests 200000] [--scrape] [--mix] [--env K=V,...]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import { BurstClient } from './metrics-client.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const flag = (name: string) => process.argv.includes(`--${name}`);
const requests = Number(arg('requests', '200000'));
const extraEnv = Object.fromEntries(arg('env', '').split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string]));
const nodeFlags = arg('node-flags', '').split(' ').filter(Boolean);
const child = spawn(process.execPath, ['--trace-gc', ...nodeFlags, '--import', 'tsx', 'bench/servers/ctx-server.ts'], {
  env: { ...process.env, BENCH_OPS: arg('ops', 'on'), BENCH_INFO_FD: '3', ...extraEnv },
  stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
});
let lines: string[] = [];
readline.createInterface({ input: child.stdout as Readable }).on('line', (l) => lines.push(l));
const info = JSON.parse(await new Promise<string>((r) => readline.createInterface({ input: child.stdio[3] as Readable }).once('line', r))) as { port: number; key: string };
const MIX = ['/health', '/api/v1/system/status', '/api/v1/fs/ls?uri=ctx://resources/docs', '/api/v1/fs/read?uri=ctx://resources/docs/readme.md', '/api/v1/fs/stat?uri=ctx://resources/nowhere.md', '/api/v1/no-such-route'];
const get = async (p: string) => (await fetch(`http://127.0.0.1:${info.port}${p}`, { headers: { 'x-api-key': info.key } })).text();
const tick = async () => {
  if (flag('scrape')) await get('/metrics');
  if (flag('mix')) for (const p of MIX) await get(p);
};
for (let i = 0; i < 10; i++) await tick();
const client = await BurstClient.open(info.port, 16, { path: '/api/v1/fs/stat?uri=ctx://resources/docs/readme.md', headers: { 'x-api-key': info.key } });
for (let i = 0; i < 50; i++) await client.burst(1000);
await tick();
lines = [];
// Context switches and CPU of every thread of the server over the window (/proc/PID/task/*).
const threads = () => {
  const out: Record<string, { cs: number; ticks: number; name: string; utime: number; stime: number }> = {};
  for (const t of fs.readdirSync(`/proc/${child.pid}/task`)) {
    try {
      const st = fs.readFileSync(`/proc/${child.pid}/task/${t}/status`, 'utf8');
      const stat = fs.readFileSync(`/proc/${child.pid}/task/${t}/stat`, 'utf8').split(') ')[1]!.split(' ');
      out[t] = { utime: Number(stat[11]), stime: Number(stat[12]), name: /^Name:\s*(.*)$/m.exec(st)![1]!, cs: Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(st)![1]) + Number(/^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(st)![1]), ticks: Number(stat[11]) + Number(stat[12]) };
    } catch {}
  }
  return out;
};
const th0 = threads();
const t0 = performance.now();
let last = Date.now();
for (let done = 0; done < requests; done += 1000) {
  await client.burst(1000);
  if (Date.now() - last > 5000) {
    last = Date.now();
    await tick();
  }
}
const ms = performance.now() - t0;
const th1 = threads();
const perThread: Record<string, { cs: number; ticks: number; utime: number; stime: number }> = {};
for (const [id, t] of Object.entries(th1)) {
  const b = th0[id] ?? { cs: 0, ticks: 0, utime: 0, stime: 0 };
  const k = id === String(child.pid) ? "main" : "workers";
  perThread[k] ??= { cs: 0, ticks: 0, utime: 0, stime: 0 };
  perThread[k].utime += t.utime - b.utime;
  perThread[k].stime += t.stime - b.stime;
  perThread[k].cs += t.cs - b.cs;
  perThread[k].ticks += t.ticks - b.ticks;
}
console.log(JSON.stringify(perThread));
const count = (re: RegExp) => lines.filter((l) => re.test(l)).length;
const pauses = (re: RegExp) => lines.filter((l) => re.test(l)).reduce((s, l) => s + Number(/, ([\d.]+) \/ [\d.]+ ms/.exec(l)?.[1] ?? 0), 0);
console.log(JSON.stringify({ ops: arg('ops', 'on'), env: extraEnv, requests, reqPerS: Math.round(requests / (ms / 1000)), scavenges: count(/Scavenge/), markCompacts: count(/Mark-Compact/), scavengeMs: Math.round(pauses(/Scavenge/)), markMs: Math.round(pauses(/Mark-Compact/)) }));
const deopts = lines.filter((l) => /bailout \(kind/.test(l));
console.log(`deopts in the window: ${deopts.length}`);
for (const d of deopts.slice(0, 12)) console.log(d.slice(0, 220));
const sc = lines.filter((l) => /Scavenge|Mark-Compact/.test(l));
console.log([...sc.slice(0, 3), '...', ...sc.slice(-3)].join('\n'));
client.close();
child.kill('SIGTERM');
