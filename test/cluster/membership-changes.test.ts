/**
 * Membership changes over real processes (docs/scale-out.md, phase 3b): a 4th node added with the
 * launcher users run takes its share of the shards, replays them from the streams and serves them,
 * and leads the shards it is the preferred replica of; stopped, its shards are led by others;
 * restarted, it leads them again. Steps build on each other (same cluster).
 */
import { describe, expect, it } from 'vitest';
import { localClusterForFile } from './one-at-a-time.js';
import { add, alive, natsServerInstalled, restartNode, type ClusterFile } from '../../runtime/cluster/launcher.js';
import { shardOf } from '../../runtime/cluster/placement.js';
import { clusterSecret, PeerAuth } from '../../runtime/cluster/peer-auth.js';
import { tempDir } from '../helpers/app.js';
import { pollUntil } from '../helpers/poll.js';
import type { Shard } from './shard-status.js';

const HEARTBEAT_MS = 500;

interface Cluster {
  shard_count: number;
  peers: Array<{ id: string }>;
  shards: Shard[];
}

describe.skipIf(!natsServerInstalled())('a node joins, leaves and returns', () => {
  const dir = tempDir('ctx-cluster3b-join-');
  let file: ClusterFile;
  const root = () => ({ 'x-api-key': file.root_api_key, 'content-type': 'application/json' });
  const cluster = async (url: string) => ((await (await fetch(`${url}/api/v1/system/status`, { headers: root() })).json()) as { result: { cluster: Cluster } }).result.cluster;
  const write = async (url: string, key: string, uri: string, content: string) => {
    const res = await fetch(`${url}/api/v1/content/write`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ uri, content }) });
    return { status: res.status, token: res.headers.get('x-ctx-consistency-token'), body: (await res.json()) as { error?: { code: string } } };
  };
  const read = async (url: string, key: string, uri: string, token: string) => {
    const res = await fetch(`${url}/api/v1/content/read?uri=${encodeURIComponent(uri)}`, { headers: { 'x-api-key': key, 'x-ctx-consistency-token': token } });
    return { status: res.status, body: (await res.json()) as { result?: string } };
  };
  /** Retries the transient 503 of a shard whose lease is being taken or handed over. */
  const accepted = (url: string, key: string, uri: string, content: string) =>
    pollUntil(async () => {
      const w = await write(url, key, uri, content);
      if (w.status !== 503) expect(w.status, JSON.stringify(w.body)).toBe(200);
      return w.status === 200 && w;
    }, { what: `a write of ${uri}`, timeoutMs: 30_000, intervalMs: 100 });

  localClusterForFile(dir, HEARTBEAT_MS, (f) => (file = f));
  const digests = async (url: string, query: string) => ((await (await fetch(`${url}/api/v1/system/consistency?${query}`, { headers: root() })).json()) as { result: { shards: Array<{ applied_seq: number; keys: number; digest: string }> } }).result.shards;
  /** The old node that dropped (and deleted) its copy of `shard` when the 4th node took it. */
  let dropper: ClusterFile['nodes'][number];

  /** A shard the 4th node is the preferred replica of, and an account living in it. */
  let shard: number;
  let key: string;
  let account: string;
  let fourth: ClusterFile['nodes'][number];
  /** Every shard's replica set over the first three nodes. */
  let placedOnThree: string[][];

  it('npm run cluster -- add: the 4th node takes shards, replays them, serves them and leads its preferred ones', async () => {
    // Written before it exists: the new node has to replay it from the stream.
    const before = await accepted(file.nodes[0]!.url, file.root_api_key, 'ctx://resources/before-join.md', 'written by three');
    placedOnThree = (await cluster(file.nodes[0]!.url)).shards.map((s) => s.replicas);
    file = await add({ dir, heartbeatMs: HEARTBEAT_MS });
    fourth = file.nodes[3]!;
    expect(fourth.id).toBe('ctx-4');
    // Every node places over the 4 live nodes.
    const view = await pollUntil(async () => {
      const all = await Promise.all(file.nodes.map((n) => cluster(n.url)));
      return all.every((c) => c.peers.length === 4) && all.find((_, i) => file.nodes[i]!.id === fourth.id)!;
    }, { what: 'four peers everywhere', timeoutMs: 30_000, intervalMs: 200 });
    const held = view.shards.filter((s) => s.replicas.includes(fourth.id));
    const preferred = view.shards.filter((s) => s.replicas[0] === fourth.id);
    expect(held.length).toBeGreaterThan(0);
    expect(preferred.length).toBeGreaterThan(0);
    shard = preferred[0]!.shard;
    account = '';
    for (let i = 0; !account; i++) if (shardOf(`joiner${i}`, view.shard_count) === shard) account = `joiner${i}`;
    const made = await fetch(`${file.nodes[0]!.url}/api/v1/admin/accounts`, { method: 'POST', headers: root(), body: JSON.stringify({ account_id: account, admin_user_id: 'ann' }) });
    expect(made.status).toBe(201);
    key = ((await made.json()) as { result: { user_key: string } }).result.user_key;
    const sysToken = made.headers.get('x-ctx-consistency-token')!;
    // The new key must be known where it is used: wait for the identity record on the 4th node.
    await pollUntil(async () => (await fetch(`${fourth.url}/api/v1/admin/accounts`, { headers: { ...root(), 'x-ctx-consistency-token': sysToken } })).ok, { what: 'the account on the 4th node', timeoutMs: 20_000, intervalMs: 200 });
    // Written through an old node, read through the new one with the token: served from its own copy.
    const w = await accepted(file.nodes[0]!.url, key, 'ctx://resources/joined.md', 'read me on ctx-4');
    expect(w.token).toMatch(new RegExp(`^${shard}:\\d+$`));
    const r = await read(fourth.url, key, 'ctx://resources/joined.md', w.token!);
    expect(r.status).toBe(200);
    expect(r.body.result).toBe('read me on ctx-4');
    // Leadership moved to it for the shards it is preferred for (handed back by their old leaders).
    await pollUntil(async () => {
      const c = await cluster(fourth.url);
      return preferred.every((p) => c.shards[p.shard]!.leader === fourth.id && c.shards[p.shard]!.role === 'leader');
    }, { what: 'the 4th node leading its preferred shards', timeoutMs: 30_000, intervalMs: 200 });
    // The shards it holds were replayed: applied up to their streams, the old write included.
    const caught = await cluster(fourth.url);
    for (const s of held) expect(caught.shards[s.shard]!.applied_seq, `shard ${s.shard}`).toBe(caught.shards[s.shard]!.stream_seq);
    const oldShard = Number(before.token!.split(':')[0]);
    if (caught.shards[oldShard]!.replicas.includes(fourth.id)) expect(caught.shards[oldShard]!.applied_seq).toBeGreaterThanOrEqual(Number(before.token!.split(':')[1]));
    expect((await read(fourth.url, file.root_api_key, 'ctx://resources/before-join.md', before.token!)).body.result).toBe('written by three');
  }, 240_000);

  it('a node drops the shards that moved away from it: unassigned there, no longer applied, its reads forwarded', async () => {
    const now = (await cluster(fourth.url)).shards;
    // The old node the 4th node replaced in the replica set of its preferred shard.
    const leftId = placedOnThree[shard]!.find((id) => !now[shard]!.replicas.includes(id))!;
    expect(leftId).toBeDefined();
    const left = file.nodes.find((n) => n.id === leftId)!;
    await pollUntil(async () => (await cluster(left.url)).shards[shard]!.role === 'unassigned', { what: `${leftId} dropping shard ${shard}`, timeoutMs: 30_000, intervalMs: 200 });
    const stopped = (await cluster(left.url)).shards[shard]!.applied_seq;
    // A write after the drop: the old copy does not apply it, and a read through that node is
    // forwarded to a replica that did — never answered from the stale copy.
    const w = await accepted(fourth.url, key, 'ctx://resources/after-drop.md', 'not in the dropped copy');
    expect(Number(w.token!.split(':')[1])).toBeGreaterThan(stopped);
    const r = await read(left.url, key, 'ctx://resources/after-drop.md', w.token!);
    expect(r.status).toBe(200);
    expect(r.body.result).toBe('not in the dropped copy');
    // Without a token too (a stale replica would answer 404 here).
    const plain = await fetch(`${left.url}/api/v1/content/read?uri=${encodeURIComponent('ctx://resources/after-drop.md')}`, { headers: { 'x-api-key': key } });
    expect(plain.status).toBe(200);
    // Its disk is freed: none of the shard's keys are left there, and it would start over from 0.
    const gone = await pollUntil(async () => {
      const d = (await digests(left.url, `shard=${shard}`))[0]!;
      return d.keys === 0 && d;
    }, { what: `${leftId} deleting its copy of shard ${shard}`, timeoutMs: 30_000, intervalMs: 200 });
    expect(gone.applied_seq).toBe(0);
    expect((await cluster(left.url)).shards[shard]!.applied_seq).toBe(0);
    dropper = left;
  }, 120_000);

  it('stopped, its shards are led by others; restarted, it catches up and leads them again, and refuses a peer signature it accepted before', async () => {
    // A request signed as a peer would sign it (the secret derived from the shared root key).
    const target = `/api/v1/content/read?uri=${encodeURIComponent('ctx://resources/joined.md')}`;
    const signed = new PeerAuth(clusterSecret(undefined, file.root_api_key)!, 'ctx-1').sign({ accountId: account, userId: 'ann', role: 'ADMIN' }, 'GET', target);
    const signedAt = Date.now();
    const first = await fetch(`${fourth.url}${target}`, { headers: signed });
    expect(first.status).toBe(200);
    expect(((await first.json()) as { result: string }).result).toBe('read me on ctx-4');
    process.kill(fourth.pid, 'SIGTERM');
    await pollUntil(() => !alive(fourth.pid), { what: 'ctx-4 stopped', timeoutMs: 30_000, intervalMs: 100 });
    const other = file.nodes[0]!;
    const away = await accepted(other.url, key, 'ctx://resources/while-ctx4-away.md', 'missed by ctx-4');
    const led = (await cluster(other.url)).shards[shard]!.leader;
    expect(led).toBeDefined();
    expect(led).not.toBe(fourth.id);
    // The shard is placed back on the node that deleted its copy: it bootstraps it again, as a
    // joining node does, and holds the same bytes as the shard's other replica.
    const awaySeq = Number(away.token!.split(':')[1]);
    await pollUntil(async () => {
      const s = (await cluster(dropper.url)).shards[shard]!;
      return s.role !== 'unassigned' && s.applied_seq >= awaySeq;
    }, { what: `${dropper.id} holding shard ${shard} again`, timeoutMs: 60_000, intervalMs: 200 });
    // Compared with the other replica at the same sequence (background records may still come).
    const compared = await pollUntil(async () => {
      const r = ((await (await fetch(`${dropper.url}/api/v1/system/consistency?shard=${shard}&cluster=true`, { headers: root() })).json()) as { result: { shards: Array<{ keys: number }>; cluster: { clean: boolean; compared: number } } }).result;
      return r.cluster.clean && r.cluster.compared > 0 && r;
    }, { what: `${dropper.id}'s new copy of shard ${shard} equal to its other replica's`, timeoutMs: 30_000, intervalMs: 500 });
    expect(compared.shards[0]!.keys).toBeGreaterThan(0);
    expect((await read(dropper.url, key, 'ctx://resources/while-ctx4-away.md', away.token!)).body.result).toBe('missed by ctx-4');
    file = await restartNode({ dir, id: fourth.id, heartbeatMs: HEARTBEAT_MS });
    fourth = file.nodes[3]!;
    await pollUntil(async () => {
      const s = (await cluster(fourth.url)).shards[shard]!;
      return s.leader === fourth.id && s.role === 'leader';
    }, { what: 'ctx-4 leading its preferred shard again', timeoutMs: 30_000, intervalMs: 200 });
    expect((await read(fourth.url, key, 'ctx://resources/while-ctx4-away.md', away.token!)).body.result).toBe('missed by ctx-4');
    // The replay window outlived the restart (its list of accepted signatures is kept on disk).
    const replayed = await fetch(`${fourth.url}${target}`, { headers: signed });
    expect(replayed.status).toBe(401);
    const why = ((await replayed.json()) as { error: { message: string } }).error.message;
    if (Date.now() - signedAt < 30_000) expect(why).toMatch(/replayed signature/);
    // Writes through any node land on it as the leader.
    const again = await accepted(other.url, key, 'ctx://resources/after-return.md', 'back');
    expect(Number(again.token!.split(':')[1])).toBeGreaterThan(Number(away.token!.split(':')[1]));
  }, 240_000);
});
