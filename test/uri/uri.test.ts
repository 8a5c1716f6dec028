import { describe, expect, it } from 'vitest';
import { CtxError } from '../../runtime/errors.js';
import type { Identity } from '../../runtime/identity/types.js';
import {
  authorize,
  canRead,
  isAncestorOrSelf,
  isRecordId,
  isValidId,
  joinUri,
  RESERVED_IDS,
  parseUri,
  relativePath,
  uriFromPath,
  type Access,
  type CtxUri,
} from '../../runtime/uri/index.js';

const alice: Identity = { accountId: 'acc1', userId: 'alice', role: 'USER' };
const aliceAsP1: Identity = { ...alice, actorPeerId: 'p1' };
const aliceEmptyPeer: Identity = { ...alice, actorPeerId: '' };
const bobAdmin: Identity = { accountId: 'acc1', userId: 'bob', role: 'ADMIN' };
const bobAdminAsP1: Identity = { ...bobAdmin, actorPeerId: 'p1' };
const root: Identity = { accountId: 'acc1', userId: 'root', role: 'ROOT' };

function caught(fn: () => unknown): CtxError {
  try {
    fn();
  } catch (err) {
    if (err instanceof CtxError) return err;
    throw err;
  }
  throw new Error('expected a CtxError, nothing was thrown');
}

// ---------------------------------------------------------------------------------------------
// Valid inputs. Every row states the canonical uri, path, scope, contextType and parent; the
// optional fields default to undefined and readOnly to false. segments/name derive from path.
// ---------------------------------------------------------------------------------------------
type Expect = Partial<CtxUri> & Pick<CtxUri, 'uri' | 'path' | 'scope' | 'contextType' | 'parent'>;
const long255 = 'a'.repeat(255);
const e255 = 'é'.repeat(127) + 'a'; // 254 + 1 = 255 bytes

const VALID: Array<[input: string, expected: Expect]> = [
  ['ctx://', { uri: 'ctx://', path: '', scope: 'root', contextType: null, parent: null }],
  ['ctx://resources', { uri: 'ctx://resources', path: 'resources', scope: 'resources', contextType: 'resource', parent: 'ctx://' }],
  ['ctx://resources/', { uri: 'ctx://resources', path: 'resources', scope: 'resources', contextType: 'resource', parent: 'ctx://' }],
  ['ctx://resources/a/b.md', { uri: 'ctx://resources/a/b.md', path: 'resources/a/b.md', scope: 'resources', contextType: 'resource', parent: 'ctx://resources/a' }],
  ['ctx://resources/a/', { uri: 'ctx://resources/a', path: 'resources/a', scope: 'resources', contextType: 'resource', parent: 'ctx://resources' }],
  ['ctx://resources/a/.abstract.md', { uri: 'ctx://resources/a/.abstract.md', path: 'resources/a/.abstract.md', scope: 'resources', contextType: 'resource', parent: 'ctx://resources/a' }],
  ['ctx://resources/...', { uri: 'ctx://resources/...', path: 'resources/...', scope: 'resources', contextType: 'resource', parent: 'ctx://resources' }],
  ['ctx://resources/My Doc (v2).md', { uri: 'ctx://resources/My Doc (v2).md', path: 'resources/My Doc (v2).md', scope: 'resources', contextType: 'resource', parent: 'ctx://resources' }],
  // Percent signs that are not an attack stay literal: nothing is ever decoded.
  ['ctx://resources/100% done.md', { uri: 'ctx://resources/100% done.md', path: 'resources/100% done.md', scope: 'resources', contextType: 'resource', parent: 'ctx://resources' }],
  ['ctx://resources/a%20b', { uri: 'ctx://resources/a%20b', path: 'resources/a%20b', scope: 'resources', contextType: 'resource', parent: 'ctx://resources' }],
  // Unicode: NFD input (e + combining acute) is NFC-normalized.
  ['ctx://resources/caf\u0065\u0301.md', { uri: 'ctx://resources/caf\u00e9.md', path: 'resources/caf\u00e9.md', scope: 'resources', contextType: 'resource', parent: 'ctx://resources' }],
  ['ctx://resources/日本語/😀.md', { uri: 'ctx://resources/日本語/😀.md', path: 'resources/日本語/😀.md', scope: 'resources', contextType: 'resource', parent: 'ctx://resources/日本語' }],
  [`ctx://resources/${long255}`, { uri: `ctx://resources/${long255}`, path: `resources/${long255}`, scope: 'resources', contextType: 'resource', parent: 'ctx://resources' }],
  [`ctx://resources/${e255}`, { uri: `ctx://resources/${e255}`, path: `resources/${e255}`, scope: 'resources', contextType: 'resource', parent: 'ctx://resources' }],
  // user containers and spaces
  ['ctx://user', { uri: 'ctx://user', path: 'user', scope: 'user', contextType: null, parent: 'ctx://' }],
  ['ctx://user/u1', { uri: 'ctx://user/u1', path: 'user/u1', scope: 'user', contextType: null, userId: 'u1', parent: 'ctx://user' }],
  ['ctx://user/u1/memories', { uri: 'ctx://user/u1/memories', path: 'user/u1/memories', scope: 'user', contextType: 'memory', userId: 'u1', space: 'memories', parent: 'ctx://user/u1' }],
  ['ctx://user/u1/memories/prefs/food.md', { uri: 'ctx://user/u1/memories/prefs/food.md', path: 'user/u1/memories/prefs/food.md', scope: 'user', contextType: 'memory', userId: 'u1', space: 'memories', parent: 'ctx://user/u1/memories/prefs' }],
  ['ctx://user/u1/resources/x', { uri: 'ctx://user/u1/resources/x', path: 'user/u1/resources/x', scope: 'user', contextType: 'resource', userId: 'u1', space: 'resources', parent: 'ctx://user/u1/resources' }],
  ['ctx://user/u1/skills', { uri: 'ctx://user/u1/skills', path: 'user/u1/skills', scope: 'user', contextType: 'skill', userId: 'u1', space: 'skills', parent: 'ctx://user/u1' }],
  ['ctx://user/u1/skills/web-search/SKILL.md', { uri: 'ctx://user/u1/skills/web-search/SKILL.md', path: 'user/u1/skills/web-search/SKILL.md', scope: 'user', contextType: 'skill', userId: 'u1', space: 'skills', skillName: 'web-search', parent: 'ctx://user/u1/skills/web-search' }],
  ['ctx://user/u1/sessions', { uri: 'ctx://user/u1/sessions', path: 'user/u1/sessions', scope: 'user', contextType: 'session', userId: 'u1', space: 'sessions', parent: 'ctx://user/u1' }],
  ['ctx://user/u1/sessions/s-42/messages.jsonl', { uri: 'ctx://user/u1/sessions/s-42/messages.jsonl', path: 'user/u1/sessions/s-42/messages.jsonl', scope: 'user', contextType: 'session', userId: 'u1', space: 'sessions', sessionId: 's-42', parent: 'ctx://user/u1/sessions/s-42' }],
  ['ctx://user/u1/peers', { uri: 'ctx://user/u1/peers', path: 'user/u1/peers', scope: 'user', contextType: null, userId: 'u1', space: 'peers', parent: 'ctx://user/u1' }],
  ['ctx://user/u1/peers/p1', { uri: 'ctx://user/u1/peers/p1', path: 'user/u1/peers/p1', scope: 'user', contextType: null, userId: 'u1', space: 'peers', peerId: 'p1', parent: 'ctx://user/u1/peers' }],
  ['ctx://user/u1/peers/p1/memories/m.md', { uri: 'ctx://user/u1/peers/p1/memories/m.md', path: 'user/u1/peers/p1/memories/m.md', scope: 'user', contextType: 'memory', userId: 'u1', space: 'peers', peerId: 'p1', parent: 'ctx://user/u1/peers/p1/memories' }],
  ['ctx://user/u1/peers/p1/resources', { uri: 'ctx://user/u1/peers/p1/resources', path: 'user/u1/peers/p1/resources', scope: 'user', contextType: 'resource', userId: 'u1', space: 'peers', peerId: 'p1', parent: 'ctx://user/u1/peers/p1' }],
  ['ctx://user/a.b@c_d-e/memories', { uri: 'ctx://user/a.b@c_d-e/memories', path: 'user/a.b@c_d-e/memories', scope: 'user', contextType: 'memory', userId: 'a.b@c_d-e', space: 'memories', parent: 'ctx://user/a.b@c_d-e' }],
  // Reserved words are exact and case-sensitive.
  ['ctx://user/Memories', { uri: 'ctx://user/Memories', path: 'user/Memories', scope: 'user', contextType: null, userId: 'Memories', parent: 'ctx://user' }],
  // home alias
  ['ctx://~', { uri: 'ctx://user/alice', path: 'user/alice', scope: 'user', contextType: null, userId: 'alice', aliasOf: 'ctx://~', parent: 'ctx://user' }],
  ['ctx://~/', { uri: 'ctx://user/alice', path: 'user/alice', scope: 'user', contextType: null, userId: 'alice', aliasOf: 'ctx://~', parent: 'ctx://user' }],
  ['ctx://~/memories', { uri: 'ctx://user/alice/memories', path: 'user/alice/memories', scope: 'user', contextType: 'memory', userId: 'alice', space: 'memories', aliasOf: 'ctx://~/memories', parent: 'ctx://user/alice' }],
  ['ctx://~/skills/s1/', { uri: 'ctx://user/alice/skills/s1', path: 'user/alice/skills/s1', scope: 'user', contextType: 'skill', userId: 'alice', space: 'skills', skillName: 's1', aliasOf: 'ctx://~/skills/s1', parent: 'ctx://user/alice/skills' }],
  ['ctx://~/peers/p2/resources/r', { uri: 'ctx://user/alice/peers/p2/resources/r', path: 'user/alice/peers/p2/resources/r', scope: 'user', contextType: 'resource', userId: 'alice', space: 'peers', peerId: 'p2', aliasOf: 'ctx://~/peers/p2/resources/r', parent: 'ctx://user/alice/peers/p2/resources' }],
  // session alias: read-only view of the caller's new session path
  ['ctx://session', { uri: 'ctx://user/alice/sessions', path: 'user/alice/sessions', scope: 'user', contextType: 'session', userId: 'alice', space: 'sessions', readOnly: true, aliasOf: 'ctx://session', parent: 'ctx://user/alice' }],
  ['ctx://session/s1', { uri: 'ctx://user/alice/sessions/s1', path: 'user/alice/sessions/s1', scope: 'user', contextType: 'session', userId: 'alice', space: 'sessions', sessionId: 's1', readOnly: true, aliasOf: 'ctx://session/s1', parent: 'ctx://user/alice/sessions' }],
  ['ctx://session/s1/messages.jsonl', { uri: 'ctx://user/alice/sessions/s1/messages.jsonl', path: 'user/alice/sessions/s1/messages.jsonl', scope: 'user', contextType: 'session', userId: 'alice', space: 'sessions', sessionId: 's1', readOnly: true, aliasOf: 'ctx://session/s1/messages.jsonl', parent: 'ctx://user/alice/sessions/s1' }],
  // legacy agent namespace: read-only, context types as for peers
  ['ctx://agent', { uri: 'ctx://agent', path: 'agent', scope: 'agent', contextType: null, readOnly: true, parent: 'ctx://' }],
  ['ctx://agent/a1', { uri: 'ctx://agent/a1', path: 'agent/a1', scope: 'agent', contextType: null, agentId: 'a1', readOnly: true, parent: 'ctx://agent' }],
  ['ctx://agent/a1/memories/m.md', { uri: 'ctx://agent/a1/memories/m.md', path: 'agent/a1/memories/m.md', scope: 'agent', contextType: 'memory', agentId: 'a1', readOnly: true, parent: 'ctx://agent/a1/memories' }],
  ['ctx://agent/a1/resources', { uri: 'ctx://agent/a1/resources', path: 'agent/a1/resources', scope: 'agent', contextType: 'resource', agentId: 'a1', readOnly: true, parent: 'ctx://agent/a1' }],
  ['ctx://agent/a1/skills/sk/SKILL.md', { uri: 'ctx://agent/a1/skills/sk/SKILL.md', path: 'agent/a1/skills/sk/SKILL.md', scope: 'agent', contextType: 'skill', agentId: 'a1', skillName: 'sk', readOnly: true, parent: 'ctx://agent/a1/skills/sk' }],
  ['ctx://agent/a1/instructions/x.md', { uri: 'ctx://agent/a1/instructions/x.md', path: 'agent/a1/instructions/x.md', scope: 'agent', contextType: null, agentId: 'a1', readOnly: true, parent: 'ctx://agent/a1/instructions' }],
];

describe('parseUri: valid inputs', () => {
  it.each(VALID)('%s', (input, exp) => {
    const u = parseUri(input, alice);
    const segments = exp.path === '' ? [] : exp.path.split('/');
    expect(u).toEqual({
      readOnly: false,
      segments,
      name: segments.length === 0 ? '' : segments[segments.length - 1],
      ...exp,
    });
    // Exactly the documented keys, so an unexpected field (or a missing one) fails.
    expect(Object.keys(u).sort()).toEqual(
      ['uri', 'path', 'segments', 'scope', 'userId', 'space', 'peerId', 'agentId', 'skillName', 'sessionId', 'contextType', 'readOnly', 'aliasOf', 'name', 'parent'].sort(),
    );
  });

  it.each(VALID)('canonical form of %s re-parses to itself', (input) => {
    const once = parseUri(input, alice);
    const twice = parseUri(once.uri, alice);
    expect(twice.uri).toBe(once.uri);
    expect(twice.path).toBe(once.path);
    expect(twice.aliasOf).toBeUndefined(); // canonical forms never contain an alias
  });

  it('expands aliases from the identity, not from anything in the URI', () => {
    expect(parseUri('ctx://~/memories', bobAdmin).uri).toBe('ctx://user/bob/memories');
    expect(parseUri('ctx://session/s9', root).uri).toBe('ctx://user/root/sessions/s9');
  });
});

// ---------------------------------------------------------------------------------------------
// Invalid inputs: [input, expected code, substring of the message].
// ---------------------------------------------------------------------------------------------
const INVALID: Array<[label: string, input: unknown, code: 'INVALID_URI' | 'INVALID_ARGUMENT' | 'PERMISSION_DENIED', message: string]> = [
  // not a string / empty
  ['number', 42, 'INVALID_ARGUMENT', 'uri must be a string, got number'],
  ['object', { uri: 'ctx://' }, 'INVALID_ARGUMENT', 'uri must be a string, got object'],
  ['array', ['ctx://'], 'INVALID_ARGUMENT', 'uri must be a string, got array'],
  ['undefined', undefined, 'INVALID_ARGUMENT', 'uri is required'],
  ['null', null, 'INVALID_ARGUMENT', 'uri is required'],
  ['empty', '', 'INVALID_URI', 'must not be empty'],
  // scheme
  ['no scheme', 'resources/a', 'INVALID_URI', 'missing scheme'],
  ['uppercase scheme', 'CTX://resources/a', 'INVALID_URI', 'scheme is case-sensitive'],
  ['mixed-case scheme', 'Ctx://resources', 'INVALID_URI', 'scheme is case-sensitive'],
  ['http scheme', 'http://example.com/a', 'INVALID_URI', 'unsupported scheme "http://"'],
  ['file scheme', 'file:///etc/passwd', 'INVALID_URI', 'unsupported scheme "file://"'],
  ['ctx: one slash', 'ctx:/resources', 'INVALID_URI', 'malformed scheme'],
  ['leading space', ' ctx://resources', 'INVALID_URI', 'leading whitespace'],
  ['junk before scheme', '../ctx://resources', 'INVALID_URI', 'missing scheme'],
  ['record id as uri', '0123456789abcdef0123456789abcdef', 'INVALID_URI', 'vector record id is not accepted'],
  // scopes
  ['temp scope', 'ctx://temp/upload1', 'INVALID_URI', '"temp" is an internal scope'],
  ['temp root', 'ctx://temp', 'INVALID_URI', '"temp" is an internal scope'],
  ['queue scope', 'ctx://queue/semantic/1', 'INVALID_URI', '"queue" is an internal scope'],
  ['unknown scope', 'ctx://foo/bar', 'INVALID_URI', 'unknown scope "foo"; accepted scopes: resources, user, session, agent, ~'],
  ['scope case', 'ctx://Resources/a', 'INVALID_URI', 'unknown scope "Resources"'],
  ['tilde prefix', 'ctx://~alice/memories', 'INVALID_URI', 'unknown scope "~alice"'],
  // user-id-less spelling points at ctx://~/...
  ['user/memories', 'ctx://user/memories', 'INVALID_URI', 'the user id is missing; use ctx://~/memories'],
  ['user/memories deep', 'ctx://user/memories/a/b.md', 'INVALID_URI', 'use ctx://~/memories/a/b.md'],
  ['user/resources', 'ctx://user/resources', 'INVALID_URI', 'use ctx://~/resources'],
  ['user/skills', 'ctx://user/skills/s1', 'INVALID_URI', 'use ctx://~/skills/s1'],
  ['user/peers', 'ctx://user/peers/p1/memories', 'INVALID_URI', 'use ctx://~/peers/p1/memories'],
  ['user/sessions', 'ctx://user/sessions/', 'INVALID_URI', 'use ctx://~/sessions'],
  ['user/privacy', 'ctx://user/privacy', 'INVALID_URI', 'use ctx://~/privacy'],
  // user spaces and ids
  ['unknown user space', 'ctx://user/u1/foo', 'INVALID_URI', 'unknown user space "foo"; accepted: memories, resources, skills, sessions, peers'],
  ['user file at user level', 'ctx://user/u1/notes.md', 'INVALID_URI', 'unknown user space "notes.md"'],
  ['privacy space', 'ctx://user/u1/privacy', 'INVALID_URI', 'use /api/v1/privacy-configs'],
  ['home privacy', 'ctx://~/privacy/x', 'INVALID_URI', 'use /api/v1/privacy-configs'],
  ['home unknown space', 'ctx://~/foo', 'INVALID_URI', 'unknown user space "foo"'],
  ['bad user id', 'ctx://user/-u/memories', 'INVALID_URI', 'invalid user id "-u"'],
  ['tilde user id', 'ctx://user/~/memories', 'INVALID_URI', 'invalid user id "~"'],
  ['long user id', `ctx://user/${'u'.repeat(129)}`, 'INVALID_URI', 'invalid user id'],
  ['bad peer id', 'ctx://user/u1/peers/p+1', 'INVALID_URI', 'invalid peer id "p+1"'],
  ['reserved peer id', 'ctx://user/u1/peers/memories/memories', 'INVALID_URI', 'invalid peer id "memories": "memories" is a reserved word'],
  ['peer skills', 'ctx://user/u1/peers/p1/skills', 'INVALID_URI', 'skills are user-scoped only'],
  ['unknown peer space', 'ctx://user/u1/peers/p1/sessions', 'INVALID_URI', 'unknown peer space "sessions"; accepted: memories, resources'],
  ['bad skill name', 'ctx://user/u1/skills/my skill', 'INVALID_URI', 'invalid skill name "my skill"'],
  ['bad session id', 'ctx://user/u1/sessions/.hidden', 'INVALID_URI', 'invalid session id ".hidden"'],
  ['bad alias session id', 'ctx://session/s 1', 'INVALID_URI', 'invalid session id "s 1"'],
  ['reserved alias session id', 'ctx://session/sessions', 'INVALID_URI', '"sessions" is a reserved word'],
  ['bad agent id', 'ctx://agent/a:1', 'INVALID_URI', 'invalid agent id "a:1"'],
  // structure
  // traversal is a denied access, as the reference answers it (docs/compatibility.md)
  ['dotdot', 'ctx://resources/../user/bob', 'PERMISSION_DENIED', '".." path segments (path traversal) are not allowed'],
  ['dotdot at end', 'ctx://resources/a/..', 'PERMISSION_DENIED', '".." path segments (path traversal)'],
  ['dot', 'ctx://resources/./a', 'PERMISSION_DENIED', '"." path segments (path traversal)'],
  ['home dotdot', 'ctx://~/../bob/memories', 'PERMISSION_DENIED', '".." path segments (path traversal)'],
  ['dotdot past the root', 'ctx://resources/../../../etc/passwd', 'PERMISSION_DENIED', '".." path segments (path traversal)'],
  ['double slash', 'ctx://resources//a', 'INVALID_URI', 'empty path segments'],
  ['two trailing slashes', 'ctx://resources/a//', 'INVALID_URI', 'empty path segments'],
  ['triple slash', 'ctx:///resources', 'INVALID_URI', 'empty path segments'],
  ['root with slash', 'ctx:///', 'INVALID_URI', 'empty path segments'],
  ['backslash', 'ctx://resources/a\\..\\b', 'INVALID_URI', 'backslashes are not allowed'],
  // control characters
  ['NUL', 'ctx://resources/a\u0000b', 'INVALID_URI', 'NUL characters are not allowed'],
  ['newline', 'ctx://resources/a\nb', 'INVALID_URI', 'control character U+000A'],
  ['tab', 'ctx://resources/a\tb', 'INVALID_URI', 'control character U+0009'],
  ['unit separator', 'ctx://resources/a\u001f', 'INVALID_URI', 'control character U+001F'],
  ['DEL', 'ctx://resources/a\u007f', 'INVALID_URI', 'control character U+007F'],
  ['C1 control', 'ctx://resources/a\u0085', 'INVALID_URI', 'control character U+0085'],
  ['bidi override', 'ctx://resources/evil\u202Egpj.exe', 'INVALID_URI', 'control character U+202E'],
  ['line separator', 'ctx://resources/a\u2028b', 'INVALID_URI', 'control character U+2028'],
  ['lone surrogate', 'ctx://resources/a\ud800b', 'INVALID_URI', 'unpaired UTF-16 surrogates'],
  ['lone low surrogate', 'ctx://resources/a\udc00', 'INVALID_URI', 'unpaired UTF-16 surrogates'],
  // percent-encoded tricks (never decoded, refused)
  ['%2e%2e', 'ctx://resources/%2e%2e/user', 'INVALID_URI', 'percent-encoded sequence "%2e"'],
  ['%2E upper', 'ctx://resources/%2E%2E', 'INVALID_URI', 'percent-encoded sequence "%2E"'],
  ['%2f', 'ctx://resources/a%2fb', 'INVALID_URI', 'percent-encoded sequence "%2f"'],
  ['%2F', 'ctx://resources/a%2Fb', 'INVALID_URI', 'percent-encoded sequence "%2F"'],
  ['%5c', 'ctx://resources/a%5cb', 'INVALID_URI', 'percent-encoded sequence "%5c"'],
  ['%5C', 'ctx://resources/a%5Cb', 'INVALID_URI', 'percent-encoded sequence "%5C"'],
  ['%00', 'ctx://resources/a%00', 'INVALID_URI', 'percent-encoded sequence "%00"'],
  ['%0a', 'ctx://resources/a%0a', 'INVALID_URI', 'percent-encoded sequence "%0a"'],
  ['%7f', 'ctx://resources/a%7F', 'INVALID_URI', 'percent-encoded sequence "%7F"'],
  ['%25 double encoding', 'ctx://resources/%252e%252e', 'INVALID_URI', 'percent-encoded sequence "%25"'],
  ['overlong dot', 'ctx://resources/%c0%ae%c0%ae', 'INVALID_URI', 'percent-encoded sequence "%c0"'],
  ['overlong slash', 'ctx://resources/a%C1%9Cb', 'INVALID_URI', 'percent-encoded sequence "%C1"'],
  ['3-byte overlong', 'ctx://resources/%e0%80%ae', 'INVALID_URI', 'percent-encoded sequence "%e0"'],
  ['IIS %u', 'ctx://resources/%u002e%u002e', 'INVALID_URI', 'percent-encoded sequence "%u002e"'],
  ['encoded in scope', 'ctx://%7euser', 'INVALID_URI', 'unknown scope'],
  ['encoded dot in scope', 'ctx://%2e%2e/x', 'INVALID_URI', 'percent-encoded sequence "%2e"'],
  // sizes
  ['segment 256 bytes', `ctx://resources/${'a'.repeat(256)}`, 'INVALID_URI', 'path segment is longer than 255 UTF-8 bytes'],
  ['segment 256 UTF-8 bytes', `ctx://resources/${'é'.repeat(128)}`, 'INVALID_URI', 'path segment is longer than 255 UTF-8 bytes'],
  ['uri 4097 bytes', `ctx://resources/${'a/'.repeat(2040)}b`, 'INVALID_URI', 'longer than 4096 bytes'],
  ['uri 4097 UTF-8 bytes', `ctx://resources/${'é/'.repeat(1360)}a`, 'INVALID_URI', 'longer than 4096 bytes'],
  ['NFC growth over the limit', `ctx://resources/${(('\u0958'.repeat(42)) + '/').repeat(19)}${'\u0958'.repeat(42)}`, 'INVALID_URI', 'longer than 4096 bytes after NFC normalization'],
  ['segment over 255 bytes after NFC', `ctx://resources/${'\u0958'.repeat(43)}`, 'INVALID_URI', 'path segment is longer than 255 UTF-8 bytes'],
  ['home expansion over the limit', `ctx://~/resources/${'a/'.repeat(2034)}ab`, 'INVALID_URI', 'expands to more than 4096 bytes'],
];

describe('parseUri: invalid inputs', () => {
  it('size rows are the sizes they claim', () => {
    const bytes = (label: string) => Buffer.byteLength(INVALID.find((r) => r[0] === label)![1] as string);
    expect(bytes('uri 4097 bytes')).toBe(4097);
    expect(bytes('uri 4097 UTF-8 bytes')).toBe(4097);
    expect(bytes('NFC growth over the limit')).toBeLessThanOrEqual(4096);
    expect(bytes('segment over 255 bytes after NFC')).toBeLessThanOrEqual(255 + 16);
    const home = INVALID.find((r) => r[0] === 'home expansion over the limit')![1] as string;
    expect(Buffer.byteLength(home)).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(home.replace('~', 'user/alice'))).toBeGreaterThan(4096);
  });

  it.each(INVALID)('%s', (_label, input, code, message) => {
    const err = caught(() => parseUri(input, alice));
    expect(err.code).toBe(code);
    expect(err.message).toContain(message);
    expect(err.details?.field).toBe('uri');
  });

  it('names opts.field in the message and details', () => {
    const err = caught(() => parseUri('ctx://temp/x', alice, { field: 'to_uri' }));
    expect(err.code).toBe('INVALID_URI');
    expect(err.message).toBe('invalid to_uri "ctx://temp/x": "temp" is an internal scope and not accepted in public URIs; accepted scopes: resources, user, session, agent, ~');
    expect(err.details).toEqual({ field: 'to_uri', uri: 'ctx://temp/x' });
    const arg = caught(() => parseUri(7, alice, { field: 'parent' }));
    expect(arg.code).toBe('INVALID_ARGUMENT');
    expect(arg.message).toBe('parent must be a string, got number');
    expect(arg.details).toEqual({ field: 'parent' });
  });

  it('the user-id-less error carries the home-alias hint', () => {
    const err = caught(() => parseUri('ctx://user/memories/x', alice));
    expect(err.details).toEqual({ field: 'uri', uri: 'ctx://user/memories/x', hint: 'ctx://~/memories/x' });
    expect(err.message).toBe(
      'invalid uri "ctx://user/memories/x": the user id is missing; use ctx://~/memories/x (expands to your own user) or ctx://user/{user_id}/memories/x',
    );
  });

  it('escapes control characters and truncates long input in messages', () => {
    const err = caught(() => parseUri('ctx://resources/a\nb', alice));
    expect(err.message).toBe('invalid uri "ctx://resources/a\\nb": control character U+000A is not allowed');
    const long = caught(() => parseUri(`ctx://resources/${'x'.repeat(5000)}`, alice));
    expect((long.details?.uri as string).length).toBe(201);
    expect(long.message.length).toBeLessThan(300);
  });
});

// ---------------------------------------------------------------------------------------------
// Access: [identity label, uri, access, 'allow' | substring of the PERMISSION_DENIED message].
// ---------------------------------------------------------------------------------------------
const IDS: Record<string, Identity> = { alice, aliceAsP1, aliceEmptyPeer, bobAdmin, bobAdminAsP1, root };
const ACCESS: Array<[who: string, uri: string, access: Access, outcome: string]> = [
  // shared resources: every role reads and writes
  ['alice', 'ctx://resources/a.md', 'read', 'allow'],
  ['alice', 'ctx://resources/a.md', 'write', 'allow'],
  ['bobAdmin', 'ctx://resources', 'write', 'allow'],
  ['root', 'ctx://resources/x', 'write', 'allow'],
  ['aliceAsP1', 'ctx://resources/x', 'write', 'allow'],
  // containers are listable by everyone; writing at them is administration
  ['alice', 'ctx://', 'read', 'allow'],
  ['alice', 'ctx://', 'write', 'only ADMIN or ROOT may write at the account root ctx://'],
  ['bobAdmin', 'ctx://', 'write', 'allow'],
  ['root', 'ctx://', 'write', 'allow'],
  ['alice', 'ctx://user', 'read', 'allow'],
  ['alice', 'ctx://user', 'write', 'only ADMIN or ROOT may write at ctx://user'],
  ['bobAdmin', 'ctx://user', 'write', 'allow'],
  // own namespace
  ['alice', 'ctx://user/alice', 'read', 'allow'],
  ['alice', 'ctx://user/alice/memories/m.md', 'write', 'allow'],
  ['alice', 'ctx://~/skills/s1', 'write', 'allow'],
  ['alice', 'ctx://user/alice/sessions/s1', 'write', 'allow'],
  // another user's namespace: USER denied, ADMIN and ROOT administer
  ['alice', 'ctx://user/bob', 'read', 'ctx://user/bob is private to user bob; alice may only access ctx://user/alice'],
  ['alice', 'ctx://user/bob/memories/m.md', 'read', 'ctx://user/bob is private to user bob'],
  ['alice', 'ctx://user/bob/memories/m.md', 'write', 'ctx://user/bob is private to user bob'],
  ['alice', 'ctx://user/bob/peers/p1/memories', 'read', 'ctx://user/bob is private to user bob'],
  ['alice', 'ctx://user/bob/sessions/s1', 'read', 'ctx://user/bob is private to user bob'],
  ['bobAdmin', 'ctx://user/alice/memories/m.md', 'read', 'allow'],
  ['bobAdmin', 'ctx://user/alice/memories/m.md', 'write', 'allow'],
  ['root', 'ctx://user/alice/sessions/s1/x', 'write', 'allow'],
  // peers: all of a user's peers without a view; only the actor peer with one
  ['alice', 'ctx://user/alice/peers/p2/memories/m', 'read', 'allow'],
  ['alice', 'ctx://user/alice/peers/p2/memories/m', 'write', 'allow'],
  ['aliceAsP1', 'ctx://user/alice/peers/p1/memories/m', 'write', 'allow'],
  ['aliceAsP1', 'ctx://user/alice/peers/p1', 'read', 'allow'],
  ['aliceAsP1', 'ctx://user/alice/peers', 'read', 'allow'],
  ['aliceAsP1', 'ctx://user/alice/peers/p2', 'read', "the request's peer view (X-Ctx-Actor-Peer: p1) does not include peer p2"],
  ['aliceAsP1', 'ctx://~/peers/p2/resources/r', 'read', 'does not include peer p2'],
  ['aliceAsP1', 'ctx://user/alice/peers/p2/memories', 'write', 'does not include peer p2'],
  ['aliceAsP1', 'ctx://user/alice/memories/m', 'read', 'allow'],
  ['aliceEmptyPeer', 'ctx://user/alice/peers/p2', 'read', 'allow'],
  ['bobAdminAsP1', 'ctx://user/alice/peers/p2', 'read', 'does not include peer p2'],
  ['bobAdminAsP1', 'ctx://user/alice/peers/p1/memories', 'read', 'allow'],
  // session alias: readable, never writable
  ['alice', 'ctx://session/s1', 'read', 'allow'],
  ['alice', 'ctx://session/s1/messages.jsonl', 'write', 'ctx://session/s1/messages.jsonl is a read-only alias; write to ctx://user/alice/sessions/s1/messages.jsonl instead'],
  ['root', 'ctx://session/s1', 'write', 'is a read-only alias'],
  // legacy agent namespace: readable inside the account, never writable
  ['alice', 'ctx://agent', 'read', 'allow'],
  ['alice', 'ctx://agent/a1/memories/m.md', 'read', 'allow'],
  ['bobAdmin', 'ctx://agent/a1', 'read', 'allow'],
  ['alice', 'ctx://agent/a1/memories/m.md', 'write', 'ctx://agent/a1/memories/m.md is in the legacy agent namespace, which is read-only since 0.4.0; write to ctx://~/peers/a1/memories/m.md instead (POST /api/v1/admin/migrate'],
  ['root', 'ctx://agent/a1/skills/sk/SKILL.md', 'write', 'write to ctx://~/skills/sk/SKILL.md instead'],
  ['bobAdmin', 'ctx://agent/a1/resources', 'write', 'write to ctx://~/peers/a1/resources instead'],
  ['alice', 'ctx://agent/a1', 'write', 'write to ctx://~/peers/a1 instead'],
  ['alice', 'ctx://agent', 'write', 'legacy agent namespace, which is read-only'],
  ['aliceAsP1', 'ctx://agent/p1/memories', 'read', 'allow'],
  ['aliceAsP1', 'ctx://agent/a2/memories', 'read', "the request's peer view (X-Ctx-Actor-Peer: p1) does not include legacy agent a2"],
  ['aliceAsP1', 'ctx://agent', 'read', 'allow'],
];

describe('authorize', () => {
  it.each(ACCESS)('%s %s %s → %s', (who, uri, access, outcome) => {
    const identity = IDS[who]!;
    const u = parseUri(uri, identity);
    if (outcome === 'allow') {
      expect(() => authorize(u, identity, access)).not.toThrow();
      if (access === 'read') expect(canRead(u, identity)).toBe(true);
      return;
    }
    const err = caught(() => authorize(u, identity, access));
    expect(err.code).toBe('PERMISSION_DENIED');
    expect(err.message).toContain(outcome);
    expect(err.details).toEqual({ resource: u.uri, access });
    if (access === 'read') expect(canRead(u, identity)).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------
describe('joinUri', () => {
  const OK: Array<[parent: string, name: string, expected: string]> = [
    ['ctx://', 'resources', 'ctx://resources'],
    ['ctx://resources', 'a.md', 'ctx://resources/a.md'],
    ['ctx://resources/a', '.abstract.md', 'ctx://resources/a/.abstract.md'],
    ['ctx://resources/a/', 'b', 'ctx://resources/a/b'],
    ['ctx://resources', 'cafe\u0301', 'ctx://resources/caf\u00e9'],
    ['ctx://resources', 'a b%20c', 'ctx://resources/a b%20c'],
  ];
  it.each(OK)('joinUri(%s, %s) = %s', (parent, name, expected) => {
    expect(joinUri(parent, name)).toBe(expected);
  });

  it('accepts a parsed parent', () => {
    expect(joinUri(parseUri('ctx://~/memories/', alice), 'x.md')).toBe('ctx://user/alice/memories/x.md');
    expect(joinUri(parseUri('ctx://', alice), 'user')).toBe('ctx://user');
  });

  const BAD: Array<[parent: string, name: string, message: string]> = [
    ['ctx://resources', '', 'empty path segments'],
    ['ctx://resources', '.', '"." segments are not allowed'],
    ['ctx://resources', '..', '".." segments are not allowed'],
    ['ctx://resources', 'a/b', 'must not contain "/"'],
    ['ctx://resources', 'a\\b', 'backslashes'],
    ['ctx://resources', 'a\u0000', 'NUL'],
    ['ctx://resources', '%2e%2e', 'percent-encoded sequence "%2e"'],
    ['ctx://resources', 'x'.repeat(256), 'longer than 255'],
    ['resources/a', 'b', 'URIs start with "ctx://"'],
    [`ctx://resources/${'a/'.repeat(2030)}`, 'abcdefghijklmnopqrstuvwxyz', 'longer than 4096 bytes'],
  ];
  it.each(BAD)('joinUri(%s, %s) throws %s', (parent, name, message) => {
    const err = caught(() => joinUri(parent, name));
    expect(err.code).toBe('INVALID_URI');
    expect(err.message).toContain(message);
  });
});

describe('isAncestorOrSelf', () => {
  const ROWS: Array<[ancestor: string, uri: string, expected: boolean]> = [
    ['ctx://', 'ctx://', true],
    ['ctx://', 'ctx://resources/a', true],
    ['ctx://', 'ctx://user/u1', true],
    ['ctx://resources', 'ctx://resources', true],
    ['ctx://resources', 'ctx://resources/a', true],
    ['ctx://resources/a', 'ctx://resources/a/b/c', true],
    ['ctx://resources/a', 'ctx://resources/ab', false],
    ['ctx://resources/a', 'ctx://resources', false],
    ['ctx://resources/a/b', 'ctx://resources/a', false],
    ['ctx://user/u1', 'ctx://user/u10/memories', false],
    ['ctx://user/u1', 'ctx://user/u1/memories', true],
    ['ctx://resources/a/', 'ctx://resources/a/b', true],
    ['ctx://resources/a', 'ctx://resources/a/', true],
    ['ctx://resources/a', 'ctx://resources/a.md', false],
    ['ctx://resources', 'resources/a', false],
  ];
  it.each(ROWS)('isAncestorOrSelf(%s, %s) = %s', (a, u, expected) => {
    expect(isAncestorOrSelf(a, u)).toBe(expected);
  });
});

describe('relativePath', () => {
  const ROWS: Array<[ancestor: string, uri: string, expected: string]> = [
    ['ctx://', 'ctx://', ''],
    ['ctx://', 'ctx://resources/a/b', 'resources/a/b'],
    ['ctx://resources', 'ctx://resources', ''],
    ['ctx://resources', 'ctx://resources/a/b.md', 'a/b.md'],
    ['ctx://resources/a/', 'ctx://resources/a/b', 'b'],
    ['ctx://user/u1/memories', 'ctx://user/u1/memories/x/y', 'x/y'],
  ];
  it.each(ROWS)('relativePath(%s, %s) = %s', (a, u, expected) => {
    expect(relativePath(a, u)).toBe(expected);
  });

  it.each([
    ['ctx://resources/a', 'ctx://resources/ab'],
    ['ctx://resources/a', 'ctx://resources'],
    ['ctx://user/u1', 'ctx://user/u2/memories'],
  ])('relativePath(%s, %s) throws INVALID_ARGUMENT', (a, u) => {
    const err = caught(() => relativePath(a, u));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toBe(`${u} is not inside ${a}`);
  });
});

describe('isRecordId, isValidId, uriFromPath', () => {
  it.each([
    ['0123456789abcdef0123456789abcdef', true],
    ['0123456789ABCDEF0123456789ABCDEF', false],
    ['0123456789abcdef0123456789abcde', false],
    ['0123456789abcdef0123456789abcdef0', false],
    ['0123456789abcdeg0123456789abcdef', false],
    ['ctx://resources/a', false],
    ['', false],
  ])('isRecordId(%s) = %s', (s, expected) => {
    expect(isRecordId(s)).toBe(expected);
  });

  it.each([
    ['alice', true],
    ['a.b@c_d-e', true],
    ['Memories', true],
    ['memories', false],
    ['privacy', false],
    ['sessions', false],
    ['-a', false],
    ['.a', false],
    ['', false],
    ['a b', false],
    ['u'.repeat(128), true],
    ['u'.repeat(129), false],
  ])('isValidId(%s) = %s', (s, expected) => {
    expect(isValidId(s)).toBe(expected);
  });

  it('every reserved word is refused as an id and as a user id', () => {
    expect([...RESERVED_IDS].sort()).toEqual(['memories', 'peers', 'privacy', 'resources', 'sessions', 'skills']);
    for (const word of RESERVED_IDS) {
      expect(isValidId(word)).toBe(false);
      expect(caught(() => parseUri(`ctx://user/${word}`, alice)).details?.hint).toBe(`ctx://~/${word}`);
    }
  });

  it.each([
    ['', 'ctx://'],
    ['resources', 'ctx://resources'],
    ['resources/a', 'ctx://resources/a'],
    ['user/u1/memories/x.md', 'ctx://user/u1/memories/x.md'],
  ])('uriFromPath(%s) = %s', (path, expected) => {
    expect(uriFromPath(path)).toBe(expected);
    expect(parseUri(expected, alice).path).toBe(path);
  });
});

describe('directory sidecars where an id or a space name would stand', () => {
  const who = { accountId: 'acc', userId: 'u1', role: 'USER' } as unknown as Parameters<typeof parseUri>[1];
  it('parse as files of their directory, with its shape', () => {
    const skills = parseUri('ctx://user/u1/skills/.abstract.md', who);
    expect(skills).toMatchObject({ scope: 'user', userId: 'u1', space: 'skills', contextType: 'skill', name: '.abstract.md', parent: 'ctx://user/u1/skills' });
    expect(skills.skillName).toBeUndefined();
    expect(parseUri('ctx://user/u1/sessions/.overview.md', who)).toMatchObject({ space: 'sessions', contextType: 'session', sessionId: undefined });
    expect(parseUri('ctx://user/u1/peers/.abstract.md', who)).toMatchObject({ space: 'peers', peerId: undefined });
    expect(parseUri('ctx://user/u1/.abstract.md', who)).toMatchObject({ userId: 'u1', space: undefined, contextType: null });
    expect(parseUri('ctx://user/.relations.json', who)).toMatchObject({ scope: 'user', userId: undefined });
    expect(parseUri('ctx://agent/.abstract.md', who)).toMatchObject({ scope: 'agent', agentId: undefined, readOnly: true });
    expect(parseUri('ctx://~/skills/.abstract.md', who)).toMatchObject({ path: 'user/u1/skills/.abstract.md', space: 'skills' });
  });
  it('other dot names there are still refused', () => {
    expect(() => parseUri('ctx://user/u1/skills/.hidden', who)).toThrow(/invalid skill name/);
    expect(() => parseUri('ctx://user/u1/.abstract.md/memories', who)).toThrow(/unknown user space/);
  });
});
