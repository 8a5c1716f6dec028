/**
 * Methods outside the nine standard ones never reach ctx: uWebSockets.js v20.30 closes the
 * connection before any handler (docs/compatibility.md). What ctx does own: the server survives
 * them, keeps serving other connections, and answers a standard method a route lacks with 405.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startTestApp();
  port = (await t.app.listen(0, '127.0.0.1')).port;
});
afterAll(() => t.close());

/** The raw bytes a server sends back to one request line, until it closes or 2 s pass. */
function rawRequest(method: string, path: string): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1', () => sock.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${t.root['x-api-key']}\r\nContent-Length: 0\r\n\r\n`));
    let text = '';
    const timer = setTimeout(() => {
      sock.destroy();
      resolve({ text, closed: false });
    }, 2000);
    sock.on('data', (d) => (text += d.toString()));
    sock.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    sock.on('error', reject);
  });
}

describe('HTTP methods', () => {
  it('an unknown method is refused by the engine and the server keeps serving', async () => {
    for (const m of ['QUERY', 'PROPFIND', 'get']) {
      const r = await rawRequest(m, '/api/v1/fs/ls?uri=ctx://resources');
      expect(r.closed, m).toBe(true);
      // Nothing half-written: either no response at all, or a complete status line.
      expect(r.text === '' || /^HTTP\/1\.1 \d{3} /.test(r.text), m).toBe(true);
    }
    const ok = await fetch(`http://127.0.0.1:${port}/health`);
    expect(ok.status).toBe(200);
  });

  it('a standard method a route lacks is 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const r = await rawRequest('PATCH', '/api/v1/fs/ls?uri=ctx://resources');
    expect(r.text).toMatch(/^HTTP\/1\.1 405 /);
    expect(r.text.toLowerCase()).toContain('allow: get');
    expect(r.text).toContain('"code":"METHOD_NOT_ALLOWED"');
  });
});
