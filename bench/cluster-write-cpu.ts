/**
 * Where a cluster write's CPU goes, per process (issue 23): sequential 1 KB `content/write`s through
 * the shard's leader, then through a single node, and the scheduler's CPU time of every process
 * (3 nats-servers, 3 ctx nodes, the single node, this client) per write, idle rate not subtracted.
 * On 2 cores the sum is what a write's latency contends with.
 *   npx tsx bench/cluster-write-cpu.ts [--writes 200]
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { down, freePort, up } from '../runtime/cluster/launcher.js';
import { HEARTBEAT_MS, numArg, requireNatsServer, sleep, spawnSingleNode } from './cluster-bench.js';
import { cpuMicros } from './proc-cpu.js';

const WRITES = numArg('writes', 200);
requireNatsServer();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-cpu-cluster-'));
const content = randomBytes(384).toString('base64').slice(0, 1024);
const key = randomBytes(24).toString('hex');
const singlePort = await freePort();
const single = spawnSingleNode(path.join(dir, 'single'), key, singlePort);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

try {
  const file = await up({ nodes: 3, dir: path.join(dir, 'cluster'), heartbeatMs: HEARTBEAT_MS });
  const singleUrl = `http://127.0.0.1:${singlePort}`;
  for (let i = 0; i < 300 && !(await fetch(`${singleUrl}/health`).then((r) => r.ok, () => false)); i++) await sleep(200);
  const ck = file.root_api_key;
  const post = async (base: string, k: string, uri: string) => {
    const res = await fetch(`${base}/api/v1/content/write`, { method: 'POST', headers: { 'x-api-key': k, 'content-type': 'application/json' }, body: JSON.stringify({ uri, content }) });
    await res.text();
    return res;
  };
  let token = '';
  for (let i = 0; i < 200 && !token; i++) {
    const res = await post(file.nodes[0]!.url, ck, 'ctx://resources/warm.md');
    if (res.status === 200) token = res.headers.get('x-ctx-consistency-token')!;
    else await sleep(100);
  }
  const shard = Number(token.split(':')[0]);
  const st = (await (await fetch(`${file.nodes[0]!.url}/api/v1/system/status`, { headers: { 'x-api-key': ck } })).json()) as { result: { cluster: { shards: { leader?: string }[] } } };
  const leaderId = st.result.cluster.shards[shard]!.leader!;
  const procs: { name: string; pid: number }[] = [
    ...file.nats.map((n, i) => ({ name: `nats-${i}`, pid: n.pid })),
    ...file.nodes.map((n) => ({ name: `${n.id}${n.id === leaderId ? ' (leader)' : ''}`, pid: n.pid })),
    { name: 'single node', pid: single.pid! },
    { name: 'client (this)', pid: process.pid },
  ];
  const leader = file.nodes.find((n) => n.id === leaderId)!;
  for (const [label, base, k] of [['cluster leader', leader.url, ck], ['single node', singleUrl, key]] as const) {
    for (let i = 0; i < 30; i++) await post(base, k, `ctx://resources/warm/${label.length}-${i}.md`);
    await sleep(1500);
    const before = procs.map((p) => cpuMicros(p.pid));
    // CLOCK_MONOTONIC µs, the clock of V8's .cpuprofile timestamps: a profile window (--cpu-prof).
    const monoFrom = Number(process.hrtime.bigint() / 1000n);
    const t0 = performance.now();
    const lat: number[] = [];
    for (let i = 0; i < WRITES; i++) {
      const s = performance.now();
      await post(base, k, `ctx://resources/cpu/${label.length}-${i}.md`);
      lat.push(performance.now() - s);
    }
    // The background work the writes queued (summaries, vectors) settles and is counted too.
    await sleep(1500);
    const wall = performance.now() - t0;
    const after = procs.map((p) => cpuMicros(p.pid));
    const monoTo = Number(process.hrtime.bigint() / 1000n);
    console.log(`\n${label}: ${WRITES} writes, p50 ${median(lat).toFixed(2)} ms; CPU ms per write (wall ${(wall / WRITES).toFixed(2)} ms per write incl. 1.5 s settle):`);
    let total = 0;
    for (const [i, p] of procs.entries()) {
      const ms = (after[i]! - before[i]!) / 1000 / WRITES;
      total += ms;
      console.log(`  ${p.name.padEnd(18)} ${ms.toFixed(3)}`);
    }
    console.log(`  ${'all'.padEnd(18)} ${total.toFixed(3)}`);
    console.log(`  monotonic window (µs): ${monoFrom} ${monoTo}; pids ${procs.map((p) => `${p.name}=${p.pid}`).join(' ')}`);
  }
} finally {
  single.kill('SIGTERM');
  await down({ dir: path.join(dir, 'cluster') }).catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
}
