/**
 * parseBatchBody must give what JSON.parse of the body gives (contents as slices of the body where
 * it can), for any input: random bodies, escapes, control characters, invalid UTF-8, keys, nesting,
 * duplicate keys, `__proto__`, malformed JSON (same error message).
 */
import { describe, expect, it } from 'vitest';
import { contentBytes, parseBatchBody } from '../../plugins/content/batch-body.js';

const parseRef = (raw: Buffer) => JSON.parse(raw.toString('utf8'));

/** The parsed body with every top-level operation content as bytes (a slice or the string's UTF-8), and whether any was a slice. */
function materialize(raw: Buffer): { body: unknown; slices: number } {
  const body = parseBatchBody(raw) as { operations?: Array<Record<string, unknown>> };
  let slices = 0;
  if (body && typeof body === 'object' && Array.isArray(body.operations))
    for (const op of body.operations)
      if (op && typeof op === 'object' && typeof op.content === 'string') {
        const bytes = contentBytes(op.content, raw);
        if (bytes) {
          slices++;
          expect(bytes.buffer).toBe(raw.buffer); // a view of the body, not a copy
          op.content = bytes.toString('utf8');
        }
      }
  return { body, slices };
}

function expectSame(json: string | Buffer): number {
  const raw = typeof json === 'string' ? Buffer.from(json, 'utf8') : json;
  const { body, slices } = materialize(raw);
  expect(body).toEqual(parseRef(raw));
  return slices;
}

let seed = 42;
const rnd = (n: number) => {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return seed % n;
};
const ALPHABET = ['a', 'b', ' ', '\n', '"', '\\', '\u0001', 'é', '日', '😀', '\u2028', '\ud800', '/', '{', '}', ':', ',', '\t'];
function randomText(len: number, plainOnly: boolean): string {
  let s = '';
  while (s.length < len) s += plainOnly ? ALPHABET[[0, 1, 2, 7, 8, 9, 10, 12, 13, 14, 15, 16][rnd(12)]!] : ALPHABET[rnd(ALPHABET.length)];
  return s;
}

describe('parseBatchBody', () => {
  it('equals JSON.parse on random batch bodies (long and short, plain and escaped contents, ASCII and not)', () => {
    let sliced = 0;
    for (let round = 0; round < 60; round++) {
      const ops = Array.from({ length: 1 + rnd(12) }, (_, i) => {
        const long = rnd(3) > 0;
        const op: Record<string, unknown> = { uri: `ctx://resources/p/f${i}.txt`, content: randomText(long ? 512 + rnd(3000) : rnd(600), rnd(2) === 0) };
        if (rnd(4) === 0) op.mode = 'upsert';
        if (rnd(6) === 0) op.precondition = { kind: 'replace_if_hash', base_hash: 'sha256:' + 'a'.repeat(64) };
        if (rnd(8) === 0) op.extra = { note: randomText(600 + rnd(100), true), list: [randomText(700, true), 1, null] };
        return op;
      });
      const body = { root_uri: 'ctx://resources/p', operations: ops, wait: rnd(2) === 0, ...(rnd(5) === 0 ? { telemetry: { summary: true } } : {}) };
      const text = rnd(3) === 0 ? JSON.stringify(body, null, 1 + rnd(3)) : JSON.stringify(body);
      sliced += expectSame(text);
    }
    expect(sliced).toBeGreaterThan(100);
  });

  it('slices plain long contents, and leaves escaped, control-character and invalid UTF-8 ones as strings', () => {
    const plain = 'p'.repeat(600);
    expect(expectSame(JSON.stringify({ operations: [{ uri: 'u', content: plain }] }))).toBe(1);
    expect(expectSame(JSON.stringify({ operations: [{ uri: 'u', content: 'e"scaped'.repeat(100) }] }))).toBe(0);
    expect(expectSame(JSON.stringify({ operations: [{ uri: 'u', content: 'multi ✓ byte '.repeat(60) }] }))).toBe(1);
    // A raw control character inside a string is invalid JSON: the same error as JSON.parse.
    const ctrl = Buffer.from(`{"operations":[{"uri":"u","content":"${'x'.repeat(600)}\u0001"}]}`, 'latin1');
    expect(() => parseBatchBody(ctrl)).toThrow(new RegExp(escape(errorOf(ctrl))));
    // Invalid UTF-8 decodes to replacement characters, as JSON.parse of the decoded body does.
    const bad = Buffer.concat([Buffer.from(`{"operations":[{"uri":"u","content":"${'y'.repeat(600)}`), Buffer.from([0xff, 0xc3]), Buffer.from('"}]}')]);
    expect(expectSame(bad)).toBe(0);
  });

  it('restores long strings outside operations[i].content: other fields, nested values, keys, __proto__, duplicates', () => {
    const long = 'L'.repeat(700);
    expect(expectSame(JSON.stringify({ root_uri: long, operations: [{ uri: long, content_base64: 'QQ=='.repeat(200), mode: long }], [long]: long }))).toBe(0);
    expect(expectSame(`{"operations":[{"uri":"u","content":"${long}a","content":"${long}b"}],"operations2":[{"content":"${long}"}]}`)).toBe(1);
    const proto = `{"__proto__":{"content":"${long}"},"operations":[{"__proto__":"${long}","content":"${long}"}]}`;
    const { body } = materialize(Buffer.from(proto));
    expect(body).toEqual(parseRef(Buffer.from(proto)));
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(expectSame(JSON.stringify({ operations: { content: long } }))).toBe(0);
    expect(expectSame(JSON.stringify([{ content: long }]))).toBe(0);
    expect(expectSame(JSON.stringify({ operations: [long, [long], { content: [long] }] }))).toBe(0);
    expect(expectSame(JSON.stringify(long))).toBe(0);
  });

  it('a client string shaped like a reference stays that string', () => {
    const fake = '\u0000ctx-body-0000000000000000:10:20' + 'z'.repeat(600);
    expect(expectSame(JSON.stringify({ operations: [{ uri: 'u', content: fake }] }))).toBe(0);
    expect(contentBytes('\u0000ctx-body-0000000000000000:10:20', Buffer.from('{"x":"0123456789012345678901234"}'))).toBeUndefined();
  });

  it('malformed bodies throw the error JSON.parse throws for the whole body', () => {
    const long = 'm'.repeat(700);
    for (const text of [`{"operations":[{"content":"${long}"}`, `{"operations":[{"content":"${long}"}]}}`, `{"operations":[{"content":"${long}`, `{"a":"${long}" "b":1}`, `{"a":"${long}",}`])
      expect(() => parseBatchBody(Buffer.from(text))).toThrow(new RegExp(escape(errorOf(Buffer.from(text)))));
  });
});

function errorOf(raw: Buffer): string {
  try {
    parseRef(raw);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected invalid JSON');
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
