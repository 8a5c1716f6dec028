/**
 * Screenshots of every console page into docs/console/ (shown in docs/console.md), light and dark,
 * plus the browser page on a narrow window. Not a test: it seeds a real server with a small, realistic
 * store (documents, a committed session and the memories it gave, a skill, a watch
 * on a page served from 127.0.0.1, a snapshot commit) and photographs what a user would see.
 *
 *   node --import tsx scripts/console-screenshots.ts
 */
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt, repoRoot } from '../plugins/console/build.js';
import { guardedPage, launch, signIn, startConsoleServer } from '../test/console/harness.js';

const OUT = path.join(repoRoot(), 'docs', 'console');

await ensureConsoleBuilt();
const site = http.createServer((_, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end('<html><head><title>Release notes</title></head><body><h1>Release notes</h1><p>Version 2 adds offline sync and faster search.</p></body></html>');
});
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
// No LLM: L0/L1 and memory extraction use the deterministic fallbacks, as on a fresh install.
const s = await startConsoleServer({ importAllowPrivate: true });
const key = s.adminKey;
const ok = async (method: string, p: string, body?: unknown) => {
  const r = await s.api(method, p, key, body);
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json.result;
};

const docs: Record<string, string> = {
  'handbook/onboarding.md': '# Onboarding\n\nWelcome to the team. Your first week: set up the dev environment, read the architecture notes, pair with a buddy.\n',
  'handbook/on-call.md': '# On-call\n\nPages go to the primary first, then the secondary after 10 minutes. Runbooks live in ops/.\n',
  'handbook/style.md': '# Writing style\n\nShort sentences. Say why, not what. Numbers with units.\n',
  'ops/runbooks/database-failover.md': '# Database failover\n\n1. Confirm the primary is down.\n2. Promote the replica.\n3. Point the service at it.\n',
  'ops/runbooks/cache-flush.md': '# Cache flush\n\nFlush only the affected keyspace; never the whole cluster.\n',
  'product/roadmap.md': '# Roadmap\n\nQ1: offline sync. Q2: faster search. Q3: a web console.\n',
};
for (const [p, content] of Object.entries(docs)) await ok('POST', '/api/v1/content/write', { uri: `ctx://resources/${p}`, content });
await ok('POST', '/api/v1/relations/link', { from_uri: 'ctx://resources/handbook/on-call.md', to_uris: ['ctx://resources/ops/runbooks/database-failover.md'], reason: 'what to do when paged' });
await ok('POST', '/api/v1/content/set_tags', { uri: 'ctx://resources/handbook/on-call.md', tags: ['team=platform', 'kind=policy'], mode: 'replace' });
await ok('POST', '/api/v1/skills', { data: '---\nname: summarize-incident\ndescription: Writes a short incident summary from a timeline\ntags: [ops, writing]\n---\n\n# Summarize an incident\n\nRead the timeline, list impact, cause and follow-ups.\n' });
await ok('POST', '/api/v1/resources', { path: `http://127.0.0.1:${(site.address() as AddressInfo).port}/release-notes.html`, parent: 'ctx://resources', watch_interval: 60, wait: true });
const session = await ok('POST', '/api/v1/sessions', { session_id: 'on-call-planning' });
for (const [role, content] of [['user', 'I prefer morning on-call shifts and short handovers.'], ['assistant', 'Noted. Anything else?'], ['user', 'I like writing runbooks in plain Markdown.']])
  await ok('POST', `/api/v1/sessions/${session.session_id}/messages`, { role, content });
const commit = await ok('POST', `/api/v1/sessions/${session.session_id}/commit`, {});
for (let i = 0; i < 100 && (await ok('GET', `/api/v1/tasks/${commit.task_id}`)).status !== 'completed'; i++) await new Promise((r) => setTimeout(r, 100));
await ok('POST', '/api/v1/sessions', { session_id: 'release-questions' });
await ok('POST', '/api/v1/sessions/release-questions/messages', { role: 'user', content: 'When does offline sync ship?' });
await ok('POST', '/api/v1/system/wait', { timeout: 60 });
await ok('POST', '/api/v1/snapshot/commit', { message: 'handbook and runbooks' });
await ok('POST', '/api/v1/content/write', { uri: 'ctx://resources/handbook/on-call.md', content: docs['handbook/on-call.md'] + '\nSwap shifts in the team calendar.\n' });

const browser = await launch();
const shots: Array<{ name: string; hash: string; prepare?: (p: Page) => Promise<void> }> = [
  { name: 'overview', hash: 'overview' },
  { name: 'browser', hash: `browser?uri=${encodeURIComponent('ctx://resources/handbook/on-call.md')}` },
  { name: 'browser-upload', hash: `browser?uri=${encodeURIComponent('ctx://resources/handbook')}&dir=1`, prepare: async (p) => {
    await p.getByRole('button', { name: 'Upload' }).click();
  } },
  { name: 'retrieval', hash: 'retrieval', prepare: async (p) => {
    await p.getByLabel('Query').fill('what to do when the database fails');
    await p.getByRole('button', { name: 'Find' }).click();
    await p.locator('.hit').first().waitFor();
  } },
  { name: 'sessions', hash: 'sessions?id=on-call-planning' },
  { name: 'skills', hash: 'skills?name=summarize-incident' },
  { name: 'watches', hash: 'watches' },
  { name: 'tasks', hash: `tasks?id=${commit.task_id}` },
  { name: 'packs', hash: 'packs' },
  { name: 'snapshots', hash: 'snapshots' },
  { name: 'admin', hash: 'admin' },
  { name: 'system', hash: 'system' },
];

const problems: string[] = [];
async function shoot(scheme: 'light' | 'dark', viewport: { width: number; height: number }, list: typeof shots, suffix = '') {
  const g = await guardedPage(browser, s.base, viewport, scheme);
  await signIn(g.page, s.base, key);
  for (const shot of list) {
    await g.page.goto(`${s.base}/console#/${shot.hash}`);
    await g.page.waitForLoadState('networkidle');
    await shot.prepare?.(g.page);
    // Let loads settle: no spinner left on the page.
    await g.page.waitForFunction(() => !document.querySelector('.loading'), undefined, { timeout: 10_000 }).catch(() => undefined);
    await g.page.waitForTimeout(300);
    await g.page.screenshot({ path: path.join(OUT, `${shot.name}${suffix}.png`) });
  }
  problems.push(...g.problems);
  await g.page.context().close();
}

await shoot('light', { width: 1280, height: 800 }, shots);
await shoot('dark', { width: 1280, height: 800 }, shots.filter((x) => ['overview', 'browser', 'retrieval'].includes(x.name)), '-dark');
await shoot('light', { width: 420, height: 800 }, shots.filter((x) => x.name === 'browser'), '-narrow');
const signInPage = await guardedPage(browser, s.base);
await signInPage.page.goto(`${s.base}/console`);
await signInPage.page.getByLabel('API key').waitFor();
await signInPage.page.screenshot({ path: path.join(OUT, 'sign-in.png') });
await signInPage.page.context().close();

await browser.close();
await s.close();
site.close();
if (problems.length) {
  console.error(problems.join('\n'));
  process.exitCode = 1;
}
console.log(`screenshots in ${OUT}`);
