/**
 * The idle collection after a burst of queue work (runtime/queues/idle-gc.ts), on a real
 * QueueManager over RocksDB: it runs once the burst drained and stayed quiet, not during it, not
 * for a burst below the threshold, not when off, and garbage left by the burst is gone after it.
 */
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../runtime/logger.js';
import { startIdleGc, type IdleGc } from '../../runtime/queues/idle-gc.js';
import { QueueManager } from '../../runtime/queues/queue.js';
import { Kv } from '../../runtime/storage/kv.js';
import { RocksDbBackend } from '../../runtime/storage/rocksdb.js';
import { loadConfig } from '../../runtime/config.js';
import { tempDir } from '../helpers/app.js';

const log = createLogger('silent');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('idle GC after queue work', () => {
  let dir: string;
  let kv: Kv;
  let qm: QueueManager;
  let gc: IdleGc | undefined;
  let held: unknown[] = [];

  beforeEach(async () => {
    dir = tempDir();
    kv = await Kv.open(new RocksDbBackend(dir));
    qm = new QueueManager(kv.sub('queues'), log);
    await qm.load();
    // Each message leaves garbage behind, as parsing and embedding a file does.
    qm.consume<number>('work', async () => {
      held.push(new Array(1000).fill(0).map((_, i) => ({ i, s: `x${i}` })));
    });
  });
  afterEach(async () => {
    gc?.stop();
    gc = undefined;
    held = [];
    qm.close();
    await kv.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const burst = async (n: number) => {
    for (let i = 0; i < n; i++) await qm.enqueue('work', i);
    expect(await qm.waitIdle(10_000)).toBe(true);
  };

  it('collects once after a burst drained and stayed quiet, and the garbage is gone', async () => {
    gc = startIdleGc(qm, log, { quietMs: 100, minSettled: 20, rounds: 1 });
    await burst(30);
    const ref = new WeakRef(held[0] as object);
    held = [];
    expect(gc.runs).toBe(0);
    for (let i = 0; i < 200 && gc.runs === 0; i++) await sleep(20);
    expect(gc.runs).toBe(1);
    expect(ref.deref()).toBeUndefined();
    await sleep(300);
    expect(gc.runs).toBe(1);
  });

  it('waits while work keeps coming, and skips bursts below the threshold', async () => {
    gc = startIdleGc(qm, log, { quietMs: 1000, minSettled: 20, rounds: 1 });
    await burst(10);
    await sleep(1200);
    expect(gc.runs).toBe(0);
    // 10 + 15 settled: over the threshold, but each message re-arms the quiet period.
    for (let i = 0; i < 15; i++) {
      await burst(1);
      await sleep(30);
    }
    expect(gc.runs).toBe(0);
    for (let i = 0; i < 200 && gc.runs === 0; i++) await sleep(20);
    expect(gc.runs).toBe(1);
  });

  it('runs its rounds a quarter of the quiet period apart, then waits for the next burst', async () => {
    gc = startIdleGc(qm, log, { quietMs: 200, minSettled: 5, rounds: 3 });
    await burst(5);
    for (let i = 0; i < 200 && gc.runs < 3; i++) await sleep(20);
    expect(gc.runs).toBe(3);
    await sleep(500);
    expect(gc.runs).toBe(3);
    await burst(5);
    for (let i = 0; i < 200 && gc.runs < 6; i++) await sleep(20);
    expect(gc.runs).toBe(6);
  });

  it('is off at 0, and stop() cancels a pending collection', async () => {
    gc = startIdleGc(qm, log, { quietMs: 0, minSettled: 1 });
    await burst(5);
    await sleep(100);
    expect(gc.runs).toBe(0);
    gc.stop();
    gc = startIdleGc(qm, log, { quietMs: 100, minSettled: 1 });
    await burst(5);
    gc.stop();
    await sleep(250);
    expect(gc.runs).toBe(0);
  });

  it('is configured by CTX_IDLE_GC_MS (2000 by default; negative or fractional refused)', () => {
    expect(loadConfig({}).idleGcMs).toBe(2000);
    expect(loadConfig({ CTX_IDLE_GC_MS: '0' }).idleGcMs).toBe(0);
    expect(() => loadConfig({ CTX_IDLE_GC_MS: '-1' })).toThrow(/CTX_IDLE_GC_MS must be a non-negative integer/);
    expect(() => loadConfig({ CTX_IDLE_GC_MS: '1.5' })).toThrow(/CTX_IDLE_GC_MS must be a non-negative integer/);
  });
});
