/** The texts of code navigation, from real outlines of the core (no server). */
import { describe, expect, it } from 'vitest';
import { outlineCode } from '../../runtime/native.js';
import { CAP_NOTE, expandText, flatten, matchSymbols, outlineText, resolveSymbol, searchText } from '../../plugins/code-nav/format.js';

const RUST = `struct Point { x: i32 }

impl Point {
    fn new() -> Self { Point { x: 0 } }
}

impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { Ok(()) }
}

fn new() {}
`;

describe('code-nav texts', () => {
  it('qualifies impl members by their type, and a bare name prefers the outermost symbol', () => {
    const o = outlineCode(RUST, 'a.rs');
    expect(flatten(o.symbols).map((q) => q.qualified)).toEqual(['Point', 'Point', 'Point.new', 'std::fmt::Display for Point', 'Point.fmt', 'new']);
    expect(resolveSymbol(o.symbols, 'new')!.qualified).toBe('new');
    expect(resolveSymbol(o.symbols, 'Point.new')!.symbol.startLine).toBe(4);
    expect(resolveSymbol(o.symbols, 'Point.fmt')!.symbol.startLine).toBe(8);
    expect(resolveSymbol(o.symbols, 'missing')).toBeNull();
  });

  it('matches bare names, or qualified names when the query has a dot', () => {
    const o = outlineCode(RUST, 'rust');
    expect(matchSymbols(o.symbols, 'NEW').map((q) => q.qualified)).toEqual(['Point.new', 'new']);
    expect(matchSymbols(o.symbols, 'point.').map((q) => q.qualified)).toEqual(['Point.new', 'Point.fmt']);
  });

  it('outline text: header, members indented, a blank line after containers, syntax errors noted', () => {
    const o = outlineCode('class A:\n    def f(self):\n        pass\n\ndef g(:\n', 'py');
    expect(outlineText('ctx://resources/a.py', o)).toBe(
      'ctx://resources/a.py  [python, 5 lines]\n\nclass A  L1-3\n  method f  L2-3\n\nfunction g  L5-5\n\n(the file has syntax errors; symbols after them may be missing)',
    );
    expect(outlineText('ctx://resources/e.py', outlineCode('', 'py'))).toBe('ctx://resources/e.py  [python, 0 lines]\n\n(no symbols)');
  });

  it('search text: counts, files with hits only, notes last', () => {
    const o = outlineCode(RUST, 'rs');
    const text = searchText('new', 3, [
      { uri: 'ctx://resources/a.rs', hits: matchSymbols(o.symbols, 'new') },
      { uri: 'ctx://resources/b.rs', hits: [] },
    ], [CAP_NOTE]);
    expect(text).toBe(`2 matches for "new" (scanned 3 files)\n\nctx://resources/a.rs\n  Point.new  L4-4\n  new  L11-11\n\n${CAP_NOTE}`);
    expect(searchText('zz', 0, [], [])).toBe('No matches for "zz" (scanned 0 files)');
  });

  it('expand text keeps the lines as they are, CRLF and a last line without newline included', () => {
    const src = 'def a():\r\n    return 1\r\n\r\ndef b():\r\n    return 2';
    const o = outlineCode(src, 'py');
    expect(expandText('ctx://x.py', src, resolveSymbol(o.symbols, 'a')!)).toBe('# ctx://x.py  L1-2  (a)\n\ndef a():\r\n    return 1');
    expect(expandText('ctx://x.py', src, resolveSymbol(o.symbols, 'b')!)).toBe('# ctx://x.py  L4-5  (b)\n\ndef b():\r\n    return 2');
  });
});
