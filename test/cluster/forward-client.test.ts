import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeForwardAgents, forwardRequest } from '../../runtime/cluster/forward-client.js';

// A real HTTP server on loopback stands for the leader: the forward client is plain node:http.
let server: http.Server;
let base = '';
const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string; socket: number }[] = [];
const sockets = new WeakMap<object, number>();
let socketCount = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!sockets.has(req.socket)) sockets.set(req.socket, ++socketCount);
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString(), socket: sockets.get(req.socket)! });
      if (req.url === '/close-after') res.setHeader('connection', 'close');
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json', 'x-ctx-consistency-token': '3:41' });
      res.end(JSON.stringify({ echoed: Buffer.concat(chunks).length }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  closeForwardAgents();
  await new Promise((r) => server.close(r));
});

describe('forward client', () => {
  it('sends the body as one buffer with its length and answers status, headers and body verbatim', async () => {
    const body = Buffer.from(JSON.stringify({ uri: 'ctx://resources/a.md', content: 'é'.repeat(3000) }));
    const res = await forwardRequest(`${base}/api/v1/content/write?x=1`, 'POST', { 'x-api-key': 'k', 'content-type': 'application/json' }, body, 5000);
    expect(res.status).toBe(200);
    expect(res.headers['x-ctx-consistency-token']).toBe('3:41');
    expect(res.headers['set-cookie']).toBe('a=1, b=2');
    expect(JSON.parse(res.body.toString())).toEqual({ echoed: body.length });
    const got = seen.at(-1)!;
    expect(got).toMatchObject({ method: 'POST', url: '/api/v1/content/write?x=1', body: body.toString() });
    expect(got.headers['content-length']).toBe(String(body.length));
    expect(got.headers['x-api-key']).toBe('k');
  });

  it('keeps the connection for the next request, and answers error statuses as they are', async () => {
    await forwardRequest(`${base}/a`, 'GET', {}, undefined, 5000);
    const res = await forwardRequest(`${base}/missing`, 'GET', {}, undefined, 5000);
    expect(res.status).toBe(404);
    expect(seen.at(-1)!.socket).toBe(seen.at(-2)!.socket);
  });

  it('takes a new connection when the target closed the pooled one', async () => {
    await forwardRequest(`${base}/close-after`, 'GET', {}, undefined, 5000);
    await new Promise((r) => setTimeout(r, 50));
    const res = await forwardRequest(`${base}/after`, 'POST', {}, Buffer.from('x'), 5000);
    expect(res.status).toBe(200);
    expect(seen.at(-1)!.socket).not.toBe(seen.at(-2)!.socket);
  });

  it('rejects when the target is unreachable or does not answer in time', async () => {
    const dead = http.createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise((r) => dead.close(r));
    await expect(forwardRequest(`http://127.0.0.1:${port}/x`, 'POST', {}, Buffer.from('{}'), 5000)).rejects.toThrow(/ECONNREFUSED/);
    const silent = http.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const p = (silent.address() as AddressInfo).port;
    await expect(forwardRequest(`http://127.0.0.1:${p}/x`, 'GET', {}, undefined, 200)).rejects.toThrow(/no answer within/);
    silent.closeAllConnections();
    await new Promise((r) => silent.close(r));
  });
});
