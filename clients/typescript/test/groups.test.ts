/** Every SDK group against a real server over HTTP: happy paths and the typed error mapping. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CtxApiError, CtxClient, CtxConnectionError } from 'ctx-client';
import { ROOT_KEY, startLiveServer, type LiveServer } from './server.js';

let s: LiveServer;
let alice: CtxClient;
let root: CtxClient;

beforeAll(async () => {
  s = await startLiveServer();
  alice = new CtxClient({ url: s.url, apiKey: s.aliceKey });
  root = new CtxClient({ url: s.url, apiKey: ROOT_KEY });
});
afterAll(() => s.close());

describe('fs and content', () => {
  it('mkdir, write, ls, tree, stat, the three levels, tags, mv, rm', async () => {
    expect(await alice.fs.mkdir({ uri: 'ctx://resources/notes', description: 'team notes' })).toEqual({ uri: 'ctx://resources/notes' });
    await alice.content.write({ uri: 'ctx://resources/notes/a.md', content: '# Alpha\n\nThe zebra migration plan.', mode: 'replace', wait: true });
    const ls = await alice.fs.ls({ uri: 'ctx://resources/notes' });
    expect(ls).toEqual([expect.objectContaining({ name: 'a.md', isDir: false })]);
    expect(await alice.fs.tree({ uri: 'ctx://resources' })).toEqual(expect.arrayContaining([expect.objectContaining({ uri: 'ctx://resources/notes/a.md' })]));
    expect(await alice.fs.stat({ uri: 'ctx://resources/notes/a.md' })).toMatchObject({ isDir: false, name: 'a.md' });
    expect(await alice.content.read({ uri: 'ctx://resources/notes/a.md' })).toContain('zebra migration');
    expect(typeof (await alice.content.abstract({ uri: 'ctx://resources/notes' }))).toBe('string');
    expect(typeof (await alice.content.overview({ uri: 'ctx://resources/notes' }))).toBe('string');
    await alice.fs.setTags({ uri: 'ctx://resources/notes/a.md', tags: ['team=x'] });
    expect(await alice.fs.attrs({ uri: 'ctx://resources/notes/a.md' })).toMatchObject({ attrs: { tags: ['team=x'] } });
    const dl = await alice.content.download('ctx://resources/notes/a.md');
    expect(await new Response(dl.stream).text()).toContain('Alpha');
    expect(await alice.fs.mv({ from_uri: 'ctx://resources/notes/a.md', to_uri: 'ctx://resources/notes/b.md' })).toEqual({ from: 'ctx://resources/notes/a.md', to: 'ctx://resources/notes/b.md' });
    await alice.content.write({ uri: 'ctx://resources/notes/gone.md', content: 'x', mode: 'replace' });
    expect(await alice.fs.rm({ uri: 'ctx://resources/notes/gone.md' })).toMatchObject({ uri: 'ctx://resources/notes/gone.md' });
  });

  it('maps error envelopes to CtxApiError with code, status, details and the request id', async () => {
    const err = await alice.fs.stat({ uri: 'ctx://resources/nope.md' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CtxApiError);
    expect(err).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect((err as CtxApiError).requestId).toMatch(/\S+/);
    const bad = await alice.fs.ls({ uri: 'ctx://temp/x' }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: 'INVALID_URI', status: 400 });
    const anon = await new CtxClient({ url: s.url }).fs.ls({ uri: 'ctx://resources' }).catch((e: unknown) => e);
    expect(anon).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
    const unknownField = await alice.fs.mkdir({ uri: 'ctx://resources/z', nope: 1 } as never).catch((e: unknown) => e);
    expect(unknownField).toMatchObject({ code: 'INVALID_ARGUMENT', status: 400 });
  });

  it('a server that is not there is a CtxConnectionError, not an API error', async () => {
    const c = new CtxClient({ url: 'http://127.0.0.1:9', retry: { retries: 0 } });
    await expect(c.system.status()).rejects.toBeInstanceOf(CtxConnectionError);
  });
});

describe('search, code and relations', () => {
  beforeAll(async () => {
    await alice.content.write({ uri: 'ctx://resources/code/util.py', content: 'def parse_config(path):\n    """Reads the zebra config."""\n    return open(path).read()\n', mode: 'replace', wait: true });
    await alice.system.wait({ timeout: 20 });
  });

  it('find, search, grep, glob', async () => {
    const found = await alice.search.find({ query: 'zebra migration', target_uri: 'ctx://resources' });
    expect(found.resources.map((r) => r.uri)).toContain('ctx://resources/notes/b.md');
    const searched = await alice.search.search({ query: 'zebra', target_uri: 'ctx://resources' });
    expect(searched.total).toBeGreaterThan(0);
    const grep = await alice.search.grep({ uri: 'ctx://resources', pattern: 'zebra' });
    expect(JSON.stringify(grep)).toContain('util.py');
    const glob = await alice.search.glob({ uri: 'ctx://resources', pattern: '**/*.py' });
    expect(JSON.stringify(glob)).toContain('ctx://resources/code/util.py');
  });

  it('code outline, search and expand', async () => {
    const outline = await alice.code.outline({ uri: 'ctx://resources/code/util.py' });
    expect(JSON.stringify(outline)).toContain('parse_config');
    expect(JSON.stringify(await alice.code.search({ uri: 'ctx://resources/code', query: 'parse_config' }))).toContain('parse_config');
    expect(JSON.stringify(await alice.code.expand({ uri: 'ctx://resources/code/util.py', symbol: 'parse_config' }))).toContain('zebra config');
  });

  it('link, list, unlink', async () => {
    await alice.relations.link({ from_uri: 'ctx://resources/notes/b.md', to_uris: ['ctx://resources/code/util.py'], reason: 'config' });
    expect(JSON.stringify(await alice.relations.list({ uri: 'ctx://resources/notes/b.md' }))).toContain('util.py');
    await alice.relations.unlink({ from_uri: 'ctx://resources/notes/b.md', to_uri: 'ctx://resources/code/util.py' });
    expect(JSON.stringify(await alice.relations.list({ uri: 'ctx://resources/notes/b.md' }))).not.toContain('util.py');
  });
});

describe('sessions, skills, snapshots, privacy, watches, tasks', () => {
  it('a session: create, add messages, show, commit and wait for the task', async () => {
    const created = await alice.sessions.create({ session_id: 'chat-1' });
    expect(created).toMatchObject({ session_id: 'chat-1' });
    await alice.sessions.addMessage('chat-1', { role: 'user', content: 'I prefer tea over coffee.' });
    await alice.sessions.addMessages('chat-1', { messages: [{ role: 'assistant', content: 'Noted.' }] });
    expect(await alice.sessions.get('chat-1')).toMatchObject({ session_id: 'chat-1' });
    expect(JSON.stringify(await alice.sessions.list())).toContain('chat-1');
    const commit = await alice.sessions.commit('chat-1');
    const progress: string[] = [];
    const task = await alice.waitForTask(commit.task_id!, { onProgress: (t) => progress.push(t.status), intervalMs: 50 });
    expect(task.status).toBe('completed');
    expect(progress.at(-1)).toBe('completed');
    expect((await alice.tasks.list({ task_type: 'session_commit' })).map((t) => t.task_id)).toContain(commit.task_id);
    const gone = await alice.tasks.cancel(commit.task_id!).catch((e: unknown) => e);
    expect(gone).toMatchObject({ code: 'FAILED_PRECONDITION', status: 412 });
  });

  it('skills: add, list, get, delete', async () => {
    const added = await alice.skills.add({ data: { name: 'tea-brewing', description: 'How to brew tea', content: '# Tea\n\nSteep 3 minutes.' }, wait: true });
    expect(added).toMatchObject({ name: 'tea-brewing' });
    expect(JSON.stringify(await alice.skills.list())).toContain('tea-brewing');
    expect(await alice.skills.get('tea-brewing')).toMatchObject({ name: 'tea-brewing' });
    await alice.skills.delete('tea-brewing');
    await expect(alice.skills.get('tea-brewing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('snapshots: commit, log, show', async () => {
    const c = await alice.snapshots.commit({ message: 'first', paths: ['ctx://resources'] });
    expect(c).toMatchObject({ result: 'created', commit_oid: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(JSON.stringify(await alice.snapshots.log())).toContain(c.commit_oid!);
    expect(JSON.stringify(await alice.snapshots.show({ target_ref: c.commit_oid! }))).toContain('first');
    await expect(alice.snapshots.commit({ message: 'all' })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });

  it('privacy: set, get, versions', async () => {
    await alice.privacy.set('llm', 'openai', { values: { org: 'acme' }, change_reason: 'initial' });
    expect(JSON.stringify(await alice.privacy.get('llm', 'openai'))).toContain('acme');
    expect(await alice.privacy.versions('llm', 'openai')).toEqual([1]);
    expect(JSON.stringify(await alice.privacy.version('llm', 'openai', 1))).toContain('initial');
    expect(JSON.stringify(await alice.privacy.list())).toContain('llm');
  });

  it('watches: list (empty) and a missing one', async () => {
    expect(await alice.watches.list()).toEqual(expect.anything());
    await expect(alice.watches.get('nope')).rejects.toMatchObject({ status: 404 });
  });
});

describe('packs, system, admin', () => {
  it('exports a pack as a stream and imports it elsewhere', async () => {
    const dl = await alice.packs.export({ uri: 'ctx://resources/notes' });
    const bytes = new Uint8Array(await new Response(dl.stream).arrayBuffer());
    expect(bytes[0]).toBe(0x50); // PK
    const res = await alice.packs.import(new Blob([bytes]), { parent: 'ctx://resources/copy' });
    expect(res).toEqual({ uri: 'ctx://resources/copy/notes' });
    expect(await alice.fs.stat({ uri: 'ctx://resources/copy/notes/b.md' })).toMatchObject({ isDir: false });
  });

  it('system and observers', async () => {
    expect(await alice.system.health()).toMatchObject({ status: 'ok', healthy: true });
    expect(await alice.system.status()).toMatchObject({ user: 'alice' });
    expect(await alice.system.observer.queue()).toMatchObject({ name: expect.any(String) });
    expect(await alice.system.consistency({ uri: 'ctx://resources/notes' })).toMatchObject({ ok: expect.any(Boolean) });
  });

  it('admin: accounts, users, roles, keys; a USER is refused', async () => {
    const acct = await root.admin.accounts.create({ account_id: 'globex', admin_user_id: 'gina' });
    expect(acct).toMatchObject({ account_id: 'globex', user_key: expect.any(String) });
    const user = await root.admin.users.create('globex', { user_id: 'gus', role: 'user' });
    expect(user).toMatchObject({ user_id: 'gus' });
    await root.admin.users.setRole('globex', 'gus', { role: 'admin' });
    expect(JSON.stringify(await root.admin.users.list('globex'))).toContain('gus');
    const key = await root.admin.users.rotateKey('globex', 'gus');
    expect(key.user_key).not.toBe(user.user_key);
    expect((await root.admin.accounts.list()).map((a: { account_id: string }) => a.account_id)).toContain('globex');
    await expect(alice.admin.accounts.list()).rejects.toMatchObject({ code: 'PERMISSION_DENIED', status: 403 });
    await root.admin.users.delete('globex', 'gus');
    await root.admin.accounts.delete('globex');
  });
});
