/**
 * Responses the uWS adapter sends without the pipeline's normal path — a body over the limit refused
 * before it is read, and the 500 written when rendering an error failed — carry what every response
 * carries: the request id header, `time` in the envelope, and an access-log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CtxError } from '../../runtime/errors.js';
import { definePlugin } from '../../runtime/plugin.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pollUntil } from '../helpers/poll.js';

const routes = definePlugin({
  name: 'early-error-routes',
  version: '1.0.0',
  setup(host) {
    host.route({
      method: 'GET',
      path: '/test/unrenderable',
      handler() {
        // A BigInt in details makes the error envelope itself fail to serialize.
        throw new CtxError('INVALID_ARGUMENT', 'bad value', { value: 10n });
      },
    });
  },
});

const lines: string[] = [];
let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await startTestApp({
    extraPlugins: [routes],
    config: { maxJsonBodyBytes: 1024, accessLog: true, logLevel: 'info' },
    logSink: (line) => lines.push(line),
  });
  base = `http://127.0.0.1:${(await t.app.listen(0, '127.0.0.1')).port}`;
});
afterAll(() => t.close());

/** The access-log line of a request id (written after the response: polled, bounded). */
function accessLine(id: string): Promise<Record<string, unknown>> {
  return pollUntil(() => lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'request' && l.req_id === id), { what: `the access-log line of ${id}` });
}

describe('early error responses over a real socket', () => {
  it('413 from Content-Length, before the body is read: request id echoed, time, access log', async () => {
    const res = await fetch(`${base}/api/v1/system/wait`, {
      method: 'POST',
      headers: { ...t.root, 'content-type': 'application/json', 'x-request-id': 'trace-413' },
      body: JSON.stringify({ pad: 'x'.repeat(5000) }),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('x-request-id')).toBe('trace-413');
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = await res.json();
    expect(body).toMatchObject({ status: 'error', error: { code: 'PAYLOAD_TOO_LARGE', details: { limit: 1024 } } });
    expect(typeof body.time).toBe('number');
    expect(await accessLine('trace-413')).toMatchObject({ level: 'info', method: 'POST', path: '/api/v1/system/wait', status: 413 });
  });

  it('413 while a chunked body streams in: a fresh request id, time, access log', async () => {
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 8; i++) c.enqueue(new TextEncoder().encode('x'.repeat(512)));
        c.close();
      },
    });
    const res = await fetch(`${base}/api/v1/system/wait`, { method: 'POST', headers: { ...t.root, 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const body = await res.json();
    expect(body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(typeof body.time).toBe('number');
    expect(await accessLine(id!)).toMatchObject({ method: 'POST', path: '/api/v1/system/wait', status: 413 });
  });

  it('an invalid x-request-id is replaced, not echoed', async () => {
    const res = await fetch(`${base}/api/v1/system/wait`, {
      method: 'POST',
      headers: { ...t.root, 'content-type': 'application/json', 'x-request-id': 'has spaces' },
      body: 'x'.repeat(2048),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('500 when the error response itself cannot be rendered: request id, time, access log', async () => {
    const res = await fetch(`${base}/test/unrenderable`, { headers: { ...t.root, 'x-request-id': 'trace-500' } });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('trace-500');
    const body = await res.json();
    expect(body).toMatchObject({ status: 'error', error: { code: 'INTERNAL', message: 'internal error (request id trace-500)' } });
    expect(typeof body.time).toBe('number');
    expect(await accessLine('trace-500')).toMatchObject({ method: 'GET', path: '/test/unrenderable', status: 500, account: 'default', user: 'default' });
    // The cause is logged once, with the request id, for the operator.
    expect(lines.some((l) => l.includes('"response failed"') && l.includes('trace-500'))).toBe(true);
    // The connection is still usable afterwards.
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });
});
