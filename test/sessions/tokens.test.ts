import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetTokens, countTokens, messageTokens, wideCharTokens } from '../../plugins/sessions/tokens.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { client } from './helpers.js';

describe('budget tokens', () => {
  it('a CJK character costs at least 1.5 tokens, as the reference budgets', () => {
    const cjk = '你好世界'.repeat(120);
    // o200k merges these pairs (0.5 per character): alone it would undercount.
    expect(countTokens(cjk)).toBeLessThan(cjk.length);
    expect(budgetTokens(cjk)).toBe(720);
    expect(wideCharTokens('こんにちは、안녕하세요')).toBe(Math.ceil(11 * 1.5));
  });

  it('latin text and code keep their exact BPE count', () => {
    for (const text of ['What is machine learning?', 'const x = fn(a, b) => { return a[b] ?? null; };', 'café – naïve']) expect(budgetTokens(text)).toBe(countTokens(text));
    expect(budgetTokens('')).toBe(0);
  });

  it('emoji and other astral characters count 2', () => {
    expect(wideCharTokens('🙂🙂')).toBe(4);
    expect(budgetTokens('🙂🙂')).toBeGreaterThanOrEqual(4);
  });

  it('a message adds its overhead to the parts', () => {
    expect(messageTokens({ parts: [{ type: 'text', text: '你好世界' }] })).toBe(4 + 6);
  });
});

describe('pending_tokens over HTTP', () => {
  let t: TestApp;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    t = await startTestApp();
    c = client(t, (await t.account('acme', ['alice'])).users.alice!);
  });
  afterAll(() => t.close());

  it('a CJK message is counted at >= 1.5 tokens per character, not a quarter', async () => {
    const text = '我们今天讨论了项目的进展'.repeat(40);
    await c.say('cjk', 'user', text);
    const info = await c.info('cjk');
    expect(info.pending_tokens).toBeGreaterThanOrEqual(Math.ceil(text.length * 1.5));
    expect(info.pending_tokens).toBeLessThan(text.length * 2);
  });
});
