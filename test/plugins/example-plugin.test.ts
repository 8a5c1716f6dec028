import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let alice: Record<string, string>;
let bob: Record<string, string>;
let admin: Record<string, string>;

beforeAll(async () => {
  // Loaded through the config's plugin list, as an operator would.
  t = await startTestApp({ config: { plugins: [path.resolve('docs/examples/word-count/index.ts')] } });
  const acme = await t.account('acme', ['alice', 'bob']);
  alice = acme.users.alice!;
  bob = acme.users.bob!;
  admin = acme.admin;
});
afterAll(() => t.close());

describe('example plugin: word-count', () => {
  it('is loaded after its dependency and provides its service', () => {
    expect(t.app.plugins.indexOf('word-count')).toBeGreaterThan(t.app.plugins.indexOf('system'));
    expect(t.app.service<{ count(s: string): number }>('word-counter').count('a b  c')).toBe(3);
  });

  it('counts words of a file the caller can read, and sees writes through VFS events', async () => {
    await t.app.vfs.writeFile('acme', 'user/alice/memories/note.md', Buffer.from('one two three four'));
    const url = '/api/v1/x/word-count?uri=ctx://~/memories/note.md';
    const res = await t.req({ url, headers: alice });
    expect(res.status).toBe(200);
    // The first request opened the account's subscription: writes before it are not counted.
    expect(res.json().result).toEqual({ uri: 'ctx://user/alice/memories/note.md', words: 4, writes_seen: 0 });
    await t.app.vfs.writeFile('acme', 'user/alice/memories/note.md', Buffer.from('one two three four five'));
    // bob's private space: alice's subscription never hears of it.
    await t.app.vfs.writeFile('acme', 'user/bob/memories/private.md', Buffer.from('x'));
    await vi.waitFor(async () => expect((await t.req({ url, headers: alice })).json().result.words).toBe(5));
    await vi.waitFor(async () => expect((await t.req({ url, headers: alice })).json().result.writes_seen).toBe(1));
  });

  it('validates its query and applies access rules', async () => {
    const missing = await t.req({ url: '/api/v1/x/word-count', headers: alice });
    expect(missing.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'uri' } });
    const other = await t.req({ url: '/api/v1/x/word-count?uri=ctx://user/bob/memories/x.md', headers: alice });
    expect(other.status).toBe(403);
    const notThere = await t.req({ url: '/api/v1/x/word-count?uri=ctx://resources/none.md', headers: alice });
    expect(notThere.status).toBe(404);
  });

  it('does not leak a file in a directory the caller may not read (content/read says 403, so does the plugin)', async () => {
    await t.app.vfs.writeFile('acme', 'resources/vault/secret.md', Buffer.from('one two three'));
    const acl = await t.req({ method: 'POST', url: '/api/v1/fs/access', headers: admin, body: { uri: 'ctx://resources/vault', readers: ['bob'] } });
    expect(acl.status, acl.text).toBe(200);
    const read = await t.req({ url: '/api/v1/content/read?uri=ctx://resources/vault/secret.md', headers: alice });
    expect(read.status).toBe(403);
    const counted = await t.req({ url: '/api/v1/x/word-count?uri=ctx://resources/vault/secret.md', headers: alice });
    expect(counted.status).toBe(403);
    expect(counted.json().error.code).toBe('PERMISSION_DENIED');
    expect(JSON.stringify(counted.json())).not.toContain('"words"');
    // bob is on the reader list: the same route answers him.
    const forBob = await t.req({ url: '/api/v1/x/word-count?uri=ctx://resources/vault/secret.md', headers: bob });
    expect(forBob.json().result.words).toBe(3);
  });

  it("its task walks with the owner's view: a restricted subtree is not counted", async () => {
    await t.app.vfs.writeFile('acme', 'resources/shelf/a.md', Buffer.from('alpha beta'));
    await t.app.vfs.writeFile('acme', 'resources/shelf/locked/b.md', Buffer.from('gamma delta epsilon'));
    await t.req({ method: 'POST', url: '/api/v1/fs/access', headers: admin, body: { uri: 'ctx://resources/shelf/locked', readers: [] } });
    const res = await t.req({ method: 'POST', url: '/api/v1/x/word-count/tasks', headers: alice, body: { uri: 'ctx://resources/shelf' } });
    const id = res.json().result.task_id;
    let task: any;
    for (let i = 0; i < 1000; i++) {
      task = (await t.req({ url: `/api/v1/tasks/${id}`, headers: alice })).json().result;
      if (task.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(task.result).toMatchObject({ files: 1, words: 2 });
  });

  it('runs its background task to completion with a stage', async () => {
    await t.app.vfs.writeFile('acme', 'resources/book/a.md', Buffer.from('alpha beta'));
    await t.app.vfs.writeFile('acme', 'resources/book/ch/b.md', Buffer.from('gamma'));
    const res = await t.req({ method: 'POST', url: '/api/v1/x/word-count/tasks', headers: alice, body: { uri: 'ctx://resources/book' } });
    expect(res.status).toBe(202);
    const id = res.json().result.task_id;
    let task: any;
    for (let i = 0; i < 1000; i++) {
      task = (await t.req({ url: `/api/v1/tasks/${id}?include_events=true`, headers: alice })).json().result;
      if (task.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(task.status).toBe('completed');
    expect(task.result).toMatchObject({ files: 2, words: 3 });
    expect(task.stage).toBe('counting');
    expect(task.result.execution_events.items.map((e: any) => e.kind)).toEqual(['created', 'status_changed', 'stage_changed', 'status_changed']);
  });
});
