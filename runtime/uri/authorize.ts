import { CtxError } from '../errors.js';
import type { Identity } from '../identity/types.js';
import type { Access, CtxUri } from './types.js';

/**
 * Namespace-level access of a parsed URI. The account never appears in a URI: it always comes
 * from the identity, so no URI can name another account's data and there is nothing to compare.
 * Per-entry rules layered on top (the fs `access: denied` placeholders) are the caller's concern.
 */
export function authorize(u: CtxUri, identity: Identity, access: Access): void {
  const reason = denial(u, identity, access);
  if (reason !== null) throw new CtxError('PERMISSION_DENIED', reason, { resource: u.uri, access });
}

/** `authorize(u, identity, 'read')` without the exception; cheap enough for listing filters. */
export function canRead(u: CtxUri, identity: Identity): boolean {
  return denial(u, identity, 'read') === null;
}

/** The denial message, or null when allowed. */
function denial(u: CtxUri, identity: Identity, access: Access): string | null {
  const admin = identity.role !== 'USER';
  const actorPeer = identity.actorPeerId || undefined; // an empty header means no peer view
  switch (u.scope) {
    case 'resources':
      return null;
    case 'root':
      return access === 'write' && !admin ? 'only ADMIN or ROOT may write at the account root ctx://' : null;
    case 'agent':
      if (actorPeer !== undefined && u.agentId !== undefined && u.agentId !== actorPeer) {
        return `the request's peer view (X-Ctx-Actor-Peer: ${actorPeer}) does not include legacy agent ${u.agentId}`;
      }
      return access === 'write' ? legacyWrite(u) : null;
    case 'user': {
      if (u.userId === undefined) {
        return access === 'write' && !admin ? 'only ADMIN or ROOT may write at ctx://user' : null;
      }
      if (u.userId !== identity.userId && !admin) {
        return `ctx://user/${u.userId} is private to user ${u.userId}; ${identity.userId} may only access ctx://user/${identity.userId}`;
      }
      if (actorPeer !== undefined && u.peerId !== undefined && u.peerId !== actorPeer) {
        return `the request's peer view (X-Ctx-Actor-Peer: ${actorPeer}) does not include peer ${u.peerId}`;
      }
      if (access === 'write' && u.readOnly) {
        return `${u.aliasOf ?? u.uri} is a read-only alias; write to ${u.uri} instead`;
      }
      return null;
    }
  }
}

/** Points a legacy agent write at its 0.4.0 home (spec Part 1, "Legacy namespace migration"). */
function legacyWrite(u: CtxUri): string {
  const [, agentId, sub, ...tail] = u.segments;
  let target = 'ctx://~/peers/{peer_id}/...';
  if (agentId !== undefined) {
    if (sub === 'skills') target = ['ctx://~/skills', ...tail].join('/');
    else if (sub === 'memories' || sub === 'resources') target = [`ctx://~/peers/${agentId}/${sub}`, ...tail].join('/');
    else target = `ctx://~/peers/${agentId}`;
  }
  return (
    `${u.uri} is in the legacy agent namespace, which is read-only since 0.4.0; write to ${target} instead ` +
    '(POST /api/v1/admin/migrate copies legacy agent data to user peers)'
  );
}
