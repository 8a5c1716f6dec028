/**
 * Changing things from the console in Chromium: write a file, edit its tags, move it, delete it with
 * confirmation; commit a snapshot, see what a restore would change and restore; export a pack (a real
 * download) and import it elsewhere. Each step is checked against the API, not only the page.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../../plugins/console/build.js';
import { guardedPage, launch, signIn, startConsoleServer, type ConsoleServer } from './harness.js';

let s: ConsoleServer;
let browser: Browser;

beforeAll(async () => {
  await ensureConsoleBuilt();
  // Private addresses allowed: the URL import below fetches a page from 127.0.0.1.
  s = await startConsoleServer({ importAllowPrivate: true });
  browser = await launch();
  await s.api('POST', '/api/v1/fs/mkdir', s.adminKey, { uri: 'ctx://resources/notes' });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await s?.close();
});

const read = async (uri: string) => (await s.api('GET', `/api/v1/content/read?uri=${encodeURIComponent(uri)}`, s.adminKey)).json.result;

describe('managing the store from the console', () => {
  it('writes a file, edits its tags, moves it and deletes it after confirming', async () => {
    const g = await guardedPage(browser, s.base);
    const { page } = g;
    await signIn(page, s.base, s.adminKey);
    await page.goto(`${s.base}/console#/browser?uri=${encodeURIComponent('ctx://resources/notes')}&dir=1`);
    await page.getByRole('button', { name: 'New file' }).click();
    await page.getByLabel('File name').fill('todo.md');
    await page.getByLabel('File content').fill('- water the plants');
    await page.getByRole('button', { name: 'Write', exact: true }).click();
    await page.getByRole('heading', { name: 'ctx://resources/notes/todo.md' }).waitFor();
    expect(await read('ctx://resources/notes/todo.md')).toBe('- water the plants');

    await page.getByRole('tab', { name: 'Metadata' }).click();
    await page.getByLabel('Tags (k=v, comma-separated)').fill('kind=todo, owner=admin');
    await page.getByRole('button', { name: 'Save tags' }).click();
    await expect
      .poll(async () => (await s.api('GET', `/api/v1/fs/attrs?uri=${encodeURIComponent('ctx://resources/notes/todo.md')}`, s.adminKey)).json.result.attrs.tags)
      .toEqual(expect.arrayContaining(['kind=todo', 'owner=admin']));

    await page.getByLabel('Move to').fill('ctx://resources/notes/done.md');
    await page.getByRole('button', { name: 'Move', exact: true }).click();
    await page.getByRole('heading', { name: 'ctx://resources/notes/done.md' }).waitFor();
    expect(await read('ctx://resources/notes/done.md')).toBe('- water the plants');
    await page.getByRole('tree').getByRole('treeitem', { name: 'done.md' }).waitFor();

    await page.getByRole('tab', { name: 'Metadata' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    // Cancel first: nothing happens.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await s.api('GET', `/api/v1/fs/stat?uri=${encodeURIComponent('ctx://resources/notes/done.md')}`, s.adminKey)).status).toBe(200);
    await page.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'ctx://resources/notes', exact: true }).waitFor();
    expect((await s.api('GET', `/api/v1/fs/ls?uri=${encodeURIComponent('ctx://resources/notes')}&simple=true`, s.adminKey)).json.result).toEqual([]);

    // The directory itself, open in the tree: gone from the tree, and the tree never asks for it again.
    await page.getByRole('tab', { name: 'Metadata' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'ctx://resources', exact: true }).waitFor();
    await expect.poll(() => page.getByRole('tree').getByRole('treeitem', { name: 'notes' }).count()).toBe(0);
    expect((await s.api('GET', `/api/v1/fs/stat?uri=${encodeURIComponent('ctx://resources/notes')}`, s.adminKey)).status).toBe(404);
    expect(g.problems).toEqual([]);
  });

  it('commits a snapshot, shows what a restore would change, and restores', async () => {
    await s.api('POST', '/api/v1/content/write', s.adminKey, { uri: 'ctx://resources/notes/plan.md', content: 'v1' });
    const g = await guardedPage(browser, s.base);
    const { page } = g;
    await signIn(page, s.base, s.adminKey);
    await page.getByRole('link', { name: 'Snapshots', exact: true }).click();
    await page.getByText('No commits yet.').waitFor();
    await page.getByLabel('Message').fill('first plan');
    await page.getByRole('button', { name: 'Commit now' }).click();
    await page.getByRole('cell', { name: 'first plan' }).waitFor();
    await s.api('POST', '/api/v1/content/write', s.adminKey, { uri: 'ctx://resources/notes/plan.md', content: 'v2' });

    await page.getByRole('button', { name: 'Diff / restore' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('.diff-list').waitFor();
    expect(await dialog.locator('.diff-list').innerText()).toContain('resources/notes/plan.md');
    await dialog.getByRole('button', { name: 'Restore' }).click();
    await dialog.getByRole('status').filter({ hasText: 'Restored' }).waitFor();
    expect(await read('ctx://resources/notes/plan.md')).toBe('v1');
    expect(g.problems).toEqual([]);
  });

  it('exports a pack as a download and imports it below another directory', async () => {
    const g = await guardedPage(browser, s.base);
    const { page } = g;
    await signIn(page, s.base, s.adminKey);
    await page.getByRole('link', { name: 'Packs', exact: true }).click();
    await page.getByLabel('Directory').fill('ctx://resources/notes');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export and download' }).click()]);
    const file = await download.path();
    const bytes = fs.readFileSync(file);
    expect(bytes.subarray(0, 2).toString()).toBe('PK');
    expect(download.suggestedFilename()).toBe('resources_notes.ctxpack.zip');

    await s.api('POST', '/api/v1/fs/mkdir', s.adminKey, { uri: 'ctx://resources/copy' });
    await page.getByLabel('Pack (.zip)').setInputFiles({ name: 'notes.zip', mimeType: 'application/zip', buffer: bytes });
    await page.getByLabel('Below').fill('ctx://resources/copy');
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('status').filter({ hasText: 'Imported' }).waitFor({ timeout: 30_000 });
    const uri = await page.getByRole('status').filter({ hasText: 'Imported' }).getByRole('link').innerText();
    expect(uri.startsWith('ctx://resources/copy/')).toBe(true);
    expect(await read(`${uri}/plan.md`)).toBe('v1');
    expect(g.problems).toEqual([]);
  });

  it('lists tasks, filters them, and shows one with its events', async () => {
    const started = await s.api('POST', '/api/v1/content/reindex', s.adminKey, { uri: 'ctx://resources', wait: true });
    expect(started.status).toBe(200);
    const g = await guardedPage(browser, s.base);
    const { page } = g;
    await signIn(page, s.base, s.adminKey);
    await page.getByRole('link', { name: 'Tasks', exact: true }).click();
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No tasks match.').waitFor();
    await page.getByLabel('Status').selectOption('completed');
    const link = page.getByRole('link', { name: 'admin_reindex' }).first();
    await link.click();
    await page.getByRole('heading', { name: /^admin_reindex / }).waitFor();
    const events = page.locator('.events li');
    await events.first().waitFor();
    expect(await events.allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('completed')]));
    expect(g.problems).toEqual([]);
  });

  it('adds a skill from its SKILL.md, shows it and removes it', async () => {
    const g = await guardedPage(browser, s.base);
    const { page } = g;
    await signIn(page, s.base, s.adminKey);
    await page.getByRole('link', { name: 'Skills', exact: true }).click();
    await page.getByText('No skills yet.').waitFor();
    await page.getByText('Add a skill').click();
    await page.getByLabel(/^SKILL\.md/).fill('---\nname: brew-tea\ndescription: Brews green tea at 80 degrees\n---\n\n# Brew tea\n\nHeat water to 80 C.\n');
    await page.getByRole('button', { name: 'Add skill' }).click();
    await page.getByRole('heading', { name: 'brew-tea' }).waitFor();
    await page.getByRole('cell', { name: 'Brews green tea at 80 degrees' }).waitFor();
    expect((await s.api('GET', '/api/v1/skills', s.adminKey)).json.result.skills.map((x: { name: string }) => x.name)).toEqual(['brew-tea']);
    await page.getByRole('button', { name: 'Remove skill' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove skill' }).click();
    await page.getByText('No skills yet.').waitFor();
    expect((await s.api('GET', '/api/v1/skills', s.adminKey)).json.result.skills).toEqual([]);
    expect(g.problems).toEqual([]);
  });

  it('adds a resource from a URL with a watch, then pauses the watch', async () => {
    const site = http.createServer((_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Changelog</title></head><body><h1>Changelog</h1><p>Offline sync shipped.</p></body></html>');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/changelog.html`;
      const g = await guardedPage(browser, s.base);
      const { page } = g;
      await signIn(page, s.base, s.adminKey);
      await page.goto(`${s.base}/console#/browser?uri=${encodeURIComponent('ctx://resources')}&dir=1`);
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByLabel(/^Or from a URL/).fill(url);
      await page.getByLabel(/^Watch every/).fill('30');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await expect.poll(() => page.getByTestId('upload-progress').innerText(), { timeout: 30_000 }).toMatch(/done → ctx:\/\/resources\/\S+, watched every 30 min/);

      await page.getByRole('link', { name: 'Watches', exact: true }).click();
      const row = page.locator('tr').filter({ hasText: url });
      await row.waitFor();
      expect(await row.innerText()).toContain('30 min');
      await row.getByRole('button', { name: 'Pause' }).click();
      await row.getByRole('button', { name: 'Resume' }).waitFor();
      const w = (await s.api('GET', '/api/v1/watches', s.adminKey)).json.result.tasks;
      expect(w).toHaveLength(1);
      expect(w[0]).toMatchObject({ path: url, watch_interval: 30, is_active: false });
      expect(g.problems).toEqual([]);
    } finally {
      site.close();
    }
  });
});
