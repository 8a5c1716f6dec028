/**
 * Shard snapshots and stream truncation over real processes (docs/scale-out.md, "Snapshots"): a
 * replica that was down while its shard's stream was truncated behind a snapshot comes back,
 * installs the snapshot (deletions included) and goes on from the stream after it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localClusterForFile } from './one-at-a-time.js';
import { alive, natsServerInstalled, restartNode, type ClusterFile } from '../../runtime/cluster/launcher.js';
import { streamName } from '../../runtime/cluster/replicator.js';
import { tempDir } from '../helpers/app.js';
import { pollUntil } from '../helpers/poll.js';
import type { Shard } from './shard-status.js';

const HEARTBEAT_MS = 500;
const EVERY = 10;


describe.skipIf(!natsServerInstalled())('shard snapshots and truncation', () => {
  const dir = tempDir('ctx-cluster3b-snap-');
  let file: ClusterFile;
  let saved: string | undefined;
  const headers = (extra: Record<string, string> = {}) => ({ 'x-api-key': file.root_api_key, 'content-type': 'application/json', ...extra });
  const shards = async (url: string) => ((await (await fetch(`${url}/api/v1/system/status`, { headers: headers() })).json()) as { result: { cluster: { shards: Shard[] } } }).result.cluster.shards;
  const write = (url: string, uri: string, content: string) =>
    pollUntil(async () => {
      const res = await fetch(`${url}/api/v1/content/write`, { method: 'POST', headers: headers(), body: JSON.stringify({ uri, content }) });
      if (res.status !== 503) expect(res.status).toBe(200);
      return res.status === 200 && res.headers.get('x-ctx-consistency-token')!;
    }, { what: `a write of ${uri}`, timeoutMs: 30_000, intervalMs: 100 });
  const read = async (url: string, uri: string, token: string) => {
    const res = await fetch(`${url}/api/v1/content/read?uri=${encodeURIComponent(uri)}`, { headers: headers({ 'x-ctx-consistency-token': token }) });
    return (await res.json()) as { result?: string; error?: { code: string } };
  };
  /** The stream's first sequence, asked of JetStream itself. */
  const firstSeq = async (shard: number) => {
    const { connect } = await import('@nats-io/transport-node');
    const { jetstreamManager } = await import('@nats-io/jetstream');
    const nc = await connect({ servers: file.nats.map((n) => n.url) });
    try {
      return (await (await jetstreamManager(nc)).streams.info(streamName(String(shard)))).state.first_seq;
    } finally {
      await nc.close();
    }
  };

  beforeAll(() => {
    saved = process.env.CTX_CLUSTER_SNAPSHOT_RECORDS;
    // The nodes inherit it from this process: a snapshot every few records.
    process.env.CTX_CLUSTER_SNAPSHOT_RECORDS = String(EVERY);
  });
  localClusterForFile(dir, HEARTBEAT_MS, (f) => (file = f));
  afterAll(() => {
    if (saved === undefined) delete process.env.CTX_CLUSTER_SNAPSHOT_RECORDS;
    else process.env.CTX_CLUSTER_SNAPSHOT_RECORDS = saved;
  });

  it('a replica down while the stream was truncated bootstraps from the snapshot plus the log after it', async () => {
    const token0 = await write(file.nodes[0]!.url, 'ctx://resources/snap/kept.md', 'kept');
    const shard = Number(token0.split(':')[0]);
    await write(file.nodes[0]!.url, 'ctx://resources/snap/doomed.md', 'to be deleted');
    const view = (await pollUntil(async () => {
      const s = (await shards(file.nodes[0]!.url))[shard]!;
      return s.leader && s;
    }, { what: 'a leader', timeoutMs: 10_000, intervalMs: 100 }))!;
    const followerId = view.replicas.find((id) => id !== view.leader)!;
    const follower = file.nodes.find((n) => n.id === followerId)!;
    const leader = file.nodes.find((n) => n.id === view.leader)!;
    const lastSeen = (await pollUntil(async () => {
      const s = (await shards(follower.url))[shard]!;
      return s.applied_seq >= Number(token0.split(':')[1]) && s;
    }, { what: 'the follower caught up', timeoutMs: 10_000, intervalMs: 100 })).applied_seq;
    process.kill(follower.pid, 'SIGKILL');
    await pollUntil(() => !alive(follower.pid), { what: 'the follower gone', timeoutMs: 10_000, intervalMs: 50 });
    // Retried like the writes: right after the kill the lease may be moving (a 503 with Retry-After).
    let refused = '';
    const gone = await pollUntil(async () => {
      const res = await fetch(`${leader.url}/api/v1/fs?uri=${encodeURIComponent('ctx://resources/snap/doomed.md')}`, { method: 'DELETE', headers: headers() });
      if (res.status === 503) refused = `${await res.text()} with the leader's view ${JSON.stringify((await shards(leader.url))[shard])}`;
      return res.status !== 503 && res;
    }, { what: 'the delete accepted', timeoutMs: 30_000, intervalMs: 100 }).catch((err: Error) => {
      throw new Error(`${err.message}; last 503: ${refused}`);
    });
    expect(gone.status).toBe(200);
    // Enough for a snapshot of several frames (1,000 entries each) and object-store chunks.
    for (const b of [0, 1]) {
      const bulk = await pollUntil(async () => {
        const res = await fetch(`${leader.url}/api/v1/content/batch-write`, {
          method: 'POST',
          headers: headers(),
          body: JSON.stringify({ root_uri: 'ctx://resources', wait: false, operations: Array.from({ length: 250 }, (_, i) => ({ uri: `ctx://resources/snap/bulk${b}/f${i}.md`, content: `bulk ${i} `.repeat(100), mode: 'upsert' })) }),
        });
        return res.status !== 503 && res;
      }, { what: `bulk batch ${b} accepted`, timeoutMs: 30_000, intervalMs: 100 });
      expect(bulk.status, await bulk.clone().text()).toBe(200);
    }
    const written = new Map<string, string>();
    let token = '';
    for (let i = 0; i < 3 * EVERY; i++) {
      const uri = `ctx://resources/snap/away-${i}.md`;
      token = await write(leader.url, uri, `away ${i}`);
      written.set(uri, `away ${i}`);
    }
    // The leader snapshotted and purged past what the stopped replica had applied.
    const first = await pollUntil(async () => {
      const f = await firstSeq(shard);
      return f > lastSeen + 1 && f;
    }, { what: 'the stream truncated behind a snapshot', timeoutMs: 30_000, intervalMs: 200 });
    expect(first).toBeGreaterThan(lastSeen + 1);
    file = await restartNode({ dir, id: followerId, heartbeatMs: HEARTBEAT_MS });
    const back = file.nodes.find((n) => n.id === followerId)!;
    const seq = Number(token.split(':')[1]);
    const caught = await pollUntil(async () => {
      const s = (await shards(back.url))[shard]!;
      return s.applied_seq >= seq && s.role === 'follower' && s;
    }, { what: `${followerId} to apply ${seq}`, timeoutMs: 60_000, intervalMs: 200 });
    expect(caught.role).toBe('follower');
    // Served from its own store (the token is applied there): the snapshot's and the log's records.
    for (const [uri, content] of written) expect((await read(back.url, uri, token)).result, uri).toBe(content);
    expect((await read(back.url, 'ctx://resources/snap/kept.md', token)).result).toBe('kept');
    expect((await read(back.url, 'ctx://resources/snap/doomed.md', token)).error?.code).toBe('NOT_FOUND');
    expect((await read(back.url, 'ctx://resources/snap/bulk1/f249.md', token)).result).toBe('bulk 249 '.repeat(100));
    // It came from the snapshot, streamed in several frames: the node's own log says how many keys.
    const installed = [...fs.readFileSync(path.join(dir, `${followerId.replace('ctx', 'node')}.log`), 'utf8').matchAll(/shard bootstrapped from its snapshot, streamed.*?"keys":(\d+)/g)].map((m) => Number(m[1]));
    expect(Math.max(0, ...installed)).toBeGreaterThan(1000);
    // And its copy is the leader's, byte for byte (compared at the same sequence).
    const report = await pollUntil(async () => {
      const r = ((await (await fetch(`${back.url}/api/v1/system/consistency?shard=${shard}&cluster=true`, { headers: headers() })).json()) as { result: { shards: Array<{ keys: number }>; cluster: { clean: boolean; compared: number } } }).result;
      return r.cluster.clean && r.cluster.compared > 0 && r;
    }, { what: 'the bootstrapped copy equal to the leader\'s', timeoutMs: 30_000, intervalMs: 500 });
    expect(report.shards[0]!.keys).toBeGreaterThan(1000);
  }, 240_000);
});
