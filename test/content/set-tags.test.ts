/** content/set_tags delegates to the real fs plugin's `fs.setTags` (tag logic lives there once). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { contentApp } from './helpers.js';

let t: TestApp;
let alice: Record<string, string>;
let bob: Record<string, string>;
const setTags = (body: unknown, headers = alice) => t.req({ method: 'POST', url: '/api/v1/content/set_tags', headers, body });

beforeAll(async () => {
  t = await contentApp();
  const acme = await t.account('acme', ['alice', 'bob']);
  alice = acme.users.alice!;
  bob = acme.users.bob!;
  await t.app.vfs.writeFile('acme', 'resources/t/a.md', Buffer.from('a'));
  await t.app.vfs.writeFile('acme', 'resources/t/sub/b.md', Buffer.from('b'));
  await t.app.vfs.writeFile('acme', 'user/alice/memories/m.md', Buffer.from('m'));
});
afterAll(() => t.close());

describe('set_tags', () => {
  it('validates before delegating: k=v tags, mode, unknown fields, URIs, access', async () => {
    expect((await setTags({ uri: 'ctx://resources/t/a.md', tags: ['nokey'] })).json().error.details.field).toBe('tags[0]');
    expect((await setTags({ uri: 'ctx://resources/t/a.md', tags: 'a=b' })).json().error.details.field).toBe('tags');
    expect((await setTags({ uri: 'ctx://resources/t/a.md', tags: ['a=b'], mode: 'merge' })).json().error.details.field).toBe('mode');
    expect((await setTags({ uri: 'ctx://resources/t/a.md', tags: ['a=b'], colour: 1 })).json().error.details.field).toBe('colour');
    expect((await setTags({ uri: 'ctx://temp/x', tags: ['a=b'] })).json().error.code).toBe('INVALID_URI');
    expect((await setTags({ uri: 'ctx://user/alice/memories/m.md', tags: ['a=b'] }, bob)).status).toBe(403);
  });

  it('delegates to the fs plugin: replace, append, recursive, with the spec result fields', async () => {
    const res = await setTags({ uri: 'ctx://resources/t', tags: ['team=core'], mode: 'replace', recursive: true });
    expect(res.status).toBe(200);
    const r = res.json().result;
    expect(r).toMatchObject({ uri: 'ctx://resources/t', root_uri: 'ctx://resources', context_type: 'resource', tags: ['team=core'], mode: 'replace' });
    expect(r.updated_uris).toEqual(expect.arrayContaining(['ctx://resources/t/a.md', 'ctx://resources/t/sub/b.md']));
    expect(r.success_count).toBe(r.updated_uris.length);
    expect((await t.app.vfs.stat('acme', 'resources/t/sub/b.md'))?.tags).toEqual(['team=core']);
    await setTags({ uri: 'ctx://resources/t/a.md', tags: ['lang=en'], mode: 'append' });
    expect((await t.app.vfs.stat('acme', 'resources/t/a.md'))?.tags).toEqual(['team=core', 'lang=en']);
    const same = await t.req({ method: 'POST', url: '/api/v1/fs/attrs/set_tags', headers: alice, body: { uri: 'ctx://resources/t', tags: ['team=core'], recursive: true } });
    expect(Object.keys(same.json().result).sort()).toEqual(Object.keys(r).sort());
    expect((await setTags({ uri: 'ctx://resources/missing.md', tags: ['a=b'] })).status).toBe(404);
  });
});
