import { describe, expect, it } from 'vitest';
import { queryTermMatcher } from '../../plugins/retrieval/find.js';
import { termsIndex } from '../../plugins/retrieval/match-terms.js';

describe('queryTermMatcher (match_reason shared terms)', () => {
  it('finds whole query words, case-insensitively, in query order', () => {
    const m = queryTermMatcher('Vacuum autovacuum TUNING for postgres');
    expect(m('Postgres AUTOVACUUM settings: tuning the vacuum cost limit')).toEqual(['vacuum', 'autovacuum', 'tuning', 'postgres']);
  });
  it('never matches inside a longer word', () => {
    const m = queryTermMatcher('cat log');
    expect(m('catalog concatenate blog logs')).toEqual([]);
    expect(m('a cat, a log.')).toEqual(['cat', 'log']);
  });
  it('handles non-Latin words and digits', () => {
    expect(queryTermMatcher('Größe 42 東京')('die GRÖSSE von 42 in 東京')).toEqual(['42', '東京']);
    expect(queryTermMatcher('größe')('Größe')).toEqual(['größe']);
  });
  it('a query without words matches nothing', () => {
    expect(queryTermMatcher('  ?! ')('anything')).toEqual([]);
  });
  it('a record\'s terms index gives the answer its text gives', () => {
    // Random texts over an alphabet of word and non-word characters that stress the boundary
    // rule: case, accents, a combining mark, Greek sigma, CJK, an astral letter and an emoji,
    // digits, underscores, punctuation; abstracts cut from the text or made up.
    const alphabet = ['a', 'b', 'A', 'é', 'É', 'e\u0301', 'σ', 'Σ', 'ς', '東', '京', '𝒜', '🙂', '4', '2', '_', '-', '.', ' ', ' ', ' ', 'ß', 'İ'];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const gen = (len: number) => Array.from({ length: len }, () => alphabet[rand(alphabet.length)]).join('');
    for (let i = 0; i < 400; i++) {
      const text = gen(5 + rand(60));
      const abstract = rand(2) ? text.slice(0, rand(text.length + 1)) : gen(rand(30));
      const uri = `ctx://resources/${gen(rand(8))}.md`;
      const slim = { attrs: { uri }, abstract, ...termsIndex(uri, text, abstract) };
      for (let j = 0; j < 5; j++) {
        const q = `${gen(rand(12))} ${text.slice(rand(text.length), rand(text.length + 1))}`;
        expect(queryTermMatcher(q)(slim)).toEqual(queryTermMatcher(q)(`${uri} ${text}`));
      }
    }
  });
});
