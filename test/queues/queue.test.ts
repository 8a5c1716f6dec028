import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../runtime/logger.js';
import { touchesPath } from '../../plugins/semantic/indexing-contract.js';
import { QueueManager, sanitizeError, type QueueMessage } from '../../runtime/queues/queue.js';
import { Kv } from '../../runtime/storage/kv.js';
import { RocksDbBackend } from '../../runtime/storage/rocksdb.js';
import { tempDir } from '../helpers/app.js';

const log = createLogger('silent');
const settle = () => new Promise((r) => setImmediate(r));

/** A promise the test resolves by hand: consumers park on gates so in-flight counts are exact. */
function gate() {
  let open!: () => void;
  let fail!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    open = res;
    fail = rej;
  });
  return { promise, open, fail };
}

/** Waits until `cond` holds, polling the event loop; fails (never hangs) after many turns. */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`condition never held: ${what}`);
}

describe('QueueManager on RocksDB', () => {
  let dir: string;
  let kv: Kv;
  let qm: QueueManager;

  const open = async () => {
    kv = await Kv.open(new RocksDbBackend(dir));
    qm = new QueueManager(kv.sub('queues'), log);
    await qm.load();
  };
  /** Simulates a process stop: the manager stops pumping and the database closes. */
  const restart = async () => {
    qm.close();
    await kv.close();
    await open();
  };
  /** Raw persisted message keys of the queue sublevel. */
  const stored = async (kind: 'm' | 'd') => {
    const out: QueueMessage[] = [];
    for await (const [, v] of kv.sub('queues').scanPrefix(`${kind}\x00`)) out.push(JSON.parse(v.toString()));
    return out;
  };

  beforeEach(async () => {
    dir = tempDir('ctx-queue-');
    await open();
  });
  afterEach(async () => {
    qm.close();
    await kv.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('consumes every message once, in order, with at most `concurrency` in flight', async () => {
    const gates = new Map<number, ReturnType<typeof gate>>();
    const started: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    for (let i = 0; i < 10; i++) expect(await qm.enqueue('Work', { n: i })).toBe(true);
    qm.consume<{ n: number }>(
      'Work',
      async (msg) => {
        started.push(msg.payload.n);
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        const g = gate();
        gates.set(msg.payload.n, g);
        await g.promise;
        inFlight--;
      },
      { concurrency: 3 },
    );
    await settle();
    expect(started).toEqual([0, 1, 2]);
    expect(qm.stats().Work).toMatchObject({ pending: 10, in_flight: 3, processed: 0 });
    gates.get(1)!.open();
    await until(() => started.length === 4, 'a fourth message starts');
    expect(started).toEqual([0, 1, 2, 3]);
    for (let n = 0; n < 10; n++) {
      await until(() => gates.has(n), `message ${n} started`);
      gates.get(n)!.open();
    }
    expect(await qm.waitIdle()).toBe(true);
    expect(maxInFlight).toBe(3);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(qm.stats().Work).toMatchObject({ processed: 10, requeue_count: 0, error_count: 0, errors: [], pending: 0, in_flight: 0, dead_letter: 0 });
    expect(await stored('m')).toEqual([]);
  });

  it('a queue has one consumer; hasConsumer and declared names', () => {
    qm.declare('Embedding');
    expect(qm.hasConsumer('Embedding')).toBe(false);
    qm.consume('Embedding', async () => {});
    expect(qm.hasConsumer('Embedding')).toBe(true);
    expect(() => qm.consume('Embedding', async () => {})).toThrow(/already has a consumer/);
    expect(qm.names()).toContain('Embedding');
    expect(qm.hasConsumer('Nope')).toBe(false);
  });

  it('dedupe: a pending message with the same key absorbs new ones; once in flight, a new one is queued', async () => {
    expect(await qm.enqueue('D', { v: 1 }, { dedupeKey: 'acme:a.md' })).toBe(true);
    expect(await qm.enqueue('D', { v: 2 }, { dedupeKey: 'acme:a.md' })).toBe(false);
    expect(await qm.enqueue('D', { v: 3 }, { dedupeKey: 'acme:b.md' })).toBe(true);
    expect(qm.stats().D!.pending).toBe(2);
    expect((await stored('m')).map((m) => m.payload)).toEqual([{ v: 1 }, { v: 3 }]);
    const g = gate();
    const seen: unknown[] = [];
    qm.consume('D', async (m) => {
      seen.push(m.payload);
      if (seen.length === 1) await g.promise;
    });
    await settle();
    // The first message is being processed: a change now must be processed again afterwards.
    expect(await qm.enqueue('D', { v: 4 }, { dedupeKey: 'acme:a.md' })).toBe(true);
    g.open();
    await qm.waitIdle();
    expect(seen).toEqual([{ v: 1 }, { v: 3 }, { v: 4 }]);
  });

  it('prepare: the message is written by the caller in its own batch and runs after activate', async () => {
    const seen: unknown[] = [];
    qm.consume('P', async (m) => void seen.push(m.payload));
    const side = kv.sub('side');
    const p1 = qm.prepare('P', { file: 'a' }, { dedupeKey: 'a' })!;
    // A second prepare for the same key before the batch commits coalesces into the first.
    expect(qm.prepare('P', { file: 'a' }, { dedupeKey: 'a' })).toBeNull();
    await kv.batch([side.putOp('file:a', 'content'), ...p1.ops]);
    p1.activate();
    await qm.waitIdle();
    expect(seen).toEqual([{ file: 'a' }]);
    expect((await side.get('file:a'))!.toString()).toBe('content');
  });

  it('a failing message is requeued with backoff, then succeeds; counts reflect it', async () => {
    let calls = 0;
    qm.consume(
      'R',
      async (m) => {
        calls++;
        if (m.attempts < 2) throw new Error(`transient ${m.attempts}`);
      },
      { maxAttempts: 5, backoffMs: 1 },
    );
    await qm.enqueue('R', { x: 1 });
    await qm.waitIdle();
    expect(calls).toBe(3);
    expect(qm.stats().R).toMatchObject({ processed: 1, requeue_count: 2, error_count: 0, dead_letter: 0, pending: 0 });
  });

  it('a poison message gets bounded retries, its sanitized error is recorded and it is dead-lettered', async () => {
    let calls = 0;
    qm.consume(
      'Embedding',
      async () => {
        calls++;
        throw new Error('embedding API said no: Authorization: Bearer sk-abcdefghijklmnop api_key=hunter2');
      },
      { maxAttempts: 3, backoffMs: 1 },
    );
    await qm.enqueue('Embedding', { account: 'acme', path: 'resources/p.md', level: 2, op: 'upsert' });
    expect(await qm.waitIdle()).toBe(true);
    await settle();
    expect(calls).toBe(3);
    const st = qm.stats().Embedding!;
    expect(st).toMatchObject({ processed: 0, requeue_count: 2, error_count: 1, dead_letter: 1, pending: 0, in_flight: 0 });
    expect(st.errors).toHaveLength(1);
    expect(st.errors[0]).toMatch(/^Embedding#\d+: embedding API said no/);
    expect(st.errors[0]).not.toMatch(/sk-abc|hunter2/);
    const dead = await stored('d');
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ attempts: 3, queue: 'Embedding' });
    expect(dead[0]!.lastError).toContain('[redacted]');
    expect(await stored('m')).toEqual([]);
    expect(await qm.matching(touchesPath('acme', 'resources'))).toEqual({ pending: 0, dead: 1 });
    // No endless loop: nothing is scheduled any more.
    await new Promise((r) => setTimeout(r, 30));
    expect(calls).toBe(3);
  });

  it('retryDead moves matching dead letters back with a fresh attempt budget', async () => {
    let healthy = false;
    const seen: unknown[] = [];
    qm.consume(
      'Semantic',
      async (m) => {
        if (!healthy) throw new Error('down');
        seen.push(m.payload);
      },
      { maxAttempts: 1, backoffMs: 1 },
    );
    await qm.enqueue('Semantic', { account: 'acme', path: 'a/1' });
    await qm.enqueue('Semantic', { account: 'acme', path: 'b/2' });
    await qm.waitIdle();
    expect(qm.stats().Semantic).toMatchObject({ dead_letter: 2, error_count: 2, requeue_count: 0 });
    healthy = true;
    expect(await qm.retryDead(touchesPath('acme', 'a'))).toEqual({ retried: 1, failed: 0 });
    await qm.waitIdle();
    expect(seen).toEqual([{ account: 'acme', path: 'a/1' }]);
    expect(qm.stats().Semantic).toMatchObject({ dead_letter: 1, processed: 1 });
    expect((await stored('d')).map((m) => m.payload)).toEqual([{ account: 'acme', path: 'b/2' }]);
    expect(await qm.retryDead(() => false)).toEqual({ retried: 0, failed: 0 });
  });

  it('messages survive a restart: pending, in flight (redelivered) and dead letters; sequence numbers keep growing', async () => {
    for (let i = 0; i < 4; i++) await qm.enqueue('Semantic', { i });
    const g = gate();
    const first: number[] = [];
    qm.consume<{ i: number }>(
      'Semantic',
      async (m) => {
        first.push(m.payload.i);
        await g.promise; // never acknowledged before the "crash"
      },
      { concurrency: 2 },
    );
    await settle();
    expect(first).toEqual([0, 1]);
    await qm.enqueue('Poison', { bad: true });
    let poisonCalls = 0;
    qm.consume(
      'Poison',
      async () => {
        poisonCalls++;
        throw new Error('always');
      },
      { maxAttempts: 1 },
    );
    await until(() => qm.stats().Poison?.dead_letter === 1, 'poison dead-lettered');
    const semantic = async () => (await stored('m')).filter((m) => m.queue === 'Semantic').map((m) => m.seq);
    const seqBefore = await semantic();
    expect(seqBefore).toHaveLength(4);
    await restart();

    expect(qm.stats().Semantic).toMatchObject({ pending: 4, in_flight: 0 });
    expect(qm.stats().Poison).toMatchObject({ pending: 0, dead_letter: 1 });
    expect(qm.countPending(() => true, ['Semantic'])).toBe(4);
    expect(await qm.enqueue('Semantic', { i: 4 })).toBe(true);
    const seqs = await semantic();
    expect(seqs.slice(0, 4)).toEqual(seqBefore);
    expect(seqs[4]).toBeGreaterThan(Math.max(...seqBefore, ...(await stored('d')).map((m) => m.seq)));
    const second: number[] = [];
    qm.consume<{ i: number }>('Semantic', async (m) => void second.push(m.payload.i));
    await qm.waitIdle();
    expect(second).toEqual([0, 1, 2, 3, 4]); // at-least-once: 0 and 1 were in flight at the stop
    expect(await stored('m')).toEqual([]);
    expect(poisonCalls).toBe(1);
    g.open();
  });

  it('a requeued message keeps its attempt count across a restart (the retry budget is not reset)', async () => {
    let calls = 0;
    qm.consume(
      'X',
      async () => {
        calls++;
        throw new Error('fails');
      },
      { maxAttempts: 4, backoffMs: 100 },
    );
    await qm.enqueue('X', { k: 1 });
    // in_flight drops only after the requeued message was written back with its attempt count.
    await until(() => qm.stats().X!.requeue_count >= 1 && qm.stats().X!.in_flight === 0, 'first failure recorded');
    qm.close();
    const persisted = (await stored('m'))[0]!;
    expect(persisted.attempts).toBe(calls);
    expect(persisted.lastError).toBe('fails');
    expect(calls).toBeLessThan(4);
    await kv.close();
    await open();
    let after = 0;
    qm.consume(
      'X',
      async () => {
        after++;
        throw new Error('still fails');
      },
      { maxAttempts: 4, backoffMs: 1 },
    );
    await qm.waitIdle();
    expect(after).toBe(4 - calls); // the remaining attempts only, then dead-lettered
    expect(qm.stats().X).toMatchObject({ dead_letter: 1, error_count: 1 });
    expect((await stored('d'))[0]).toMatchObject({ attempts: 4, lastError: 'still fails' });
  });

  it('a message failing while the manager stops is not dead-lettered: it is pending again after the restart', async () => {
    const g = gate();
    qm.consume('S', async () => g.promise, { maxAttempts: 1 });
    await qm.enqueue('S', { v: 1 });
    await settle();
    expect(qm.stats().S!.in_flight).toBe(1);
    qm.close();
    g.fail(new Error('aborted by shutdown'));
    for (let i = 0; i < 10; i++) await settle();
    expect(await stored('d')).toEqual([]);
    expect((await stored('m')).map((m) => [m.payload, m.attempts])).toEqual([[{ v: 1 }, 0]]);
    await kv.close();
    await open();
    const seen: unknown[] = [];
    qm.consume('S', async (m) => void seen.push(m.payload));
    await qm.waitIdle();
    expect(seen).toEqual([{ v: 1 }]);
    expect(qm.stats().S).toMatchObject({ dead_letter: 0, processed: 1 });
  });

  it('waitIdle, waitFor and touchesPath', async () => {
    const g = gate();
    qm.consume('Semantic', async () => g.promise);
    qm.declare('Embedding'); // no consumer: not awaited by waitIdle
    await qm.enqueue('Embedding', { account: 'acme', path: 'resources/docs/x.md', level: 2, op: 'upsert' });
    expect(qm.isIdle()).toBe(true);
    await qm.enqueue('Semantic', { account: 'acme', path: 'resources/docs/a.md', kind: 'file', op: 'upsert' });
    expect(qm.isIdle()).toBe(false);
    expect(await qm.waitIdle(20)).toBe(false);
    expect(await qm.waitFor(touchesPath('acme', 'resources/docs'), ['Semantic'], 20)).toBe(false);
    // Other paths, accounts and queues are not waited for.
    expect(await qm.waitFor(touchesPath('acme', 'resources/doc'), ['Semantic'], 1000)).toBe(true);
    expect(await qm.waitFor(touchesPath('other', 'resources/docs'), ['Semantic'], 1000)).toBe(true);
    expect(qm.countPending(touchesPath('acme', 'resources/docs'))).toBe(2);
    expect(qm.countPending(touchesPath('acme', 'resources/docs'), ['Embedding'])).toBe(1);
    const idle = qm.waitIdle();
    const forDocs = qm.waitFor(touchesPath('acme', 'resources/docs'), ['Semantic']);
    g.open();
    expect(await idle).toBe(true);
    expect(await forDocs).toBe(true);
    expect(qm.countPending(() => true, ['Embedding'])).toBe(1);
  });

  it('touchesPath matches the path itself and its subtree on segment boundaries, per account', () => {
    const t = touchesPath('acme', 'resources/docs');
    expect(t({ account: 'acme', path: 'resources/docs' })).toBe(true);
    expect(t({ account: 'acme', path: 'resources/docs/a/b.md' })).toBe(true);
    expect(t({ account: 'acme', path: 'resources/docs2' })).toBe(false);
    expect(t({ account: 'acme', path: 'resources' })).toBe(false);
    expect(t({ account: 'globex', path: 'resources/docs' })).toBe(false);
    expect(t(null)).toBe(false);
    expect(t({ account: 'acme' })).toBe(false);
    expect(touchesPath('acme', '')({ account: 'acme', path: 'anything' })).toBe(true);
  });

  it('cancelOwned drops pending messages of a task (also on disk) and reports those still in flight', async () => {
    const g = gate();
    const seen: unknown[] = [];
    for (let i = 0; i < 3; i++) await qm.enqueue('T', { i }, { taskId: 'task-1' });
    await qm.enqueue('T', { other: true }, { taskId: 'task-2' });
    await qm.enqueue('T', { free: true });
    qm.consume('T', async (m) => {
      seen.push(m.payload);
      if (seen.length === 1) await g.promise;
    });
    await settle();
    expect(qm.ownedCount('task-1')).toBe(3);
    expect(await qm.cancelOwned('task-1')).toBe(1); // message 0 is in flight
    expect(qm.ownedCount('task-1')).toBe(1);
    expect((await stored('m')).map((m) => m.payload)).toEqual([{ i: 0 }, { other: true }, { free: true }]);
    g.open();
    await qm.waitIdle();
    expect(seen).toEqual([{ i: 0 }, { other: true }, { free: true }]);
    expect(qm.ownedCount('task-1')).toBe(0);
    expect(await qm.cancelOwned('task-1')).toBe(0);
  });

  it('after cancelOwned, the task can add no work, and its in-flight message is dropped instead of retried', async () => {
    const g = gate();
    const seen: unknown[] = [];
    await qm.enqueue('T', { i: 0 }, { taskId: 'task-1' });
    qm.consume(
      'T',
      async (m) => {
        seen.push(m.payload);
        if ((m.payload as { i?: number }).i === 0) {
          await g.promise;
          throw new Error('upstream failed'); // would be retried if the task were still live
        }
      },
      { backoffMs: 1 },
    );
    await settle();
    expect(await qm.cancelOwned('task-1')).toBe(1);
    expect(qm.isBlocked('task-1')).toBe(true);
    expect(await qm.enqueue('T', { i: 1 }, { taskId: 'task-1' })).toBe(false);
    expect(qm.prepare('T', { i: 2 }, { taskId: 'task-1' })).toBeNull();
    expect(await qm.enqueue('T', { other: true }, { taskId: 'task-2' })).toBe(true);
    g.open();
    await qm.waitIdle();
    expect(seen).toEqual([{ i: 0 }, { other: true }]);
    expect(qm.stats().T).toMatchObject({ pending: 0, processed: 1, dead_letter: 0 });
    expect(await stored('m')).toEqual([]);
    qm.unblock('task-1');
    expect(await qm.enqueue('T', { i: 3 }, { taskId: 'task-1' })).toBe(true);
  });

  it('a cancelled task blocked before consumers start: its messages left on disk are deleted, never delivered', async () => {
    const g = gate();
    await qm.enqueue('T', { i: 0 }, { taskId: 'task-1' });
    await qm.enqueue('T', { i: 1 }, { taskId: 'task-1' });
    await qm.enqueue('T', { free: true });
    qm.consume('T', async () => g.promise);
    await settle();
    await restart(); // message 0 was in flight: it is still on disk
    expect(qm.ownedCount('task-1')).toBe(2);
    expect(await qm.cancelOwned(['task-1', 'task-9'])).toBe(0);
    expect((await stored('m')).map((m) => m.payload)).toEqual([{ free: true }]);
    const seen: unknown[] = [];
    qm.consume('T', async (m) => void seen.push(m.payload));
    await qm.waitIdle();
    expect(seen).toEqual([{ free: true }]);
    g.open();
  });

  it('sanitizeError redacts credentials and caps the length at 500', () => {
    expect(sanitizeError(new Error('Bearer abc.def token=xyz password: "p4ss" sk-0123456789abcdef'))).toBe('Bearer [redacted] token=[redacted] password: "[redacted]" [redacted]');
    expect(sanitizeError('x'.repeat(2000))).toHaveLength(500);
    expect(sanitizeError(42)).toBe('42');
  });
});
