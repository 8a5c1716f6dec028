import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Identity } from '../../runtime/identity/types.js';
import { createLogger } from '../../runtime/logger.js';
import { definePlugin } from '../../runtime/plugin.js';
import { QueueManager } from '../../runtime/queues/queue.js';
import { Kv } from '../../runtime/storage/kv.js';
import { RocksDbBackend } from '../../runtime/storage/rocksdb.js';
import { MAX_EVENTS, MAX_EVENT_BYTES, TaskManager, publicTask, type TaskContext, type TaskRecord, type TaskTypeDef } from '../../runtime/tasks/task-manager.js';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { pollUntil } from '../helpers/poll.js';

const log = createLogger('silent');

/** Gates the test task handlers park on, by key; opened by the test. */
const gates = new Map<string, { promise: Promise<void>; open: () => void }>();
function gateFor(key: string) {
  let g = gates.get(key);
  if (!g) {
    let open!: () => void;
    const promise = new Promise<void>((r) => (open = r));
    g = { promise, open };
    gates.set(key, g);
  }
  return g;
}
const runs = new Map<string, number>();

interface Input {
  key: string;
  fail?: string;
  stages?: number;
  operation?: string;
  result?: Record<string, unknown>;
  /** Resumable: runs after the first one finish at once. */
  resumeFast?: boolean;
}

/** Waits on its gate, honouring cancellation through the abort signal. */
async function gatedRun(ctx: TaskContext, raw: unknown): Promise<Record<string, unknown>> {
  const input = raw as Input;
  const n = (runs.get(input.key) ?? 0) + 1;
  runs.set(input.key, n);
  for (let i = 0; i < (input.stages ?? 0); i++) await ctx.setStage(`stage-${i}`, input.operation);
  if (!(input.resumeFast && n > 1)) {
    await new Promise<void>((resolve, reject) => {
      void gateFor(input.key).promise.then(resolve);
      ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      if (ctx.signal.aborted) reject(new Error('aborted'));
    });
  }
  if (input.fail) throw new Error(input.fail);
  return input.result ?? { runs: n };
}

/** The queue manager of the direct tests, for a task type that owns queue messages. */
let ownedQueues: QueueManager | undefined;

const TYPES: TaskTypeDef[] = [
  { type: 'test_gated', cancellable: true, run: gatedRun },
  {
    type: 'test_queue',
    cancellable: true,
    async run(ctx, raw) {
      for (let i = 0; i < 3; i++) await ownedQueues!.enqueue('Owned', { i }, { taskId: ctx.task.task_id });
      return gatedRun(ctx, raw);
    },
  },
  { type: 'test_fixed', cancellable: false, run: gatedRun },
  { type: 'test_resumable', cancellable: true, onRestart: 'resume', run: gatedRun },
];

const taskTestPlugin = definePlugin({
  name: 'task-test',
  version: '0.0.0',
  setup(host) {
    for (const t of TYPES) host.taskType(t);
  },
});

let keySeq = 0;
const newKey = () => `k${++keySeq}`;

describe('tasks over HTTP (plugins/tasks)', () => {
  let t: TestApp;
  let alice: Record<string, string>;
  let bob: Record<string, string>;
  let admin: Record<string, string>;
  let carol: Record<string, string>;
  const ALICE: Identity = { accountId: 'acme', userId: 'alice', role: 'USER' };

  beforeAll(async () => {
    t = await startTestApp({ extraPlugins: [taskTestPlugin], config: { shutdownTimeoutMs: 100 } });
    const acme = await t.account('acme', ['alice', 'bob']);
    alice = acme.users.alice!;
    bob = acme.users.bob!;
    admin = acme.admin;
    carol = (await t.account('globex', ['carol'])).users.carol!;
  });
  afterAll(async () => {
    for (const g of gates.values()) g.open();
    await t.close();
  });

  const get = (id: string, headers: Record<string, string>, events = false) => t.req({ url: `/api/v1/tasks/${id}${events ? '?include_events=true' : ''}`, headers });
  const cancel = (id: string, headers: Record<string, string>) => t.req({ method: 'POST', url: `/api/v1/tasks/${id}/cancel`, headers });
  const list = (query: string, headers: Record<string, string>) => t.req({ url: `/api/v1/tasks${query}`, headers });
  const create = (type: string, input: Input, opts: { resourceId?: string; internal?: boolean; who?: Identity } = {}) =>
    t.app.tasks.create(type, opts.who ?? ALICE, { input, resourceId: opts.resourceId, internal: opts.internal });
  /** Polls the task until it reaches `status` (bounded; no timing assertion). */
  async function until(id: string, status: string, headers = alice): Promise<Record<string, any>> {
    return pollUntil(
      async () => {
        const rec: Record<string, any> = (await get(id, headers, true)).json().result;
        return rec?.status === status && rec;
      },
      { what: `task ${id} to reach ${status}` },
    );
  }

  it('pending → running → completed, with the public record shape and its events', async () => {
    const key = newKey();
    const rec = await create('test_gated', { key, stages: 1, operation: 'op', result: { files: 2 } }, { resourceId: 'ctx://resources/x' });
    expect(rec.status).toBe('pending');
    await until(rec.task_id, 'running');
    const running = (await get(rec.task_id, alice)).json().result;
    expect(running).toMatchObject({ task_id: rec.task_id, task_type: 'test_gated', resource_id: 'ctx://resources/x', result: null, error: null });
    gateFor(key).open();
    const done = await until(rec.task_id, 'completed');
    expect(done.result).toMatchObject({ files: 2 });
    expect(done.stage).toBe('stage-0');
    expect(typeof done.created_at).toBe('number');
    expect(done.updated_at).toBeGreaterThanOrEqual(done.created_at);
    const ev = done.result.execution_events;
    expect(ev.dropped_count).toBe(0);
    expect(ev.started_mid_task).toBe(false);
    expect(ev.items.map((e: any) => [e.seq, e.kind, e.status])).toEqual([
      [1, 'created', 'pending'],
      [2, 'status_changed', 'running'],
      [3, 'stage_changed', 'running'],
      [4, 'status_changed', 'completed'],
    ]);
    expect(ev.items[2]).toMatchObject({ stage: 'stage-0', operation: 'op', error: null });
    expect(new Date(ev.items[0].recorded_at).toISOString()).toBe(ev.items[0].recorded_at);
    // Without include_events, no execution_events.
    expect((await get(rec.task_id, alice)).json().result.result).toEqual({ files: 2 });
  });

  it('a failing run ends failed with a sanitized error (and an error_recorded event)', async () => {
    const key = newKey();
    const rec = await create('test_gated', { key, fail: 'upstream refused: api_key=topsecret ' + 'x'.repeat(1000) });
    gateFor(key).open();
    const failed = await until(rec.task_id, 'failed');
    expect(failed.error).toMatch(/^upstream refused: api_key=\[redacted\]/);
    expect(failed.error).not.toContain('topsecret');
    expect(failed.error.length).toBeLessThanOrEqual(500);
    expect(failed.result.execution_events.items.map((e: any) => e.kind)).toEqual(['created', 'status_changed', 'error_recorded', 'status_changed']);
  });

  it('cancel a running task: cancelling then cancelled; a second cancel is idempotent', async () => {
    const rec = await create('test_gated', { key: newKey() });
    await until(rec.task_id, 'running');
    const r = await cancel(rec.task_id, alice);
    expect(r.status).toBe(200);
    expect(['cancelling', 'cancelled']).toContain(r.json().result.status);
    const done = await until(rec.task_id, 'cancelled');
    expect(done.result.execution_events.items.map((e: any) => e.status)).toContain('cancelling');
    const again = await cancel(rec.task_id, alice);
    expect(again.status).toBe(200);
    expect(again.json().result.status).toBe('cancelled');
  });

  it('cancel right after creation never leaves the task stuck in cancelling', async () => {
    for (let i = 0; i < 12; i++) {
      const rec = await create('test_gated', { key: newKey() });
      // Alternate between cancelling before and after the runner had a chance to load the record.
      if (i % 2) await new Promise((r) => setImmediate(r));
      const c = await t.app.tasks.cancel(rec.task_id, ALICE);
      expect(['cancelling', 'cancelled']).toContain(c.status);
      await until(rec.task_id, 'cancelled');
    }
  });

  it('cancel errors: 412 for completed and failed, 412 for a type that cannot be cancelled, 403 for ROOT, 404 for anyone but the owner', async () => {
    const okKey = newKey();
    const ok = await create('test_gated', { key: okKey });
    gateFor(okKey).open();
    await until(ok.task_id, 'completed');
    const c1 = await cancel(ok.task_id, alice);
    expect(c1.status).toBe(412);
    expect(c1.json()).toMatchObject({ status: 'error', error: { code: 'FAILED_PRECONDITION' } });

    const badKey = newKey();
    const bad = await create('test_gated', { key: badKey, fail: 'no' });
    gateFor(badKey).open();
    await until(bad.task_id, 'failed');
    expect((await cancel(bad.task_id, alice)).status).toBe(412);

    const fixed = await create('test_fixed', { key: newKey() });
    await until(fixed.task_id, 'running');
    const c3 = await cancel(fixed.task_id, alice);
    expect(c3.status).toBe(412);
    expect(c3.json().error.code).toBe('FAILED_PRECONDITION');

    const live = await create('test_gated', { key: newKey() });
    await until(live.task_id, 'running');
    const root = await cancel(live.task_id, t.root);
    expect(root.status).toBe(403);
    expect(root.json().error.code).toBe('PERMISSION_DENIED');
    for (const other of [bob, admin, carol]) {
      const r = await cancel(live.task_id, other);
      expect(r.status).toBe(404);
      expect(r.json().error.code).toBe('NOT_FOUND');
    }
    expect((await get(live.task_id, alice)).json().result.status).toBe('running');
    expect((await cancel('no-such-task', alice)).status).toBe(404);
  });

  it('a task is visible only to its creator (404 for other users, the account admin, other accounts and ROOT)', async () => {
    const rec = await create('test_gated', { key: newKey() });
    expect((await get(rec.task_id, alice)).status).toBe(200);
    for (const other of [bob, admin, carol, t.root]) {
      const r = await get(rec.task_id, other);
      expect(r.status).toBe(404);
      expect(r.json().error.code).toBe('NOT_FOUND');
    }
    const bobs = (await list('', bob)).json().result as any[];
    expect(bobs.some((x) => x.task_id === rec.task_id)).toBe(false);
    expect((await get('00000000-0000-0000-0000-000000000000', alice)).status).toBe(404);
    expect((await t.req({ url: `/api/v1/tasks/${rec.task_id}` })).status).toBe(401);
  });

  it('list: newest first, filters by type, status and resource, internal tasks on request, limit', async () => {
    const BOB: Identity = { accountId: 'acme', userId: 'bob', role: 'USER' };
    const made: TaskRecord[] = [];
    for (let i = 0; i < 4; i++) {
      const k = newKey();
      made.push(await create('test_gated', { key: k }, { who: BOB, resourceId: i % 2 ? 'odd' : 'even' }));
      if (i < 2) gateFor(k).open();
    }
    const fixed = await create('test_fixed', { key: newKey() }, { who: BOB, resourceId: 'even' });
    const internal = await create('test_gated', { key: newKey() }, { who: BOB, internal: true });
    await until(made[0]!.task_id, 'completed', bob);
    await until(made[1]!.task_id, 'completed', bob);
    await until(made[3]!.task_id, 'running', bob);
    const ids = (r: { json(): any }) => (r.json().result as any[]).map((x) => x.task_id);
    const all = await list('', bob);
    expect(all.status).toBe(200);
    // Newest first (ids created within one millisecond keep no defined order, so compare as sets plus the extremes).
    const allIds = ids(all);
    expect(new Set(allIds)).toEqual(new Set([...made.map((m) => m.task_id), fixed.task_id]));
    const times = (all.json().result as any[]).map((x) => x.created_at);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(new Set(ids(await list('?task_type=test_fixed', bob)))).toEqual(new Set([fixed.task_id]));
    expect(new Set(ids(await list('?status=completed', bob)))).toEqual(new Set([made[0]!.task_id, made[1]!.task_id]));
    expect(new Set(ids(await list('?resource_id=odd', bob)))).toEqual(new Set([made[1]!.task_id, made[3]!.task_id]));
    expect(new Set(ids(await list('?resource_id=even&status=running', bob)))).toEqual(new Set([made[2]!.task_id, fixed.task_id]));
    expect(ids(await list('?include_internal=true', bob))).toContain(internal.task_id);
    expect(ids(await list('?limit=2', bob))).toHaveLength(2);
    expect(ids(await list('?limit=2', bob))).toEqual(allIds.slice(0, 2));
    expect(ids(await list('?task_type=none', bob))).toEqual([]);
    for (const q of ['?status=done', '?limit=abc', '?limit=1001', '?include_internal=maybe']) {
      const r = await list(q, bob);
      expect(r.status, q).toBe(400);
      expect(r.json().error.code).toBe('INVALID_ARGUMENT');
    }
    expect(ids(await list('', alice))).not.toContain(fixed.task_id);
  });

  it('restart: finished tasks keep their state; running tasks fail or resume per type', async () => {
    const doneKey = newKey();
    const done = await create('test_gated', { key: doneKey });
    gateFor(doneKey).open();
    await until(done.task_id, 'completed');
    const cancelled = await create('test_gated', { key: newKey() });
    await until(cancelled.task_id, 'running');
    await cancel(cancelled.task_id, alice);
    await until(cancelled.task_id, 'cancelled');
    const interrupted = await create('test_gated', { key: newKey() });
    const resumedKey = newKey();
    const resumed = await create('test_resumable', { key: resumedKey, resumeFast: true, result: { resumed: true } });
    await until(interrupted.task_id, 'running');
    await until(resumed.task_id, 'running');
    // The resumable handler has started (so its first run is counted and its record is on disk).
    await pollUntil(() => runs.get(resumedKey) === 1);

    await t.restart();

    expect((await get(done.task_id, alice)).json().result.status).toBe('completed');
    expect((await get(cancelled.task_id, alice)).json().result.status).toBe('cancelled');
    const failed = await until(interrupted.task_id, 'failed');
    expect(failed.error).toBe('interrupted by a server restart');
    // seq continues after the restart; it is never reset.
    const seqs = failed.result.execution_events.items.map((e: any) => e.seq);
    expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1));
    expect(failed.result.execution_events.items.slice(-2).map((e: any) => e.kind)).toEqual(['error_recorded', 'status_changed']);
    const finished = await until(resumed.task_id, 'completed');
    expect(finished.result).toMatchObject({ resumed: true });
    expect(runs.get(resumedKey)).toBe(2);
    // Cancel rules still hold after a restart.
    expect((await cancel(failed.task_id, alice)).status).toBe(412);
  });
});

describe('TaskManager (direct)', () => {
  const warnings: string[] = [];
  const log = createLogger('warn', (line) => warnings.push(line));
  let dir: string;
  let kv: Kv;
  let qm: QueueManager;
  let tm: TaskManager;
  const ME: Identity = { accountId: 'acme', userId: 'alice', role: 'USER' };

  const open = async (retentionHours = 24) => {
    kv = await Kv.open(new RocksDbBackend(dir));
    qm = new QueueManager(kv.sub('queues'), log);
    await qm.load();
    tm = new TaskManager(kv.sub('tasks'), qm, log, retentionHours);
    ownedQueues = qm;
    for (const def of TYPES) tm.registerType(def);
    await tm.start();
  };
  async function until(id: string, status: string): Promise<TaskRecord> {
    const last = await pollUntil(
      async () => {
        const rec = await tm.get(id, ME);
        return rec.status === status && rec;
      },
      { what: `task ${id} to reach ${status}` },
    );
    return JSON.parse(JSON.stringify(last));
  }

  beforeEach(async () => {
    dir = tempDir('ctx-tasks-');
    await open();
  });
  afterEach(async () => {
    vi.useRealTimers();
    await tm.drain(0);
    qm.close();
    await kv.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('registers each type once; unknown types are refused', async () => {
    expect(() => tm.registerType(TYPES[0]!)).toThrow(/already registered/);
    expect(tm.hasType('test_gated')).toBe(true);
    await expect(tm.create('nope', ME)).rejects.toThrow(/unknown task type/);
  });

  it('events are capped at 64, oldest dropped first, dropped_count counts them and seq never resets', async () => {
    const key = newKey();
    const rec = await tm.create('test_gated', ME, { input: { key, stages: 70 } });
    gateFor(key).open();
    const done = await until(rec.task_id, 'completed');
    const total = 1 + 1 + 70 + 1; // created, running, 70 stages, completed
    expect(done.events.items).toHaveLength(MAX_EVENTS);
    expect(done.events.dropped_count).toBe(total - MAX_EVENTS);
    expect(done.events.items.map((e) => e.seq)).toEqual(Array.from({ length: MAX_EVENTS }, (_, i) => total - MAX_EVENTS + 1 + i));
    expect(done.events.items.at(-1)).toMatchObject({ kind: 'status_changed', status: 'completed' });
    const shown = publicTask(done, true).result as { execution_events: { items: unknown[]; dropped_count: number } };
    expect(shown.execution_events.dropped_count).toBe(total - MAX_EVENTS);
  });

  it('events are capped at 32 KiB of serialized UTF-8, multi-byte text included', async () => {
    for (const operation of ['a'.repeat(1500), '€'.repeat(600), '\u{1F600}'.repeat(400)]) {
      const key = newKey();
      const rec = await tm.create('test_gated', ME, { input: { key, stages: 40, operation } });
      gateFor(key).open();
      const done = await until(rec.task_id, 'completed');
      const bytes = done.events.items.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0);
      expect(bytes).toBeLessThanOrEqual(MAX_EVENT_BYTES);
      expect(done.events.items.length).toBeLessThan(MAX_EVENTS);
      expect(done.events.dropped_count + done.events.items.length).toBe(43);
      const seqs = done.events.items.map((e) => e.seq);
      expect(seqs.at(-1)).toBe(43);
      expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    }
  });

  it('after a crash (no graceful drain), interrupted tasks fail or resume per type', async () => {
    const failKey = newKey();
    const resumeKey = newKey();
    const a = await tm.create('test_gated', ME, { input: { key: failKey } });
    const b = await tm.create('test_resumable', ME, { input: { key: resumeKey, resumeFast: true } });
    await until(a.task_id, 'running');
    await until(b.task_id, 'running');
    // Both handlers started, so their `running` records are on disk (saved before run()).
    await pollUntil(() => runs.get(failKey) === 1 && runs.get(resumeKey) === 1);
    expect([runs.get(failKey), runs.get(resumeKey)]).toEqual([1, 1]);
    // The process dies: nothing is drained, the database just goes away.
    qm.close();
    await kv.close();
    kv = await Kv.open(new RocksDbBackend(dir));
    qm = new QueueManager(kv.sub('queues'), log);
    await qm.load();
    tm = new TaskManager(kv.sub('tasks'), qm, log, 24);
    for (const def of TYPES) tm.registerType(def);
    await tm.start();
    const failed = await until(a.task_id, 'failed');
    expect(failed.error).toBe('interrupted by a server restart');
    const resumed = await until(b.task_id, 'completed');
    expect(resumed.result).toEqual({ runs: 2 });
    gateFor(failKey).open(); // lets the orphaned first run end (its writes fail: database closed)
  });

  it('retention: terminal tasks past retention are invisible, then swept; live tasks are kept', async () => {
    const key = newKey();
    const old = await tm.create('test_gated', ME, { input: { key } });
    gateFor(key).open();
    await until(old.task_id, 'completed');
    const live = await tm.create('test_gated', ME, { input: { key: newKey() } });
    await until(live.task_id, 'running');
    expect(await tm.sweep()).toBe(0);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 25 * 3600_000);
    await expect(tm.get(old.task_id, ME)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await tm.list(ME, {})).map((x) => x.task_id)).toEqual([live.task_id]);
    expect(await tm.sweep()).toBe(1);
    expect(await kv.sub('tasks').getJson(`t\x00${old.task_id}`)).toBeUndefined();
    const leftovers: string[] = [];
    for await (const [k] of kv.sub('tasks').iterate()) leftovers.push(k);
    expect(leftovers.some((k) => k.includes(old.task_id))).toBe(false);
    expect((await tm.get(live.task_id, ME)).status).toBe('running');
    vi.useRealTimers();
  });

  it('cancel with owned queue work: pending messages dropped, cancelling until the in-flight one settles, then cancelled', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const consumed: unknown[] = [];
    qm.consume('Owned', async (m) => {
      consumed.push(m.payload);
      await held;
    });
    const rec = await tm.create('test_queue', ME, { input: { key: newKey() } });
    await until(rec.task_id, 'running');
    await pollUntil(() => consumed.length > 0);
    await pollUntil(() => qm.ownedCount(rec.task_id) >= 3);
    expect(qm.ownedCount(rec.task_id)).toBe(3);
    await tm.cancel(rec.task_id, ME);
    const cancelling = await until(rec.task_id, 'cancelling');
    expect(cancelling.status).toBe('cancelling');
    expect(qm.ownedCount(rec.task_id)).toBe(1); // only the message in flight is left
    release();
    await until(rec.task_id, 'cancelled');
    await qm.waitIdle();
    expect(consumed).toEqual([{ i: 0 }]);
    await expect(tm.cancel(rec.task_id, ME)).resolves.toMatchObject({ status: 'cancelled' });
  });

  /** Cancels a test_queue task while its first owned message is parked in the consumer. */
  async function cancelWithMessageInFlight(): Promise<{ id: string; release: () => void }> {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let started = false;
    qm.consume('Owned', async () => {
      started = true;
      await held;
    });
    const rec = await tm.create('test_queue', ME, { input: { key: newKey() } });
    await pollUntil(() => started);
    await tm.cancel(rec.task_id, ME);
    await until(rec.task_id, 'cancelling');
    return { id: rec.task_id, release };
  }

  it('a cancelling task whose settle cannot be saved logs a warning (no unhandled rejection) and is settled by the next start', async () => {
    const { id, release } = await cancelWithMessageInFlight();
    // The store goes away under the settle poll: the message's ack and the task's save both fail.
    await kv.close();
    release();
    await pollUntil(() => warnings.some((w) => w.includes('cancelled task could not be settled')));
    const warning = JSON.parse(warnings.find((w) => w.includes('cancelled task could not be settled'))!);
    expect(warning).toMatchObject({ level: 'warn', task_id: id });
    await tm.drain(0);
    qm.close();
    await open();
    expect((await until(id, 'cancelled')).status).toBe('cancelled');
    expect(qm.ownedCount(id)).toBe(0);
  });

  it('drain stops the settle poll: the task stays cancelling on disk until the next start settles it', async () => {
    const { id, release } = await cancelWithMessageInFlight();
    await tm.drain(0);
    release();
    await qm.waitIdle();
    // Several poll periods (50 ms) pass: a poll still running would have saved `cancelled` by now.
    await new Promise((r) => setTimeout(r, 200));
    expect((await kv.sub('tasks').getJson<TaskRecord>(`t\x00${id}`))!.status).toBe('cancelling');
    qm.close();
    await kv.close();
    await open();
    expect((await until(id, 'cancelled')).status).toBe('cancelled');
  });

  it('list returns at most 50 by default, newest first; limit and filters apply before the cut', async () => {
    const key = newKey();
    gateFor(key).open();
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) ids.push((await tm.create('test_gated', ME, { input: { key }, resourceId: i < 5 ? 'early' : 'late' })).task_id);
    for (const id of ids) await until(id, 'completed');
    const all = await tm.list(ME, {});
    expect(all).toHaveLength(50);
    const created = all.map((x) => x.created_at);
    expect([...created].sort((a, b) => b - a)).toEqual(created);
    // The five left out are the oldest (ties within one millisecond have no defined order).
    const shown = new Set(all.map((x) => x.task_id));
    const left = await Promise.all(ids.filter((id) => !shown.has(id)).map((id) => tm.get(id, ME)));
    expect(left).toHaveLength(5);
    for (const t of left) expect(t.created_at).toBeLessThanOrEqual(Math.min(...created));
    expect(await tm.list(ME, { limit: 3 })).toHaveLength(3);
    expect(new Set((await tm.list(ME, { resource_id: 'early' })).map((x) => x.task_id))).toEqual(new Set(ids.slice(0, 5)));
    expect(await tm.list({ ...ME, userId: 'bob' }, {})).toEqual([]);
  });

  it('a graceful stop leaves a running task for the next start (it is not marked cancelled)', async () => {
    const key = newKey();
    const rec = await tm.create('test_gated', ME, { input: { key } });
    await until(rec.task_id, 'running');
    await tm.drain(0);
    // Wait for the aborted run to finish its bookkeeping.
    await pollUntil(() => tm.runningCount() === 0);
    expect(tm.runningCount()).toBe(0);
    const stored = await kv.sub('tasks').getJson<TaskRecord>(`t\x00${rec.task_id}`);
    expect(stored!.status).toBe('running');
  });
});
