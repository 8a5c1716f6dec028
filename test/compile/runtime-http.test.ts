/** ctx serving its bundled backend over `/runtime/v1` (spec runtime protocol table). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startFakeLlm, type FakeLlm } from './fake-llm.js';
import { seed } from './helpers.js';
import { pollUntil } from '../helpers/poll.js';

const payload = (extra: Record<string, unknown> = {}) => ({ from: ['ctx://~/resources/src'], to: 'ctx://~/resources/rt', skill: 'ctx://~/skills/summarize/SKILL.md', ...extra });

describe('/runtime/v1 on the bundled backend', () => {
  let t: TestApp;
  let llm: FakeLlm;
  let alice: Record<string, string>;
  let bob: Record<string, string>;
  const post = (path: string, headers: Record<string, string>, body: unknown) => t.req({ method: 'POST', url: `/runtime/v1${path}`, headers, body });
  const until = (headers: Record<string, string>, id: string, want: string[]) =>
    pollUntil(
      async () => {
        const st = (await post('/tasks/status', headers, { session_id: id })).json();
        return want.includes(st.status) && st;
      },
      { what: `session ${id} to reach ${want.join(' or ')}` },
    );

  beforeAll(async () => {
    llm = await startFakeLlm();
    t = await startTestApp({ config: { llm: { baseUrl: llm.url } } });
    ({ alice, bob } = await seed(t));
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  it('submit → 202 {session_id}; status is {status, stage, error, meta, result}; same Idempotency-Key from the same user reuses the session', async () => {
    llm.script = [{ calls: [{ name: 'write_file', args: { path: 'r.md', content: 'R' } }] }, { text: 'done' }];
    const before = llm.received.length;
    const r = await post('/tasks', { ...alice, 'idempotency-key': 'k1' }, { task_type: 'compile', payload: payload() });
    expect(r.status, r.text).toBe(202);
    const { session_id } = r.json();
    expect(typeof session_id).toBe('string');
    const st = await until(alice, session_id, ['completed']);
    expect(st).toEqual({ status: 'completed', stage: 'completed', error: null, meta: { backend: 'bundled', written: 1 }, result: expect.objectContaining({ written: ['ctx://user/alice/resources/rt/r.md'], files_written: 1 }) });
    const again = await post('/tasks', { ...alice, 'idempotency-key': 'k1' }, { task_type: 'compile', payload: payload() });
    expect(again.json().session_id).toBe(session_id);
    expect(llm.received.length).toBe(before + 2);
    // Another user with the same key gets a session of their own; they cannot see or cancel alice's.
    const other = await post('/tasks', { ...bob, 'idempotency-key': 'k1' }, { task_type: 'compile', payload: { ...payload(), from: ['ctx://user/alice/resources/src'], to: 'ctx://~/resources/x' } });
    expect(other.status).toBe(403);
    expect((await post('/tasks/status', bob, { session_id })).status).toBe(404);
    expect((await post('/tasks/cancel', bob, { session_id })).status).toBe(404);
    // Cancel of a terminal session answers its state.
    const c = await post('/tasks/cancel', alice, { session_id });
    expect(c.status).toBe(200);
    expect(c.json().status).toBe('completed');
  });

  it('cancel: cancelling until the agent stops, then cancelled', async () => {
    llm.holdFrom(llm.received.length);
    const r = await post('/tasks', alice, { task_type: 'compile', payload: payload({ to: 'ctx://~/resources/rt2' }) });
    const { session_id } = r.json();
    await llm.waiting();
    const c = await post('/tasks/cancel', alice, { session_id });
    expect(c.json().status).toBe('cancelling');
    llm.release();
    expect((await until(alice, session_id, ['cancelled', 'completed', 'failed'])).status).toBe('cancelled');
  });

  it('4xx for a bad type or payload, without creating a session', async () => {
    const before = llm.received.length;
    const cases: Array<[unknown, number, RegExp]> = [
      [{ task_type: 'export', payload: payload() }, 400, /unsupported task_type/],
      [{ payload: payload() }, 400, /task_type/],
      [{ task_type: 'compile' }, 400, /payload/],
      [{ task_type: 'compile', payload: 'x' }, 400, /payload/],
      [{ task_type: 'compile', payload: payload({ from: [] }) }, 400, /payload.from/],
      [{ task_type: 'compile', payload: payload({ skill: 3 }) }, 400, /payload.skill/],
      [{ task_type: 'compile', payload: payload({ nope: 1 }) }, 400, /payload.nope/],
      [{ task_type: 'compile', payload: payload({ args: { model_name: 'm' } }) }, 400, /takes no args/],
      [{ task_type: 'compile', payload: payload({ from: ['ctx://~/resources/none'] }) }, 404, /not found/],
      [{ task_type: 'compile', payload: payload(), extra: 1 }, 400, /extra/],
    ];
    for (const [b, status, msg] of cases) {
      const r = await post('/tasks', alice, b);
      expect(r.status, JSON.stringify(b)).toBe(status);
      expect(r.json().error.message).toMatch(msg);
    }
    expect((await post('/tasks', { ...alice, 'idempotency-key': 'x'.repeat(300) }, { task_type: 'compile', payload: payload() })).status).toBe(400);
    expect((await post('/tasks/status', alice, {})).status).toBe(400);
    expect((await post('/tasks/status', alice, { session_id: 'missing' })).status).toBe(404);
    expect((await post('/tasks', {}, { task_type: 'compile', payload: payload() })).status).toBe(401);
    await new Promise((r) => setTimeout(r, 50));
    expect(llm.received.length).toBe(before);
  });
});
