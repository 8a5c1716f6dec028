/**
 * Reads served by followers and what keeps them honest (docs/scale-out.md, phase 3a), over a real
 * local cluster: the follower's vector index fed by applied records (find through a follower sees
 * what the leader indexed), `system/consistency`, and in-process route calls forwarded with a
 * signed identity. Steps share one cluster and run in order.
 */
import { describe, expect, it } from 'vitest';
import { localClusterForFile } from './one-at-a-time.js';
import { natsServerInstalled, type ClusterFile } from '../../runtime/cluster/launcher.js';
import { tempDir } from '../helpers/app.js';
import { pollUntil } from '../helpers/poll.js';

const HEARTBEAT_MS = 500;

interface Shard {
  shard: number;
  replicas: string[];
  role: string;
  leader?: string;
  applied_seq: number;
}

describe.skipIf(!natsServerInstalled())('follower reads over a real cluster', () => {
  const dir = tempDir('ctx-cluster3a-');
  let file: ClusterFile;
  const node = (id: string) => file.nodes.find((n) => n.id === id)!;
  const headers = (extra: Record<string, string> = {}) => ({ 'x-api-key': file.root_api_key, 'content-type': 'application/json', ...extra });
  const post = async (url: string, path: string, body: unknown, extra: Record<string, string> = {}) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: headers(extra), body: JSON.stringify(body) });
    return { status: res.status, token: res.headers.get('x-ctx-consistency-token'), body: (await res.json()) as { status: string; result?: any; error?: { code: string; message: string } } };
  };
  const shards = async (url: string): Promise<Shard[]> => {
    const res = await fetch(`${url}/api/v1/system/status`, { headers: headers() });
    return ((await res.json()) as { result: { cluster: { shards: Shard[] } } }).result.cluster.shards;
  };
  /** Requests the node's own retrieval plugin served, per operation (its observer is node-local). */
  const served = async (url: string, op: string): Promise<number> => {
    const res = await fetch(`${url}/api/v1/observer/retrieval`, { headers: headers() });
    const table = ((await res.json()) as { result: { status: string } }).result.status;
    const row = table.split('\n').map((l) => l.trim().split(/\s+/)).find((cells) => cells[0] === op);
    if (!row) throw new Error(`no ${op} row in the retrieval observer: ${table}`);
    return Number(row[1]);
  };

  let shard: number;
  let leader: string;
  let follower: string;

  localClusterForFile(dir, HEARTBEAT_MS, (f) => (file = f));

  it('find, search and grep through a follower are served from its own index, fed by the applied records', async () => {
    const first = await pollUntil(async () => {
      const w = await post(file.nodes[0]!.url, '/api/v1/content/write', { uri: 'ctx://resources/warmup.md', content: 'warm up' });
      return w.status === 200 && w;
    }, { what: 'a first accepted write', timeoutMs: 30_000, intervalMs: 100 });
    shard = Number(first.token!.split(':')[0]);
    const s = await pollUntil(async () => (await shards(file.nodes[0]!.url))[shard]!.leader && (await shards(file.nodes[0]!.url))[shard]!, { what: 'a leader in status', timeoutMs: 10_000, intervalMs: 100 });
    leader = s.leader!;
    follower = s.replicas.find((r) => r !== leader)!;
    // Written (and indexed: wait) through the leader; the token covers the index records.
    const w = await post(node(leader).url, '/api/v1/content/write', { uri: 'ctx://resources/kb/fermentation.md', content: 'koji fermentation of barley qv9z miso', wait: true });
    expect(w.status).toBe(200);
    const before = await served(node(follower).url, 'find');
    const f = await post(node(follower).url, '/api/v1/search/find', { query: 'koji fermentation qv9z', limit: 5 }, { 'x-ctx-consistency-token': w.token! });
    expect(f.status).toBe(200);
    expect(f.body.result.resources.map((r: { uri: string }) => r.uri)).toContain('ctx://resources/kb/fermentation.md');
    // Served by the follower itself, not forwarded to the leader.
    expect(await served(node(follower).url, 'find')).toBe(before + 1);
    const sr = await post(node(follower).url, '/api/v1/search/search', { query: 'koji fermentation qv9z', mode: 'fast', limit: 5 }, { 'x-ctx-consistency-token': w.token! });
    expect(sr.status).toBe(200);
    expect(sr.body.result.resources.map((r: { uri: string }) => r.uri)).toContain('ctx://resources/kb/fermentation.md');
    const g = await post(node(follower).url, '/api/v1/search/grep', { uri: 'ctx://resources/kb', pattern: 'qv9z' }, { 'x-ctx-consistency-token': w.token! });
    expect(g.status).toBe(200);
    expect(g.body.result.matches.map((m: { uri: string }) => m.uri)).toEqual(['ctx://resources/kb/fermentation.md']);
    // Errors of a read POST served locally keep the envelope.
    const bad = await post(node(follower).url, '/api/v1/search/find', { limit: 5 });
    expect(bad.status).toBe(400);
    expect(bad.body.error!.code).toBe('INVALID_ARGUMENT');
    // The follower's index holds what the leader's holds: removal follows too.
    const rm = await fetch(`${node(leader).url}/api/v1/fs?uri=${encodeURIComponent('ctx://resources/kb/fermentation.md')}`, { method: 'DELETE', headers: headers() });
    expect(rm.status).toBe(200);
    const token = rm.headers.get('x-ctx-consistency-token')!;
    // The index records go with the file in the background (the semantic queue), after the token.
    await pollUntil(async () => {
      const gone = await post(node(follower).url, '/api/v1/search/find', { query: 'koji fermentation qv9z', limit: 5 }, { 'x-ctx-consistency-token': token });
      return !gone.body.result.resources.some((r: { uri: string }) => r.uri === 'ctx://resources/kb/fermentation.md');
    }, { what: 'the removed file to leave the follower index', timeoutMs: 20_000, intervalMs: 200 });
    // A non-replica still forwards (it holds none of the shard's records).
    const other = file.nodes.find((n) => !s.replicas.includes(n.id));
    if (other) expect((await post(other.url, '/api/v1/search/find', { query: 'warm up', limit: 5 }, { 'x-ctx-consistency-token': w.token! })).status).toBe(200);
  }, 120_000);
});
