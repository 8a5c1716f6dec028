import { describe, expect, it } from 'vitest';
import { extractStatements, slug } from '../../plugins/sessions/extract.js';
import { mergeInto } from '../../plugins/sessions/memories.js';
import { MEMORY_CATEGORIES, type Message } from '../../plugins/sessions/types.js';

const all = new Set(MEMORY_CATEGORIES);
const user = (text: string, extra: Partial<Message> = {}): Message => ({ id: 'm', role: 'user', parts: [{ type: 'text', text }], created_at: '2026-01-01T00:00:00.000Z', ...extra });

describe('deterministic extraction', () => {
  it('takes explicit preferences, profile facts and dated facts from user messages only', () => {
    const items = extractStatements(
      [
        user("I really like TypeScript. My favourite editor is Neovim. I'm 34 years old. I work at Acme Corp. I live in Berlin. I'm a data engineer."),
        user('The release ships on 12 March 2026. We met on June 3rd.'),
        { ...user('I prefer cats.'), role: 'assistant' },
        user('Do I like coffee? I prefer tea?'),
      ],
      all,
    );
    expect(items.map((i) => [i.category, i.key, i.replaceKey])).toEqual([
      ['preferences', 'typescript', undefined],
      ['preferences', 'favorite-editor', undefined], // both spellings share one file
      ['profile', 'profile', 'age'],
      ['profile', 'profile', 'employer'],
      ['profile', 'profile', 'location'],
      ['profile', 'profile', 'role'],
      ['events', '2026-03-12', undefined],
      ['events', '06-03', undefined],
    ]);
  });

  it('honours the enabled categories and keeps the peer', () => {
    const items = extractStatements([user('I love tea. My name is Bo.', { peer_id: 'p1' })], new Set(['profile']));
    expect(items).toEqual([{ category: 'profile', key: 'profile', replaceKey: 'name', text: 'My name is Bo', peer_id: 'p1' }]);
  });

  it('slugs are stable, short and unicode-aware', () => {
    expect(slug('The Python for  scripting!')).toBe('python-scripting');
    expect(slug('咖啡 和 茶')).toBe('咖啡-和-茶');
    expect(slug('???')).toBe('note');
    expect(slug('a'.repeat(100)).length).toBeLessThanOrEqual(60);
  });
});

describe('memory file merge', () => {
  it('adds new statements once, ignoring case, spacing and final punctuation', () => {
    const a = mergeInto(null, 'preferences: tea', [{ category: 'preferences', key: 'tea', text: 'I like tea' }]);
    expect(a.text).toBe('# preferences: tea\n\n- I like tea\n');
    const b = mergeInto(a.text, 'x', [
      { category: 'preferences', key: 'tea', text: 'i  like TEA.' },
      { category: 'preferences', key: 'tea', text: 'I like green tea' },
    ]);
    expect(b.added).toEqual(['I like green tea']);
    expect(b.text).toBe('# preferences: tea\n\n- I like tea\n- I like green tea\n');
    expect(mergeInto(b.text, 'x', [{ category: 'preferences', key: 'tea', text: 'I like tea' }]).added).toEqual([]);
  });

  it('replaces a keyed profile fact instead of adding a second one', () => {
    const a = mergeInto(null, 'profile', [{ category: 'profile', key: 'profile', replaceKey: 'name', text: 'My name is Al' }]);
    const b = mergeInto(a.text, 'profile', [
      { category: 'profile', key: 'profile', replaceKey: 'name', text: 'My name is Alice' },
      { category: 'profile', key: 'profile', replaceKey: 'location', text: 'I live in Oslo' },
    ]);
    expect(b.text).toBe('# profile\n\n- **name**: My name is Alice\n- **location**: I live in Oslo\n');
  });
});
