/**
 * Cluster mode's write path against the single-node server, in the same run (issue 23, phase 2):
 * 1. single durable 1 KB `content/write`, one client, sequential: p50 through the shard's leader,
 *    through a non-leader (forwarded), and on a single node — goal: leader p50 within +2 ms;
 * 2. 1,000 files as 4 `batch-write` requests of 250 × 1 KB, sequential: files/s cluster (leader)
 *    vs single node — goal ≥ 0.5×;
 * 3. failover: kill -9 the leader of the shard, time until a write through a survivor is accepted
 *    again (the killed node is restarted between trials) — goal: median of 5 ≤ 5 s.
 * The cluster is the launcher's (3 nats-servers, 3 ctx nodes, heartbeat 500 ms: lease TTL 1.5 s);
 * the single node is runtime/main.ts without CTX_CLUSTER_NATS. Rounds alternate between the two
 * so load from other jobs on the machine hits both.
 *   npx tsx bench/cluster-write.bench.ts [--writes 600] [--rounds 12] [--trials 5]
 * The defaults (600 writes per target in blocks of 50): with 100-200 writes in 2-5 blocks, the
 * same code read +0.6 to +8.8 ms on this 2-core machine within minutes (bench/RESULTS.md, stop 37),
 * the single node's own p50 moving 4.8-7.8 ms; smaller blocks put slow spells on all targets alike.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { down, freePort, restartNode, up, type ClusterFile } from '../runtime/cluster/launcher.js';
import { closeForwardAgents, forwardRequest } from '../runtime/cluster/forward-client.js';
import { HEARTBEAT_MS, numArg, requireNatsServer, sleep, spawnSingleNode } from './cluster-bench.js';

const WRITES = numArg('writes', 600);
const ROUNDS = numArg('rounds', 12);
const TRIALS = numArg('trials', 5);
/**
 * The client the write rows use: `http`, a keep-alive node:http agent (runtime/cluster/forward-client.ts,
 * ~1 ms of CPU per request), or `fetch` (undici, ~3 ms: on 2 cores it competes with the 3
 * nats-servers and 3 nodes, and more with the cluster than with the single node).
 */
const CLIENT = process.argv.includes('--client') ? process.argv[process.argv.indexOf('--client') + 1] : 'http';
if (CLIENT !== 'http' && CLIENT !== 'fetch') throw new Error('--client http|fetch');

requireNatsServer();

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const content = randomBytes(384).toString('base64').slice(0, 1024);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-bench-cluster-'));
const key = randomBytes(24).toString('hex');
const singlePort = await freePort();
const single = spawnSingleNode(path.join(dir, 'single'), key, singlePort);
let file: ClusterFile | undefined;
const cleanup = async () => {
  closeForwardAgents();
  single.kill('SIGTERM');
  await down({ dir: path.join(dir, 'cluster') }).catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
};

try {
  file = await up({ nodes: 3, dir: path.join(dir, 'cluster'), heartbeatMs: HEARTBEAT_MS });
  const singleUrl = `http://127.0.0.1:${singlePort}`;
  for (let i = 0; i < 300; i++) {
    if (await fetch(`${singleUrl}/health`).then((r) => r.ok, () => false)) break;
    await sleep(200);
  }
  const ckey = file.root_api_key;
  const post = async (base: string, k: string, route: string, body: unknown) => {
    if (CLIENT === 'http') {
      const res = await forwardRequest(`${base}${route}`, 'POST', { 'x-api-key': k, 'content-type': 'application/json' }, Buffer.from(JSON.stringify(body)), 60_000);
      if (res.status !== 200) throw new Error(`${route} via ${base}: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
      return res;
    }
    const res = await fetch(`${base}${route}`, { method: 'POST', headers: { 'x-api-key': k, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${route} via ${base}: ${res.status} ${text.slice(0, 200)}`);
    return res;
  };
  const leaderOf = async (via: string, shard: number) => {
    const res = await fetch(`${via}/api/v1/system/status`, { headers: { 'x-api-key': ckey } });
    return ((await res.json()) as { result: { cluster: { shards: { leader?: string }[] } } }).result.cluster.shards[shard]!.leader;
  };
  // The first cluster write finds the shard (token) once its lease is taken.
  let token = '';
  for (let i = 0; i < 200 && !token; i++) {
    const res = await fetch(`${file.nodes[0]!.url}/api/v1/content/write`, { method: 'POST', headers: { 'x-api-key': ckey, 'content-type': 'application/json' }, body: JSON.stringify({ uri: 'ctx://resources/warm.md', content }) });
    if (res.status === 200) token = res.headers.get('x-ctx-consistency-token')!;
    else await sleep(100);
  }
  const shard = Number(token.split(':')[0]);
  const leaderId = (await leaderOf(file.nodes[0]!.url, shard))!;
  const leader = file.nodes.find((n) => n.id === leaderId)!;
  const other = file.nodes.find((n) => n.id !== leaderId)!;

  // 1. single durable write p50 ---------------------------------------------------------------
  const targets = [
    { name: 'single node', base: singleUrl, k: key, lat: [] as number[] },
    { name: 'cluster, through the leader', base: leader.url, k: ckey, lat: [] as number[] },
    { name: 'cluster, through a non-leader (forwarded)', base: other.url, k: ckey, lat: [] as number[] },
  ];
  for (const [ti, t] of targets.entries()) for (let i = 0; i < 30; i++) await post(t.base, t.k, '/api/v1/content/write', { uri: `ctx://resources/warm/t${ti}-${i}.md`, content });
  for (let r = 0; r < ROUNDS; r++)
    for (const [ti, t] of targets.entries()) {
      // The previous block's background indexing (semantic and embedding queues) settles first.
      await sleep(1500);
      for (let i = 0; i < WRITES / ROUNDS; i++) {
        const t0 = performance.now();
        // A path of its own per target: the leader and the forwarding node share one store, and a
        // write of the same content to the same file changes nothing (no record is appended).
        await post(t.base, t.k, '/api/v1/content/write', { uri: `ctx://resources/single/t${ti}-r${r}-${i}.md`, content });
        t.lat.push(performance.now() - t0);
      }
    }
  const p50 = targets.map((t) => median(t.lat));
  console.log(`\nsingle durable 1 KB write, 1 client (${CLIENT}), ${WRITES} writes per target in ${ROUNDS} alternating rounds:`);
  for (const [i, t] of targets.entries()) console.log(`  ${t.name}: p50 ${p50[i]!.toFixed(2)} ms (+${(p50[i]! - p50[0]!).toFixed(2)} ms vs single node)`);
  console.log(`  goal +2 ms through the leader: ${p50[1]! - p50[0]! <= 2 ? 'met' : 'NOT met'}`);

  // 2. 1,000-file batch --------------------------------------------------------------------------
  const batchOnce = async (base: string, k: string, tag: string) => {
    const t0 = performance.now();
    for (let b = 0; b < 4; b++)
      await post(base, k, '/api/v1/content/batch-write', {
        root_uri: 'ctx://resources',
        wait: false,
        operations: Array.from({ length: 250 }, (_, i) => ({ uri: `ctx://resources/batch-${tag}/b${b}/f${i}.md`, content, mode: 'upsert' })),
      });
    return 1000 / ((performance.now() - t0) / 1000);
  };
  const rates = { single: [] as number[], cluster: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    await sleep(1500);
    rates.single.push(await batchOnce(singleUrl, key, `s${r}`));
    await sleep(1500);
    rates.cluster.push(await batchOnce(leader.url, ckey, `c${r}`));
  }
  const [bs, bc] = [median(rates.single), median(rates.cluster)];
  console.log(`\n1,000 files (4 batch-writes of 250 × 1 KB), sequential, median of ${ROUNDS}:`);
  console.log(`  single node ${Math.round(bs)} files/s; cluster (leader) ${Math.round(bc)} files/s; ratio ${(bc / bs).toFixed(2)}× (goal ≥ 0.5×: ${bc / bs >= 0.5 ? 'met' : 'NOT met'})`);

  // 3. failover -----------------------------------------------------------------------------------
  const times: number[] = [];
  for (let t = 0; t < TRIALS; t++) {
    const lid = (await leaderOf(file.nodes[0]!.url, shard)) ?? (await leaderOf(file.nodes[1]!.url, shard));
    const victim = file.nodes.find((n) => n.id === lid)!;
    const survivor = file.nodes.find((n) => n.id !== lid)!;
    process.kill(victim.pid, 'SIGKILL');
    const killed = performance.now();
    for (let i = 0; ; i++) {
      const res = await fetch(`${survivor.url}/api/v1/content/write`, { method: 'POST', headers: { 'x-api-key': ckey, 'content-type': 'application/json' }, body: JSON.stringify({ uri: `ctx://resources/failover/t${t}-${i}.md`, content }) }).catch(() => undefined);
      if (res?.status === 200) break;
      await res?.text();
      if (performance.now() - killed > 60_000) throw new Error('no leader within 60 s');
      await sleep(20);
    }
    times.push(performance.now() - killed);
    console.log(`  failover trial ${t + 1}: ${(times.at(-1)! / 1000).toFixed(2)} s (killed ${victim.id})`);
    file = await restartNode({ dir: path.join(dir, 'cluster'), id: victim.id, heartbeatMs: HEARTBEAT_MS });
    await sleep(HEARTBEAT_MS * 4); // back in the membership before the next trial
  }
  console.log(`\nfailover (lease TTL ${(HEARTBEAT_MS * 3) / 1000} s): median of ${TRIALS} ${(median(times) / 1000).toFixed(2)} s (min ${(Math.min(...times) / 1000).toFixed(2)}, max ${(Math.max(...times) / 1000).toFixed(2)}); goal ≤ 5 s: ${median(times) <= 5000 ? 'met' : 'NOT met'}`);
  console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
} finally {
  await cleanup();
}
