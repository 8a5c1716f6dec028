/**
 * Web console in Chromium against a real server on loopback (issue 25's performance targets):
 *  1. first load, cold cache (a fresh browser context each time), to interactive: the shell drawn with
 *     the signed-in identity, and to the Overview's data loaded; baseline: a cold navigation to the
 *     server's /health (the floor of a navigation to this server from this browser).
 *  2. a directory of 1,000 entries in the Browser: time to list it, DOM rows kept (virtualized), and
 *     frame intervals while scrolling it top to bottom; baseline: the same scroll over 1,000 plain
 *     rows (what a list without virtualization puts in the DOM), in the same browser.
 *
 *   npx tsx bench/console.bench.ts [--runs 10]
 */
import { ensureConsoleBuilt } from '../plugins/console/build.js';
import { launch, startConsoleServer } from '../test/console/harness.js';
import type { Browser, Page } from 'playwright-core';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1] || 10) || 10;
const ms = (x: number) => `${x.toFixed(0)} ms`;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))]!;

const manifest = await ensureConsoleBuilt();
const firstLoad = ['index.html', manifest.entry, manifest.stylesheet].map((f) => manifest.files[f]!);
const s = await startConsoleServer();
const browser: Browser = await launch();

async function coldPage(key?: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  if (key) await context.addInitScript((k) => sessionStorage.setItem('ctx.console.key', k), key);
  return context.newPage();
}

// ---- 1. first load -----------------------------------------------------------------------------
const shell: number[] = [];
const inPage: number[] = [];
const data: number[] = [];
const base: number[] = [];
for (let i = 0; i < runs + 1; i++) {
  const p0 = await coldPage();
  const t0 = performance.now();
  await p0.goto(`${s.base}/health`);
  const tb = performance.now() - t0;
  await p0.context().close();

  const page = await coldPage(s.adminKey);
  const t1 = performance.now();
  await page.goto(`${s.base}/console#/overview`);
  await page.getByTestId('identity').waitFor();
  const ts = performance.now() - t1;
  // The page's own clock: navigation start to the shell's first effect (no Playwright polling in it).
  const mark = await page.evaluate(() => performance.getEntriesByName('ctx-console-interactive')[0]?.startTime ?? NaN);
  await page.waitForFunction(() => document.querySelectorAll('.card').length >= 4 && !document.querySelector('.loading'));
  const td = performance.now() - t1;
  await page.context().close();
  // The first run warms the server's file reads and the browser binary; it is not counted.
  if (i === 0) continue;
  base.push(tb);
  shell.push(ts);
  inPage.push(mark);
  data.push(td);
}
const kib = (n: number) => (n / 1024).toFixed(1);
console.log(`first load, cold cache, ${runs} runs (page + JS + CSS: ${kib(firstLoad.reduce((n, f) => n + f.bytes, 0))} KiB, ${kib(firstLoad.reduce((n, f) => n + f.gzip, 0))} KiB gzipped, as served to Chromium):`);
console.log(`  baseline cold GET /health        median ${ms(pct(base, 0.5))}  p90 ${ms(pct(base, 0.9))}`);
console.log(`  console shell with identity      median ${ms(pct(shell, 0.5))}  p90 ${ms(pct(shell, 0.9))}  (${(pct(shell, 0.5) / pct(base, 0.5)).toFixed(2)}x baseline)`);
console.log(`  console interactive, page clock  median ${ms(pct(inPage, 0.5))}  p90 ${ms(pct(inPage, 0.9))}  (navigation start to the signed-in shell's first effect)`);
console.log(`  console overview with its data   median ${ms(pct(data, 0.5))}  p90 ${ms(pct(data, 0.9))}  (${(pct(data, 0.5) / pct(base, 0.5)).toFixed(2)}x baseline)`);

// ---- 2. a directory of 1,000 entries -------------------------------------------------------------
const N = 1000;
const ops = Array.from({ length: N }, (_, i) => ({ uri: `ctx://resources/big/note-${String(i).padStart(4, '0')}.md`, content: `# Note ${i}\n\nbody ${i}\n`, mode: 'create' }));
await s.api('POST', '/api/v1/fs/mkdir', s.adminKey, { uri: 'ctx://resources/big' });
for (let i = 0; i < N; i += 250) {
  const w = await s.api('POST', '/api/v1/content/batch-write', s.adminKey, { root_uri: 'ctx://resources/big', operations: ops.slice(i, i + 250) });
  if (w.status !== 200) throw new Error(`batch-write: ${w.status} ${JSON.stringify(w.json)}`);
}
await s.api('POST', '/api/v1/system/wait', s.adminKey, { timeout: 120 });

/**
 * Scrolls `selector` to its end 120 px per frame; frame intervals in ms. A string, not a function:
 * tsx would wrap a function's inner closures in a helper the page does not have.
 */
const scrollFrames = (page: Page, selector: string) =>
  page.evaluate<number[]>(`new Promise((resolve) => {
    const el = document.querySelector(${JSON.stringify(selector)});
    const frames = [];
    let last = performance.now();
    let still = 0;
    const step = (now) => {
      frames.push(now - last);
      last = now;
      const before = el.scrollTop;
      el.scrollTop += 120;
      // The tree grows while its next page loads: stop after a quarter second at the very end.
      still = el.scrollTop === before ? still + 1 : 0;
      if (still > 15) return resolve(frames.slice(1));
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  })`);

const page = await coldPage(s.adminKey);
await page.goto(`${s.base}/console#/browser`);
const tree = page.getByRole('tree');
await tree.getByRole('treeitem', { name: 'big' }).waitFor();
const t2 = performance.now();
await tree.getByRole('treeitem', { name: 'big' }).click();
await tree.getByRole('treeitem', { name: 'note-0000.md' }).waitFor();
const listed = performance.now() - t2;
const frames = await scrollFrames(page, '.tree');
const after = await page.evaluate(() => ({ dom: document.querySelectorAll('.trow').length, rows: Number(document.querySelector('.tree')!.getAttribute('data-rows')), last: !!document.querySelector('[data-uri="ctx://resources/big/note-0999.md"]') }));
// Keyboard on the long list: End, then 20 ArrowUps; time per key until the active row moved.
await tree.focus();
const k0 = performance.now();
await page.keyboard.press('End');
for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowUp');
await page.waitForFunction(() => document.querySelector('.trow.active'));
const keyMs = (performance.now() - k0) / 21;
await page.context().close();

const plain = await coldPage();
await plain.setContent(
  `<style>.row{height:28px;line-height:28px;padding-left:40px;font:14px system-ui;border-bottom:1px solid #eee}#box{height:600px;overflow:auto}</style><div id="box">${ops.map((o) => `<div class="row">${o.uri.split('/').pop()}</div>`).join('')}</div>`,
);
const baseFrames = await scrollFrames(plain, '#box');
await plain.context().close();

const summary = (f: number[]) => `mean ${(f.reduce((a, b) => a + b, 0) / f.length).toFixed(1)} ms  p95 ${pct(f, 0.95).toFixed(1)} ms  max ${Math.max(...f).toFixed(1)} ms  (${f.length} frames)`;
console.log(`directory of ${N} entries:`);
console.log(`  listed (click to first row)      ${ms(listed)}`);
console.log(`  rows in the tree ${after.rows}, in the DOM ${after.dom}; last entry reached: ${after.last}`);
console.log(`  scroll, console tree             ${summary(frames)}`);
console.log(`  scroll, baseline 1,000 plain rows ${summary(baseFrames)}`);
console.log(`  p95 frame ratio console/baseline ${(pct(frames, 0.95) / pct(baseFrames, 0.95)).toFixed(2)}x`);
console.log(`  keyboard: ${keyMs.toFixed(1)} ms per key press (End + 20 ArrowUp, round trip through Playwright)`);

await browser.close();
await s.close();
