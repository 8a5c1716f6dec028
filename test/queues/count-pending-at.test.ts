/**
 * QueueManager.countPendingAt / countPendingBelow / countPendingChildren: the path indexes stay in
 * step with the pending messages (checked against a scan of them).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../runtime/logger.js';
import { QueueManager } from '../../runtime/queues/queue.js';
import { MemoryBackend } from '../../runtime/storage/memory.js';
import { Kv } from '../../runtime/storage/kv.js';
import { concerns } from '../../plugins/semantic/indexing-status.js';

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
  it('counts below a directory and its children as a scan of the pending messages would', async () => {
    const { qm } = await manager();
    const paths = ['', 'resources', 'resources/a', 'resources/a/x.md', 'resources/a/b/y.md', 'resources/a/b/y.md', 'resources/ab/z.md', 'memories/m.md'];
    for (const p of paths) await qm.enqueue('Semantic', { account: 'a', path: p });
    await qm.enqueue('Embedding', { account: 'a', path: 'resources/a/q.md' });
    await qm.enqueue('Semantic', { account: 'b', path: 'resources/a/x.md' });
    const parent = (p: string) => (p.lastIndexOf('/') > 0 ? p.slice(0, p.lastIndexOf('/')) : '');
    const check = () => {
      for (const dir of ['', 'resources', 'resources/a', 'resources/a/b', 'resources/ab', 'memories', 'nothing']) {
        const path = (p: unknown) => (p as { account?: string; path?: string }).path!;
        const mine = (p: unknown) => (p as { account?: string }).account === 'a';
        const below = (p: unknown) => mine(p) && path(p) !== dir && (dir === '' || path(p).startsWith(`${dir}/`));
        const child = (p: unknown) => mine(p) && path(p) !== dir && path(p) !== '' && parent(path(p)) === dir;
        expect(qm.countPendingBelow('a', dir), `below ${dir}`).toBe(qm.countPending(below));
        expect(qm.countPendingChildren('a', dir, ['Semantic']), `children ${dir}`).toBe(qm.countPending(child, ['Semantic']));
        // What an indexing report counts for a directory: itself, its ancestors, everything below.
        const lineage = [dir, ...(dir ? ['', ...dir.split('/').slice(0, -1).map((_, i, a) => a.slice(0, i + 1).join('/'))] : [])];
        expect(qm.countPendingAt('a', lineage) + qm.countPendingBelow('a', dir), `concerns ${dir}`).toBe(qm.countPending(concerns('a', dir)));
      }
    };
    check();
    expect(qm.countPendingBelow('a', 'resources/a')).toBe(4);
    expect(qm.countPendingChildren('a', 'resources/a')).toBe(2);
    // Settling messages takes them out of every index.
    qm.consume('Semantic', async () => {}, { maxAttempts: 1, backoffMs: 1 });
    expect(await qm.waitFor(() => true, ['Semantic'], 5000)).toBe(true);
    check();
    expect(qm.countPendingBelow('a', '')).toBe(1);
    expect(qm.countPendingBelow('b', '')).toBe(0);
  });
});
