/**
 * POST /api/v1/compile with the bundled backend: the agent loop against a fake OpenAI-compatible
 * server with tool calls, the task's status and stages, cancel, bad input, retired routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startFakeLlm, type FakeLlm } from './fake-llm.js';
import { body, seed, settle } from './helpers.js';

describe('compile with the bundled backend and an LLM', () => {
  let t: TestApp;
  let llm: FakeLlm;
  let alice: Record<string, string>;
  let bob: Record<string, string>;

  beforeAll(async () => {
    llm = await startFakeLlm();
    t = await startTestApp({ config: { llm: { baseUrl: llm.url, model: 'fake-model' } } });
    ({ alice, bob } = await seed(t));
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  it('runs the agent loop: lists and reads the sources, writes into to, completes', async () => {
    llm.received.length = 0;
    llm.script = [
      { calls: [{ name: 'list_dir', args: { uri: 'ctx://~/resources/src' } }] },
      { calls: [{ name: 'read_file', args: { uri: 'ctx://user/alice/resources/src/a.md' } }, { name: 'read_file', args: { uri: 'ctx://~/resources/src/b.md' } }] },
      { calls: [{ name: 'write_file', args: { path: 'summary.md', content: '- a: Alpha facts\n- b: Beta facts\n' } }] },
      { calls: [{ name: 'finish', args: { summary: 'wrote summary.md' } }] },
    ];
    const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body({ instruction: 'be brief' }) });
    expect(r.status, r.text).toBe(202);
    const started = r.json().result;
    expect(started).toMatchObject({ task_type: 'compile', status: 'pending', stage: 'queued', resource_id: 'ctx://user/alice/resources/out' });
    const task = await settle(t, alice, started.task_id);
    expect(task.status, JSON.stringify(task)).toBe('completed');
    expect(task.stage).toBe('completed');
    expect(task.result).toMatchObject({ backend: 'bundled', outcome: 'completed', written: ['ctx://user/alice/resources/out/summary.md'], files_written: 1, summary: 'wrote summary.md', turns: 4 });
    expect(task.result.token_usage.total_tokens).toBe(60);
    const out = await t.req({ method: 'GET', url: '/api/v1/content/read?uri=ctx://~/resources/out/summary.md', headers: alice });
    expect(out.json().result).toBe('- a: Alpha facts\n- b: Beta facts\n');

    // What the model saw: the tools, the skill in the system prompt, the instruction, real tool results.
    expect(llm.received[0].tools!.map((x) => x.function.name)).toEqual(['list_dir', 'read_file', 'write_file', 'finish']);
    expect(llm.received[0].messages[0].content).toContain('Read every source file and write summary.md');
    expect(llm.received[0].messages[1].content).toContain('be brief');
    const listing = llm.received[1].messages.find((m) => m.role === 'tool')!.content!;
    expect(listing).toContain('ctx://user/alice/resources/src/a.md');
    expect(llm.received[2].messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual(expect.arrayContaining(['Alpha facts', 'Beta facts']));
    // The caller's key is nowhere in the task record.
    const raw = (await t.req({ method: 'GET', url: `/api/v1/tasks/${started.task_id}?include_events=true`, headers: alice })).text;
    expect(raw).not.toContain(alice['x-api-key']);
    // Stages went queued → agent → writing → agent → completed.
    const stages = JSON.parse(raw).result.result.execution_events.items.filter((e: { kind: string }) => e.kind === 'stage_changed').map((e: { stage: string }) => e.stage);
    expect(stages).toEqual(['agent', 'writing', 'agent', 'completed']);
  });

  it('keeps the agent inside its sources and target: reads elsewhere and escaping writes are refused to the model', async () => {
    llm.received.length = 0;
    await t.req({ method: 'POST', url: '/api/v1/content/write', headers: alice, body: { uri: 'ctx://~/resources/secret/s.md', content: 'secret' } });
    llm.script = [
      { calls: [{ name: 'read_file', args: { uri: 'ctx://~/resources/secret/s.md' } }, { name: 'write_file', args: { path: '../escape.md', content: 'x' } }, { name: 'list_dir', args: { uri: 'ctx://user/bob/resources' } }] },
      { text: 'nothing to do' },
    ];
    const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body({ to: 'ctx://~/resources/out2' }) });
    const task = await settle(t, alice, r.json().result.task_id);
    expect(task.status).toBe('completed');
    const results = llm.received[1].messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(results[0]).toMatch(/outside the compile's sources/);
    expect(results[1]).toMatch(/without "\." or "\.\." segments/);
    expect(results[2]).toMatch(/^error: /);
    expect(results.join('\n')).not.toContain('secret\n');
    const escaped = await t.req({ method: 'GET', url: '/api/v1/fs/stat?uri=ctx://~/resources/escape.md', headers: alice });
    expect(escaped.status).toBe(404);
  });

  it('salvages what was written when the model fails mid-way (completed, stage salvaged)', async () => {
    llm.script = [{ calls: [{ name: 'write_file', args: { path: 'part.md', content: 'partial' } }] }, { status: 400 }];
    const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body({ to: 'ctx://~/resources/out3' }) });
    const task = await settle(t, alice, r.json().result.task_id);
    expect(task.status).toBe('completed');
    expect(task.stage).toBe('salvaged');
    expect(task.result.written).toEqual(['ctx://user/alice/resources/out3/part.md']);
  });

  it('fails with the model\'s error when nothing was written', async () => {
    llm.script = [{ status: 400 }];
    const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body({ to: 'ctx://~/resources/out4' }) });
    const task = await settle(t, alice, r.json().result.task_id);
    expect(task.status).toBe('failed');
    expect(task.error).toMatch(/LLM answered HTTP 400/);
    expect(task.stage).toBe('agent');
  });

  it('the bundled backend rejects non-empty args: the task fails saying so', async () => {
    const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body({ args: { model_name: 'big' } }) });
    expect(r.status).toBe(202);
    const task = await settle(t, alice, r.json().result.task_id);
    expect(task.status).toBe('failed');
    expect(task.error).toMatch(/bundled execution backend takes no args \(got model_name\)/);
    // Empty args are no args.
    llm.script = [{ text: 'ok' }];
    const ok = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body({ args: {}, to: 'ctx://~/resources/out5' }) });
    expect((await settle(t, alice, ok.json().result.task_id)).status).toBe('completed');
  });

  it('cancel: cancelling then cancelled, idempotent, completed writes kept; other users get 404', async () => {
    llm.script = [{ calls: [{ name: 'write_file', args: { path: 'first.md', content: 'kept' } }] }, { calls: [{ name: 'write_file', args: { path: 'second.md', content: 'never' } }] }];
    // Park the second model turn: the first file is written by then.
    llm.holdFrom(llm.received.length + 1);
    const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body({ to: 'ctx://~/resources/out6' }) });
    const id = r.json().result.task_id;
    await llm.waiting();
    expect((await t.req({ method: 'GET', url: '/api/v1/fs/stat?uri=ctx://~/resources/out6/first.md', headers: alice })).status).toBe(200);
    expect((await t.req({ method: 'POST', url: `/api/v1/tasks/${id}/cancel`, headers: bob })).status).toBe(404);
    const c = await t.req({ method: 'POST', url: `/api/v1/tasks/${id}/cancel`, headers: alice });
    expect(c.status, c.text).toBe(200);
    expect(['cancelling', 'cancelled']).toContain(c.json().result.status);
    llm.release();
    const task = await settle(t, alice, id);
    expect(task.status).toBe('cancelled');
    expect(task.stage).toBe('cancelled');
    const again = await t.req({ method: 'POST', url: `/api/v1/tasks/${id}/cancel`, headers: alice });
    expect(again.json().result.status).toBe('cancelled');
    expect((await t.req({ method: 'GET', url: '/api/v1/content/read?uri=ctx://~/resources/out6/first.md', headers: alice })).json().result).toBe('kept');
    const second = await t.req({ method: 'GET', url: '/api/v1/fs/stat?uri=ctx://~/resources/out6/second.md', headers: alice });
    expect(second.status, second.text + JSON.stringify(task)).toBe(404);
    // A completed task cannot be cancelled (spec: FAILED_PRECONDITION).
    llm.script = [{ text: 'ok' }];
    const done = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body({ to: 'ctx://~/resources/out7' }) });
    const doneId = done.json().result.task_id;
    await settle(t, alice, doneId);
    expect((await t.req({ method: 'POST', url: `/api/v1/tasks/${doneId}/cancel`, headers: alice })).status).toBe(412);
    expect((await t.req({ method: 'GET', url: `/api/v1/tasks/${doneId}`, headers: bob })).status).toBe(404);
  });

  it('bad input is refused before a task exists', async () => {
    const cases: Array<[Record<string, unknown>, number, RegExp]> = [
      [{ to: 'ctx://~/resources/o', skill: 'ctx://~/skills/summarize' }, 400, /from/],
      [body({ from: [] }), 400, /from/],
      [body({ from: 'ctx://~/resources/src' }), 400, /from/],
      [body({ to: undefined }), 400, /to/],
      [body({ skill: undefined }), 400, /skill/],
      [body({ extra: 1 }), 400, /extra/],
      [body({ instruction: 5 }), 400, /instruction/],
      [body({ args: [1] }), 400, /args/],
      [body({ from: ['ctx://~/resources/nope'] }), 404, /source directory not found/],
      [body({ from: ['ctx://~/resources/src/a.md'] }), 400, /got a file/],
      [body({ from: ['not-a-uri'] }), 400, /./],
      [body({ skill: 'ctx://~/skills/missing' }), 404, /SKILL\.md/],
      [body({ to: 'ctx://~/resources/src/a.md' }), 400, /got a file/],
      [body({ to: 'ctx://user/alice' }), 400, /./],
    ];
    const before = (await t.req({ method: 'GET', url: '/api/v1/tasks?task_type=compile&limit=500', headers: alice })).json().result.length;
    for (const [b, status, msg] of cases) {
      const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: b });
      expect(r.status, `${JSON.stringify(b)} → ${r.text}`).toBe(status);
      expect(r.json().error.message).toMatch(msg);
    }
    // Another user's sources: 403 (bob cannot read alice's space).
    const foreign = await t.req({ method: 'POST', url: '/api/v1/compile', headers: bob, body: { from: ['ctx://user/alice/resources/src'], to: 'ctx://~/resources/o', skill: 'ctx://user/alice/skills/summarize' } });
    expect(foreign.status).toBe(403);
    expect((await t.req({ method: 'POST', url: '/api/v1/compile', body: body() })).status).toBe(401);
    const after = (await t.req({ method: 'GET', url: '/api/v1/tasks?task_type=compile&limit=500', headers: alice })).json().result.length;
    expect(after).toBe(before);
  });

  it('the retired /bot/v1/compile routes answer 410 with migration guidance only', async () => {
    for (const [method, url] of [['POST', '/bot/v1/compile'], ['GET', '/bot/v1/compile/abc'], ['POST', '/bot/v1/compile/abc/cancel']] as const) {
      const r = await t.req({ method, url, headers: alice, body: method === 'POST' ? body() : undefined });
      expect(r.status, url).toBe(410);
      expect(r.json().error.message).toMatch(/retired; use (POST|GET) \/api\/v1\/(compile|tasks)/);
      expect(r.json().error.details.migration.compile).toBe('POST /api/v1/compile');
    }
  });
});

describe('compile across a restart', () => {
  it('a compile running when the server stops is failed as interrupted at the next start; writes made stay', async () => {
    const llm = await startFakeLlm();
    const t = await startTestApp({ config: { llm: { baseUrl: llm.url } } });
    try {
      const { alice } = await seed(t);
      llm.script = [{ calls: [{ name: 'write_file', args: { path: 'before.md', content: 'B' } }] }];
      llm.holdFrom(llm.received.length + 1);
      const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body() });
      const id = r.json().result.task_id;
      await llm.waiting();
      const started = Date.now();
      await t.restart();
      expect(Date.now() - started).toBeLessThan(10_000);
      const task = await settle(t, alice, id);
      expect(task).toMatchObject({ status: 'failed', error: 'interrupted by a server restart' });
      expect((await t.req({ method: 'GET', url: '/api/v1/content/read?uri=ctx://~/resources/out/before.md', headers: alice })).json().result).toBe('B');
    } finally {
      await t.close();
      await llm.close();
    }
  });
});

describe('compile without an LLM', () => {
  it('accepts the task and fails it with a clear error', async () => {
    const t = await startTestApp();
    try {
      const { alice } = await seed(t);
      const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: alice, body: body() });
      expect(r.status).toBe(202);
      const task = await settle(t, alice, r.json().result.task_id);
      expect(task.status).toBe('failed');
      expect(task.error).toMatch(/compile needs an LLM: set CTX_LLM_BASE_URL/);
    } finally {
      await t.close();
    }
  });
});
