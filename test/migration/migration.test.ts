/**
 * Legacy namespace migration on a 0.3.x-shaped dataset: shared and user-owned agent data, skills,
 * instructions, sessions with and without owners, and legacy vector records (one with a usable
 * vector, one made by another embedder).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { RecordDoc, VectorRecordsService, VectorStoreService } from '../../plugins/retrieval/index.js';
import { settledTask } from '../helpers/poll.js';

let t: TestApp;
const A = 'legacy';
const put = (p: string, body: string, account = A) => t.app.vfs.writeFile(account, p, Buffer.from(body));
const exists = async (p: string, account = A) => (await t.app.vfs.stat(account, p)) !== null;
const store = () => t.app.service<VectorStoreService>('vector-store');
const records = () => t.app.service<VectorRecordsService>('vector-records');
const TABS = 'Prefers tabs over spaces, four wide.\n';
/** A vector no embedder would compute for the text: proves the record was moved, not recomputed. */
let marker: Float32Array;

async function wait() {
  const r = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: t.root, body: { timeout: 30 } });
  expect(r.status, r.text).toBe(200);
}

async function migrate(action?: string) {
  const res = await t.req({ method: 'POST', url: '/api/v1/admin/migrate', headers: t.root, body: action ? { action } : {} });
  return res;
}

async function finished(taskId: string) {
  return settledTask(async () => {
    const r = await t.req({ method: 'GET', url: `/api/v1/tasks/${taskId}`, headers: t.root });
    expect(r.status, r.text).toBe(200);
    return r.json().result;
  });
}

async function vectorOf(account: string, path: string, level: 0 | 1 | 2): Promise<Float32Array | undefined> {
  for await (const r of records().read(account, path)) if (r.path === path && r.level === level) return r.vector;
  return undefined;
}

/** A legacy record: the record the indexer made for the same file elsewhere, moved to `legacyPath`. */
async function legacyRecord(from: string, legacyPath: string, vector: Float32Array, embedder?: string) {
  const d = (await store().get(A, from, 2))!;
  const doc: RecordDoc = { ...d, id: store().id(A, legacyPath, 2), path: legacyPath, attrs: { ...d.attrs, uri: 'ctx://' + legacyPath, parentUri: 'ctx://' + store().parentPath(legacyPath) } };
  if (embedder) doc.embedder = embedder;
  await store().upsert([doc], [vector]);
}

beforeAll(async () => {
  t = await startTestApp();
  await t.account(A, ['alice', 'bob']);
  // The same files at indexed paths first, to borrow the records the indexer makes for them.
  await put('resources/borrow/tabs.md', TABS);
  await put('resources/borrow/todo.md', 'Ship the release notes.\n');
  await wait();
  const dim = records().embedding().dim;
  marker = new Float32Array(dim);
  marker[dim - 1] = 1;

  await put('agent/helper/memories/preferences/tabs.md', TABS);
  await put('agent/helper/resources/notes/todo.md', 'Ship the release notes.\n');
  await put('agent/helper/skills/deploy/SKILL.md', '---\nname: deploy\ndescription: deploys\n---\nRun the pipeline.\n');
  await put('agent/helper/instructions.md', 'You are a helpful agent.\n');
  await put('user/alice/agent/private-bot/memories/diary.md', 'only for alice\n');
  await put('session/s1/.meta.json', JSON.stringify({ created_by_user_id: 'carol' }));
  await put('session/s1/messages.jsonl', '{"role":"user","content":"hello"}\n');
  await put('session/s2/.meta.json', JSON.stringify({ user_id: 'bob' }));
  await put('session/s2/messages.jsonl', '{"role":"user","content":"hi"}\n');
  await legacyRecord('resources/borrow/tabs.md', 'agent/helper/memories/preferences/tabs.md', marker);
  await legacyRecord('resources/borrow/todo.md', 'agent/helper/resources/notes/todo.md', marker, 'another/model/8/000000000000');
});
afterAll(() => t.close());

describe('preflight', () => {
  it('fails before the task exists: an unresolvable session owner in a multi-user account, an invalid owner id; ROOT only', async () => {
    const { admin } = await t.account('legacy-multi', ['x', 'y']);
    await put('session/orphan/messages.jsonl', '{}\n', 'legacy-multi');
    await put('session/bad/.meta.json', JSON.stringify({ user_id: 'not valid!' }), 'legacy-multi');
    const before = (await t.req({ method: 'GET', url: '/api/v1/tasks?task_type=legacy_migration', headers: t.root })).json().result.length;
    const res = await migrate();
    expect(res.status, res.text).toBe(400);
    expect(res.json().error.message).toMatch(/session owner cannot be resolved/);
    expect(res.json().error.message).toMatch(/not a valid user id/);
    expect((await t.req({ method: 'GET', url: '/api/v1/tasks?task_type=legacy_migration', headers: t.root })).json().result.length).toBe(before);
    expect((await t.req({ method: 'POST', url: '/api/v1/admin/migrate', headers: admin, body: {} })).status).toBe(403);
    // No body at all is `migrate` too (its preflight answers).
    const empty = await t.req({ method: 'POST', url: '/api/v1/admin/migrate', headers: t.root });
    expect(empty.status, empty.text).toBe(400);
    expect(empty.json().error.message).toMatch(/preflight failed/);
    await t.app.vfs.rm('legacy-multi', 'session', { recursive: true });
  });
});

describe('migrate', () => {
  let result: any;
  it('copies agent data to every user, owned data to its owner, skills, sessions; registers owners; warns', async () => {
    const res = await migrate();
    expect(res.status, res.text).toBe(200);
    const task = await finished(res.json().result.task_id);
    expect(task.status, JSON.stringify(task)).toBe('completed');
    expect(task.task_type).toBe('legacy_migration');
    result = task.result;
    // Every user, carol (registered by this migration) included.
    for (const u of ['admin', 'alice', 'bob', 'carol']) {
      expect(await exists(`user/${u}/peers/helper/memories/preferences/tabs.md`)).toBe(true);
      expect(await exists(`user/${u}/peers/helper/resources/notes/todo.md`)).toBe(true);
      expect(await exists(`user/${u}/skills/deploy/SKILL.md`)).toBe(true);
    }
    expect(await exists('user/alice/peers/private-bot/memories/diary.md')).toBe(true);
    expect(await exists('user/bob/peers/private-bot')).toBe(false);
    expect((await t.app.vfs.readFile(A, 'user/carol/sessions/s1/messages.jsonl')).toString()).toContain('hello');
    expect(await exists('user/bob/sessions/s2/messages.jsonl')).toBe(true);
    // Copy, never delete.
    expect(await exists('agent/helper/memories/preferences/tabs.md')).toBe(true);
    expect(await exists('session/s1/messages.jsonl')).toBe(true);
    expect(result.created_users).toEqual([{ account_id: A, user_id: 'carol', role: 'USER' }]);
    expect(JSON.stringify(result)).not.toMatch(/user_key|"key"/);
    const users = (await t.req({ method: 'GET', url: `/api/v1/admin/accounts/${A}/users`, headers: t.root })).json().result;
    expect(users.map((u: { user_id: string }) => u.user_id)).toContain('carol');
    expect(result.warnings.join('\n')).toMatch(/instructions ctx:\/\/agent\/helper\/instructions\.md are not migrated/);
    // 4 users × (tabs, todo, SKILL) + diary + 2 × (meta, messages).
    expect(result.migrated.files).toBe(17);
    expect(result.migrated.operations).toBe(4 * 3 + 1 + 2);
    expect(result.migrated.directories).toBeGreaterThan(0);
  });

  it('rewrites vector records to the new paths instead of recomputing them; others are skipped and counted', async () => {
    for (const u of ['admin', 'alice', 'bob', 'carol']) expect(Array.from((await vectorOf(A, `user/${u}/peers/helper/memories/preferences/tabs.md`, 2))!)).toEqual(Array.from(marker));
    expect(result.migrated.vector_records).toBe(4);
    // The todo record was made by another embedder: skipped for each of the 4 users.
    expect(result.migrated.skipped_vector_records).toBe(4);
    await wait();
    // The indexer saw the copies and left the moved records alone.
    expect(Array.from((await vectorOf(A, 'user/alice/peers/helper/memories/preferences/tabs.md', 2))!)).toEqual(Array.from(marker));
    expect(await vectorOf(A, 'user/alice/peers/helper/resources/notes/todo.md', 2)).toBeDefined();
  });

  it('a re-run is idempotent: existing targets and same-named skills are skipped', async () => {
    const res = await migrate('migrate');
    const task = await finished(res.json().result.task_id);
    expect(task.status).toBe('completed');
    expect(task.result.migrated.files, JSON.stringify(task.result)).toBe(0);
    expect(task.result.migrated.vector_records).toBe(0);
    expect(task.result.created_users).toEqual([]);
    expect(task.result.skipped).toContainEqual({ uri: 'ctx://user/alice/skills/deploy', reason: 'a skill of that name exists' });
    expect(task.result.skipped).toContainEqual({ uri: 'ctx://user/alice/peers/helper/memories/preferences/tabs.md', reason: 'target exists' });
  });
});

describe('cleanup', () => {
  it('removes the legacy scopes, their vector records first, and nothing of the new paths', async () => {
    const res = await migrate('cleanup');
    expect(res.status, res.text).toBe(200);
    const task = await finished(res.json().result.task_id);
    expect(task.status, JSON.stringify(task)).toBe('completed');
    expect(task.result.vector_records_removed).toBe(2);
    for (const p of ['agent', 'session', 'user/alice/agent']) expect(await exists(p)).toBe(false);
    expect(await records().count(A, 'agent')).toBe(0);
    expect(await exists('user/alice/peers/helper/memories/preferences/tabs.md')).toBe(true);
    expect(await exists('user/carol/sessions/s1/messages.jsonl')).toBe(true);
    expect(await vectorOf(A, 'user/alice/peers/helper/memories/preferences/tabs.md', 2)).toBeDefined();
  });
});
