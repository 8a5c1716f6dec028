import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { upload } from '../skills/zips.js';
import { commitTo, makeRepo, startGitServer, startStatic, type TestServer } from './servers.js';
import { pollUntil, sleep } from '../helpers/poll.js';

let t: TestApp;
let alice: Record<string, string>;
let bob: Record<string, string>;
let admin: Record<string, string>;
let web: TestServer;
let gitServer: TestServer;
let privateGit: TestServer;
let gitRoot: string;
let birds: string;
const TOKEN = 'tok-w4tch-0123456789abcdef';

const call = (method: string, url: string, body?: unknown, headers = alice) => t.req({ method, url, headers, body });
const qs = (o: Record<string, string>) => new URLSearchParams(o).toString();
const watchOf = async (id: string, headers = alice) => (await call('GET', `/api/v1/watches/${id}`, undefined, headers)).json().result;
const read = async (uri: string) => {
  const r = await call('GET', `/api/v1/content/read?${qs({ uri })}`);
  if (r.status !== 200) throw new Error(`read ${uri}: ${r.text}`);
  return r.json().result as string;
};
const exists = async (uri: string) => (await call('GET', `/api/v1/fs/stat?${qs({ uri })}`)).status === 200;
const until = <T>(what: string, fn: () => Promise<T | undefined | false>) => pollUntil(fn, { what, intervalMs: 50 }) as Promise<T>;

const taskDone = (taskId: string) =>
  until('the task', async () => ['completed', 'failed', 'cancelled'].includes((await call('GET', `/api/v1/tasks/${taskId}`)).json().result.status));

/** The watch once a run newer than `after` has its outcome recorded and its task has ended. */
const runAfter = async (id: string, after: string | null) => {
  const w = await until('a watch run', async () => {
    const x = await watchOf(id);
    return x.last_task_id && x.last_task_id !== after && x.last_status ? x : undefined;
  });
  await taskDone(w.last_task_id);
  // Read again: the new task id is set when the run starts, while last_status still tells of the
  // previous run; the run's own outcome is recorded before its task ends.
  return watchOf(id);
};

/** Back to a long interval, with any run the short one started finished. */
async function calm(id: string) {
  await call('PATCH', `/api/v1/watches/${id}`, { watch_interval: 60 });
  // A run the short interval fired just before the PATCH records its task id only once it starts:
  // there is no state to await for a run that may or may not exist, so let one timer turn pass.
  await sleep(150);
  const w = await watchOf(id);
  if (w.last_task_id) await taskDone(w.last_task_id);
  await until('the last outcome', async () => (await watchOf(id)).last_status);
}

const add = (body: Record<string, unknown>, headers = alice) => call('POST', '/api/v1/resources', body, headers);

beforeAll(async () => {
  gitRoot = tempDir('ctx-watch-git-');
  birds = makeRepo(gitRoot, 'birds', { 'README.md': '# Birds\n\nThe lyrebird mimics chainsaws.\n', 'notes/kiwi.md': 'Kiwis are flightless.\n', 'old.txt': 'to be removed\n' });
  makeRepo(gitRoot, 'fish', { 'README.md': '# Fish\n' });
  fs.mkdirSync(`${gitRoot}/private`);
  makeRepo(`${gitRoot}/private`, 'vault', { 'plan.md': '# Vault\n\nsecret cassowary plans\n' });
  gitServer = await startGitServer(gitRoot);
  privateGit = await startGitServer(`${gitRoot}/private`, { username: 'oauth2', password: TOKEN });
  web = await startStatic({ '/page.md': { type: 'text/markdown', body: '# Page\n\nwombats\n' } });
  t = await startTestApp({ config: { importAllowPrivate: true } });
  const acct = await t.account('acme', ['alice', 'bob']);
  alice = acct.users.alice!;
  bob = acct.users.bob!;
  admin = acct.admin;
});
afterAll(async () => {
  await t.close();
  await gitServer.close();
  await privateGit.close();
  await web.close();
  fs.rmSync(gitRoot, { recursive: true, force: true });
});

describe('watches', () => {
  let id: string;
  const to = 'ctx://resources/birds';

  it('POST /resources with watch_interval imports and creates the watch with every field', async () => {
    const r = await add({ path: `${gitServer.url}/birds.git`, to, watch_interval: 60, reason: 'bird facts', instruction: 'keep fresh', wait: true, include: '**/*.md,*.txt' });
    expect(r.status, r.text).toBe(200);
    const res = r.json().result;
    expect(res.watch_task_id).toMatch(/^[0-9a-f-]{36}$/);
    id = res.watch_task_id;
    const w = await until('the first outcome', async () => ((await watchOf(id)).last_status ? watchOf(id) : undefined));
    expect(w).toMatchObject({
      task_id: id,
      path: `${gitServer.url}/birds.git`,
      source_type: 'git',
      to_uri: to,
      parent_uri: 'ctx://resources',
      reason: 'bird facts',
      instruction: 'keep fresh',
      watch_interval: 60,
      build_index: true,
      summarize: false,
      processor_kwargs: { include: '**/*.md,*.txt' },
      last_task_id: res.task_id,
      last_status: 'completed',
      last_error: null,
      is_active: true,
      account_id: 'acme',
      user_id: 'alice',
      original_role: 'USER',
    });
    expect(Object.keys(w)).not.toContain('to_path');
    expect(Date.parse(w.next_execution_time) - Date.parse(w.last_execution_time)).toBeCloseTo(3_600_000, -3);
    expect(Date.parse(w.created_at)).toBeGreaterThan(0);
  });

  it('lists with to_uri and active_only; a USER sees only their own, the ADMIN all', async () => {
    const all = (await call('GET', '/api/v1/watches')).json().result;
    expect(all.total).toBe(1);
    expect(all.tasks[0].task_id).toBe(id);
    expect((await call('GET', `/api/v1/watches?${qs({ to_uri: to })}`)).json().result.total).toBe(1);
    expect((await call('GET', `/api/v1/watches?${qs({ to_uri: 'ctx://resources/other' })}`)).json().result).toEqual({ tasks: [], total: 0 });
    expect((await call('GET', '/api/v1/watches', undefined, bob)).json().result.total).toBe(0);
    expect((await call('GET', `/api/v1/watches/${id}`, undefined, bob)).status).toBe(404);
    expect((await call('GET', '/api/v1/watches', undefined, admin)).json().result.total).toBe(1);
    expect((await call('GET', `/api/v1/watches/${id}?${qs({ to_uri: to })}`)).json().result.task_id).toBe(id);
  });

  it('task_id and to_uri that disagree → 400; unknown id or URI → 404; missing to_uri → 400', async () => {
    const other = await add({ path: `${web.url}/page.md`, to: 'ctx://resources/page', watch_interval: 60, wait: true });
    expect(other.status, other.text).toBe(200);
    const r = await call('GET', `/api/v1/watches/${id}?${qs({ to_uri: 'ctx://resources/page' })}`);
    expect(r.status).toBe(400);
    expect(r.json().error.code).toBe('INVALID_ARGUMENT');
    expect((await call('GET', `/api/v1/watches/${id}?${qs({ to_uri: 'ctx://resources/nowhere' })}`)).status).toBe(400);
    expect((await call('PATCH', `/api/v1/watches/${id}?${qs({ to_uri: 'ctx://resources/page' })}`, { reason: 'x' })).status).toBe(400);
    expect((await call('DELETE', `/api/v1/watches/${id}?${qs({ to_uri: 'ctx://resources/page' })}`)).status).toBe(400);
    expect((await call('POST', `/api/v1/watches/${id}/trigger?${qs({ to_uri: 'ctx://resources/page' })}`)).status).toBe(400);
    expect((await call('GET', '/api/v1/watches/00000000-0000-0000-0000-000000000000')).status).toBe(404);
    expect((await call('PATCH', `/api/v1/watches?${qs({ to_uri: 'ctx://resources/nowhere' })}`, { reason: 'x' })).status).toBe(404);
    expect((await call('PATCH', '/api/v1/watches', { reason: 'x' })).status).toBe(400);
    expect((await call('DELETE', '/api/v1/watches')).status).toBe(400);
    expect((await call('POST', '/api/v1/watches/trigger')).status).toBe(400);
    expect((await call('GET', `/api/v1/watches?${qs({ to_uri: 'not-a-uri' })}`)).status).toBe(400);
    expect((await call('GET', '/api/v1/watches?active_only=maybe')).status).toBe(400);
  });

  it('PATCH: field rules, bad input, by id and by ?to_uri=', async () => {
    const bad = async (body: unknown, field: string) => {
      const r = await call('PATCH', `/api/v1/watches/${id}`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json().error.code).toBe('INVALID_ARGUMENT');
      expect(JSON.stringify(r.json().error)).toContain(field);
    };
    await bad({}, 'at least one');
    await bad({ watch_interval: 0 }, 'watch_interval');
    await bad({ watch_interval: -5 }, 'watch_interval');
    await bad({ watch_interval: 'soon' }, 'watch_interval');
    await bad({ is_active: 'no' }, 'is_active');
    await bad({ reason: 'x', colour: 'red' }, 'colour');
    const before = await watchOf(id);
    const r = await call('PATCH', `/api/v1/watches?${qs({ to_uri: to })}`, { reason: 'new reason' });
    expect(r.status, r.text).toBe(200);
    expect(r.json().result).toMatchObject({ reason: 'new reason', instruction: 'keep fresh', watch_interval: 60, is_active: true, next_execution_time: before.next_execution_time });
    const r2 = await call('PATCH', `/api/v1/watches/${id}`, { watch_interval: 30.5, instruction: 'newer' });
    expect(r2.json().result).toMatchObject({ reason: 'new reason', instruction: 'newer', watch_interval: 30.5 });
    expect(Date.parse(r2.json().result.next_execution_time) - Date.parse(before.last_execution_time)).toBeCloseTo(30.5 * 60_000, -3);
  });

  it('pause and resume keep the cadence; a paused watch does not fire', async () => {
    const paused = (await call('PATCH', `/api/v1/watches/${id}`, { is_active: false })).json().result;
    expect(paused.is_active).toBe(false);
    expect(paused.watch_interval).toBe(30.5);
    expect((await call('GET', '/api/v1/watches?active_only=true')).json().result.tasks.map((w: { task_id: string }) => w.task_id)).not.toContain(id);
    const resumed = (await call('PATCH', `/api/v1/watches/${id}`, { is_active: true })).json().result;
    expect(resumed).toMatchObject({ is_active: true, watch_interval: 30.5, next_execution_time: paused.next_execution_time });
    expect((await call('GET', '/api/v1/watches?active_only=true')).json().result.tasks.map((w: { task_id: string }) => w.task_id)).toContain(id);
  });

  it('trigger returns before the re-ingest, which replaces changed files, removes deleted ones and keeps the index consistent', async () => {
    commitTo(birds, { 'README.md': '# Birds\n\nThe lyrebird mimics camera shutters.\n', 'notes/tui.md': 'Tui have two voice boxes.\n' }, ['old.txt']);
    const before = await watchOf(id);
    const r = await call('POST', `/api/v1/watches/trigger?${qs({ to_uri: to })}`);
    expect(r.status, r.text).toBe(200);
    expect(r.json().result).toEqual({ task_id: id, to_uri: to, scheduled: true });
    // Not re-ingested yet when the answer arrives.
    expect(await read(`${to}/README.md`)).toContain('chainsaws');
    const w = await runAfter(id, before.last_task_id);
    expect(w).toMatchObject({ last_status: 'completed', last_error: null, next_execution_time: before.next_execution_time });
    expect(Date.parse(w.last_execution_time)).toBeGreaterThan(Date.parse(before.last_execution_time));
    expect(await read(`${to}/README.md`)).toContain('camera shutters');
    expect(await read(`${to}/notes/tui.md`)).toContain('voice boxes');
    expect(await exists(`${to}/old.txt`)).toBe(false);
    expect(await exists(`${to}/notes/kiwi.md`)).toBe(true);
    const task = (await call('GET', `/api/v1/tasks/${w.last_task_id}`)).json().result;
    expect(task).toMatchObject({ task_type: 'add_resource', status: 'completed' });
    const c = await call('POST', '/api/v1/system/consistency', { uri: to });
    expect(c.json().result).toMatchObject({ ok: true, missing_record_count: 0 });
  });

  it('fires on schedule with a short interval', async () => {
    commitTo(birds, { 'notes/kea.md': 'Keas are alpine parrots.\n' });
    const before = await watchOf(id);
    await call('PATCH', `/api/v1/watches/${id}`, { watch_interval: 0.01 });
    const w = await runAfter(id, before.last_task_id);
    expect(w.last_status).toBe('completed');
    await calm(id);
    expect(await read(`${to}/notes/kea.md`)).toContain('alpine');
  });

  it('re-adding the same source to the same root updates its watch; another source → 409', async () => {
    const again = await add({ path: `${gitServer.url}/birds.git`, to, watch_interval: 45, reason: 'again', wait: true });
    expect(again.status, again.text).toBe(200);
    expect(again.json().result.watch_task_id).toBe(id);
    const list = (await call('GET', `/api/v1/watches?${qs({ to_uri: to })}`)).json().result;
    expect(list.total).toBe(1);
    expect(list.tasks[0]).toMatchObject({ task_id: id, watch_interval: 45, reason: 'again' });
    const other = await add({ path: `${gitServer.url}/fish.git`, to, watch_interval: 5 });
    expect(other.status).toBe(409);
    expect(other.json().error.details.resource).toBe(to);
    // Without watch_interval (0), the caller's own watch would be paused (options-reingest.test.ts);
    // another USER cannot pause alice's watch, so theirs is refused.
    const plain = await add({ path: `${gitServer.url}/fish.git`, to }, bob);
    expect(plain.status).toBe(409);
  });

  it('watch_interval on add resource: negative is 0 (no watch, as the reference); with an upload → 400', async () => {
    const neg = await add({ path: `${gitServer.url}/fish.git`, to: 'ctx://resources/fish', watch_interval: -1, wait: true });
    expect(neg.status, neg.text).toBe(200);
    expect(neg.json().result.watch_task_id).toBeUndefined();
    expect((await call('GET', `/api/v1/watches?${qs({ to_uri: 'ctx://resources/fish' })}`)).json().result.total).toBe(0);
    const tmp = await upload(t, alice, '# note\n', 'note.md');
    const up = await add({ temp_file_id: tmp, watch_interval: 5 });
    expect(up.status).toBe(400);
    expect(up.json().error.details.field).toBe('watch_interval');
    expect((await add({ path: `${gitServer.url}/fish.git`, to: 'ctx://resources/fish', watch_interval: 'often' })).status).toBe(400);
  });

  it('credentials: never shown; after a restart the watch asks for them again; re-adding restores them', async () => {
    const vaultTo = 'ctx://resources/vault';
    const r = await add({ path: `${privateGit.url}/vault.git`, to: vaultTo, watch_interval: 60, args: { auth_config: { token: TOKEN } }, wait: true });
    expect(r.status, r.text).toBe(200);
    const vid = r.json().result.watch_task_id;
    const first = await until('first outcome', async () => ((await watchOf(vid)).last_status ? watchOf(vid) : undefined));
    expect(first.last_status).toBe('completed');
    expect(JSON.stringify(first)).not.toContain(TOKEN);

    const birdsBefore = await watchOf(id);
    await t.restart();
    // Survives the restart with its schedule.
    const after = await watchOf(vid);
    expect(after).toMatchObject({ task_id: vid, next_execution_time: first.next_execution_time, last_task_id: first.last_task_id });
    expect((await watchOf(id)).next_execution_time).toBe(birdsBefore.next_execution_time);

    await call('POST', `/api/v1/watches/${vid}/trigger`);
    const failed = await until('the credentials failure', async () => {
      const w = await watchOf(vid);
      return w.last_status === 'failed' ? w : undefined;
    });
    expect(failed.last_error).toMatch(/credentials/);
    expect(failed.last_error.length).toBeLessThanOrEqual(500);
    expect(failed.last_task_id).toBe(first.last_task_id);
    expect(JSON.stringify(failed)).not.toContain(TOKEN);

    const again = await add({ path: `${privateGit.url}/vault.git`, to: vaultTo, watch_interval: 60, args: { auth_config: { token: TOKEN } }, wait: true });
    expect(again.json().result.watch_task_id).toBe(vid);
    commitTo(`${gitRoot}/private/vault.git`, { 'plan.md': '# Vault\n\nnew cassowary plans\n' });
    const last = (await watchOf(vid)).last_task_id;
    await call('POST', `/api/v1/watches/${vid}/trigger`);
    const ok = await runAfter(vid, last);
    expect(ok).toMatchObject({ last_status: 'completed', last_error: null });
    expect(await read(`${vaultTo}/plan.md`)).toContain('new cassowary');
  });

  it('a failing source records a redacted last_error of at most 500 characters', async () => {
    const r = await add({ path: `${web.url}/page.md`, to: 'ctx://resources/page', watch_interval: 60, wait: true });
    const pid = r.json().result.watch_task_id;
    await until('first outcome', async () => ((await watchOf(pid)).last_status ? true : undefined));
    // The page disappears: the next run fails with the download's error.
    await web.close();
    const before = await watchOf(pid);
    await call('POST', `/api/v1/watches/${pid}/trigger`);
    const w = await runAfter(pid, before.last_task_id);
    expect(w.last_status).toBe('failed');
    expect(typeof w.last_error).toBe('string');
    expect(w.last_error.length).toBeLessThanOrEqual(500);
    // What was imported before stays.
    expect(await read('ctx://resources/page/page.md')).toContain('wombats');
  });

  it('survives a restart and fires on time after it', async () => {
    commitTo(birds, { 'notes/weka.md': 'Wekas steal shiny things.\n' });
    const set = (await call('PATCH', `/api/v1/watches/${id}`, { watch_interval: 0.05 })).json().result;
    const due = Date.parse(set.next_execution_time);
    const last = set.last_task_id;
    await t.restart();
    const w = await runAfter(id, last);
    expect(w.last_status).toBe('completed');
    // Not before its time, and not long after it.
    expect(Date.parse(w.last_execution_time)).toBeGreaterThanOrEqual(due);
    expect(Date.parse(w.last_execution_time) - due).toBeLessThan(2_000);
    await calm(id);
    expect(await read(`${to}/notes/weka.md`)).toContain('shiny');
  });

  it('DELETE by ?to_uri= and by id; the resource stays; the root is free for another source', async () => {
    const r = await call('DELETE', `/api/v1/watches?${qs({ to_uri: to })}`);
    expect(r.status, r.text).toBe(200);
    expect(r.json().result).toEqual({ task_id: id, to_uri: to, deleted: true });
    expect((await call('GET', `/api/v1/watches/${id}`)).status).toBe(404);
    expect((await call('DELETE', `/api/v1/watches/${id}`)).status).toBe(404);
    expect(await exists(`${to}/README.md`)).toBe(true);
    const vault = (await call('GET', `/api/v1/watches?${qs({ to_uri: 'ctx://resources/vault' })}`)).json().result.tasks[0];
    expect((await call('DELETE', `/api/v1/watches/${vault.task_id}`)).json().result.deleted).toBe(true);
    const fish = await add({ path: `${gitServer.url}/fish.git`, to, wait: true });
    expect(fish.status, fish.text).toBe(200);
  });

  it('deleting the account drops its watches', async () => {
    const other = await t.account('zoo', ['zed']);
    const r = await add({ path: `${gitServer.url}/fish.git`, to: 'ctx://resources/fish', watch_interval: 60, wait: true }, other.users.zed!);
    expect(r.status, r.text).toBe(200);
    expect((await call('GET', '/api/v1/watches', undefined, other.admin)).json().result.total).toBe(1);
    expect((await t.req({ method: 'DELETE', url: '/api/v1/admin/accounts/zoo', headers: t.root })).status).toBe(200);
    await t.account('zoo', ['zed']).then(async (again) => {
      expect((await call('GET', '/api/v1/watches', undefined, again.admin)).json().result.total).toBe(0);
    });
  });
});
