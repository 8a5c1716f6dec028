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
import type { Shard } from './shard-status.js';
import { shardOf } from '../../runtime/cluster/placement.js';
import { CONSISTENCY_TOKEN_HEADER, CtxClient, type FetchInit } from 'ctx-client';

const HEARTBEAT_MS = 500;


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

  it('the TypeScript client reads its own writes through whichever node a round-robin balancer picks', async () => {
    // Each request goes to the next node in turn, as behind a load balancer that knows no shards.
    let turn = 0;
    const sent: Array<{ url: string; token?: string }> = [];
    const balanced = (url: string, init: FetchInit) => {
      const to = file.nodes[turn++ % file.nodes.length]!.url;
      const rewritten = to + url.slice(new URL(url).origin.length);
      sent.push({ url: rewritten, token: (init.headers as Record<string, string>)[CONSISTENCY_TOKEN_HEADER] });
      return fetch(rewritten, init);
    };
    const ctx = new CtxClient({ url: 'http://balancer.invalid', apiKey: file.root_api_key, fetch: balanced });
    for (let i = 0; i < 12; i++) {
      const uri = `ctx://resources/ryw/n${i}.md`;
      await ctx.content.write({ uri, content: `note ${i} 7hq${i}` });
      expect(await ctx.content.read({ uri })).toBe(`note ${i} 7hq${i}`);
    }
    // Every request after the first write carried the newest token of the written shard, and the
    // reads landed on every node (the leader, its follower, the node that forwards).
    const tokens = sent.slice(1).map((r) => r.token);
    expect(tokens.every((t) => t !== undefined && t.split(',').some((x) => x.startsWith(`${shard}:`)))).toBe(true);
    expect(new Set(sent.filter((_, i) => i % 2 === 1).map((r) => new URL(r.url).origin)).size).toBe(file.nodes.length);
    expect(ctx.consistencyToken()).toMatch(new RegExp(`(^|,)${shard}:[0-9]+$`));
  }, 120_000);

  interface Consistency {
    node: string;
    shards: { shard: number; applied_seq: number; keys: number; digest: string; role: string }[];
    cluster?: { clean: boolean; compared: number; mismatches: unknown[]; unsettled: unknown[]; unreachable: unknown[] };
  }
  const consistency = async (url: string, query = 'cluster=true', key = file.root_api_key) => {
    const res = await fetch(`${url}/api/v1/system/consistency?${query}`, { headers: { 'x-api-key': key } });
    return { status: res.status, body: (await res.json()) as { result: Consistency; error?: { code: string } } };
  };

  it("system/consistency: every replica's copy of every shard matches at the same sequence", async () => {
    for (const n of file.nodes) {
      let last: unknown;
      const c = await pollUntil(async () => {
        const r = await consistency(n.url);
        expect(r.status).toBe(200);
        last = r.body.result.cluster;
        return r.body.result.cluster!.clean && r.body.result;
      }, { what: `a clean consistency report from ${n.id}`, timeoutMs: 30_000, intervalMs: 500 }).catch((err: Error) => {
        throw new Error(`${err.message}; last: ${JSON.stringify(last)}`);
      });
      expect(c.node).toBe(n.id);
      expect(c.cluster!.compared).toBeGreaterThan(0);
      // Every node holds the system shard; the written shard is held by its two replicas.
      expect(c.shards.some((d) => d.shard === -1)).toBe(true);
    }
    const mine = (await consistency(node(leader).url, `shard=${shard}`)).body.result.shards[0]!;
    const theirs = (await consistency(node(follower).url, `at=${shard}:${mine.applied_seq}`)).body.result.shards[0]!;
    expect(mine.keys).toBeGreaterThan(0);
    expect(theirs).toMatchObject({ shard, applied_seq: mine.applied_seq, keys: mine.keys, digest: mine.digest, role: 'follower' });
    // Errors: the envelope, admins only.
    const bad = await consistency(node(leader).url, 'shard=9999');
    expect(bad.status).toBe(400);
    expect(bad.body.error!.code).toBe('INVALID_ARGUMENT');
    expect((await consistency(node(leader).url, 'at=nope')).status).toBe(400);
    expect((await consistency(node(leader).url, '', 'not-a-key')).status).toBe(401);
  }, 120_000);

  const mcp = async (url: string, key: string, sid: string | undefined, body: unknown) => {
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(sid ? { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, sid: res.headers.get('mcp-session-id') ?? sid, body: res.status === 202 ? undefined : ((await res.json()) as { result?: any; error?: unknown }) };
  };

  it('an MCP write tool on a node that does not lead the shard lands on the leader as the caller; a forged identity is refused', async () => {
    // An account whose shard the chosen node does not lead, with a USER.
    const acc = await post(file.nodes[0]!.url, '/api/v1/admin/accounts', { account_id: 'mcpacct', admin_user_id: 'boss' });
    expect(acc.status).toBe(201);
    const admin = acc.body.result.user_key as string;
    const accShard = shardOf('mcpacct', 64);
    const st = await pollUntil(async () => (await shards(file.nodes[0]!.url))[accShard]!.leader && (await shards(file.nodes[0]!.url))[accShard]!, { what: `a leader of shard ${accShard}`, timeoutMs: 30_000, intervalMs: 100 });
    const via = file.nodes.find((n) => n.id !== st.leader)!;
    const user = await pollUntil(async () => {
      const r = await fetch(`${via.url}/api/v1/admin/accounts/mcpacct/users`, { method: 'POST', headers: { 'x-api-key': admin, 'content-type': 'application/json' }, body: JSON.stringify({ user_id: 'bob', role: 'USER' }) });
      return r.status === 201 && ((await r.json()) as { result: { user_key: string } }).result.user_key;
    }, { what: 'the account admin to be known on every node', timeoutMs: 20_000, intervalMs: 200 });
    // The new key must be known where the MCP session runs (the system shard is replicated).
    const init = await pollUntil(async () => {
      const r = await mcp(via.url, user, undefined, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cluster-test', version: '1' } } });
      return r.status === 200 && r;
    }, { what: `an MCP session on ${via.id}`, timeoutMs: 20_000, intervalMs: 200 });
    await mcp(via.url, user, init.sid!, { jsonrpc: '2.0', method: 'notifications/initialized' });
    const call = await mcp(via.url, user, init.sid!, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write', arguments: { uri: 'ctx://resources/from-mcp.md', content: 'written through mcp on a follower' } } });
    expect(call.status).toBe(200);
    expect(call.body!.result.isError, JSON.stringify(call.body)).toBeFalsy();
    // On the leader, in the caller's account (not the root's default one).
    const read = async (key: string) => (await fetch(`${node(st.leader!).url}/api/v1/content/read?uri=${encodeURIComponent('ctx://resources/from-mcp.md')}`, { headers: { 'x-api-key': key } })).json() as Promise<{ result?: string; error?: { code: string } }>;
    expect((await read(user)).result).toBe('written through mcp on a follower');
    expect((await read(file.root_api_key)).error?.code).toBe('NOT_FOUND');
    // The MCP session lives on the node the client talks to (the write travelled as a route call).
    const elsewhere = await mcp(node(st.leader!).url, user, init.sid!, { jsonrpc: '2.0', id: 4, method: 'tools/list' });
    expect(elsewhere.status).toBe(404);
    // A forged peer identity (no valid signature) is refused by the leader, key or no key.
    const forged = { 'x-ctx-peer-identity': Buffer.from(JSON.stringify({ accountId: 'mcpacct', userId: 'boss', role: 'ADMIN' })).toString('base64url'), 'x-ctx-peer-signature': `v1.${via.id}.${Date.now()}.${'0'.repeat(64)}` };
    const f = await fetch(`${node(st.leader!).url}/api/v1/content/write`, { method: 'POST', headers: { 'content-type': 'application/json', ...forged }, body: JSON.stringify({ uri: 'ctx://resources/forged.md', content: 'x' }) });
    expect(f.status).toBe(401);
    expect(((await f.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
  }, 120_000);
});
