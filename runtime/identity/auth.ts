/**
 * Resolves the identity of a request once, from its headers, per auth mode:
 * - api_key: `X-API-Key` or `Authorization: Bearer`; the ROOT key may act in any account through
 *   `X-Ctx-Account`/`X-Ctx-User` (default `default`/`default`); user keys act as their own user.
 * - trusted: a gateway in front has authenticated; `X-Ctx-Account` and `X-Ctx-User` name the
 *   identity, the role comes from the user registry (USER when unregistered), ROOT key still wins.
 * - dev: no keys, loopback only; ADMIN of account `default` as user `default` unless headers say otherwise.
 */
import { CtxError } from '../errors.js';
import type { AuthMode } from '../config.js';
import { hashKey, type IdentityRegistry, type UserRecord } from './registry.js';
import { ID_PATTERN, type Identity } from './types.js';

export const DEFAULT_ACCOUNT = 'default';
export const DEFAULT_USER = 'default';

const unauthenticated = (message: string) => new CtxError('UNAUTHENTICATED', message);

export function presentedKey(headers: Record<string, string>): string | undefined {
  const key = headers['x-api-key'];
  if (key) return key;
  const auth = headers['authorization'];
  if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim();
  return undefined;
}

/**
 * Whether the request presents credentials, valid or not: a key (any mode), or the identity headers
 * in trusted mode, where they are the credentials. Elsewhere those headers only pick the account
 * and user a key acts as (or, in dev mode, the identity of a keyless request).
 */
export function credentialsSupplied(headers: Record<string, string>, mode: AuthMode): boolean {
  if (presentedKey(headers) !== undefined) return true;
  return mode === 'trusted' && (headers['x-ctx-account'] !== undefined || headers['x-ctx-user'] !== undefined);
}

function headerId(headers: Record<string, string>, name: string): string | undefined {
  const v = headers[name];
  if (v === undefined || v === '') return undefined;
  if (!ID_PATTERN.test(v)) throw new CtxError('INVALID_ARGUMENT', `header ${name} is not a valid id`, { field: name });
  return v;
}

/** Keys whose hash `Authenticator` remembers (the callers seen lately); emptied when full. */
const KEY_HASHES_MAX = 1024;

export class Authenticator {
  /**
   * The SHA-256 of keys that authenticated, by key: hashing is a one-shot OpenSSL digest per request
   * (~1.5 µs with its context set-up, 3-4% of an authenticated fs/stat's CPU under perf), while a
   * caller sends the same key every time. Only keys that resolved to an identity are kept (a flood
   * of wrong keys cannot fill it); the hash of a key never changes, and whether it still names a
   * user is the registry's cache's business (rotation and deletion invalidate there), so nothing
   * here can go stale. Those keys are already in this process's memory as request headers.
   */
  private readonly keyHashes = new Map<string, string>();

  constructor(private readonly mode: AuthMode, private readonly registry: IdentityRegistry) {}

  private remember(key: string, h: string): void {
    if (this.keyHashes.size >= KEY_HASHES_MAX) this.keyHashes.clear();
    this.keyHashes.set(key, h);
  }

  get authMode(): AuthMode {
    return this.mode;
  }

  /**
   * The request's identity. Synchronous (no promise) when nothing has to be read: the ROOT key, a
   * user key whose hash the registry has cached, dev mode; a promise otherwise. Throws or rejects
   * UNAUTHENTICATED / INVALID_ARGUMENT. The presented key is hashed at most once (not at all when it authenticated lately).
   */
  resolve(headers: Record<string, string>): Identity | Promise<Identity> {
    const actorPeerId = peerView(headers);
    const key = presentedKey(headers);
    const known = key === undefined ? undefined : this.keyHashes.get(key);
    const h = known ?? (key === undefined ? undefined : hashKey(key));
    if (h !== undefined && this.registry.isRootHash(h)) {
      if (known === undefined) this.remember(key!, h);
      return withPeer({ accountId: headerId(headers, 'x-ctx-account') ?? DEFAULT_ACCOUNT, userId: headerId(headers, 'x-ctx-user') ?? DEFAULT_USER, role: 'ROOT' }, actorPeerId);
    }
    if (this.mode === 'api_key' || (h !== undefined && this.mode !== 'dev')) {
      if (h === undefined) throw unauthenticated('missing API key: send X-API-Key or Authorization: Bearer <key>');
      const cached = this.registry.cachedUserByHash(h);
      if (cached) {
        if (known === undefined) this.remember(key!, h);
        return userIdentity(cached, actorPeerId);
      }
      if (cached === null) return userIdentity(cached, actorPeerId);
      return this.registry.userByHash(h).then((user) => {
        if (user && known === undefined) this.remember(key!, h);
        return userIdentity(user, actorPeerId);
      });
    }
    if (this.mode === 'trusted') return this.trusted(headers, actorPeerId);
    return withPeer({ accountId: headerId(headers, 'x-ctx-account') ?? DEFAULT_ACCOUNT, userId: headerId(headers, 'x-ctx-user') ?? DEFAULT_USER, role: 'ADMIN' }, actorPeerId);
  }

  private async trusted(headers: Record<string, string>, actorPeerId: PeerView): Promise<Identity> {
    const accountId = headerId(headers, 'x-ctx-account');
    const userId = headerId(headers, 'x-ctx-user');
    if (!accountId || !userId) throw unauthenticated('trusted mode needs X-Ctx-Account and X-Ctx-User headers');
    const user = await this.registry.getUser(accountId, userId);
    return withPeer({ accountId, userId, role: user?.role ?? 'USER' }, actorPeerId);
  }
}

/** A peer view: `X-Ctx-Actor-Peer`, or the legacy `X-Ctx-Agent` (what 0.3.x clients send for their configured `agent_id`). */
type PeerView = string | { legacy: string } | undefined;

function peerView(headers: Record<string, string>): PeerView {
  const actorPeerId = headerId(headers, 'x-ctx-actor-peer');
  const agentId = headerId(headers, 'x-ctx-agent');
  if (agentId === undefined) return actorPeerId;
  // Spec Part 3 "Errors": both actor_peer_id and agent_id is a 400, even when they agree.
  if (actorPeerId !== undefined)
    throw new CtxError('INVALID_ARGUMENT', 'actor_peer_id (X-Ctx-Actor-Peer) and the legacy agent_id (X-Ctx-Agent) cannot be used together: configure one of them', { field: 'x-ctx-agent' });
  return { legacy: agentId };
}

function withPeer(identity: Identity, view: PeerView): Identity {
  if (typeof view === 'string') identity.actorPeerId = view;
  else if (view) identity.actorPeerId = identity.legacyAgentId = view.legacy;
  return identity;
}

/**
 * One frozen identity per cached user record (without an actor peer, the common case): a request
 * then allocates no identity, and marking it as host-issued (runtime/access/issued.ts) finds it
 * already marked instead of growing a WeakSet per request. A role change replaces the record, so
 * the next request gets a fresh identity.
 */
const byRecord = new WeakMap<UserRecord, Identity>();

function userIdentity(user: UserRecord | null, actorPeerId: PeerView): Identity {
  if (!user) throw unauthenticated('invalid API key');
  if (actorPeerId) return withPeer({ accountId: user.account_id, userId: user.user_id, role: user.role }, actorPeerId);
  let identity = byRecord.get(user);
  if (!identity) byRecord.set(user, (identity = Object.freeze({ accountId: user.account_id, userId: user.user_id, role: user.role })));
  return identity;
}
