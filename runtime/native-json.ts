/**
 * JSON string literals straight from UTF-8 bytes (core-native `jsonQuotedLen`/`jsonQuoteInto`),
 * for responses that carry a large text value: the literal is written by Rust directly into the
 * response buffer, skipping the decode to a JS string, `JSON.stringify` and the encode back
 * (bench/content.bench.ts). Falls back to JavaScript when the addon lacks the functions.
 */
import { JsonResult } from './http/reply.js';
import { native } from './native.js';

interface JsonAddon {
  jsonQuotedLen(src: Buffer): number;
  jsonQuoteInto(src: Buffer, dst: Buffer, offset: number): number;
}

let addon: JsonAddon | null | undefined;

function load(): JsonAddon | null {
  if (addon !== undefined) return addon;
  try {
    const a = native() as unknown as Partial<JsonAddon>;
    addon = typeof a.jsonQuotedLen === 'function' && typeof a.jsonQuoteInto === 'function' ? (a as JsonAddon) : null;
  } catch {
    addon = null;
  }
  return addon;
}

/**
 * A `result` equal to `bytes.toString('utf8')` as a JSON string. Invalid UTF-8 goes through the
 * JavaScript path, which decodes it with replacement characters exactly as before.
 */
export function jsonStringResult(bytes: Buffer): JsonResult {
  const a = load();
  const len = a ? a.jsonQuotedLen(bytes) : -1;
  if (!a || len < 0) return JsonResult.of(Buffer.from(JSON.stringify(bytes.toString('utf8'))));
  return new JsonResult((head, tail) => {
    const out = Buffer.allocUnsafe(head.length + len + tail.length);
    head.copy(out, 0);
    a.jsonQuoteInto(bytes, out, head.length);
    tail.copy(out, head.length + len);
    return out;
  });
}
