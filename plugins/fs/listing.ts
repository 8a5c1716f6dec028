/**
 * Sorted directory listings with a cache. `ls` pages with `offset`, sorts directories first and may
 * sort by mtime, so a page of a 100,000-entry directory cannot be served from one KV range read:
 * the full listing is read once (one prefix scan), kept in memory, and each view (hidden entries
 * shown or not, sort key, order) is derived once. Entries are dropped from the cache on the VFS
 * change event of any node in or below the directory, which the VFS emits only after the batch is
 * durable, so a cached listing never shows less than what a write acknowledged.
 */
import type { Entry } from '../../runtime/vfs/types.js';
import type { Vfs } from '../../runtime/vfs/vfs.js';
import type { ChangeEvent } from '../../runtime/vfs/types.js';
import { isAncestorPath } from '../../runtime/vfs/locks.js';

export type SortBy = 'name' | 'mtime';
export type SortOrder = 'asc' | 'desc';

export interface ViewKey {
  showHidden: boolean;
  sortBy: SortBy;
  order: SortOrder;
}

interface Cached {
  /** Name order (the KV's byte order), directories first. */
  base: Entry[];
  views: Map<string, Entry[]>;
}

const isHidden = (e: Entry) => e.name.charCodeAt(0) === 0x2e;

/** Directories first, then by `sortBy` in `order`; ties by name so pages are stable. */
export function deriveView(base: Entry[], key: ViewKey): Entry[] {
  const rows = key.showHidden ? base.slice() : base.filter((e) => !isHidden(e));
  if (key.sortBy === 'name' && key.order === 'asc') return rows;
  const rank = new Map<Entry, number>();
  rows.forEach((e, i) => rank.set(e, i));
  const dir = key.order === 'asc' ? 1 : -1;
  rows.sort((a, b) => {
    if (a.kind !== b.kind) return a.kind === 'dir' ? -1 : 1;
    if (key.sortBy === 'mtime' && a.mtime !== b.mtime) return (a.mtime - b.mtime) * dir;
    return (rank.get(a)! - rank.get(b)!) * dir;
  });
  return rows;
}

export class ListingCache {
  private readonly map = new Map<string, Cached>();
  /** Builds in flight; an invalidation deletes the token so a stale build is not stored. */
  private readonly building = new Map<string, object>();
  private total = 0;
  stats = { hits: 0, misses: 0, invalidations: 0 };

  /**
   * @param maxEntries entries kept over all cached directories (least recently used dropped first);
   *   a directory larger than this is listed from the KV on every request.
   */
  constructor(private readonly vfs: Vfs, private readonly maxEntries = 400_000) {
    vfs.on('change', (ev: ChangeEvent) => this.onChange(ev));
    vfs.on('drop', (account: string) => this.dropWhere((k) => k.startsWith(account + '\x00')));
  }

  /** Children of `dir` in name order with directories first (callers must not mutate the array). */
  async children(account: string, dir: string): Promise<Entry[]> {
    return (await this.load(account, dir)).base;
  }

  async view(account: string, dir: string, key: ViewKey): Promise<Entry[]> {
    const c = await this.load(account, dir);
    const k = `${key.showHidden ? 1 : 0}${key.sortBy}${key.order}`;
    let rows = c.views.get(k);
    if (!rows) {
      rows = deriveView(c.base, key);
      c.views.set(k, rows);
    }
    return rows;
  }

  private async load(account: string, dir: string): Promise<Cached> {
    const key = `${account}\x00${dir}`;
    const hit = this.map.get(key);
    if (hit) {
      this.stats.hits++;
      this.map.delete(key); // re-insert: Map order is the LRU order
      this.map.set(key, hit);
      return hit;
    }
    this.stats.misses++;
    const token = {};
    this.building.set(key, token);
    const all = await this.vfs.list(account, dir);
    const base = all.filter((e) => e.kind === 'dir');
    for (const e of all) if (e.kind !== 'dir') base.push(e);
    const cached: Cached = { base, views: new Map() };
    if (this.building.get(key) === token) {
      this.building.delete(key);
      if (base.length <= this.maxEntries) {
        this.map.set(key, cached);
        this.total += base.length;
        for (const [k, v] of this.map) {
          if (this.total <= this.maxEntries) break;
          this.map.delete(k);
          this.total -= v.base.length;
        }
      }
    }
    return cached;
  }

  private onChange(ev: ChangeEvent): void {
    this.invalidate(ev.account, ev.path);
    if (ev.from !== undefined) this.invalidate(ev.account, ev.from);
  }

  /** A change at `path` can alter the listing of every ancestor (parents are created implicitly) and of every directory below it. */
  private invalidate(account: string, path: string): void {
    this.stats.invalidations++;
    const prefix = account + '\x00';
    this.dropWhere((k) => {
      if (!k.startsWith(prefix)) return false;
      const dir = k.slice(prefix.length);
      return isAncestorPath(dir, path) || isAncestorPath(path, dir);
    });
  }

  private dropWhere(pred: (key: string) => boolean): void {
    for (const k of this.building.keys()) if (pred(k)) this.building.delete(k);
    for (const [k, v] of this.map)
      if (pred(k)) {
        this.map.delete(k);
        this.total -= v.base.length;
      }
  }
}
