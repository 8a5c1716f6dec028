import { describe, expect, it } from 'vitest';
import { queryTermMatcher } from '../../plugins/retrieval/find.js';

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
});
