import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { upload } from '../skills/zips.js';
import { settledTask } from '../helpers/poll.js';

let t: TestApp;
let alice: Record<string, string>;
let bob: Record<string, string>;
let hostDir: string;

const add = (who: Record<string, string>, body: unknown) => t.req({ method: 'POST', url: '/api/v1/resources', headers: who, body });
const get = (who: Record<string, string>, url: string) => t.req({ method: 'GET', url, headers: who });
const read = (who: Record<string, string>, uri: string) => get(who, `/api/v1/content/read?uri=${encodeURIComponent(uri)}`);
const ls = async (who: Record<string, string>, uri: string): Promise<string[]> => {
  const r = await get(who, `/api/v1/fs/ls?uri=${encodeURIComponent(uri)}&recursive=true&simple=true`);
  if (r.status !== 200) return [];
  return (r.json().result as Array<string | { uri: string }>).map((e) => (typeof e === 'string' ? e : e.uri));
};
const resourceRoots = async (who: Record<string, string>) => (await ls(who, 'ctx://resources')).filter((u) => u.split('/').length === 4);

const waitTask = (who: Record<string, string>, id: string) => settledTask(async () => (await get(who, `/api/v1/tasks/${id}?include_events=true`)).json().result);

beforeAll(async () => {
  hostDir = tempDir('ctx-import-root-');
  fs.mkdirSync(path.join(hostDir, 'docs/sub'), { recursive: true });
  fs.writeFileSync(path.join(hostDir, 'docs/a.md'), '# A\n\nhost file about quokkas\n');
  fs.writeFileSync(path.join(hostDir, 'docs/sub/b.txt'), 'nested host file\n');
  fs.symlinkSync('/etc/passwd', path.join(hostDir, 'docs/passwd-link'));
  t = await startTestApp({ config: { importRoots: [hostDir] } });
  const acme = await t.account('acme', ['alice', 'bob']);
  alice = acme.users.alice!;
  bob = acme.users.bob!;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(hostDir, { recursive: true, force: true });
});

describe('POST /api/v1/resources: a single uploaded file', () => {
  it('imports a text file with wait: a directory named after it, the file inside, indexed and findable', async () => {
    const id = await upload(t, alice, 'Wombats dig burrows with their strong claws.\n', 'wombats.txt');
    const res = await add(alice, { temp_file_id: id, reason: 'field notes', instruction: 'focus on burrows', wait: true });
    expect(res.status).toBe(200);
    const r = res.json().result;
    expect(r).toMatchObject({ status: 'success', root_uri: 'ctx://resources/wombats', source_type: 'upload', source: 'wombats.txt', files: 1, semantic_status: 'complete', vector_status: 'complete' });
    expect(r.task_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.queue_status.pending).toBe(0);
    expect((await read(alice, 'ctx://resources/wombats/wombats.txt')).json().result).toContain('strong claws');
    const stat = (await get(alice, '/api/v1/fs/stat?uri=ctx://resources/wombats')).json().result;
    expect(stat.isDir).toBe(true);
    const find = await t.req({ method: 'POST', url: '/api/v1/search/find', headers: alice, body: { query: 'wombats burrows claws', target_uri: 'ctx://resources/wombats' } });
    expect(find.json().result.resources.some((h: { uri: string }) => h.uri.startsWith('ctx://resources/wombats'))).toBe(true);
    // The upload is consumed.
    expect((await add(alice, { temp_file_id: id })).status).toBe(403);
  });

  it('stores reason, instruction and the source with the resource root (GET /api/v1/resources/info)', async () => {
    const info = await get(alice, '/api/v1/resources/info?uri=ctx://resources/wombats');
    expect(info.status).toBe(200);
    expect(info.json().result).toMatchObject({ uri: 'ctx://resources/wombats', source_type: 'upload', source: 'wombats.txt', reason: 'field notes', instruction: 'focus on burrows' });
    expect((await get(alice, '/api/v1/resources/info?uri=ctx://resources/wombats/wombats.txt')).status).toBe(404);
    expect((await get(bob, '/api/v1/resources/info?uri=ctx://user/alice/resources')).status).toBe(403);
  });

  it('adding the same file again gives a second resource; `to` puts it at an exact root', async () => {
    const again = await add(alice, { temp_file_id: await upload(t, alice, 'Wombats again.\n', 'wombats.txt'), wait: true });
    expect(again.json().result.root_uri).toBe('ctx://resources/wombats_1');
    const to = await add(alice, { temp_file_id: await upload(t, alice, 'Placed.\n', 'placed.md'), to: 'ctx://resources/exact/place', wait: true });
    expect(to.status).toBe(200);
    expect(to.json().result.root_uri).toBe('ctx://resources/exact/place');
    expect(await ls(alice, 'ctx://resources/exact/place')).toContain('ctx://resources/exact/place/placed.md');
    // `to` naming the space root is taken as the parent, as the reference does.
    const rootTo = await add(alice, { temp_file_id: await upload(t, alice, 'x\n', 'rooted.md'), to: 'ctx://resources', wait: true });
    expect(rootTo.json().result.root_uri).toBe('ctx://resources/rooted');
  });

  it('re-adding into an existing `to` replaces its content: files the source no longer has are removed', async () => {
    const zip1 = (await import('../skills/zips.js')).makeZip([{ name: 'keep.md', data: '# keep v1\n' }, { name: 'old/gone.md', data: '# gone\n' }]);
    const zip2 = (await import('../skills/zips.js')).makeZip([{ name: 'keep.md', data: '# keep v2\n' }, { name: 'new.md', data: '# new\n' }]);
    expect((await add(alice, { temp_file_id: await upload(t, alice, zip1, 'tree.zip'), to: 'ctx://resources/replaced', wait: true })).status).toBe(200);
    const r2 = await add(alice, { temp_file_id: await upload(t, alice, zip2, 'tree.zip'), to: 'ctx://resources/replaced', wait: true });
    expect(r2.status).toBe(200);
    expect(r2.json().result.removed).toBe(1);
    const files = await ls(alice, 'ctx://resources/replaced');
    expect(files.filter((u) => !u.split('/').pop()!.startsWith('.')).sort()).toEqual(['ctx://resources/replaced/keep.md', 'ctx://resources/replaced/new.md']);
    expect((await read(alice, 'ctx://resources/replaced/keep.md')).json().result).toContain('v2');
  });

  it('parent puts the resource below an existing directory; tags go on every node', async () => {
    await t.req({ method: 'POST', url: '/api/v1/fs/mkdir', headers: alice, body: { uri: 'ctx://resources/lib' } });
    const res = await add(alice, { temp_file_id: await upload(t, alice, '# Tagged\n\ntext\n', 'tagged.md'), parent: 'ctx://resources/lib', tags: ['team=docs'], wait: true });
    expect(res.status).toBe(200);
    expect(res.json().result.root_uri).toBe('ctx://resources/lib/tagged');
    for (const uri of ['ctx://resources/lib/tagged', 'ctx://resources/lib/tagged/tagged.md'])
      expect((await get(alice, `/api/v1/fs/attrs?uri=${uri}`)).json().result.attrs.tags).toEqual(['team=docs']);
  });

  it('without wait: returns the root and a task that goes queued → parsing → finalizing → processing_queue → completed', async () => {
    const res = await add(alice, { temp_file_id: await upload(t, alice, 'later\n', 'later.txt') });
    expect(res.status).toBe(200);
    const r = res.json().result;
    expect(r).toMatchObject({ status: 'success', root_uri: 'ctx://resources/later' });
    const task = await waitTask(alice, r.task_id);
    expect(task).toMatchObject({ status: 'completed', task_type: 'add_resource', resource_id: 'ctx://resources/later' });
    const stages = task.result.execution_events.items.filter((e: { kind: string }) => e.kind === 'stage_changed').map((e: { stage: string }) => e.stage);
    expect(stages).toEqual(['parsing', 'finalizing', 'processing_queue']);
    expect(task.result.files).toBe(1);
  });
});

describe('POST /api/v1/resources: bad requests', () => {
  const cases: Array<[string, unknown, number, RegExp]> = [
    ['neither path nor temp_file_id', {}, 400, /either 'path' or 'temp_file_id'/],
    ['an empty path', { path: '' }, 400, /either 'path' or 'temp_file_id'/],
    ['an unknown field', { path: 'https://example.com/a.md', colour: 'red' }, 400, /colour/],
    ['to and parent together', { path: 'https://example.com/a.md', to: 'ctx://resources/a', parent: 'ctx://resources' }, 400, /'to' and 'parent'/],
    ['a target outside a resources space', { path: 'https://example.com/a.md', to: 'ctx://~/memories/x' }, 400, /resources space/],
    ['a user-id-less target', { path: 'https://example.com/a.md', to: 'ctx://user/skills/invalid' }, 400, /./],
    ['an unknown temp_file_id (403, as the reference)', { temp_file_id: 'upload_nonexistent_file_12345.txt' }, 403, /temp file not found/],
    ['a relative host path', { path: 'notes/a.md' }, 400, /http\(s\) URL/],
    ['an ssh git URL', { path: 'git@github.com:a/b.git' }, 400, /no ssh/],
    ['a ftp URL', { path: 'ftp://example.com/a.md' }, 400, /only http\(s\)/],
    ['a watch_interval that is not a number', { path: 'https://example.com/a.md', watch_interval: 'often' }, 400, /watch_interval/],
    ['an unknown processing_mode', { path: 'https://example.com/a.md', processing_mode: 'deep' }, 400, /processing_mode/],
    ['malformed tags', { path: 'https://example.com/a.md', tags: ['no equals sign'] }, 400, /tag/],
    ['an unknown args key', { path: 'https://example.com/r.git', args: { depth: 3 } }, 400, /args.depth/],
    ['credentials for a page', { path: 'https://example.com/a.md', args: { auth_config: { token: 'x' } } }, 400, /git repositories only/],
    ['an unclosed brace in include', { path: 'https://example.com/a.md', include: '*.{md' }, 400, /unclosed/],
    ['a parent that does not exist', { path: 'https://example.com/a.md', parent: 'ctx://resources/nope/deeper' }, 400, /create_parent/],
  ];
  for (const [name, body, status, message] of cases)
    it(`refuses ${name}`, async () => {
      const before = await resourceRoots(alice);
      const res = await add(alice, body);
      expect(res.status, res.text).toBe(status);
      expect(res.json().error.message).toMatch(message);
      expect(await resourceRoots(alice)).toEqual(before);
    });

  it('refuses a single file it cannot store (binary, invalid JSON) and writes nothing', async () => {
    const before = await resourceRoots(alice);
    const bin = await add(alice, { temp_file_id: await upload(t, alice, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]), 'blob.bin'), wait: true });
    expect(bin.status).toBe(400);
    expect(bin.json().error.message).toMatch(/binary content/);
    const json = await add(alice, { temp_file_id: await upload(t, alice, '{"a": 1,,}', 'broken.json'), wait: true });
    expect(json.status).toBe(400);
    expect(json.json().error.message).toMatch(/not valid JSON/);
    const yaml = await add(alice, { temp_file_id: await upload(t, alice, 'a: [1, 2\nb: c', 'broken.yaml') });
    expect(yaml.status).toBe(400);
    const toml = await add(alice, { temp_file_id: await upload(t, alice, 'a = = 1', 'broken.toml') });
    expect(toml.status).toBe(400);
    expect(await resourceRoots(alice)).toEqual(before);
  });

  it("another user's upload is not theirs to add (403)", async () => {
    const id = await upload(t, alice, 'private\n', 'mine.txt');
    expect((await add(bob, { temp_file_id: id })).status).toBe(403);
  });

  it('a target the caller may not write is refused (403)', async () => {
    const res = await add(bob, { temp_file_id: await upload(t, bob, 'x\n', 'x.txt'), to: 'ctx://user/alice/resources/x' });
    expect(res.status).toBe(403);
  });
});

describe('POST /api/v1/resources: host-local paths', () => {
  it('imports a directory below an allowed root; symbolic links are skipped, not followed', async () => {
    const res = await add(alice, { path: path.join(hostDir, 'docs'), wait: true });
    expect(res.status, res.text).toBe(200);
    const r = res.json().result;
    expect(r.root_uri).toBe('ctx://resources/docs');
    expect(r.skipped).toEqual([{ path: 'passwd-link', reason: 'a symbolic link' }]);
    expect(await ls(alice, 'ctx://resources/docs')).toEqual(expect.arrayContaining(['ctx://resources/docs/a.md', 'ctx://resources/docs/sub/b.txt']));
  });

  it('refuses paths outside the allowed roots, also through a link or "..", and without roots at all', async () => {
    expect((await add(alice, { path: '/etc/passwd' })).status).toBe(403);
    expect((await add(alice, { path: path.join(hostDir, 'docs/passwd-link') })).status).toBe(403);
    expect((await add(alice, { path: `${hostDir}/../../etc/hostname` })).status).toBe(403);
    expect((await add(alice, { path: 'file:///etc/passwd' })).status).toBe(403);
    expect((await add(alice, { path: path.join(hostDir, 'missing.md') })).status).toBe(400);
    const strict = await startTestApp();
    try {
      const who = strict.root;
      const res = await strict.req({ method: 'POST', url: '/api/v1/resources', headers: who, body: { path: path.join(hostDir, 'docs/a.md') } });
      expect(res.status).toBe(403);
      expect(res.json().error.message).toMatch(/CTX_IMPORT_ROOTS/);
    } finally {
      await strict.close();
    }
  });
});
