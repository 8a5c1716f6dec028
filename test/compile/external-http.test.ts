/**
 * Compile through an external execution backend over `/runtime/v1` HTTP, on real sockets: the
 * example backend (examples/compile-backend) calling back into ctx with the user's key, and a
 * scripted fake backend for cancel, failures and a backend that echoes the key.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpBackend } from '../../examples/compile-backend/http-server.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { body, seed, settle } from './helpers.js';
import { pollUntil } from '../helpers/poll.js';

describe('compile via the example HTTP backend', () => {
  let t: TestApp;
  let backend: Awaited<ReturnType<typeof startHttpBackend>>;
  let alice: Record<string, string>;
  let bob: Record<string, string>;

  beforeAll(async () => {
    backend = await startHttpBackend('');
    t = await startTestApp({ config: { executionBackendUrl: backend.url } });
    backend.sessions.ctxUrl = `http://127.0.0.1:${(await t.app.listen(0, '127.0.0.1')).port}`;
    ({ alice, bob } = await seed(t));
  });
  afterAll(async () => {
    await t.close();
    await backend.close();
  });

  it('the task submits with the user\'s key, follows the backend, and completes with its result', async () => {
    const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body({ args: { model_name: 'any' } }) });
    expect(r.status, r.text).toBe(202);
    const id = r.json().result.task_id;
    const task = await settle(t, alice, id);
    expect(task.status, JSON.stringify(task)).toBe('completed');
    expect(task.stage).toBe('completed');
    expect(task.result).toMatchObject({ backend: 'http', written: ['ctx://user/alice/resources/out/INDEX.md'], files_read: 2 });
    const index = (await t.req({ method: 'GET', url: '/api/v1/content/read?uri=ctx://~/resources/out/INDEX.md', headers: alice })).json().result;
    expect(index).toContain('ctx://user/alice/resources/src/a.md: Alpha facts');
    expect(index).toContain('Skill: summarize');
    expect(backend.sessions.seenKeys).toContain(alice['x-api-key']);
    const raw = (await t.req({ method: 'GET', url: `/api/v1/tasks/${id}?include_events=true`, headers: alice })).text;
    expect(raw).not.toContain(alice['x-api-key']);
  });

  it('the example backend: Idempotency-Key per user, ownership, 4xx for bad input without a session', async () => {
    const post = (path: string, headers: Record<string, string>, b: unknown) =>
      fetch(`${backend.url}/runtime/v1${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(b) });
    const submit = { task_type: 'compile', payload: { from: ['ctx://~/resources/src'], to: 'ctx://~/resources/idem', skill: 'ctx://~/skills/summarize' } };
    const runs = backend.sessions.runs;
    const a1 = await post('/tasks', { ...alice, 'idempotency-key': 'task-1' }, submit);
    expect(a1.status).toBe(202);
    const { session_id } = (await a1.json()) as { session_id: string };
    const a2 = (await (await post('/tasks', { ...alice, 'idempotency-key': 'task-1' }, submit)).json()) as { session_id: string };
    expect(a2.session_id).toBe(session_id);
    const b1 = (await (await post('/tasks', { ...bob, 'idempotency-key': 'task-1' }, submit)).json()) as { session_id: string };
    expect(b1.session_id).not.toBe(session_id);
    expect(backend.sessions.runs).toBe(runs + 2);
    expect((await post('/tasks/status', bob, { session_id })).status).toBe(404);
    expect((await post('/tasks/cancel', bob, { session_id })).status).toBe(404);
    const st = (await (await post('/tasks/status', alice, { session_id })).json()) as Record<string, unknown>;
    expect(Object.keys(st).sort()).toEqual(['error', 'meta', 'result', 'stage', 'status']);
    for (const bad of [{ task_type: 'other', payload: submit.payload }, { payload: submit.payload }, { task_type: 'compile' }, { task_type: 'compile', payload: { to: 'x', skill: 'y' } }])
      expect((await post('/tasks', alice, bad)).status).toBe(400);
    expect(backend.sessions.runs).toBe(runs + 2);
  });
});

/** A backend whose answers the test scripts, recording what it received. */
async function fakeBackend(handler: (path: string, body: any, headers: http.IncomingHttpHeaders) => [number, unknown]) {
  const calls: Array<{ path: string; body: any; headers: http.IncomingHttpHeaders }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const b = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      calls.push({ path: req.url!, body: b, headers: req.headers });
      const [status, json] = handler(req.url!, b, req.headers);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('compile via a scripted HTTP backend', () => {
  let t: TestApp;
  let alice: Record<string, string>;
  let mode: 'cancel' | 'echo-key' | 'reject' | 'salvage' = 'cancel';
  let cancelled = false;
  let fake: Awaited<ReturnType<typeof fakeBackend>>;
  const logs: string[] = [];

  beforeAll(async () => {
    fake = await fakeBackend((path, b, headers) => {
      if (path === '/runtime/v1/tasks') {
        if (mode === 'reject') return [400, { error: { message: 'payload.skill is not a skill' } }];
        return [202, { session_id: `s-${mode}` }];
      }
      const key = String(headers['x-api-key']);
      if (mode === 'echo-key') return [200, { status: 'failed', stage: 'agent', error: `bad key ${key}`, meta: { key }, result: null }];
      if (mode === 'salvage') return [200, { status: 'completed', stage: 'salvaged', error: null, meta: {}, result: { written: ['ctx://x'], echoed: key } }];
      if (path === '/runtime/v1/tasks/cancel') cancelled = true;
      return [200, { status: cancelled ? (path.endsWith('cancel') ? 'cancelling' : 'cancelled') : 'running', stage: cancelled ? 'cancelled' : 'agent', error: null, meta: {}, result: null }];
    });
    t = await startTestApp({ logSink: (line) => void logs.push(line), config: { executionBackendUrl: fake.url, executionBackendGatewayToken: 'gateway-token-for-tests', logLevel: 'debug', accessLog: true } });
    ({ alice } = await seed(t));
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('cancel reaches the backend (with the key) and the task settles cancelled after it does', async () => {
    mode = 'cancel';
    const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body() });
    const id = r.json().result.task_id;
    await pollUntil(() => fake.calls.some((c) => c.path === '/runtime/v1/tasks/status'), { what: 'the first status call' });
    const submitCall = fake.calls.find((c) => c.path === '/runtime/v1/tasks')!;
    expect(submitCall.headers['idempotency-key']).toBe(id);
    expect(submitCall.headers['x-api-key']).toBe(alice['x-api-key']);
    expect(submitCall.headers['x-gateway-token']).toBe('gateway-token-for-tests');
    expect(submitCall.body).toEqual({ task_type: 'compile', payload: body() });
    // The backend answered its first status call; the task records that answer's stage right after.
    const running = await pollUntil(async () => {
      const task = (await t.req({ method: 'GET', url: `/api/v1/tasks/${id}`, headers: alice })).json().result;
      return task.stage === 'agent' && task;
    }, { what: 'the agent stage' });
    expect(running).toMatchObject({ status: 'running', stage: 'agent' });
    const c = await t.req({ method: 'POST', url: `/api/v1/tasks/${id}/cancel`, headers: alice });
    expect(c.json().result.status).toBe('cancelling');
    const task = await settle(t, alice, id);
    expect(task).toMatchObject({ status: 'cancelled', stage: 'cancelled' });
    const cancelCall = fake.calls.find((x) => x.path === '/runtime/v1/tasks/cancel')!;
    expect(cancelCall.body).toEqual({ session_id: 's-cancel' });
    expect(cancelCall.headers['x-api-key']).toBe(alice['x-api-key']);
  });

  it('a backend echoing the key: the task record never shows it', async () => {
    mode = 'echo-key';
    const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body() });
    const task = await settle(t, alice, r.json().result.task_id);
    expect(task.status).toBe('failed');
    expect(task.error).toContain('bad key [redacted]');
    expect(task.stage).toBe('agent');
    mode = 'salvage';
    const r2 = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body() });
    const t2 = await settle(t, alice, r2.json().result.task_id);
    expect(t2).toMatchObject({ status: 'completed', stage: 'salvaged' });
    expect(t2.result.echoed).toBe('[redacted]');
    expect(JSON.stringify(t2)).not.toContain(alice['x-api-key']);
  });

  it('a submit the backend refuses fails the task with its message', async () => {
    mode = 'reject';
    const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body() });
    const task = await settle(t, alice, r.json().result.task_id);
    expect(task.status).toBe('failed');
    expect(task.error).toMatch(/execution backend answered HTTP 400: payload.skill is not a skill/);
  });

  it('no log line carries the key or the gateway token (debug level, access log on)', () => {
    expect(logs.length).toBeGreaterThan(10);
    expect(logs.some((l) => l.includes('task failed'))).toBe(true);
    for (const l of logs) {
      expect(l).not.toContain(alice['x-api-key']);
      expect(l).not.toContain('gateway-token-for-tests');
    }
  });

  it('an unreachable backend fails the task saying so', async () => {
    const t2 = await startTestApp({ config: { executionBackendUrl: 'http://127.0.0.1:1' } });
    try {
      const { alice: a } = await seed(t2, 'other');
      const r = await t2.req({ method: 'POST', url: '/api/v1/compile', headers: a, body: body() });
      const task = await settle(t2, a, r.json().result.task_id);
      expect(task.status).toBe('failed');
      expect(task.error).toMatch(/execution backend unreachable at http:\/\/127.0.0.1:1/);
    } finally {
      await t2.close();
    }
  });
});
