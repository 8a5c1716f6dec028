/**
 * `httpFetch` (node:http instead of undici's fetch, what the CLI uses) against a real server: JSON
 * calls, typed errors, retries after a reset, SSE, downloads, uploads (handed to the global fetch),
 * aborts and a refused connection; and a CLI-like process that never loads undici.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CtxApiError, CtxClient, CtxConnectionError, httpFetch } from 'ctx-client/node';
import { startLiveServer, type LiveServer } from './server.js';

let s: LiveServer;
let alice: CtxClient;

beforeAll(async () => {
  s = await startLiveServer();
  alice = new CtxClient({ url: s.url, apiKey: s.aliceKey, fetch: httpFetch });
});
afterAll(() => s.close());

describe('httpFetch', () => {
  it('JSON calls: write, ls, stat, find, read', async () => {
    await alice.content.write({ uri: 'ctx://resources/hf/a.md', content: '# Heron\n\nThe heron nests by the river.', mode: 'replace', wait: true });
    expect(await alice.fs.ls({ uri: 'ctx://resources/hf' })).toEqual([expect.objectContaining({ name: 'a.md', isDir: false })]);
    expect(await alice.fs.stat({ uri: 'ctx://resources/hf/a.md' })).toMatchObject({ name: 'a.md' });
    expect(await alice.content.read({ uri: 'ctx://resources/hf/a.md' })).toContain('heron nests');
    const found = await alice.search.find({ query: 'heron river', limit: 5 });
    expect(JSON.stringify(found)).toContain('ctx://resources/hf/a.md');
  });

  it('error envelopes become CtxApiError with the code, status and request id', async () => {
    const err = await alice.fs.stat({ uri: 'ctx://resources/hf/nope.md' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CtxApiError);
    expect(err).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect((err as CtxApiError).requestId).toMatch(/\S+/);
    const anon = await new CtxClient({ url: s.url, fetch: httpFetch }).fs.ls({ uri: 'ctx://resources' }).catch((e: unknown) => e);
    expect(anon).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
  });

  it('a refused connection is a CtxConnectionError naming the system error; an unknown scheme too', async () => {
    const c = new CtxClient({ url: 'http://127.0.0.1:9', fetch: httpFetch, retry: { retries: 0 } });
    const err = await c.system.status().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CtxConnectionError);
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
    await expect(new CtxClient({ url: 'ftp://127.0.0.1:9', fetch: httpFetch, retry: { retries: 0 } }).system.status()).rejects.toBeInstanceOf(CtxConnectionError);
  });

  it('an idempotent call is retried after a connection reset', async () => {
    let left = 1;
    const proxy = http.createServer((req, res) => {
      if (left-- > 0) return req.socket.destroy();
      const up = http.request(s.url + req.url, { method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode!, r.headers);
        r.pipe(res);
      });
      req.pipe(up);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const c = new CtxClient({ url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, apiKey: s.aliceKey, fetch: httpFetch, retry: { retries: 2, baseDelayMs: 1 } });
      expect(await c.fs.ls({ uri: 'ctx://resources/hf' })).toHaveLength(1);
      expect(left).toBe(-1);
    } finally {
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });

  it('an aborted request rejects with the abort, not a connection error', async () => {
    const ac = new AbortController();
    ac.abort();
    const err = await alice.fs.ls({ uri: 'ctx://resources' }, { signal: ac.signal }).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(CtxConnectionError);
    expect((err as Error).name).toBe('AbortError');
  });

  it('streams: bot chat over SSE and a download', async () => {
    s.llm.script.push({ text: 'Herons eat fish.' });
    const events = [];
    for await (const ev of alice.bot.chatStream({ message: 'What do herons eat?' })) events.push(ev);
    expect(events.at(-1)).toMatchObject({ event: 'response', data: { content: expect.stringContaining('fish') } });
    await alice.content.write({ uri: 'ctx://resources/hf/big.txt', content: 'y'.repeat(100_000), mode: 'replace' });
    const dl = await alice.content.download('ctx://resources/hf/big.txt');
    expect(dl.size).toBe(100_000);
    let n = 0;
    for await (const chunk of dl.stream as unknown as AsyncIterable<Uint8Array>) n += chunk.byteLength;
    expect(n).toBe(100_000);
  });

  it('uploads (FormData bodies) go through the global fetch: addResource of a local directory', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-hf-'));
    fs.writeFileSync(path.join(dir, 'README.md'), '# Kingfisher\n');
    const out = await alice.addResource({ path: dir, to: 'ctx://resources/kf' });
    expect(out.task?.status).toBe('completed');
    expect(await alice.content.read({ uri: 'ctx://resources/kf/README.md' })).toContain('Kingfisher');
    fs.rmSync(dir, { recursive: true });
  });

  it('a process making a JSON call with it never loads undici (the CLI start-up budget)', async () => {
    const dist = path.resolve('clients/typescript/dist/node/index.js');
    if (!fs.existsSync(dist)) throw new Error('build ctx-client first: npm run build -w ctx-client');
    const script = `import { CtxClient, httpFetch } from ${JSON.stringify(dist)};
      const c = new CtxClient({ url: process.env.U, apiKey: process.env.K, fetch: httpFetch });
      const ls = await c.fs.ls({ uri: 'ctx://resources/hf' });
      await c.search.find({ query: 'heron', limit: 1 });
      console.log(JSON.stringify({ n: ls.length, undici: process.moduleLoadList.some((m) => m.includes('undici')) }));
      process.exit();`;
    // Asynchronously: the server under test lives in this process.
    const r = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, U: s.url, K: s.aliceKey }, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ n: 2, undici: false });
  });
});
