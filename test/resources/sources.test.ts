import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { centralRecords, makeZip, upload } from '../skills/zips.js';
import { commitTo, makeRepo, startGitServer, startStatic, type TestServer } from './servers.js';
import { settledTask } from '../helpers/poll.js';

let t: TestApp;
let alice: Record<string, string>;
let web: TestServer;
let gitServer: TestServer;
let privateGit: TestServer;
let gitRoot: string;
const TOKEN = 'tok-s3cr3t-0123456789abcdef';

const add = (body: unknown) => t.req({ method: 'POST', url: '/api/v1/resources', headers: alice, body });
const get = (url: string) => t.req({ method: 'GET', url, headers: alice });
const read = async (uri: string) => (await get(`/api/v1/content/read?uri=${encodeURIComponent(uri)}`)).json().result as string;
const ls = async (uri: string): Promise<string[]> => {
  const r = await get(`/api/v1/fs/ls?uri=${encodeURIComponent(uri)}&recursive=true&simple=true`);
  if (r.status !== 200) return [];
  return (r.json().result as Array<string | { uri: string }>).map((e) => (typeof e === 'string' ? e : e.uri)).filter((u) => !/\/\.(abstract|overview)\.md$/.test(u));
};
const roots = async () => (await ls('ctx://resources')).filter((u) => u.split('/').length === 4);

const waitTask = (id: string) => settledTask(async () => (await get(`/api/v1/tasks/${id}?include_events=true`)).json().result);

const bigMarkdown = () => {
  const para = 'Numbats eat termites and live in eucalypt woodland. '.repeat(40);
  let md = '# Field guide\n\nIntro text before the chapters.\n\n';
  for (const ch of ['Habitat', 'Diet', 'Breeding']) {
    md += `## ${ch}\n\n`;
    for (let i = 0; i < 8; i++) md += `${para}\n\n`;
  }
  md += '```md\n## not a heading inside code\n```\n';
  return md;
};

beforeAll(async () => {
  web = await startStatic({
    '/articles/echidna.html': { type: 'text/html; charset=utf-8', body: '<html><head><title>Echidna facts</title><script>track()</script><style>p{}</style></head><body><nav>menu</nav><h1>Echidna</h1><p>Echidnas are <b>spiny</b> monotremes that lay eggs.</p><ul><li>one</li><li>two</li></ul></body></html>' },
    '/page': { type: 'text/html', body: '<h1>Bare page</h1><p>no extension here</p>' },
    '/data/config.json': { type: 'application/json', body: '{"animal": "bilby", "ears": 2}' },
    '/data/broken.json': { type: 'application/json', body: '{"animal": ' },
    '/guide.md': { type: 'text/markdown', body: bigMarkdown() },
    '/moved': { status: 302, body: '', headers: { location: '/articles/echidna.html' } },
    '/loop': { status: 302, body: '', headers: { location: '/loop' } },
    '/slow.md': { body: '# slow\n', delay: 3000 },
    '/bin': { type: 'application/octet-stream', body: Buffer.from([0, 1, 2, 3, 255]) },
  });
  gitRoot = tempDir('ctx-git-');
  makeRepo(gitRoot, 'wildlife', {
    'README.md': '# Wildlife\n\nA repository about the platypus and its bill.\n',
    'src/index.ts': 'export const platypus = () => "venomous spur";\n',
    'src/util/helpers.py': 'def bill():\n    return "electroreception"\n',
    'config.yaml': 'name: wildlife\n',
    'node_modules/dep/index.js': 'module.exports = 1;\n',
    'assets/logo.png': '\u0000PNG',
    'notes/todo.txt': 'count the quolls\n',
  }, { symlinks: { 'link-to-readme': 'README.md' } });
  fs.mkdirSync(`${gitRoot}/private`);
  makeRepo(`${gitRoot}/private`, 'secret', { 'plan.md': '# Plan\n\nsecret plans about dingoes\n' });
  gitServer = await startGitServer(gitRoot);
  privateGit = await startGitServer(`${gitRoot}/private`, { username: 'oauth2', password: TOKEN });
  t = await startTestApp({ config: { importAllowPrivate: true } });
  alice = (await t.account('acme', ['alice'])).users.alice!;
});
afterAll(async () => {
  await t.close();
  await web.close();
  await gitServer.close();
  await privateGit.close();
  fs.rmSync(gitRoot, { recursive: true, force: true });
});

describe('web pages and files over http', () => {
  it('an HTML page becomes Markdown (turndown): title, text and lists kept, scripts, styles and navigation dropped', async () => {
    const res = await add({ path: `${web.url}/articles/echidna.html`, wait: true });
    expect(res.status, res.text).toBe(200);
    expect(res.json().result).toMatchObject({ root_uri: 'ctx://resources/echidna', source_type: 'http', source: `${web.url}/articles/echidna.html`, files: 1, vector_status: 'complete' });
    const md = await read('ctx://resources/echidna/echidna.md');
    expect(md).toContain('# Echidna');
    expect(md).toContain('**spiny** monotremes');
    expect(md).toMatch(/^# Echidna\n/);
    expect(md).toMatch(/-\s+one\n-\s+two/);
    expect(md).not.toMatch(/track\(\)|p\{\}|menu/);
    const find = await t.req({ method: 'POST', url: '/api/v1/search/find', headers: alice, body: { query: 'spiny monotremes lay eggs', target_uri: 'ctx://resources/echidna' } });
    expect(find.json().result.resources.length).toBeGreaterThan(0);
  });

  it('a page without an extension is named after its path and typed by Content-Type; redirects are followed', async () => {
    const page = await add({ path: `${web.url}/page`, wait: true });
    expect(page.json().result.root_uri).toBe('ctx://resources/page');
    expect(await read('ctx://resources/page/page.md')).toContain('# Bare page');
    const moved = await add({ path: `${web.url}/moved`, wait: true });
    expect(moved.status).toBe(200);
    expect(await read(`${moved.json().result.root_uri}/echidna.md`)).toContain('Echidna');
  });

  it('a JSON file is checked and stored as written', async () => {
    const res = await add({ path: `${web.url}/data/config.json`, wait: true });
    expect(res.status).toBe(200);
    expect(await read('ctx://resources/config/config.json')).toBe('{"animal": "bilby", "ears": 2}');
  });

  it('a large Markdown document becomes a directory of sections along its headings', async () => {
    const res = await add({ path: `${web.url}/guide.md`, wait: true });
    expect(res.status).toBe(200);
    const files = (await ls('ctx://resources/guide')).filter((u) => u.endsWith('.md'));
    expect(files).toEqual(['ctx://resources/guide/00-preamble.md', 'ctx://resources/guide/01-habitat.md', 'ctx://resources/guide/02-diet.md', 'ctx://resources/guide/03-breeding.md']);
    expect(await read('ctx://resources/guide/00-preamble.md')).toMatch(/^# Field guide\n\nIntro text/);
    expect(await read('ctx://resources/guide/02-diet.md')).toMatch(/^## Diet\n/);
    // A heading inside a code fence is not a cut.
    expect(await read('ctx://resources/guide/03-breeding.md')).toContain('## not a heading inside code');
  });

  it('failures answer clearly with wait, and fail the task without it; nothing is written', async () => {
    const before = await roots();
    const missing = await add({ path: `${web.url}/nope.md`, wait: true });
    expect(missing.status).toBe(400);
    expect(missing.json().error.message).toMatch(/answered HTTP 404/);
    const loop = await add({ path: `${web.url}/loop`, wait: true });
    expect(loop.json().error.message).toMatch(/redirects more than 5 times/);
    const broken = await add({ path: `${web.url}/data/broken.json`, wait: true });
    expect(broken.json().error.message).toMatch(/not valid JSON/);
    const bin = await add({ path: `${web.url}/bin`, wait: true });
    expect(bin.json().error.message).toMatch(/binary content/);
    const refused = await add({ path: 'http://127.0.0.1:9/closed.md', wait: true });
    expect(refused.status).toBe(400);
    expect(refused.json().error.message).toMatch(/cannot fetch/);
    const queued = await add({ path: `${web.url}/nope.md` });
    expect(queued.status).toBe(200);
    const task = await waitTask(queued.json().result.task_id);
    expect(task.status).toBe('failed');
    expect(task.error).toMatch(/HTTP 404/);
    expect(await roots()).toEqual(before);
  });

  it('private and loopback addresses are refused unless the operator allows them', async () => {
    const strict = await startTestApp();
    try {
      for (const url of [`${web.url}/page`, 'http://localhost:1/x.md', 'http://[::1]:1/x.md', 'http://10.0.0.1/x.md', 'http://169.254.169.254/latest/meta-data', `${gitServer.url}/wildlife.git`]) {
        const res = await strict.req({ method: 'POST', url: '/api/v1/resources', headers: strict.root, body: { path: url, wait: true } });
        expect(res.status, url).toBe(400);
        expect(res.json().error.message).toMatch(/private, loopback or link-local/);
      }
      expect(web.requests.filter((r) => r === '/page').length).toBe(1);
    } finally {
      await strict.close();
    }
  });

  it('an import can be cancelled while it fetches: the task ends cancelled and nothing is written', async () => {
    const before = await roots();
    const res = await add({ path: `${web.url}/slow.md` });
    const id = res.json().result.task_id;
    await new Promise((r) => setTimeout(r, 200));
    const cancel = await t.req({ method: 'POST', url: `/api/v1/tasks/${id}/cancel`, headers: alice });
    expect(cancel.status).toBe(200);
    expect(['cancelling', 'cancelled']).toContain(cancel.json().result.status);
    expect((await waitTask(id)).status).toBe('cancelled');
    expect(await roots()).toEqual(before);
  });
});

describe('waiting and restarts', () => {
  it('wait with a timeout answers before the import ends, with the task to follow', async () => {
    const started = Date.now();
    const res = await add({ path: `${web.url}/slow.md`, wait: true, timeout: 0.3 });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2500);
    const r = res.json().result;
    expect(['pending', 'running']).toContain(r.status);
    expect(r.root_uri).toBe('ctx://resources/slow');
    expect((await waitTask(r.task_id)).status).toBe('completed');
    expect(await read('ctx://resources/slow/slow.md')).toBe('# slow\n');
  });

  it('two imports into one `to` at once: the second is a 409; two without `to` get two roots', async () => {
    const first = await add({ path: `${web.url}/slow.md`, to: 'ctx://resources/busy' });
    const second = await add({ path: `${web.url}/page`, to: 'ctx://resources/busy' });
    expect(second.status).toBe(409);
    expect(second.json().error.details.resource).toBe('ctx://resources/busy');
    const a = await add({ path: `${web.url}/slow.md` });
    const b = await add({ path: `${web.url}/slow.md` });
    expect(a.json().result.root_uri).not.toBe(b.json().result.root_uri);
    for (const r of [first, a, b]) expect((await waitTask(r.json().result.task_id)).status).toBe('completed');
  });

  it('an import interrupted by a restart fails with a clear error and leaves no clone behind', async () => {
    const res = await add({ path: `${web.url}/slow.md` });
    const id = res.json().result.task_id;
    fs.mkdirSync(`${t.dir}/tmp/resources/git-stale`, { recursive: true });
    await new Promise((r) => setTimeout(r, 100));
    await t.restart();
    const task = await waitTask(id);
    expect(task.status).toBe('failed');
    expect(task.error).toMatch(/restart/);
    expect(fs.existsSync(`${t.dir}/tmp/resources`)).toBe(false);
    // The root it had reserved is free again.
    const again = await add({ path: `${web.url}/slow.md`, to: res.json().result.root_uri, wait: true });
    expect(again.status).toBe(200);
  });
});

describe('zipped trees', () => {
  it('imports a zipped directory (its single top folder unwrapped) with include, exclude and ignore_dirs', async () => {
    const zip = makeZip([
      { name: 'site/index.html', data: '<h1>Home</h1><p>kookaburra laugh</p>' },
      { name: 'site/docs/a.md', data: '# A\n' },
      { name: 'site/docs/b.md', data: '# B\n' },
      { name: 'site/docs/draft.md', data: '# draft\n' },
      { name: 'site/build/out.md', data: '# generated\n' },
      { name: 'site/data.toml', data: 'a = 1\n' },
      { name: 'site/bad.toml', data: 'a = = 1\n' },
      { name: 'site/img.bin', data: new Uint8Array([0, 1, 2]) },
      { name: 'site/.abstract.md', data: 'forged sidecar' },
    ]);
    const res = await add({ temp_file_id: await upload(t, alice, zip, 'site.zip'), exclude: 'draft.md', ignore_dirs: 'build', wait: true });
    expect(res.status, res.text).toBe(200);
    const r = res.json().result;
    expect(r.root_uri).toBe('ctx://resources/site');
    expect(r.filtered).toBe(2);
    expect(r.skipped).toEqual([
      { path: 'bad.toml', reason: expect.stringMatching(/^not valid TOML/) },
      { path: 'img.bin', reason: 'binary content (not UTF-8 text)' },
    ]);
    expect((await ls('ctx://resources/site')).sort()).toEqual([
      'ctx://resources/site/data.toml',
      'ctx://resources/site/docs',
      'ctx://resources/site/docs/a.md',
      'ctx://resources/site/docs/b.md',
      'ctx://resources/site/index.md',
    ]);
    expect(await read('ctx://resources/site/index.md')).toContain('kookaburra');
    const only = await add({ temp_file_id: await upload(t, alice, zip, 'site.zip'), include: 'docs/*.md', exclude: '**/draft.md', wait: true });
    expect((await ls(only.json().result.root_uri)).filter((u) => u.endsWith('.md')).map((u) => u.split('/').slice(-2).join('/'))).toEqual(['docs/a.md', 'docs/b.md']);
  });

  const hostile: Array<[string, () => Buffer, RegExp]> = [
    ['zip slip', () => makeZip([{ name: 'ok.md', data: 'x' }, { name: '../../etc/evil.md', data: 'x' }]), /zip slip/],
    ['an absolute path', () => makeZip([{ name: '/etc/evil.md', data: 'x' }]), /absolute entry path/],
    ['a symbolic link', () => makeZip([{ name: 'ok.md', data: 'x' }, { name: 'link', data: '/etc/passwd', mode: 0o120777 }]), /symbolic link/],
    ['duplicate names', () => makeZip([{ name: 'a.md', data: 'x' }, { name: 'a.md', data: 'y' }]), /duplicate entry name/],
    ['duplicate names after normalization', () => makeZip([{ name: 'caf\u00e9.md', data: 'x' }, { name: 'cafe\u0301.md', data: 'y' }]), /duplicate entry name/],
    ['a file used as a directory', () => makeZip([{ name: 'a', data: 'x' }, { name: 'a/b.md', data: 'y' }]), /both a file and a directory/],
    ['a compression-ratio bomb', () => makeZip([{ name: 'bomb.txt', data: new Uint8Array(4 << 20).fill(0x61) }]), /above the 200:1 limit/],
    [
      'an entry declaring more than the size limit',
      () => {
        const z = makeZip([{ name: 'big.txt', data: 'small' }]);
        z.writeUInt32LE(40 << 20, centralRecords(z)[0]! + 24);
        return z;
      },
      /larger than 33554432 bytes/,
    ],
    [
      'an entry inflating past its declared size',
      () => {
        const z = makeZip([{ name: 'liar.txt', data: 'a'.repeat(5000) }]);
        z.writeUInt32LE(10, centralRecords(z)[0]! + 24);
        return z;
      },
      /inflates past its declared size/,
    ],
    ['a truncated archive', () => makeZip([{ name: 'a.md', data: 'x' }]).subarray(0, 40), /end-of-central-directory/],
  ];
  for (const [name, build, message] of hostile)
    it(`refuses ${name} with a clear error, writing nothing`, async () => {
      const before = await roots();
      const res = await add({ temp_file_id: await upload(t, alice, build(), 'evil.zip'), wait: true });
      expect(res.status, res.text).toBe(400);
      expect(res.json().error.message).toMatch(/^invalid zip archive: /);
      expect(res.json().error.message).toMatch(message);
      expect(await roots()).toEqual(before);
    });
});

describe('git repositories over smart HTTP (git http-backend)', () => {
  it('clones a repository through the stages queued → fetching → parsing → finalizing → processing_queue; symlinks and binaries skipped; findable', async () => {
    const res = await add({ path: `${gitServer.url}/wildlife.git`, ignore_dirs: 'node_modules', reason: 'code to read' });
    expect(res.status, res.text).toBe(200);
    expect(res.json().result).toMatchObject({ root_uri: 'ctx://resources/wildlife', source_type: 'git', source: `${gitServer.url}/wildlife.git` });
    const task = await waitTask(res.json().result.task_id);
    expect(task.status, task.error).toBe('completed');
    expect(task.stage).toBe('processing_queue');
    const stages = task.result.execution_events.items.filter((e: { kind: string }) => e.kind === 'stage_changed').map((e: { stage: string }) => e.stage);
    expect(['queued', ...stages]).toEqual(['queued', 'fetching', 'parsing', 'finalizing', 'processing_queue']);
    expect(task.result.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(task.result.ref).toBe('main');
    expect(task.result.skipped).toEqual(expect.arrayContaining([{ path: 'link-to-readme', reason: 'a symbolic link' }, { path: 'assets/logo.png', reason: 'not a valid PNG file' }]));
    expect((await ls('ctx://resources/wildlife')).filter((u) => !u.endsWith('/src') && !u.endsWith('/util') && !u.endsWith('/notes')).sort()).toEqual([
      'ctx://resources/wildlife/README.md',
      'ctx://resources/wildlife/config.yaml',
      'ctx://resources/wildlife/notes/todo.txt',
      'ctx://resources/wildlife/src/index.ts',
      'ctx://resources/wildlife/src/util/helpers.py',
    ]);
    expect(await read('ctx://resources/wildlife/src/index.ts')).toContain('venomous spur');
    const info = (await get('/api/v1/resources/info?uri=ctx://resources/wildlife')).json().result;
    expect(info).toMatchObject({ source_type: 'git', reason: 'code to read', commit: task.result.commit });
    const find = await t.req({ method: 'POST', url: '/api/v1/search/find', headers: alice, body: { query: 'platypus bill electroreception', target_uri: 'ctx://resources/wildlife' } });
    expect(find.json().result.resources.length).toBeGreaterThan(0);
  });

  it('a private repository needs args.auth_config; credentials are used and never returned, stored in the task or shown', async () => {
    const before = await roots();
    const none = await add({ path: `${privateGit.url}/secret.git`, wait: true });
    expect(none.status).toBe(400);
    expect(none.json().error.message).toMatch(/authentication failed \(the repository needs credentials/);
    const wrong = await add({ path: `${privateGit.url}/secret.git`, args: { auth_config: { username: 'oauth2', token: 'wrong-token-value' } }, wait: true });
    expect(wrong.status).toBe(400);
    expect(wrong.text).not.toContain('wrong-token-value');
    expect(await roots()).toEqual(before);
    const ok = await add({ path: `${privateGit.url}/secret.git`, args: { auth_config: { token: TOKEN } }, wait: true });
    expect(ok.status, ok.text).toBe(200);
    expect(await read('ctx://resources/secret/plan.md')).toContain('dingoes');
    const inUrl = await add({ path: `http://oauth2:${TOKEN}@${privateGit.url.slice(7)}/secret.git`, wait: true });
    expect(inUrl.status, inUrl.text).toBe(200);
    expect(inUrl.json().result.source).toBe(`${privateGit.url}/secret.git`);
    for (const r of [ok, inUrl]) {
      expect(r.text).not.toContain(TOKEN);
      const task = await get(`/api/v1/tasks/${r.json().result.task_id}?include_events=true`);
      expect(task.text).not.toContain(TOKEN);
    }
    expect((await get('/api/v1/tasks?task_type=add_resource&limit=200')).text).not.toContain(TOKEN);
    expect((await get('/api/v1/resources/info?uri=ctx://resources/secret')).text).not.toContain(TOKEN);
  });

  it('re-adding a repository to its root after new commits: changed files replaced, deleted ones removed, the index consistent', async () => {
    const bare = makeRepo(gitRoot, 'evolving', { 'a.md': '# A\n\nfirst version about wallabies\n', 'b.md': '# B\n\nto be deleted\n', 'keep/c.md': '# C\n' });
    const first = await add({ path: `${gitServer.url}/evolving.git`, to: 'ctx://resources/evolving', wait: true });
    expect(first.status, first.text).toBe(200);
    commitTo(bare, { 'a.md': '# A\n\nsecond version about pademelons\n', 'new/d.md': '# D\n' }, ['b.md']);
    const second = await add({ path: `${gitServer.url}/evolving.git`, to: 'ctx://resources/evolving', wait: true });
    expect(second.status, second.text).toBe(200);
    expect(second.json().result.commit).not.toBe(first.json().result.commit);
    expect(second.json().result.removed).toBe(1);
    expect((await ls('ctx://resources/evolving')).filter((u) => u.endsWith('.md')).sort()).toEqual([
      'ctx://resources/evolving/a.md',
      'ctx://resources/evolving/keep/c.md',
      'ctx://resources/evolving/new/d.md',
    ]);
    expect(await read('ctx://resources/evolving/a.md')).toContain('pademelons');
    const consistency = await t.req({ method: 'POST', url: '/api/v1/system/consistency', headers: alice, body: { uri: 'ctx://resources/evolving' } });
    expect(consistency.json().result).toMatchObject({ ok: true, missing_record_count: 0 });
    const find = await t.req({ method: 'POST', url: '/api/v1/search/find', headers: alice, body: { query: 'to be deleted', target_uri: 'ctx://resources/evolving' } });
    expect(find.json().result.resources.every((h: { uri: string }) => !h.uri.endsWith('/b.md'))).toBe(true);
  });

  it('a missing repository or branch fails clearly', async () => {
    const missing = await add({ path: `${gitServer.url}/nothing.git`, wait: true });
    expect(missing.status).toBe(400);
    expect(missing.json().error.message).toMatch(/cloning .*nothing\.git failed/);
    const branch = await add({ path: `${gitServer.url}/wildlife.git`, args: { ref: 'no-such-branch' }, wait: true });
    expect(branch.status).toBe(400);
  });
});
