/**
 * Path and tree locks. A path lock is exclusive on one path; a tree lock covers a path and every
 * descendant. Waiters are served in arrival order, and a waiter never overtakes an earlier waiter it
 * conflicts with, so a stream of small writes cannot starve a batch that needs the whole tree.
 */
export type LockKind = 'path' | 'tree';

export interface LockHandle {
  readonly id: number;
  readonly account: string;
  readonly path: string;
  readonly kind: LockKind;
  readonly acquiredAt: number;
  readonly owner?: string;
  release(): void;
  /** True when this lock already covers `path` (so the holder may write there without another lock). */
  covers(account: string, path: string): boolean;
}

interface Waiter {
  account: string;
  path: string;
  kind: LockKind;
  owner?: string;
  grant: (h: LockHandle) => void;
}

export function isAncestorPath(ancestor: string, path: string): boolean {
  if (ancestor === '') return true;
  return path === ancestor || (path.length > ancestor.length && path.startsWith(ancestor) && path[ancestor.length] === '/');
}

function conflicts(a: { account: string; path: string; kind: LockKind }, b: { account: string; path: string; kind: LockKind }): boolean {
  if (a.account !== b.account) return false;
  if (a.path === b.path) return true;
  return (a.kind === 'tree' && isAncestorPath(a.path, b.path)) || (b.kind === 'tree' && isAncestorPath(b.path, a.path));
}

export class LockManager {
  private nextId = 1;
  private readonly held = new Map<number, LockHandle>();
  private waiters: Waiter[] = [];
  stats = { acquired: 0, waited: 0 };

  acquire(account: string, path: string, kind: LockKind, owner?: string): Promise<LockHandle> {
    const req = { account, path, kind };
    const blocked = [...this.held.values()].some((h) => conflicts(h, req)) || this.waiters.some((w) => conflicts(w, req));
    if (!blocked) return Promise.resolve(this.grant(account, path, kind, owner));
    this.stats.waited++;
    return new Promise((resolve) => this.waiters.push({ account, path, kind, owner, grant: resolve }));
  }

  /** Takes the locks of several paths in a fixed order so two callers cannot deadlock. */
  async acquireAll(account: string, paths: string[], kind: LockKind, owner?: string): Promise<LockHandle[]> {
    const sorted = [...new Set(paths)].sort();
    const out: LockHandle[] = [];
    for (const p of sorted) out.push(await this.acquire(account, p, kind, owner));
    return out;
  }

  async withLock<T>(account: string, path: string, kind: LockKind, fn: (h: LockHandle) => Promise<T>): Promise<T> {
    const h = await this.acquire(account, path, kind);
    try {
      return await fn(h);
    } finally {
      h.release();
    }
  }

  /** True when `path` holds a lock itself or an ancestor holds a tree lock. */
  isLocked(account: string, path: string): boolean {
    for (const h of this.held.values()) {
      if (h.account !== account) continue;
      if (h.path === path || (h.kind === 'tree' && isAncestorPath(h.path, path))) return true;
    }
    return false;
  }

  list(): Array<{ account: string; path: string; kind: LockKind; owner?: string; heldMs: number }> {
    const now = Date.now();
    return [...this.held.values()].map((h) => ({ account: h.account, path: h.path, kind: h.kind, owner: h.owner, heldMs: now - h.acquiredAt }));
  }

  get waiting(): number {
    return this.waiters.length;
  }

  private grant(account: string, path: string, kind: LockKind, owner?: string): LockHandle {
    const id = this.nextId++;
    let released = false;
    const handle: LockHandle = {
      id,
      account,
      path,
      kind,
      owner,
      acquiredAt: Date.now(),
      release: () => {
        if (released) return;
        released = true;
        this.held.delete(id);
        this.drain();
      },
      covers: (acct, p) => !released && acct === account && (p === path || (kind === 'tree' && isAncestorPath(path, p))),
    };
    this.held.set(id, handle);
    this.stats.acquired++;
    return handle;
  }

  private drain(): void {
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      const blocked = [...this.held.values()].some((h) => conflicts(h, w)) || still.some((e) => conflicts(e, w));
      if (blocked) still.push(w);
      else w.grant(this.grant(w.account, w.path, w.kind, w.owner));
    }
    this.waiters = still;
  }
}
