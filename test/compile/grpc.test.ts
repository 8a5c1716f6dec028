/**
 * The runtime protocol over gRPC on real sockets: ctx's own Runtime service on CTX_GRPC_PORT (the
 * bundled backend), and a compile task driving the example gRPC backend (examples/compile-backend).
 */
import * as grpc from '@grpc/grpc-js';
import { create } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcBackend } from '../../examples/compile-backend/grpc-server.js';
import { SessionRequestSchema, SubmitRequestSchema, type TaskStatus } from '../../plugins/compile/gen/runtime_pb.js';
import { runtimeClient, statusFromPb } from '../../plugins/compile/grpc.js';
import type { CompileService } from '../../plugins/compile/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startFakeLlm, type FakeLlm } from './fake-llm.js';
import { body, seed, settle } from './helpers.js';
import { freePort } from '../helpers/free-port.js';


const md = (headers: Record<string, string>, extra: Record<string, string> = {}) => {
  const m = new grpc.Metadata();
  for (const [k, v] of Object.entries({ ...headers, ...extra })) m.set(k, v);
  return m;
};

type Client = ReturnType<typeof runtimeClient>;
const unary = <T>(c: Client, method: 'submit' | 'status' | 'cancel', req: unknown, m: grpc.Metadata) =>
  new Promise<T>((resolve, reject) => c[method](req, m, {}, (err, res) => (err ? reject(err) : resolve(res as T))));
const submitReq = (payload: Record<string, unknown>, taskType = 'compile') => create(SubmitRequestSchema, { taskType, payload: payload as never });
const session = (sessionId: string) => create(SessionRequestSchema, { sessionId });
const watchAll = (c: Client, id: string, m: grpc.Metadata) =>
  new Promise<TaskStatus[]>((resolve, reject) => {
    const seen: TaskStatus[] = [];
    const s = c.watch(session(id), m);
    s.on('data', (x: TaskStatus) => seen.push(x));
    s.on('end', () => resolve(seen));
    s.on('error', reject);
  });

describe('ctx\'s gRPC Runtime service (bundled backend)', () => {
  let t: TestApp;
  let llm: FakeLlm;
  let client: Client;
  let alice: Record<string, string>;
  let bob: Record<string, string>;
  const payload = (extra: Record<string, unknown> = {}) => ({ from: ['ctx://~/resources/src'], to: 'ctx://~/resources/g', skill: 'ctx://~/skills/summarize', ...extra });

  beforeAll(async () => {
    llm = await startFakeLlm();
    const port = await freePort();
    t = await startTestApp({ config: { llm: { baseUrl: llm.url }, grpcPort: port } });
    await t.app.service<CompileService>('compile').grpcListening();
    ({ alice, bob } = await seed(t));
    client = runtimeClient(`127.0.0.1:${port}`);
  });
  afterAll(async () => {
    client.close();
    await t.close();
    await llm.close();
  });

  it('submit, watch to the end, status; Idempotency-Key per user; ownership', async () => {
    llm.script = [{ calls: [{ name: 'write_file', args: { path: 'g.md', content: 'G' } }] }, { calls: [{ name: 'finish', args: { summary: 'ok' } }] }];
    const res = await unary<{ sessionId: string }>(client, 'submit', submitReq(payload()), md(alice, { 'idempotency-key': 'task-9' }));
    expect(res.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const stream = await watchAll(client, res.sessionId, md(alice));
    const states = stream.map(statusFromPb);
    expect(states.at(-1)).toMatchObject({ status: 'completed', stage: 'completed', result: { written: ['ctx://user/alice/resources/g/g.md'] } });
    expect(states.map((s) => s.status)).toContain('running');
    const st = statusFromPb(await unary<TaskStatus>(client, 'status', session(res.sessionId), md(alice)));
    expect(st.status).toBe('completed');
    const again = await unary<{ sessionId: string }>(client, 'submit', submitReq(payload()), md(alice, { 'idempotency-key': 'task-9' }));
    expect(again.sessionId).toBe(res.sessionId);
    await expect(unary(client, 'status', session(res.sessionId), md(bob))).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    await expect(unary(client, 'cancel', session(res.sessionId), md(bob))).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    // Terminal sessions answer cancel with their state.
    expect(statusFromPb(await unary<TaskStatus>(client, 'cancel', session(res.sessionId), md(alice))).status).toBe('completed');
  });

  it('cancel over gRPC: the watch sees cancelling then cancelled', async () => {
    llm.holdFrom(llm.received.length);
    const res = await unary<{ sessionId: string }>(client, 'submit', submitReq(payload({ to: 'ctx://~/resources/g2' })), md(alice));
    await llm.waiting();
    const watching = watchAll(client, res.sessionId, md(alice));
    const c = statusFromPb(await unary<TaskStatus>(client, 'cancel', session(res.sessionId), md(alice)));
    expect(c.status).toBe('cancelling');
    llm.release();
    const statuses = (await watching).map((s) => s.status);
    expect(statuses.slice(-2)).toEqual(['cancelling', 'cancelled']);
  });

  it('bad input and credentials map to gRPC status codes, without a session', async () => {
    const before = llm.received.length;
    await expect(unary(client, 'submit', submitReq(payload()), md({}))).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    await expect(unary(client, 'submit', submitReq(payload()), md({ 'x-api-key': 'wrong' }))).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    await expect(unary(client, 'submit', submitReq(payload(), 'export'), md(alice))).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: expect.stringMatching(/unsupported task_type/) });
    await expect(unary(client, 'submit', create(SubmitRequestSchema, { taskType: 'compile' }), md(alice))).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: expect.stringMatching(/payload is required/) });
    await expect(unary(client, 'submit', submitReq(payload({ from: [] })), md(alice))).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    await expect(unary(client, 'submit', submitReq(payload({ argsJson: '{"model_name":"m"}' })), md(alice))).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: expect.stringMatching(/takes no args/) });
    await expect(unary(client, 'submit', submitReq(payload({ argsJson: 'not json' })), md(alice))).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    await expect(unary(client, 'submit', submitReq(payload({ from: ['ctx://user/bob/resources'] })), md(alice))).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED });
    await expect(unary(client, 'submit', submitReq(payload({ skill: 'ctx://~/skills/none' })), md(alice))).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    await expect(unary(client, 'status', session('missing'), md(alice))).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    await expect(watchAll(client, 'missing', md(alice))).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    await new Promise((r) => setTimeout(r, 50));
    expect(llm.received.length).toBe(before);
  });
});

describe('compile via the example gRPC backend', () => {
  let t: TestApp;
  let backend: Awaited<ReturnType<typeof startGrpcBackend>>;
  let alice: Record<string, string>;
  let bob: Record<string, string>;

  beforeAll(async () => {
    backend = await startGrpcBackend('');
    t = await startTestApp({ config: { executionBackendUrl: `grpc://${backend.target}` } });
    backend.sessions.ctxUrl = `http://127.0.0.1:${(await t.app.listen(0, '127.0.0.1')).port}`;
    ({ alice, bob } = await seed(t));
  });
  afterAll(async () => {
    await t.close();
    await backend.close();
  });

  it('the task submits over gRPC with the key in metadata, watches the stream and completes', async () => {
    const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body({ to: 'ctx://~/resources/viagrpc' }) });
    const id = r.json().result.task_id;
    const task = await settle(t, alice, id);
    expect(task.status, JSON.stringify(task)).toBe('completed');
    expect(task.result).toMatchObject({ backend: 'grpc', written: ['ctx://user/alice/resources/viagrpc/INDEX.md'], files_read: 2 });
    const index = (await t.req({ method: 'GET', url: '/api/v1/content/read?uri=ctx://~/resources/viagrpc/INDEX.md', headers: alice })).json().result;
    expect(index).toContain('Beta facts');
    expect(backend.sessions.seenKeys).toContain(alice['x-api-key']);
    expect((await t.req({ method: 'GET', url: `/api/v1/tasks/${id}?include_events=true`, headers: alice })).text).not.toContain(alice['x-api-key']);
    // A resubmit under the same task id (Idempotency-Key) does not run the job again.
    const runs = backend.sessions.runs;
    const c = runtimeClient(backend.target);
    try {
      const p = { from: ['ctx://~/resources/src'], to: 'ctx://~/resources/viagrpc', skill: 'ctx://~/skills/summarize' };
      const s1 = await unary<{ sessionId: string }>(c, 'submit', submitReq(p), md(alice, { 'idempotency-key': id }));
      expect(backend.sessions.runs).toBe(runs);
      await expect(unary(c, 'status', session(s1.sessionId), md(bob))).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
      await expect(watchAll(c, s1.sessionId, md(bob))).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
      expect((await watchAll(c, s1.sessionId, md(alice))).map((x) => x.status)).toEqual(['completed']);
      await expect(unary(c, 'submit', submitReq(p, 'other'), md(alice))).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
      expect(backend.sessions.runs).toBe(runs);
    } finally {
      c.close();
    }
  });

  it('an unreachable gRPC backend fails the task saying so', async () => {
    const t2 = await startTestApp({ config: { executionBackendUrl: 'grpc://127.0.0.1:1' } });
    try {
      const { alice: a } = await seed(t2, 'other');
      const r = await t2.req({ method: 'POST', url: '/api/v1/compile', headers: a, body: body() });
      const task = await settle(t2, a, r.json().result.task_id, 40_000);
      expect(task.status).toBe('failed');
      expect(task.error).toMatch(/execution backend/);
    } finally {
      await t2.close();
    }
  }, 60_000);
});
