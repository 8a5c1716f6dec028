/**
 * Spec Part 1 "States and transitions": once a task is cancelling, new queue work is prevented,
 * and none of its queue work runs after cancel — not even a message that was in flight when the
 * process stopped (it is still on disk, and a consumer pumps as soon as its plugin sets up).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Identity } from '../../runtime/identity/types.js';
import { definePlugin } from '../../runtime/plugin.js';
import type { QueueManager } from '../../runtime/queues/queue.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pollUntil } from '../helpers/poll.js';

const QUEUE = 'CancelWork';

interface Work {
  id: string;
  /** Parks the consumer until the test opens the gate. */
  hold?: boolean;
  /** Throws once released, as a failing upstream would (the queue would retry it). */
  fail?: boolean;
}

/** One gate per work id; consumers park on theirs until the test opens it. */
const gates = new Map<string, { promise: Promise<void>; open: () => void }>();
function gateFor(id: string) {
  let g = gates.get(id);
  if (!g) {
    let open!: () => void;
    const promise = new Promise<void>((r) => (open = r));
    g = { promise, open };
    gates.set(id, g);
  }
  return g;
}
/** Every delivery, across app restarts (the plugin is set up again by each app). */
const deliveries: string[] = [];
/** What the handler's enqueue after the abort returned, per task. */
const lateEnqueue = new Map<string, boolean>();

const plugin = definePlugin({
  name: 'cancel-queue-test',
  version: '0.0.0',
  setup(host) {
    const queues: QueueManager = host.queues;
    host.consume<Work>(
      QUEUE,
      async (m) => {
        deliveries.push(m.payload.id);
        if (m.payload.hold || m.payload.fail) await gateFor(m.payload.id).promise;
        if (m.payload.fail) throw new Error('upstream failed');
      },
      { concurrency: 4, backoffMs: 1 },
    );
    host.taskType({
      type: 'test_owned_work',
      cancellable: true,
      async run(ctx, input) {
        const work = input as Work;
        await queues.enqueue(QUEUE, work, { taskId: ctx.task.task_id });
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        // A handler that does not stop at once and keeps producing work after the cancel.
        lateEnqueue.set(ctx.task.task_id, await queues.enqueue(QUEUE, { id: `${work.id}-late` }, { taskId: ctx.task.task_id }));
        throw new Error('aborted');
      },
    });
  },
});

const until = (cond: () => boolean | Promise<boolean>, what: string) => pollUntil(cond, { what });

describe('cancelled tasks get no queue work run', () => {
  let t: TestApp;
  let alice: Record<string, string>;
  const ALICE: Identity = { accountId: 'acme', userId: 'alice', role: 'USER' };

  beforeAll(async () => {
    t = await startTestApp({ extraPlugins: [plugin], config: { shutdownTimeoutMs: 200 } });
    alice = (await t.account('acme', ['alice'])).users.alice!;
  });
  afterAll(async () => {
    for (const g of gates.values()) g.open();
    await t.close();
  });

  const status = async (id: string) => (await t.req({ url: `/api/v1/tasks/${id}`, headers: alice })).json().result.status as string;
  const storedMessages = async () => {
    const out: Work[] = [];
    for await (const [, v] of t.app.kv.sub('queues').scanPrefix(`m\x00${QUEUE}\x00`)) out.push(JSON.parse(v.toString()).payload);
    return out;
  };

  it('an in-flight message that fails after the cancel is dropped, not retried; the task ends cancelled', async () => {
    const rec = await t.app.tasks.create('test_owned_work', ALICE, { input: { id: 'retry', fail: true } });
    await until(() => deliveries.includes('retry'), 'the message is in flight');
    const c = await t.req({ method: 'POST', url: `/api/v1/tasks/${rec.task_id}/cancel`, headers: alice });
    expect(c.status).toBe(200);
    expect(c.json().result.status).toBe('cancelling');
    await until(() => lateEnqueue.has(rec.task_id), 'the handler tried to enqueue after the abort');
    expect(lateEnqueue.get(rec.task_id)).toBe(false);
    expect(t.app.queues.ownedCount(rec.task_id)).toBe(1);
    gateFor('retry').open();
    await until(async () => (await status(rec.task_id)) === 'cancelled', 'the task settles');
    expect(deliveries.filter((d) => d.startsWith('retry'))).toEqual(['retry']);
    expect(t.app.queues.ownedCount(rec.task_id)).toBe(0);
    expect(await storedMessages()).toEqual([]);
  });

  it('restart while a cancelling task has a message in flight: it is not redelivered, and the task is cancelled', async () => {
    const rec = await t.app.tasks.create('test_owned_work', ALICE, { input: { id: 'held', hold: true } });
    await until(() => deliveries.includes('held'), 'the message is in flight');
    const c = await t.req({ method: 'POST', url: `/api/v1/tasks/${rec.task_id}/cancel`, headers: alice });
    expect(c.json().result.status).toBe('cancelling');
    await until(() => lateEnqueue.has(rec.task_id), 'the handler tried to enqueue after the abort');
    expect(lateEnqueue.get(rec.task_id)).toBe(false);
    expect(await storedMessages()).toEqual([{ id: 'held', hold: true }]);

    await t.restart();

    expect(await status(rec.task_id)).toBe('cancelled');
    expect(await storedMessages()).toEqual([]);
    expect(t.app.queues.ownedCount(rec.task_id)).toBe(0);
    // Still blocked in the new process: nothing enqueued under the cancelled task's id runs.
    expect(await t.app.queues.enqueue(QUEUE, { id: 'held-after-restart' }, { taskId: rec.task_id })).toBe(false);
    await t.app.queues.waitIdle(5_000);
    expect(deliveries.filter((d) => d.startsWith('held'))).toEqual(['held']);
  });
});
