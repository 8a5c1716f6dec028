/**
 * The replicated write path over real processes (docs/scale-out.md, phase 2): 3 nats-servers as
 * one JetStream cluster and 3 ctx nodes from the launcher users run. Each step builds on the last
 * (same cluster), so the file runs in order. Waits are bounded hang guards, except the failover
 * bound the issue sets (a new leader within 5 s).
 */
import { describe, expect, it } from 'vitest';
import { localClusterForFile } from './one-at-a-time.js';
import { natsServerInstalled, restartNode, type ClusterFile } from '../../runtime/cluster/launcher.js';
import { tempDir } from '../helpers/app.js';
import { pollUntil, sleep } from '../helpers/poll.js';
import type { Shard } from './shard-status.js';

const HEARTBEAT_MS = 500;


describe.skipIf(!natsServerInstalled())('replicated writes over a real cluster', () => {
  const dir = tempDir('ctx-cluster2-');
  let file: ClusterFile;
  const node = (id: string) => file.nodes.find((n) => n.id === id)!;
  const headers = (extra: Record<string, string> = {}) => ({ 'x-api-key': file.root_api_key, 'content-type': 'application/json', ...extra });

  const write = async (url: string, uri: string, content: string) => {
    const res = await fetch(`${url}/api/v1/content/write`, { method: 'POST', headers: headers(), body: JSON.stringify({ uri, content }) });
    return { status: res.status, token: res.headers.get('x-ctx-consistency-token'), retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { status: string; error?: { code: string } } };
  };
  const read = async (url: string, uri: string, token?: string) => {
    const res = await fetch(`${url}/api/v1/content/read?uri=${encodeURIComponent(uri)}`, { headers: headers(token ? { 'x-ctx-consistency-token': token } : {}) });
    return { status: res.status, body: (await res.json()) as { result?: string; error?: { code: string } } };
  };
  const shards = async (url: string): Promise<Shard[]> => {
    const res = await fetch(`${url}/api/v1/system/status`, { headers: headers() });
    return ((await res.json()) as { result: { cluster: { shards: Shard[] } } }).result.cluster.shards;
  };
  const maxToken = (tokens: string[]) => tokens.reduce((a, b) => (Number(b.split(':')[1]) > Number(a.split(':')[1]) ? b : a));

  /** The shard the root key's account writes to, and its leader. */
  let shard: number;
  /** The node the failover test kills, restarted by the catch-up test. */
  let killed: string;
  const leaderOf = async (via: string) => (await shards(via))[shard]!.leader;

  localClusterForFile(dir, HEARTBEAT_MS, (f) => (file = f));

  it('a write through any node is forwarded to the leader; the token reads it through every node', async () => {
    // The first write may meet a shard whose lease is still being taken (start-up): it retries.
    const first = await pollUntil(async () => {
      const w = await write(file.nodes[0]!.url, 'ctx://resources/hello.md', 'hello');
      return w.status === 200 && w;
    }, { what: 'a first accepted write', timeoutMs: 20_000, intervalMs: 100 });
    expect(first.token).toMatch(/^\d+:\d+$/);
    shard = Number(first.token!.split(':')[0]);
    const leader = (await pollUntil(() => leaderOf(file.nodes[0]!.url), { what: 'a leader in status', timeoutMs: 10_000, intervalMs: 100 }))!;
    for (const n of file.nodes) {
      const w = await write(n.url, `ctx://resources/from-${n.id}.md`, `written via ${n.id}`);
      expect(w.status, JSON.stringify(w.body)).toBe(200);
      expect(w.token).toMatch(new RegExp(`^${shard}:\\d+$`));
      for (const m of file.nodes) {
        const r = await read(m.url, `ctx://resources/from-${n.id}.md`, w.token!);
        expect(r.status).toBe(200);
        expect(r.body.result).toBe(`written via ${n.id}`);
      }
    }
    // Errors cross the hop verbatim: the spec's envelope, from the leader, through a non-leader.
    const other = file.nodes.find((n) => n.id !== leader)!;
    const bad = await fetch(`${other.url}/api/v1/content/write`, { method: 'POST', headers: headers(), body: JSON.stringify({ uri: 'ctx://resources/x.md', content: 'x', mode: 'sideways' }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('INVALID_ARGUMENT');
    const wrongKey = await fetch(`${other.url}/api/v1/content/write`, { method: 'POST', headers: { ...headers(), 'x-api-key': 'not-a-key' }, body: '{}' });
    expect(wrongKey.status).toBe(401);
    // Status: one leader, the other replica follows at the same applied sequence.
    const views = await Promise.all(file.nodes.map((n) => shards(n.url)));
    for (const v of views) expect(v[shard]!.leader).toBe(leader);
    expect(views.find((_, i) => file.nodes[i]!.id === leader)![shard]!.role).toBe('leader');
    const seq = Number(maxToken(file.nodes.map(() => first.token!)).split(':')[1]);
    for (const [i, v] of views.entries()) if (v[shard]!.role === 'follower') expect(v[shard]!.applied_seq, file.nodes[i]!.id).toBeGreaterThanOrEqual(seq);
  }, 60_000);

  const find = async (url: string, query: string) => {
    const res = await fetch(`${url}/api/v1/search/find`, { method: 'POST', headers: headers(), body: JSON.stringify({ query, limit: 5 }) });
    return ((await res.json()) as { result: { resources: { uri: string }[] } }).result.resources.map((r) => r.uri);
  };

  it('kill -9 of the leader under 8 writers: a new leader within 5 s, every acknowledged write on every surviving replica', async () => {
    const leader = (await leaderOf(file.nodes[0]!.url))!;
    const survivors = file.nodes.filter((n) => n.id !== leader);
    // Indexed by the old leader (wait: true): the new one must find it too (its index is rebuilt
    // from the replicated records when it takes the lead).
    const indexed = await fetch(`${survivors[0]!.url}/api/v1/content/write`, { method: 'POST', headers: headers(), body: JSON.stringify({ uri: 'ctx://resources/kb/sourdough.md', content: 'sourdough starter hydration zq7x levain', wait: true }) });
    expect(indexed.status).toBe(200);
    expect(await find(survivors[0]!.url, 'sourdough starter zq7x')).toContain('ctx://resources/kb/sourdough.md');
    const acked = new Map<string, string>();
    const tokens: string[] = [];
    let stop = false;
    let killedAt = 0;
    let firstAfterKill = 0;
    const writer = async (c: number) => {
      for (let i = 0; !stop; i++) {
        const via = survivors[(c + i) % survivors.length]!;
        const uri = `ctx://resources/failover/c${c}-${i}.md`;
        const w = await write(via.url, uri, `c${c} i${i}`).catch(() => undefined);
        if (w?.status === 200) {
          acked.set(uri, `c${c} i${i}`);
          tokens.push(w.token!);
          if (killedAt && !firstAfterKill) firstAfterKill = Date.now();
        } else if (w) {
          expect(w.status).toBe(503);
          expect(w.body.error!.code).toBe('UNAVAILABLE');
          expect(w.retryAfter).toBe('1');
          await sleep(50);
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, c) => writer(c));
    await pollUntil(() => acked.size >= 16, { what: '16 writes before the kill', timeoutMs: 30_000, intervalMs: 20 });
    process.kill(node(leader).pid, 'SIGKILL');
    killed = leader;
    killedAt = Date.now();
    await pollUntil(() => firstAfterKill > 0 && acked.size >= 40, { what: 'writes accepted after the kill', timeoutMs: 30_000, intervalMs: 20 });
    stop = true;
    await Promise.all(writers);
    const failover = firstAfterKill - killedAt;
    expect(failover).toBeLessThan(5_000);
    const newLeader = await leaderOf(survivors[0]!.url);
    expect(newLeader).toBeDefined();
    expect(newLeader).not.toBe(leader);
    expect(await pollUntil(async () => (await find(survivors[1]!.url, 'sourdough starter zq7x')).includes('ctx://resources/kb/sourdough.md'), { what: 'the new leader to find what the old one indexed', timeoutMs: 20_000, intervalMs: 200 })).toBe(true);
    const token = maxToken(tokens);
    for (const n of survivors)
      for (const [uri, content] of acked) {
        // Right after the kill a node may not know the shard's leader yet: that is a 503 with
        // retry-after (the spec's transient answer), so read again, bounded, as a client would.
        const r = await pollUntil(async () => {
          const x = await read(n.url, uri, token);
          return (x.body as { error?: { code?: string } }).error?.code === 'UNAVAILABLE' ? false : x;
        }, { what: `${uri} through ${n.id}`, timeoutMs: 20_000, intervalMs: 250 });
        expect(r.body.result, `${uri} through ${n.id}: ${JSON.stringify(r.body)}`).toBe(content);
      }
    // system/consistency is clean: every surviving replica's copy of every shard, compared at the
    // same sequence, has the same digest (polled: a shard re-placed after the kill is catching up).
    for (const n of survivors) {
      let last: unknown;
      await pollUntil(async () => {
        const res = await fetch(`${n.url}/api/v1/system/consistency?cluster=true`, { headers: headers() });
        last = ((await res.json()) as { result: { cluster: { clean: boolean } } }).result.cluster;
        return (last as { clean: boolean }).clean;
      }, { what: `a clean system/consistency from ${n.id}`, timeoutMs: 30_000, intervalMs: 500 }).catch((err: Error) => {
        throw new Error(`${err.message}; last: ${JSON.stringify(last)}`);
      });
    }
  }, 120_000);

  it('kill -9 of one nats-server during writes loses no acknowledged write', async () => {
    const targets = file.nodes.filter((n) => n.id !== killed);
    const acked = new Map<string, string>();
    const tokens: string[] = [];
    let stop = false;
    let refused = '';
    const writer = async (c: number) => {
      for (let i = 0; !stop; i++) {
        const uri = `ctx://resources/nats-loss/c${c}-${i}.md`;
        const w = await write(targets[(c + i) % targets.length]!.url, uri, `n${c}.${i}`).catch((err: Error) => ({ status: 0, body: err.message }) as const);
        if (w.status === 200) {
          acked.set(uri, `n${c}.${i}`);
          tokens.push(w.token!);
        } else {
          refused = `${w.status} ${JSON.stringify(w.body)}`;
          await sleep(50);
        }
      }
    };
    const writers = Array.from({ length: 4 }, (_, c) => writer(c));
    await pollUntil(() => acked.size >= 10, { what: '10 writes before the kill', timeoutMs: 30_000, intervalMs: 20 });
    process.kill(file.nats[0]!.pid, 'SIGKILL');
    const before = acked.size;
    await pollUntil(() => acked.size >= before + 20, { what: 'writes accepted with 2 of 3 nats-servers', timeoutMs: 30_000, intervalMs: 20 }).catch(async (err: Error) => {
      throw new Error(`${err.message} (${acked.size - before} accepted); the last refusal: ${refused}; the shard as ${targets[0]!.id} sees it: ${JSON.stringify((await shards(targets[0]!.url))[shard])}`);
    });
    stop = true;
    await Promise.all(writers);
    const token = maxToken(tokens);
    for (const n of targets) {
      // A replica whose stream consumer sat on the dead nats-server delivers nothing (seen: 70 s),
      // and each token read through it waits its 2 s before being forwarded. The first read that
      // waits in vain reopens the consumer, so only the first few reads may wait.
      let waited = 0;
      for (const [uri, content] of acked) {
        const asked = Date.now();
        // Right after the kill a node may not know the shard's leader yet: that is a 503 with
        // retry-after (the spec's transient answer), so read again, bounded, as a client would.
        const r = await pollUntil(async () => {
          const x = await read(n.url, uri, token);
          return (x.body as { error?: { code?: string } }).error?.code === 'UNAVAILABLE' ? false : x;
        }, { what: `${uri} through ${n.id}`, timeoutMs: 20_000, intervalMs: 250 });
        expect(r.body.result, `${uri} through ${n.id}: ${JSON.stringify(r.body)}`).toBe(content);
        if (Date.now() - asked >= 1_900) waited++;
      }
      expect(waited, `reads through ${n.id} that waited for their token, of ${acked.size}`).toBeLessThan(Math.max(8, acked.size / 4));
    }
  }, 120_000);

  it('a stopped node catches up on restart', async () => {
    // The node killed in the failover test comes back with its data and replays what it missed.
    const down1 = node(killed);
    const up1 = file.nodes.find((n) => n.id !== down1.id)!;
    const w = await write(up1.url, 'ctx://resources/while-away.md', 'missed it');
    expect(w.status).toBe(200);
    file = await restartNode({ dir, id: down1.id, heartbeatMs: HEARTBEAT_MS });
    const seq = Number(w.token!.split(':')[1]);
    const caught = await pollUntil(async () => {
      const s = (await shards(node(down1.id).url))[shard]!;
      return s.applied_seq >= seq && s;
    }, { what: `${down1.id} to apply seq ${seq}`, timeoutMs: 30_000, intervalMs: 100 });
    expect(caught.role).not.toBe('unassigned');
    // Served from its own store: the token is already applied, so nothing is forwarded.
    expect((await read(node(down1.id).url, 'ctx://resources/while-away.md', w.token!)).body.result).toBe('missed it');
  }, 240_000);

  it('NATS lost: writes answer 503 UNAVAILABLE with Retry-After, reads keep working, nothing half-applied', async () => {
    // Placement settled first: the node the shard was moved to while the other was away has
    // dropped its copy (unassigned), so a node serving reads from a copy it does not hold shows.
    await pollUntil(async () => {
      for (const n of file.nodes) {
        const v = (await shards(n.url))[shard]!;
        if (v.replicas.includes(n.id) !== (v.role !== 'unassigned')) return false;
      }
      return true;
    }, { what: 'every node following exactly the shards placed on it', timeoutMs: 30_000, intervalMs: 200 });
    for (const n of file.nats.slice(1)) process.kill(n.pid, 'SIGKILL');
    const via = file.nodes[0]!;
    const w = await pollUntil(async () => {
      const r = await write(via.url, 'ctx://resources/no-nats.md', 'never');
      return r.status === 503 && r;
    }, { what: 'writes refused without NATS', timeoutMs: 30_000, intervalMs: 200 });
    expect(w.body.error!.code).toBe('UNAVAILABLE');
    expect(w.retryAfter).toBe('1');
    // Long enough for every membership TTL to pass unheard and for a JetStream API call to time out.
    await sleep(8_000);
    for (const n of file.nodes) {
      const view = (await shards(n.url))[shard]!;
      const asked = Date.now();
      const hello = await read(n.url, 'ctx://resources/hello.md');
      const what = `${n.id} (${JSON.stringify(view)}): ${JSON.stringify(hello.body)}`;
      if (view.role === 'unassigned') {
        // Hearing nobody is not everybody gone: placement stands, so this node still does not
        // hold the shard. Its read is forwarded to the leader it knows, or refused as transient
        // at once (not after asking the unreachable bucket for a leader until its timeout, 5 s);
        // never answered from a copy it does not hold.
        expect(view.replicas, what).not.toContain(n.id);
        expect(Date.now() - asked, what).toBeLessThan(4_000);
        if (hello.status !== 200) expect(hello.body.error?.code, what).toBe('UNAVAILABLE');
        else expect(hello.body.result, what).toBe('hello');
        continue;
      }
      expect(hello.body.result, what).toBe('hello');
      expect((await read(n.url, 'ctx://resources/no-nats.md')).body.error?.code).toBe('NOT_FOUND');
    }
  }, 90_000);
});
