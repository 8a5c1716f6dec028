/**
 * The console's browser harness: a real server (RocksDB in a temp dir, uWS on a free loopback port),
 * Debian's Chromium through playwright-core, and a page guard that records every browser console
 * error, uncaught exception and request to another origin, so each test can assert there were none.
 * The screenshot script and the load benchmark use the same pieces.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import type { UwsServer } from '../../runtime/adapters/uws/server.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { CtxConfig } from '../../runtime/config.js';

export const CHROMIUM = '/usr/bin/chromium';

export interface ConsoleServer {
  t: TestApp;
  base: string;
  rootKey: string;
  /** acme's ADMIN and its USER alice. */
  adminKey: string;
  aliceKey: string;
  api(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

export async function startConsoleServer(config: Partial<CtxConfig> = {}): Promise<ConsoleServer> {
  const t = await startTestApp({ config });
  const server: UwsServer = await t.app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${server.port}`;
  // Dev mode has no keys and no ROOT to create accounts: everyone is the default ADMIN.
  const acme = config.authMode === 'dev' ? { admin: { 'x-api-key': '' }, users: { alice: { 'x-api-key': '' } } } : await t.account('acme', ['alice']);
  const api = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(base + path, { method, headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, json };
  };
  return {
    t,
    base,
    rootKey: t.root['x-api-key']!,
    adminKey: acme.admin['x-api-key']!,
    aliceKey: acme.users.alice!['x-api-key']!,
    api,
    close: () => t.close(),
  };
}

export const launch = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });

export interface GuardedPage {
  page: Page;
  /** Console errors, page errors and other-origin requests seen so far. */
  problems: string[];
}

export async function guardedPage(browser: Browser, base: string, viewport = { width: 1280, height: 800 }, colorScheme: 'light' | 'dark' = 'light'): Promise<GuardedPage> {
  const context = await browser.newContext({ viewport, colorScheme });
  const page = await context.newPage();
  const problems: string[] = [];
  const origin = new URL(base).origin;
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    // The one expected failure: the snapshot API answers 404 for a branch with no commits yet, which
    // the console shows as an empty history; Chromium logs every non-2xx response as an error.
    if (/status of 404/.test(m.text()) && new URL(m.location().url, base).pathname === '/api/v1/snapshot/log') return;
    problems.push(`console error: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith('data:') && !u.startsWith('blob:') && new URL(u).origin !== origin) problems.push(`request to another origin: ${u}`);
  });
  return { page, problems };
}

/** Signs in through the form, as a person would. */
export async function signIn(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('identity').waitFor();
}
