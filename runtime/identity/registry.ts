/**
 * Accounts, users and API keys (sublevel `identity`). Keys are 32 random bytes, shown once, stored
 * only as SHA-256 (they are high-entropy, so an unsalted hash is enough and lets us look a key up by
 * its hash). A small cache keeps authenticated requests off RocksDB on the hot path.
 */
import { hash, randomBytes } from 'node:crypto';
import { conflict, invalidArgument, notFound } from '../errors.js';
import type { Kv } from '../storage/kv.js';
import { ID_PATTERN, type Role } from './types.js';

const S = '\x00';
export const RESERVED_IDS = new Set(['memories', 'resources', 'skills', 'peers', 'privacy', 'sessions', '~']);

export interface AccountRecord {
  account_id: string;
  admin_user_id: string;
  created_at: string;
}

export interface UserRecord {
  account_id: string;
  user_id: string;
  role: Role;
  created_at: string;
  key_hash: string;
}

/** Hex SHA-256 of a key: the one-shot `crypto.hash` (no Hash object per call: authentication hashes every request's key). */
export const hashKey = (key: string): string => hash('sha256', key, 'hex');
export const newKey = () => 'ctx_' + randomBytes(32).toString('base64url');

export function validateId(value: string, field: string): string {
  if (!ID_PATTERN.test(value) || RESERVED_IDS.has(value))
    throw invalidArgument(`${field} must be 1-128 characters of letters, digits, '_', '-', '.', '@', starting with a letter or digit, and not a reserved word`, { field });
  return value;
}

export class IdentityRegistry {
  /**
   * Key hash → user (null: no such key), filled by lookups and dropped for a user whenever its
   * record, role or key changes here (`deleteUser`, `setRole`, `rotateKey`, `deleteAccount`). Holds
   * hashes only: a raw key lives no longer than the request that presented it.
   */
  private readonly cache = new Map<string, UserRecord | null>();
  private readonly rootHash: string | undefined;

  constructor(private readonly kv: Kv, rootKey: string | undefined) {
    this.rootHash = rootKey ? hashKey(rootKey) : undefined;
  }

  /** Constant-time comparison (of fixed-length digests) of a presented key with the ROOT key. */
  isRootKey(key: string): boolean {
    return this.isRootHash(hashKey(key));
  }

  /**
   * Whether `keyHash` (from `hashKey`) is the ROOT key's, compared in constant time: no early exit
   * on the first differing digit, so response timing tells nothing about the ROOT key's hash.
   */
  isRootHash(keyHash: string): boolean {
    const root = this.rootHash;
    if (root === undefined || keyHash.length !== root.length) return false;
    let diff = 0;
    for (let i = 0; i < root.length; i++) diff |= keyHash.charCodeAt(i) ^ root.charCodeAt(i);
    return diff === 0;
  }

  /** Forgets cached key lookups: for a change written below the registry (a replicated record). */
  dropCaches(): void {
    this.cache.clear();
  }

  /** The cached answer of `userByHash`, without a promise: undefined when not cached. */
  cachedUserByHash(keyHash: string): UserRecord | null | undefined {
    return this.cache.get(keyHash);
  }

  userByKey(key: string): Promise<UserRecord | null> {
    return this.userByHash(hashKey(key));
  }

  /** The user whose key hashes to `h` (`hashKey`), or null. */
  async userByHash(h: string): Promise<UserRecord | null> {
    const cached = this.cache.get(h);
    if (cached !== undefined) return cached;
    const ref = await this.kv.getJson<{ account_id: string; user_id: string }>(`k${S}${h}`);
    const user = ref ? ((await this.getUser(ref.account_id, ref.user_id)) ?? null) : null;
    // The stored hash must still match: a rotated key's old lookup entry is deleted, this guards races.
    const valid = user && user.key_hash === h ? user : null;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(h, valid);
    return valid;
  }

  getAccount(accountId: string): Promise<AccountRecord | undefined> {
    return this.kv.getJson<AccountRecord>(`a${S}${accountId}`);
  }

  async listAccounts(): Promise<AccountRecord[]> {
    const out: AccountRecord[] = [];
    for await (const [, v] of this.kv.scanPrefix(`a${S}`)) out.push(JSON.parse(v.toString('utf8')) as AccountRecord);
    return out;
  }

  getUser(accountId: string, userId: string): Promise<UserRecord | undefined> {
    return this.kv.getJson<UserRecord>(`u${S}${accountId}${S}${userId}`);
  }

  async listUsers(accountId: string): Promise<UserRecord[]> {
    const out: UserRecord[] = [];
    for await (const [, v] of this.kv.scanPrefix(`u${S}${accountId}${S}`)) out.push(JSON.parse(v.toString('utf8')) as UserRecord);
    return out;
  }

  async createAccount(accountId: string, adminUserId: string): Promise<{ account: AccountRecord; key: string }> {
    validateId(accountId, 'account_id');
    validateId(adminUserId, 'admin_user_id');
    if (await this.getAccount(accountId)) throw conflict(`account exists: ${accountId}`, accountId);
    const account: AccountRecord = { account_id: accountId, admin_user_id: adminUserId, created_at: new Date().toISOString() };
    const key = newKey();
    const user: UserRecord = { account_id: accountId, user_id: adminUserId, role: 'ADMIN', created_at: account.created_at, key_hash: hashKey(key) };
    await this.kv.batch([
      this.kv.putJsonOp(`a${S}${accountId}`, account),
      this.kv.putJsonOp(`u${S}${accountId}${S}${adminUserId}`, user),
      this.kv.putJsonOp(`k${S}${user.key_hash}`, { account_id: accountId, user_id: adminUserId }),
    ]);
    return { account, key };
  }

  /**
   * Creates account `accountId` on the first start of a data dir and never again: the ROOT key acts
   * in `default` unless told otherwise, and the reference product's admin flows (register a user
   * in `default`, set its role, rotate its key) expect that account to exist without being created.
   * A marker, not the account itself, records that this ran, so an account ROOT deleted stays deleted.
   */
  async ensureInitialAccount(accountId: string, adminUserId: string): Promise<void> {
    const marker = `init${S}${accountId}`;
    if (await this.kv.getJson(marker)) return;
    const ops = [this.kv.putJsonOp(marker, { created_at: new Date().toISOString() })];
    if (!(await this.getAccount(accountId)))
      ops.push(this.kv.putJsonOp(`a${S}${accountId}`, { account_id: accountId, admin_user_id: adminUserId, created_at: new Date().toISOString() }));
    await this.kv.batch(ops);
  }

  /** Ensures an account record exists (trusted and dev modes create accounts on first use). */
  async ensureAccount(accountId: string, adminUserId: string): Promise<void> {
    if (await this.getAccount(accountId)) return;
    await this.kv.putJson(`a${S}${accountId}`, { account_id: accountId, admin_user_id: adminUserId, created_at: new Date().toISOString() });
  }

  async deleteAccount(accountId: string): Promise<number> {
    if (!(await this.getAccount(accountId))) throw notFound(`account not found: ${accountId}`, { account_id: accountId });
    const users = await this.listUsers(accountId);
    const ops = [this.kv.delOp(`a${S}${accountId}`)];
    for (const u of users) ops.push(this.kv.delOp(`u${S}${accountId}${S}${u.user_id}`), this.kv.delOp(`k${S}${u.key_hash}`));
    await this.kv.batch(ops);
    this.cache.clear();
    return users.length;
  }

  async createUser(accountId: string, userId: string, role: Role): Promise<{ user: UserRecord; key: string }> {
    validateId(userId, 'user_id');
    if (role === 'ROOT') throw invalidArgument('role must be ADMIN or USER', { field: 'role' });
    if (!(await this.getAccount(accountId))) throw notFound(`account not found: ${accountId}`, { account_id: accountId });
    if (await this.getUser(accountId, userId)) throw conflict(`user exists: ${userId}`, userId);
    const key = newKey();
    const user: UserRecord = { account_id: accountId, user_id: userId, role, created_at: new Date().toISOString(), key_hash: hashKey(key) };
    await this.kv.batch([
      this.kv.putJsonOp(`u${S}${accountId}${S}${userId}`, user),
      this.kv.putJsonOp(`k${S}${user.key_hash}`, { account_id: accountId, user_id: userId }),
    ]);
    return { user, key };
  }

  private async requireUser(accountId: string, userId: string): Promise<UserRecord> {
    const u = await this.getUser(accountId, userId);
    if (!u) throw notFound(`user not found: ${userId}`, { account_id: accountId, user_id: userId });
    return u;
  }

  async deleteUser(accountId: string, userId: string): Promise<void> {
    const u = await this.requireUser(accountId, userId);
    await this.kv.batch([this.kv.delOp(`u${S}${accountId}${S}${userId}`), this.kv.delOp(`k${S}${u.key_hash}`)]);
    this.cache.delete(u.key_hash);
  }

  async setRole(accountId: string, userId: string, role: Role): Promise<UserRecord> {
    if (role === 'ROOT') throw invalidArgument('role must be ADMIN or USER', { field: 'role' });
    const u = await this.requireUser(accountId, userId);
    const next = { ...u, role };
    await this.kv.putJson(`u${S}${accountId}${S}${userId}`, next);
    this.cache.delete(u.key_hash);
    return next;
  }

  async rotateKey(accountId: string, userId: string): Promise<string> {
    const u = await this.requireUser(accountId, userId);
    const key = newKey();
    const next = { ...u, key_hash: hashKey(key) };
    await this.kv.batch([
      this.kv.delOp(`k${S}${u.key_hash}`),
      this.kv.putJsonOp(`u${S}${accountId}${S}${userId}`, next),
      this.kv.putJsonOp(`k${S}${next.key_hash}`, { account_id: accountId, user_id: userId }),
    ]);
    this.cache.delete(u.key_hash);
    return key;
  }
}
