/**
 * Parsing of batch-write bodies without turning the file contents into JS strings.
 *
 * A batch carries up to 16 MiB of content as JSON strings. `JSON.parse` would decode the whole body
 * to a string, copy every content into a new string, and the handler would encode each one back to
 * bytes: three copies of the payload and ~2-3 MB of garbage per 1 MB batch (GC on 2 cores was a
 * large part of the cost, bench/RESULTS.md). Here a long string value whose bytes need no JSON
 * unescaping (valid UTF-8; no quote, backslash or control character) is left in the request body:
 * the JSON text handed to `JSON.parse` carries a short reference to its byte range instead, and the
 * handler takes the content as a slice of the body (`contentBytes`). Everything else is what
 * `JSON.parse` of the body gives:
 * - references are only made for string values (never keys) and are turned back into the decoded
 *   string anywhere but `operations[i].content` before the schema sees the body;
 * - the replaced bytes are exactly those `JSON.parse` would have decoded to the same string (the
 *   check is core-native `jsonQuotedLen`, which fails on invalid UTF-8 and counts escapes), and
 *   the text between them is decoded piecewise at quote boundaries, which cannot split a UTF-8
 *   sequence, so the parsed value is the same;
 * - any surprise (unterminated string, malformed JSON) parses the whole body with
 *   `JSON.parse` as before, so errors and their messages are unchanged.
 */
import { isAscii } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { jsonQuotedLen } from 'ctx/plugin';

/** Strings shorter than this stay in the JSON text (a reference costs a few dozen characters). */
const MIN_BYTES = 512;
/** A per-process nonce: a client string cannot be mistaken for a reference by accident. */
const TAG = `\u0000ctx-body-${randomBytes(8).toString('hex')}:`;
const TAG_JSON = JSON.stringify(TAG).slice(1, -1);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const decode = (raw: Buffer, ascii: boolean, start: number, end: number) => raw.toString(ascii ? 'latin1' : 'utf8', start, end);

function isWhitespace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/**
 * `JSON.parse` of the body, with long plain `operations[i].content` strings left as references
 * into `raw` (see `contentBytes`). Throws what `JSON.parse` of the whole body throws.
 */
export function parseBatchBody(raw: Buffer): unknown {
  const ascii = isAscii(raw);
  const full = () => JSON.parse(decode(raw, ascii, 0, raw.length));
  if (raw.length < MIN_BYTES) return full();
  const parts: string[] = [];
  let from = 0;
  let i = 0;
  let refs = 0;
  for (;;) {
    // Outside a string a quote can only open one; inside, the first quote not escaped by an odd
    // run of backslashes closes it.
    const open = raw.indexOf(QUOTE, i);
    if (open < 0) break;
    let close = raw.indexOf(QUOTE, open + 1);
    for (;;) {
      if (close < 0) return full();
      let k = close - 1;
      while (raw[k] === BACKSLASH) k--;
      if ((close - 1 - k) % 2 === 0) break;
      close = raw.indexOf(QUOTE, close + 1);
    }
    i = close + 1;
    if (close - open - 1 < MIN_BYTES) continue;
    let next = i;
    while (next < raw.length && isWhitespace(raw[next]!)) next++;
    if (raw[next] === 0x3a) continue; // a key
    const bytes = raw.subarray(open + 1, close);
    if (jsonQuotedLen(bytes) !== bytes.length + 2) continue; // escapes, control characters or invalid UTF-8
    parts.push(decode(raw, ascii, from, open + 1), `${TAG_JSON}${open + 1}:${close}`);
    from = close;
    refs++;
  }
  if (refs === 0) return full();
  parts.push(decode(raw, ascii, from, raw.length));
  let body: unknown;
  try {
    body = JSON.parse(parts.join(''));
  } catch {
    return full(); // the genuine error message, positions of the original body
  }
  return restoreBody(body, raw, ascii);
}

/** Puts decoded strings back for every reference that is not a top-level operation's content. */
function restoreBody(body: unknown, raw: Buffer, ascii: boolean): unknown {
  if (!isRecord(body)) return restore(body, raw, ascii);
  for (const key in body) {
    const v = body[key];
    if (key === 'operations' && Array.isArray(v)) {
      for (let j = 0; j < v.length; j++) {
        const op = v[j];
        if (isRecord(op)) {
          for (const k in op) if (k !== 'content' || typeof op[k] !== 'string') set(op, k, restore(op[k], raw, ascii));
        } else v[j] = restore(op, raw, ascii);
      }
    } else set(body, key, restore(v, raw, ascii));
  }
  return body;
}

function restore(value: unknown, raw: Buffer, ascii: boolean): unknown {
  if (typeof value === 'string') return value.startsWith(TAG) ? decodeRef(value, raw, ascii) : value;
  if (Array.isArray(value)) {
    for (let j = 0; j < value.length; j++) value[j] = restore(value[j], raw, ascii);
  } else if (isRecord(value)) for (const key in value) set(value, key, restore(value[key], raw, ascii));
  return value;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Replaces an own property only when it changed; `__proto__` (an own data property after JSON.parse) without invoking the setter. */
function set(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (obj[key] === value) return;
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

function decodeRef(ref: string, raw: Buffer, ascii: boolean): string {
  const range = rangeOf(ref, raw);
  return range ? decode(raw, ascii, range[0], range[1]) : ref;
}

/** The byte range a reference names; null for a string that is not a reference into this body. */
function rangeOf(ref: string, raw: Buffer): [number, number] | null {
  const colon = ref.indexOf(':', TAG.length);
  const start = Number(ref.slice(TAG.length, colon));
  const end = Number(ref.slice(colon + 1));
  if (colon < 0 || !Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end > raw.length - 1 || start > end || raw[start - 1] !== QUOTE || raw[end] !== QUOTE) return null;
  return [start, end];
}

/**
 * The UTF-8 bytes of an operation's `content` as parsed by `parseBatchBody`: a slice of the request
 * body for a reference, undefined for a plain string (the caller encodes it).
 */
export function contentBytes(content: string, raw: Buffer | undefined): Buffer | undefined {
  if (raw === undefined || !content.startsWith(TAG)) return undefined;
  const range = rangeOf(content, raw);
  return range ? raw.subarray(range[0], range[1]) : undefined;
}
