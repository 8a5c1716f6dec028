/**
 * Where reader lists live, per account, so a directory's `count` can leave out what lies inside
 * subtrees the caller may not read without walking the tree (spec Part 2: placeholders leak no
 * metadata). The index is a superset: every path given a reader list and not since removed or
 * moved away. Callers stat the candidates and judge the nodes themselves, so a stale entry costs
 * one stat and never changes an answer.
 *
 * Kept in the fs plugin's keyspace: `e\0{account}\0{path}` per entry and `s\0{account}` once the
 * account's entries are known to be complete. An account is loaded on first use; without the
 * marker its `ctx://resources` is walked once (data written before the index existed, or a move
 * the index could not follow because the account was not loaded).
 */
import type { KvOp } from 'ctx/plugin';
import type { Kv } from 'ctx/plugin';
import { isAncestorPath } from 'ctx/plugin';
import type { ChangeEvent } from 'ctx/plugin';
import type { Vfs } from 'ctx/plugin';
import { readAccessOf } from './access.js';

const entryKey = (account: string, path: string) => `e\x00${account}\x00${path}`;
const markerKey = (account: string) => `s\x00${account}`;

export class RestrictedIndex {
  private readonly loaded = new Map<string, Set<string>>();
  private readonly loading = new Map<string, Promise<Set<string>>>();
  /** Accounts a move touched while they were loading: their walk is repeated. */
  private readonly dirty = new Set<string>();

  constructor(
    private readonly kv: Kv,
    private readonly vfs: Vfs,
  ) {
    // Moves re-key their entries in the same batch as the move, so the index never loses one.
    vfs.onCommit((events) => this.opsFor(events));
    vfs.on('change', (ev: ChangeEvent) => this.follow(ev));
    vfs.on('drop', (account: string) => void this.forget(account));
  }

  /** Candidate restricted paths strictly below `path` (every one when `path` is ''). */
  async under(account: string, path: string): Promise<string[]> {
    const set = await this.load(account);
    const out: string[] = [];
    for (const p of set) if (p !== path && isAncestorPath(path, p)) out.push(p);
    return out;
  }

  /** Records `path` before its reader list is written: a crash in between leaves a harmless extra entry. */
  async add(account: string, path: string): Promise<void> {
    const set = await this.load(account);
    if (set.has(path)) return;
    await this.kv.put(entryKey(account, path), '');
    set.add(path);
  }

  /** Drops `path` after its reader list was cleared. */
  async remove(account: string, path: string): Promise<void> {
    const set = await this.load(account);
    if (!set.delete(path)) return;
    await this.kv.del(entryKey(account, path));
  }

  private load(account: string): Promise<Set<string>> {
    const hit = this.loaded.get(account);
    if (hit) return Promise.resolve(hit);
    let p = this.loading.get(account);
    if (!p) {
      p = this.read(account).finally(() => this.loading.delete(account));
      this.loading.set(account, p);
    }
    return p;
  }

  private async read(account: string): Promise<Set<string>> {
    let set = new Set<string>();
    const prefix = entryKey(account, '');
    for await (const [key] of this.kv.scanPrefix(prefix)) set.add(key.slice(prefix.length));
    let complete = (await this.kv.get(markerKey(account))) !== undefined;
    for (;;) {
      if (complete && !this.dirty.has(account)) break;
      this.dirty.delete(account);
      const found = new Set<string>();
      if (await this.vfs.stat(account, 'resources'))
        for await (const e of this.vfs.walk(account, 'resources')) if (readAccessOf(e)) found.add(e.path);
      if (this.dirty.has(account)) continue;
      const ops = [...set].filter((p) => !found.has(p)).map((p) => this.kv.delOp(entryKey(account, p)));
      for (const p of found) ops.push(this.kv.putOp(entryKey(account, p), ''));
      ops.push(this.kv.putOp(markerKey(account), ''));
      await this.kv.batch(ops);
      set = found;
      complete = true;
    }
    // No await between the last check and this: from here on the commit hook re-keys this account.
    this.loaded.set(account, set);
    return set;
  }

  private opsFor(events: ChangeEvent[]): KvOp[] {
    const ops: KvOp[] = [];
    for (const ev of events) {
      if (ev.type !== 'mv' && ev.type !== 'rm') continue;
      const set = this.loaded.get(ev.account);
      if (!set) {
        // Nothing known to re-key: the next load walks the account again.
        if (ev.type === 'mv') {
          ops.push(this.kv.delOp(markerKey(ev.account)));
          if (this.loading.has(ev.account)) this.dirty.add(ev.account);
        }
        continue;
      }
      const root = ev.type === 'mv' ? ev.from! : ev.path;
      for (const p of set) {
        if (!isAncestorPath(root, p)) continue;
        ops.push(this.kv.delOp(entryKey(ev.account, p)));
        if (ev.type === 'mv') {
          const dest = ev.path + p.slice(root.length);
          ops.push(this.kv.putOp(entryKey(ev.account, dest), ''));
        }
      }
    }
    return ops;
  }

  /** The in-memory set follows the durable batch (see opsFor). */
  private follow(ev: ChangeEvent): void {
    if (ev.type !== 'mv' && ev.type !== 'rm') return;
    const set = this.loaded.get(ev.account);
    if (!set) return;
    const root = ev.type === 'mv' ? ev.from! : ev.path;
    for (const p of [...set]) {
      if (!isAncestorPath(root, p)) continue;
      set.delete(p);
      if (ev.type === 'mv') set.add(ev.path + p.slice(root.length));
    }
  }

  private async forget(account: string): Promise<void> {
    this.loaded.delete(account);
    const ops = [this.kv.delOp(markerKey(account))];
    for await (const [key] of this.kv.scanPrefix(entryKey(account, ''))) ops.push(this.kv.delOp(key));
    await this.kv.batch(ops);
  }
}
