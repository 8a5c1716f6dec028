/**
 * Character- and segment-level checks of the path part of a `ctx://` URI. The hot path is one
 * charCode loop with no allocation; messages are only built once something is wrong.
 */

export const MAX_URI_BYTES = 4096;
export const MAX_SEGMENT_BYTES = 255;

/** `scanText` results that are not an offending index. */
export const TEXT_ASCII = -1;
export const TEXT_NON_ASCII = -2;

const PERCENT = 0x25;
const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const DOT = 0x2e;

/**
 * Returns the index of the first forbidden character, or TEXT_ASCII / TEXT_NON_ASCII when the
 * text is clean. Forbidden: C0 controls, DEL, C1 controls, backslash, line/paragraph separators,
 * bidi embedding/override/isolate controls, unpaired surrogates and encoding-attack `%` sequences.
 */
export function scanText(s: string, from = 0): number {
  let nonAscii = false;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c < 0x20 || c === 0x7f || c === BACKSLASH) return i;
      if (c === PERCENT && isEncodedAttack(s, i)) return i;
      continue;
    }
    nonAscii = true;
    if (c <= 0x9f || c === 0x2028 || c === 0x2029 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) return i;
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1); // NaN past the end
      if (c > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return i;
      i++;
    }
  }
  return nonAscii ? TEXT_NON_ASCII : TEXT_ASCII;
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x61 + 10 : -1;
}

/** The byte encoded by two hex digits at `i`, or -1. */
function hexByte(s: string, i: number): number {
  const hi = hexDigit(s.charCodeAt(i));
  const lo = hexDigit(s.charCodeAt(i + 1));
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

/**
 * `%` at `i` starts a sequence that decodes to a separator, a dot, a percent sign, a control
 * character, an overlong UTF-8 form (the classic `%c0%ae`) or uses IIS-style `%uXXXX`. We never
 * decode; such sequences only appear in names when a client is trying to smuggle structure.
 */
function isEncodedAttack(s: string, i: number): boolean {
  const b = hexByte(s, i + 1);
  if (b >= 0) {
    if (b < 0x20 || b === 0x7f || b === DOT || b === SLASH || b === BACKSLASH || b === PERCENT) return true;
    if (b === 0xc0 || b === 0xc1) return true;
    if ((b === 0xe0 || b === 0xf0) && s.charCodeAt(i + 3) === PERCENT) {
      const b2 = hexByte(s, i + 4);
      return b === 0xe0 ? b2 >= 0x80 && b2 <= 0x9f : b2 >= 0x80 && b2 <= 0x8f;
    }
    return false;
  }
  return (s.charCodeAt(i + 1) | 0x20) === 0x75 && hexByte(s, i + 2) >= 0 && hexByte(s, i + 4) >= 0;
}

/** Human description of the problem `scanText` found at `i`. */
export function describeTextProblem(s: string, i: number): string {
  const c = s.charCodeAt(i);
  if (c === 0) return 'NUL characters are not allowed';
  if (c === BACKSLASH) return 'backslashes are not allowed';
  if (c === PERCENT) {
    const seq = s.charCodeAt(i + 1) === 0x75 || s.charCodeAt(i + 1) === 0x55 ? s.slice(i, i + 6) : s.slice(i, i + 3);
    return `percent-encoded sequence "${seq}" is not allowed (ctx URIs are never percent-decoded; encoded dots, slashes, backslashes, percent signs, control characters and overlong forms are refused)`;
  }
  if (c >= 0xd800 && c <= 0xdfff) return 'unpaired UTF-16 surrogates are not allowed';
  return `control character U+${c.toString(16).toUpperCase().padStart(4, '0')} is not allowed`;
}

/** UTF-8 byte length; `nonAscii` false means it equals `s.length`. */
export function utf8Length(s: string, nonAscii: boolean): number {
  return nonAscii ? Buffer.byteLength(s, 'utf8') : s.length;
}

/** Why `seg` is not a valid path segment, or null. A UTF-16 unit is at most 3 UTF-8 bytes. */
export function segmentProblem(seg: string, nonAscii: boolean): string | null {
  if (seg.length === 0) return 'empty path segments ("//") are not allowed';
  if (seg.charCodeAt(0) === DOT && (seg.length === 1 || (seg.length === 2 && seg.charCodeAt(1) === DOT))) {
    return `"${seg}" segments are not allowed`;
  }
  if (seg.length > MAX_SEGMENT_BYTES || (nonAscii && seg.length * 3 > MAX_SEGMENT_BYTES && utf8Length(seg, true) > MAX_SEGMENT_BYTES)) {
    return `path segment is longer than ${MAX_SEGMENT_BYTES} UTF-8 bytes`;
  }
  return null;
}

/** Why a single name (for joinUri) is not a valid segment, or null. */
export function nameProblem(name: string): string | null {
  if (name.indexOf('/') >= 0) return 'a name must not contain "/"';
  const at = scanText(name);
  if (at >= 0) return describeTextProblem(name, at);
  return segmentProblem(name, at === TEXT_NON_ASCII);
}
