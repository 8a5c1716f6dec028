/** QueueManager.countPendingAt: the per-path index stays in step with the pending messages. */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../runtime/logger.js';
import { QueueManager } from '../../runtime/queues/queue.js';
import { MemoryBackend } from '../../runtime/storage/memory.js';
import { Kv } from '../../runtime/storage/kv.js';

const log = createLogger('silent');
let qm: QueueManager | undefined;
afterEach(() => qm?.close());

async function manager(kv?: Kv): Promise<{ qm: QueueManager; kv: Kv }> {
  const store = kv ?? (await Kv.open(new MemoryBackend()));
  const m = new QueueManager(store.sub('queues'), log);
  await m.load();
  qm = m;
  return { qm: m, kv: store };
}

describe('countPendingAt', () => {
  it('counts by exact account and path, per queue, and drops settled, dead and cancelled messages', async () => {
    const { qm } = await manager();
    await qm.enqueue('Semantic', { account: 'a', path: 'resources/x.md' });
    await qm.enqueue('Semantic', { account: 'a', path: 'resources/x.md' });
    await qm.enqueue('Semantic', { account: 'a', path: 'resources' });
    await qm.enqueue('Embedding', { account: 'a', path: 'resources/x.md' });
    await qm.enqueue('Semantic', { account: 'b', path: 'resources/x.md' });
    await qm.enqueue('Semantic', { account: 'a', path: 'resources/y.md' }, { taskId: 't1' });
    await qm.enqueue('Semantic', { other: true });
    expect(qm.countPendingAt('a', ['resources/x.md'])).toBe(3);
    expect(qm.countPendingAt('a', ['resources/x.md', 'resources', ''], ['Semantic'])).toBe(3);
    expect(qm.countPendingAt('b', ['resources/x.md'])).toBe(1);
    expect(qm.countPendingAt('a', ['resources/y.md'])).toBe(1);
    await qm.cancelOwned('t1');
    expect(qm.countPendingAt('a', ['resources/y.md'])).toBe(0);

    let fail = true;
    qm.consume('Semantic', async (msg) => {
      if (fail && (msg.payload as { path?: string }).path === 'resources') throw new Error('boom');
    }, { maxAttempts: 1, backoffMs: 1 });
    expect(await qm.waitFor(() => true, ['Semantic'], 5000)).toBe(true);
    fail = false;
    expect(qm.countPendingAt('a', ['resources/x.md', 'resources'], ['Semantic'])).toBe(0);
    expect(qm.countPendingAt('a', ['resources/x.md'], ['Embedding'])).toBe(1);
  });

  it('is rebuilt from the persisted messages after a restart', async () => {
    const first = await manager();
    await first.qm.enqueue('Semantic', { account: 'a', path: 'p' });
    await first.qm.enqueue('Semantic', { account: 'a', path: 'p' });
    first.qm.close();
    const second = await manager(first.kv);
    expect(second.qm.countPendingAt('a', ['p'])).toBe(2);
  });
});
