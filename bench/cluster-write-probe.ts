/**
 * Where a cluster write's milliseconds go, from the nodes' own trace (`CTX_CLUSTER_TRACE=true`,
 * docs/scale-out.md "What a write costs"): sequential 1 KB `content/write`s through the shard's
 * leader and through a non-leader, then the p50 of every phase of the trace lines the nodes logged
 * (the leader's `cluster write trace` per request, `cluster record trace` per record, the
 * forwarding node's `forward: true` per hop). Not a benchmark of its own: the tracing costs a log
 * line per write; bench/cluster-write.bench.ts is the figure.
 *   npx tsx bench/cluster-write-probe.ts [--writes 60] [--pause MS]
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { down, up } from '../runtime/cluster/launcher.js';
import { HEARTBEAT_MS, numArg, requireNatsServer, sleep } from './cluster-bench.js';

const WRITES = numArg('writes', 60);
/** Idle time between two writes, ms (0: the next write as soon as the answer is read). */
const PAUSE = numArg('pause', 0);
requireNatsServer();
process.env.CTX_CLUSTER_TRACE = 'true';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-probe-cluster-'));
const content = randomBytes(384).toString('base64').slice(0, 1024);
const p50 = (xs: number[]) => {
  const s = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

try {
  const file = await up({ nodes: 3, dir, heartbeatMs: HEARTBEAT_MS });
  const k = file.root_api_key;
  const post = async (base: string, uri: string) => {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/v1/content/write`, { method: 'POST', headers: { 'x-api-key': k, 'content-type': 'application/json' }, body: JSON.stringify({ uri, content }) });
    const text = await res.text();
    if (res.status !== 200) console.log(`${res.status} via ${base}: ${text.slice(0, 300)}`);
    return { status: res.status, ms: performance.now() - t0, at: performance.timeOrigin + t0, token: res.headers.get('x-ctx-consistency-token') };
  };
  let token: string | null = null;
  for (let i = 0; i < 200 && !token; i++) {
    const r = await post(file.nodes[0]!.url, 'ctx://resources/warm.md');
    if (r.status === 200) token = r.token;
    else await sleep(100);
  }
  const shard = Number(token!.split(':')[0]);
  const status = await (await fetch(`${file.nodes[0]!.url}/api/v1/system/status`, { headers: { 'x-api-key': k } })).json() as { result: { cluster: { shards: { leader?: string }[] } } };
  const leaderId = status.result.cluster.shards[shard]!.leader!;
  const leader = file.nodes.find((n) => n.id === leaderId)!;
  const other = file.nodes.find((n) => n.id !== leaderId)!;
  const client: Record<string, number[]> = { leader: [], forwarded: [] };
  for (const [name, base] of [['leader', leader.url], ['forwarded', other.url]] as const) {
    for (let i = 0; i < 20; i++) await post(base, `ctx://resources/warm/${name}-${i}.md`);
    await sleep(1500);
    const mark = Date.now();
    client[`${name}_at`] = [];
    for (let i = 0; i < WRITES; i++) {
      if (PAUSE) await sleep(PAUSE);
      const r = await post(base, `ctx://resources/probe/${name}-${i}.md`);
      client[name]!.push(r.ms);
      client[`${name}_at`]!.push(r.at);
    }
    client[`${name}_from`] = [mark];
    await sleep(1500);
  }
  const lines = (id: string) =>
    fs.readFileSync(path.join(dir, `${id.replace('ctx', 'node')}.log`), 'utf8').split('\n').filter((l) => l.includes('cluster ') && l.includes('trace')).map((l) => { try { return JSON.parse(l) as Record<string, any>; } catch { return undefined; } }).filter(Boolean) as Record<string, any>[];
  const all = lines(leader.id);
  // Per request: the background records (none from a request) appended since the previous request's line.
  let since = 0;
  for (const l of all) {
    if (l.msg === 'cluster record trace' && l.from_requests === 0) since++;
    else if (l.msg === 'cluster write trace') [l.background_records_before, since] = [since, 0];
  }
  const lead = all.filter((l) => l.msg === 'cluster write trace' && l.path === '/api/v1/content/write' && l.batches?.length);
  const fwd = lines(other.id).filter((l) => l.forward && l.path === '/api/v1/content/write');
  const records = all.filter((l) => l.msg === 'cluster record trace');
  for (const forwarded of [false, true]) {
    const ls = lead.filter((l) => l.forwarded === forwarded).slice(-WRITES);
    const b = ls.map((l) => l.batches[0]);
    console.log(`\n${forwarded ? 'forwarded' : 'direct'} writes on the leader (${ls.length} traced): client p50 ${p50(client[forwarded ? 'forwarded' : 'leader']!).toFixed(2)} ms`);
    // The two modes (issue 23, stop 34): a write whose record carried the previous write's
    // background work, against one that came after a background record of its own.
    const lat = client[forwarded ? 'forwarded' : 'leader']!;
    for (const [label, pick] of [['after a background record', (n: number) => n > 0], ['no background record between', (n: number) => n === 0]] as const) {
      const ix = ls.map((l, i) => (pick(l.background_records_before) ? i : -1)).filter((i) => i >= 0);
      const sub = ix.map((i) => ls[i]!);
      console.log(`  ${label}: ${ix.length} writes, client p50 ${p50(ix.map((i) => lat[i]!)).toFixed(2)} ms · handler ${p50(sub.map((l) => l.total_ms)).toFixed(2)} · before batch ${p50(sub.map((l) => l.before_batch_ms)).toFixed(2)} · queued ${p50(sub.map((l) => l.batches[0].queued_ms)).toFixed(2)} · quorum ${p50(sub.map((l) => l.batches[0].quorum_ms)).toFixed(2)} · coalesced ${p50(sub.map((l) => l.batches[0].coalesced)).toFixed(0)}`);
    }
    console.log(`  total ${p50(ls.map((l) => l.total_ms)).toFixed(2)} · admission ${p50(ls.map((l) => l.admission_ms)).toFixed(2)} · before batch ${p50(ls.map((l) => l.before_batch_ms)).toFixed(2)} · queued ${p50(b.map((x) => x.queued_ms)).toFixed(2)} (mean ${mean(b.map((x) => x.queued_ms)).toFixed(2)}) · quorum ${p50(b.map((x) => x.quorum_ms)).toFixed(2)} · apply wait ${p50(b.map((x) => x.apply_wait_ms)).toFixed(2)} · apply ${p50(b.map((x) => x.apply_ms)).toFixed(2)} · after ${p50(ls.map((l) => l.after_batch_ms)).toFixed(2)} · batches/request ${mean(ls.map((l) => l.batches.length)).toFixed(2)} · coalesced mean ${mean(b.map((x) => x.coalesced)).toFixed(2)}`);
  }
  const f = fwd.slice(-WRITES);
  console.log(`\nforwarding node (${f.length} hops): answer p50 ${p50(f.map((l) => l.answer_ms)).toFixed(2)} ms (request sent to answer read)`);
  console.log(`records: the leader's event loop busy during the quorum wait p50 ${p50(records.map((r) => r.busy_in_quorum_ms ?? 0)).toFixed(2)} ms; record size p50 ${p50(records.map((r) => r.bytes ?? 0))} bytes`);
  console.log(`records appended by the leader: ${records.length}; quorum p50 ${p50(records.map((r) => r.quorum_ms)).toFixed(2)} ms; batches/record mean ${mean(records.map((r) => r.batches)).toFixed(2)}`);
  console.log(`load average: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  if (process.argv.includes('--keep')) fs.writeFileSync(path.join(dir, 'client.json'), JSON.stringify({ leader: leader.id, other: other.id, client }));
} finally {
  await down({ dir }).catch(() => {});
  if (!process.argv.includes('--keep')) fs.rmSync(dir, { recursive: true, force: true });
  else console.log(`logs kept in ${dir}`);
}
