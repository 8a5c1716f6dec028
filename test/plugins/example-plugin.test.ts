import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let alice: Record<string, string>;

beforeAll(async () => {
  // Loaded through the config's plugin list, as an operator would.
  t = await startTestApp({ config: { plugins: [path.resolve('docs/examples/word-count/index.ts')] } });
  alice = (await t.account('acme', ['alice'])).users.alice!;
});
afterAll(() => t.close());

describe('example plugin: word-count', () => {
  it('is loaded after its dependency and provides its service', () => {
    expect(t.app.plugins.indexOf('word-count')).toBeGreaterThan(t.app.plugins.indexOf('system'));
    expect(t.app.service<{ count(s: string): number }>('word-counter').count('a b  c')).toBe(3);
  });

  it('counts words of a file the caller can read, and sees writes through VFS events', async () => {
    await t.app.vfs.writeFile('acme', 'user/alice/memories/note.md', Buffer.from('one two three four'));
    const res = await t.req({ url: '/api/v1/x/word-count?uri=ctx://~/memories/note.md', headers: alice });
    expect(res.status).toBe(200);
    expect(res.json().result).toEqual({ uri: 'ctx://user/alice/memories/note.md', words: 4, writes_seen: 1 });
  });

  it('validates its query and applies access rules', async () => {
    const missing = await t.req({ url: '/api/v1/x/word-count', headers: alice });
    expect(missing.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'uri' } });
    const other = await t.req({ url: '/api/v1/x/word-count?uri=ctx://user/bob/memories/x.md', headers: alice });
    expect(other.status).toBe(403);
    const notThere = await t.req({ url: '/api/v1/x/word-count?uri=ctx://resources/none.md', headers: alice });
    expect(notThere.status).toBe(404);
  });

  it('runs its background task to completion with a stage', async () => {
    await t.app.vfs.writeFile('acme', 'resources/book/a.md', Buffer.from('alpha beta'));
    await t.app.vfs.writeFile('acme', 'resources/book/ch/b.md', Buffer.from('gamma'));
    const res = await t.req({ method: 'POST', url: '/api/v1/x/word-count/tasks', headers: alice, body: { uri: 'ctx://resources/book' } });
    expect(res.status).toBe(202);
    const id = res.json().result.task_id;
    let task: any;
    for (let i = 0; i < 100; i++) {
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
