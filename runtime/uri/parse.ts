import type { Identity } from '../identity/types.js';
import { idProblem, isRecordId, isReservedId } from './ids.js';
import { invalidUriFor, notAString, traversalDenied } from './invalid.js';
import {
  describeTextProblem,
  MAX_URI_BYTES,
  scanText,
  segmentProblem,
  TEXT_NON_ASCII,
  utf8Length,
} from './segments.js';
import type { ContextType, CtxUri, ParseOptions, Scope, UserSpace } from './types.js';
import { SIDECARS } from '../vfs/types.js';

export const SCHEME = 'ctx://';
const ROOT_URI = SCHEME;
const ACCEPTED_SCOPES = 'resources, user, session, agent, ~';
const ACCEPTED_USER_SPACES = 'memories, resources, skills, sessions, peers';
const ACCEPTED_PEER_SPACES = 'memories, resources';
const SCHEME_NAME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
const PRIVACY_HINT = 'privacy configs are not exposed as files: use /api/v1/privacy-configs';

/** The fields that differ between URI shapes; everything else is derived in `make`. */
interface Shape {
  scope: Scope;
  contextType: ContextType | null;
  userId?: string;
  space?: UserSpace;
  peerId?: string;
  agentId?: string;
  skillName?: string;
  sessionId?: string;
  readOnly: boolean;
  aliasOf?: string;
}

/**
 * Parses, validates and canonicalizes a public `ctx://` URI. Aliases (`ctx://~`, `ctx://session`)
 * expand from `identity`. Throws INVALID_ARGUMENT for non-strings and INVALID_URI for everything
 * else, with `details.field` = `opts.field` (default 'uri'). Authorization is separate: `authorize`.
 */
export function parseUri(input: unknown, identity: Identity, opts?: ParseOptions): CtxUri {
  const field = opts?.field ?? 'uri';
  if (typeof input !== 'string') throw notAString(field, input);
  if (input.length === 0) throw invalidUriFor(field, input, 'must not be empty');
  // UTF-16 length never exceeds the UTF-8 length, so this rejects without measuring.
  if (input.length > MAX_URI_BYTES) throw invalidUriFor(field, input, `longer than ${MAX_URI_BYTES} bytes`);
  if (!input.startsWith(SCHEME)) throw invalidUriFor(field, input, schemeProblem(input));

  // Scan and split the input in place (from/to offsets): slicing first makes every later
  // charCodeAt/indexOf go through a sliced string, which costs more than the whole parse otherwise.
  let src = input;
  let from = SCHEME.length;
  const at = scanText(input, from);
  if (at >= 0) throw invalidUriFor(field, input, describeTextProblem(input, at));
  const nonAscii = at === TEXT_NON_ASCII;
  if (nonAscii) {
    if (utf8Length(input, true) > MAX_URI_BYTES) throw invalidUriFor(field, input, `longer than ${MAX_URI_BYTES} bytes`);
    src = input.slice(from).normalize('NFC');
    from = 0;
  }
  let to = src.length;
  if (to === from) return make([], '', { scope: 'root', contextType: null, readOnly: false });
  if (src.charCodeAt(from) === 0x2f) {
    throw invalidUriFor(field, input, 'empty path segments are not allowed (the root is "ctx://", with nothing after it)');
  }
  if (src.charCodeAt(to - 1) === 0x2f) to--; // one trailing slash is tolerated
  const segs: string[] = [];
  for (let start = from; ; ) {
    let end = src.indexOf('/', start);
    if (end < 0 || end > to) end = to;
    const seg = src.slice(start, end);
    if (seg === '..' || seg === '.') throw traversalDenied(field, input, seg);
    const problem = segmentProblem(seg, nonAscii);
    if (problem !== null) throw invalidUriFor(field, input, problem);
    segs.push(seg);
    if (end >= to) break;
    start = end + 1;
  }
  const rest = src.slice(from, to);
  // NFC can lengthen text (composition exclusions such as U+0958 decompose), so measure again.
  if (nonAscii && utf8Length(rest, true) + SCHEME.length > MAX_URI_BYTES) {
    throw invalidUriFor(field, input, `longer than ${MAX_URI_BYTES} bytes after NFC normalization`);
  }

  // Already canonical (ASCII, no trailing slash): the input is the URI, a flat string where
  // SCHEME + path would be a concatenation flattened again by every hash or JSON.stringify of it.
  const uri = !nonAscii && to === input.length ? input : undefined;
  switch (segs[0]) {
    case 'resources':
      return make(segs, rest, { scope: 'resources', contextType: 'resource', readOnly: false }, uri);
    case 'user':
      return make(segs, rest, userShape(segs, field, input), uri);
    case 'agent':
      return make(segs, rest, agentShape(segs, field, input), uri);
    case '~': {
      segs.splice(0, 1, 'user', identity.userId);
      const shape = userShape(segs, field, input);
      shape.aliasOf = SCHEME + rest;
      return expanded(segs, shape, field, input, nonAscii);
    }
    case 'session': {
      segs.splice(0, 1, 'user', identity.userId, 'sessions');
      const shape = userShape(segs, field, input);
      shape.aliasOf = SCHEME + rest;
      shape.readOnly = true;
      return expanded(segs, shape, field, input, nonAscii);
    }
    case 'temp':
    case 'queue':
      throw invalidUriFor(field, input, `"${segs[0]}" is an internal scope and not accepted in public URIs; accepted scopes: ${ACCEPTED_SCOPES}`);
    default:
      throw invalidUriFor(field, input, `unknown scope "${segs[0]}"; accepted scopes: ${ACCEPTED_SCOPES}`);
  }
}

/** An alias expansion may grow the URI past the limit; the limit holds for the canonical form too. */
function expanded(segs: string[], shape: Shape, field: string, input: string, nonAscii: boolean): CtxUri {
  const path = segs.join('/');
  if (utf8Length(path, nonAscii) + SCHEME.length > MAX_URI_BYTES) {
    throw invalidUriFor(field, input, `expands to more than ${MAX_URI_BYTES} bytes`);
  }
  return make(segs, path, shape);
}

/** `uri`: the canonical URI when the caller has it as one string (SCHEME + path). */
function make(segments: string[], path: string, s: Shape, uri?: string): CtxUri {
  const n = segments.length;
  // One literal with every key keeps the object shape monomorphic for callers on the hot path.
  return {
    uri: uri ?? SCHEME + path,
    path,
    segments,
    scope: s.scope,
    userId: s.userId,
    space: s.space,
    peerId: s.peerId,
    agentId: s.agentId,
    skillName: s.skillName,
    sessionId: s.sessionId,
    contextType: s.contextType,
    readOnly: s.readOnly,
    aliasOf: s.aliasOf,
    name: n === 0 ? '' : segments[n - 1]!,
    parent: n === 0 ? null : n === 1 ? ROOT_URI : SCHEME + path.slice(0, path.lastIndexOf('/')),
  };
}

function checkId(kind: string, id: string, field: string, input: string): string {
  const problem = idProblem(id);
  if (problem !== null) throw invalidUriFor(field, input, `invalid ${kind} "${id}": ${problem}`);
  return id;
}

/** `segs[0]` is 'user'. */
function userShape(segs: string[], field: string, input: string): Shape {
  const n = segs.length;
  // A directory's sidecar (`.abstract.md` of user/alice/skills, of user/, …) stands where an id or a
  // space name would: it belongs to its directory and has that directory's shape. Refused as an
  // id, it made every sidecar at those levels unreadable (a whole-account snapshot then failed).
  if (n >= 2 && SIDECARS.has(segs[n - 1]!)) return userShape(segs.slice(0, -1), field, input);
  if (n === 1) return { scope: 'user', contextType: null, readOnly: false };
  const userId = segs[1]!;
  if (isReservedId(userId)) throw userIdLess(segs, field, input);
  checkId('user id', userId, field, input);
  if (n === 2) return { scope: 'user', contextType: null, userId, readOnly: false };
  const space = segs[2]!;
  switch (space) {
    case 'memories':
      return { scope: 'user', contextType: 'memory', userId, space, readOnly: false };
    case 'resources':
      return { scope: 'user', contextType: 'resource', userId, space, readOnly: false };
    case 'skills': {
      const skillName = n > 3 ? checkId('skill name', segs[3]!, field, input) : undefined;
      return { scope: 'user', contextType: 'skill', userId, space, skillName, readOnly: false };
    }
    case 'sessions': {
      const sessionId = n > 3 ? checkId('session id', segs[3]!, field, input) : undefined;
      return { scope: 'user', contextType: 'session', userId, space, sessionId, readOnly: false };
    }
    case 'peers':
      return peerShape(segs, userId, field, input);
    case 'privacy':
      throw invalidUriFor(field, input, PRIVACY_HINT);
    default:
      throw invalidUriFor(field, input, `unknown user space "${space}"; accepted: ${ACCEPTED_USER_SPACES}`);
  }
}

/** `segs` is user/{u}/peers/... */
function peerShape(segs: string[], userId: string, field: string, input: string): Shape {
  const n = segs.length;
  if (n === 3) return { scope: 'user', contextType: null, userId, space: 'peers', readOnly: false };
  const peerId = checkId('peer id', segs[3]!, field, input);
  if (n === 4) return { scope: 'user', contextType: null, userId, space: 'peers', peerId, readOnly: false };
  const sub = segs[4]!;
  if (sub === 'memories' || sub === 'resources') {
    const contextType = sub === 'memories' ? 'memory' : 'resource';
    return { scope: 'user', contextType, userId, space: 'peers', peerId, readOnly: false };
  }
  if (sub === 'skills') {
    throw invalidUriFor(field, input, `skills are user-scoped only, there is no peer skill root; use ctx://user/${userId}/skills`);
  }
  throw invalidUriFor(field, input, `unknown peer space "${sub}"; accepted: ${ACCEPTED_PEER_SPACES}`);
}

/** Legacy 0.3.x layout: only the agent id is validated (it maps to a peer id); below it, paths are read as stored. */
function agentShape(segs: string[], field: string, input: string): Shape {
  const n = segs.length;
  if (n >= 2 && SIDECARS.has(segs[n - 1]!)) return agentShape(segs.slice(0, -1), field, input);
  if (n === 1) return { scope: 'agent', contextType: null, readOnly: true };
  const agentId = checkId('agent id', segs[1]!, field, input);
  const sub = n > 2 ? segs[2] : undefined;
  if (sub === 'memories') return { scope: 'agent', contextType: 'memory', agentId, readOnly: true };
  if (sub === 'resources') return { scope: 'agent', contextType: 'resource', agentId, readOnly: true };
  if (sub === 'skills') return { scope: 'agent', contextType: 'skill', agentId, skillName: segs[3], readOnly: true };
  return { scope: 'agent', contextType: null, agentId, readOnly: true };
}

/** `ctx://user/memories/...`: the spec asks the error to point at the home-alias form. */
function userIdLess(segs: string[], field: string, input: string) {
  const tail = segs.slice(1).join('/');
  const hint = `ctx://~/${tail}`;
  const note = segs[1] === 'privacy' ? `; note that ${PRIVACY_HINT}` : '';
  return invalidUriFor(
    field,
    input,
    `the user id is missing; use ${hint} (expands to your own user) or ctx://user/{user_id}/${tail}${note}`,
    { hint },
  );
}

function schemeProblem(input: string): string {
  if (input.slice(0, SCHEME.length).toLowerCase() === SCHEME) return 'the scheme is case-sensitive; write "ctx://" in lowercase';
  if (isRecordId(input)) return 'a vector record id is not accepted here; expected a ctx:// URI';
  if (input.charCodeAt(0) <= 0x20) return 'leading whitespace or control characters are not allowed; URIs start with "ctx://"';
  const sep = input.indexOf('://');
  if (sep > 0 && sep <= 32 && SCHEME_NAME.test(input.slice(0, sep))) return `unsupported scheme "${input.slice(0, sep)}://"; only ctx:// URIs are accepted`;
  if (input.startsWith('ctx:')) return 'malformed scheme; URIs start with "ctx://"';
  return 'missing scheme; URIs start with "ctx://" (for example ctx://resources/...)';
}
