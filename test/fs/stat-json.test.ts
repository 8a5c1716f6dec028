/** The fs stat answer is written out by hand (plugins/fs/ops.ts `statJson`): byte-identical to JSON.stringify. */
import { describe, expect, it } from 'vitest';
import { statJson, type StatResult } from '../../plugins/fs/ops.js';

const file: StatResult = { name: 'readme.md', size: 512, mode: 0o100644, modTime: '2026-11-27T18:00:00.000Z', isDir: false, isLocked: false, id: '0123456789abcdef0123456789abcdef', uri: 'ctx://resources/docs/readme.md' };
const dir: StatResult = { name: 'docs', size: 0, mode: 0o40755, modTime: '1970-01-01T00:00:00.000Z', isDir: true, isLocked: true, uri: 'ctx://resources/docs' };

describe('statJson', () => {
  it.each([
    ['a file', file],
    ['a directory without count', dir],
    ['a directory with count', { ...dir, count: 42 }],
    ['count 0, size 0, a locked file', { ...file, size: 0, isLocked: true }],
    ['quotes, backslash-free punctuation and spaces', { ...file, name: 'a "quoted" name & <tag>.md', uri: 'ctx://resources/a "quoted" name & <tag>.md' }],
    ['non-ASCII (NFC), emoji, CJK', { ...file, name: 'café 🚀 文件.md', uri: 'ctx://resources/café 🚀 文件.md' }],
    ['DEL and a tab (not valid in a URI, escaped the same anyway)', { ...file, name: 'x\u007fy\tz', uri: 'ctx://resources/x\u007fy\tz' }],
    ['a backslash and a lone surrogate', { ...file, name: 'a\\b\ud800', uri: 'ctx://resources/a\\b\ud800' }],
    ['large and fractional numbers', { ...file, size: 2 ** 53 - 1, mode: 1e21, count: 0.5 }],
    ['non-finite numbers become null', { ...file, size: Number.NaN, mode: Number.POSITIVE_INFINITY }],
    ['negative zero', { ...file, size: -0 }],
  ] as Array<[string, StatResult]>)('%s', (_, r) => {
    expect(statJson(r)).toBe(JSON.stringify(r));
  });
});
