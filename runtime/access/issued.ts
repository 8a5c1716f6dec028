/**
 * Identities the host itself produced (the auth layer for a request, the task runner for a task's
 * owner). `host.vfsFor(identity)` accepts only these, so a plugin cannot widen its reach by
 * constructing `{ role: 'ROOT' }` itself.
 */
import type { Identity } from '../identity/types.js';

const issued = new WeakSet<Identity>();

export function issueIdentity<T extends Identity>(identity: T): T {
  issued.add(identity);
  return identity;
}

export function isIssuedIdentity(identity: unknown): identity is Identity {
  return typeof identity === 'object' && identity !== null && issued.has(identity as Identity);
}
