import { describe, expect, it } from 'vitest';
import { jsonQuoteInto, jsonStringResult } from '../../runtime/native.js';

const encode = (bytes: Buffer) => jsonStringResult(bytes).build(Buffer.from('['), Buffer.from(']')).toString('utf8');

describe('JSON string literals from UTF-8 bytes', () => {
  it('matches JSON.stringify of the decoded text, byte for byte', () => {
    const samples = ['', 'plain', 'a"b\\c', '\u0000\u0001\u0008\u0009\u000a\u000b\u000c\u000d\u001f\u007f', 'é😀\u2028\u2029', 'x'.repeat(1000) + '\n' + '"'.repeat(9)];
    let seed = 7;
    for (let n = 0; n < 200; n++) {
      let s = '';
      for (let i = 0; i < 50; i++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        const pick = seed % 6;
        s += pick === 0 ? String.fromCharCode(seed % 32) : pick === 1 ? '"\\' : pick === 2 ? 'ü€' : pick === 3 ? '😀' : 'abcdefgh'.slice(0, seed % 8);
      }
      samples.push(s);
    }
    for (const s of samples) expect(encode(Buffer.from(s))).toBe('[' + JSON.stringify(s) + ']');
  });

  it('invalid UTF-8 decodes with replacement characters, like toString', () => {
    for (const bytes of [Buffer.from([0x61, 0xff, 0x62]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xe2, 0x82])])
      expect(JSON.parse(encode(bytes))[0]).toBe(bytes.toString('utf8'));
  });

  it('refuses a destination without room instead of writing past it', () => {
    expect(() => jsonQuoteInto(Buffer.from('abc'), Buffer.alloc(4), 0)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => jsonQuoteInto(Buffer.from('abc'), Buffer.alloc(5), 1)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(jsonQuoteInto(Buffer.from('abc'), Buffer.alloc(6), 1)).toBe(5);
  });
});
