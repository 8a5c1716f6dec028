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
import type { IdentityRegistry } from './registry.js';
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

export class Authenticator {
  constructor(private readonly mode: AuthMode, private readonly registry: IdentityRegistry) {}

  get authMode(): AuthMode {
    return this.mode;
  }

  async resolve(headers: Record<string, string>): Promise<Identity> {
    const actorPeerId = headerId(headers, 'x-ctx-actor-peer');
    const key = presentedKey(headers);
    let identity: Identity;
    if (key !== undefined && this.registry.isRootKey(key)) {
      identity = { accountId: headerId(headers, 'x-ctx-account') ?? DEFAULT_ACCOUNT, userId: headerId(headers, 'x-ctx-user') ?? DEFAULT_USER, role: 'ROOT' };
    } else if (this.mode === 'api_key' || (key !== undefined && this.mode !== 'dev')) {
      if (key === undefined) throw unauthenticated('missing API key: send X-API-Key or Authorization: Bearer <key>');
      const user = await this.registry.userByKey(key);
      if (!user) throw unauthenticated('invalid API key');
      identity = { accountId: user.account_id, userId: user.user_id, role: user.role };
    } else if (this.mode === 'trusted') {
      const accountId = headerId(headers, 'x-ctx-account');
      const userId = headerId(headers, 'x-ctx-user');
      if (!accountId || !userId) throw unauthenticated('trusted mode needs X-Ctx-Account and X-Ctx-User headers');
      const user = await this.registry.getUser(accountId, userId);
      identity = { accountId, userId, role: user?.role ?? 'USER' };
    } else {
      identity = { accountId: headerId(headers, 'x-ctx-account') ?? DEFAULT_ACCOUNT, userId: headerId(headers, 'x-ctx-user') ?? DEFAULT_USER, role: 'ADMIN' };
    }
    if (actorPeerId) identity.actorPeerId = actorPeerId;
    return identity;
  }
}
