import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { upload, makeZip } from './zips.js';
import { settledTask } from '../helpers/poll.js';

let t: TestApp;
let alice: Record<string, string>;
let bob: Record<string, string>;
let other: Record<string, string>;

const add = (who: Record<string, string>, body: unknown) => t.req({ method: 'POST', url: '/api/v1/skills', headers: who, body });
const get = (who: Record<string, string>, url: string) => t.req({ method: 'GET', url, headers: who });
const read = async (who: Record<string, string>, uri: string) => get(who, `/api/v1/content/read?uri=${encodeURIComponent(uri)}`);

beforeAll(async () => {
  t = await startTestApp();
  const acme = await t.account('acme', ['alice', 'bob']);
  alice = acme.users.alice!;
  bob = acme.users.bob!;
  other = (await t.account('globex', ['alice'])).users.alice!;
});
afterAll(() => t.close());

describe('POST /api/v1/skills: the forms of skill data', () => {
  it('a structured dict is stored as SKILL.md with frontmatter, indexed (L0/L1) and findable with context_type skill', async () => {
    const res = await add(alice, {
      data: { name: 'pdf-tables', description: 'Extract tables from PDF files into CSV', content: '# PDF tables\n\nUse camelot to pull zebrafish tables out of PDF reports.', tags: ['team=data'], allowed_tools: ['Bash', 'Read'] },
      wait: true,
    });
    expect(res.status).toBe(200);
    const r = res.json().result;
    expect(r).toMatchObject({ status: 'success', name: 'pdf-tables', uri: 'ctx://user/alice/skills/pdf-tables', root_uri: 'ctx://user/alice/skills/pdf-tables', auxiliary_files: 0 });
    expect(r.queue_status.pending).toBe(0);
    expect(r.vector_status).toBe('complete');
    const md = (await read(alice, 'ctx://user/alice/skills/pdf-tables/SKILL.md')).json().result;
    expect(md).toMatch(/^---\nname: pdf-tables\ndescription: Extract tables from PDF files into CSV\nallowed-tools:\n {2}- Bash\n {2}- Read\ntags:\n {2}- team=data\n---\n\n# PDF tables/);
    // L0 and L1 come from the indexer, from what the plugin wrote.
    expect((await read(alice, 'ctx://user/alice/skills/pdf-tables/.abstract.md')).status).toBe(200);
    expect((await read(alice, 'ctx://user/alice/skills/pdf-tables/.overview.md')).status).toBe(200);
    const find = await t.req({ method: 'POST', url: '/api/v1/search/find', headers: alice, body: { query: 'zebrafish tables in PDF reports', context_type: 'skill' } });
    expect(find.status).toBe(200);
    const found = find.json().result;
    expect(found.skills.length).toBeGreaterThan(0);
    expect(found.skills.every((h: { context_type: string }) => h.context_type === 'skill')).toBe(true);
    expect(found.skills.some((h: { uri: string }) => h.uri.startsWith('ctx://user/alice/skills/pdf-tables'))).toBe(true);
    expect(found.resources).toEqual([]);
    expect(found.memories).toEqual([]);
  });

  it('a dict with only name and content is accepted; extra fields are reported, not stored', async () => {
    const res = await add(alice, { data: { name: 'min_skill', content: 'minimal', category: 'advanced', parameters: { type: 'object' } }, wait: true });
    expect(res.status).toBe(200);
    expect(res.json().result.ignored_fields).toEqual(['category', 'parameters']);
    const md = (await read(alice, 'ctx://user/alice/skills/min_skill/SKILL.md')).json().result;
    expect(md).not.toMatch(/category|advanced/);
  });

  it('SKILL.md text with allowed-tools as a space-separated string or allowed_tools as a list', async () => {
    const text = '---\nname: git-helper\ndescription: Helps with git\nallowed-tools: Bash Read\nlicense: MIT\n---\n\n# Git helper\n\nRebase carefully.\n';
    const res = await add(alice, { data: text, wait: true });
    expect(res.status).toBe(200);
    expect((await read(alice, 'ctx://user/alice/skills/git-helper/SKILL.md')).json().result).toBe(text);
    const got = (await get(alice, '/api/v1/skills/git-helper')).json().result;
    expect(got).toMatchObject({ name: 'git-helper', description: 'Helps with git', allowed_tools: ['Bash', 'Read'], tags: [] });
    const res2 = await add(alice, { data: '---\nname: lint\ndescription: Lints\nallowed_tools: [Bash]\ntags: [a=b]\n---\nbody\n' });
    expect(res2.status).toBe(200);
    expect((await get(alice, '/api/v1/skills/lint')).json().result).toMatchObject({ allowed_tools: ['Bash'], tags: ['a=b'] });
  });

  it('a tool definition becomes a kebab-case skill with a generated Parameters list and Usage note', async () => {
    const res = await add(alice, {
      data: {
        name: 'search_webPages',
        description: 'Search the web',
        inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'Search query' }, limit: { type: 'integer' } }, required: ['query'] },
      },
      wait: true,
    });
    expect(res.status).toBe(200);
    expect(res.json().result.name).toBe('search-web-pages');
    const md = (await read(alice, 'ctx://user/alice/skills/search-web-pages/SKILL.md')).json().result as string;
    expect(md).toContain('name: search-web-pages');
    expect(md).toContain('## Parameters');
    expect(md).toContain('- `query` (string, required): Search query');
    expect(md).toContain('- `limit` (integer, optional)');
    expect(md).toMatch(/## Usage\n\n.*`search_webPages`/);
  });

  it('without wait the indexing is a task that completes', async () => {
    const res = await add(alice, { data: { name: 'async-skill', description: 'later', content: 'x' } });
    expect(res.status).toBe(200);
    const id = res.json().result.task_id as string;
    expect(id).toBeTruthy();
    const { status } = await settledTask(async () => (await get(alice, `/api/v1/tasks/${id}`)).json().result);
    expect(status).toBe('completed');
    expect((await get(bob, `/api/v1/tasks/${id}`)).status).toBe(404);
  });

  it('a SKILL.md upload, a JSON upload, and a zipped skill directory with auxiliary files', async () => {
    const md = await upload(t, alice, '---\nname: uploaded\ndescription: From a file\n---\n# Uploaded\n', 'SKILL.md');
    expect((await add(alice, { temp_file_id: md, wait: true })).json().result).toMatchObject({ name: 'uploaded', auxiliary_files: 0 });
    const json = await upload(t, alice, JSON.stringify({ name: 'from-json', description: 'JSON', content: 'c' }), 'skill.json');
    expect((await add(alice, { temp_file_id: json })).json().result.name).toBe('from-json');

    const zip = makeZip([
      { name: 'code-runner/' },
      { name: 'code-runner/SKILL.md', data: '---\nname: code-runner\ndescription: Runs code\n---\n# Runner\n' },
      { name: 'code-runner/scripts/run.sh', data: '#!/bin/sh\necho run\n' },
      { name: 'code-runner/reference.md', data: '# Reference', store: true },
      { name: 'code-runner/.abstract.md', data: 'not mine' },
      { name: '__MACOSX/code-runner/._SKILL.md', data: 'junk' },
    ]);
    const res = await add(alice, { temp_file_id: await upload(t, alice, zip), wait: true });
    expect(res.status).toBe(200);
    expect(res.json().result).toMatchObject({ name: 'code-runner', auxiliary_files: 2, skipped_files: ['.abstract.md'] });
    expect((await read(alice, 'ctx://user/alice/skills/code-runner/scripts/run.sh')).json().result).toBe('#!/bin/sh\necho run\n');
    const files = (await get(alice, '/api/v1/skills/code-runner?include_files=true&include_content=true')).json().result;
    expect(files.content).toContain('# Runner');
    expect(files.files.map((f: { path: string; kind: string }) => `${f.path}:${f.kind}`).sort()).toEqual(
      expect.arrayContaining(['SKILL.md:definition', 'reference.md:auxiliary', 'scripts:directory', 'scripts/run.sh:auxiliary']),
    );
  });

  it('adding a skill again replaces it: files the new version lacks are removed', async () => {
    const v1 = makeZip([{ name: 'SKILL.md', data: '---\nname: versioned\ndescription: v1\n---\nv1' }, { name: 'old.txt', data: 'old' }]);
    expect((await add(alice, { temp_file_id: await upload(t, alice, v1), wait: true })).status).toBe(200);
    expect((await add(alice, { data: { name: 'versioned', description: 'v2', content: 'v2' }, wait: true })).status).toBe(200);
    expect((await read(alice, 'ctx://user/alice/skills/versioned/old.txt')).status).toBe(404);
    expect((await get(alice, '/api/v1/skills/versioned')).json().result.description).toBe('v2');
  });
});

describe('list, read and delete', () => {
  it('lists only directories holding a SKILL.md, reads one, deletes it', async () => {
    await t.req({ method: 'POST', url: '/api/v1/fs/mkdir', headers: alice, body: { uri: 'ctx://user/alice/skills/not-a-skill' } });
    const list = (await get(alice, '/api/v1/skills')).json().result;
    const names = list.skills.map((s: { name: string }) => s.name);
    expect(names).toContain('pdf-tables');
    expect(names).not.toContain('not-a-skill');
    expect(list.total).toBe(names.length);
    expect(list.skills.find((s: { name: string }) => s.name === 'pdf-tables')).toMatchObject({ type: 'skill', skill_md_uri: 'ctx://user/alice/skills/pdf-tables/SKILL.md', tags: ['team=data'] });
    const one = (await get(alice, '/api/v1/skills/pdf-tables')).json().result;
    expect(one.abstract.length).toBeGreaterThan(0);
    expect(one.content).toBeUndefined();
    const del = await t.req({ method: 'DELETE', url: '/api/v1/skills/min_skill', headers: alice });
    expect(del.status).toBe(200);
    expect(del.json().result).toMatchObject({ name: 'min_skill', uri: 'ctx://user/alice/skills/min_skill' });
    expect((await get(alice, '/api/v1/skills/min_skill')).status).toBe(404);
    expect((await t.req({ method: 'DELETE', url: '/api/v1/skills/min_skill', headers: alice })).status).toBe(404);
    expect((await get(alice, '/api/v1/skills/not-a-skill')).status).toBe(404);
    expect((await get(alice, '/api/v1/skills/bad%20name')).status).toBe(400);
  });

  it("another user's skills are neither listed, read, found nor deleted", async () => {
    expect((await get(bob, '/api/v1/skills')).json().result.skills).toEqual([]);
    expect((await get(bob, '/api/v1/skills/pdf-tables')).status).toBe(404);
    expect((await t.req({ method: 'DELETE', url: '/api/v1/skills/pdf-tables', headers: bob })).status).toBe(404);
    expect((await read(bob, 'ctx://user/alice/skills/pdf-tables/SKILL.md')).status).toBe(403);
    const find = (await t.req({ method: 'POST', url: '/api/v1/search/find', headers: bob, body: { query: 'zebrafish tables in PDF reports', context_type: 'skill' } })).json().result;
    expect(find.skills).toEqual([]);
    // A same-named skill of bob's lands in bob's space, alice's stays as it was.
    expect((await add(bob, { data: { name: 'pdf-tables', description: 'bob', content: 'b' } })).json().result.uri).toBe('ctx://user/bob/skills/pdf-tables');
    expect((await get(alice, '/api/v1/skills/pdf-tables')).json().result.description).toBe('Extract tables from PDF files into CSV');
    // globex's alice is another user altogether.
    expect((await get(other, '/api/v1/skills/pdf-tables')).status).toBe(404);
  });

  it("an upload of another user, or of another account, is not found", async () => {
    const id = await upload(t, alice, '---\nname: mine\ndescription: d\n---\n', 'SKILL.md');
    const r1 = await add(bob, { temp_file_id: id });
    expect(r1.status).toBe(404);
    const r2 = await add(other, { temp_file_id: id });
    expect(r2.status).toBe(404);
    expect((await get(bob, '/api/v1/skills/mine')).status).toBe(404);
    expect((await get(other, '/api/v1/skills/mine')).status).toBe(404);
  });
});

describe('bad input', () => {
  const code = async (body: unknown, who = alice) => {
    const res = await add(who, body);
    return { status: res.status, code: res.json().error?.code as string, message: res.json().error?.message as string, field: res.json().error?.details?.field as string };
  };

  it('SKILL.md that does not parse is PROCESSING_ERROR (422)', async () => {
    expect(await code({ data: '---\nname: [unclosed\n---\nbody' })).toMatchObject({ status: 422, code: 'PROCESSING_ERROR' });
    expect(await code({ data: '# no frontmatter' })).toMatchObject({ status: 422, code: 'PROCESSING_ERROR' });
    expect(await code({ data: '---\n- a list\n---\n' })).toMatchObject({ status: 422, code: 'PROCESSING_ERROR' });
    expect(await code({ data: '---\nname: x\nname: y\ndescription: d\n---\n' })).toMatchObject({ status: 422, code: 'PROCESSING_ERROR' });
    expect(await code({ data: '---\nname: no-desc\n---\nbody' })).toMatchObject({ status: 422, code: 'PROCESSING_ERROR', field: 'data.description' });
    expect(await code({ data: '---\ndescription: d\n---\nbody' })).toMatchObject({ status: 422, code: 'PROCESSING_ERROR', field: 'data.name' });
    const laughs = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill('*' + 'abcdefgh'[i]).join(', ')}]`)].join('\n');
    expect(await code({ data: `---\n${laughs}\nname: n\ndescription: d\n---\n` })).toMatchObject({ status: 422, code: 'PROCESSING_ERROR' });
    // Aliases as such are YAML: a small one is fine.
    expect((await add(alice, { data: '---\nt: &t [Bash]\nallowed-tools: *t\nname: aliased\ndescription: d\n---\n' })).status).toBe(200);
  });

  it('bad names are 400', async () => {
    for (const name of ['../escape', 'a b', 'skills', 'x'.repeat(65), '-lead', 'ünï', '', 'a/b'])
      expect(await code({ data: { name, description: 'd', content: 'c' } }), name).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT', field: 'data.name' });
    expect(await code({ data: '---\nname: ../up\ndescription: d\n---\n' })).toMatchObject({ status: 400, field: 'name' });
    expect(await code({ data: { name: '!!!', inputSchema: { type: 'object' } } })).toMatchObject({ status: 400, field: 'data.name' });
  });

  it('missing data, both sources, unknown fields and wrong types are 400', async () => {
    expect(await code({})).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT' });
    expect(await code({ data: {} })).toMatchObject({ status: 400, field: 'data.name' });
    expect(await code({ data: { description: 'no name' } })).toMatchObject({ status: 400, field: 'data.name' });
    expect(await code({ data: { name: 'x', content: 'c' }, temp_file_id: 'tmp_' + '0'.repeat(32) })).toMatchObject({ status: 400 });
    expect(await code({ data: { name: 'x', content: 'c' }, to: 'ctx://resources' })).toMatchObject({ status: 400, field: 'to' });
    expect(await code({ data: 42 })).toMatchObject({ status: 400, field: 'data' });
    expect(await code({ data: ['a'] })).toMatchObject({ status: 400, field: 'data' });
    expect(await code({ data: { name: 'x', content: 'c' }, wait: 'yes' })).toMatchObject({ status: 400, field: 'wait' });
    expect(await code({ data: { name: 5 } })).toMatchObject({ status: 400, field: 'data.name' });
    expect(await code({ data: { name: 'x', tags: 'a' } })).toMatchObject({ status: 400, field: 'data.tags' });
    expect(await code({ data: { name: 'x', description: 7 } })).toMatchObject({ status: 400, field: 'data.description' });
    expect(await code({ data: { name: 'x', allowed_tools: [1] } })).toMatchObject({ status: 400, field: 'data.allowed_tools' });
    expect(await code({ data: { name: 'x', allowed_tools: ['a'], 'allowed-tools': ['b'] } })).toMatchObject({ status: 400 });
    expect(await code({ data: { name: 'x', inputSchema: 'nope' } })).toMatchObject({ status: 400, field: 'data.inputSchema' });
    expect(await code({ data: { name: 'x', inputSchema: { properties: [] } } })).toMatchObject({ status: 400, field: 'data.inputSchema.properties' });
    expect(await code({ data: { name: 'x', inputSchema: { required: 'q' } } })).toMatchObject({ status: 400, field: 'data.inputSchema.required' });
    expect(await code({ temp_file_id: 'not-an-id' })).toMatchObject({ status: 400, field: 'temp_file_id' });
    expect(await code({ temp_file_id: 'tmp_' + '0'.repeat(32) })).toMatchObject({ status: 404 });
  });

  it('oversized text is 400', async () => {
    expect(await code({ data: '---\nname: big\ndescription: d\n---\n' + 'x'.repeat(1024 * 1024) })).toMatchObject({ status: 400, field: 'data' });
    const big = await upload(t, alice, '---\nname: big\ndescription: d\n---\n' + 'x'.repeat(1024 * 1024 + 1), 'SKILL.md');
    expect(await code({ temp_file_id: big })).toMatchObject({ status: 400, field: 'temp_file_id' });
  });

  it('a SKILL.md upload that is not UTF-8 is PROCESSING_ERROR', async () => {
    const id = await upload(t, alice, Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe]), 'SKILL.md');
    expect(await code({ temp_file_id: id })).toMatchObject({ status: 422, code: 'PROCESSING_ERROR' });
  });
});
