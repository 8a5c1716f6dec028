/**
 * The real uWebSockets.js server on a free port: what inject() cannot show — body streaming and
 * limits on the wire, backpressure on large responses, SSE, HEAD, multipart, and graceful drain.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Reply } from '../../runtime/http/reply.js';
import { definePlugin } from '../../runtime/plugin.js';
import { s } from '../../runtime/schema.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const BIG = 8 * 1024 * 1024;
let release!: () => void;
const slowGate = () => new Promise<void>((r) => (release = r));

const testRoutes = definePlugin({
  name: 'socket-test-routes',
  version: '1.0.0',
  setup(host) {
    host.route({
      method: 'GET',
      path: '/test/stream',
      query: s.object({ sized: s.bool().default(true) }),
      handler(ctx) {
        async function* chunks() {
          for (let sent = 0; sent < BIG; sent += 256 * 1024) yield Buffer.alloc(256 * 1024, (sent / (256 * 1024)) % 251);
        }
        return Reply.raw(chunks(), { size: ctx.query.sized ? BIG : undefined });
      },
    });
    host.route({
      method: 'GET',
      path: '/test/sse',
      handler: () =>
        Reply.sse(async (sse) => {
          for (let i = 0; i < 3; i++) await sse.send({ n: i }, { event: 'tick', id: String(i) });
          await sse.send('multi\nline', { event: 'done' });
        }),
    });
    host.route({
      method: 'POST',
      path: '/test/echo',
      body: s.object({ text: s.string() }),
      handler: (ctx) => ({ text: ctx.body.text, bytes: ctx.req.rawBody.length }),
    });
    host.route({
      method: 'GET',
      path: '/test/peer',
      handler: (ctx) => ({ remote: ctx.req.remoteAddress, again: ctx.req.remoteAddress }),
    });
    host.route({
      method: 'GET',
      path: '/test/slow',
      async handler() {
        await slowGate();
        return { done: true };
      },
    });
  },
});

let t: TestApp;
let base: string;
let port: number;
const key = () => t.root;

beforeAll(async () => {
  t = await startTestApp({ extraPlugins: [testRoutes], config: { maxJsonBodyBytes: 64 * 1024, profiling: true } });
  const server = await t.app.listen(0, '127.0.0.1');
  port = server.port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => t.close());

describe('HTTP over a real socket', () => {
  it('serves JSON with the envelope and a request id', async () => {
    const res = await fetch(`${base}/api/v1/system/status`, { headers: key() });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect((await res.json()).result).toMatchObject({ initialized: true, user: 'default', cluster: { mode: 'single' } });
  });

  it('the peer address is read from the socket when a handler asks (and /metrics checks it)', async () => {
    const r = await fetch(`${base}/test/peer`, { headers: key() });
    const body = await r.json();
    expect(body, JSON.stringify(body)).toMatchObject({ status: 'ok', result: { remote: '127.0.0.1', again: '127.0.0.1' } });
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
  });

  it('?profile=1 times the request from the socket: queued, auth, parse, handler (and body for a POST)', async () => {
    const lines = async (r: Response) => ((await r.json()).profile as string[]).map((l) => l.split(':')[0]);
    expect(await lines(await fetch(`${base}/test/peer?profile=1`, { headers: key() }))).toEqual(['queued', 'auth', 'parse', 'handler']);
    const post = await fetch(`${base}/test/echo?profile=1`, { method: 'POST', headers: { ...key(), 'content-type': 'application/json' }, body: JSON.stringify({ text: 'x' }) });
    expect(await lines(post)).toEqual(['body', 'queued', 'auth', 'parse', 'handler']);
  });

  it('GET /health needs no key', async () => {
    const res = await fetch(`${base}/health`);
    expect(await res.json()).toMatchObject({ status: 'ok', healthy: true });
  });

  it('HEAD returns headers without a body', async () => {
    const res = await fetch(`${base}/health`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('reads POST bodies, and rejects an oversized one with 413 before reading it all', async () => {
    const ok = await fetch(`${base}/test/echo`, { method: 'POST', headers: { ...key(), 'content-type': 'application/json' }, body: JSON.stringify({ text: 'héllo' }) });
    expect((await ok.json()).result).toEqual({ text: 'héllo', bytes: 17 });
    const big = await fetch(`${base}/test/echo`, { method: 'POST', headers: { ...key(), 'content-type': 'application/json' }, body: JSON.stringify({ text: 'x'.repeat(100_000) }) });
    expect(big.status).toBe(413);
    expect((await big.json()).error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: 65536 } });
  });

  it('rejects an oversized chunked body while it streams', async () => {
    const body = new ReadableStream({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode('x'.repeat(8192)));
        c.close();
      },
    });
    const res = await fetch(`${base}/test/echo`, { method: 'POST', headers: { ...key(), 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('malformed JSON over the wire is 400 naming the body', async () => {
    const res = await fetch(`${base}/test/echo`, { method: 'POST', headers: { ...key(), 'content-type': 'application/json' }, body: '{"text":' });
    expect(res.status).toBe(400);
    expect((await res.json()).error.details.field).toBe('body');
  });

  it.each([true, false])('streams an 8 MiB body intact to a slow reader (sized=%s)', async (sized) => {
    const res = await fetch(`${base}/test/stream?sized=${sized}`, { headers: key() });
    expect(res.status).toBe(200);
    if (sized) expect(res.headers.get('content-length')).toBe(String(BIG));
    const reader = res.body!.getReader();
    let total = 0;
    let chunkIndexOk = true;
    let reads = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Read slowly at first so the server meets backpressure and must wait for onWritable.
      if (reads++ < 5) await new Promise((r) => setTimeout(r, 30));
      for (let i = 0; i < value.length; i += 65536) {
        const pos = total + i;
        if (value[i] !== Math.floor(pos / (256 * 1024)) % 251) chunkIndexOk = false;
      }
      total += value.length;
    }
    expect(total).toBe(BIG);
    expect(chunkIndexOk).toBe(true);
  });

  it('speaks Server-Sent Events', async () => {
    const res = await fetch(`${base}/test/sse`, { headers: key() });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const text = await res.text();
    expect(text).toBe('id: 0\nevent: tick\ndata: {"n":0}\n\nid: 1\nevent: tick\ndata: {"n":1}\n\nid: 2\nevent: tick\ndata: {"n":2}\n\nevent: done\ndata: multi\ndata: line\n\n');
  });

  it('accepts multipart uploads', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('zip bytes')]), 'pack.ctxpack');
    const res = await fetch(`${base}/api/v1/resources/temp_upload`, { method: 'POST', headers: key(), body: form });
    expect(res.status).toBe(200);
    expect((await res.json()).result).toMatchObject({ filename: 'pack.ctxpack', size: 9 });
  });

  it('survives a client that disconnects mid-request', async () => {
    await new Promise<void>((resolve) => {
      const sock = net.connect(port, '127.0.0.1', () => {
        sock.write(`POST /test/echo HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key()['x-api-key']}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"text":"`);
        setTimeout(() => {
          sock.destroy();
          resolve();
        }, 20);
      });
    });
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
  });
});

describe('graceful shutdown', () => {
  it('drains in-flight requests, then refuses new ones and closes the database', async () => {
    const t2 = await startTestApp({ extraPlugins: [testRoutes] });
    const server = await t2.app.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${server.port}`;
    const inflight = fetch(`${url}/test/slow`, { headers: t2.root }).then((r) => r.json());
    await new Promise((r) => setTimeout(r, 50));
    expect(t2.app.pipeline.inFlightCount).toBe(1);
    const closing = t2.app.close();
    await new Promise((r) => setTimeout(r, 20));
    release();
    expect((await inflight).result).toEqual({ done: true });
    await closing;
    // A kept-alive connection gets a clean 503; a new connection is refused (listen socket closed).
    const late = await fetch(`${url}/health`).then((r) => r.status, () => 'refused');
    expect([503, 'refused']).toContain(late);
    await expect(
      new Promise((resolve, reject) => {
        const sock = net.connect(server.port, '127.0.0.1', () => resolve('connected'));
        sock.on('error', reject);
      }),
    ).rejects.toThrow(/ECONNREFUSED/);
    // RocksDB released its lock: the same data dir opens again.
    const again = await startTestApp({ dir: t2.dir });
    await again.close();
  });
});
