/**
 * Isolation and safety of every fs route: other accounts' data is never visible, a USER cannot
 * reach another user's namespace, traversal and encoded tricks are refused, and the `access: denied`
 * placeholders under ctx://resources leak nothing and block every operation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordId } from '../../runtime/vfs/record-id.js';
import type { TestApp } from '../helpers/app.js';
import { fsApp, put, qs } from './helpers.js';

let t: TestApp;
let acmeAdmin: Record<string, string>;
let alice: Record<string, string>;
let bob: Record<string, string>;
let carol: Record<string, string>;
let globexAdmin: Record<string, string>;

type Headers = Record<string, string>;
const get = (route: string, params: Record<string, string | number | boolean>, h: Headers) => t.req({ url: `/api/v1/fs/${route}?${qs(params)}`, headers: h });
const post = (route: string, body: unknown, h: Headers) => t.req({ method: 'POST', url: `/api/v1/fs/${route}`, headers: h, body });
const del = (params: Record<string, string | boolean>, h: Headers) => t.req({ method: 'DELETE', url: `/api/v1/fs?${qs(params)}`, headers: h });

/** Every route touching `uri`, each as the caller `h`. */
function everyRoute(uri: string, h: Headers) {
  return [
    ['ls', () => get('ls', { uri }, h)],
    ['ls recursive', () => get('ls', { uri, recursive: true }, h)],
    ['tree', () => get('tree', { uri }, h)],
    ['stat', () => get('stat', { uri }, h)],
    ['attrs', () => get('attrs', { uri }, h)],
    ['set_tags', () => post('attrs/set_tags', { uri, tags: ['x=1'] }, h)],
    ['mkdir', () => post('mkdir', { uri: `${uri}/newdir` }, h)],
    ['rm', () => del({ uri, recursive: true }, h)],
    ['mv from', () => post('mv', { from_uri: uri, to_uri: `${uri}-moved` }, h)],
  ] as const;
}

beforeAll(async () => {
  t = (await fsApp()).t;
  const acme = await t.account('acme', ['alice', 'bob']);
  acmeAdmin = acme.admin;
  alice = acme.users.alice!;
  bob = acme.users.bob!;
  const globex = await t.account('globex', ['carol']);
  globexAdmin = globex.admin;
  carol = globex.users.carol!;
  await put(t, 'acme', 'resources/acme-only/plan.md', 'acme plan', ['secret=yes']);
  await put(t, 'acme', 'user/bob/memories/diary.md', 'bob diary');
  await put(t, 'acme', 'user/alice/memories/notes.md', 'alice notes');
  await put(t, 'acme', 'user/alice/peers/p1/memories/m.md', 'peer one');
  await put(t, 'acme', 'user/alice/peers/p2/memories/m.md', 'peer two');
  // resources/team: one open child, one restricted to bob.
  await put(t, 'acme', 'resources/team/open.md', 'open');
  await post('mkdir', { uri: 'ctx://resources/team/secret', description: 'The secret plans of the team' }, acmeAdmin);
  await put(t, 'acme', 'resources/team/secret/plan.md', 'top secret', ['lvl=1']);
  await put(t, 'acme', 'resources/team/secret/inner/deep.md', 'deeper secret');
  const acl = await post('access', { uri: 'ctx://resources/team/secret', readers: ['bob'] }, acmeAdmin);
  expect(acl.status).toBe(200);
  await post('attrs/set_tags', { uri: 'ctx://resources/team/secret', tags: ['lvl=1'] }, acmeAdmin);
});
afterAll(() => t.close());

describe('foreign accounts', () => {
  it('another account never sees acme data: listings show its own tree only', async () => {
    const ls = await get('ls', { uri: 'ctx://resources' }, carol);
    expect(ls.status).toBe(200);
    expect(ls.json().result).toEqual([]);
    const tree = await get('tree', { uri: 'ctx://', level_limit: 10, show_all_hidden: true }, globexAdmin);
    expect(JSON.stringify(tree.json().result)).not.toMatch(/acme|plan|diary/);
  });

  it('every route on an acme path answers as for a missing node in globex', async () => {
    for (const [name, call] of everyRoute('ctx://resources/acme-only/plan.md', carol)) {
      if (name === 'mkdir') continue; // below: it creates in globex's own tree
      const res = await call();
      if (name === 'rm') expect(res.json().result, name).toEqual({ uri: 'ctx://resources/acme-only/plan.md', deleted_count: 0 });
      else expect(res.status, name).toBe(404);
    }
    const made = await post('mkdir', { uri: 'ctx://resources/acme-only/plan.md' }, carol);
    expect(made.status).toBe(200);
    expect((await t.app.vfs.stat('globex', 'resources/acme-only/plan.md'))!.kind).toBe('dir');
    expect((await t.app.vfs.stat('acme', 'resources/acme-only/plan.md'))!.kind).toBe('file');
    expect((await t.app.vfs.readFile('acme', 'resources/acme-only/plan.md')).toString()).toBe('acme plan');
  });

  it('acme record ids are unknown to globex', async () => {
    const id = recordId('acme', 'ctx://resources/acme-only/plan.md', 2);
    expect((await get('stat', { uri: id }, alice)).status).toBe(200);
    expect((await get('stat', { uri: id }, carol)).status).toBe(404);
    expect((await get('stat', { uri: id }, globexAdmin)).status).toBe(404);
  });

  it('tags of another account never match', async () => {
    const res = await get('tree', { uri: 'ctx://', level_limit: 10, tags: 'secret=yes' }, globexAdmin);
    expect(res.json().result).toEqual([]);
  });
});

describe("a USER and another user's namespace", () => {
  it('ctx://user lists only the caller; ADMIN sees every user', async () => {
    expect((await get('ls', { uri: 'ctx://user' }, alice)).json().result.map((e: { name: string }) => e.name)).toEqual(['alice']);
    expect((await get('ls', { uri: 'ctx://user' }, acmeAdmin)).json().result.map((e: { name: string }) => e.name)).toEqual(['alice', 'bob']);
    const tree = await get('tree', { uri: 'ctx://', level_limit: 10 }, alice);
    expect(JSON.stringify(tree.json().result)).not.toContain('bob');
    const rec = await get('ls', { uri: 'ctx://', recursive: true }, alice);
    expect(JSON.stringify(rec.json().result)).not.toContain('diary');
  });

  it("every route on bob's namespace is 403 for alice, and nothing changes", async () => {
    for (const [name, call] of everyRoute('ctx://user/bob/memories/diary.md', alice)) {
      const res = await call();
      expect(res.status, name).toBe(403);
      expect(res.json().error.code).toBe('PERMISSION_DENIED');
    }
    expect((await post('mv', { from_uri: 'ctx://~/memories/notes.md', to_uri: 'ctx://user/bob/memories/stolen.md' }, alice)).status).toBe(403);
    expect((await t.app.vfs.readFile('acme', 'user/bob/memories/diary.md')).toString()).toBe('bob diary');
    expect(await t.app.vfs.stat('acme', 'user/alice/memories/notes.md')).not.toBeNull();
  });

  it("bob's record id is 404 for alice (ids cannot probe other namespaces)", async () => {
    const id = recordId('acme', 'ctx://user/bob/memories/diary.md', 2);
    expect((await get('stat', { uri: id }, alice)).status).toBe(404);
    expect((await get('stat', { uri: id }, bob)).json().result.uri).toBe('ctx://user/bob/memories/diary.md');
  });

  it('ADMIN reads any user namespace of the account', async () => {
    expect((await get('stat', { uri: 'ctx://user/bob/memories/diary.md' }, acmeAdmin)).status).toBe(200);
  });

  it('a peer view hides the other peers', async () => {
    const asP1 = { ...alice, 'x-ctx-actor-peer': 'p1' };
    expect((await get('ls', { uri: 'ctx://~/peers' }, asP1)).json().result.map((e: { name: string }) => e.name)).toEqual(['p1']);
    expect((await get('ls', { uri: 'ctx://~/peers' }, alice)).json().result.map((e: { name: string }) => e.name)).toEqual(['p1', 'p2']);
    expect((await get('ls', { uri: 'ctx://~/peers/p2/memories' }, asP1)).status).toBe(403);
  });
});

describe('traversal, encoded tricks and malformed input', () => {
  const traversals = ['ctx://resources/../user/bob/memories', 'ctx://resources/./team', 'ctx://resources/../../../etc/passwd'];
  const tricks = [
    'ctx://resources/%2e%2e/user/bob',
    'ctx://resources/%2E%2E%2Fuser',
    'ctx://resources/a%2fb',
    'ctx://resources/a%5cb',
    'ctx://resources/%c0%ae%c0%ae/x',
    'ctx://resources/%u002e',
    'ctx://resources\\..\\user',
    'ctx://resources//team',
    'ctx://resources/a\u0000b',
    'ctx://resources/\u202egnp.md',
    'ctx://temp/x',
    'ctx://queue/x',
    'ctx://user/memories/x',
    'CTX://resources',
    'file:///etc/passwd',
    '/etc/passwd',
    'resources/team',
    `ctx://resources/${'a'.repeat(256)}`,
  ];

  it('every route refuses them with 400 INVALID_URI', async () => {
    for (const uri of tricks)
      for (const [name, call] of everyRoute(uri, acmeAdmin)) {
        const res = await call();
        expect(res.status, `${name} ${JSON.stringify(uri)}`).toBe(400);
        expect(res.json().error.code).toBe('INVALID_URI');
      }
  });

  it('every route answers a literal "." or ".." segment as a denied access (403)', async () => {
    for (const uri of traversals)
      for (const [name, call] of everyRoute(uri, acmeAdmin)) {
        const res = await call();
        expect(res.status, `${name} ${JSON.stringify(uri)}`).toBe(403);
        expect(res.json().error.code).toBe('PERMISSION_DENIED');
      }
  });

  it('mv checks both URIs; the refused field is named', async () => {
    const res = await post('mv', { from_uri: 'ctx://resources/team/open.md', to_uri: 'ctx://resources/../user/bob/x.md' }, acmeAdmin);
    expect(res.json().error).toMatchObject({ code: 'PERMISSION_DENIED', details: { field: 'to_uri' } });
    const enc = await post('mv', { from_uri: 'ctx://resources/team/open.md', to_uri: 'ctx://resources/%2e%2e/x.md' }, acmeAdmin);
    expect(enc.json().error).toMatchObject({ code: 'INVALID_URI', details: { field: 'to_uri' } });
  });

  it('wrong body types and malformed or oversized JSON are 400/413, never 500', async () => {
    const raw = (url: string, body: string) => t.req({ method: 'POST', url, headers: { ...alice, 'content-type': 'application/json' }, body });
    expect((await raw('/api/v1/fs/mkdir', '{"uri":')).status).toBe(400);
    expect((await raw('/api/v1/fs/mv', '[1,2]')).status).toBe(400);
    expect((await raw('/api/v1/fs/attrs/set_tags', 'null')).status).toBe(400);
    expect((await post('mkdir', { uri: ['ctx://resources/a'] }, alice)).json().error.details.field).toBe('uri');
    expect((await post('mkdir', { uri: null }, alice)).json().error.details.field).toBe('uri');
    const huge = await raw('/api/v1/fs/mkdir', JSON.stringify({ uri: 'ctx://resources/big', description: 'x'.repeat(8 * 1024 * 1024) }));
    expect([400, 413]).toContain(huge.status);
    expect(await t.app.vfs.stat('acme', 'resources/big')).toBeNull();
  });

  it('without credentials every route is 401', async () => {
    for (const [name, call] of everyRoute('ctx://resources/team', {})) expect((await call()).status, name).toBe(401);
  });
});

describe('access: denied placeholders under ctx://resources', () => {
  it('ls shows the placeholder with name, isDir, uri and access only', async () => {
    const res = await get('ls', { uri: 'ctx://resources/team', include_tags: true, extra_fields: 'locked,id,count' }, alice);
    expect(res.status).toBe(200);
    expect(res.json().result).toEqual([
      { name: 'secret', isDir: true, uri: 'ctx://resources/team/secret', access: 'denied' },
      expect.objectContaining({ name: 'open.md', size: 4, meta: { tags: [] } }),
    ]);
    expect(res.text).not.toMatch(/secret plans|lvl=1|modTime":"[^"]*","isDir":true,"uri":"ctx:\/\/resources\/team\/secret/);
  });

  it('the reader and ADMIN see the full entry', async () => {
    for (const h of [bob, acmeAdmin]) {
      const entry = (await get('ls', { uri: 'ctx://resources/team' }, h)).json().result[0];
      expect(entry).toMatchObject({ name: 'secret', isDir: true, abstract: 'The secret plans of the team', size: 0 });
      expect(entry.access).toBeUndefined();
    }
  });

  it('recursive listing and tree do not descend into it', async () => {
    const tree = await get('tree', { uri: 'ctx://resources', level_limit: 10, show_all_hidden: true }, alice);
    const uris = tree.json().result.map((e: { uri: string }) => e.uri);
    expect(uris).toContain('ctx://resources/team/secret');
    expect(uris.some((u: string) => u.startsWith('ctx://resources/team/secret/'))).toBe(false);
    expect(tree.json().result.find((e: { uri: string }) => e.uri === 'ctx://resources/team/secret')).toEqual({
      name: 'secret',
      isDir: true,
      uri: 'ctx://resources/team/secret',
      access: 'denied',
      rel_path: 'team/secret',
    });
    const rec = await get('ls', { uri: 'ctx://resources/team', recursive: true, simple: true }, alice);
    expect(rec.json().result).toEqual(['ctx://resources/team/secret', 'ctx://resources/team/open.md']);
    const bobTree = await get('tree', { uri: 'ctx://resources/team', level_limit: 10 }, bob);
    expect(bobTree.json().result.map((e: { rel_path: string }) => e.rel_path)).toEqual(['secret', 'secret/inner', 'secret/inner/deep.md', 'secret/plan.md', 'open.md']);
  });

  it('a tag filter never matches a placeholder (its tags are not disclosed)', async () => {
    expect((await get('ls', { uri: 'ctx://resources/team', tags: 'lvl=1' }, alice)).json().result).toEqual([]);
    expect((await get('tree', { uri: 'ctx://resources/team', tags: 'lvl=1' }, alice)).json().result).toEqual([]);
    expect((await get('ls', { uri: 'ctx://resources/team', tags: 'lvl=1' }, bob)).json().result.map((e: { name: string }) => e.name)).toEqual(['secret']);
  });

  it('every fs route on it or below it is 403 for the non-reader', async () => {
    for (const uri of ['ctx://resources/team/secret', 'ctx://resources/team/secret/plan.md', 'ctx://resources/team/secret/inner'])
      for (const [name, call] of everyRoute(uri, alice)) {
        const res = await call();
        expect(res.status, `${name} ${uri}`).toBe(403);
        expect(res.json().error).toMatchObject({ code: 'PERMISSION_DENIED', details: { access: 'denied' } });
        expect(res.json().error.details.resource.startsWith(uri)).toBe(true);
      }
    expect((await post('mv', { from_uri: 'ctx://resources/team/open.md', to_uri: 'ctx://resources/team/secret/open.md' }, alice)).status).toBe(403);
    expect((await t.app.vfs.readFile('acme', 'resources/team/secret/plan.md')).toString()).toBe('top secret');
    expect((await t.app.vfs.stat('acme', 'resources/team/secret'))!.tags).toEqual(['lvl=1']);
  });

  it('content operations on it are 403 (the content plugin asks the fs service)', async () => {
    const read = await t.req({ url: `/api/v1/content/read?${qs({ uri: 'ctx://resources/team/secret/plan.md' })}`, headers: alice });
    expect(read.status).toBe(403);
    const abs = await t.req({ url: `/api/v1/content/abstract?${qs({ uri: 'ctx://resources/team/secret' })}`, headers: alice });
    expect(abs.status).toBe(403);
    const tags = await t.req({ method: 'POST', url: '/api/v1/content/set_tags', headers: alice, body: { uri: 'ctx://resources/team/secret', tags: [] } });
    expect(tags.status).toBe(403);
    const ok = await t.req({ url: `/api/v1/content/read?${qs({ uri: 'ctx://resources/team/secret/plan.md' })}`, headers: bob });
    expect(ok.json().result).toBe('top secret');
  });

  it('batch-write with a target in it (existing or new) is 403 for the non-reader and writes nothing; the reader writes', async () => {
    const batch = (headers: Record<string, string>, uris: string[]) =>
      t.req({ method: 'POST', url: '/api/v1/content/batch-write', headers, body: { root_uri: 'ctx://resources/team', operations: uris.map((uri) => ({ uri, content: `by batch ${uri}`, mode: 'upsert' })) } });
    for (const target of ['ctx://resources/team/secret/plan.md', 'ctx://resources/team/secret/inner/new.md', 'ctx://resources/team/secret/brand-new.md']) {
      const res = await batch(alice, ['ctx://resources/team/batch-ok.md', target]);
      expect(res.status, target).toBe(403);
      expect(res.json().error).toMatchObject({ code: 'PERMISSION_DENIED', details: { access: 'denied' } });
    }
    expect(await t.app.vfs.stat('acme', 'resources/team/batch-ok.md')).toBeNull();
    expect((await t.app.vfs.readFile('acme', 'resources/team/secret/plan.md')).toString()).toBe('top secret');
    const ok = await batch(bob, ['ctx://resources/team/secret/batch-bob.md', 'ctx://resources/team/batch-bob.md']);
    expect(ok.status).toBe(200);
    expect(ok.json().result.created).toEqual(['ctx://resources/team/secret/batch-bob.md', 'ctx://resources/team/batch-bob.md']);
    const mine = await batch(alice, ['ctx://resources/team/batch-alice.md']);
    expect(mine.json().result.created).toEqual(['ctx://resources/team/batch-alice.md']);
    for (const p of ['resources/team/secret/batch-bob.md', 'resources/team/batch-bob.md', 'resources/team/batch-alice.md']) await t.app.vfs.rm('acme', p);
  });

  it('removing a tree that holds a denied entry is 403 for the non-reader; nothing is removed', async () => {
    const res = await del({ uri: 'ctx://resources/team', recursive: true }, alice);
    expect(res.status).toBe(403);
    expect(res.json().error).toMatchObject({ code: 'PERMISSION_DENIED', details: { resource: 'ctx://resources/team', access: 'denied' } });
    expect(await t.app.vfs.stat('acme', 'resources/team/open.md')).not.toBeNull();
    expect(await t.app.vfs.stat('acme', 'resources/team/secret/plan.md')).not.toBeNull();
  });

  it('stat by the record id of a denied file is 404 for the non-reader', async () => {
    const id = recordId('acme', 'ctx://resources/team/secret/plan.md', 2);
    expect((await get('stat', { uri: id }, alice)).status).toBe(404);
    expect((await get('stat', { uri: id }, bob)).status).toBe(200);
  });

  it('read and download by that record id are the same 404, without the hidden URI', async () => {
    const id = recordId('acme', 'ctx://resources/team/secret/plan.md', 2);
    const unknown = '0'.repeat(32);
    for (const route of ['read', 'download']) {
      const res = await t.req({ url: `/api/v1/content/${route}?${qs({ uri: id })}`, headers: alice });
      expect(res.status, route).toBe(404);
      expect(res.json().error).toEqual({ code: 'NOT_FOUND', message: expect.any(String), details: { id } });
      expect(res.text, route).not.toMatch(/secret|plan\.md/);
      // Indistinguishable from an id nobody has: same code, same message shape.
      const none = await t.req({ url: `/api/v1/content/${route}?${qs({ uri: unknown })}`, headers: alice });
      expect(none.json().error.message.replace(unknown, 'ID')).toBe(res.json().error.message.replace(id, 'ID'));
    }
    expect((await t.req({ url: `/api/v1/content/read?${qs({ uri: id })}`, headers: bob })).json().result).toBe('top secret');
    const dl = await t.req({ url: `/api/v1/content/download?${qs({ uri: id })}`, headers: bob });
    expect(dl.status).toBe(200);
    expect(dl.text).toBe('top secret');
    // By URI the placeholder's rule stands: 403 (the caller already knows that URI from the listing).
    expect((await t.req({ url: `/api/v1/content/read?${qs({ uri: 'ctx://resources/team/secret/plan.md' })}`, headers: alice })).status).toBe(403);
  });

  it('recursive set_tags from above skips the denied subtree and counts it', async () => {
    const res = await post('attrs/set_tags', { uri: 'ctx://resources/team', tags: ['team=all'], mode: 'append', recursive: true }, alice);
    expect(res.status).toBe(200);
    expect(res.json().result).toMatchObject({ updated_uris: ['ctx://resources/team', 'ctx://resources/team/open.md'], skipped_count: 1 });
    expect((await t.app.vfs.stat('acme', 'resources/team/secret/plan.md'))!.tags).toEqual(['lvl=1']);
  });

  it('sort_by=mtime places a placeholder as if its mtime were 0, not by its hidden time', async () => {
    const pause = () => new Promise((r) => setTimeout(r, 3));
    for (const d of ['d1', 'sec', 'd3']) {
      await post('mkdir', { uri: `ctx://resources/order/${d}` }, acmeAdmin);
      await pause();
    }
    for (const f of ['f1.md', 'f2.md', 'f3.md']) {
      await put(t, 'acme', `resources/order/${f}`, f);
      await pause();
    }
    await post('access', { uri: 'ctx://resources/order/sec', readers: ['bob'] }, acmeAdmin);
    await post('access', { uri: 'ctx://resources/order/f2.md', readers: [] }, acmeAdmin);
    const order = async (h: Headers, sort_order: string, route = 'ls') =>
      (await get(route, { uri: 'ctx://resources/order', sort_by: 'mtime', sort_order, ...(route === 'tree' ? { level_limit: 1 } : {}) }, h)).json().result.map((e: { name: string }) => e.name);
    expect(await order(acmeAdmin, 'asc')).toEqual(['d1', 'sec', 'd3', 'f1.md', 'f2.md', 'f3.md']);
    expect(await order(alice, 'asc')).toEqual(['sec', 'd1', 'd3', 'f2.md', 'f1.md', 'f3.md']);
    expect(await order(alice, 'desc')).toEqual(['d3', 'd1', 'sec', 'f3.md', 'f1.md', 'f2.md']);
    expect(await order(alice, 'asc', 'tree')).toEqual(['sec', 'd1', 'd3', 'f2.md', 'f1.md', 'f3.md']);
    // bob reads sec (real position) but not f2.
    expect(await order(bob, 'asc')).toEqual(['d1', 'sec', 'd3', 'f2.md', 'f1.md', 'f3.md']);
    // Name order is unaffected, and the cached views stay as they were for the next caller.
    expect((await get('ls', { uri: 'ctx://resources/order' }, alice)).json().result.map((e: { name: string }) => e.name)).toEqual(['d1', 'd3', 'sec', 'f1.md', 'f2.md', 'f3.md']);
    expect(await order(acmeAdmin, 'desc')).toEqual(['d3', 'sec', 'd1', 'f3.md', 'f2.md', 'f1.md']);
  });

  it('only ADMIN/ROOT set read access, only inside resources; clearing it lifts the restriction', async () => {
    expect((await post('access', { uri: 'ctx://resources/team/open.md', readers: [] }, alice)).status).toBe(403);
    expect((await post('access', { uri: 'ctx://resources', readers: [] }, acmeAdmin)).status).toBe(400);
    expect((await post('access', { uri: 'ctx://~/memories', readers: [] }, acmeAdmin)).status).toBe(400);
    expect((await post('access', { uri: 'ctx://resources/team/secret', readers: 'bob' }, acmeAdmin)).json().error.details.field).toBe('readers');
    expect((await post('access', { uri: 'ctx://resources/team/secret', readers: ['bob', '../x'] }, acmeAdmin)).json().error.details.field).toBe('readers[1]');
    await post('mkdir', { uri: 'ctx://resources/team/temp' }, acmeAdmin);
    await post('access', { uri: 'ctx://resources/team/temp', readers: [] }, acmeAdmin);
    expect((await get('stat', { uri: 'ctx://resources/team/temp' }, alice)).status).toBe(403);
    await post('access', { uri: 'ctx://resources/team/temp', readers: null }, acmeAdmin);
    expect((await get('stat', { uri: 'ctx://resources/team/temp' }, alice)).status).toBe(200);
  });
});
