/** Retries (through a real proxy that fails on purpose), SSE bot chat, task events and add-resource of a local directory. */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CtxClient as BrowserClient, CtxConnectionError, readSse } from 'ctx-client';
import { CtxClient, saveDownload, zipPath } from 'ctx-client/node';
import { startLiveServer, type LiveServer } from './server.js';

let s: LiveServer;
let alice: CtxClient;

beforeAll(async () => {
  s = await startLiveServer();
  alice = new CtxClient({ url: s.url, apiKey: s.aliceKey });
});
afterAll(() => s.close());

/** A pass-through proxy to the real server whose first `failures` requests fail in the given way. */
async function flakyProxy(target: string, mode: 'retry-after' | '503-plain' | 'reset', failures: number) {
  const seen: string[] = [];
  let left = failures;
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (left > 0) {
      left--;
      if (mode === 'reset') return req.socket.destroy();
      res.writeHead(503, { 'content-type': 'application/json', ...(mode === 'retry-after' ? { 'retry-after': '0' } : {}) });
      return res.end(JSON.stringify({ status: 'error', error: { code: 'UNAVAILABLE', message: 'busy' } }));
    }
    const up = http.request(target + req.url, { method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode!, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('retries', () => {
  const fast = { retries: 3, baseDelayMs: 1, maxDelayMs: 20 };

  it('an idempotent call is retried after 503 + Retry-After and after a connection reset', async () => {
    for (const mode of ['retry-after', 'reset'] as const) {
      const p = await flakyProxy(s.url, mode, 2);
      const c = new BrowserClient({ url: p.url, apiKey: s.aliceKey, retry: fast });
      expect(await c.system.status()).toMatchObject({ user: 'alice' });
      expect(p.seen).toHaveLength(3);
      await p.close();
    }
  });

  it('a read-only POST (find) is retried; a write is not', async () => {
    const p = await flakyProxy(s.url, 'retry-after', 1);
    const c = new BrowserClient({ url: p.url, apiKey: s.aliceKey, retry: fast });
    expect(await c.search.find({ query: 'anything' })).toMatchObject({ total: expect.any(Number) });
    expect(p.seen).toHaveLength(2);
    const q = await flakyProxy(s.url, 'retry-after', 1);
    const w = new BrowserClient({ url: q.url, apiKey: s.aliceKey, retry: fast });
    await expect(w.content.write({ uri: 'ctx://resources/r.md', content: 'x', mode: 'replace' })).rejects.toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    expect(q.seen).toHaveLength(1);
    await Promise.all([p.close(), q.close()]);
  });

  it('a 503 without Retry-After is final; retries give up after the limit with the last error', async () => {
    const p = await flakyProxy(s.url, '503-plain', 1);
    await expect(new BrowserClient({ url: p.url, retry: fast }).system.health()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(p.seen).toHaveLength(1);
    const q = await flakyProxy(s.url, 'reset', 10);
    await expect(new BrowserClient({ url: q.url, retry: fast }).system.health()).rejects.toBeInstanceOf(CtxConnectionError);
    expect(q.seen).toHaveLength(4);
    await Promise.all([p.close(), q.close()]);
  });
});

describe('streams', () => {
  it('bot chat streams as an async iterator of events ending with the response', async () => {
    s.llm.script.push({ text: 'Tea is best steeped for three minutes.', reasoning: 'thinking' });
    const stream = alice.bot.chatStream({ message: 'How long to steep tea?' });
    const events = [];
    for await (const ev of stream) events.push(ev);
    const deltas = events.filter((e) => e.event === 'content_delta').map((e) => (e.data as { delta: string }).delta);
    expect(deltas.join('')).toContain('three minutes');
    expect(events.at(-1)).toMatchObject({ event: 'response', data: { content: expect.stringContaining('three minutes') } });
    expect(stream.sessionId).toMatch(/\S/);
  });

  it('a bad chat request fails the iterator with the typed error', async () => {
    const it = alice.bot.chatStream({} as never);
    await expect(it.next()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', status: 400 });
  });

  it('readSse joins multi-line data and skips comments', async () => {
    const body = new Response(': hi\ndata: a\ndata: b\n\nevent: x\ndata: {"k":1}\r\n\r\n').body!;
    const msgs = [];
    for await (const m of readSse(body)) msgs.push(m);
    expect(msgs).toEqual([
      { event: undefined, data: 'a\nb', id: undefined },
      { event: 'x', data: '{"k":1}', id: undefined },
    ]);
  });

  it('task events arrive in order and end with the task; downloads stream to disk', async () => {
    await alice.sessions.create({ session_id: 'ev' });
    await alice.sessions.addMessage('ev', { role: 'user', content: 'My cat is called Miso.' });
    const { task_id } = await alice.sessions.commit('ev');
    const kinds = [];
    for await (const ev of alice.tasks.events(task_id!, { intervalMs: 20 })) kinds.push(ev.kind);
    expect(kinds[0]).toBe('created');
    expect(kinds).toContain('status_changed');
    expect((await alice.tasks.get(task_id!)).status).toBe('completed');

    await alice.content.write({ uri: 'ctx://resources/dl/big.txt', content: 'x'.repeat(200_000), mode: 'replace' });
    const file = path.join(os.tmpdir(), `ctx-dl-${process.pid}.txt`);
    const ticks: number[] = [];
    expect(await saveDownload(await alice.content.download('ctx://resources/dl/big.txt'), file, (n) => ticks.push(n))).toBe(200_000);
    expect(fs.statSync(file).size).toBe(200_000);
    expect(ticks.at(-1)).toBe(200_000);
    fs.rmSync(file);
  });
});

describe('addResource of a local directory', () => {
  it('zips it, uploads it, follows the task and the files are there', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-add-'));
    fs.mkdirSync(path.join(dir, 'src'));
    fs.mkdirSync(path.join(dir, 'node_modules', 'x'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'README.md'), '# Demo\n\nA demo project about otters.');
    fs.writeFileSync(path.join(dir, 'src', 'main.py'), 'def otter():\n    return 1\n');
    fs.writeFileSync(path.join(dir, 'node_modules', 'x', 'index.js'), 'skip me');
    const phases = new Set<string>();
    const out = await alice.addResource({ path: dir, to: 'ctx://resources/demo', onProgress: (p) => phases.add(p.phase) });
    expect(out.root_uri).toBe('ctx://resources/demo');
    expect(out.task?.status).toBe('completed');
    expect([...phases]).toEqual(['zip', 'upload', 'task']);
    const tree = JSON.stringify(await alice.fs.tree({ uri: 'ctx://resources/demo' }));
    expect(tree).toContain('src/main.py');
    expect(tree).not.toContain('node_modules');
    expect(await alice.content.read({ uri: 'ctx://resources/demo/README.md' })).toContain('otters');
    fs.rmSync(dir, { recursive: true });
  });

  it('a missing path fails before any request; an empty directory too', async () => {
    await expect(alice.addResource({ path: '/nonexistent/ctx-dir' })).rejects.toThrow(/ENOENT/);
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-empty-'));
    await expect(zipPath(empty)).rejects.toThrow(/nothing to upload/);
    fs.rmSync(empty, { recursive: true });
  });
});
