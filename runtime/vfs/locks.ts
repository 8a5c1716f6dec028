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

/** One queued request; acquireAll queues all its paths as one request, granted together. */
interface Waiter {
  account: string;
  paths: string[];
  kind: LockKind;
  owner?: string;
  grant: (hs: LockHandle[]) => void;
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
    return this.request(account, [path], kind, owner).then((hs) => hs[0]!);
  }

  /**
   * Takes the locks of several paths at once, as one queued request: holding some paths while
   * queueing for the others would deadlock against an earlier waiter that needs both (a tree lock
   * queued between the two steps waits for the first path and blocks the second).
   */
  acquireAll(account: string, paths: string[], kind: LockKind, owner?: string): Promise<LockHandle[]> {
    return this.request(account, [...new Set(paths)].sort(), kind, owner);
  }

  private request(account: string, paths: string[], kind: LockKind, owner?: string): Promise<LockHandle[]> {
    const w = { account, paths, kind, owner };
    if (!this.blocked(w, this.waiters)) return Promise.resolve(paths.map((p) => this.grant(account, p, kind, owner)));
    this.stats.waited++;
    return new Promise((resolve) => this.waiters.push({ ...w, grant: resolve }));
  }

  /** Whether a request conflicts with a held lock or with a request queued before it. */
  private blocked(w: Omit<Waiter, 'grant'>, earlier: Waiter[]): boolean {
    return w.paths.some((path) => {
      const req = { account: w.account, path, kind: w.kind };
      for (const h of this.held.values()) if (conflicts(h, req)) return true;
      return earlier.some((e) => e.paths.some((p) => conflicts({ account: e.account, path: p, kind: e.kind }, req)));
    });
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
      if (this.blocked(w, still)) still.push(w);
      else w.grant(w.paths.map((p) => this.grant(w.account, p, w.kind, w.owner)));
    }
    this.waiters = still;
  }
}
