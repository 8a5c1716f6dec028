/** ctx:// URIs as MCP resources (paged list, template reads at L0/L1/L2, subscriptions), and the prompts. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, ok, startMcpServer, type McpServerUnderTest } from './helpers.js';

let srv: McpServerUnderTest;
let alice: Record<string, string>;
let bob: Record<string, string>;
let c: Client;

beforeAll(async () => {
  srv = await startMcpServer();
  const acme = await srv.t.account('acme', ['alice', 'bob']);
  alice = acme.users.alice!;
  bob = acme.users.bob!;
  const operations = Array.from({ length: 130 }, (_, i) => ({ uri: `ctx://user/alice/resources/many/f${String(i).padStart(3, '0')}.md`, content: `file ${i}`, mode: 'upsert' }));
  await srv.t.req({ method: 'POST', url: '/api/v1/fs/mkdir', headers: alice, body: { uri: 'ctx://user/alice/resources/many' } });
  const w = await srv.t.req({ method: 'POST', url: '/api/v1/content/batch-write', headers: alice, body: { root_uri: 'ctx://user/alice/resources/many', operations } });
  expect(w.status, w.text).toBe(200);
  await srv.t.req({ method: 'POST', url: '/api/v1/fs/mkdir', headers: alice, body: { uri: 'ctx://user/alice/resources/docs', description: 'Design documents for the tea project.' } });
  await srv.t.req({ method: 'POST', url: '/api/v1/content/write', headers: alice, body: { uri: 'ctx://user/alice/resources/docs/intro.md', content: '# Intro\n\nTea is brewed at 80 degrees.\n' } });
  await srv.t.req({ method: 'POST', url: '/api/v1/system/wait', headers: srv.t.root, body: { timeout: 60 } });
  c = await connect(srv.base, alice);
}, 120_000);
afterAll(async () => {
  await c?.close();
  await srv?.close();
});

describe('resources', () => {
  it('lists what the caller may read, 100 per page, with a cursor to the next', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await c.listResources(cursor ? { cursor } : {});
      expect(page.resources.length).toBeLessThanOrEqual(100);
      seen.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(new Set(seen).size).toBe(seen.length);
    for (let i = 0; i < 130; i++) expect(seen).toContain(`ctx://user/alice/resources/many/f${String(i).padStart(3, '0')}.md`);
    expect(seen.every((u) => !u.includes('/user/bob'))).toBe(true);
    await expect(c.listResources({ cursor: 'not-a-cursor' })).rejects.toThrow(/cursor/);
  });

  it('offers the ctx:// template and reads a file, and a directory at L0, L1 and L2', async () => {
    const { resourceTemplates } = await c.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['ctx://{+path}{?level}']);
    const file = await c.readResource({ uri: 'ctx://user/alice/resources/docs/intro.md' });
    expect(file.contents[0]).toMatchObject({ uri: 'ctx://user/alice/resources/docs/intro.md', mimeType: 'text/markdown', text: '# Intro\n\nTea is brewed at 80 degrees.\n' });
    const l0 = (await c.readResource({ uri: 'ctx://~/resources/docs?level=0' })).contents[0] as { text: string };
    expect(l0.text).toContain('Design documents for the tea project.');
    const l1 = (await c.readResource({ uri: 'ctx://~/resources/docs?level=1' })).contents[0] as { text: string };
    expect(l1.text).toContain('intro.md');
    const l2 = (await c.readResource({ uri: 'ctx://~/resources/docs' })).contents[0] as { text: string };
    expect(l2.text).toContain('Entries:');
    await expect(c.readResource({ uri: 'ctx://~/resources/docs?level=7' })).rejects.toThrow(/level must be 0, 1 or 2/);
    await expect(c.readResource({ uri: 'ctx://~/resources/none.md' })).rejects.toThrow(/NOT_FOUND/);
  });

  it('notifies a subscriber when a subscribed file or a file below a subscribed directory changes; not after unsubscribing', async () => {
    const updated: string[] = [];
    c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
    });
    await c.subscribeResource({ uri: 'ctx://user/alice/resources/docs/intro.md' });
    await c.subscribeResource({ uri: 'ctx://~/resources/many' });
    // The standalone stream is open once the client has a session; give it a moment to connect.
    await new Promise((r) => setTimeout(r, 200));
    const other = await connect(srv.base, alice);
    await ok(other, 'write', { uri: 'ctx://~/resources/docs/intro.md', content: 'changed' });
    await ok(other, 'write', { uri: 'ctx://~/resources/many/new.md', content: 'new' });
    await ok(other, 'write', { uri: 'ctx://~/resources/unrelated.md', content: 'x' });
    await until(() => updated.length >= 2);
    expect(updated).toContain('ctx://user/alice/resources/docs/intro.md');
    expect(updated).toContain('ctx://~/resources/many');
    expect(updated).not.toContain('ctx://~/resources/unrelated.md');
    await c.unsubscribeResource({ uri: 'ctx://user/alice/resources/docs/intro.md' });
    const before = updated.length;
    await ok(other, 'write', { uri: 'ctx://~/resources/docs/intro.md', content: 'changed again' });
    await ok(other, 'write', { uri: 'ctx://~/resources/many/new2.md', content: 'new' });
    await until(() => updated.length > before);
    await new Promise((r) => setTimeout(r, 200));
    expect(updated.slice(before).every((u) => u === 'ctx://~/resources/many')).toBe(true);
    await other.close();
    await expect(c.subscribeResource({ uri: 'http://elsewhere/x' })).rejects.toThrow(/INVALID_URI/);
  });

  it('another user\'s session never hears of changes it may not read', async () => {
    const b = await connect(srv.base, bob);
    const heard: string[] = [];
    b.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      heard.push(n.params.uri);
    });
    // Bob has nothing yet: a subscription may wait for a URI to appear.
    await b.subscribeResource({ uri: 'ctx://~/resources' });
    await expect(b.subscribeResource({ uri: 'ctx://user/alice/resources' })).rejects.toThrow(/PERMISSION_DENIED/);
    await new Promise((r) => setTimeout(r, 200));
    await ok(c, 'write', { uri: 'ctx://~/resources/docs/secret.md', content: 'only alice' });
    await ok(b, 'write', { uri: 'ctx://~/resources/mine.md', content: 'bob' });
    await until(() => heard.length >= 1);
    await new Promise((r) => setTimeout(r, 200));
    expect([...new Set(heard)]).toEqual(['ctx://~/resources']);
    await b.close();
  });
});

describe('prompts', () => {
  it('lists the prompts and renders one with its arguments; a missing argument or unknown prompt is refused', async () => {
    const { prompts } = await c.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['recall', 'save_learnings', 'explore_resource']);
    const p = await c.getPrompt({ name: 'recall', arguments: { question: 'How hot should the tea be?' } });
    const msg = p.messages[0]!;
    expect(msg.role).toBe('user');
    expect((msg.content as { text: string }).text).toContain('Call `find`');
    expect((msg.content as { text: string }).text).toContain('How hot should the tea be?');
    await expect(c.getPrompt({ name: 'recall', arguments: {} })).rejects.toThrow(/needs the argument question/);
    await expect(c.getPrompt({ name: 'nope' })).rejects.toThrow(/unknown prompt/);
  });
});

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
