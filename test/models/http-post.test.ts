/**
 * The remote model clients' transport (runtime/models/http-post.ts, under ResilientEndpoint) over
 * real sockets: answers and their headers, one kept-alive connection across calls, a timed-out
 * attempt reported as such, an abort in flight, and a refused connection.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpPoster, PostTimeout } from '../../runtime/models/http-post.js';
import { ResilientEndpoint } from '../../runtime/models/resilient-http.js';

describe('HttpPoster and ResilientEndpoint over node:http', () => {
  let srv: http.Server;
  let base: string;
  const sockets = new Set<unknown>();
  let hang = false;

  beforeEach(async () => {
    hang = false;
    sockets.clear();
    srv = http.createServer((req, res) => {
      sockets.add(req.socket);
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        if (hang) return;
        if (req.url === '/busy') {
          res.writeHead(503, { 'retry-after': '1' }).end('busy');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json', 'x-echo': req.headers['x-echo'] ?? '' }).end(JSON.stringify({ got: JSON.parse(body), len: req.headers['content-length'] }));
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    srv.closeAllConnections();
    await new Promise((r) => srv.close(r));
  });

  it('answers with status, headers and body, on one kept-alive connection', async () => {
    const p = new HttpPoster();
    const body = JSON.stringify({ input: ['héllo'] });
    const a = await p.post(`${base}/v1/embeddings`, { 'content-type': 'application/json', 'x-echo': 'yes' }, body);
    expect(a.status).toBe(200);
    expect(a.header('x-echo')).toBe('yes');
    expect(JSON.parse(a.text)).toEqual({ got: { input: ['héllo'] }, len: String(Buffer.byteLength(body)) });
    await p.post(`${base}/v1/embeddings`, {}, '{}');
    await p.post(`${base}/v1/embeddings`, {}, '{}');
    expect(sockets.size).toBe(1);
    p.close();
  });

  it('bounds an attempt by timeoutMs (PostTimeout) and then answers the next call', async () => {
    const p = new HttpPoster();
    hang = true;
    const err = await p.post(`${base}/v1/embeddings`, {}, '{}', undefined, 100).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PostTimeout);
    expect((err as Error).message).toBe('timed out after 100 ms');
    hang = false;
    expect((await p.post(`${base}/v1/embeddings`, {}, '{"a":1}', undefined, 5000)).status).toBe(200);
    p.close();
  });

  it('refuses a URL that is not http(s)', async () => {
    await expect(new HttpPoster().post('ftp://127.0.0.1/x', {}, '{}')).rejects.toThrow(/not an http\(s\) URL/);
  });

  it('through ResilientEndpoint: a hung attempt times out, an abort stops it, 503 keeps Retry-After, a closed port is UNAVAILABLE', async () => {
    hang = true;
    const slow = new ResilientEndpoint('embedder', base, undefined, { retries: 0, timeoutMs: 200 });
    await expect(slow.postJson('/v1/embeddings', { input: ['x'] })).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/timed out after 200 ms/) });
    const ac = new AbortController();
    const pending = slow.postJson('/v1/embeddings', { input: ['x'] }, ac.signal);
    setTimeout(() => ac.abort(new Error('caller gave up')), 50);
    await expect(pending).rejects.toThrow(/caller gave up/);

    hang = false;
    const sleeps: number[] = [];
    const busy = new ResilientEndpoint('embedder', base, undefined, { retries: 1, sleep: async (ms) => void sleeps.push(ms) });
    await expect(busy.postJson('/busy', {})).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/HTTP 503: busy/) });
    expect(sleeps[0]).toBeGreaterThanOrEqual(1000);

    const port = (srv.address() as AddressInfo).port;
    srv.closeAllConnections();
    await new Promise((r) => srv.close(r));
    const gone = new ResilientEndpoint('embedder', `http://127.0.0.1:${port}`, undefined, { retries: 0 });
    await expect(gone.postJson('/v1/embeddings', {})).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/request failed/) });
    srv = http.createServer().listen(0, '127.0.0.1');
  });
});
