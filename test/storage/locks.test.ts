import { describe, expect, it } from 'vitest';
import { LockManager, isAncestorPath, type LockHandle, type LockKind } from '../../runtime/vfs/locks.js';

/** Lets every granted lock's promise continuation run (grants happen synchronously on release). */
const settle = () => new Promise((r) => setImmediate(r));

/** Requests a lock and records when it is granted, without awaiting it. */
function track(lm: LockManager, path: string, kind: LockKind, log?: string[], account = 'acme') {
  const t: { handle?: LockHandle; granted: boolean; promise: Promise<LockHandle> } = { granted: false } as never;
  t.promise = lm.acquire(account, path, kind).then((h) => {
    t.handle = h;
    t.granted = true;
    log?.push(`${kind}:${path}`);
    return h;
  });
  return t;
}

describe('isAncestorPath', () => {
  it('matches the path itself and descendants on segment boundaries only', () => {
    expect(isAncestorPath('', 'anything')).toBe(true);
    expect(isAncestorPath('a', 'a')).toBe(true);
    expect(isAncestorPath('a', 'a/b/c')).toBe(true);
    expect(isAncestorPath('a', 'ab')).toBe(false);
    expect(isAncestorPath('a/b', 'a')).toBe(false);
  });
});

describe('LockManager conflicts', () => {
  it('path locks: same path conflicts, different paths (even parent/child) do not', async () => {
    const lm = new LockManager();
    const a = await lm.acquire('acme', 'r/a', 'path');
    const same = track(lm, 'r/a', 'path');
    const child = track(lm, 'r/a/b', 'path');
    const parent = track(lm, 'r', 'path');
    await settle();
    expect(same.granted).toBe(false);
    expect(child.granted).toBe(true);
    expect(parent.granted).toBe(true);
    a.release();
    await settle();
    expect(same.granted).toBe(true);
  });

  it('a tree lock covers its subtree but not siblings that share a name prefix', async () => {
    const lm = new LockManager();
    const tree = await lm.acquire('acme', 'r/a', 'tree');
    const inside = track(lm, 'r/a/x/y', 'path');
    const itself = track(lm, 'r/a', 'path');
    const sibling = track(lm, 'r/ab', 'path');
    const ancestorPath = track(lm, 'r', 'path');
    const ancestorTree = track(lm, 'r', 'tree');
    await settle();
    expect([inside.granted, itself.granted, ancestorTree.granted]).toEqual([false, false, false]);
    expect(sibling.granted).toBe(true);
    expect(ancestorPath.granted).toBe(true); // a path lock on `r` is only about `r` itself
    expect(tree.covers('acme', 'r/a/x')).toBe(true);
    expect(tree.covers('acme', 'r/ab')).toBe(false);
    expect(tree.covers('other', 'r/a')).toBe(false);
    tree.release();
    await settle();
    expect(inside.granted && itself.granted).toBe(true);
    ancestorPath.handle!.release();
    await settle();
    expect(ancestorTree.granted).toBe(false); // inside, itself and sibling still hold paths below r
    inside.handle!.release();
    itself.handle!.release();
    await settle();
    expect(ancestorTree.granted).toBe(false);
    sibling.handle!.release();
    await settle();
    expect(ancestorTree.granted).toBe(true);
  });

  it('a path lock held below blocks a tree lock above; the root tree lock covers the whole account only', async () => {
    const lm = new LockManager();
    const deep = await lm.acquire('acme', 'r/a/b/c', 'path');
    const tree = track(lm, 'r/a', 'tree');
    const root = track(lm, '', 'tree');
    const otherAccount = track(lm, '', 'tree', undefined, 'globex');
    await settle();
    expect(tree.granted).toBe(false);
    expect(root.granted).toBe(false);
    expect(otherAccount.granted).toBe(true);
    deep.release();
    await settle();
    expect(tree.granted).toBe(true);
    expect(root.granted).toBe(false); // queued after `tree` and conflicting with it
    tree.handle!.release();
    await settle();
    expect(root.granted).toBe(true);
  });

  it('release is idempotent and a released handle covers nothing', async () => {
    const lm = new LockManager();
    const h = await lm.acquire('acme', 'p', 'tree');
    h.release();
    h.release();
    expect(h.covers('acme', 'p')).toBe(false);
    const again = await lm.acquire('acme', 'p', 'tree');
    const waiting = track(lm, 'p/x', 'path');
    h.release(); // must not release `again`
    await settle();
    expect(waiting.granted).toBe(false);
    again.release();
    await settle();
    expect(waiting.granted).toBe(true);
  });

  it('withLock releases on success and on throw', async () => {
    const lm = new LockManager();
    expect(await lm.withLock('acme', 'p', 'path', async (h) => (expect(lm.isLocked('acme', 'p')).toBe(true), h.path))).toBe('p');
    expect(lm.isLocked('acme', 'p')).toBe(false);
    await expect(lm.withLock('acme', 'p', 'tree', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(lm.isLocked('acme', 'p')).toBe(false);
    expect(lm.list()).toEqual([]);
  });

  it('isLocked: the path itself or a tree-locked ancestor, per account', async () => {
    const lm = new LockManager();
    const t = await lm.acquire('acme', 'r/a', 'tree');
    const p = await lm.acquire('acme', 's/f', 'path', 'writer');
    expect(lm.isLocked('acme', 'r/a')).toBe(true);
    expect(lm.isLocked('acme', 'r/a/b/c')).toBe(true);
    expect(lm.isLocked('acme', 'r')).toBe(false);
    expect(lm.isLocked('acme', 'r/ab')).toBe(false);
    expect(lm.isLocked('acme', 's/f')).toBe(true);
    expect(lm.isLocked('acme', 's/f/g')).toBe(false); // a path lock does not cover descendants
    expect(lm.isLocked('globex', 'r/a')).toBe(false);
    expect(lm.list().map((l) => [l.path, l.kind, l.owner])).toEqual([
      ['r/a', 'tree', undefined],
      ['s/f', 'path', 'writer'],
    ]);
    t.release();
    p.release();
    expect(lm.isLocked('acme', 'r/a/b')).toBe(false);
  });
});

describe('LockManager fairness', () => {
  it('FIFO: a stream of path locks cannot starve a tree lock waiting for the subtree', async () => {
    const lm = new LockManager();
    const log: string[] = [];
    let held = await lm.acquire('acme', 'dir/f0', 'path');
    const tree = track(lm, 'dir', 'tree', log);
    // Writers keep arriving on fresh paths below `dir` while the tree lock waits.
    const stream = Array.from({ length: 20 }, (_, i) => track(lm, `dir/f${i + 1}`, 'path', log));
    const unrelated = track(lm, 'elsewhere/x', 'path', log);
    await settle();
    expect(tree.granted).toBe(false);
    expect(stream.some((s) => s.granted)).toBe(false); // nobody overtakes the earlier tree waiter
    expect(unrelated.granted).toBe(true); // ...but non-conflicting work is not held up
    expect(lm.waiting).toBe(21);
    held.release();
    await settle();
    expect(tree.granted).toBe(true);
    expect(stream.some((s) => s.granted)).toBe(false);
    tree.handle!.release();
    await settle();
    expect(stream.every((s) => s.granted)).toBe(true);
    expect(log.slice(0, 2)).toEqual(['path:elsewhere/x', 'tree:dir']);
    held = stream[0]!.handle!;
    for (const s of stream) s.handle!.release();
    expect(lm.list().map((l) => l.path)).toEqual(['elsewhere/x']);
  });

  it('waiters on the same path are served in arrival order', async () => {
    const lm = new LockManager();
    const log: string[] = [];
    const first = await lm.acquire('acme', 'p', 'path');
    const ws = ['path', 'tree', 'path', 'tree'].map((k) => track(lm, 'p', k as LockKind, log));
    for (let i = 0; i < ws.length; i++) {
      (i === 0 ? first : ws[i - 1]!.handle!).release();
      await settle();
      expect(ws.map((w) => w.granted)).toEqual(ws.map((_, j) => j <= i));
    }
    expect(log).toEqual(['path:p', 'tree:p', 'path:p', 'tree:p']);
  });
});

describe('LockManager.acquireAll', () => {
  it('takes several paths at once; opposite argument orders do not deadlock', async () => {
    const lm = new LockManager();
    const blocker = await lm.acquire('acme', 'b', 'path');
    const one = lm.acquireAll('acme', ['a', 'b'], 'tree');
    const two = lm.acquireAll('acme', ['b', 'a'], 'tree');
    let oneDone = false;
    let twoDone = false;
    void one.then(() => (oneDone = true));
    void two.then(() => (twoDone = true));
    await settle();
    expect([oneDone, twoDone]).toEqual([false, false]);
    // While `one` waits for b it must not sit on a: it holds nothing yet.
    expect(lm.isLocked('acme', 'a')).toBe(false);
    blocker.release();
    const hs1 = await one;
    expect(hs1.map((h) => h.path)).toEqual(['a', 'b']);
    await settle();
    expect(twoDone).toBe(false);
    for (const h of hs1) h.release();
    const hs2 = await two;
    expect(hs2.map((h) => h.path)).toEqual(['a', 'b']);
    for (const h of hs2) h.release();
    expect(lm.list()).toEqual([]);
  });

  it('no deadlock when a tree lock queues between the paths of an acquireAll', async () => {
    // H holds `a`; M wants [a, b]; then W wants the whole account. If M took `a` first and then
    // queued for `b` behind W, W (waiting for `a`) and M (waiting behind W) would wait forever.
    const lm = new LockManager();
    const h = await lm.acquire('acme', 'a', 'path');
    let mDone = false;
    const m = lm.acquireAll('acme', ['a', 'b'], 'tree').then((hs) => ((mDone = true), hs));
    const w = track(lm, '', 'tree');
    await settle();
    h.release();
    await settle();
    expect(mDone).toBe(true);
    expect(w.granted).toBe(false);
    for (const x of await m) x.release();
    await settle();
    expect(w.granted).toBe(true);
    w.handle!.release();
  });

  it('overlapping paths of one request (a path and its ancestor) are granted together', async () => {
    const lm = new LockManager();
    const hs = await Promise.race([lm.acquireAll('acme', ['x/y/z', 'x'], 'tree'), new Promise<null>((r) => setTimeout(() => r(null), 1000))]);
    expect(hs?.map((h) => h.path)).toEqual(['x', 'x/y/z']);
    for (const h of hs!) h.release();
    expect(lm.isLocked('acme', 'x')).toBe(false);
  });

  it('duplicates are taken once', async () => {
    const lm = new LockManager();
    const hs = await lm.acquireAll('acme', ['p', 'p', 'q'], 'path');
    expect(hs.map((h) => h.path)).toEqual(['p', 'q']);
    for (const h of hs) h.release();
  });
});
