/**
 * An external execution backend over `/runtime/v1` HTTP (spec Part 3, runtime protocol table).
 * Run: `CTX_URL=http://127.0.0.1:1933 PORT=8090 npx tsx examples/compile-backend/http-server.ts`,
 * then start ctx with `CTX_EXECUTION_BACKEND_URL=http://127.0.0.1:8090`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { BadRequest, NotFound, Sessions, checkSubmit } from './sessions.js';

export async function startHttpBackend(ctxUrl: string, port = 0): Promise<{ url: string; sessions: Sessions; close(): Promise<void> }> {
  const sessions = new Sessions(ctxUrl);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      try {
        if (req.method !== 'POST') return send(405, { error: 'POST only' });
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        } catch {
          throw new BadRequest('body is not JSON');
        }
        const key = req.headers['x-api-key'] as string | undefined;
        const id = String(body.session_id ?? '');
        if (req.url === '/runtime/v1/tasks') return send(202, { session_id: sessions.submit(key, req.headers['idempotency-key'] as string | undefined, checkSubmit(body)) });
        if (req.url === '/runtime/v1/tasks/status') return send(200, sessions.status(key, id));
        if (req.url === '/runtime/v1/tasks/cancel') return send(200, sessions.cancel(key, id));
        send(404, { error: `no route ${req.url}` });
      } catch (err) {
        send(err instanceof BadRequest ? 400 : err instanceof NotFound ? 404 : 500, { error: (err as Error).message });
      }
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sessions,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const b = await startHttpBackend(process.env.CTX_URL ?? 'http://127.0.0.1:1933', Number(process.env.PORT ?? 8090));
  console.log(`compile backend (HTTP) at ${b.url}`);
}
