/**
 * The generated relation graph in a real browser (Debian chromium via playwright-core): every node
 * and edge is drawn inside the viewport, nothing is fetched, stored text is not interpreted as markup.
 * With RELATION_GRAPH_SCREENSHOT=<path> the test also saves a screenshot (docs/relation-graph.png).
 */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relApp, type RelApp } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
let r: RelApp;
let browser: Browser;

beforeAll(async () => {
  r = await relApp();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const files = ['prefs/editor.md', 'prefs/language.md', 'projects/ctx.md', 'projects/search.md', 'people/ana.md', 'people/ben.md'];
  for (const f of files) await r.put('acme', `user/alice/memories/${f}`, `# ${f}`);
  await r.put('acme', 'resources/specs/part2.md', 'spec');
  await r.put('acme', 'resources/specs/part3.md', 'spec');
  const link = async (from: string, to: string[], reason: string) => expect((await r.link({ from_uri: from, to_uris: to, reason }, r.alice)).status).toBe(200);
  await link('ctx://~/memories/projects/ctx.md', ['ctx://~/memories/people/ana.md', 'ctx://~/memories/people/ben.md', 'ctx://resources/specs/part2.md'], 'works on');
  await link('ctx://~/memories/projects/search.md', ['ctx://~/memories/people/ben.md', 'ctx://resources/specs/part3.md'], 'owner');
  await link('ctx://~/memories/prefs/editor.md', ['ctx://~/memories/projects/ctx.md'], 'used for');
  await link('ctx://~/memories/prefs/language.md', ['ctx://~/memories/people/ana.md'], '<img src=x onerror="window.__pwned=1">');
  await link('ctx://~/memories/projects', ['ctx://~/memories/prefs'], 'configured by');
  await r.put('acme', 'resources/specs/gone.md', 'x');
  await link('ctx://~/memories/people/ben.md', ['ctx://resources/specs/gone.md'], 'read once');
  await r.t.app.vfs.rm('acme', 'resources/specs/gone.md');
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await r?.t.close();
});

describe('relation graph in headless Chromium', () => {
  it('draws every node and edge, offline', async () => {
    const res = await r.graph({ space_uris: ['ctx://~/memories'], output_uri: 'ctx://resources/graphs/memories.html' }, r.alice);
    expect(res.status).toBe(200);
    // Served the way a client gets it: the content download route.
    const dl = await r.t.req({ url: `/api/v1/content/download?uri=${encodeURIComponent(res.json().result.graph_uri)}`, headers: r.alice });
    expect(dl.status).toBe(200);
    const html = dl.body.toString('utf8');

    const page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
    const requests: string[] = [];
    page.on('request', (req) => requests.push(req.url()));
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.setContent(html, { waitUntil: 'load' });
    await page.waitForSelector('html[data-rendered="true"]', { timeout: 10_000 });

    const info = await page.evaluate(() => {
      const root = document.documentElement;
      const vw = window.innerWidth;
      const vh = window.innerHeight;
      const nodes = [...document.querySelectorAll('svg g.node')].map((g) => {
        const b = g.querySelector('circle')!.getBoundingClientRect();
        return { uri: g.getAttribute('data-uri'), x: b.x + b.width / 2, y: b.y + b.height / 2, w: b.width, missing: g.classList.contains('missing'), label: g.querySelector('text')!.textContent };
      });
      const lines = [...document.querySelectorAll('svg line.edge')].map((l) => ['x1', 'y1', 'x2', 'y2'].map((a) => Number(l.getAttribute(a))));
      return { nodes, lines, vw, vh, dataNodes: root.getAttribute('data-nodes'), dataEdges: root.getAttribute('data-edges'), pwned: (window as unknown as { __pwned?: number }).__pwned, imgs: document.querySelectorAll('img').length };
    });

    const expected = [
      'ctx://user/alice/memories/prefs', 'ctx://user/alice/memories/projects',
      'ctx://user/alice/memories/prefs/editor.md', 'ctx://user/alice/memories/prefs/language.md',
      'ctx://user/alice/memories/projects/ctx.md', 'ctx://user/alice/memories/projects/search.md',
      'ctx://user/alice/memories/people/ana.md', 'ctx://user/alice/memories/people/ben.md',
      'ctx://resources/specs/part2.md', 'ctx://resources/specs/part3.md', 'ctx://resources/specs/gone.md',
    ];
    expect(info.nodes.map((n) => n.uri).sort()).toEqual([...expected].sort());
    expect(info.dataNodes).toBe(String(expected.length));
    expect(info.lines).toHaveLength(9);
    expect(info.dataEdges).toBe('9');
    // Drawn: real size, inside the viewport, and spread out rather than stacked.
    for (const n of info.nodes) {
      expect(n.w).toBeGreaterThan(4);
      expect(n.x).toBeGreaterThan(0);
      expect(n.x).toBeLessThan(info.vw);
      expect(n.y).toBeGreaterThan(0);
      expect(n.y).toBeLessThan(info.vh);
    }
    for (let i = 0; i < info.nodes.length; i++)
      for (let j = i + 1; j < info.nodes.length; j++) expect(Math.hypot(info.nodes[i]!.x - info.nodes[j]!.x, info.nodes[i]!.y - info.nodes[j]!.y)).toBeGreaterThan(5);
    for (const l of info.lines) for (const v of l) expect(Number.isFinite(v)).toBe(true);
    expect(info.nodes.filter((n) => n.missing).map((n) => n.uri)).toEqual(['ctx://resources/specs/gone.md']);
    expect(info.nodes.find((n) => n.uri!.endsWith('/ctx.md'))!.label).toBe('ctx.md');
    // The stored reason stayed text.
    expect(info.pwned).toBeUndefined();
    expect(info.imgs).toBe(0);
    expect(errors).toEqual([]);
    // setContent loads about:blank only; nothing else was requested.
    expect(requests.filter((u) => !u.startsWith('about:') && !u.startsWith('data:'))).toEqual([]);

    const shot = process.env.RELATION_GRAPH_SCREENSHOT;
    if (shot) fs.writeFileSync(shot, await page.screenshot({ fullPage: false }));
    await page.close();
  }, 30_000);

  it('an empty graph renders a message and zero nodes', async () => {
    await r.put('acme', 'resources/none/x.md');
    const res = await r.graph({ space_uris: ['ctx://resources/none'], output_uri: 'ctx://resources/graphs/none.html' }, r.alice);
    const html = (await r.t.app.vfs.readFile('acme', 'resources/graphs/none.html')).toString('utf8');
    expect(res.status).toBe(200);
    const page = await browser.newPage();
    await page.setContent(html);
    await page.waitForSelector('html[data-rendered="true"]', { timeout: 10_000 });
    expect(await page.locator('svg g.node').count()).toBe(0);
    expect(await page.locator('#empty').textContent()).toContain('No relations');
    await page.close();
  }, 30_000);
});
