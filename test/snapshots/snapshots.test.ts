/**
 * Snapshots end to end through the request pipeline, checked against the real git CLI: every
 * repository must pass `git fsck --strict`, and `git log` / `git show` must see what the API says.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: Record<string, string>;
let alice: Record<string, string>;
let other: Record<string, string>;
const ACCOUNT = 'snap';
const gitdir = () => path.join(t.dir, 'snapshots', `${ACCOUNT}.git`);
const git = (...args: string[]) => execFileSync('git', ['--git-dir', gitdir(), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const fsck = () => execFileSync('git', ['--git-dir', gitdir(), 'fsck', '--strict', '--no-dangling'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

async function write(uri: string, content: string | Buffer, who = admin) {
  const res = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: who, body: { uri, content: content.toString() } });
  expect(res.status, res.text).toBe(200);
}
const vfsWrite = (p: string, data: Buffer | string) => t.app.vfs.writeFile(ACCOUNT, p, Buffer.from(data));
const read = async (p: string) => (await t.app.vfs.readFile(ACCOUNT, p)).toString();
const exists = async (p: string) => (await t.app.vfs.stat(ACCOUNT, p)) !== null;
const post = (url: string, body: unknown, who = admin) => t.req({ method: 'POST', url, headers: who, body });
const get = (url: string, who = admin) => t.req({ method: 'GET', url, headers: who });
const commit = async (body: Record<string, unknown>, who = admin) => {
  const res = await post('/api/v1/snapshot/commit', { message: 'm', ...body }, who);
  expect(res.status, res.text).toBe(200);
  return res.json().result;
};

beforeAll(async () => {
  t = await startTestApp();
  const a = await t.account(ACCOUNT, ['alice', 'bob']);
  admin = a.admin;
  alice = a.users.alice!;
  other = (await t.account('other')).admin;
});
afterAll(() => t.close());

describe('commit', () => {
  let first: string;

  it('commits the whole account tree as real git objects (git log, git fsck, git show)', async () => {
    await write('ctx://resources/docs/a.md', 'alpha\n');
    await write('ctx://resources/docs/b.md', 'beta\n');
    await write('ctx://user/alice/memories/m.md', 'memory of alice\n');
    // Names whose git order differs from JavaScript's string order, and non-ASCII ones.
    await vfsWrite('resources/order/a-b.md', 'x');
    await vfsWrite('resources/order/a.b', 'y');
    await vfsWrite('resources/order/a/inner.md', 'z');
    await vfsWrite('resources/order/é😀.md', 'unicode');
    await vfsWrite('resources/bin/blob.bin', Buffer.from([0, 1, 2, 255, 254]));
    const r = await commit({ message: 'first snapshot', author_name: 'Ada', author_email: 'ada@example.com' });
    expect(r.result).toBe('created');
    expect(r.commit_oid).toMatch(/^[0-9a-f]{40}$/);
    expect(r.ignored).toBe(0);
    const files = git('ls-tree', '-r', '--name-only', r.commit_oid).trim().split('\n');
    expect(r.changed).toBe(files.length);
    expect(files).toEqual(expect.arrayContaining(['resources/docs/a.md', 'user/alice/memories/m.md', 'resources/order/a/inner.md', 'resources/bin/blob.bin']));
    expect(git('log', '--format=%H %an <%ae> %s', 'main').trim()).toBe(`${r.commit_oid} Ada <ada@example.com> first snapshot`);
    expect(git('show', `${r.commit_oid}:resources/docs/a.md`)).toBe('alpha\n');
    expect(execFileSync('git', ['--git-dir', gitdir(), 'cat-file', 'blob', `${r.commit_oid}:resources/bin/blob.bin`])).toEqual(Buffer.from([0, 1, 2, 255, 254]));
    expect(git('rev-parse', '--is-bare-repository').trim()).toBe('true');
    fsck();
    first = r.commit_oid;
  });

  it('is a noop returning HEAD when nothing changed, and for paths=[]', async () => {
    expect(await commit({})).toEqual({ result: 'noop', commit_oid: first, ignored: 0 });
    expect(await commit({ paths: null })).toEqual({ result: 'noop', commit_oid: first, ignored: 0 });
    expect(await commit({ paths: [] })).toEqual({ result: 'noop', commit_oid: first, ignored: 0 });
  });

  it('a path absent from the file system and the previous snapshot is a no-op deletion', async () => {
    expect(await commit({ paths: ['ctx://resources/never/was.md'] })).toEqual({ result: 'noop', commit_oid: first, ignored: 0 });
  });

  it('commits listed paths only: other changes wait for their own commit', async () => {
    await write('ctx://resources/docs/a.md', 'alpha 2\n');
    await write('ctx://resources/docs/b.md', 'beta 2\n');
    const r = await commit({ paths: ['ctx://resources/docs/a.md'] });
    expect(r).toMatchObject({ result: 'created', changed: 1 });
    expect(git('show', `${r.commit_oid}:resources/docs/a.md`)).toBe('alpha 2\n');
    expect(git('show', `${r.commit_oid}:resources/docs/b.md`)).toBe('beta\n');
    expect(git('rev-parse', `${r.commit_oid}^`).trim()).toBe(first);
    // A directory path expands recursively, and a removed file counts as changed.
    await t.app.vfs.rm(ACCOUNT, 'resources/order/a.b');
    const r2 = await commit({ paths: ['ctx://resources/docs', 'ctx://resources/order'] });
    expect(r2).toMatchObject({ result: 'created', changed: 2 });
    expect(() => git('cat-file', '-e', `${r2.commit_oid}:resources/order/a.b`)).toThrow();
    // Unchanged subtrees are the same tree objects as before.
    expect(git('rev-parse', `${r2.commit_oid}:user`)).toBe(git('rev-parse', `${first}:user`));
    fsck();
  });

  it('.ctxgitignore excludes files and counts them; GET/PUT/DELETE', async () => {
    expect((await get('/api/v1/snapshot/ignore')).json().result).toEqual({ content: '', exists: false, rules: 0 });
    const put = await t.req({ method: 'PUT', url: '/api/v1/snapshot/ignore', headers: admin, body: { content: '# scratch\n*.tmp\nresources/cache/\n' } });
    expect(put.status, put.text).toBe(200);
    expect(put.json().result).toEqual({ content: '# scratch\n*.tmp\nresources/cache/\n', exists: true, rules: 2 });
    expect((await get('/api/v1/snapshot/ignore')).json().result.exists).toBe(true);
    await vfsWrite('resources/docs/x.tmp', 'scratch');
    await vfsWrite('resources/cache/c1.md', 'c');
    await vfsWrite('resources/cache/deep/c2.md', 'c');
    await vfsWrite('resources/docs/kept.md', 'kept');
    const r = await commit({});
    expect(r).toMatchObject({ result: 'created', changed: 1, ignored: 3 });
    const files = git('ls-tree', '-r', '--name-only', r.commit_oid);
    expect(files).toContain('resources/docs/kept.md');
    expect(files).not.toContain('x.tmp');
    expect(files).not.toContain('resources/cache');
    expect(await commit({})).toEqual({ result: 'noop', commit_oid: r.commit_oid, ignored: 3 });
    // A USER may read the rules but not change them.
    expect((await get('/api/v1/snapshot/ignore', alice)).status).toBe(200);
    expect((await t.req({ method: 'PUT', url: '/api/v1/snapshot/ignore', headers: alice, body: { content: '' } })).status).toBe(403);
    expect((await t.req({ method: 'PUT', url: '/api/v1/snapshot/ignore', headers: admin, body: { content: '', extra: 1 } })).status).toBe(400);
    const del = await t.req({ method: 'DELETE', url: '/api/v1/snapshot/ignore', headers: admin });
    expect(del.json().result).toEqual({ deleted: true });
    expect((await t.req({ method: 'DELETE', url: '/api/v1/snapshot/ignore', headers: admin })).json().result).toEqual({ deleted: false });
    const r2 = await commit({});
    expect(r2).toMatchObject({ result: 'created', changed: 3, ignored: 0 });
    fsck();
  });

  it('rejects bad bodies: missing message, unknown fields, bad branch, bad URIs, internal scopes', async () => {
    const bad = async (body: unknown, field?: string) => {
      const res = await post('/api/v1/snapshot/commit', body);
      expect(res.status, res.text).toBe(400);
      if (field) expect(res.json().error.details.field).toBe(field);
      return res.json().error;
    };
    await bad({}, 'message');
    await bad({ message: 'm', unknown: 1 });
    await bad({ message: 'm', branch: '../evil' }, 'branch');
    await bad({ message: 'm', branch: 'a..b' }, 'branch');
    await bad({ message: 'm', branch: '-x' }, 'branch');
    await bad({ message: 'm', author_name: 'a <b>' }, 'author_name');
    await bad({ message: 'm', paths: 'ctx://resources' }, 'paths');
    expect((await bad({ message: 'm', paths: ['http://x'] })).code).toBe('INVALID_URI');
    expect((await bad({ message: 'm', paths: ['ctx://temp/x'] })).code).toBe('INVALID_URI');
  });

  it('branches are independent lines of history', async () => {
    const r = await commit({ branch: 'feature/x', message: 'on a branch' });
    expect(r.result).toBe('created');
    expect(git('rev-parse', 'refs/heads/feature/x').trim()).toBe(r.commit_oid);
    const log = (await get('/api/v1/snapshot/log?branch=feature/x')).json().result;
    expect(log).toHaveLength(1);
    expect(log[0].parents).toEqual([]);
  });
});

describe('log', () => {
  it('lists commit metadata newest first along first parents', async () => {
    const res = await get('/api/v1/snapshot/log');
    expect(res.status).toBe(200);
    const log = res.json().result;
    const cli = git('log', '--first-parent', '--format=%H', 'main').trim().split('\n');
    expect(log.map((c: { oid: string }) => c.oid)).toEqual(cli);
    const c = log[log.length - 1];
    expect(Object.keys(c).sort()).toEqual(['author', 'committer', 'message', 'oid', 'parents', 'tree']);
    expect(c.author).toEqual({ name: 'Ada', email: 'ada@example.com', time_seconds: expect.any(Number), tz_offset_seconds: 0 });
    expect(c.message).toBe('first snapshot');
    expect(c.tree).toBe(git('rev-parse', `${c.oid}^{tree}`).trim());
    expect(Math.abs(c.committer.time_seconds - Date.now() / 1000)).toBeLessThan(600);
    // The default author is the caller.
    expect(log[0].author.name).toBe('admin');
  });

  it('clamps limit to 1-500 and defaults to 20', async () => {
    for (let i = 0; i < 22; i++) {
      await vfsWrite('resources/counter.md', String(i));
      await commit({ paths: ['ctx://resources/counter.md'] });
    }
    expect((await get('/api/v1/snapshot/log')).json().result).toHaveLength(20);
    expect((await get('/api/v1/snapshot/log?limit=0')).json().result).toHaveLength(1);
    expect((await get('/api/v1/snapshot/log?limit=-5')).json().result).toHaveLength(1);
    const all = Number(git('rev-list', '--count', '--first-parent', 'main').trim());
    expect((await get('/api/v1/snapshot/log?limit=100000')).json().result).toHaveLength(Math.min(all, 500));
    expect((await get('/api/v1/snapshot/log?limit=abc')).status).toBe(400);
  });

  it('404 NOT_FOUND for a branch without commits, and for an account without a repository', async () => {
    const res = await get('/api/v1/snapshot/log?branch=nothing');
    expect(res.status).toBe(404);
    expect(res.json().error.code).toBe('NOT_FOUND');
    expect((await get('/api/v1/snapshot/log', other)).status).toBe(404);
    expect(fs.existsSync(path.join(t.dir, 'snapshots', 'other.git'))).toBe(false);
  });
});

describe('show', () => {
  it('resolves full OIDs, abbreviated prefixes, branches, lightweight and annotated tags', async () => {
    const head = git('rev-parse', 'main').trim();
    const byOid = (await get(`/api/v1/snapshot/show?target_ref=${head}`)).json().result;
    expect(byOid.oid).toBe(head);
    for (const ref of [head.slice(0, 7), head.slice(0, 4), 'main', 'refs/heads/main']) {
      const res = await get(`/api/v1/snapshot/show?target_ref=${encodeURIComponent(ref)}`);
      expect(res.status, ref).toBe(200);
      expect(res.json().result).toEqual(byOid);
    }
    const first = git('rev-list', '--max-parents=0', 'main').trim();
    git('tag', 'v1', first);
    execFileSync('git', ['--git-dir', gitdir(), '-c', 'user.name=t', '-c', 'user.email=t@t', 'tag', '-a', '-m', 'annotated', 'v1-annotated', first]);
    expect((await get('/api/v1/snapshot/show?target_ref=v1')).json().result.oid).toBe(first);
    expect((await get('/api/v1/snapshot/show?target_ref=v1-annotated')).json().result.oid).toBe(first);
    fsck();
  });

  it('with path: the raw bytes with X-Snapshot-Oid and X-Snapshot-Size', async () => {
    const first = git('rev-list', '--max-parents=0', 'main').trim();
    const res = await get(`/api/v1/snapshot/show?target_ref=${first}&path=${encodeURIComponent('ctx://resources/bin/blob.bin')}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.body).toEqual(Buffer.from([0, 1, 2, 255, 254]));
    expect(res.headers['x-snapshot-oid']).toBe(git('rev-parse', `${first}:resources/bin/blob.bin`).trim());
    expect(res.headers['x-snapshot-size']).toBe('5');
    const old = await get(`/api/v1/snapshot/show?target_ref=${first}&path=${encodeURIComponent('ctx://resources/docs/a.md')}`);
    expect(old.text).toBe('alpha\n');
  });

  it('answers 404 for unknown refs, paths not in the commit; 400 for directories, trees and bad refs', async () => {
    const first = git('rev-list', '--max-parents=0', 'main').trim();
    const code = async (q: string, status: number, who = admin) => {
      const res = await get(`/api/v1/snapshot/show?${q}`, who);
      expect(res.status, `${q}: ${res.text}`).toBe(status);
    };
    await code('target_ref=nope', 404);
    await code(`target_ref=${'0'.repeat(40)}`, 404);
    await code('target_ref=deadbeef', 404);
    await code(`target_ref=${first}&path=${encodeURIComponent('ctx://resources/missing.md')}`, 404);
    await code(`target_ref=${first}&path=${encodeURIComponent('ctx://resources/docs')}`, 400);
    await code(`target_ref=${git('rev-parse', `${first}^{tree}`).trim()}`, 400);
    await code('target_ref=a~1', 400);
    await code('', 400);
    // Another account has no repository, and cannot name this one's commits.
    await code(`target_ref=${first}`, 404, other);
  });
});

describe('access', () => {
  it('a USER commits only paths they can read; the whole tree needs ADMIN or ROOT', async () => {
    const denied = async (body: Record<string, unknown>, url = '/api/v1/snapshot/commit') => {
      const res = await post(url, { message: 'm', ...body }, alice);
      expect(res.status, res.text).toBe(403);
      expect(res.json().error.code).toBe('PERMISSION_DENIED');
    };
    await write('ctx://user/bob/memories/secret.md', 'bob only\n');
    await denied({});
    await denied({ paths: null });
    await denied({ paths: ['ctx://user/bob/memories'] });
    await denied({ paths: ['ctx://'] });
    await write('ctx://user/alice/memories/m2.md', 'second memory\n', alice);
    const r = await commit({ paths: ['ctx://~/memories'] }, alice);
    expect(r).toMatchObject({ result: 'created', changed: 1 });
    expect(git('log', '-1', '--format=%an', 'main').trim()).toBe('alice');
  });

  it('a USER may not snapshot or restore a subtree holding an entry hidden from them', async () => {
    await write('ctx://resources/team/open.md', 'open\n');
    await write('ctx://resources/team/closed/plan.md', 'closed plan\n');
    await t.app.vfs.setMeta(ACCOUNT, 'resources/team/closed', { meta: { read_access: { users: ['bob'] } } });
    for (const body of [{ paths: ['ctx://resources/team'] }, { paths: ['ctx://resources/team/closed/plan.md'] }]) {
      const res = await post('/api/v1/snapshot/commit', { message: 'm', ...body }, alice);
      expect(res.status, res.text).toBe(403);
    }
    expect((await commit({ paths: ['ctx://resources/team/open.md'] }, alice)).result).toBe('created');
    const head = (await commit({ paths: ['ctx://resources/team'] })).commit_oid;
    const show = await get(`/api/v1/snapshot/show?target_ref=${head}&path=${encodeURIComponent('ctx://resources/team/closed/plan.md')}`, alice);
    expect(show.status).toBe(403);
    const restore = await post('/api/v1/snapshot/restore', { source_commit: head, project_dir: 'ctx://resources/team', dry_run: true }, alice);
    expect(restore.status).toBe(403);
  });

  it('a USER cannot show a file of another user’s space, nor restore outside what they can write', async () => {
    await commit({ paths: ['ctx://user/bob'] });
    const head = git('rev-parse', 'main').trim();
    const res = await get(`/api/v1/snapshot/show?target_ref=${head}&path=${encodeURIComponent('ctx://user/bob/memories/secret.md')}`, alice);
    expect(res.status).toBe(403);
    expect(res.text).not.toContain('bob only');
    const own = await get(`/api/v1/snapshot/show?target_ref=${head}&path=${encodeURIComponent('ctx://~/memories/m2.md')}`, alice);
    expect(own.text).toBe('second memory\n');
    for (const body of [{ source_commit: head }, { source_commit: head, project_dir: 'ctx://user/bob' }]) {
      const r = await post('/api/v1/snapshot/restore', body, alice);
      expect(r.status, r.text).toBe(403);
    }
  });
});

describe('restore', () => {
  let base: string;

  it('dry_run lists the diff relative to project_dir and changes nothing', async () => {
    await write('ctx://resources/proj/keep.md', 'keep v1\n');
    await write('ctx://resources/proj/change.md', 'change v1\n');
    await write('ctx://resources/proj/sub/gone.md', 'gone v1\n');
    await write('ctx://resources/outside.md', 'outside v1\n');
    base = (await commit({ message: 'base' })).commit_oid;
    await write('ctx://resources/proj/change.md', 'change v2\n');
    await t.app.vfs.rm(ACCOUNT, 'resources/proj/sub', { recursive: true });
    await write('ctx://resources/proj/new.md', 'new v2\n');
    await write('ctx://resources/outside.md', 'outside v2\n');
    const head = (await commit({ message: 'v2' })).commit_oid;
    const res = await post('/api/v1/snapshot/restore', { source_commit: base, project_dir: 'ctx://resources/proj', dry_run: true });
    expect(res.status, res.text).toBe(200);
    const r = res.json().result;
    expect(r.result).toBe('dry_run');
    expect(r.head).toBe(head);
    expect(r.source).toBe(base);
    expect(r.diff.to_write).toEqual([
      { path: 'change.md', oid: git('rev-parse', `${base}:resources/proj/change.md`).trim() },
      { path: 'sub/gone.md', oid: git('rev-parse', `${base}:resources/proj/sub/gone.md`).trim() },
    ]);
    expect(r.diff.to_delete).toEqual(['new.md']);
    expect(r.diff.unchanged).toEqual(['keep.md']);
    expect(await read('resources/proj/change.md')).toBe('change v2\n');
    expect(git('rev-parse', 'main').trim()).toBe(head);
  });

  it('applies as a forward commit whose parent is the pre-restore HEAD, leaving the rest untouched', async () => {
    const head = git('rev-parse', 'main').trim();
    const res = await post('/api/v1/snapshot/restore', { source_commit: base.slice(0, 10), project_dir: 'ctx://resources/proj', message: 'roll back proj' });
    expect(res.status, res.text).toBe(200);
    const r = res.json().result;
    expect(r).toMatchObject({ result: 'applied', source_commit: base, parent_commit: head, written: 2, deleted: 1, unchanged: 1 });
    expect(r.written_paths).toEqual(['change.md', 'sub/gone.md']);
    expect(r.deleted_paths).toEqual(['new.md']);
    // The indexer refreshes what the restore wrote; the task follows it to the end.
    expect(r.task_id).toEqual(expect.any(String));
    let task;
    for (let i = 0; i < 200; i++) {
      task = (await get(`/api/v1/tasks/${r.task_id}`)).json().result;
      if (task.status === 'completed' || task.status === 'failed') break;
      await new Promise((ok) => setTimeout(ok, 25));
    }
    expect(task).toMatchObject({ task_type: 'snapshot_restore_reindex', status: 'completed', resource_id: 'ctx://resources/proj' });
    expect(await read('resources/proj/change.md')).toBe('change v1\n');
    expect(await read('resources/proj/sub/gone.md')).toBe('gone v1\n');
    expect(await exists('resources/proj/new.md')).toBe(false);
    expect(await read('resources/outside.md')).toBe('outside v2\n');
    expect(git('rev-parse', 'main').trim()).toBe(r.new_commit_oid);
    expect(git('rev-parse', `${r.new_commit_oid}^`).trim()).toBe(head);
    expect(git('log', '-1', '--format=%s', 'main').trim()).toBe('roll back proj');
    expect(git('rev-parse', `${r.new_commit_oid}:resources/proj`)).toBe(git('rev-parse', `${base}:resources/proj`));
    expect(git('show', `${r.new_commit_oid}:resources/outside.md`)).toBe('outside v2\n');
    fsck();
    // Restoring the same state again changes nothing.
    const again = (await post('/api/v1/snapshot/restore', { source_commit: base, project_dir: 'ctx://resources/proj' })).json().result;
    expect(again).toEqual({ result: 'noop', head: r.new_commit_oid, source: base });
  });

  it('restores the whole account tree byte for byte (commit -> restore round trip)', async () => {
    const first = git('rev-list', '--max-parents=0', 'main').trim();
    const res = await post('/api/v1/snapshot/restore', { source_commit: first });
    expect(res.status, res.text).toBe(200);
    const r = res.json().result;
    expect(r.result).toBe('applied');
    expect(git('rev-parse', `${r.new_commit_oid}^{tree}`)).toBe(git('rev-parse', `${first}^{tree}`));
    // The live tree now hashes to the restored snapshot: a new commit is a noop.
    expect((await commit({})).result).toBe('noop');
    expect(await read('resources/docs/a.md')).toBe('alpha\n');
    expect((await t.app.vfs.readFile(ACCOUNT, 'resources/bin/blob.bin')).equals(Buffer.from([0, 1, 2, 255, 254]))).toBe(true);
    expect(await exists('resources/proj')).toBe(false);
    expect(await exists('resources/outside.md')).toBe(false);
    fsck();
  });

  it('rejects unknown commits (404), unknown fields and bad URIs (400)', async () => {
    expect((await post('/api/v1/snapshot/restore', { source_commit: 'nope' })).status).toBe(404);
    expect((await post('/api/v1/snapshot/restore', { source_commit: 'main', extra: true })).status).toBe(400);
    expect((await post('/api/v1/snapshot/restore', { source_commit: 'main', project_dir: 'resources/x' })).status).toBe(400);
    expect((await post('/api/v1/snapshot/restore', { source_commit: 'main' }, other)).status).toBe(404);
  });
});

describe('incremental whole-tree commits', () => {
  it('read only what changed, and agree with a full read after a restart', async () => {
    const t2 = await startTestApp();
    try {
      const { admin: a } = await t2.account('inc');
      const dir = path.join(t2.dir, 'snapshots', 'inc.git');
      const g = (...args: string[]) => execFileSync('git', ['--git-dir', dir, ...args], { encoding: 'utf8' });
      const commit2 = async (body: Record<string, unknown> = {}) => {
        const res = await t2.req({ method: 'POST', url: '/api/v1/snapshot/commit', headers: a, body: { message: 'm', ...body } });
        expect(res.status, res.text).toBe(200);
        return res.json().result;
      };
      const w = (p: string, c: string) => t2.app.vfs.writeFile('inc', p, Buffer.from(c));
      for (let i = 0; i < 30; i++) await w(`resources/r/d${i % 5}/f${i}.md`, `v1 ${i}`);
      await w('resources/r/x', 'a file that becomes a directory');
      expect((await commit2()).changed).toBe(31);
      // Every kind of change: write, replace, rm of a directory, mv, a file turned into a directory,
      // an ignored file, a file the ignore rules no longer match.
      await w('resources/r/d0/f0.md', 'v2');
      await w('resources/r/new/n.md', 'new');
      await t2.app.vfs.rm('inc', 'resources/r/d1', { recursive: true });
      await t2.app.vfs.mv('inc', 'resources/r/d2', 'resources/r/moved');
      await t2.app.vfs.rm('inc', 'resources/r/x');
      await w('resources/r/x/inside.md', 'now a directory');
      const r = await commit2();
      expect(r).toMatchObject({ result: 'created', changed: 1 + 1 + 6 + 6 + 6 + 1 + 1 });
      expect(g('ls-tree', '-r', '--name-only', 'main')).not.toContain('resources/r/d1/');
      execFileSync('git', ['--git-dir', dir, 'fsck', '--strict', '--no-dangling']);
      await t2.req({ method: 'PUT', url: '/api/v1/snapshot/ignore', headers: a, body: { content: '*.tmp\n' } });
      await w('resources/r/scratch.tmp', 'ignored');
      const r2 = await commit2();
      expect(r2).toMatchObject({ result: 'noop', ignored: 1 });
      await w('resources/r/d3/f3.md', 'v3');
      const r3 = await commit2();
      expect(r3).toMatchObject({ result: 'created', changed: 1, ignored: 1 });
      // A restart forgets what changed: the full read must find the tree the incremental ones built.
      await t2.restart();
      expect(await commit2()).toEqual({ result: 'noop', commit_oid: r3.commit_oid, ignored: 1 });
      const live: string[] = [];
      for await (const e of t2.app.vfs.walk('inc', 'resources'))
        if (e.kind === 'file' && !e.name.startsWith('.') && !e.name.endsWith('.tmp')) live.push(e.path);
      expect(g('ls-tree', '-r', '--name-only', 'main').trim().split('\n').sort()).toEqual(live.sort());
    } finally {
      await t2.close();
    }
  });
});

describe('restore refusals', () => {
  it('a kept (ignored) file where the snapshot needs a directory is a 409 before any change', async () => {
    const t2 = await startTestApp();
    try {
      const { admin: a } = await t2.account('clash');
      const w = (p: string, c: string) => t2.app.vfs.writeFile('clash', p, Buffer.from(c));
      await w('resources/q/a/b.md', 'in a directory');
      await w('resources/q/other.md', 'v1');
      const base = (await t2.req({ method: 'POST', url: '/api/v1/snapshot/commit', headers: a, body: { message: 'm' } })).json().result.commit_oid;
      await t2.app.vfs.rm('clash', 'resources/q/a', { recursive: true });
      await w('resources/q/a', 'now an ignored file');
      await w('resources/q/other.md', 'v2');
      await t2.req({ method: 'PUT', url: '/api/v1/snapshot/ignore', headers: a, body: { content: 'resources/q/a\n' } });
      const res = await t2.req({ method: 'POST', url: '/api/v1/snapshot/restore', headers: a, body: { source_commit: base } });
      expect(res.status, res.text).toBe(409);
      expect(res.json().error.details.resource).toBe('ctx://resources/q/a');
      expect((await t2.app.vfs.readFile('clash', 'resources/q/other.md')).toString()).toBe('v2');
      expect((await t2.app.vfs.readFile('clash', 'resources/q/a')).toString()).toBe('now an ignored file');
    } finally {
      await t2.close();
    }
  });
});

describe('account deletion', () => {
  it('removes the account’s repository and cached blob ids', async () => {
    const t2 = await startTestApp();
    try {
      const { admin: a } = await t2.account('gone');
      await t2.req({ method: 'POST', url: '/api/v1/content/write', headers: a, body: { uri: 'ctx://resources/x.md', content: 'x' } });
      expect((await t2.req({ method: 'POST', url: '/api/v1/snapshot/commit', headers: a, body: { message: 'm' } })).status).toBe(200);
      const dir = path.join(t2.dir, 'snapshots', 'gone.git');
      expect(fs.existsSync(dir)).toBe(true);
      expect((await t2.req({ method: 'DELETE', url: '/api/v1/admin/accounts/gone', headers: t2.root })).status).toBe(200);
      await t2.restart(); // waits for account-deleted handlers
      expect(fs.existsSync(dir)).toBe(false);
      // A new account of the same name starts from nothing.
      const { admin: b } = await t2.account('gone');
      expect((await t2.req({ method: 'GET', url: '/api/v1/snapshot/log', headers: b })).status).toBe(404);
    } finally {
      await t2.close();
    }
  });
});

describe('a whole-account snapshot with directory sidecars in the user spaces', () => {
  it('commits them: the L0/L1 of user/<id>/skills, sessions and user/ itself are files of their directories', async () => {
    const who = (await t.account('sidecar-snap')).admin; // its ADMIN is user "admin"
    const sidecars = ['user/admin/skills/.abstract.md', 'user/admin/sessions/.overview.md', 'user/admin/.abstract.md', 'user/.abstract.md'];
    for (const p of sidecars) await t.app.vfs.writeFile('sidecar-snap', p, Buffer.from(`# ${p}\n`));
    await t.app.vfs.writeFile('sidecar-snap', 'user/admin/skills/deploy/SKILL.md', Buffer.from('---\nname: deploy\ndescription: d\n---\nsteps\n'));
    const res = await t.req({ method: 'POST', url: '/api/v1/snapshot/commit', headers: who, body: { message: 'all' } });
    expect(res.status, res.text).toBe(200);
    expect(res.json().result).toMatchObject({ result: 'created' });
  });
});
