import { describe, expect, it } from 'vitest';
import { parseQueryString, s } from '../../runtime/schema.js';

const body = s.object({
  uri: s.string({ min: 1 }),
  limit: s.int({ min: 1, max: 100 }).default(10),
  wait: s.bool().default(false),
  mode: s.enum(['replace', 'append']).default('replace'),
  tags: s.array(s.string(), { max: 3 }).optional(),
  nested: s.object({ kind: s.enum(['a', 'b']) }).optional(),
  either: s.union<string | string[]>([s.string(), s.array(s.string())], 'a string or an array of strings').optional(),
  note: s.string().nullable().optional(),
});

const err = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e as { code: string; details: { field: string }; message: string };
  }
  throw new Error('expected an error');
};

describe('schema: JSON bodies', () => {
  it('applies defaults and keeps given values', () => {
    expect(body.parse({ uri: 'ctx://x' })).toEqual({ uri: 'ctx://x', limit: 10, wait: false, mode: 'replace' });
    expect(body.parse({ uri: 'u', limit: 5, wait: true, tags: ['a=b'], either: ['x'], note: null })).toMatchObject({ limit: 5, wait: true, tags: ['a=b'], either: ['x'], note: null });
  });

  it.each([
    [{}, 'uri', /uri is required/],
    [{ uri: '' }, 'uri', /must not be empty/],
    [{ uri: 5 }, 'uri', /must be a string, got number/],
    [{ uri: 'u', limit: '5' }, 'limit', /must be an integer/],
    [{ uri: 'u', limit: 1.5 }, 'limit', /must be an integer/],
    [{ uri: 'u', limit: 0 }, 'limit', />= 1/],
    [{ uri: 'u', limit: 101 }, 'limit', /<= 100/],
    [{ uri: 'u', wait: 'true' }, 'wait', /boolean/],
    [{ uri: 'u', mode: 'merge' }, 'mode', /one of replace, append/],
    [{ uri: 'u', tags: 'a=b' }, 'tags', /must be an array/],
    [{ uri: 'u', tags: ['a', 'b', 'c', 'd'] }, 'tags', /at most 3/],
    [{ uri: 'u', tags: [1] }, 'tags[0]', /must be a string/],
    [{ uri: 'u', nested: { kind: 'c' } }, 'nested.kind', /one of a, b/],
    [{ uri: 'u', nested: { kind: 'a', extra: 1 } }, 'nested.extra', /unknown field/],
    [{ uri: 'u', either: 3 }, 'either', /a string or an array of strings/],
    [{ uri: 'u', surprise: true }, 'surprise', /unknown field surprise/],
  ])('%j → 400 on %s', (input, field, message) => {
    const e = err(() => body.parse(input));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.details.field).toBe(field);
    expect(e.message).toMatch(message);
  });

  it('rejects non-object bodies', () => {
    expect(err(() => body.parse([1])).message).toMatch(/must be an object, got array/);
    expect(err(() => body.parse(null)).message).toMatch(/got null/);
  });
});

describe('schema: query strings', () => {
  const q = s.object({ n: s.int().optional(), flag: s.bool().optional(), list: s.array(s.string()).optional(), x: s.number().optional() });
  it('coerces strings', () => {
    expect(q.parse(parseQueryString('n=5&flag=yes&list=a,b&x=1.5'), 'query', 'query')).toEqual({ n: 5, flag: true, list: ['a', 'b'], x: 1.5 });
    expect(q.parse(parseQueryString('flag=0'), 'query', 'query')).toEqual({ flag: false });
  });
  it('repeated keys become arrays', () => {
    expect(parseQueryString('list=a&list=b&tags[]=c')).toEqual({ list: ['a', 'b'], tags: ['c'] });
    expect(q.parse(parseQueryString('list=a&list=b'), 'query', 'query')).toEqual({ list: ['a', 'b'] });
  });
  it('rejects bad values naming the parameter', () => {
    expect(err(() => q.parse(parseQueryString('n=abc'), 'query', 'query')).details.field).toBe('n');
    expect(err(() => q.parse(parseQueryString('flag=maybe'), 'query', 'query')).details.field).toBe('flag');
    expect(err(() => q.parse(parseQueryString('other=1'), 'query', 'query')).details.field).toBe('other');
  });
});

describe('schema: compiled validator and JSON Schema', () => {
  // What the hand-written walker (`check`) returns is the reference: the compiled fast path must agree.
  it.each([
    [{ uri: 'ctx://x' }],
    [{ uri: 'u', limit: 5, wait: true, tags: ['a=b'], either: ['x'], note: null }],
    [{ uri: 'u', nested: { kind: 'a' }, either: 'x', note: 'n' }],
  ])('accepts %j with the result the walker gives', (input) => {
    expect(body.parse(structuredClone(input))).toEqual(body.check(structuredClone(input), 'body', 'json'));
  });

  it('fills defaults from a copy each time', () => {
    const withList = s.object({ list: s.array(s.string()).default([]) });
    const a = withList.parse({}) as { list: string[] };
    a.list.push('x');
    expect(withList.parse({})).toEqual({ list: [] });
  });

  it('strips unknown fields when asked, keeps them with allow', () => {
    expect(s.object({ a: s.int() }, { unknown: 'strip' }).parse({ a: 1, b: 2 })).toEqual({ a: 1 });
    expect(s.object({ a: s.int() }, { unknown: 'allow' }).parse({ a: 1, b: 2 })).toEqual({ a: 1, b: 2 });
  });

  it('query strings: coerced values and null still go through the walker', () => {
    const q = s.object({ n: s.int().optional(), note: s.string().nullable().optional(), list: s.array(s.string()).optional() });
    expect(q.parse(parseQueryString('n=5&note=null&list=a,b'), 'query', 'query')).toEqual({ n: 5, note: null, list: ['a', 'b'] });
    expect(q.parse(parseQueryString('list=a&list=b'), 'query', 'query')).toEqual({ list: ['a', 'b'] });
  });

  it('a flagged regular expression is checked by the walker', () => {
    const hex = s.object({ h: s.string({ pattern: /^[a-f]+$/i }) });
    expect(hex.parse({ h: 'ABC' })).toEqual({ h: 'ABC' });
    expect(() => hex.parse({ h: 'xyz' })).toThrow(/h is not valid/);
  });

  it('emits JSON Schema', () => {
    const json = JSON.parse(JSON.stringify(body.toJsonSchema()));
    expect(json).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['uri'],
      properties: {
        uri: { type: 'string', minLength: 1 },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
        mode: { anyOf: [{ const: 'replace' }, { const: 'append' }], default: 'replace' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
    });
    expect(JSON.parse(JSON.stringify(s.custom(() => 1, s.enum(['a'])).toJsonSchema()))).toEqual({ const: 'a', type: 'string' });
  });
});
