/**
 * Relations and privacy configs over the real uWS socket: DELETE with a JSON body, encoded path
 * parameters, and the browser opening the graph straight from the download route (over HTTP, so the
 * served bytes and headers are what a user would get).
 */
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UwsServer } from '../../runtime/adapters/uws/server.js';
import { relApp, type RelApp } from './helpers.js';

let r: RelApp;
let server: UwsServer;
let base: string;

beforeAll(async () => {
  r = await relApp();
  server = await r.t.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${server.port}`;
  await r.put('acme', 'resources/web/a.md', 'a');
  await r.put('acme', 'resources/web/b.md', 'b');
});
afterAll(() => r.t.close());

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(base + path, { method, headers: { ...r.alice, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
};

describe('over HTTP', () => {
  it('link, list, unlink (DELETE with a body)', async () => {
    expect((await call('POST', '/api/v1/relations/link', { from_uri: 'ctx://resources/web/a.md', to_uris: ['ctx://resources/web/b.md'], reason: 'ü' })).status).toBe(200);
    const l = await call('GET', `/api/v1/relations?uri=${encodeURIComponent('ctx://resources/web/a.md')}`);
    expect(l.json.result).toEqual([{ uri: 'ctx://resources/web/b.md', reason: 'ü' }]);
    const u = await call('DELETE', '/api/v1/relations/link', { from_uri: 'ctx://resources/web/a.md', to_uri: 'ctx://resources/web/b.md' });
    expect(u.status).toBe(200);
    expect(u.json.result).toEqual({ from: 'ctx://resources/web/a.md', to: 'ctx://resources/web/b.md' });
  });

  it('privacy configs with encoded path parameters', async () => {
    const set = await call('POST', '/api/v1/privacy-configs/git/github.com%3A443', { values: { token: 'ghp_x' } });
    expect(set.status).toBe(200);
    expect(set.json.result).toMatchObject({ version: 1, target_key: 'github.com:443' });
    expect((await call('GET', '/api/v1/privacy-configs/git')).json.result).toEqual(['github.com:443']);
    const trick = await call('GET', '/api/v1/privacy-configs/git/..%2F..%2Fadmin');
    expect(trick.status).toBe(400);
    expect(trick.json.status).toBe('error');
  });

  it('the graph opens from the download URL in Chromium', async () => {
    await call('POST', '/api/v1/relations/link', { from_uri: 'ctx://resources/web/a.md', to_uris: 'ctx://resources/web/b.md' });
    const g = await call('POST', '/api/v1/relations/build_graph', { space_uris: ['ctx://resources/web'], output_uri: 'ctx://resources/web/graph.html' });
    expect(g.status).toBe(200);
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ extraHTTPHeaders: r.alice });
      const urls: string[] = [];
      page.on('request', (q) => urls.push(q.url()));
      // Downloads are attachments: fetch the bytes over HTTP inside the page's context, then render them.
      const res = await page.request.get(`${base}/api/v1/content/download?uri=${encodeURIComponent(g.json.result.graph_uri)}`);
      expect(res.status()).toBe(200);
      await page.setContent(await res.text());
      await page.waitForSelector('html[data-rendered="true"]', { timeout: 10_000 });
      expect(await page.locator('svg g.node').count()).toBe(2);
      expect(await page.locator('svg line.edge').count()).toBe(1);
      expect(urls.filter((u) => !u.startsWith('about:'))).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 30_000);
});
