/**
 * Start-up work through the log (docs/scale-out.md, "Start-up work") over real processes: a 3-node
 * cluster restarted with another embedding model re-embeds each stored text once — by the leader
 * of its shard, through the shard's log — and every replica ends with the same bytes. A fake
 * OpenAI-compatible embedder (the one thing that cannot run here) counts what it is asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localClusterForFile } from './one-at-a-time.js';
import { alive, natsServerInstalled, restartNode, type ClusterFile } from '../../runtime/cluster/launcher.js';
import { tempDir } from '../helpers/app.js';
import { pollUntil, sleep } from '../helpers/poll.js';
import { startFakeOpenAi, type FakeServer } from '../models/fake-openai.js';

const HEARTBEAT_MS = 500;
const ENV = ['CTX_EMBEDDING_PROVIDER', 'CTX_EMBEDDING_BASE_URL', 'CTX_EMBEDDING_MODEL', 'CTX_EMBEDDING_DIM'] as const;

describe.skipIf(!natsServerInstalled())('start-up work goes through the shard leader and its log', () => {
  const dir = tempDir('ctx-cluster-startup-');
  let file: ClusterFile;
  let embedder: FakeServer;
  const saved: Partial<Record<(typeof ENV)[number], string | undefined>> = {};
  const headers = () => ({ 'x-api-key': file.root_api_key, 'content-type': 'application/json' });
  const get = async (url: string, path: string) => (await (await fetch(`${url}${path}`, { headers: headers() })).json()) as { result?: Record<string, unknown>; error?: { code: string } };
  const inputs = (from: number) => embedder.received.slice(from).flatMap((r) => r.body.input ?? []);
  const pending = async (url: string) => {
    const status = String((await get(url, '/api/v1/observer/queue')).result!.status);
    const cells = status.split('\n').map((l) => l.trim().split(/\s+/)).find((c) => c[0] === 'Embedding') ?? [];
    return Number(cells[1] ?? 0) + Number(cells[2] ?? 0);
  };

  beforeAll(async () => {
    embedder = await startFakeOpenAi(8);
    for (const k of ENV) saved[k] = process.env[k];
    Object.assign(process.env, { CTX_EMBEDDING_PROVIDER: 'openai', CTX_EMBEDDING_BASE_URL: embedder.url, CTX_EMBEDDING_MODEL: 'fake-embed-a', CTX_EMBEDDING_DIM: '8' });
  });
  localClusterForFile(dir, HEARTBEAT_MS, (f) => (file = f));
  afterAll(async () => {
    for (const k of ENV) (saved[k] === undefined ? delete process.env[k] : (process.env[k] = saved[k]));
    await embedder?.close();
  });

  it('after an embedder change each text is embedded once, by its shard leader, and every replica agrees', async () => {
    const markers = ['numbat', 'bilby', 'quoll'].map((m) => `${m}reembed`);
    for (const [i, m] of markers.entries())
      await pollUntil(async () => {
        const res = await fetch(`${file.nodes[i]!.url}/api/v1/content/write`, { method: 'POST', headers: headers(), body: JSON.stringify({ uri: `ctx://resources/re/${m}.md`, content: `${m} text to embed` }) });
        return res.status === 200;
      }, { what: `a write of ${m}`, timeoutMs: 30_000, intervalMs: 100 });
    await pollUntil(() => markers.every((m) => inputs(0).some((t) => t.includes(m))), { what: 'every file embedded by the first model', timeoutMs: 60_000, intervalMs: 200 });
    await pollUntil(async () => (await Promise.all(file.nodes.map((n) => pending(n.url)))).every((p) => p === 0), { what: 'every node idle', timeoutMs: 60_000, intervalMs: 200 });

    // The whole cluster restarts with another model.
    for (const n of file.nodes) process.kill(n.pid, 'SIGTERM');
    await pollUntil(() => file.nodes.every((n) => !alive(n.pid)), { what: 'the nodes stopped', timeoutMs: 20_000, intervalMs: 100 });
    process.env.CTX_EMBEDDING_MODEL = 'fake-embed-b';
    const mark = embedder.received.length;
    // restartNode's cluster.json update is synchronous before its first await: safe side by side.
    const started = await Promise.all(file.nodes.map((n) => restartNode({ dir, id: n.id, heartbeatMs: HEARTBEAT_MS })));
    file = started[started.length - 1]!;

    await pollUntil(() => markers.every((m) => inputs(mark).some((t) => t.includes(m))), { what: 'every file re-embedded', timeoutMs: 90_000, intervalMs: 200 });
    await pollUntil(async () => (await Promise.all(file.nodes.map((n) => pending(n.url)))).every((p) => p === 0), { what: 'every node idle', timeoutMs: 60_000, intervalMs: 200 });
    await sleep(1500);
    for (const m of markers) {
      const texts = inputs(mark).filter((t) => t.includes(m));
      // One node per shard does it: three nodes queueing it each would send each text up to three times.
      expect(new Set(texts).size, `${m}: ${JSON.stringify(texts)}`).toBe(texts.length);
    }
    // The re-embedded vectors reached the followers through the log: every copy is the same.
    for (const n of file.nodes) {
      const report = await pollUntil(async () => {
        const c = (await get(n.url, '/api/v1/system/consistency?cluster=true')).result?.cluster as { clean: boolean } | undefined;
        return c?.clean && c;
      }, { what: `a clean consistency report on ${n.id}`, timeoutMs: 30_000, intervalMs: 500 });
      expect(report.clean).toBe(true);
    }
  }, 300_000);
});
