import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordId } from '../../runtime/vfs/record-id.js';
import type { VectorIndexService } from '../../plugins/retrieval/index.js';
import { post, setup, uris, wait, write, type Ctx } from './helpers.js';

let c: Ctx;
beforeAll(async () => {
  c = await setup();
  const { t, admin, alice } = c;
  await write(t, admin, 'ctx://resources/code/src/main.ts', 'import x from "y";\nexport function main() {\n  return TODO_fix_me;\n}\n');
  await write(t, admin, 'ctx://resources/code/src/util/strings.ts', 'export const upper = (s: string) => s.toUpperCase(); // todo: unicode\n');
  await write(t, admin, 'ctx://resources/code/README.md', '# Code\n\nTODO write docs\n');
  await write(t, admin, 'ctx://resources/code/a/b/c/d/e/f/deep.md', 'TODO very deep\n');
  await write(t, alice, 'ctx://user/alice/memories/todo.md', 'TODO alice private todo\n');
  await wait(t);
});
afterAll(async () => {
  await c.t.close();
});

describe('grep', () => {
  const GREP = '/api/v1/search/grep';
  it('finds lines with uri, line and content; case_insensitive; exclude_uri; node_limit; level_limit', async () => {
    let r = await post(c.t, c.admin, GREP, { uri: 'ctx://resources/code', pattern: 'TODO' });
    expect(r.status).toBe(200);
    expect(r.body.result.matches).toContainEqual({ uri: 'ctx://resources/code/src/main.ts', line: 3, content: '  return TODO_fix_me;' });
    expect(r.body.result.count).toBe(r.body.result.matches.length);
    // level_limit default 5: code/a/b/c/d/e/f/deep.md is 7 levels below code.
    expect(r.body.result.matches.map((m: any) => m.uri)).not.toContain('ctx://resources/code/a/b/c/d/e/f/deep.md');
    r = await post(c.t, c.admin, GREP, { uri: 'ctx://resources/code', pattern: 'TODO', level_limit: 10 });
    expect(r.body.result.matches.map((m: any) => m.uri)).toContain('ctx://resources/code/a/b/c/d/e/f/deep.md');
    r = await post(c.t, c.admin, GREP, { uri: 'ctx://resources/code', pattern: 'todo', case_insensitive: true, exclude_uri: 'ctx://resources/code/src/util' });
    const got = r.body.result.matches.map((m: any) => m.uri);
    expect(got).toContain('ctx://resources/code/README.md');
    expect(got).not.toContain('ctx://resources/code/src/util/strings.ts');
    r = await post(c.t, c.admin, GREP, { uri: 'ctx://resources/code', pattern: 'todo', case_insensitive: true, node_limit: 1 });
    expect(r.body.result.count).toBe(1);
  });
  it('never reads another user or account', async () => {
    const r = await post(c.t, c.bob, GREP, { uri: 'ctx://', pattern: 'TODO', level_limit: 10 });
    expect(r.status).toBe(200);
    expect(r.body.result.matches.map((m: any) => m.uri).filter((u: string) => u.includes('alice'))).toEqual([]);
    const denied = await post(c.t, c.bob, GREP, { uri: 'ctx://user/alice', pattern: 'TODO' });
    expect(denied.status).toBe(403);
  });
  it('errors: invalid regex, missing fields, bad uri, missing path', async () => {
    for (const [body, status] of [
      [{ uri: 'ctx://resources', pattern: '(' }, 400],
      [{ uri: 'ctx://resources' }, 400],
      [{ pattern: 'x' }, 400],
      [{ uri: 'ctx://temp/x', pattern: 'x' }, 400],
      [{ uri: 'ctx://resources/nope', pattern: 'x' }, 404],
      [{ uri: 'ctx://resources', pattern: 'x', level_limit: 0 }, 400],
      [{ uri: 'ctx://resources', pattern: 'x', extra: 1 }, 400],
    ] as const) {
      const r = await post(c.t, c.admin, GREP, body);
      expect(r.status, JSON.stringify(body)).toBe(status);
    }
  });
});

describe('glob', () => {
  const GLOB = '/api/v1/search/glob';
  it('recursive patterns, uri default ctx://, node_limit, access', async () => {
    let r = await post(c.t, c.admin, GLOB, { pattern: '**/*.ts', uri: 'ctx://resources/code' });
    expect(r.body.result.matches.sort()).toEqual(['ctx://resources/code/src/main.ts', 'ctx://resources/code/src/util/strings.ts']);
    r = await post(c.t, c.admin, GLOB, { pattern: 'resources/code/*.md' });
    expect(r.body.result.matches).toEqual(['ctx://resources/code/README.md']);
    r = await post(c.t, c.admin, GLOB, { pattern: '**/*.{md,ts}', uri: 'ctx://resources/code', node_limit: 2 });
    expect(r.body.result.count).toBe(2);
    r = await post(c.t, c.bob, GLOB, { pattern: '**/*.md' });
    expect(r.body.result.matches.filter((u: string) => u.includes('alice'))).toEqual([]);
    expect(r.body.result.matches).toContain('ctx://resources/code/README.md');
    expect(r.body.result.matches.filter((u: string) => u.endsWith('.abstract.md'))).toEqual([]);
    expect((await post(c.t, c.bob, GLOB, { pattern: '*', uri: 'ctx://user/alice' })).status).toBe(403);
    expect((await post(c.t, c.bob, GLOB, { pattern: '[a' })).status).toBe(400);
    expect((await post(c.t, c.bob, GLOB, {})).status).toBe(400);
  });
});

describe('glob with a pattern written as a whole URI', () => {
  const GLOB = '/api/v1/search/glob';
  it('starts from the literal part of the pattern, within uri; never outside it', async () => {
    let r = await post(c.t, c.admin, GLOB, { pattern: 'ctx://resources/code/**/*.ts' });
    expect(r.status).toBe(200);
    expect(r.body.result.matches.sort()).toEqual(['ctx://resources/code/src/main.ts', 'ctx://resources/code/src/util/strings.ts']);
    r = await post(c.t, c.admin, GLOB, { pattern: 'ctx://resources/code/*.md', uri: 'ctx://resources' });
    expect(r.body.result.matches).toEqual(['ctx://resources/code/README.md']);
    r = await post(c.t, c.alice, GLOB, { pattern: 'ctx://~/memories/*.md' });
    expect(r.body.result.matches).toEqual(['ctx://user/alice/memories/todo.md']);
    // Without wildcards it names one entry.
    r = await post(c.t, c.admin, GLOB, { pattern: 'ctx://resources/code/README.md' });
    expect(r.body.result.matches).toEqual(['ctx://resources/code/README.md']);
    // It narrows uri, never widens it, and is checked like any URI.
    const outside = await post(c.t, c.admin, GLOB, { pattern: 'ctx://user/alice/**', uri: 'ctx://resources' });
    expect(outside.status).toBe(400);
    expect(outside.body.error?.details?.field).toBe('pattern');
    expect((await post(c.t, c.bob, GLOB, { pattern: 'ctx://user/alice/memories/*.md' })).status).toBe(403);
    expect((await post(c.t, c.admin, GLOB, { pattern: 'ctx://temp/*' })).body.error?.code).toBe('INVALID_URI');
    expect((await post(c.t, c.admin, GLOB, { pattern: 'ctx://resources/code' })).status).toBe(200);
    expect((await post(c.t, c.admin, GLOB, { pattern: 'ctx://' })).status).toBe(400);
  });
});

describe('glob with a file uri', () => {
  const GLOB = '/api/v1/search/glob';
  it('matches that file when the pattern matches its name, else an empty list; sidecars and denied files never', async () => {
    const file = 'ctx://resources/code/src/main.ts';
    for (const pattern of ['*.ts', '**/*.ts', 'main.*', '{main,other}.ts', 'm?in.ts', '**']) {
      const r = await post(c.t, c.admin, GLOB, { pattern, uri: file });
      expect(r.status, pattern).toBe(200);
      expect(r.body.result, pattern).toEqual({ matches: [file], count: 1 });
    }
    for (const pattern of ['*.md', 'src/main.ts', 'other.ts']) {
      const r = await post(c.t, c.admin, GLOB, { pattern, uri: file });
      expect(r.body.result, pattern).toEqual({ matches: [], count: 0 });
    }
    const side = await post(c.t, c.admin, GLOB, { pattern: '*.md', uri: 'ctx://resources/code/.abstract.md' });
    expect(side.body.result.count).toBe(0);
    // Another user's file is refused before the match; a missing file is 404.
    expect((await post(c.t, c.bob, GLOB, { pattern: '*.md', uri: 'ctx://user/alice/memories/todo.md' })).status).toBe(403);
    expect((await post(c.t, c.admin, GLOB, { pattern: '*.md', uri: 'ctx://resources/code/nope.md' })).status).toBe(404);
  });
});

describe('consistency', () => {
  const CONS = '/api/v1/system/consistency';
  it('reports ok when every record exists, and lists missing ones', async () => {
    let r = await post(c.t, c.admin, CONS, { uri: 'ctx://resources/code' });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ ok: true, missing_record_count: 0, missing_records_truncated: false, missing_records: [] });
    // 4 files → L2, 9 dirs (code, src, util, a..f) → L0+L1.
    expect(r.body.result.expected_count).toBe(4 + 9 * 2);
    // A record lost from RocksDB (and the index) is reported with its key.
    const kv = c.t.app.kv.sub('p:retrieval');
    const id = recordId('acme', 'ctx://resources/code/README.md', 2);
    await kv.del(`r\x00acme\x00resources/code/README.md\x002`);
    r = await post(c.t, c.admin, CONS, { uri: 'ctx://resources/code' });
    expect(r.body.result).toMatchObject({
      ok: false,
      missing_record_count: 1,
      missing_records: [{ uri: 'ctx://resources/code/README.md', path: 'resources/code/README.md', level: 2, key: id }],
    });
    // Rewriting the file indexes it again.
    await write(c.t, c.admin, 'ctx://resources/code/README.md', '# Code\n\nTODO write more docs\n');
    await wait(c.t);
    r = await post(c.t, c.admin, CONS, { uri: 'ctx://resources/code' });
    expect(r.body.result.ok).toBe(true);
  });
  it('more than 20 missing: the count is exact, 20 are listed, truncated is true', async () => {
    for (let i = 0; i < 25; i++) await write(c.t, c.admin, `ctx://resources/many/f${String(i).padStart(2, '0')}.md`, `file number ${i}`);
    await wait(c.t);
    let r = await post(c.t, c.admin, CONS, { uri: 'ctx://resources/many' });
    expect(r.body.result).toMatchObject({ ok: true, expected_count: 25 + 2, missing_record_count: 0 });
    const kv = c.t.app.kv.sub('p:retrieval');
    for (let i = 0; i < 25; i++) await kv.del(`r\x00acme\x00resources/many/f${String(i).padStart(2, '0')}.md\x002`);
    r = await post(c.t, c.admin, CONS, { uri: 'ctx://resources/many' });
    expect(r.body.result).toMatchObject({ ok: false, expected_count: 27, missing_record_count: 25, missing_records_truncated: true });
    expect(r.body.result.missing_records).toHaveLength(20);
    for (const m of r.body.result.missing_records) {
      expect(m).toEqual({ uri: expect.stringMatching(/^ctx:\/\/resources\/many\/f\d\d\.md$/), path: m.uri.slice('ctx://'.length), level: 2, key: recordId('acme', m.uri, 2) });
    }
    expect(new Set(r.body.result.missing_records.map((m: any) => m.uri)).size).toBe(20);
  });

  it('errors', async () => {
    expect((await post(c.t, c.admin, CONS, {})).status).toBe(400);
    expect((await post(c.t, c.admin, CONS, { uri: 'ctx://resources/none' })).status).toBe(404);
    expect((await post(c.t, c.bob, CONS, { uri: 'ctx://user/alice' })).status).toBe(403);
  });
});

describe('search', () => {
  const SEARCH = '/api/v1/search/search';
  it('deterministic plan without an LLM, expanded queries merged without duplicates', async () => {
    const r = await post(c.t, c.admin, SEARCH, { query: 'where is the main function', include_provenance: true });
    expect(r.status).toBe(200);
    expect(r.body.result.query_plan.expanded_queries).toEqual(['where is the main function', 'main function']);
    expect(r.body.result.query_plan.planner).toBe('deterministic');
    const all = uris(r.body.result);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toContain('ctx://resources/code/src/main.ts');
    expect(r.body.result.provenance).toHaveLength(2);
  });
  it('never returns another user\'s data, and telemetry is answered', async () => {
    const r = await c.t.req({ method: 'POST', url: SEARCH, headers: c.bob, body: { query: 'alice private todo', telemetry: true } });
    expect(r.status).toBe(200);
    const body = r.json();
    expect(uris(body.result).filter((u) => u.includes('/user/alice'))).toEqual([]);
    expect(body.telemetry.operation_id).toEqual(expect.any(String));
    const own = await post(c.t, c.alice, SEARCH, { query: 'alice private todo' });
    expect(uris(own.body.result)).toContain('ctx://user/alice/memories/todo.md');
    expect((await post(c.t, c.bob, SEARCH, { query: 'x', target_uri: 'ctx://user/alice' })).status).toBe(403);
  });
  it('read_content is rejected for mode context; an unknown session_id searches without session context', async () => {
    const r = await post(c.t, c.admin, SEARCH, { query: 'x', mode: 'context', read_content: true });
    expect(r.status).toBe(400);
    const s = await post(c.t, c.alice, SEARCH, { query: 'alice private todo', session_id: 'nope', include_provenance: true });
    expect(s.status).toBe(200);
    expect(s.body.result.query_plan.session_messages_used).toBe(0);
    expect(uris(s.body.result)).toContain('ctx://user/alice/memories/todo.md');
    const bad = await post(c.t, c.alice, SEARCH, { query: 'x', session_id: '../x' });
    expect(bad.status).toBe(400);
  });
  it('session messages inform the plan', async () => {
    await write(c.t, c.alice, 'ctx://user/alice/sessions/s1/messages.jsonl', JSON.stringify({ role: 'user', parts: [{ type: 'text', text: 'we talked about kubernetes ingress kubernetes' }] }) + '\n').catch(() => undefined);
    const node = await c.t.app.vfs.stat('acme', 'user/alice/sessions/s1/messages.jsonl');
    if (!node) await c.t.app.vfs.writeFile('acme', 'user/alice/sessions/s1/messages.jsonl', Buffer.from(JSON.stringify({ role: 'user', parts: [{ type: 'text', text: 'we talked about kubernetes ingress kubernetes' }] }) + '\n'));
    const r = await post(c.t, c.alice, SEARCH, { query: 'config', session_id: 's1' });
    expect(r.status).toBe(200);
    expect(r.body.result.query_plan.expanded_queries).toEqual(['config', 'config kubernetes ingress talked']);
  });
});

describe('record ids, observers, wait, count', () => {
  it('vector-index service resolves ids of every level and counts records', async () => {
    const svc = c.t.app.service<VectorIndexService>('vector-index');
    const dirId = recordId('acme', 'ctx://resources/code/src', 0);
    const acmeAdmin = { accountId: 'acme', userId: 'admin', role: 'ADMIN' } as const;
    expect(await svc.resolve(acmeAdmin, dirId)).toEqual({ path: 'resources/code/src', uri: 'ctx://resources/code/src', level: 0 });
    expect(await svc.resolve({ ...acmeAdmin, accountId: 'globex' }, dirId)).toBeNull();
    // Below src: main.ts, util/, util/strings.ts.
    expect(await svc.countUnder(acmeAdmin, 'resources/code/src')).toBe(3);
    // The fs plugin's listing reads it for `count`.
    const ls = await c.t.req({ method: 'GET', url: '/api/v1/fs/ls?uri=ctx://resources/code&extra_fields=count', headers: c.admin });
    expect(ls.status, ls.text).toBe(200);
    expect(ls.json().result.find((e: any) => e.name === 'src').count).toBe(3);
  });
  it('ready reports the vector index', async () => {
    const r = await c.t.req({ method: 'GET', url: '/ready' });
    expect(r.json().checks.vectordb).toBe('ok');
  });
  it('observers report real figures', async () => {
    const v = await c.t.req({ method: 'GET', url: '/api/v1/observer/vectordb', headers: c.t.root });
    expect(v.status).toBe(200);
    expect(v.json().result.name).toBe('vectordb');
    expect(v.json().result.status).toMatch(/records\s+\d+/);
    const r = await c.t.req({ method: 'GET', url: '/api/v1/observer/retrieval', headers: c.t.root });
    expect(r.json().result.status).toMatch(/find|grep/);
  });
  it('wait covers both queues', async () => {
    await write(c.t, c.admin, 'ctx://resources/code/new.md', 'fresh words zebra');
    const w = await wait(c.t);
    expect(Object.keys(w)).toEqual(expect.arrayContaining(['Semantic', 'Embedding']));
    const f = await post(c.t, c.admin, '/api/v1/search/find', { query: 'zebra' });
    expect(uris(f.body.result)).toContain('ctx://resources/code/new.md');
  });
});
