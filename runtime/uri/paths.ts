import { CtxError } from '../errors.js';
import { shown } from './invalid.js';
import { MAX_URI_BYTES, nameProblem } from './segments.js';
import { SCHEME } from './parse.js';
import type { CtxUri } from './types.js';

/** Tolerates one trailing slash on a non-root URI, so a stray `ctx://a/` never fails open or closed by accident. */
function trimSlash(uri: string): string {
  return uri.length > SCHEME.length && uri.charCodeAt(uri.length - 1) === 0x2f ? uri.slice(0, -1) : uri;
}

/**
 * Appends one name to a canonical parent URI. The name is NFC-normalized and must be a single
 * valid segment (no '/', '.', '..', control characters, encoded tricks, <= 255 bytes); anything
 * else throws INVALID_URI. The result is not re-classified: parse it when it crosses a trust boundary.
 */
export function joinUri(parent: CtxUri | string, name: string): string {
  const base = trimSlash(typeof parent === 'string' ? parent : parent.uri);
  if (!base.startsWith(SCHEME)) {
    throw new CtxError('INVALID_URI', `invalid parent ${shown(base)}: URIs start with "ctx://"`, { uri: base });
  }
  const nfc = typeof name === 'string' ? name.normalize('NFC') : name;
  const problem = typeof nfc === 'string' ? nameProblem(nfc) : 'a name must be a string';
  if (problem !== null) {
    throw new CtxError('INVALID_URI', `invalid name ${shown(String(name))} under ${base}: ${problem}`, { uri: base, name });
  }
  const joined = base === SCHEME ? SCHEME + nfc : `${base}/${nfc}`;
  if (Buffer.byteLength(joined, 'utf8') > MAX_URI_BYTES) {
    throw new CtxError('INVALID_URI', `${shown(joined)} is longer than ${MAX_URI_BYTES} bytes`, { uri: base, name });
  }
  return joined;
}

/** Segment-aware prefix test on canonical URIs: `ctx://resources/a` is not an ancestor of `ctx://resources/ab`. */
export function isAncestorOrSelf(ancestor: string, uri: string): boolean {
  const a = trimSlash(ancestor);
  const u = trimSlash(uri);
  if (a === SCHEME) return u.startsWith(SCHEME);
  return u === a || (u.length > a.length && u.charCodeAt(a.length) === 0x2f && u.startsWith(a));
}

/**
 * The path of `uri` below `ancestor` without a leading slash: `''` for the ancestor itself.
 * Throws INVALID_ARGUMENT when `uri` is not below `ancestor`.
 */
export function relativePath(ancestor: string, uri: string): string {
  const a = trimSlash(ancestor);
  const u = trimSlash(uri);
  if (!isAncestorOrSelf(a, u)) {
    throw new CtxError('INVALID_ARGUMENT', `${u} is not inside ${a}`, { resource: u, ancestor: a });
  }
  if (u.length === a.length) return '';
  return a === SCHEME ? u.slice(SCHEME.length) : u.slice(a.length + 1);
}

/** Storage path to URI: `'resources/a'` → `'ctx://resources/a'`, `''` → `'ctx://'`. For trusted internal paths only. */
export function uriFromPath(path: string): string {
  return SCHEME + path;
}

/** Number of segments of a URI's space root: `resources` 1, `user/u/memories` 3, `user/u/peers/p/memories` 5. */
export function spaceRootDepth(u: CtxUri): number {
  if (u.scope === 'resources') return 1;
  if (u.scope === 'user') return u.peerId !== undefined ? 5 : 3;
  if (u.scope === 'agent') return Math.min(u.segments.length, 3);
  return 0;
}

/**
 * The root a node belongs to (the `root_uri` of writes, mkdir and stat): its space root plus the
 * first segment below it when the node is deeper, e.g. `ctx://resources/docs/a/b.md` →
 * `ctx://resources/docs`, `ctx://user/u/skills/s/SKILL.md` → `ctx://user/u/skills/s`.
 */
export function rootUriOf(u: CtxUri): string {
  const depth = spaceRootDepth(u);
  return uriFromPath(u.segments.slice(0, u.segments.length - 1 > depth ? depth + 1 : depth).join('/'));
}
