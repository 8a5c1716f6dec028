/**
 * The account's `.ctxgitignore`: gitignore syntax, matched against paths relative to the account
 * root (`resources/tmp/`, `user/*\/sessions/`). It lives in the plugin's keyspace, not in the VFS:
 * the account root `ctx://` holds only scopes, and no URI can name a file there.
 */
import ignore from 'ignore';
import type { Kv } from 'ctx/plugin';

const S = '\x00';
export const IGNORE_LIMIT = 64 * 1024;

export interface IgnoreRules {
  ignores(path: string): boolean;
  readonly rules: number;
}

const NONE: IgnoreRules = { ignores: () => false, rules: 0 };

export function compile(text: string): IgnoreRules {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.startsWith('#'));
  if (lines.length === 0) return NONE;
  // A CommonJS module whose typings describe `default`; the package sets `default` to itself at runtime.
  const ig = ignore.default().add(lines);
  return { ignores: (p) => p !== '' && ig.ignores(p), rules: lines.length };
}

export class IgnoreStore {
  private readonly cache = new Map<string, IgnoreRules>();

  constructor(private readonly kv: Kv) {}

  private key(account: string): string {
    return `${account}${S}ignore`;
  }

  async read(account: string): Promise<string | null> {
    const v = await this.kv.get(this.key(account));
    return v === undefined ? null : v.toString('utf8');
  }

  async rules(account: string): Promise<IgnoreRules> {
    let r = this.cache.get(account);
    if (!r) this.cache.set(account, (r = compile((await this.read(account)) ?? '')));
    return r;
  }

  async write(account: string, text: string): Promise<IgnoreRules> {
    const r = compile(text);
    await this.kv.put(this.key(account), text);
    this.cache.set(account, r);
    return r;
  }

  async remove(account: string): Promise<boolean> {
    const existed = (await this.kv.get(this.key(account))) !== undefined;
    await this.kv.del(this.key(account));
    this.cache.delete(account);
    return existed;
  }

  forget(account: string): void {
    this.cache.delete(account);
  }
}
