/** Every fs route through the real pipeline and RocksDB: happy paths, parameters and error paths. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordId } from '../../runtime/vfs/record-id.js';
import type { TestApp } from '../helpers/app.js';
import { fsApp, put, qs, type FsTestApp } from './helpers.js';

let f: FsTestApp;
let t: TestApp;
let admin: Record<string, string>;
let alice: Record<string, string>;

const get = (route: string, params: Record<string, string | number | boolean | string[]>, headers = alice) => t.req({ url: `/api/v1/fs/${route}?${qs(params)}`, headers });
const post = (route: string, body: unknown, headers = alice) => t.req({ method: 'POST', url: `/api/v1/fs/${route}`, headers, body });
const names = (res: { json(): { result: Array<{ name: string }> } }) => res.json().result.map((e) => e.name);

beforeAll(async () => {
  f = await fsApp({ withIndex: true });
  t = f.t;
  const acme = await t.account('acme', ['alice', 'bob']);
  admin = acme.admin;
  alice = acme.users.alice!;
  // resources/lib: two directories and three files with distinct mtimes and tags.
  await post('mkdir', { uri: 'ctx://resources/lib/zeta', description: 'Zeta directory abstract' });
  await post('mkdir', { uri: 'ctx://resources/lib/alpha' });
  await put(t, 'acme', 'resources/lib/b.md', 'bee', ['lang=en', 'kind=doc']);
  await new Promise((r) => setTimeout(r, 3));
  await put(t, 'acme', 'resources/lib/a.md', 'a', ['lang=en']);
  await new Promise((r) => setTimeout(r, 3));
  await put(t, 'acme', 'resources/lib/c.txt', 'sea', ['lang=fr', 'kind=doc']);
  await put(t, 'acme', 'resources/lib/alpha/deep/deeper/x.md', 'x');
});
afterAll(() => t.close());

describe('GET /api/v1/fs/ls', () => {
  it('lists directories first in name order, hides dot files, agent output carries L0 abstracts', async () => {
    const res = await get('ls', { uri: 'ctx://resources/lib' });
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['alpha', 'zeta', 'a.md', 'b.md', 'c.txt']);
    const [alpha, zeta, a] = res.json().result;
    expect(zeta).toMatchObject({ isDir: true, uri: 'ctx://resources/lib/zeta', abstract: 'Zeta directory abstract', mode: 0o40755 });
    expect(alpha.abstract).toBe('alpha');
    expect(a).toEqual({ name: 'a.md', size: 1, mode: 0o100644, modTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/), isDir: false, uri: 'ctx://resources/lib/a.md' });
  });

  it('output=original has the spec fields only; abs_limit cuts abstracts', async () => {
    const orig = (await get('ls', { uri: 'ctx://resources/lib', output: 'original' })).json().result;
    expect(Object.keys(orig[1]).sort()).toEqual(['isDir', 'modTime', 'mode', 'name', 'size', 'uri']);
    const cut = (await get('ls', { uri: 'ctx://resources/lib', abs_limit: 4 })).json().result;
    expect(cut[1].abstract).toBe('Zeta...');
  });

  it('show_all_hidden shows sidecars; simple returns URIs', async () => {
    const res = await get('ls', { uri: 'ctx://resources/lib/zeta', show_all_hidden: true });
    expect(names(res)).toEqual(['.abstract.md']);
    expect((await get('ls', { uri: 'ctx://resources/lib/zeta' })).json().result).toEqual([]);
    const simple = await get('ls', { uri: 'ctx://resources/lib', simple: true });
    expect(simple.json().result).toEqual(['alpha', 'zeta', 'a.md', 'b.md', 'c.txt'].map((n) => `ctx://resources/lib/${n}`));
  });

  it('sort_by mtime and sort_order desc keep directories first', async () => {
    expect(names(await get('ls', { uri: 'ctx://resources/lib', sort_by: 'mtime' }))).toEqual(['zeta', 'alpha', 'b.md', 'a.md', 'c.txt']);
    expect(names(await get('ls', { uri: 'ctx://resources/lib', sort_by: 'mtime', sort_order: 'desc' }))).toEqual(['alpha', 'zeta', 'c.txt', 'a.md', 'b.md']);
    expect(names(await get('ls', { uri: 'ctx://resources/lib', sort_order: 'desc' }))).toEqual(['zeta', 'alpha', 'c.txt', 'b.md', 'a.md']);
  });

  it('offset, node_limit and its alias limit page the listing', async () => {
    expect(names(await get('ls', { uri: 'ctx://resources/lib', offset: 1, node_limit: 2 }))).toEqual(['zeta', 'a.md']);
    expect(names(await get('ls', { uri: 'ctx://resources/lib', offset: 3, limit: 10 }))).toEqual(['b.md', 'c.txt']);
    expect(names(await get('ls', { uri: 'ctx://resources/lib', offset: 50 }))).toEqual([]);
  });

  it('tags filter with AND before paging; include_tags shows them', async () => {
    expect(names(await get('ls', { uri: 'ctx://resources/lib', tags: ['kind=doc'] }))).toEqual(['b.md', 'c.txt']);
    expect(names(await get('ls', { uri: 'ctx://resources/lib', tags: 'kind=doc,lang=en' }))).toEqual(['b.md']);
    // The filter comes first: offset 1 skips the first match, not the first entry.
    expect(names(await get('ls', { uri: 'ctx://resources/lib', tags: ['kind=doc'], offset: 1 }))).toEqual(['c.txt']);
    const withTags = (await get('ls', { uri: 'ctx://resources/lib', include_tags: true })).json().result;
    expect(withTags.find((e: { name: string }) => e.name === 'b.md').meta).toEqual({ tags: ['lang=en', 'kind=doc'] });
    expect(withTags[0].meta).toEqual({ tags: [] });
  });

  it('one tags= value is split at every comma; repeated tags= or tags[]= keep commas inside values', async () => {
    await put(t, 'acme', 'resources/commas/x.md', 'x', ['k=a,b', 'lang=en']);
    const ls = (query: string) => t.req({ url: `/api/v1/fs/ls?uri=${encodeURIComponent('ctx://resources/commas')}&${query}`, headers: alice });
    const namesOf = async (query: string) => (await ls(query)).json().result.map((e: { name: string }) => e.name);
    // Split: k=a and b, which no entry carries.
    expect(await namesOf(`tags=${encodeURIComponent('k=a,b')}`)).toEqual([]);
    expect(await namesOf(`tags[]=${encodeURIComponent('k=a,b')}`)).toEqual(['x.md']);
    expect(await namesOf(`tags=${encodeURIComponent('k=a,b')}&tags=${encodeURIComponent('lang=en')}`)).toEqual(['x.md']);
    expect(await namesOf(`tags[]=${encodeURIComponent('k=a,b')}&tags[]=${encodeURIComponent('lang=fr')}`)).toEqual([]);
  });

  it('extra_fields locked, id and count', async () => {
    const lock = await t.app.vfs.locks.acquire('acme', 'resources/lib/alpha', 'tree');
    f.counts.set('resources/lib/alpha', 7);
    try {
      const res = (await get('ls', { uri: 'ctx://resources/lib', extra_fields: 'locked,id,count' })).json().result;
      expect(res[0]).toMatchObject({ name: 'alpha', isLocked: true, count: 7 });
      expect(res[0].id).toBeUndefined();
      expect(res[2]).toMatchObject({ name: 'a.md', isLocked: false, id: recordId('acme', 'ctx://resources/lib/a.md', 2) });
      expect(res[2].count).toBeUndefined();
    } finally {
      lock.release();
    }
  });

  it('recursive lists every descendant depth-first with rel_path', async () => {
    const res = await get('ls', { uri: 'ctx://resources/lib/alpha', recursive: true });
    expect(res.json().result.map((e: { rel_path: string }) => e.rel_path)).toEqual(['deep', 'deep/deeper', 'deep/deeper/x.md']);
  });

  it('a file URI lists the file itself; a missing one is 404', async () => {
    expect(names(await get('ls', { uri: 'ctx://resources/lib/a.md' }))).toEqual(['a.md']);
    const missing = await get('ls', { uri: 'ctx://resources/nope' });
    expect(missing.status).toBe(404);
    expect(missing.json().error).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'ctx://resources/nope' } });
  });

  it('the root lists resources and user', async () => {
    expect(names(await get('ls', { uri: 'ctx://' }))).toEqual(['resources', 'user']);
  });

  it('rejects invalid parameters with 400 naming the field', async () => {
    for (const [params, field] of [
      [{ uri: 'ctx://resources', node_limit: 0 }, 'node_limit'],
      [{ uri: 'ctx://resources', offset: -1 }, 'offset'],
      [{ uri: 'ctx://resources', limit: 'ten' }, 'limit'],
      [{ uri: 'ctx://resources', sort_by: 'size' }, 'sort_by'],
      [{ uri: 'ctx://resources', sort_order: 'up' }, 'sort_order'],
      [{ uri: 'ctx://resources', output: 'json' }, 'output'],
      [{ uri: 'ctx://resources', extra_fields: 'owner' }, 'extra_fields[0]'],
      [{ uri: 'ctx://resources', recursive: 'maybe' }, 'recursive'],
      [{ uri: 'ctx://resources', abs_limit: 1.5 }, 'abs_limit'],
      [{}, 'uri'],
    ] as const) {
      const res = await get('ls', params as Record<string, string | number>);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
    }
  });
});

describe('GET /api/v1/fs/tree', () => {
  it('walks to level_limit (default 3) with rel_path, directories first at each level', async () => {
    const res = await get('tree', { uri: 'ctx://resources/lib' });
    expect(res.status).toBe(200);
    expect(res.json().result.map((e: { rel_path: string }) => e.rel_path)).toEqual([
      'alpha',
      'alpha/deep',
      'alpha/deep/deeper',
      'zeta',
      'a.md',
      'b.md',
      'c.txt',
    ]);
    const one = await get('tree', { uri: 'ctx://resources/lib', level_limit: 1 });
    expect(one.json().result.map((e: { rel_path: string }) => e.rel_path)).toEqual(['alpha', 'zeta', 'a.md', 'b.md', 'c.txt']);
    const all = (await get('tree', { uri: 'ctx://resources/lib', level_limit: 10, show_all_hidden: true })).json().result.map((e: { uri: string }) => e.uri);
    expect(all).toContain('ctx://resources/lib/alpha/deep/deeper/x.md');
    expect(all).toContain('ctx://resources/lib/zeta/.abstract.md');
    // simple is an ls parameter only: tree ignores it, like any parameter it does not know.
    expect((await get('tree', { uri: 'ctx://resources/lib', simple: true, level_limit: 1 })).json().result.map((e: { rel_path: string }) => e.rel_path)).toEqual(['alpha', 'zeta', 'a.md', 'b.md', 'c.txt']);
  });

  it('node_limit, offset and tags apply over the whole walk', async () => {
    expect((await get('tree', { uri: 'ctx://resources/lib', node_limit: 2 })).json().result.map((e: { rel_path: string }) => e.rel_path)).toEqual(['alpha', 'alpha/deep']);
    expect((await get('tree', { uri: 'ctx://resources/lib', offset: 5, limit: 1 })).json().result.map((e: { rel_path: string }) => e.rel_path)).toEqual(['b.md']);
    expect(names(await get('tree', { uri: 'ctx://resources/lib', tags: ['lang=fr'] }))).toEqual(['c.txt']);
  });

  it('extra_fields and include_tags apply to tree entries as to ls entries', async () => {
    f.counts.set('resources/lib/alpha', 3);
    f.counts.set('resources/lib/alpha/deep', 2);
    const lock = await t.app.vfs.locks.acquire('acme', 'resources/lib/zeta', 'tree');
    try {
      const res = (await get('tree', { uri: 'ctx://resources/lib', extra_fields: ['locked', 'id', 'count'], include_tags: true, output: 'original' })).json().result;
      const by = (rel: string) => res.find((e: { rel_path: string }) => e.rel_path === rel);
      expect(by('alpha')).toEqual({ name: 'alpha', size: 0, mode: 0o40755, modTime: expect.any(String), isDir: true, uri: 'ctx://resources/lib/alpha', rel_path: 'alpha', isLocked: false, count: 3, meta: { tags: [] } });
      expect(by('alpha/deep')).toMatchObject({ count: 2, isLocked: false });
      expect(by('zeta')).toMatchObject({ isLocked: true });
      expect(by('b.md')).toEqual({
        name: 'b.md',
        size: 3,
        mode: 0o100644,
        modTime: expect.any(String),
        isDir: false,
        uri: 'ctx://resources/lib/b.md',
        rel_path: 'b.md',
        isLocked: false,
        id: recordId('acme', 'ctx://resources/lib/b.md', 2),
        meta: { tags: ['lang=en', 'kind=doc'] },
      });
      expect(by('b.md').count).toBeUndefined();
      const plain = (await get('tree', { uri: 'ctx://resources/lib', output: 'original' })).json().result;
      expect(Object.keys(plain.find((e: { rel_path: string }) => e.rel_path === 'b.md')).sort()).toEqual(['isDir', 'modTime', 'mode', 'name', 'rel_path', 'size', 'uri']);
    } finally {
      lock.release();
    }
  });

  it('rejects level_limit 0', async () => {
    expect((await get('tree', { uri: 'ctx://resources/lib', level_limit: 0 })).status).toBe(400);
  });
});

describe('GET /api/v1/fs/stat', () => {
  it('file: spec fields with the record id; directory: count from the vector index', async () => {
    const file = (await get('stat', { uri: 'ctx://resources/lib/b.md' })).json().result;
    expect(file).toEqual({
      name: 'b.md',
      size: 3,
      mode: 0o100644,
      modTime: expect.any(String),
      isDir: false,
      isLocked: false,
      id: recordId('acme', 'ctx://resources/lib/b.md', 2),
      uri: 'ctx://resources/lib/b.md',
    });
    f.counts.set('resources/lib', 42);
    const dir = (await get('stat', { uri: 'ctx://resources/lib/' })).json().result;
    expect(dir).toEqual({ name: 'lib', size: 0, mode: 0o40755, modTime: expect.any(String), isDir: true, isLocked: false, uri: 'ctx://resources/lib', count: 42 });
  });

  it('the answer is the envelope around JSON.stringify of the result, byte for byte (names with quotes and non-ASCII)', async () => {
    await put(t, 'acme', 'resources/lib/q "é" 文.md', 'héllo');
    const res = await get('stat', { uri: 'ctx://resources/lib/q "é" 文.md' });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body.result).toMatchObject({ name: 'q "é" 文.md', size: 6, uri: 'ctx://resources/lib/q "é" 文.md' });
    expect(res.text).toBe(`{"status":"ok","result":${JSON.stringify(body.result)},"time":${body.time}}`);
  });

  it('by 32-hex record id; unknown ids are 404', async () => {
    const id = recordId('acme', 'ctx://resources/lib/c.txt', 2);
    const res = await get('stat', { uri: id });
    expect(res.json().result).toMatchObject({ uri: 'ctx://resources/lib/c.txt', id });
    const unknown = await get('stat', { uri: '0'.repeat(32) });
    expect(unknown.status).toBe(404);
    expect(unknown.json().error.code).toBe('NOT_FOUND');
  });

  it('isLocked follows the lock manager: own path lock and ancestor tree lock', async () => {
    const own = await t.app.vfs.locks.acquire('acme', 'resources/lib/a.md', 'path');
    expect((await get('stat', { uri: 'ctx://resources/lib/a.md' })).json().result.isLocked).toBe(true);
    own.release();
    const pathLockOnParent = await t.app.vfs.locks.acquire('acme', 'resources/lib', 'path');
    expect((await get('stat', { uri: 'ctx://resources/lib/a.md' })).json().result.isLocked).toBe(false);
    pathLockOnParent.release();
    const tree = await t.app.vfs.locks.acquire('acme', 'resources', 'tree');
    expect((await get('stat', { uri: 'ctx://resources/lib/a.md' })).json().result.isLocked).toBe(true);
    tree.release();
    expect((await get('stat', { uri: 'ctx://resources/lib/a.md' })).json().result.isLocked).toBe(false);
  });

  it('missing is 404, a malformed uri 400', async () => {
    expect((await get('stat', { uri: 'ctx://resources/lib/none.md' })).status).toBe(404);
    expect((await get('stat', { uri: 'resources/lib' })).json().error.code).toBe('INVALID_URI');
    expect((await get('stat', { uri: 'ABCDEF'.repeat(5) + 'AB' })).json().error.code).toBe('INVALID_URI');
  });
});

describe('GET /api/v1/fs/attrs', () => {
  it('resource: tags; memory file: parsed memory fields without content', async () => {
    const res = (await get('attrs', { uri: 'ctx://resources/lib/b.md' })).json().result;
    expect(res).toEqual({ uri: 'ctx://resources/lib/b.md', context_type: 'resource', attrs: { tags: ['lang=en', 'kind=doc'] } });
    const header = '<!-- ctx:memory {"memory_type":"preference","name":"tea","tags":["topic=drinks"],"resource_refs":["ctx://resources/lib/a.md"]} -->\n';
    await put(t, 'acme', 'user/alice/memories/prefs/tea.md', header + 'Alice likes green tea.', ['topic=drinks']);
    const mem = (await get('attrs', { uri: 'ctx://~/memories/prefs/tea.md' })).json().result;
    expect(mem).toEqual({
      uri: 'ctx://user/alice/memories/prefs/tea.md',
      context_type: 'memory',
      attrs: { tags: ['topic=drinks'], memory: { memory_type: 'preference', name: 'tea', tags: ['topic=drinks'], resource_refs: ['ctx://resources/lib/a.md'] } },
    });
    expect(JSON.stringify(mem)).not.toContain('green tea');
  });

  it('missing is 404', async () => {
    expect((await get('attrs', { uri: 'ctx://resources/lib/none.md' })).status).toBe(404);
  });
});

describe('POST /api/v1/fs/attrs/set_tags', () => {
  it('replace, append (merge by key), and [] clears', async () => {
    await put(t, 'acme', 'resources/tags/one.md', '1', ['a=1', 'b=2']);
    let res = await post('attrs/set_tags', { uri: 'ctx://resources/tags/one.md', tags: ['b=3', 'c=4'], mode: 'append' });
    expect(res.status).toBe(200);
    expect(res.json().result).toEqual({
      uri: 'ctx://resources/tags/one.md',
      updated_uris: ['ctx://resources/tags/one.md'],
      root_uri: 'ctx://resources/tags',
      context_type: 'resource',
      tags: ['b=3', 'c=4'],
      mode: 'append',
      recursive: false,
      success_count: 1,
      failed_count: 0,
      skipped_count: 0,
    });
    expect((await t.app.vfs.stat('acme', 'resources/tags/one.md'))!.tags).toEqual(['a=1', 'b=3', 'c=4']);
    res = await post('attrs/set_tags', { uri: 'ctx://resources/tags/one.md', tags: ['z=9'] });
    expect((await t.app.vfs.stat('acme', 'resources/tags/one.md'))!.tags).toEqual(['z=9']);
    await post('attrs/set_tags', { uri: 'ctx://resources/tags/one.md', tags: [], mode: 'replace' });
    expect((await t.app.vfs.stat('acme', 'resources/tags/one.md'))!.tags).toBeUndefined();
  });

  it('recursive updates the directory and every existing descendant (not sidecars) in one batch', async () => {
    await post('mkdir', { uri: 'ctx://resources/tags/tree' });
    await put(t, 'acme', 'resources/tags/tree/a.md');
    await put(t, 'acme', 'resources/tags/tree/sub/b.md');
    const before = f.events.length;
    const res = await post('attrs/set_tags', { uri: 'ctx://resources/tags/tree', tags: ['team=core'], recursive: true });
    expect(res.json().result.updated_uris.sort()).toEqual(
      ['ctx://resources/tags/tree', 'ctx://resources/tags/tree/a.md', 'ctx://resources/tags/tree/sub', 'ctx://resources/tags/tree/sub/b.md'].sort(),
    );
    expect((await t.app.vfs.stat('acme', 'resources/tags/tree/.abstract.md'))!.tags).toBeUndefined();
    const metaEvents = f.events.slice(before).filter((e) => e.type === 'meta');
    expect(metaEvents).toHaveLength(4);
    const nonRecursive = await post('attrs/set_tags', { uri: 'ctx://resources/tags/tree', tags: ['team=web'] });
    expect(nonRecursive.json().result.success_count).toBe(1);
    expect((await t.app.vfs.stat('acme', 'resources/tags/tree/a.md'))!.tags).toEqual(['team=core']);
  });

  it('content/set_tags goes through the same service and answers the same shape', async () => {
    await put(t, 'acme', 'resources/tags/two.md');
    const viaContent = await t.req({ method: 'POST', url: '/api/v1/content/set_tags', headers: alice, body: { uri: 'ctx://resources/tags/two.md', tags: ['k=v'] } });
    expect(viaContent.status).toBe(200);
    const viaFs = await post('attrs/set_tags', { uri: 'ctx://resources/tags/two.md', tags: ['k=v'] });
    expect(viaContent.json().result).toEqual(viaFs.json().result);
  });

  it('errors: bad tags, wrong types, unknown fields, missing target', async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ uri: 'ctx://resources/tags/one.md', tags: ['novalue'] }, 400, 'tags[0]'],
      [{ uri: 'ctx://resources/tags/one.md', tags: ['=v'] }, 400, 'tags[0]'],
      [{ uri: 'ctx://resources/tags/one.md', tags: 'a=1' }, 400, 'tags'],
      [{ uri: 'ctx://resources/tags/one.md', tags: [1] }, 400, 'tags[0]'],
      [{ uri: 'ctx://resources/tags/one.md', tags: [], mode: 'merge' }, 400, 'mode'],
      [{ uri: 'ctx://resources/tags/one.md', tags: [], recursive: 'yes' }, 400, 'recursive'],
      [{ uri: 'ctx://resources/tags/one.md', tags: [], extra: 1 }, 400, 'extra'],
      [{ uri: 42, tags: [] }, 400, 'uri'],
    ];
    for (const [body, status, field] of cases) {
      const res = await post('attrs/set_tags', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.json().error.details.field).toBe(field);
    }
    const missing = await post('attrs/set_tags', { uri: 'ctx://resources/tags/none.md', tags: [] });
    expect(missing.status).toBe(404);
  });
});

describe('POST /api/v1/fs/mkdir', () => {
  it('creates the directory and its ancestors with an .abstract.md (description or name)', async () => {
    const res = await post('mkdir', { uri: 'ctx://resources/new/a/b', description: 'B holds things' });
    expect(res.status).toBe(200);
    expect(res.json().result).toEqual({ uri: 'ctx://resources/new/a/b' });
    expect((await t.app.vfs.stat('acme', 'resources/new/a'))!.kind).toBe('dir');
    const abs = await t.req({ url: `/api/v1/content/abstract?${qs({ uri: 'ctx://resources/new/a/b' })}`, headers: alice });
    expect(abs.json().result).toBe('B holds things');
    await post('mkdir', { uri: 'ctx://~/memories/projects' });
    const abs2 = await t.req({ url: `/api/v1/content/abstract?${qs({ uri: 'ctx://~/memories/projects' })}`, headers: alice });
    expect(abs2.json().result).toBe('projects');
  });

  it('409 only when a file is in the way: at the path itself or at an ancestor', async () => {
    for (const uri of ['ctx://resources/lib/a.md', 'ctx://resources/lib/a.md/sub']) {
      const res = await post('mkdir', { uri });
      expect(res.status, uri).toBe(409);
      expect(res.json().error.code).toBe('CONFLICT');
    }
  });

  it('an existing directory answers 200 and keeps its abstract, whatever description is sent', async () => {
    for (const uri of ['ctx://resources/new/a/b', 'ctx://resources']) {
      const res = await post('mkdir', { uri, description: 'replacement text' });
      expect(res.status, uri).toBe(200);
      expect(res.json().result).toEqual({ uri });
    }
    const abs = await t.req({ url: `/api/v1/content/abstract?${qs({ uri: 'ctx://resources/new/a/b' })}`, headers: alice });
    expect(abs.json().result).toBe('B holds things');
  });

  it('wrong types and unknown fields are 400', async () => {
    expect((await post('mkdir', { uri: 'ctx://resources/x', description: 5 })).json().error.details.field).toBe('description');
    expect((await post('mkdir', { uri: 'ctx://resources/x', parents: true })).json().error.details.field).toBe('parents');
    expect((await post('mkdir', {})).json().error.details.field).toBe('uri');
    const bad = await t.req({ method: 'POST', url: '/api/v1/fs/mkdir', headers: { ...alice, 'content-type': 'application/json' }, body: '{"uri": ' });
    expect(bad.status).toBe(400);
  });
});

describe('DELETE /api/v1/fs', () => {
  it('removes a file idempotently', async () => {
    await put(t, 'acme', 'resources/rm/one.md');
    const del = () => t.req({ method: 'DELETE', url: `/api/v1/fs?${qs({ uri: 'ctx://resources/rm/one.md' })}`, headers: alice });
    expect((await del()).json().result).toEqual({ uri: 'ctx://resources/rm/one.md', deleted_count: 1 });
    expect((await del()).json().result).toEqual({ uri: 'ctx://resources/rm/one.md', deleted_count: 0 });
  });

  it('recursive removal counts the removed items; a non-empty directory needs recursive', async () => {
    await post('mkdir', { uri: 'ctx://resources/rm/tree' });
    for (const p of ['a.md', 'b.md', 'sub/c.md']) await put(t, 'acme', `resources/rm/tree/${p}`);
    const flat = await t.req({ method: 'DELETE', url: `/api/v1/fs?${qs({ uri: 'ctx://resources/rm/tree' })}`, headers: alice });
    expect(flat.status).toBe(412);
    expect(flat.json().error.code).toBe('FAILED_PRECONDITION');
    const res = await t.req({ method: 'DELETE', url: `/api/v1/fs?${qs({ uri: 'ctx://resources/rm/tree', recursive: true })}`, headers: alice });
    expect(res.json().result).toEqual({ uri: 'ctx://resources/rm/tree', deleted_count: 5 });
    expect(await t.app.vfs.stat('acme', 'resources/rm/tree/sub/c.md')).toBeNull();
    expect(names(await get('ls', { uri: 'ctx://resources/rm' }))).toEqual([]);
  });

  it('scope roots cannot be removed; bad parameters are 400', async () => {
    for (const uri of ['ctx://resources', 'ctx://', 'ctx://user']) {
      const res = await t.req({ method: 'DELETE', url: `/api/v1/fs?${qs({ uri, recursive: true })}`, headers: admin });
      expect(res.status, uri).toBe(400);
    }
    expect((await t.req({ method: 'DELETE', url: `/api/v1/fs?${qs({ uri: 'ctx://resources/x', recursive: 'sure' })}`, headers: alice })).status).toBe(400);
    expect((await t.req({ method: 'DELETE', url: '/api/v1/fs', headers: alice })).json().error.details.field).toBe('uri');
  });
});

describe('POST /api/v1/fs/mv', () => {
  it('moves a subtree with metadata and tags; record ids follow; one mv event names old and new paths', async () => {
    await post('mkdir', { uri: 'ctx://resources/mv/src', description: 'moving' });
    await put(t, 'acme', 'resources/mv/src/a.md', 'A', ['k=a']);
    await put(t, 'acme', 'resources/mv/src/sub/b.md', 'B');
    await post('attrs/set_tags', { uri: 'ctx://resources/mv/src', tags: ['dir=1'] });
    const before = f.events.length;
    const res = await post('mv', { from_uri: 'ctx://resources/mv/src', to_uri: 'ctx://resources/mv/dst/moved' });
    expect(res.status).toBe(200);
    expect(res.json().result).toEqual({ from: 'ctx://resources/mv/src', to: 'ctx://resources/mv/dst/moved' });
    expect(await t.app.vfs.stat('acme', 'resources/mv/src')).toBeNull();
    const moved = await t.app.vfs.stat('acme', 'resources/mv/dst/moved/a.md');
    expect(moved!.tags).toEqual(['k=a']);
    expect((await t.app.vfs.stat('acme', 'resources/mv/dst/moved'))!.tags).toEqual(['dir=1']);
    expect((await t.app.vfs.readFile('acme', 'resources/mv/dst/moved/sub/b.md')).toString()).toBe('B');
    const newId = recordId('acme', 'ctx://resources/mv/dst/moved/a.md', 2);
    expect(moved!.id).toBe(newId);
    expect((await get('stat', { uri: newId })).json().result.uri).toBe('ctx://resources/mv/dst/moved/a.md');
    expect((await get('stat', { uri: recordId('acme', 'ctx://resources/mv/src/a.md', 2) })).status).toBe(404);
    const mvEvents = f.events.slice(before).filter((e) => e.type === 'mv');
    expect(mvEvents).toHaveLength(1);
    expect(mvEvents[0]).toMatchObject({ from: 'resources/mv/src', path: 'resources/mv/dst/moved', kind: 'dir' });
    expect(mvEvents[0]!.paths).toEqual(expect.arrayContaining(['resources/mv/src', 'resources/mv/src/a.md', 'resources/mv/src/sub/b.md', 'resources/mv/src/.abstract.md']));
    expect(names(await get('ls', { uri: 'ctx://resources/mv/dst/moved' }))).toEqual(['sub', 'a.md']);
  });

  it('404 for a missing source, 409 for an existing target, 400 into itself or across context types', async () => {
    await put(t, 'acme', 'resources/mv/x.md');
    await put(t, 'acme', 'resources/mv/y.md');
    const missing = await post('mv', { from_uri: 'ctx://resources/mv/nope.md', to_uri: 'ctx://resources/mv/z.md' });
    expect(missing.status).toBe(404);
    expect(missing.json().error.details.resource).toBe('ctx://resources/mv/nope.md');
    const exists = await post('mv', { from_uri: 'ctx://resources/mv/x.md', to_uri: 'ctx://resources/mv/y.md' });
    expect(exists.status).toBe(409);
    expect(exists.json().error.details.resource).toBe('ctx://resources/mv/y.md');
    expect((await post('mv', { from_uri: 'ctx://resources/mv', to_uri: 'ctx://resources/mv/inner' })).status).toBe(400);
    expect((await post('mv', { from_uri: 'ctx://resources/mv/x.md', to_uri: 'ctx://~/memories/x.md' })).json().error.details.field).toBe('to_uri');
    expect((await post('mv', { from_uri: 'ctx://resources', to_uri: 'ctx://resources/r2' })).json().error.details.field).toBe('from_uri');
    expect((await post('mv', { from_uri: 'ctx://resources/mv/x.md', to_uri: 7 })).json().error.details.field).toBe('to_uri');
    expect((await post('mv', { from: 'ctx://resources/mv/x.md', to: 'ctx://resources/mv/q.md' })).status).toBe(400);
    expect((await t.app.vfs.readFile('acme', 'resources/mv/x.md')).toString()).toBe('x');
  });
});

describe('sidecars through mv, mkdir and rm', () => {
  const rmReq = (uri: string, extra: Record<string, boolean> = {}) => t.req({ method: 'DELETE', url: `/api/v1/fs?${qs({ uri, ...extra })}`, headers: alice });
  const relationsOf = async (uri: string) => (await t.req({ url: `/api/v1/relations?${qs({ uri })}`, headers: alice })).json().result;

  beforeAll(async () => {
    await post('mkdir', { uri: 'ctx://resources/side', description: 'side abstract' });
    await put(t, 'acme', 'resources/side/x.md', 'evil content');
    await put(t, 'acme', 'resources/side/y.md', 'y');
    const link = await t.req({ method: 'POST', url: '/api/v1/relations/link', headers: alice, body: { from_uri: 'ctx://resources/side/y.md', to_uris: 'ctx://resources/lib/a.md', reason: 'see' } });
    expect(link.status).toBe(200);
  });

  it('mv cannot create a sidecar, nor a directory named like one, at the destination', async () => {
    for (const to of ['.relations.json', '.abstract.md', '.overview.md', '.abstract.md/x.md', '.relations.json/x.md']) {
      const res = await post('mv', { from_uri: 'ctx://resources/side/x.md', to_uri: `ctx://resources/side/${to}` });
      expect(res.status, to).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'to_uri', sidecar: to.split('/')[0] } });
    }
    expect((await t.app.vfs.readFile('acme', 'resources/side/x.md')).toString()).toBe('evil content');
    expect(await t.app.vfs.stat('acme', 'resources/side/.overview.md')).toBeNull();
    expect((await t.req({ url: `/api/v1/content/abstract?${qs({ uri: 'ctx://resources/side' })}`, headers: alice })).json().result).toBe('side abstract');
    expect(await relationsOf('ctx://resources/side/y.md')).toEqual([{ uri: 'ctx://resources/lib/a.md', reason: 'see' }]);
  });

  it('a sidecar cannot be moved away; its directory moves with it', async () => {
    for (const name of ['.abstract.md', '.relations.json']) {
      const res = await post('mv', { from_uri: `ctx://resources/side/${name}`, to_uri: 'ctx://resources/side/plain.md' });
      expect(res.status, name).toBe(400);
      expect(res.json().error.details).toMatchObject({ field: 'from_uri', sidecar: name });
    }
    expect(await t.app.vfs.stat('acme', 'resources/side/.abstract.md')).not.toBeNull();
    expect(await t.app.vfs.stat('acme', 'resources/side/plain.md')).toBeNull();
  });

  it('mkdir refuses a sidecar name anywhere in the path it would create', async () => {
    for (const uri of ['ctx://resources/side/.relations.json', 'ctx://resources/side/.abstract.md', 'ctx://resources/side/.overview.md', 'ctx://resources/fresh/.overview.md/sub']) {
      const res = await post('mkdir', { uri });
      expect(res.status, uri).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'uri' } });
    }
    expect(await t.app.vfs.stat('acme', 'resources/fresh')).toBeNull();
    // Relations of the directory still work: no directory blocks the sidecar.
    const link = await t.req({ method: 'POST', url: '/api/v1/relations/link', headers: alice, body: { from_uri: 'ctx://resources/side/x.md', to_uris: ['ctx://resources/lib/b.md'] } });
    expect(link.status).toBe(200);
  });

  it('rm refuses sidecar files (derived or regenerated), present or not', async () => {
    for (const name of ['.relations.json', '.abstract.md', '.overview.md']) {
      const res = await rmReq(`ctx://resources/side/${name}`);
      expect(res.status, name).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'uri', sidecar: name } });
    }
    expect(await relationsOf('ctx://resources/side/y.md')).toEqual([{ uri: 'ctx://resources/lib/a.md', reason: 'see' }]);
    expect(await t.app.vfs.stat('acme', 'resources/side/.abstract.md')).not.toBeNull();
    // Removing the directory removes its sidecars with it.
    await post('mkdir', { uri: 'ctx://resources/side/gone' });
    expect((await rmReq('ctx://resources/side/gone')).json().result).toEqual({ uri: 'ctx://resources/side/gone', deleted_count: 1 });
  });

  it('a directory carrying a sidecar name (made before these checks) can still be removed', async () => {
    await t.app.vfs.mkdir('acme', 'resources/legacy/.relations.json');
    const res = await rmReq('ctx://resources/legacy/.relations.json', { recursive: true });
    expect(res.status).toBe(200);
    expect(await t.app.vfs.stat('acme', 'resources/legacy/.relations.json')).toBeNull();
  });

  it('mv keeps the memory extension allowlist for files; directories need no extension', async () => {
    await put(t, 'acme', 'user/alice/memories/mv/m.md', 'memory');
    const bad = await post('mv', { from_uri: 'ctx://~/memories/mv/m.md', to_uri: 'ctx://~/memories/mv/m.exe' });
    expect(bad.status).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'to_uri', allowed: expect.arrayContaining(['.md', '.txt']) } });
    expect((await post('mv', { from_uri: 'ctx://~/memories/mv/m.md', to_uri: 'ctx://~/memories/mv/m.txt' })).status).toBe(200);
    expect((await post('mv', { from_uri: 'ctx://~/memories/mv', to_uri: 'ctx://~/memories/moved' })).status).toBe(200);
    expect((await t.app.vfs.readFile('acme', 'user/alice/memories/moved/m.txt')).toString()).toBe('memory');
    // Resources accept any safe extension.
    expect((await post('mv', { from_uri: 'ctx://resources/side/x.md', to_uri: 'ctx://resources/side/x.bin' })).status).toBe(200);
  });
});
