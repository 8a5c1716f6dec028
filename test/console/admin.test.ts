/**
 * Admin pages in Chromium: an ADMIN regenerates a user's key (shown once; the old key stops working,
 * the new one signs in), and a USER cannot reach them (not in the navigation, refused by URL, and the
 * API itself refuses the calls the pages would make).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../../plugins/console/build.js';
import { guardedPage, launch, signIn, startConsoleServer, type ConsoleServer } from './harness.js';

let s: ConsoleServer;
let browser: Browser;

beforeAll(async () => {
  await ensureConsoleBuilt();
  s = await startConsoleServer();
  browser = await launch();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe('admin pages in Chromium', () => {
  it('an ADMIN regenerates a key: shown once, the old key stops working, the new one signs in', async () => {
    const g = await guardedPage(browser, s.base);
    const { page } = g;
    await signIn(page, s.base, s.adminKey);
    expect(await page.getByTestId('identity').innerText()).toContain('ADMIN');
    await page.getByRole('link', { name: 'Admin', exact: true }).click();
    await page.getByRole('heading', { name: 'Users of acme' }).waitFor();
    const row = page.locator('tr[data-user="alice"]');
    await row.getByRole('button', { name: 'Regenerate key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Regenerate key' }).click();
    const keyBox = page.getByTestId('new-key');
    await keyBox.waitFor();
    const newKey = await keyBox.inputValue();
    expect(newKey.length).toBeGreaterThanOrEqual(16);
    expect(newKey).not.toBe(s.aliceKey);
    expect((await s.api('GET', '/console/whoami', s.aliceKey)).status).toBe(401);
    expect((await s.api('GET', '/console/whoami', newKey)).json.result).toEqual({ account_id: 'acme', user_id: 'alice', role: 'USER' });
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByTestId('new-key').count()).toBe(0);
    expect(g.problems).toEqual([]);

    // The new key signs in through the form.
    const g2 = await guardedPage(browser, s.base);
    await signIn(g2.page, s.base, newKey);
    expect(await g2.page.getByTestId('identity').innerText()).toMatch(/alice\s*USER/);
    expect(g2.problems).toEqual([]);
    // A tab still signed in with the old key goes back to the form at its next call.
    const g3 = await guardedPage(browser, s.base);
    await g3.page.goto(`${s.base}/console`);
    await g3.page.evaluate((k) => sessionStorage.setItem('ctx.console.key', k), s.aliceKey);
    await g3.page.reload();
    await g3.page.getByRole('alert').filter({ hasText: 'sign in again' }).waitFor();
    expect(await g3.page.getByLabel('API key').count()).toBe(1);
    expect(await g3.page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(g3.problems.filter((p) => !(p.includes('status of 401') && p.includes('/console/whoami')))).toEqual([]);
    s.aliceKey = newKey;
  });

  it('a key revoked while the console is open sends it back to the sign-in form at the next call', async () => {
    const r = await s.api('POST', '/api/v1/admin/accounts/acme/users', s.adminKey, { user_id: 'carol', role: 'USER' });
    const carolKey = r.json.result.user_key as string;
    const g = await guardedPage(browser, s.base);
    const { page } = g;
    await signIn(page, s.base, carolKey);
    await s.api('POST', '/api/v1/admin/accounts/acme/users/carol/key', s.adminKey);
    // The overview's auto-refresh may meet the 401 first and sign out before anything is clicked
    // (a loaded machine leaves time for it): a hash change asks for the next page in either state.
    await page.evaluate(() => {
      location.hash = '#/tasks';
    });
    await page.getByRole('alert').filter({ hasText: 'Your key is no longer accepted' }).waitFor();
    expect(await page.getByLabel('API key').count()).toBe(1);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(g.problems.filter((p) => !p.includes('status of 401'))).toEqual([]);
  });

  it('an ADMIN adds a user and changes a role', async () => {
    const g = await guardedPage(browser, s.base);
    const { page } = g;
    await signIn(page, s.base, s.adminKey);
    await page.goto(`${s.base}/console#/admin`);
    await page.getByLabel('User id').fill('bob');
    await page.getByRole('button', { name: 'Add user' }).click();
    const key = await page.getByTestId('new-key').inputValue();
    expect((await s.api('GET', '/console/whoami', key)).json.result.user_id).toBe('bob');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByLabel('Role of bob').selectOption('ADMIN');
    await expect.poll(async () => (await s.api('GET', '/console/whoami', key)).json.result.role).toBe('ADMIN');
    expect(g.problems).toEqual([]);
  });

  it('a USER cannot reach the admin pages', async () => {
    const g = await guardedPage(browser, s.base);
    const { page } = g;
    await signIn(page, s.base, s.aliceKey);
    expect(await page.getByRole('navigation', { name: 'pages' }).getByRole('link').allInnerTexts()).not.toContain('Admin');
    await page.goto(`${s.base}/console#/admin?account=acme`);
    const denied = page.locator('[data-denied="admin"]');
    await denied.waitFor();
    expect(await denied.innerText()).toContain('need the ADMIN or ROOT role');
    expect(await page.getByText('Users of acme').count()).toBe(0);
    // Not only hidden: the API refuses what the page would call, with the spec's envelope.
    const users = await s.api('GET', '/api/v1/admin/accounts/acme/users', s.aliceKey);
    expect(users.status).toBe(403);
    expect(users.json.error.code).toBe('PERMISSION_DENIED');
    expect((await s.api('POST', '/api/v1/admin/accounts/acme/users/admin/key', s.aliceKey)).status).toBe(403);
    expect(g.problems).toEqual([]);
  });

  it('dev mode signs in at once on loopback, as the dev identity, with no key and no sign-out', async () => {
    const dev = await startConsoleServer({ authMode: 'dev', rootApiKey: undefined });
    try {
      const g = await guardedPage(browser, dev.base);
      await g.page.goto(`${dev.base}/console`);
      const who = g.page.getByTestId('identity');
      await who.waitFor();
      expect(await who.innerText()).toMatch(/default\s*\/\s*default\s*ADMIN\s*dev mode/);
      expect(await g.page.getByLabel('API key').count()).toBe(0);
      expect(await g.page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
      expect(await g.page.evaluate(() => sessionStorage.length)).toBe(0);
      expect(g.problems).toEqual([]);
      await g.page.context().close();
    } finally {
      await dev.close();
    }
  });

  it('a wrong key is refused at sign-in and nothing is stored', async () => {
    const g = await guardedPage(browser, s.base);
    const { page } = g;
    await page.goto(`${s.base}/console`);
    await page.getByLabel('API key').fill('wrong-key-0123456789abcdef');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'That key was not accepted.' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    // Chromium logs the 401 itself; nothing else may appear.
    expect(g.problems.filter((p) => !(p.includes('status of 401') && p.includes('/console/whoami')))).toEqual([]);
  });
});
