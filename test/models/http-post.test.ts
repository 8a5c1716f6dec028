/**
 * The remote model clients' transport (runtime/models/http-post.ts, under ResilientEndpoint) over
 * real sockets: answers and their headers, one kept-alive connection across calls, a timed-out
 * attempt reported as such, an abort in flight, and a refused connection; then the answer reader
 * against raw servers writing the framings HTTP/1.1 allows (chunked, interim 1xx, until close),
 * a kept-alive socket the server closed, broken answers, and TLS.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
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

  it('refuses a header holding a line break (no smuggled second request)', async () => {
    const p = new HttpPoster();
    await expect(p.post(`${base}/v1/embeddings`, { authorization: 'Bearer k\r\nx-evil: 1' }, '{}')).rejects.toThrow(/line break/);
    expect(sockets.size).toBe(0);
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

/** A raw TCP server answering each request with `answer(n)` (n counts requests over all sockets). */
async function rawServer(answer: (n: number, socket: net.Socket) => string | null) {
  let n = 0;
  const conns: net.Socket[] = [];
  const srv = net.createServer((socket) => {
    conns.push(socket);
    let buf = '';
    socket.on('data', (c) => {
      buf += c.toString('latin1');
      for (;;) {
        const at = buf.indexOf('\r\n\r\n');
        if (at < 0) return;
        const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, at))?.[1] ?? 0);
        if (buf.length < at + 4 + len) return;
        buf = buf.slice(at + 4 + len);
        const out = answer(n++, socket);
        if (out !== null) socket.write(out);
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1/embeddings`,
    conns,
    close: () => new Promise<void>((r) => { conns.forEach((c) => c.destroy()); srv.close(() => r()); }),
  };
}

describe('HttpPoster: the answer reader against raw servers', () => {
  it('reads chunked answers split anywhere, skips interim 1xx answers, and keeps the socket', async () => {
    const srv = await rawServer((n, socket) => {
      const body = JSON.stringify({ n, data: 'x'.repeat(3000) });
      const wire = `HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nx-a: 1\r\nx-a: 2\r\n\r\n${(1000).toString(16)};ext=1\r\n${body.slice(0, 1000)}\r\n${(body.length - 1000).toString(16)}\r\n${body.slice(1000)}\r\n0\r\n\r\n`;
      // Byte by byte for the first answer, in one write after.
      if (n === 0) [...wire].forEach((ch, i) => setTimeout(() => socket.write(ch, 'latin1'), i % 7 === 0 ? 1 : 0));
      else socket.write(wire);
      return null;
    });
    const p = new HttpPoster();
    const a = await p.post(srv.url, {}, '{}');
    expect(a.status).toBe(200);
    expect(a.header('x-a')).toBe('1, 2');
    expect(JSON.parse(a.text)).toMatchObject({ n: 0 });
    expect(JSON.parse((await p.post(srv.url, {}, '{}')).text)).toMatchObject({ n: 1 });
    expect(srv.conns).toHaveLength(1);
    p.close();
    await srv.close();
  });

  it('reads a body that ends with the connection, and does not reuse a socket the server closes', async () => {
    const srv = await rawServer((n, socket) => {
      if (n === 0) {
        socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{"until":"close"}');
        return null;
      }
      return `HTTP/1.1 201 Created\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`;
    });
    const p = new HttpPoster();
    expect((await p.post(srv.url, {}, '{}')).text).toBe('{"until":"close"}');
    const b = await p.post(srv.url, {}, '{}');
    expect([b.status, b.text]).toEqual([201, '{}']);
    await p.post(srv.url, {}, '{}');
    expect(srv.conns).toHaveLength(3);
    p.close();
    await srv.close();
  });

  it('sends a request again on a fresh connection when the kept-alive one was closed by the server', async () => {
    const srv = await rawServer((n) => `HTTP/1.1 200 OK\r\ncontent-length: ${String(n).length}\r\n\r\n${n}`);
    const p = new HttpPoster();
    expect((await p.post(srv.url, {}, '{}')).text).toBe('0');
    // The server drops the idle connection without the client having seen it yet.
    srv.conns[0]!.destroy();
    expect((await p.post(srv.url, {}, '{}')).text).toBe('1');
    expect(srv.conns).toHaveLength(2);
    p.close();
    await srv.close();
  });

  it('reads large bodies that arrive in many packets, with content-length and in one big chunk', async () => {
    const big = JSON.stringify({ data: 'y'.repeat(2 * 1024 * 1024) });
    const dribble = (socket: net.Socket, wire: Buffer) => {
      let at = 0;
      const next = () => {
        if (at >= wire.length) return;
        socket.write(wire.subarray(at, (at += 4096)));
        setImmediate(next);
      };
      next();
    };
    const srv = await rawServer((n, socket) => {
      const body = Buffer.from(big);
      const head = n === 0 ? `HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n` : `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n`;
      dribble(socket, Buffer.concat([Buffer.from(head), body, Buffer.from(n === 0 ? '' : '\r\n0\r\n\r\n')]));
      return null;
    });
    const p = new HttpPoster();
    expect((await p.post(srv.url, {}, '{}')).text).toBe(big);
    expect((await p.post(srv.url, {}, '{}')).text).toBe(big);
    expect(srv.conns).toHaveLength(1);
    p.close();
    await srv.close();
  });

  it('rejects broken answers: no HTTP status line, a bad chunk, a connection cut mid-body', async () => {
    const srv = await rawServer((n, socket) => {
      if (n === 0) return 'SMTP ready\r\n\r\n';
      if (n === 1) return 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n';
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"partial"');
      return null;
    });
    const p = new HttpPoster();
    await expect(p.post(srv.url, {}, '{}')).rejects.toThrow(/bad HTTP answer: status line/);
    await expect(p.post(srv.url, {}, '{}')).rejects.toThrow(/bad HTTP answer: chunk size/);
    await expect(p.post(srv.url, {}, '{}')).rejects.toThrow(/closed before the answer was complete/);
    p.close();
    await srv.close();
  });

  it('speaks TLS to an https endpoint, on one kept-alive connection', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    const cert = fs.readFileSync(path.join(dir, 'cert.pem'));
    const tlsSockets = new Set<unknown>();
    const srv = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert }, (req, res) => {
      tlsSockets.add(req.socket);
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echo: JSON.parse(body), host: req.headers.host })));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as AddressInfo).port;
    // The test's own CA: the client verifies the certificate as it would OpenAI's.
    const p = new HttpPoster({ ca: cert });
    try {
      const a = await p.post(`https://localhost:${port}/v1/embeddings`, { 'content-type': 'application/json' }, '{"x":1}');
      expect(JSON.parse(a.text)).toEqual({ echo: { x: 1 }, host: `localhost:${port}` });
      await p.post(`https://localhost:${port}/v1/embeddings`, {}, '{"x":2}');
      expect(tlsSockets.size).toBe(1);
      // Without that CA: refused.
      await expect(new HttpPoster().post(`https://localhost:${port}/v1/embeddings`, {}, '{}')).rejects.toThrow(/self-signed|certificate/);
    } finally {
      p.close();
      srv.closeAllConnections();
      await new Promise((r) => srv.close(r));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
