/**
 * Isolation through every tool that reads (and every one that writes): what user A keeps, user B of
 * the same account and user E of another account cannot reach over MCP, exactly as over HTTP.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connect, ok, startMcpServer, type McpServerUnderTest } from './helpers.js';

let srv: McpServerUnderTest;
let a: Client;
let others: Array<[string, Client]>;
let page: http.Server;
let memoryUri: string;
let taskId: string;
const SECRET = 'zanzibar-4471';
/** Texts only alice's files hold. */
const CONTENTS = ['green tea', 'plan.\\n', 'return 1', 'lives here'];

beforeAll(async () => {
  page = http.createServer((_req, res) => res.end(`# Private source\n\n${SECRET} lives here.\n`));
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  const pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/private.md`;
  srv = await startMcpServer({ config: { importAllowPrivate: true } });
  const acme = await srv.t.account('acme', ['alice', 'bob']);
  const evil = await srv.t.account('evil', ['eve']);
  a = await connect(srv.base, acme.users.alice!);
  others = [
    ['bob (same account)', await connect(srv.base, acme.users.bob!)],
    ['eve (other account)', await connect(srv.base, evil.users.eve!)],
    ['evil ADMIN', await connect(srv.base, evil.admin)],
  ];
  // Alice's memory (extracted from a session), private document, code, skill, watch and task.
  const r = await ok(a, 'remember', { session_id: 'alice-chat', messages: [{ role: 'user', content: `I love the ${SECRET} project and I prefer green tea.` }], wait: true });
  taskId = r.structuredContent!.task_id;
  await ok(a, 'write', { uri: 'ctx://~/resources/private/plan.md', content: `The ${SECRET} plan.\n` });
  await ok(a, 'write', { uri: 'ctx://~/resources/private/code.ts', content: `export function ${SECRET.replace('-', '_')}() { return 1; }\n` });
  await ok(a, 'watch', { source: pageUrl, to: 'ctx://~/resources/watched', interval_minutes: 30 });
  await srv.t.req({ method: 'POST', url: '/api/v1/skills', headers: acme.users.alice!, body: { data: { name: 'secret-skill', description: `About ${SECRET}`, content: `# ${SECRET}\n` }, wait: true } });
  await srv.t.req({ method: 'POST', url: '/api/v1/system/wait', headers: srv.t.root, body: { timeout: 60 } });
  const mems = await ok(a, 'glob', { uri: 'ctx://~/memories', pattern: '**/*.md' });
  memoryUri = mems.structuredContent!.matches.find((u: string) => !u.includes('/.'))!;
}, 120_000);
afterAll(async () => {
  for (const [, c] of others ?? []) await c.close();
  await a?.close();
  await srv?.close();
  page?.close();
});

/** Whatever a tool answered, as text (search's echo of the query aside): the secret must never be in it. */
async function answer(c: Client, name: string, args: Record<string, unknown>) {
  const r = await call(c, name, args);
  const shown = { ...r, structuredContent: { ...r.structuredContent, query_plan: undefined }, content: r.content.map((x) => ({ ...x, text: x.text.replace(/ \(queries: .*\)$/m, '') })) };
  return { r, all: JSON.stringify(shown) };
}

describe('user A\'s data through every reading tool', () => {
  it('alice herself reaches all of it (the checks below are not vacuous)', async () => {
    expect(memoryUri).toMatch(/^ctx:\/\/user\/alice\/memories\//);
    expect(JSON.stringify(await ok(a, 'find', { query: SECRET }))).toContain('ctx://user/alice/');
    expect(JSON.stringify(await ok(a, 'read', { uri: memoryUri }))).toContain('green tea');
    expect(JSON.stringify(await ok(a, 'grep', { uri: 'ctx://~', pattern: SECRET }))).toContain(SECRET);
    expect((await ok(a, 'session_context', { session_id: 'alice-chat' })).structuredContent).toBeTruthy();
    expect((await ok(a, 'list_watches')).structuredContent!.watches).toHaveLength(1);
    expect((await ok(a, 'task_status', { task_id: taskId })).structuredContent!.status).toBe('completed');
  });

  it.each([0, 1, 2])('other caller #%i cannot read any of it', async (i) => {
    const [who, c] = others[i]!;
    // Another account's ADMIN may read its own users' spaces: there alice does not exist (NOT_FOUND).
    const denied = async (name: string, args: Record<string, unknown>, codes = ['PERMISSION_DENIED', 'NOT_FOUND']) => {
      const { r, all } = await answer(c, name, args);
      expect(r.isError, `${who}: ${name} ${JSON.stringify(args)} -> ${all}`).toBe(true);
      expect(codes, `${who}: ${name}`).toContain(r.structuredContent?.error?.code);
      // The error may name the URI the caller gave (alice's memory file names carry the secret as
      // a slug); what alice wrote must not appear.
      for (const text of CONTENTS) expect(all).not.toContain(text);
      if (!JSON.stringify(args).includes(SECRET)) expect(all).not.toContain(SECRET);
    };
    const clean = async (name: string, args: Record<string, unknown>) => {
      const { r, all } = await answer(c, name, args);
      expect(all, `${who}: ${name}`).not.toContain(SECRET);
      expect(all, `${who}: ${name}`).not.toContain('user/alice');
      return r;
    };
    // Search everything they may read: nothing of alice's comes back.
    await clean('find', { query: SECRET });
    await clean('find', { query: 'green tea preference' });
    await clean('search', { query: SECRET, mode: 'fast' });
    await clean('grep', { uri: 'ctx://', pattern: SECRET });
    await clean('glob', { uri: 'ctx://', pattern: '**/*' });
    await clean('list', { uri: 'ctx://', recursive: true });
    await clean('tree', { uri: 'ctx://', level_limit: 8 });
    await clean('list_watches', {});
    await clean('skills', { action: 'list' });
    // Naming alice's URIs directly is refused.
    // Another account's ADMIN names its own (empty) user alice: nothing, rather than an error.
    const scoped = await call(c, 'find', { query: SECRET, target_uri: 'ctx://user/alice/memories' });
    if (!scoped.isError) expect(scoped.structuredContent!.total, who).toBe(0);
    else expect(scoped.structuredContent!.error.code).toBe('PERMISSION_DENIED');
    for (const uri of [memoryUri, 'ctx://user/alice/resources/private/plan.md', 'ctx://user/alice/memories']) {
      await denied('read', { uri });
      await denied('read', { uri, level: 0 });
      await denied('stat', { uri });
    }
    await denied('list', { uri: 'ctx://user/alice/memories' });
    await denied('tree', { uri: 'ctx://user/alice' });
    await denied('grep', { uri: 'ctx://user/alice', pattern: SECRET });
    await denied('glob', { uri: 'ctx://user/alice', pattern: '**/*' });
    for (const tool of ['code_outline', 'code_search', 'code_expand']) {
      const { r, all } = await answer(c, tool, { uri: 'ctx://user/alice/resources/private/code.ts', query: 'zanzibar', symbol: 'zanzibar_4471' });
      expect(r.isError, `${who}: ${tool}`).toBe(true);
      expect(all).not.toContain('return 1');
    }
    // Sessions, skills and tasks are the caller's own: alice's are not found.
    await denied('session_context', { session_id: 'alice-chat' }, ['NOT_FOUND']);
    await denied('skills', { action: 'read', name: 'secret-skill' }, ['NOT_FOUND']);
    await denied('task_status', { task_id: taskId }, ['NOT_FOUND']);
    await denied('cancel_watch', { to_uri: 'ctx://user/alice/resources/watched' }, ['PERMISSION_DENIED', 'NOT_FOUND']);
    // Nor can they change it (another account's ADMIN writes to its own ctx://user/alice: alice's data stays untouched, checked below).
    if (who !== 'evil ADMIN') {
      await denied('write', { uri: 'ctx://user/alice/resources/private/plan.md', content: 'x' });
      await denied('edit', { uri: 'ctx://user/alice/resources/private/plan.md', old_string: 'plan', new_string: 'x' });
      await denied('forget', { uri: memoryUri });
      await denied('move', { from_uri: memoryUri, to_uri: 'ctx://~/resources/stolen.md' });
      await denied('tag', { uri: memoryUri, tags: ['a=b'] });
      await denied('mkdir', { uri: 'ctx://user/alice/resources/x' });
    }
    // Resources: not listed, not readable, not subscribable.
    const listed = await c.listResources();
    expect(JSON.stringify(listed)).not.toContain('user/alice');
    await expect(c.readResource({ uri: memoryUri })).rejects.toThrow(/PERMISSION_DENIED|NOT_FOUND/);
    await expect(c.readResource({ uri: 'ctx://user/alice/memories?level=1' })).rejects.toThrow(/PERMISSION_DENIED|NOT_FOUND/);
    if (who !== 'evil ADMIN') await expect(c.subscribeResource({ uri: memoryUri })).rejects.toThrow(/PERMISSION_DENIED/);
    else {
      // Its own account's ctx://user/alice may be subscribed to; acme's alice is never heard of.
      const heard: string[] = [];
      c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.push(n.params.uri));
      await c.subscribeResource({ uri: 'ctx://user/alice/resources' });
      await new Promise((r) => setTimeout(r, 200));
      await ok(a, 'write', { uri: 'ctx://~/resources/private/new.md', content: 'fresh' });
      await new Promise((r) => setTimeout(r, 400));
      expect(heard).toEqual([]);
    }
  });

  it('alice\'s data is untouched after all that', async () => {
    expect(JSON.stringify(await ok(a, 'read', { uri: 'ctx://~/resources/private/plan.md' }))).toContain(`The ${SECRET} plan.`);
    expect(JSON.stringify(await ok(a, 'read', { uri: memoryUri }))).toContain('green tea');
  });
});
