/**
 * Versioned privacy configs in the plugin's own KV keyspace (spec Part 2, "Privacy configs").
 * Layout, every key scoped by account and user (configs are private to the user who set them):
 *   m\0{account}\0{user}\0{category}\0{target_key}             → Meta JSON
 *   v\0{account}\0{user}\0{category}\0{target_key}\0{version}  → Snapshot JSON (version zero-padded,
 *                                                                so a prefix scan lists them in order)
 * A new version and its meta are written in one atomic batch. Values are stored as given (unmasked);
 * nothing here logs them.
 */
import type { Kv } from 'ctx/plugin';

const S = '\x00';

export interface Snapshot {
  version: number;
  category: string;
  target_key: string;
  values: Record<string, unknown>;
  created_at: string;
  created_by: string;
  change_reason: string;
}

export interface Meta {
  category: string;
  target_key: string;
  active_version: number;
  latest_version: number;
  created_at: string;
  updated_at: string;
  updated_by: string;
  last_accessed_at: string | null;
  labels: Record<string, unknown> | null;
}

export interface Owner {
  account: string;
  user: string;
}

const pad = (v: number) => String(v).padStart(10, '0');

export class PrivacyStore {
  /** Read-modify-write of one target's meta is serialized per target (the process is the only writer). */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(private readonly kv: Kv) {}

  private metaKey(o: Owner, category: string, target: string): string {
    return `m${S}${o.account}${S}${o.user}${S}${category}${S}${target}`;
  }
  private versionPrefix(o: Owner, category: string, target: string): string {
    return `v${S}${o.account}${S}${o.user}${S}${category}${S}${target}${S}`;
  }

  /** Runs `fn` after every earlier call for the same target has settled. */
  serialized<T>(o: Owner, category: string, target: string, fn: () => Promise<T>): Promise<T> {
    const key = this.metaKey(o, category, target);
    const prev = this.chains.get(key) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => {});
    this.chains.set(key, tail);
    void tail.then(() => {
      if (this.chains.get(key) === tail) this.chains.delete(key);
    });
    return run;
  }

  async categories(o: Owner): Promise<string[]> {
    const prefix = `m${S}${o.account}${S}${o.user}${S}`;
    const out: string[] = [];
    // Keys sort by category first: skip to the key after the last target of each category.
    let after: string | undefined;
    for (;;) {
      let next: string | undefined;
      for await (const [key] of this.kv.scanPrefix(prefix, { after, limit: 1 })) next = key.slice(prefix.length).split(S)[0];
      if (next === undefined) return out;
      out.push(next);
      after = next + S + '\u{10FFFF}';
    }
  }

  async targets(o: Owner, category: string): Promise<string[]> {
    const prefix = `m${S}${o.account}${S}${o.user}${S}${category}${S}`;
    const out: string[] = [];
    for await (const [key] of this.kv.scanPrefix(prefix)) out.push(key.slice(prefix.length));
    return out;
  }

  meta(o: Owner, category: string, target: string): Promise<Meta | undefined> {
    return this.kv.getJson<Meta>(this.metaKey(o, category, target));
  }

  version(o: Owner, category: string, target: string, version: number): Promise<Snapshot | undefined> {
    return this.kv.getJson<Snapshot>(this.versionPrefix(o, category, target) + pad(version));
  }

  async versions(o: Owner, category: string, target: string): Promise<number[]> {
    const prefix = this.versionPrefix(o, category, target);
    const out: number[] = [];
    for await (const [key] of this.kv.scanPrefix(prefix)) out.push(Number(key.slice(prefix.length)));
    return out;
  }

  putMeta(o: Owner, meta: Meta): Promise<void> {
    return this.kv.putJson(this.metaKey(o, meta.category, meta.target_key), meta);
  }

  /** The new snapshot and the meta pointing at it, atomically. */
  putVersion(o: Owner, snap: Snapshot, meta: Meta): Promise<void> {
    return this.kv.batch([
      this.kv.putJsonOp(this.versionPrefix(o, snap.category, snap.target_key) + pad(snap.version), snap),
      this.kv.putJsonOp(this.metaKey(o, meta.category, meta.target_key), meta),
    ]);
  }

  /** Removes every config of an account (account deletion). */
  async dropAccount(account: string): Promise<void> {
    for (const kind of ['m', 'v']) {
      let ops = [];
      for await (const [key] of this.kv.scanPrefix(`${kind}${S}${account}${S}`)) {
        ops.push(this.kv.delOp(key));
        if (ops.length >= 1000) {
          await this.kv.batch(ops);
          ops = [];
        }
      }
      await this.kv.batch(ops);
    }
  }
}

/** Order-insensitive deep equality of JSON values (values objects are compared as sets of keys). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => sameJson(v, bb[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
