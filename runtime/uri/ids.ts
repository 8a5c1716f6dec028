import { ID_PATTERN } from '../identity/types.js';

/**
 * Words that name user spaces. `ctx://user/memories` is the user-id-less spelling the spec rejects,
 * so none of them may be a user id; peer, agent, skill and session ids follow the same rule.
 */
export const RESERVED_IDS: ReadonlySet<string> = new Set(['memories', 'resources', 'skills', 'peers', 'privacy', 'sessions']);

/** A user, peer, agent, skill or session id: matches `ID_PATTERN` and is not a reserved word. Case-sensitive. */
export function isValidId(s: string): boolean {
  return ID_PATTERN.test(s) && !isReservedId(s);
}

/** Same as `RESERVED_IDS.has(s)`; a switch compares lengths first and never hashes the (often sliced) string. */
export function isReservedId(s: string): boolean {
  switch (s) {
    case 'memories':
    case 'resources':
    case 'skills':
    case 'peers':
    case 'privacy':
    case 'sessions':
      return true;
    default:
      return false;
  }
}

/** Why `s` is not a valid id, for error messages; `null` when it is valid. */
export function idProblem(s: string): string | null {
  if (isReservedId(s)) return `"${s}" is a reserved word`;
  if (!ID_PATTERN.test(s)) {
    return 'ids are 1-128 characters from A-Z a-z 0-9 _ . @ -, starting with a letter or digit';
  }
  return null;
}

const RECORD_ID = /^[0-9a-f]{32}$/;

/** The spec's deterministic vector record key: exactly 32 lowercase hex characters. */
export function isRecordId(s: string): boolean {
  return s.length === 32 && RECORD_ID.test(s);
}
