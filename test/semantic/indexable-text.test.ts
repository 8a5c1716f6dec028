import { describe, expect, it } from 'vitest';
import { indexableText } from '../../plugins/semantic/indexer.js';

const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000d49484452000000100000001008060000001ff3ff61', 'hex');

describe('what a file is indexed from', () => {
  it('text as it is', () => {
    expect(indexableText({ name: 'a.md', size: 5, meta: undefined }, Buffer.from('hello'))).toBe('hello');
  });

  it('a binary file (NUL bytes) is described, not decoded', () => {
    const text = indexableText({ name: 'chart.png', size: PNG_HEAD.length, meta: undefined }, PNG_HEAD);
    expect(text).toBe(`chart.png (binary file, ${PNG_HEAD.length} bytes)`);
    expect(text).not.toContain('\ufffd');
  });

  it('a media node is described by its recorded metadata', () => {
    const text = indexableText({ name: 'chart.png', size: 2048, meta: { media: { format: 'png', width: 16, height: 16 } } }, PNG_HEAD);
    expect(text.split('\n')).toEqual(['chart.png (binary file, 2048 bytes)', 'format: png', 'width: 16', 'height: 16']);
  });

  it('text in another encoding still decodes (lossily)', () => {
    expect(indexableText({ name: 'old.txt', size: 4, meta: undefined }, Buffer.from('caf\xe9 bar', 'latin1'))).toContain('bar');
  });
});
