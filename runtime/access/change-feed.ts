/**
 * Change events by account, for the subscriptions plugins open through a scoped handle
 * (`vfs.onChange`). One VFS listener serves every subscription, so a thousand open subscriptions
 * cost one map lookup per event, not a thousand listener calls (and no EventEmitter leak warnings).
 */
import type { ChangeEvent } from '../vfs/types.js';
import type { Vfs } from '../vfs/vfs.js';

export type ChangeListener = (ev: ChangeEvent) => void;

export class ChangeFeed {
  private readonly byAccount = new Map<string, Set<ChangeListener>>();
  private readonly listener = (ev: ChangeEvent) => {
    const subs = this.byAccount.get(ev.account);
    if (subs) for (const fn of [...subs]) fn(ev);
  };

  constructor(private readonly vfs: Vfs) {
    vfs.on('change', this.listener);
  }

  /** Calls `fn` with every durable change of `account` until the returned function is called. */
  subscribe(account: string, fn: ChangeListener): () => void {
    let subs = this.byAccount.get(account);
    if (!subs) this.byAccount.set(account, (subs = new Set()));
    subs.add(fn);
    return () => {
      subs.delete(fn);
      if (subs.size === 0 && this.byAccount.get(account) === subs) this.byAccount.delete(account);
    };
  }

  get size(): number {
    let n = 0;
    for (const s of this.byAccount.values()) n += s.size;
    return n;
  }

  close(): void {
    this.byAccount.clear();
    this.vfs.off('change', this.listener);
  }
}
