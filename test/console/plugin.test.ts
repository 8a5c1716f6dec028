/**
 * The console plugin over the real pipeline: the app page with its CSP, hashed immutable assets
 * with the right types, the dev-mode bit written into the page, whoami, every error path, and the
 * bundle-size budget of the issue (≤ 250 KB gzipped JS+CSS on first load).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleAssets } from '../../plugins/console/assets.js';
import { ensureConsoleBuilt, type ConsoleManifest } from '../../plugins/console/build.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let manifest: ConsoleManifest;
let users: { admin: Record<string, string>; users: Record<string, Record<string, string>> };

beforeAll(async () => {
  manifest = await ensureConsoleBuilt();
  t = await startTestApp();
  users = await t.account('acme', ['alice']);
}, 60_000);
afterAll(() => t?.close());

const get = (url: string, headers: Record<string, string> = {}) => t.req({ method: 'GET', url, headers });

describe('GET /console', () => {
  it('serves the app page, revalidated, under a strict CSP, naming the hashed assets', async () => {
    const res = await get('/console');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.text).toContain(`/console/assets/${manifest.entry}`);
    expect(res.text).toContain(`/console/assets/${manifest.stylesheet}`);
    // Nothing from another origin, not even a font.
    expect(res.text).not.toMatch(/https?:\/\//);
  });

  it('needs no key (the sign-in form is on it) and other extension-less paths are the app too', async () => {
    expect((await get('/console/browser')).status).toBe(200);
  });

  it('serves assets with their types, immutable', async () => {
    const js = await get(`/console/assets/${manifest.entry}`);
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.body.length).toBe(manifest.files[manifest.entry]!.bytes);
    const css = await get(`/console/assets/${manifest.stylesheet}`);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    // Gzipped for clients that accept it: the same bytes once inflated.
    const gz = await get(`/console/assets/${manifest.entry}`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['vary']).toBe('accept-encoding');
    expect(gz.body.length).toBe(manifest.files[manifest.entry]!.gzip);
    expect(gunzipSync(gz.body).equals(js.body)).toBe(true);
    expect(js.headers['content-encoding']).toBeUndefined();
    // The bundle makes no request of its own to another origin.
    expect(js.text).not.toMatch(/https?:\/\/(?!www\.w3\.org)[a-z]/i);
  });

  it('answers 404 with the error envelope for unknown files, the manifest and traversal attempts', async () => {
    for (const url of ['/console/assets/app-XXXX.js', `/console/assets/${manifest.entry}.gz`, '/console/assets/manifest.json', '/console/assets/index.html', '/console/assets/..%2Fmanifest.json', '/console/assets/../../package.json', '/console/favicon.ico', '/console/a/b.js']) {
      const res = await get(url);
      expect(res.status, url).toBe(404);
      expect(res.json(), url).toMatchObject({ status: 'error', error: { code: 'NOT_FOUND' } });
    }
  });

  it('keeps the first load within 250 KB gzipped (JS + CSS)', () => {
    const first = manifest.files[manifest.entry]!.gzip + manifest.files[manifest.stylesheet]!.gzip;
    expect(first).toBeLessThan(250 * 1024);
  });
});

describe('GET /console/whoami', () => {
  it('the page says only whether the server is in dev mode (here: no)', async () => {
    const res = await get('/console');
    expect(res.text).toContain('<meta name="ctx-dev-mode" content="false">');
    expect(res.text).not.toContain('%DEV_MODE%');
  });

  it('whoami needs a valid key and returns the caller', async () => {
    expect((await get('/console/whoami')).status).toBe(401);
    const bad = await get('/console/whoami', { 'x-api-key': 'not-a-key-0123456789abcdef' });
    expect(bad.status).toBe(401);
    expect(bad.json().error.code).toBe('UNAUTHENTICATED');
    expect((await get('/console/whoami', users.users.alice!)).json().result).toEqual({ account_id: 'acme', user_id: 'alice', role: 'USER' });
    expect((await get('/console/whoami', users.admin)).json().result).toEqual({ account_id: 'acme', user_id: 'admin', role: 'ADMIN' });
    expect((await get('/console/whoami', t.root)).json().result.role).toBe('ROOT');
  });

  it('wrong methods are 405, not the app', async () => {
    const res = await t.req({ method: 'POST', url: '/console/whoami', body: {} });
    expect(res.status).toBe(405);
  });
});

describe('dev mode', () => {
  it('the page says dev mode and whoami answers without a key', async () => {
    const dev = await startTestApp({ config: { authMode: 'dev', rootApiKey: undefined } });
    try {
      expect((await dev.req({ method: 'GET', url: '/console' })).text).toContain('<meta name="ctx-dev-mode" content="true">');
      const me = await dev.req({ method: 'GET', url: '/console/whoami' });
      expect(me.status).toBe(200);
      expect(me.json().result).toMatchObject({ account_id: 'default', user_id: 'default' });
    } finally {
      await dev.close();
    }
  });
});

describe('not built', () => {
  it('the page answers 503 UNAVAILABLE saying how to build it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-console-'));
    const assets = new ConsoleAssets(path.join(dir, 'missing'));
    await expect(assets.index(false)).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('npm run setup') });
    await expect(assets.asset('app.js')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
