/** Every tool through the SDK's client over Streamable HTTP: its happy path and an error path. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connect, errorCode, ok, startMcpServer, type McpServerUnderTest } from './helpers.js';

let srv: McpServerUnderTest;
let alice: Record<string, string>;
let c: Client;
let page: http.Server;
let pageUrl: string;

const CODE = `export class Greeter {\n  greet(name: string): string {\n    return 'hello ' + name;\n  }\n}\n\nexport function shout(s: string): string {\n  return s.toUpperCase();\n}\n`;

beforeAll(async () => {
  page = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/markdown' });
    res.end('# Handbook\n\nThe deploy window is Tuesday.\n');
  });
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/handbook.md`;
  srv = await startMcpServer({ config: { importAllowPrivate: true } });
  alice = (await srv.t.account('acme', ['alice'])).users.alice!;
  c = await connect(srv.base, alice);
  await ok(c, 'write', { uri: 'ctx://~/resources/notes/deploy.md', content: 'Deploys happen on Tuesday.\nRollback with the blue button.\n' });
  await ok(c, 'write', { uri: 'ctx://~/resources/code/greeter.ts', content: CODE });
  await srv.t.req({ method: 'POST', url: '/api/v1/system/wait', headers: srv.t.root, body: { timeout: 60 } });
}, 120_000);
afterAll(async () => {
  await c?.close();
  await srv?.close();
  page?.close();
});

const text = (r: { content: Array<{ text: string }> }) => r.content[0]!.text;

describe('retrieval tools', () => {
  it('find returns the stored file with its score and abstract; a bad target is INVALID_URI', async () => {
    const r = await ok(c, 'find', { query: 'when do deploys happen', target_uri: 'ctx://~/resources' });
    expect(r.structuredContent!.resources.map((h: any) => h.uri)).toContain('ctx://user/alice/resources/notes/deploy.md');
    expect(text(r)).toMatch(/ctx:\/\/user\/alice\/resources\/notes\/deploy\.md \[resource, L2, score/);
    expect(await errorCode(c, 'find', { query: 'x', target_uri: 'http://elsewhere' })).toBe('INVALID_URI');
  });

  it('search plans the query (fast mode without an LLM) and takes a session; an empty query is refused', async () => {
    const r = await ok(c, 'search', { query: 'rollback button', session_id: 'no-such-session', mode: 'fast' });
    expect(r.structuredContent!.query_plan.expanded_queries.length).toBeGreaterThan(0);
    expect(r.structuredContent!.resources.map((h: any) => h.uri)).toContain('ctx://user/alice/resources/notes/deploy.md');
    expect(await errorCode(c, 'search', { query: '' })).toBe('INVALID_ARGUMENT');
  });

  it('grep finds lines; a bad regex is INVALID_ARGUMENT', async () => {
    const r = await ok(c, 'grep', { uri: 'ctx://~/resources', pattern: 'blue\\s+button' });
    expect(r.structuredContent!.matches).toEqual([{ uri: 'ctx://user/alice/resources/notes/deploy.md', line: 2, content: 'Rollback with the blue button.' }]);
    expect(text(r)).toContain('deploy.md:2: Rollback');
    expect(await errorCode(c, 'grep', { uri: 'ctx://~/resources', pattern: '(' })).toBe('INVALID_ARGUMENT');
  });

  it('glob matches paths; a missing directory is NOT_FOUND', async () => {
    const r = await ok(c, 'glob', { uri: 'ctx://~/resources', pattern: '**/*.ts' });
    expect(r.structuredContent!.matches).toEqual(['ctx://user/alice/resources/code/greeter.ts']);
    expect(await errorCode(c, 'glob', { uri: 'ctx://~/resources/nowhere', pattern: '*' })).toBe('NOT_FOUND');
  });
});

describe('file tools', () => {
  it('read: a file, a directory at L0/L1/L2, several URIs at once; a missing file is NOT_FOUND', async () => {
    expect(text(await ok(c, 'read', { uri: 'ctx://~/resources/notes/deploy.md' }))).toBe('Deploys happen on Tuesday.\nRollback with the blue button.\n');
    expect(text(await ok(c, 'read', { uri: 'ctx://~/resources/notes/deploy.md', offset: 1, limit: 1 }))).toContain('Rollback');
    const l0 = await ok(c, 'read', { uri: 'ctx://~/resources/notes', level: 0 });
    expect(l0.structuredContent).toMatchObject({ kind: 'dir', level: 0 });
    const l2 = await ok(c, 'read', { uri: 'ctx://~/resources/notes', level: 2 });
    expect(text(l2)).toContain('deploy.md');
    const many = await ok(c, 'read', { uri: ['ctx://~/resources/notes/deploy.md', 'ctx://~/resources/missing.md'] });
    expect(many.structuredContent!.items[0].content).toContain('Tuesday');
    expect(many.structuredContent!.items[1].error.code).toBe('NOT_FOUND');
    expect(await errorCode(c, 'read', { uri: 'ctx://~/resources/missing.md' })).toBe('NOT_FOUND');
  });

  it('list, tree and stat; a missing URI is NOT_FOUND for each', async () => {
    const l = await ok(c, 'list', { uri: 'ctx://~/resources' });
    expect(l.structuredContent!.entries.map((e: any) => e.name).sort()).toEqual(['code', 'notes']);
    const t = await ok(c, 'tree', { uri: 'ctx://~/resources' });
    expect(t.structuredContent!.entries.map((e: any) => e.rel_path)).toEqual(expect.arrayContaining(['notes/deploy.md', 'code/greeter.ts']));
    const st = await ok(c, 'stat', { uri: 'ctx://~/resources/notes/deploy.md' });
    expect(st.structuredContent).toMatchObject({ isDir: false, size: 58 });
    for (const name of ['list', 'tree', 'stat']) expect(await errorCode(c, name, { uri: 'ctx://~/resources/none' })).toBe('NOT_FOUND');
  });

  it('write in its modes; create over an existing file is CONFLICT', async () => {
    await ok(c, 'write', { uri: 'ctx://~/resources/w/log.md', content: 'one\n', mode: 'create' });
    await ok(c, 'write', { uri: 'ctx://~/resources/w/log.md', content: 'two\n', mode: 'append' });
    expect(text(await ok(c, 'read', { uri: 'ctx://~/resources/w/log.md' }))).toBe('one\ntwo\n');
    expect(await errorCode(c, 'write', { uri: 'ctx://~/resources/w/log.md', content: 'x', mode: 'create' })).toBe('CONFLICT');
  });

  it('edit replaces a unique string; absent or ambiguous strings are INVALID_ARGUMENT', async () => {
    await ok(c, 'write', { uri: 'ctx://~/resources/w/edit.md', content: 'alpha beta\nbeta gamma\n' });
    const r = await ok(c, 'edit', { uri: 'ctx://~/resources/w/edit.md', old_string: 'alpha', new_string: 'ALPHA' });
    expect(r.structuredContent).toMatchObject({ replacements: 1 });
    expect(text(await ok(c, 'read', { uri: 'ctx://~/resources/w/edit.md' }))).toBe('ALPHA beta\nbeta gamma\n');
    const ambiguous = await call(c, 'edit', { uri: 'ctx://~/resources/w/edit.md', old_string: 'beta', new_string: 'B' });
    expect(ambiguous.structuredContent!.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { occurrences: 2 } });
    expect(await errorCode(c, 'edit', { uri: 'ctx://~/resources/w/edit.md', old_string: 'zeta', new_string: 'z' })).toBe('INVALID_ARGUMENT');
    await ok(c, 'edit', { uri: 'ctx://~/resources/w/edit.md', old_string: 'beta', new_string: 'B', replace_all: true });
    expect(text(await ok(c, 'read', { uri: 'ctx://~/resources/w/edit.md' }))).toBe('ALPHA B\nB gamma\n');
    expect(await errorCode(c, 'edit', { uri: 'ctx://~/resources/w/none.md', old_string: 'a', new_string: 'b' })).toBe('NOT_FOUND');
  });

  it('mkdir, move, tag and forget; their error paths', async () => {
    expect((await ok(c, 'mkdir', { uri: 'ctx://~/resources/plans', description: 'Plans for Q3' })).structuredContent).toMatchObject({ uri: 'ctx://user/alice/resources/plans' });
    expect(await errorCode(c, 'mkdir', { uri: 'ctx://~/resources/notes/deploy.md/sub' })).toBe('CONFLICT');
    await ok(c, 'write', { uri: 'ctx://~/resources/plans/a.md', content: 'plan a' });
    const mv = await ok(c, 'move', { from_uri: 'ctx://~/resources/plans/a.md', to_uri: 'ctx://~/resources/plans/b.md' });
    expect(mv.structuredContent).toMatchObject({ to: 'ctx://user/alice/resources/plans/b.md' });
    expect(await errorCode(c, 'move', { from_uri: 'ctx://~/resources/plans/a.md', to_uri: 'ctx://~/resources/plans/c.md' })).toBe('NOT_FOUND');
    const tg = await ok(c, 'tag', { uri: 'ctx://~/resources/plans/b.md', tags: ['project=apollo'] });
    expect(tg.structuredContent).toMatchObject({ tags: ['project=apollo'], success_count: 1 });
    expect(await errorCode(c, 'tag', { uri: 'ctx://~/resources/plans/b.md', tags: ['no equals sign'] })).toBe('INVALID_ARGUMENT');
    expect(await errorCode(c, 'forget', { uri: 'ctx://~/resources/plans' })).toBe('FAILED_PRECONDITION');
    await ok(c, 'forget', { uri: 'ctx://~/resources/plans', recursive: true });
    expect(await errorCode(c, 'stat', { uri: 'ctx://~/resources/plans' })).toBe('NOT_FOUND');
  });
});

describe('resources, watches and tasks', () => {
  it('add_resource imports a given text and waits for it; neither source nor content is INVALID_ARGUMENT', async () => {
    const r = await ok(c, 'add_resource', { content: '# Runbook\n\nRestart the queue with care.\n', filename: 'runbook.md', parent: 'ctx://resources', wait: true, timeout: 60 });
    expect(r.structuredContent).toMatchObject({ status: 'success', source_type: 'upload' });
    const root = r.structuredContent!.root_uri as string;
    expect(text(await ok(c, 'read', { uri: root }))).toContain('Restart the queue');
    expect(await errorCode(c, 'add_resource', {})).toBe('INVALID_ARGUMENT');
    expect(await errorCode(c, 'add_resource', { content: 'x' })).toBe('INVALID_ARGUMENT');
  });

  it('add_resource from a URL returns a task that task_status follows; an unknown task is NOT_FOUND', async () => {
    const r = await ok(c, 'add_resource', { source: pageUrl, to: 'ctx://resources/handbook' });
    const taskId = r.structuredContent!.task_id as string;
    const t = await ok(c, 'task_status', { task_id: taskId, wait_seconds: 60 });
    expect(t.structuredContent).toMatchObject({ task_id: taskId, status: 'completed' });
    expect(await errorCode(c, 'task_status', { task_id: 'no-such-task' })).toBe('NOT_FOUND');
  });

  it('watch, list_watches and cancel_watch; cancelling an unknown watch is NOT_FOUND', async () => {
    const w = await ok(c, 'watch', { source: pageUrl, to: 'ctx://resources/watched', interval_minutes: 60 });
    const taskId = w.structuredContent!.task_id as string;
    await ok(c, 'task_status', { task_id: taskId, wait_seconds: 60 });
    const list = await ok(c, 'list_watches');
    const mine = list.structuredContent!.watches.find((x: any) => x.to_uri === 'ctx://resources/watched');
    expect(mine).toMatchObject({ watch_interval: 60, path: pageUrl });
    await ok(c, 'cancel_watch', { to_uri: 'ctx://resources/watched' });
    expect((await ok(c, 'list_watches')).structuredContent!.watches.some((x: any) => x.to_uri === 'ctx://resources/watched')).toBe(false);
    expect(await errorCode(c, 'cancel_watch', { task_id: 'nope' })).toBe('NOT_FOUND');
    expect(await errorCode(c, 'cancel_watch', {})).toBe('INVALID_ARGUMENT');
  });
});

describe('memory and skills', () => {
  it('remember adds messages and commits; session_context shows them; an unknown session is NOT_FOUND', async () => {
    const r = await ok(c, 'remember', { session_id: 'chat-1', messages: [{ role: 'user', content: 'I prefer tea over coffee.' }], wait: true });
    expect(r.structuredContent).toMatchObject({ session_id: 'chat-1', archived: true });
    expect(r.structuredContent!.task.status).toBe('completed');
    await ok(c, 'remember', { session_id: 'chat-2', messages: [{ role: 'user', content: 'Note to self.' }] });
    const sc = await ok(c, 'session_context', { session_id: 'chat-1' });
    expect(sc.structuredContent!.latest_archive_overview).toBeTypeOf('string');
    expect(await errorCode(c, 'session_context', { session_id: 'never-was' })).toBe('NOT_FOUND');
    expect(await errorCode(c, 'remember', { messages: [] })).toBe('INVALID_ARGUMENT');
  });

  it('skills lists and reads; an unknown skill is NOT_FOUND', async () => {
    const add = await srv.t.req({ method: 'POST', url: '/api/v1/skills', headers: alice, body: { data: { name: 'deploy-check', description: 'Check a deploy before Tuesday', content: '# Deploy check\n\n1. Look at the dashboard.\n' }, wait: true } });
    expect(add.status).toBe(200);
    const list = await ok(c, 'skills', { action: 'list' });
    expect(list.structuredContent!.skills.map((s: any) => s.name)).toEqual(['deploy-check']);
    const one = await ok(c, 'skills', { action: 'read', name: 'deploy-check' });
    expect(text(one)).toContain('Look at the dashboard');
    expect(await errorCode(c, 'skills', { action: 'read', name: 'nope' })).toBe('NOT_FOUND');
    expect(await errorCode(c, 'skills', { action: 'read' })).toBe('INVALID_ARGUMENT');
  });
});

describe('code and health', () => {
  it('code_outline, code_search and code_expand; an unknown symbol is a tool error', async () => {
    expect(text(await ok(c, 'code_outline', { uri: 'ctx://~/resources/code/greeter.ts' }))).toMatch(/Greeter/);
    expect(text(await ok(c, 'code_search', { uri: 'ctx://~/resources/code', query: 'greet' }))).toMatch(/greeter\.ts/);
    expect(text(await ok(c, 'code_expand', { uri: 'ctx://~/resources/code/greeter.ts', symbol: 'shout' }))).toContain('toUpperCase');
    const bad = await call(c, 'code_expand', { uri: 'ctx://~/resources/code/greeter.ts', symbol: 'nope' });
    expect(bad.isError).toBe(true);
    expect(await errorCode(c, 'code_outline', { uri: 'ctx://~/resources/code/none.ts' })).toBe('NOT_FOUND');
  });

  it('health says who the caller is', async () => {
    const h = await ok(c, 'health');
    expect(h.structuredContent).toMatchObject({ healthy: true, account_id: 'acme', user_id: 'alice', role: 'USER' });
    expect(text(h)).toMatch(/healthy; you are alice \(USER\) in account acme/);
  });
});
