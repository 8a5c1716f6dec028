/**
 * Background work on the shard's leader (docs/scale-out.md, phase 3b) over real processes: 3
 * nats-servers and 3 ctx nodes from the launcher, a fake OpenAI-compatible embedder (the one thing
 * that cannot run here) counting what it is asked. Steps build on each other (same cluster).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localClusterForFile } from './one-at-a-time.js';
import { natsServerInstalled, type ClusterFile } from '../../runtime/cluster/launcher.js';
import { tempDir } from '../helpers/app.js';
import { pollUntil, sleep } from '../helpers/poll.js';
import { startFakeOpenAi, type FakeServer } from '../models/fake-openai.js';

const HEARTBEAT_MS = 500;
const ENV = ['CTX_EMBEDDING_PROVIDER', 'CTX_EMBEDDING_BASE_URL', 'CTX_EMBEDDING_MODEL', 'CTX_EMBEDDING_DIM'] as const;

describe.skipIf(!natsServerInstalled())('background work runs on the shard leader only', () => {
  const dir = tempDir('ctx-cluster3b-');
  let file: ClusterFile;
  let embedder: FakeServer;
  const saved: Partial<Record<(typeof ENV)[number], string | undefined>> = {};
  const headers = () => ({ 'x-api-key': file.root_api_key, 'content-type': 'application/json' });
  const post = async (url: string, path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: headers(), body: JSON.stringify(body) });
    return { status: res.status, token: res.headers.get('x-ctx-consistency-token'), body: (await res.json()) as { result?: Record<string, unknown>; error?: { code: string } } };
  };
  const get = async (url: string, path: string) => (await (await fetch(`${url}${path}`, { headers: headers() })).json()) as { result?: Record<string, unknown>; error?: { code: string } };
  const leaderOf = async (via: string, shard: number) => ((await get(via, '/api/v1/system/status')).result!.cluster as { shards: Array<{ leader?: string }> }).shards[shard]!.leader;
  /** Embedding inputs the fake received (every node's requests, in arrival order). */
  const inputs = () => embedder.received.flatMap((r) => r.body.input ?? []);
  /** One queue's row of a node's own `queue` observer (pending, in_flight, processed). */
  const queueRow = async (url: string, queue: string) => {
    const status = String((await get(url, '/api/v1/observer/queue')).result!.status);
    const cells = status.split('\n').map((l) => l.trim().split(/\s+/)).find((c) => c[0] === queue) ?? [];
    return { pending: Number(cells[1] ?? 0), inFlight: Number(cells[2] ?? 0), processed: Number(cells[3] ?? 0) };
  };

  beforeAll(async () => {
    embedder = await startFakeOpenAi(8);
    for (const k of ENV) saved[k] = process.env[k];
    // The nodes inherit this process's environment (the launcher passes it on).
    Object.assign(process.env, { CTX_EMBEDDING_PROVIDER: 'openai', CTX_EMBEDDING_BASE_URL: embedder.url, CTX_EMBEDDING_MODEL: 'fake-embed', CTX_EMBEDDING_DIM: '8' });
  });
  localClusterForFile(dir, HEARTBEAT_MS, (f) => (file = f));
  afterAll(async () => {
    for (const k of ENV) (saved[k] === undefined ? delete process.env[k] : (process.env[k] = saved[k]));
    await embedder?.close();
  });

  let shard: number;
  let leader: string;

  it('start-up identity writes go through the system shard: every node holds the same default account', async () => {
    // Each node bootstraps `default` at start; through the system shard's log they all end with one
    // record (the same created_at), where nodes writing locally each kept their own.
    const views = await pollUntil(async () => {
      const all = await Promise.all(file.nodes.map(async (n) => ((await get(n.url, '/api/v1/admin/accounts')).result as unknown as Array<{ account_id: string; created_at?: string }> | undefined)?.find((a) => a.account_id === 'default')));
      return all.every((a) => a && a.created_at === all[0]!.created_at) && all;
    }, { what: 'one default account on every node', timeoutMs: 30_000, intervalMs: 200 });
    expect(views[0]!.created_at).toBeTruthy();
    // An account created through a node that does not lead the system shard is on every node.
    const made = await post(file.nodes[2]!.url, '/api/v1/admin/accounts', { account_id: 'acme', admin_user_id: 'ann' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.token).toMatch(/^sys:\d+$/);
    for (const n of file.nodes) {
      const res = await fetch(`${n.url}/api/v1/admin/accounts`, { headers: { ...headers(), 'x-ctx-consistency-token': made.token! } });
      const accounts = ((await res.json()) as { result: Array<{ account_id: string }> }).result.map((a) => a.account_id);
      expect(accounts, n.id).toContain('acme');
    }
  }, 120_000);

  it('work queued by writes through any node is embedded once, by the leader; followers run no consumer for it', async () => {
    const first = await pollUntil(async () => {
      const w = await post(file.nodes[0]!.url, '/api/v1/content/write', { uri: 'ctx://resources/bg/first.md', content: 'first file of the background test' });
      return w.status === 200 && w;
    }, { what: 'a first accepted write', timeoutMs: 30_000, intervalMs: 100 });
    shard = Number(first.token!.split(':')[0]);
    leader = (await pollUntil(() => leaderOf(file.nodes[0]!.url, shard), { what: 'a leader', timeoutMs: 10_000, intervalMs: 100 }))!;
    const markers = file.nodes.map((n, i) => `quokka${i}marker`);
    for (const [i, n] of file.nodes.entries()) {
      const w = await post(n.url, '/api/v1/content/write', { uri: `ctx://resources/bg/f${i}.md`, content: `${markers[i]} lives on node ${n.id}` });
      expect(w.status).toBe(200);
    }
    await pollUntil(() => markers.every((m) => inputs().some((t) => t.includes(m))), { what: 'every file embedded', timeoutMs: 60_000, intervalMs: 200 });
    // Let any duplicate delivery (a follower's consumer, a second leader) reach the fake too.
    await pollUntil(async () => (await queueRow(file.nodes.find((n) => n.id === leader)!.url, 'Embedding')).pending === 0, { what: 'the leader idle', timeoutMs: 60_000, intervalMs: 200 });
    await sleep(1500);
    for (const m of markers) {
      const texts = inputs().filter((t) => t.includes(m));
      // The same text embedded twice would be the same message processed twice.
      expect(new Set(texts).size, `${m}: ${JSON.stringify(texts)}`).toBe(texts.length);
    }
    for (const n of file.nodes) {
      const row = await queueRow(n.url, 'Embedding');
      if (n.id === leader) expect(row.processed).toBeGreaterThan(0);
      else expect(row, n.id).toEqual({ pending: 0, inFlight: 0, processed: 0 });
    }
  }, 180_000);

  it('kill -9 of the leader mid-task: the new leader fails the task with NODE_LOST and runs the queued work', async () => {
    const old = file.nodes.find((n) => n.id === leader)!;
    // Every embedding request is parked from here: the leader's work stays in flight.
    embedder.gate = 1_000_000;
    const late = await post(old.url, '/api/v1/content/write', { uri: 'ctx://resources/bg/late.md', content: 'wombatlate marker written before the crash' });
    expect(late.status).toBe(200);
    const started = await post(old.url, '/api/v1/content/reindex', { uri: 'ctx://resources/bg/f0.md', wait: false });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const taskId = String(started.body.result!.task_id);
    const survivor = file.nodes.find((n) => n.id !== leader)!;
    await pollUntil(async () => (await get(old.url, `/api/v1/tasks/${taskId}`)).result?.status === 'running', { what: 'the reindex task running', timeoutMs: 30_000, intervalMs: 100 });
    await pollUntil(() => inputs().some((t) => t.includes('wombatlate')), { what: 'the late file in flight at the embedder', timeoutMs: 30_000, intervalMs: 100 });
    process.kill(old.pid, 'SIGKILL');
    embedder.gate = 0;
    const mark = embedder.received.length;
    const failed = await pollUntil(async () => {
      const t = (await get(survivor.url, `/api/v1/tasks/${taskId}`)).result;
      return t && t.status !== 'running' && t.status !== 'pending' && t;
    }, { what: 'the task settled by the new leader', timeoutMs: 30_000, intervalMs: 200 });
    expect(failed.status).toBe('failed');
    expect(String(failed.error)).toMatch(/NODE_LOST/);
    const newLeader = await leaderOf(survivor.url, shard);
    expect(newLeader).toBeDefined();
    expect(newLeader).not.toBe(leader);
    // The message the dead leader had in flight is unacknowledged in the log: the new leader runs it.
    await pollUntil(() => embedder.received.slice(mark).some((r) => (r.body.input ?? []).some((t) => t.includes('wombatlate'))), { what: 'the late file embedded by the new leader', timeoutMs: 30_000, intervalMs: 200 });
    const via = file.nodes.find((n) => n.id === newLeader)!.url;
    await pollUntil(async () => (await queueRow(via, 'Embedding')).processed > 0, { what: 'the new leader acknowledging it', timeoutMs: 30_000, intervalMs: 200 });
  }, 180_000);
});
