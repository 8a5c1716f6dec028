/**
 * Sessions in Chromium: add messages, commit, follow the commit task and see the memories it
 * extracted (a fake OpenAI-compatible LLM on 127.0.0.1 answers the extraction), then open one.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../../plugins/console/build.js';
import { startFakeChat, type FakeChat } from '../sessions/fake-chat.js';
import { guardedPage, launch, signIn, startConsoleServer, type ConsoleServer } from './harness.js';

let s: ConsoleServer;
let llm: FakeChat;
let browser: Browser;

beforeAll(async () => {
  await ensureConsoleBuilt();
  llm = await startFakeChat();
  s = await startConsoleServer({ llm: { baseUrl: llm.url, model: 'fake-model' } });
  browser = await launch();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await s?.close();
  await llm?.close();
});

describe('sessions in Chromium', () => {
  it('commits a session and shows the memories it extracted', async () => {
    llm.extraction.push({
      content: JSON.stringify({
        abstract: 'Alice talked about her tea habits.',
        overview: '## Topics\n- tea',
        memories: [
          { category: 'preferences', key: 'Green tea', content: 'Alice drinks green tea every morning.' },
          { category: 'events', key: 'Tea festival', content: 'Alice visits the Shizuoka tea festival in May.' },
        ],
      }),
    });
    const g = await guardedPage(browser, s.base);
    const { page } = g;
    await signIn(page, s.base, s.aliceKey);
    await page.getByRole('link', { name: 'Sessions', exact: true }).click();
    await page.getByText('No sessions yet.').waitFor();
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByRole('heading', { name: /^Session / }).waitFor();
    await page.getByText('No live messages.').waitFor();
    for (const [role, text] of [['user', 'I drink green tea every morning.'], ['assistant', 'Noted: green tea.'], ['user', 'In May I go to the Shizuoka tea festival.']] as const) {
      await page.getByLabel('Role').selectOption(role);
      await page.getByLabel('Message').fill(text);
      await page.getByRole('button', { name: 'Add message' }).click();
      await page.locator('.msg').filter({ hasText: text }).waitFor();
    }
    await page.getByRole('button', { name: 'Commit session' }).click();
    const table = page.getByTestId('extracted');
    await table.waitFor({ timeout: 30_000 });
    const rows = await table.locator('tbody tr').allInnerTexts();
    expect(rows.join('\n')).toContain('ctx://user/alice/memories/preferences/green-tea.md');
    expect(rows.join('\n')).toContain('ctx://user/alice/memories/events/tea-festival.md');
    expect(llm.received).toHaveLength(1);
    // The archive list says the same (what any later visit shows), and the counters follow.
    await expect.poll(() => page.getByRole('table', { name: 'Memories from archive_001' }).innerText()).toContain('tea-festival.md');
    await expect.poll(() => page.locator('.meta').first().innerText()).toMatch(/Commits\s*1/);
    await table.getByRole('link', { name: 'ctx://user/alice/memories/preferences/green-tea.md' }).click();
    await page.getByRole('heading', { name: 'ctx://user/alice/memories/preferences/green-tea.md' }).waitFor();
    await expect.poll(() => page.locator('[data-level="2"]').innerText()).toContain('green tea every morning');

    // Deleting the session (after confirming) empties the list; the memories stay.
    await page.goBack();
    await page.getByRole('button', { name: 'Delete session' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete session' }).click();
    await page.getByText('No sessions yet.').waitFor();
    expect((await s.api('GET', '/api/v1/sessions', s.aliceKey)).json.result).toEqual([]);
    expect((await s.api('GET', `/api/v1/content/read?uri=${encodeURIComponent('ctx://user/alice/memories/preferences/green-tea.md')}`, s.aliceKey)).status).toBe(200);
    expect(g.problems).toEqual([]);
  });
});
