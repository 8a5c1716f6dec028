/**
 * Accessibility basics on every page, in Chromium, light and dark: every form control has a label,
 * every button a name, text keeps 4.5:1 contrast against what is behind it, the first Tab reaches
 * "Skip to content", a new page takes focus to its content, and nothing overflows a narrow window
 * sideways (where the navigation is behind a Menu button).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../../plugins/console/build.js';
import { guardedPage, launch, signIn, startConsoleServer, type ConsoleServer } from './harness.js';

let s: ConsoleServer;
let browser: Browser;

const PAGES = ['overview', 'browser?uri=ctx%3A%2F%2Fresources%2Fa11y%2Fnote.md', 'retrieval', 'sessions', 'skills', 'watches', 'tasks', 'packs', 'snapshots', 'admin', 'system'];

beforeAll(async () => {
  await ensureConsoleBuilt();
  s = await startConsoleServer();
  browser = await launch();
  await s.api('POST', '/api/v1/content/write', s.rootKey, { uri: 'ctx://resources/a11y/note.md', content: '# Note\n\nSomething to read.\n' });
  await s.api('POST', '/api/v1/sessions', s.rootKey, { session_id: 's1' });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await s?.close();
});

/** Problems on the current page, computed in the page (a string: see bench/console.bench.ts). */
const audit = (page: Page) =>
  page.evaluate<string[]>(`(() => {
    const out = [];
    const lum = (c) => {
      const m = c.match(/rgba?\\(([^)]+)\\)/);
      if (!m) return null;
      const [r, g, b, a = 1] = m[1].split(',').map(Number);
      const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
      return { l: 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b), a };
    };
    const bgOf = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = lum(getComputedStyle(e).backgroundColor);
        if (c && c.a > 0.5) return c;
      }
      return lum(getComputedStyle(document.documentElement).backgroundColor) || { l: 1, a: 1 };
    };
    for (const el of document.querySelectorAll('input, select, textarea')) {
      if (el.type === 'hidden') continue;
      const named = el.labels?.length || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || el.closest('label');
      if (!named) out.push('unlabelled ' + el.outerHTML.slice(0, 80));
    }
    for (const el of document.querySelectorAll('button, a[href]')) {
      if (!(el.textContent || '').trim() && !el.getAttribute('aria-label')) out.push('nameless ' + el.outerHTML.slice(0, 80));
    }
    for (const el of document.querySelectorAll('body *')) {
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own || el.closest('[aria-hidden="true"], :disabled, option') || !el.getClientRects().length) continue;
      const fg = lum(getComputedStyle(el).color);
      const bg = bgOf(el);
      if (!fg) continue;
      const ratio = (Math.max(fg.l, bg.l) + 0.05) / (Math.min(fg.l, bg.l) + 0.05);
      if (ratio < 4.5) out.push('contrast ' + ratio.toFixed(2) + ' ' + el.tagName + '.' + el.className + ': ' + el.textContent.trim().slice(0, 40));
    }
    if (document.documentElement.scrollWidth > window.innerWidth + 1) out.push('horizontal overflow ' + document.documentElement.scrollWidth + ' > ' + window.innerWidth);
    return out;
  })()`);

async function settle(page: Page) {
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => !document.querySelector('.loading'), undefined, { timeout: 10_000 });
}

describe('accessibility basics', () => {
  it('the audit finds what it looks for (an unlabelled field, a nameless button, faint text, overflow)', async () => {
    const g = await guardedPage(browser, s.base);
    await signIn(g.page, s.base, s.rootKey);
    await settle(g.page);
    await g.page.evaluate(() => {
      const box = document.createElement('div');
      box.append(document.createElement('input'), document.createElement('button'));
      const faint = document.createElement('p');
      faint.textContent = 'faint text';
      faint.style.color = '#cccccc';
      const wide = document.createElement('div');
      wide.style.width = '3000px';
      wide.textContent = 'wide';
      box.append(faint, wide);
      document.body.append(box);
    });
    const found = await audit(g.page);
    expect(found.some((f) => f.startsWith('unlabelled <input'))).toBe(true);
    expect(found.some((f) => f.startsWith('nameless <button'))).toBe(true);
    expect(found.some((f) => f.startsWith('contrast') && f.endsWith('faint text'))).toBe(true);
    expect(found.some((f) => f.startsWith('horizontal overflow'))).toBe(true);
    await g.page.context().close();
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`every page, ${scheme}: labels, names, contrast`, async () => {
      const g = await guardedPage(browser, s.base, { width: 1280, height: 800 }, scheme);
      await signIn(g.page, s.base, s.rootKey);
      const found: string[] = [];
      for (const p of PAGES) {
        await g.page.goto(`${s.base}/console#/${p}`);
        await settle(g.page);
        found.push(...(await audit(g.page)).map((x) => `${p}: ${x}`));
      }
      expect(found).toEqual([]);
      expect(g.problems).toEqual([]);
      await g.page.context().close();
    });
  }

  it('the sign-in form and a narrow window pass too; the first Tab is "Skip to content"', async () => {
    const g = await guardedPage(browser, s.base, { width: 400, height: 800 });
    await g.page.goto(`${s.base}/console`);
    await g.page.getByLabel('API key').waitFor();
    expect(await audit(g.page)).toEqual([]);
    await signIn(g.page, s.base, s.rootKey);
    const found: string[] = [];
    for (const p of ['overview', PAGES[1]!, 'retrieval', 'sessions', 'admin']) {
      await g.page.goto(`${s.base}/console#/${p}`);
      await settle(g.page);
      found.push(...(await audit(g.page)).map((x) => `${p}: ${x}`));
    }
    expect(found).toEqual([]);
    // A fresh load: the first Tab is the skip link. Moving to another page puts focus on its content.
    await g.page.reload();
    await g.page.getByTestId('identity').waitFor();
    await g.page.keyboard.press('Tab');
    expect(await g.page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    // The next Tab reaches the Menu (the focused skip link covers the header's corner until then).
    await g.page.keyboard.press('Tab');
    expect(await g.page.evaluate(() => document.activeElement?.textContent)).toBe('Menu');
    await g.page.keyboard.press('Enter');
    await g.page.getByRole('link', { name: 'Tasks', exact: true }).click();
    await expect.poll(() => g.page.evaluate(() => document.activeElement?.id)).toBe('main');
    expect(g.problems).toEqual([]);
    await g.page.context().close();
  });
});
