/**
 * A fake context gateway on 127.0.0.1: records every request (method, URL, headers, body) and
 * answers with `next` (or echoes the request as JSON). `big(n)` streams n bytes in 64 KiB chunks.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Answer = { status: number; body: string; headers?: Record<string, string> } | { big: number };

export interface FakeGateway {
  url: string;
  received: Recorded[];
  next: Answer[];
  close(): Promise<void>;
}

export async function startFakeGateway(): Promise<FakeGateway> {
  const state = { received: [] as Recorded[], next: [] as Answer[] };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      state.received.push(rec);
      const a = state.next.shift();
      if (!a) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ echo: { method: rec.method, url: rec.url, body: rec.body } }));
      }
      if ('big' in a) {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(a.big) });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        let left = a.big;
        const pump = () => {
          while (left > 0) {
            const n = Math.min(left, chunk.length);
            left -= n;
            if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once('drain', pump);
          }
          res.end();
        };
        return pump();
      }
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}
