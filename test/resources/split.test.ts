import { describe, expect, it } from 'vitest';
import { slug, splitMarkdown } from '../../plugins/resources/split.js';
import { globMatcher } from '../../plugins/resources/tree.js';

const para = (n: number) => 'x'.repeat(n) + '\n\n';

describe('splitMarkdown (the large-document rule)', () => {
  it('keeps a document under the limit whole', () => {
    expect(splitMarkdown('# a\n\n' + para(100), 1000)).toBeNull();
  });

  it('cuts at the shallowest level that occurs twice, recursing into sections still over the limit', () => {
    const md = '# Book\n\n' + '## One\n\n' + para(300) + '## Two\n\n' + para(50) + '### Two A\n\n' + para(600) + '### Two B\n\n' + para(600);
    const out = splitMarkdown(md, 1000)!;
    expect(out.map((s) => s.rel)).toEqual(['00-preamble.md', '01-one.md', '02-two/00-preamble.md', '02-two/01-two-a.md', '02-two/02-two-b.md']);
    expect(out[2]!.text).toMatch(/^## Two\n/);
    expect(out.map((s) => s.text).join('')).toContain('### Two B');
  });

  it('a section without deeper headings stays whole; a document without headings is not split', () => {
    expect(splitMarkdown(para(5000), 1000)).toBeNull();
    const out = splitMarkdown('## A\n\n' + para(3000) + '## B\n\n' + para(10), 1000)!;
    expect(out.map((s) => s.rel)).toEqual(['01-a.md', '02-b.md']);
  });

  it('names: slugs keep letters of any script, duplicates are told apart', () => {
    expect(slug('Über die Känguru-Zählung!')).toBe('über-die-känguru-zählung');
    expect(slug('***')).toBe('section');
    const out = splitMarkdown('## Same\n\n' + para(600) + '## Same\n\n' + para(600), 1000)!;
    expect(new Set(out.map((s) => s.rel)).size).toBe(2);
  });
});

describe('include/exclude globs', () => {
  it('matches names at any depth without a slash, paths with one', () => {
    const m = globMatcher('*.md, src/**/*.{ts,py}', 'include')!;
    expect(['a.md', 'docs/deep/b.md', 'src/x.ts', 'src/a/b/y.py'].every(m)).toBe(true);
    expect(['a.txt', 'lib/x.ts', 'src/x.js'].some(m)).toBe(false);
    expect(globMatcher('', 'include')).toBeNull();
  });
});
