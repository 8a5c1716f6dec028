import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REEMBED_OWNER } from '../../plugins/semantic/index.js';
import { createEmbedder } from '../../runtime/models/embedder.js';
import { createLlm } from '../../runtime/models/llm.js';
import { startFakeOpenAi, type FakeServer } from '../models/fake-openai.js';
import { post, setup, untilReady, uris, wait, write, type Ctx } from './helpers.js';

const opened: Ctx[] = [];
const servers: http.Server[] = [];
const fakes: FakeServer[] = [];
afterAll(async () => {
  for (const c of opened) await c.t.close();
  for (const s of servers) s.close();
  for (const f of fakes) await f.close();
});

describe('restart', () => {
  it('reloads the persisted index; a stale or missing index file is rebuilt from RocksDB', async () => {
    const c = await setup();
    opened.push(c);
    await write(c.t, c.admin, 'ctx://resources/persist/a.md', 'The quokka lives on Rottnest island.');
    await wait(c.t);
    await c.t.restart();
    const file = path.join(c.t.dir, 'vectors', 'index.bin');
    expect(fs.existsSync(file)).toBe(true);
    let r = await post(c.t, c.admin, '/api/v1/search/find', { query: 'quokka island' });
    expect(uris(r.body.result)).toContain('ctx://resources/persist/a.md');
    let obs = (await c.t.req({ method: 'GET', url: '/api/v1/observer/vectordb', headers: c.t.root })).json().result.status as string;
    expect(obs).toContain('none (loaded from disk)');
    // Missing file: rebuilt.
    await c.t.app.close();
    fs.rmSync(path.join(c.t.dir, 'vectors'), { recursive: true, force: true });
    await c.t.restart().catch(async () => undefined);
    r = await post(c.t, c.admin, '/api/v1/search/find', { query: 'quokka island' });
    expect(uris(r.body.result)).toContain('ctx://resources/persist/a.md');
    obs = (await c.t.req({ method: 'GET', url: '/api/v1/observer/vectordb', headers: c.t.root })).json().result.status as string;
    expect(obs).toMatch(/records in \d+ ms \(no index file\)/);
    // Stale file (a change after the last save): rebuilt too.
    const meta = path.join(c.t.dir, 'vectors', 'index.meta.json');
    const m = JSON.parse(fs.readFileSync(meta, 'utf8'));
    fs.writeFileSync(meta, JSON.stringify({ ...m, seq: m.seq - 1 }));
    await c.t.restart();
    await untilReady(c.t);
    obs = (await c.t.req({ method: 'GET', url: '/api/v1/observer/vectordb', headers: c.t.root })).json().result.status as string;
    expect(obs).toContain('stale');
    r = await post(c.t, c.admin, '/api/v1/search/find', { query: 'quokka island' });
    expect(uris(r.body.result)).toContain('ctx://resources/persist/a.md');
    // A corrupt index file (same counter): unreadable, rebuilt.
    await c.t.app.close();
    const bin = path.join(c.t.dir, 'vectors', 'index.bin');
    const bytes = fs.readFileSync(bin);
    bytes.fill(0x5a, 8, Math.min(bytes.length, 200));
    fs.writeFileSync(bin, bytes);
    await c.t.restart().catch(() => undefined);
    await untilReady(c.t);
    obs = (await c.t.req({ method: 'GET', url: '/api/v1/observer/vectordb', headers: c.t.root })).json().result.status as string;
    expect(obs).toMatch(/unreadable|stale/);
    r = await post(c.t, c.admin, '/api/v1/search/find', { query: 'quokka island' });
    expect(uris(r.body.result)).toContain('ctx://resources/persist/a.md');
  });
});

/** A fake OpenAI-compatible chat server on 127.0.0.1 (real HTTP), recording requests. */
async function fakeLlm(reply: (body: any) => { status?: number; content?: string }) {
  const seen: any[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const body = JSON.parse(raw);
      seen.push({ url: req.url, auth: req.headers.authorization, body });
      const r = reply(body);
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(r.status && r.status >= 400 ? { error: { message: 'boom' } } : { choices: [{ message: { role: 'assistant', content: r.content } }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

describe('LLM', () => {
  it('client: auth header, retries on 5xx, gives up on 4xx', async () => {
    let n = 0;
    const f = await fakeLlm(() => (++n === 1 ? { status: 503 } : { content: 'hello' }));
    const llm = createLlm({ baseUrl: f.url, model: 'm1', apiKey: 'k-123' })!;
    const r = await llm.chat([{ role: 'user', content: 'hi' }]);
    expect(r.text).toBe('hello');
    expect(f.seen).toHaveLength(2);
    expect(f.seen[1]).toMatchObject({ url: '/v1/chat/completions', auth: 'Bearer k-123', body: { model: 'm1' } });
    const bad = await fakeLlm(() => ({ status: 400 }));
    await expect(createLlm({ baseUrl: bad.url })!.chat([{ role: 'user', content: 'x' }])).rejects.toThrow(/HTTP 400/);
    expect(bad.seen).toHaveLength(1);
    expect(createLlm({})).toBeNull();
  });

  it('L0/L1 come from prompts and search expands queries with the LLM', async () => {
    const f = await fakeLlm((body) => {
      const sys: string = body.messages[0].content;
      if (sys.includes('plan searches')) return { content: '{"intent":"find pets","expanded_queries":["wombat burrow","marsupial habitat"]}' };
      if (sys.includes('L1 overview')) return { content: '# LLM overview\n\n- wombat.md: about wombats' };
      if (sys.includes('abstract of a directory')) return { content: 'LLM directory abstract about marsupials.' };
      return { content: 'LLM file abstract: wombats dig burrows.' };
    });
    const c = await setup({ config: { llm: { baseUrl: f.url, model: 'fake-1' } } });
    opened.push(c);
    await write(c.t, c.admin, 'ctx://resources/zoo/wombat.md', 'Wombats are marsupials that dig large burrow systems.');
    await wait(c.t);
    const abs = await c.t.req({ method: 'GET', url: '/api/v1/content/abstract?uri=ctx://resources/zoo', headers: c.admin });
    expect(abs.json().result).toContain('LLM directory abstract about marsupials.');
    const ov = await c.t.req({ method: 'GET', url: '/api/v1/content/overview?uri=ctx://resources/zoo', headers: c.admin });
    expect(ov.json().result).toContain('# LLM overview');
    const r = await post(c.t, c.admin, '/api/v1/search/search', { query: 'where do they live', include_provenance: true });
    expect(r.body.result.query_plan).toMatchObject({ expanded_queries: ['wombat burrow', 'marsupial habitat'], planner: 'llm', intent: 'find pets' });
    const hit = r.body.result.resources.find((m: any) => m.uri === 'ctx://resources/zoo/wombat.md');
    expect(hit.abstract).toBe('LLM file abstract: wombats dig burrows.');
  });

  it('a failing LLM falls back to extractive text', async () => {
    const f = await fakeLlm(() => ({ status: 400 }));
    const c = await setup({ config: { llm: { baseUrl: f.url } } });
    opened.push(c);
    await write(c.t, c.admin, 'ctx://resources/zoo2/koala.md', '# Koalas\n\nKoalas eat eucalyptus leaves.');
    const w = await wait(c.t);
    expect(w.Semantic.error_count).toBe(0);
    const ov = await c.t.req({ method: 'GET', url: '/api/v1/content/overview?uri=ctx://resources/zoo2', headers: c.admin });
    expect(ov.json().result).toContain('Koalas eat eucalyptus leaves.');
    const s = await post(c.t, c.admin, '/api/v1/search/search', { query: 'koala food' });
    expect(s.body.result.query_plan.expanded_queries[0]).toBe('koala food');
  });
});

describe('reranker', () => {
  it('reorders the head of the results with a Cohere-style /rerank server', async () => {
    const seen: any[] = [];
    const server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', () => {
        const body = JSON.parse(raw);
        seen.push({ url: req.url, body });
        // Prefers documents about otters, whatever the vectors say.
        const results = body.documents.map((d: string, index: number) => ({ index, relevance_score: /otter/i.test(d) ? 0.99 : 0.01 }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ results }));
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    servers.push(server);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const c = await setup({ config: { rerank: { baseUrl: base, model: 'rr-1' } } });
    opened.push(c);
    await write(c.t, c.admin, 'ctx://resources/river/beavers.md', 'River animals: beavers build dams on the river.');
    await write(c.t, c.admin, 'ctx://resources/river/otters.md', 'Otters float on their backs.');
    await wait(c.t);
    const r = await post(c.t, c.admin, '/api/v1/search/find', { query: 'river animals dams', level: 2, include_provenance: true });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0].url).toMatch(/\/rerank$/);
    expect(seen[0].body.query).toBe('river animals dams');
    expect(r.body.result.resources[0].uri).toBe('ctx://resources/river/otters.md');
    expect(r.body.result.resources[0].match_reason).toContain('reranked 0.99');
    expect(r.body.result.provenance.reranked).toBe(true);
  });
});

describe('embedder change', () => {
  it('a different embedder drops the old vectors and re-embeds every record (task), findable again', async () => {
    const c = await setup();
    opened.push(c);
    await write(c.t, c.admin, 'ctx://resources/emb/a.md', 'The axolotl regrows its limbs.');
    await wait(c.t);
    await c.t.app.close();
    const { startTestApp } = await import('../helpers/app.js');
    const again = await startTestApp({ dir: c.t.dir, config: { embedding: { provider: 'local', dim: 256 } } });
    try {
      await wait(again);
      const obs = (await again.req({ method: 'GET', url: '/api/v1/observer/vectordb', headers: again.root })).json().result.status as string;
      expect(obs).toMatch(/dimension\s+256/);
      const r = await post(again, c.admin, '/api/v1/search/find', { query: 'axolotl limbs' });
      expect(uris(r.body.result)).toContain('ctx://resources/emb/a.md');
      const cons = await post(again, c.admin, '/api/v1/system/consistency', { uri: 'ctx://resources/emb' });
      expect(cons.body.result.ok).toBe(true);
    } finally {
      await again.app.close();
      c.t.app = again.app;
    }
  });
});

describe('embedder change of params only', () => {
  const CHANGED = 'ctx://resources/emb2';
  const reembedTasks = (app: { tasks: { list: Function } }) =>
    app.tasks.list(REEMBED_OWNER, { task_type: 'vector_reembed', include_internal: true }) as Promise<Array<{ task_type: string; status: string }>>;
  /** Document texts the fake embedding server received since `from`, with their prefix. */
  const documents = (f: FakeServer, from: number) => f.received.slice(from).flatMap((r) => r.body.input ?? []).filter((t) => t !== 'dimension check');

  it('same provider, model and dim but another documentPrefix: old vectors dropped, every record re-embedded (task)', async () => {
    const f = await startFakeOpenAi(8);
    fakes.push(f);
    const base = { provider: 'openai' as const, baseUrl: f.url, model: 'fake-embed', dim: 8 };
    const c = await setup({ config: { embedding: base } });
    opened.push(c);
    await write(c.t, c.admin, `${CHANGED}/a.md`, 'The axolotl regrows its limbs.');
    await wait(c.t);
    expect(documents(f, 0).some((t) => t.startsWith('passage: '))).toBe(false);
    await c.t.app.close();
    const mark = f.received.length;
    const { startTestApp } = await import('../helpers/app.js');
    const again = await startTestApp({ dir: c.t.dir, config: { embedding: { ...base, documentPrefix: 'passage: ' } as never } });
    c.t.app = again.app;
    await wait(again);
    const tasks = await reembedTasks(again.app);
    expect(tasks.map((t) => t.task_type)).toEqual(['vector_reembed']);
    // Every record (file L2, directory L0/L1 up to the space root) went through the new embedder.
    const sent = documents(f, mark);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(sent.every((t) => t.startsWith('passage: '))).toBe(true);
    const kv = again.app.kv.sub('p:retrieval');
    expect(await kv.get('meta\x00reembed')).toBeUndefined();
    const cons = await post(again, c.admin, '/api/v1/system/consistency', { uri: CHANGED });
    expect(cons.body.result.ok).toBe(true);
    const r = await post(again, c.admin, '/api/v1/search/find', { query: 'axolotl limbs' });
    expect(uris(r.body.result)).toContain(`${CHANGED}/a.md`);
  });

  it('a crash after the new embedder meta was stored resumes the re-embed on the next start', async () => {
    const f = await startFakeOpenAi(8);
    fakes.push(f);
    const a = { provider: 'openai' as const, baseUrl: f.url, model: 'fake-embed', dim: 8 };
    const b = { ...a, documentPrefix: 'doc: ' };
    const c = await setup({ config: { embedding: a } });
    opened.push(c);
    await write(c.t, c.admin, `${CHANGED}/b.md`, 'Tardigrades survive in space.');
    await wait(c.t);
    // The state a start with embedder B leaves when it dies right after its first batch: B's meta,
    // the re-embed flag and a moved counter, the vectors of A still stored, nothing queued.
    const infoB = (await createEmbedder({ ...b, skipCheck: true })).info;
    (infoB as { dim: number }).dim = 8;
    const kv = c.t.app.kv.sub('p:retrieval');
    const seq = ((await kv.getJson<number>('meta\x00seq')) ?? 0) + 1;
    await kv.batch([kv.putJsonOp('meta\x00embedder', infoB), kv.putJsonOp('meta\x00reembed', { from: c.t.app.config.embedding, to: infoB, since: Date.now() }), kv.putJsonOp('meta\x00seq', seq)]);
    await c.t.app.close();
    const mark = f.received.length;
    const { startTestApp } = await import('../helpers/app.js');
    const again = await startTestApp({ dir: c.t.dir, config: { embedding: b as never } });
    c.t.app = again.app;
    await wait(again);
    // Stored meta equals the running embedder, yet the flag forces the drop and the re-embed.
    expect((await reembedTasks(again.app)).length).toBe(1);
    const sent = documents(f, mark);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(sent.every((t) => t.startsWith('doc: '))).toBe(true);
    expect(await again.app.kv.sub('p:retrieval').get('meta\x00reembed')).toBeUndefined();
    const cons = await post(again, c.admin, '/api/v1/system/consistency', { uri: CHANGED });
    expect(cons.body.result.ok).toBe(true);
  });
});
