/**
 * Reads served by a follower (issue 23, phase 3a), against the single-node server in the same run:
 * 1. `find` latency, one client, sequential, over the same 400 indexed files: through a follower of
 *    the shard (served from its own index, fed by the applied records), through the leader, and on
 *    a single node — goal: follower p50 within 10% of the single node;
 * 2. CPU per request in cluster mode (process CPU of every ctx node and nats-server over a block of
 *    requests, idle rate subtracted, divided by the requests) for durable 1 KB writes (with the
 *    background indexing they queue, settled) and for finds, beside the single node's.
 * The cluster is the launcher's (3 nats-servers, 3 ctx nodes, heartbeat 500 ms); the single node is
 * runtime/main.ts without CTX_CLUSTER_NATS. Blocks alternate between targets, so load from other
 * jobs on the machine hits each.
 *   npx tsx bench/cluster-find.bench.ts [--files 400] [--finds 200] [--rounds 5] [--writes 100]
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { down, freePort, up, type ClusterFile } from '../runtime/cluster/launcher.js';
import { HEARTBEAT_MS, numArg, requireNatsServer, sleep, spawnSingleNode } from './cluster-bench.js';

const FILES = numArg('files', 400);
const FINDS = numArg('finds', 200);
const ROUNDS = numArg('rounds', 5);
const WRITES = numArg('writes', 100);

requireNatsServer();

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const TICK_MS = 1000 / 100; // USER_HZ
/** utime + stime of a process, in ms. */
const cpuMs = (pid: number): number => {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) * TICK_MS;
  } catch {
    return 0;
  }
};
const cpuOf = (pids: number[]) => pids.reduce((a, p) => a + cpuMs(p), 0);

const WORDS = 'otter quokka wombat harbour glacier lantern meadow cipher orchard falcon basalt tundra ember willow canyon reef compass velvet thistle marble'.split(' ');
const doc = (i: number) => {
  const w = (k: number) => WORDS[(i * 7 + k * 13) % WORDS.length]!;
  return `# Note ${i}\n\n${w(0)} ${w(1)} ${w(2)} field notes number ${i}: the ${w(3)} near the ${w(4)} and the ${w(5)}.\n${randomBytes(96).toString('hex')}\n`;
};
const QUERIES = Array.from({ length: 40 }, (_, i) => `${WORDS[i % WORDS.length]} near the ${WORDS[(i * 3 + 1) % WORDS.length]}`);

// Same settings on both sides: the launcher's nodes inherit this environment.
process.env.CTX_ACCESS_LOG = 'false';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-bench-cfind-'));
const key = randomBytes(24).toString('hex');
const singlePort = await freePort();
const single = spawnSingleNode(path.join(dir, 'single'), key, singlePort);
let file: ClusterFile | undefined;

try {
  file = await up({ nodes: 3, dir: path.join(dir, 'cluster'), heartbeatMs: HEARTBEAT_MS });
  const singleUrl = `http://127.0.0.1:${singlePort}`;
  for (let i = 0; i < 300 && !(await fetch(`${singleUrl}/health`).then((r) => r.ok, () => false)); i++) await sleep(200);
  const ckey = file.root_api_key;
  const call = async (base: string, k: string, route: string, body: unknown, token?: string) => {
    const res = await fetch(`${base}${route}`, { method: 'POST', headers: { 'x-api-key': k, 'content-type': 'application/json', ...(token ? { 'x-ctx-consistency-token': token } : {}) }, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${route} via ${base}: ${res.status} ${text.slice(0, 200)}`);
    return { token: res.headers.get('x-ctx-consistency-token') ?? undefined, body: JSON.parse(text) as { result: { resources?: unknown[] } } };
  };
  // The first cluster write finds the shard (token) once its lease is taken.
  let token: string | undefined;
  for (let i = 0; i < 300 && !token; i++) {
    const res = await fetch(`${file.nodes[0]!.url}/api/v1/content/write`, { method: 'POST', headers: { 'x-api-key': ckey, 'content-type': 'application/json' }, body: JSON.stringify({ uri: 'ctx://resources/warm.md', content: 'warm' }) });
    if (res.status === 200) token = res.headers.get('x-ctx-consistency-token')!;
    else await sleep(100);
  }
  const shard = Number(token!.split(':')[0]);
  const st = await fetch(`${file.nodes[0]!.url}/api/v1/system/status`, { headers: { 'x-api-key': ckey } });
  const row = ((await st.json()) as { result: { cluster: { shards: { leader: string; replicas: string[] }[] } } }).result.cluster.shards[shard]!;
  const leader = file.nodes.find((n) => n.id === row.leader)!;
  const follower = file.nodes.find((n) => n.id !== row.leader && row.replicas.includes(n.id))!;

  // Seed: the same files on both, indexed (batch-write waits for the semantic and embedding work).
  const t0 = performance.now();
  for (let b = 0; b < FILES; b += 100) {
    const operations = Array.from({ length: Math.min(100, FILES - b) }, (_, i) => ({ uri: `ctx://resources/notes/n${b + i}.md`, content: doc(b + i), mode: 'upsert' }));
    await call(singleUrl, key, '/api/v1/content/batch-write', { root_uri: 'ctx://resources', operations, wait: true });
    token = (await call(leader.url, ckey, '/api/v1/content/batch-write', { root_uri: 'ctx://resources', operations, wait: true })).token ?? token;
  }
  // The follower has applied (and indexed) everything once a find with the last token answers.
  const check = await call(follower.url, ckey, '/api/v1/search/find', { query: QUERIES[0], limit: 10 }, token);
  console.log(`seeded ${FILES} files on both in ${((performance.now() - t0) / 1000).toFixed(1)} s; follower ${follower.id} finds ${check.body.result.resources?.length} hits`);

  // Background work the seeding queued (on every node until it runs on leaders only) settles first:
  // at most 60 s for the ctx processes to use under 5% of a core each (an idle cluster node is not
  // at zero: heartbeats, lease renewals and a pull per followed shard).
  const quiet = async (pids: number[]) => {
    for (let i = 0; i < 60; i++) {
      const c0 = cpuOf(pids);
      await sleep(1000);
      if (cpuOf(pids) - c0 < 50 * pids.length) return i;
    }
    return 60;
  };
  console.log(`settled after ${await quiet([single.pid!, ...file.nodes.map((n) => n.pid)])} s`);
  const idleOf = async (pids: number[]) => {
    const c0 = cpuOf(pids);
    await sleep(3000);
    return ((cpuOf(pids) - c0) / 3000) * 100;
  };
  console.log(`idle CPU: single node ${(await idleOf([single.pid!])).toFixed(1)}% of a core; cluster, per ctx node ${((await idleOf(file.nodes.map((n) => n.pid))) / 3).toFixed(1)}%, per nats-server ${((await idleOf(file.nats.map((n) => n.pid))) / 3).toFixed(1)}%`);

  // 1. find latency --------------------------------------------------------------------------------
  const targets = [
    { name: 'single node', base: singleUrl, k: key, lat: [] as number[] },
    { name: 'cluster, follower (its own index)', base: follower.url, k: ckey, lat: [] as number[] },
    { name: 'cluster, leader', base: leader.url, k: ckey, lat: [] as number[] },
  ];
  for (const t of targets) for (let i = 0; i < 20; i++) await call(t.base, t.k, '/api/v1/search/find', { query: QUERIES[i % QUERIES.length], limit: 10 });
  const perRound = Math.ceil(FINDS / ROUNDS);
  for (let r = 0; r < ROUNDS; r++)
    for (const t of targets)
      for (let i = 0; i < perRound; i++) {
        const s = performance.now();
        await call(t.base, t.k, '/api/v1/search/find', { query: QUERIES[(r * perRound + i) % QUERIES.length], limit: 10 });
        t.lat.push(performance.now() - s);
      }
  console.log(`\nfind over ${FILES} files, limit 10, 1 client, ${perRound * ROUNDS} per target in ${ROUNDS} alternating rounds:`);
  const base50 = pct(targets[0]!.lat, 50);
  for (const t of targets) console.log(`  ${t.name}: p50 ${pct(t.lat, 50).toFixed(2)} ms, p90 ${pct(t.lat, 90).toFixed(2)} ms (${(pct(t.lat, 50) / base50).toFixed(2)}× single node p50)`);
  const ratio = pct(targets[1]!.lat, 50) / base50;
  console.log(`  goal: follower within 10% of single node: ${ratio <= 1.1 ? 'met' : 'NOT met'} (${((ratio - 1) * 100).toFixed(1)}%)`);

  // 2. CPU per request ------------------------------------------------------------------------------
  const ctxPids = file.nodes.map((n) => n.pid);
  const natsPids = file.nats.map((n) => n.pid);
  const idleRate = async (pids: number[]) => {
    const c0 = cpuOf(pids);
    const w0 = performance.now();
    await sleep(2000);
    return (cpuOf(pids) - c0) / (performance.now() - w0);
  };
  /** CPU ms per request of `pids` over `run` (+ `settleMs` for background work), idle subtracted. */
  const perRequest = async (pids: number[], n: number, settleMs: number, run: () => Promise<void>) => {
    const idle = await idleRate(pids);
    const c0 = cpuOf(pids);
    const w0 = performance.now();
    await run();
    await sleep(settleMs);
    const wall = performance.now() - w0;
    return Math.max(0, cpuOf(pids) - c0 - idle * wall) / n;
  };
  const content = randomBytes(384).toString('base64').slice(0, 1024);
  const writeBlock = (base: string, k: string, tag: string) => async () => {
    // 4 clients: what one node sees from a few agents at once.
    await Promise.all(Array.from({ length: 4 }, async (_, c) => {
      for (let i = c; i < WRITES; i += 4) await call(base, k, '/api/v1/content/write', { uri: `ctx://resources/cpu-${tag}/w${i}.md`, content });
    }));
  };
  const findBlock = (base: string, k: string) => async () => {
    for (let i = 0; i < FINDS; i++) await call(base, k, '/api/v1/search/find', { query: QUERIES[i % QUERIES.length], limit: 10 });
  };
  const singleWrite = await perRequest([single.pid!], WRITES, 3000, writeBlock(singleUrl, key, 's'));
  const clusterWriteCtx = await perRequest(ctxPids, WRITES, 3000, writeBlock(leader.url, ckey, 'c'));
  const clusterWriteNats = await perRequest(natsPids, WRITES, 3000, writeBlock(leader.url, ckey, 'n'));
  const leaderWrite = await perRequest([leader.pid], WRITES, 3000, writeBlock(leader.url, ckey, 'l'));
  const followerWrite = await perRequest([follower.pid], WRITES, 3000, writeBlock(leader.url, ckey, 'f'));
  const singleFind = await perRequest([single.pid!], FINDS, 0, findBlock(singleUrl, key));
  const followerFind = await perRequest([follower.pid], FINDS, 0, findBlock(follower.url, ckey));
  console.log(`\nCPU per request (process CPU over the block, idle rate subtracted; writes: ${WRITES} durable 1 KB content/write from 4 clients, + 3 s for the indexing they queue; finds: ${FINDS} sequential):`);
  console.log(`  write, single node: ${singleWrite.toFixed(2)} ms`);
  console.log(`  write, cluster: all 3 ctx nodes ${clusterWriteCtx.toFixed(2)} ms (leader ${leaderWrite.toFixed(2)}, the shard's follower ${followerWrite.toFixed(2)}); 3 nats-servers ${clusterWriteNats.toFixed(2)} ms`);
  console.log(`  find, single node: ${singleFind.toFixed(2)} ms; find, cluster follower: ${followerFind.toFixed(2)} ms (${(followerFind / singleFind).toFixed(2)}×)`);
  console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
} finally {
  single.kill('SIGTERM');
  await down({ dir: path.join(dir, 'cluster') }).catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
}
