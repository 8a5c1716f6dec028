/**
 * The add-resource fields the reference defines for parsing (`strict`, `preserve_structure`,
 * `directly_upload_media`, `processing_mode`), and a re-ingest (a watch run) that writes only what
 * changed at the source. Sources come from real servers on 127.0.0.1 (static HTTP, git http-backend).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import type { ChangeEvent } from '../../runtime/vfs/types.js';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { makeZip } from '../skills/zips.js';
import { commitTo, makeRepo, startGitServer, startStatic, type TestServer } from './servers.js';
import { png } from './documents.js';
import { pollUntil, settledTask } from '../helpers/poll.js';

let t: TestApp;
let alice: Record<string, string>;
let admin: Record<string, string>;
let web: TestServer;
let gitServer: TestServer;
let gitRoot: string;
let lib: string;

const call = (method: string, url: string, body?: unknown) => t.req({ method, url, headers: alice, body });
const add = (body: Record<string, unknown>) => call('POST', '/api/v1/resources', body);
const qs = (o: Record<string, string>) => new URLSearchParams(o).toString();
const files = async (uri: string): Promise<string[]> => {
  const r = await call('GET', `/api/v1/fs/ls?${qs({ uri, recursive: 'true', simple: 'true' })}`);
  if (r.status !== 200) return [];
  return (r.json().result as Array<string | { uri: string }>)
    .map((e) => (typeof e === 'string' ? e : e.uri))
    .map((u) => u.slice(uri.length + 1))
    .filter((rel) => !rel.split('/').pop()!.startsWith('.'))
    .sort();
};
const exists = async (uri: string) => (await call('GET', `/api/v1/fs/stat?${qs({ uri })}`)).status === 200;
const read = async (uri: string) => (await call('GET', `/api/v1/content/read?${qs({ uri })}`)).json().result as string;
const consistency = async (uri: string) => (await call('POST', '/api/v1/system/consistency', { uri })).json().result;

const ZIP = 'application/zip';
const mixed = makeZip([
  { name: 'guide/intro.md', data: '# Intro\n\nPangolins roll into balls.\n' },
  { name: 'guide/data/config.json', data: '{"broken": ' },
  { name: 'guide/blob.bin', data: new Uint8Array([0, 1, 2, 0, 255, 254]) },
]);
const clean = makeZip([
  { name: 'a/b/deep.md', data: '# Deep\n\nAxolotls regrow limbs.\n' },
  { name: 'c/top.txt', data: 'top level text about tardigrades\n' },
  { name: 'a/same.md', data: 'first same\n' },
  { name: 'c/same.md', data: 'second same\n' },
]);
const pics = makeZip([
  { name: 'gallery/img/chart.png', data: png(320, 200) },
  { name: 'gallery/notes.md', data: '# Gallery\n\nA chart of narwhal sightings.\n' },
]);

beforeAll(async () => {
  gitRoot = tempDir('ctx-reingest-git-');
  const seed: Record<string, string> = {};
  for (let i = 0; i < 8; i++) seed[`src/mod${i}.ts`] = `export const m${i} = ${i}; // module ${i} about okapis\n`;
  seed['README.md'] = '# Lib\n\nA library about okapis.\n';
  seed['docs/usage.md'] = '# Usage\n\nCall m0.\n';
  lib = makeRepo(gitRoot, 'lib', seed);
  gitServer = await startGitServer(gitRoot);
  web = await startStatic({
    '/mixed.zip': { type: ZIP, body: mixed },
    '/clean.zip': { type: ZIP, body: clean },
    '/pics.zip': { type: ZIP, body: pics },
    '/page.md': { type: 'text/markdown', body: '# Page\n\nSloths swim well.\n' },
  });
  t = await startTestApp({ config: { importAllowPrivate: true } });
  const acme = await t.account('acme', ['alice']);
  alice = acme.users.alice!;
  admin = acme.admin;
});
afterAll(async () => {
  await t.close();
  await web.close();
  await gitServer.close();
  fs.rmSync(gitRoot, { recursive: true, force: true });
});

describe('strict', () => {
  it('off (the default): files that cannot be stored are skipped with their reason', async () => {
    const r = await add({ path: `${web.url}/mixed.zip`, to: 'ctx://resources/lenient', wait: true });
    expect(r.status).toBe(200);
    expect(r.json().result).toMatchObject({ files: 1, skipped_count: 2 });
    expect(r.json().result.skipped.map((s: { path: string }) => s.path).sort()).toEqual(['blob.bin', 'data/config.json']);
    expect(await files('ctx://resources/lenient')).toEqual(['intro.md']);
  });

  it('on: one such file fails the import, naming them, and nothing is written', async () => {
    const r = await add({ path: `${web.url}/mixed.zip`, to: 'ctx://resources/strict', strict: true, wait: true });
    expect(r.status).toBe(400);
    expect(r.json().error.code).toBe('INVALID_ARGUMENT');
    expect(r.json().error.message).toMatch(/strict: 2 file\(s\).*blob\.bin.*data\/config\.json.*not valid JSON/);
    expect(await exists('ctx://resources/strict')).toBe(false);
  });

  it('on, without wait: the task fails with that error', async () => {
    const r = await add({ path: `${web.url}/mixed.zip`, to: 'ctx://resources/strict2', strict: true });
    expect(r.status).toBe(200);
    const id = r.json().result.task_id as string;
    const task: { status: string; error?: string } = await settledTask(async () => (await call('GET', `/api/v1/tasks/${id}`)).json().result);
    expect(task.status).toBe('failed');
    expect(task.error).toMatch(/strict/);
    expect(await exists('ctx://resources/strict2')).toBe(false);
  });

  it('on, with a clean source: imports as usual; not a boolean → 400', async () => {
    expect((await add({ path: `${web.url}/page.md`, to: 'ctx://resources/strict-ok', strict: true, wait: true })).status).toBe(200);
    expect(await read('ctx://resources/strict-ok/page.md')).toContain('Sloths');
    expect((await add({ path: `${web.url}/page.md`, strict: 'yes' })).status).toBe(400);
  });
});

describe('preserve_structure', () => {
  it('default (true): the tree keeps its directories', async () => {
    const r = await add({ path: `${web.url}/clean.zip`, to: 'ctx://resources/tree', wait: true });
    expect(r.status).toBe(200);
    expect(await files('ctx://resources/tree')).toEqual(['a', 'a/b', 'a/b/deep.md', 'a/same.md', 'c', 'c/same.md', 'c/top.txt']);
  });

  it('false: every file directly in the root under its name; a second file of the same name is skipped', async () => {
    const r = await add({ path: `${web.url}/clean.zip`, to: 'ctx://resources/flat', preserve_structure: false, wait: true });
    expect(r.status).toBe(200);
    expect(await files('ctx://resources/flat')).toEqual(['deep.md', 'same.md', 'top.txt']);
    expect(await read('ctx://resources/flat/same.md')).toBe('first same\n');
    expect(r.json().result.skipped).toEqual([{ path: 'c/same.md', reason: expect.stringContaining('"same.md" is taken') }]);
  });

  it('false with strict: the name clash fails the import', async () => {
    const r = await add({ path: `${web.url}/clean.zip`, to: 'ctx://resources/flat-strict', preserve_structure: false, strict: true, wait: true });
    expect(r.status).toBe(400);
    expect(await exists('ctx://resources/flat-strict')).toBe(false);
  });
});

describe('directly_upload_media', () => {
  it('true (the default): images of a tree are stored as they are, with their header facts as metadata', async () => {
    const r = await add({ path: `${web.url}/pics.zip`, to: 'ctx://resources/pics', wait: true });
    expect(r.status).toBe(200);
    expect(await files('ctx://resources/pics')).toEqual(['img', 'img/chart.png', 'notes.md']);
    const node = await t.app.vfs.stat('acme', 'resources/pics/img/chart.png');
    expect(node?.meta?.media).toMatchObject({ format: 'png', width: 320, height: 200 });
  });

  it('false: each image is processed as a single media upload is, with its Markdown description beside it', async () => {
    const r = await add({ path: `${web.url}/pics.zip`, to: 'ctx://resources/pics-described', directly_upload_media: false, wait: true });
    expect(r.status).toBe(200);
    expect(await files('ctx://resources/pics-described')).toEqual(['img', 'img/chart.png', 'img/chart.png.md', 'notes.md']);
    const desc = await read('ctx://resources/pics-described/img/chart.png.md');
    expect(desc).toContain('PNG');
    expect(desc).toContain('320');
  });
});

describe('processing_mode', () => {
  it('an unknown mode → 400', async () => {
    const r = await add({ path: `${web.url}/page.md`, processing_mode: 'everything' });
    expect(r.status).toBe(400);
    expect(r.json().error.code).toBe('INVALID_ARGUMENT');
  });

  it('semantic_and_vectors (the default): L0/L1 text is generated for the import', async () => {
    const r = await add({ path: `${web.url}/clean.zip`, to: 'ctx://resources/semantic', processing_mode: 'semantic_and_vectors', wait: true });
    expect(r.status).toBe(200);
    expect(await exists('ctx://resources/semantic/a/.abstract.md')).toBe(true);
    expect(await exists('ctx://resources/semantic/.overview.md')).toBe(true);
    expect((await t.app.vfs.stat('acme', 'resources/semantic'))?.meta?.resource).toMatchObject({ processing_mode: 'semantic_and_vectors' });
  });

  it('vectors_only: no L0/L1 text is generated, yet every node is indexed and findable', async () => {
    const r = await add({ path: `${web.url}/clean.zip`, to: 'ctx://resources/vectors', processing_mode: 'vectors_only', wait: true });
    expect(r.status).toBe(200);
    for (const dir of ['', '/a', '/a/b', '/c']) {
      expect(await exists(`ctx://resources/vectors${dir}/.abstract.md`)).toBe(false);
      expect(await exists(`ctx://resources/vectors${dir}/.overview.md`)).toBe(false);
    }
    expect(await consistency('ctx://resources/vectors')).toMatchObject({ ok: true, missing_record_count: 0 });
    const found = (await call('POST', '/api/v1/search/find', { query: 'axolotls regrow limbs', target_uri: 'ctx://resources/vectors' })).json().result;
    expect(JSON.stringify(found)).toContain('ctx://resources/vectors/a/b/deep.md');
    expect((await t.app.vfs.stat('acme', 'resources/vectors'))?.meta?.resource).toMatchObject({ processing_mode: 'vectors_only' });
  });
});

describe('args.parse_mode', () => {
  const big = Array.from({ length: 6 }, (_, i) => `## Part ${i}\n\n` + `Marmots whistle in section ${i}. `.repeat(250) + '\n').join('\n');
  const zip = makeZip([
    { name: 'docs/guide.md', data: `# Guide\n\n${big}` },
    { name: 'docs/small.md', data: '# Small\n' },
  ]);
  let s2: TestServer;
  beforeAll(async () => {
    s2 = await startStatic({ '/guide.md': { type: 'text/markdown', body: `# Guide\n\n${big}` }, '/tree.zip': { type: ZIP, body: zip } });
  });
  afterAll(() => s2.close());

  it('default: a document over 32 KiB becomes a directory of sections', async () => {
    expect(Buffer.byteLength(big)).toBeGreaterThan(32 * 1024);
    const r = await add({ path: `${s2.url}/guide.md`, to: 'ctx://resources/split', wait: true });
    expect(r.status, r.text).toBe(200);
    expect((await files('ctx://resources/split')).length).toBeGreaterThan(3);
  });

  it('no_split: the same document stays one Markdown file, alone or in a tree', async () => {
    const r = await add({ path: `${s2.url}/guide.md`, to: 'ctx://resources/whole', args: { parse_mode: 'no_split' }, wait: true });
    expect(r.status, r.text).toBe(200);
    expect(await files('ctx://resources/whole')).toEqual(['guide.md']);
    expect(await read('ctx://resources/whole/guide.md')).toContain('## Part 5');
    const tree = await add({ path: `${s2.url}/tree.zip`, to: 'ctx://resources/whole-tree', args: { parse_mode: 'no_split' }, wait: true });
    expect(tree.status, tree.text).toBe(200);
    expect(await files('ctx://resources/whole-tree')).toEqual(['guide.md', 'small.md']);
  });

  it('another value → 400 naming args.parse_mode', async () => {
    const r = await add({ path: `${s2.url}/guide.md`, args: { parse_mode: 'pages' } });
    expect(r.status).toBe(400);
    expect(r.json().error.details.field).toBe('args.parse_mode');
  });
});

describe('watch_interval 0 or less with `to` (the reference)', () => {
  it('pauses the watch of that root and imports, from the same or another source; a watch the caller cannot see → 409', async () => {
    const root = 'ctx://resources/wpage';
    const w = await add({ path: `${web.url}/page.md`, to: root, watch_interval: 60, wait: true });
    expect(w.status, w.text).toBe(200);
    const id = w.json().result.watch_task_id as string;
    const watchOf = async () => (await call('GET', `/api/v1/watches/${id}`)).json().result;
    expect((await add({ path: `${web.url}/clean.zip`, to: root, watch_interval: 5 })).status).toBe(409);
    const other = await add({ path: `${web.url}/clean.zip`, to: root, wait: true });
    expect(other.status, other.text).toBe(200);
    expect(other.json().result.watch_task_id).toBeUndefined();
    expect(await watchOf()).toMatchObject({ is_active: false, watch_interval: 60 });
    expect(await files(root)).toContain('c/top.txt');
    // Adding it again with an interval takes the paused watch over for the new source.
    const again = await add({ path: `${web.url}/clean.zip`, to: root, watch_interval: 30, wait: true });
    expect(again.json().result.watch_task_id).toBe(id);
    expect(await watchOf()).toMatchObject({ is_active: true, watch_interval: 30, path: `${web.url}/clean.zip` });
    const neg = await add({ path: `${web.url}/clean.zip`, to: root, watch_interval: -1, wait: true });
    expect(neg.status, neg.text).toBe(200);
    expect((await watchOf()).is_active).toBe(false);
    // Another USER of the account cannot see (so cannot pause) alice's watch.
    await call('PATCH', `/api/v1/watches/${id}`, { is_active: true });
    const carol = (await t.req({ method: 'POST', url: '/api/v1/admin/accounts/acme/users', headers: admin, body: { user_id: 'carol', role: 'USER' } })).json().result.user_key as string;
    const theirs = await t.req({ method: 'POST', url: '/api/v1/resources', headers: { 'x-api-key': carol }, body: { path: `${web.url}/page.md`, to: root } });
    expect(theirs.status).toBe(409);
    expect((await watchOf()).is_active).toBe(true);
    await call('DELETE', `/api/v1/watches/${id}`);
  });
});

describe('re-ingest writes only what changed', () => {
  it('a watch run after one file changed, one was added and one deleted touches exactly those', async () => {
    const root = 'ctx://resources/lib';
    const first = await add({ path: `${gitServer.url}/lib.git`, to: root, watch_interval: 60, wait: true });
    expect(first.status).toBe(200);
    expect(first.json().result).toMatchObject({ files: 10, written: 10, unchanged: 0 });
    const watchId = first.json().result.watch_task_id as string;
    const before = new Map<string, number>();
    for await (const e of t.app.vfs.walk('acme', 'resources/lib')) if (e.kind === 'file' && !e.name.startsWith('.')) before.set(e.path.slice('resources/lib/'.length), e.mtime);
    expect(before.size).toBe(10);

    commitTo(lib, { 'src/mod3.ts': 'export const m3 = 33; // changed: now about tapirs\n', 'src/new.ts': 'export const fresh = true; // about aardvarks\n' }, ['docs/usage.md']);
    // Change events are what index work follows: collect those of the run.
    const events: ChangeEvent[] = [];
    const listen = (ev: ChangeEvent) => {
      if (ev.account === 'acme' && (ev.path === 'resources/lib' || ev.path.startsWith('resources/lib/'))) events.push(ev);
    };
    t.app.vfs.on('change', listen);
    const trig = await call('POST', `/api/v1/watches/${watchId}/trigger`);
    expect(trig.status).toBe(200);
    const w = await pollUntil(async () => {
      const watch: { last_task_id: string | null; last_status: string | null } = (await call('GET', `/api/v1/watches/${watchId}`)).json().result;
      return watch.last_task_id && watch.last_task_id !== first.json().result.task_id && watch.last_status ? watch : false;
    }, { what: "the triggered run's outcome" });
    const run = await settledTask(async () => (await call('GET', `/api/v1/tasks/${w.last_task_id}`)).json().result);
    t.app.vfs.off('change', listen);
    expect(run.status).toBe('completed');
    expect((await call('GET', `/api/v1/watches/${watchId}`)).json().result).toMatchObject({
      last_task_id: run.task_id,
      last_status: 'completed',
      last_error: null,
      // A run parses and indexes as the add did.
      processor_kwargs: { strict: false, preserve_structure: null, directly_upload_media: true, processing_mode: 'semantic_and_vectors' },
    });
    expect(run.result).toMatchObject({ files: 10, written: 2, unchanged: 8, removed: 1 });

    const writes = events.filter((e) => e.type === 'write' && !e.path.split('/').pop()!.startsWith('.')).map((e) => e.path);
    expect(writes.sort()).toEqual(['resources/lib/src/mod3.ts', 'resources/lib/src/new.ts']);
    const removed = events.filter((e) => e.type === 'rm').map((e) => e.path);
    expect(removed).toEqual(['resources/lib/docs']);
    // The only metadata change is the resource record on the root (source, time, task).
    expect(events.filter((e) => e.type === 'meta').map((e) => e.path)).toEqual(['resources/lib']);

    expect(await read(`${root}/src/mod3.ts`)).toContain('tapirs');
    expect(await read(`${root}/src/new.ts`)).toContain('aardvarks');
    expect(await exists(`${root}/docs/usage.md`)).toBe(false);
    for (const [rel, mtime] of before) {
      if (rel === 'src/mod3.ts' || rel === 'docs/usage.md') continue;
      expect((await t.app.vfs.stat('acme', `resources/lib/${rel}`))?.mtime, rel).toBe(mtime);
    }
    expect(await consistency(root)).toMatchObject({ ok: true, missing_record_count: 0 });
    const found = (await call('POST', '/api/v1/search/find', { query: 'tapirs', target_uri: root })).json().result;
    expect(JSON.stringify(found)).toContain(`${root}/src/mod3.ts`);
    await call('DELETE', `/api/v1/watches/${watchId}`);
  });

  it('tags: a re-add with the same tags changes no node; new tags change every node', async () => {
    const root = 'ctx://resources/tagged';
    expect((await add({ path: `${web.url}/clean.zip`, to: root, tags: ['team=a'], wait: true })).status).toBe(200);
    const events: ChangeEvent[] = [];
    const listen = (ev: ChangeEvent) => {
      if (ev.path === 'resources/tagged' || ev.path.startsWith('resources/tagged/')) events.push(ev);
    };
    t.app.vfs.on('change', listen);
    try {
      const same = await add({ path: `${web.url}/clean.zip`, to: root, tags: ['team=a'], wait: true });
      expect(same.json().result).toMatchObject({ written: 0, unchanged: 4 });
      expect(events.filter((e) => !e.path.split('/').pop()!.startsWith('.')).map((e) => [e.type, e.path])).toEqual([['meta', 'resources/tagged']]);
      events.length = 0;
      const retag = await add({ path: `${web.url}/clean.zip`, to: root, tags: ['team=b'], wait: true });
      expect(retag.json().result).toMatchObject({ written: 0, unchanged: 4 });
      // root + a, a/b, c + 4 files; the root once more for its resource record.
      expect(events.filter((e) => e.type === 'meta').length).toBe(9);
      expect((await t.app.vfs.stat('acme', 'resources/tagged/a/b/deep.md'))?.tags).toEqual(['team=b']);
    } finally {
      t.app.vfs.off('change', listen);
    }
  });

  it('vectors_only re-ingest: the changed file is re-embedded, no L0/L1 text appears, the index stays consistent', async () => {
    const root = 'ctx://resources/vo-again';
    const v1 = makeZip([
      { name: 'x/one.md', data: '# One\n\nAbout ibexes.\n' },
      { name: 'x/two.md', data: '# Two\n\nAbout jerboas.\n' },
    ]);
    const v2 = makeZip([
      { name: 'x/one.md', data: '# One\n\nAbout ibexes.\n' },
      { name: 'x/two.md', data: '# Two\n\nNow about quolls instead.\n' },
    ]);
    const s2 = await startStatic({ '/v1.zip': { type: ZIP, body: v1 }, '/v2.zip': { type: ZIP, body: v2 } });
    try {
      expect((await add({ path: `${s2.url}/v1.zip`, to: root, processing_mode: 'vectors_only', wait: true })).status).toBe(200);
      const r = await add({ path: `${s2.url}/v2.zip`, to: root, processing_mode: 'vectors_only', wait: true });
      expect(r.json().result).toMatchObject({ written: 1, unchanged: 1 });
      // A zip of one folder imports that folder's content: the files are in the root.
      expect(await exists(`${root}/.abstract.md`)).toBe(false);
      expect(await consistency(root)).toMatchObject({ ok: true });
      const found = (await call('POST', '/api/v1/search/find', { query: 'quolls', target_uri: root })).json().result;
      expect(JSON.stringify(found)).toContain(`${root}/two.md`);
    } finally {
      await s2.close();
    }
  });

  it('re-adding an unchanged source writes nothing, and a file whose type changed (file ↔ directory) is replaced', async () => {
    const again = await add({ path: `${web.url}/clean.zip`, to: 'ctx://resources/tree', wait: true });
    expect(again.json().result).toMatchObject({ files: 4, written: 0, unchanged: 4, removed: 0 });
    const swapped = makeZip([
      { name: 'a', data: 'a is a file now\n' },
      { name: 'c/top.txt/inner.md', data: 'top.txt is a directory now\n' },
    ]);
    const s2 = await startStatic({ '/swapped.zip': { type: ZIP, body: swapped } });
    try {
      const r = await add({ path: `${s2.url}/swapped.zip`, to: 'ctx://resources/tree', wait: true });
      expect(r.status).toBe(200);
      expect(await files('ctx://resources/tree')).toEqual(['a', 'c', 'c/top.txt', 'c/top.txt/inner.md']);
      expect(await consistency('ctx://resources/tree')).toMatchObject({ ok: true });
    } finally {
      await s2.close();
    }
  });
});
