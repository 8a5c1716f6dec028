/**
 * Runtime compatibility without migration (spec Part 1, "Legacy namespace migration", last
 * paragraph; Part 3 "Errors"): a 0.3.x client's `agent_id` (header X-Ctx-Agent, or body agent_id)
 * is the actor peer in legacy mode; ctx://agent and ctx://session read old data but are not
 * writable; find and search in legacy mode read unmigrated agent data next to the new peer data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { RecordDoc, VectorRecordsService, VectorStoreService } from '../../plugins/retrieval/index.js';

let t: TestApp;
const A = 'legacyrt';
let alice: Record<string, string>;
let bobHeaders: Record<string, string>;
const put = (p: string, body: string) => t.app.vfs.writeFile(A, p, Buffer.from(body));
const store = () => t.app.service<VectorStoreService>('vector-store');
const LEGACY_TEXT = 'Legacy agent memory: the deploy window is Tuesday at noon.\n';
const PEER_TEXT = 'Peer memory: the deploy window moved to Thursday morning.\n';

async function wait() {
  const r = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: t.root, body: { timeout: 30 } });
  expect(r.status, r.text).toBe(200);
}

/** A legacy record: what the indexer made for the same text elsewhere, moved to `legacyPath` (0.3.x data was indexed there). */
async function legacyRecord(from: string, legacyPath: string) {
  const d = (await store().get(A, from, 2))!;
  const doc: RecordDoc = { ...d, id: store().id(A, legacyPath, 2), path: legacyPath, attrs: { ...d.attrs, uri: 'ctx://' + legacyPath, parentUri: 'ctx://' + store().parentPath(legacyPath) } };
  let vec: Float32Array | undefined;
  for await (const r of t.app.service<VectorRecordsService>('vector-records').read(A, from)) if (r.path === from && r.level === 2) vec = r.vector;
  await store().upsert([doc], [vec!]);
}

const req = (method: string, url: string, headers: Record<string, string>, body?: unknown) => t.req({ method: method as 'GET', url, headers, ...(body === undefined ? {} : { body }) });
const ls = (uri: string, headers: Record<string, string>) => req('GET', `/api/v1/fs/ls?uri=${encodeURIComponent(uri)}&simple=true`, headers);
const read = (uri: string, headers: Record<string, string>) => req('GET', `/api/v1/content/read?uri=${encodeURIComponent(uri)}`, headers);
const uris = (r: any) => [...r.memories, ...r.resources, ...r.skills].map((m: any) => m.uri);

beforeAll(async () => {
  t = await startTestApp();
  const { users } = await t.account(A, ['alice', 'bob']);
  alice = users.alice!;
  bobHeaders = users.bob!;
  await put('resources/borrow/legacy.md', LEGACY_TEXT);
  await put('user/alice/peers/helper/memories/deploy.md', PEER_TEXT);
  await put('agent/helper/memories/deploy.md', LEGACY_TEXT);
  await put('agent/other/memories/x.md', 'another agent\n');
  await put('session/old-alice/.meta.json', JSON.stringify({ created_by_user_id: 'alice' }));
  await put('session/old-alice/messages.jsonl', '{"role":"user","content":"from 0.3"}\n');
  await put('session/old-bob/.meta.json', JSON.stringify({ user_id: 'bob' }));
  await put('session/old-bob/messages.jsonl', '{"role":"user","content":"bob only"}\n');
  await put('session/old-anon/messages.jsonl', '{"role":"user","content":"no owner"}\n');
  await put('session/dup/messages.jsonl', 'legacy copy\n');
  await put('user/alice/sessions/dup/messages.jsonl', 'new copy\n');
  await put('user/alice/sessions/fresh/messages.jsonl', 'new session\n');
  await wait();
  await legacyRecord('resources/borrow/legacy.md', 'agent/helper/memories/deploy.md');
});
afterAll(() => t.close());

describe('identity', () => {
  it('X-Ctx-Agent and X-Ctx-Actor-Peer together: 400 INVALID_ARGUMENT', async () => {
    const r = await ls('ctx://resources', { ...alice, 'x-ctx-agent': 'helper', 'x-ctx-actor-peer': 'helper' });
    expect(r.status, r.text).toBe(400);
    expect(r.json().error.code).toBe('INVALID_ARGUMENT');
    expect(r.json().error.message).toMatch(/actor_peer_id.*agent_id/);
  });

  it('X-Ctx-Agent maps to the actor peer: the peer view and ctx://agent listing are that agent', async () => {
    const legacy = { ...alice, 'x-ctx-agent': 'helper' };
    const agents = await ls('ctx://agent', legacy);
    expect(agents.status, agents.text).toBe(200);
    expect(agents.json().result).toEqual(['ctx://agent/helper']);
    expect((await ls('ctx://agent', alice)).json().result).toEqual(['ctx://agent/helper', 'ctx://agent/other']);
    expect((await ls('ctx://agent', { ...alice, 'x-ctx-actor-peer': 'other' })).json().result).toEqual(['ctx://agent/other']);
    expect((await read('ctx://agent/other/memories/x.md', legacy)).status).toBe(403);
    expect((await ls('ctx://user/alice/peers/other', legacy)).status).toBe(403);
  });
});

describe('read-only legacy namespaces', () => {
  it('ctx://agent/... reads old data; writes are 403 with the new home', async () => {
    const r = await read('ctx://agent/helper/memories/deploy.md', alice);
    expect(r.status, r.text).toBe(200);
    expect(r.json().result).toBe(LEGACY_TEXT);
    const w = await req('POST', '/api/v1/content/write', alice, { uri: 'ctx://agent/helper/memories/new.md', content: 'x', mode: 'create' });
    expect(w.status, w.text).toBe(403);
    expect(w.json().error.message).toMatch(/ctx:\/\/~\/peers\/helper\/memories\/new\.md/);
    expect((await req('POST', '/api/v1/fs/mkdir', alice, { uri: 'ctx://agent/helper/memories/d' })).status).toBe(403);
    expect((await req('DELETE', `/api/v1/fs?uri=${encodeURIComponent('ctx://agent/helper/memories/deploy.md')}`, alice)).status).toBe(403);
  });

  it('ctx://session merges new and old sessions (new first), legacy ones of other owners hidden; not writable', async () => {
    const root = await ls('ctx://session', alice);
    expect(root.status, root.text).toBe(200);
    expect(root.json().result).toEqual(['ctx://user/alice/sessions/dup', 'ctx://user/alice/sessions/fresh', 'ctx://session/old-alice', 'ctx://session/old-anon']);
    const old = await read('ctx://session/old-alice/messages.jsonl', alice);
    expect(old.status, old.text).toBe(200);
    expect(old.json().result).toContain('from 0.3');
    expect((await read('ctx://session/dup/messages.jsonl', alice)).json().result).toBe('new copy\n');
    expect((await read('ctx://session/old-bob/messages.jsonl', alice)).status).toBe(404);
    // ROOT sees every legacy session, whoever owns it.
    const rootRead = await read('ctx://session/old-bob/messages.jsonl', { ...t.root, 'x-ctx-account': A, 'x-ctx-user': 'alice' });
    expect(rootRead.status, rootRead.text).toBe(200);
    const listing = await ls('ctx://session/old-alice', alice);
    expect(listing.status, listing.text).toBe(200);
    expect(listing.json().result).toEqual(['ctx://session/old-alice/messages.jsonl']);
    const stat = await req('GET', `/api/v1/fs/stat?uri=${encodeURIComponent('ctx://session/old-anon/messages.jsonl')}`, alice);
    expect(stat.status, stat.text).toBe(200);
    // A user with no new sessions at all still lists (and walks) their legacy ones.
    const bob = (await ls('ctx://session', bobHeaders)).json().result;
    expect(bob).toEqual(['ctx://session/dup', 'ctx://session/old-anon', 'ctx://session/old-bob']); // dup names no owner
    const tree = await req('GET', `/api/v1/fs/tree?uri=${encodeURIComponent('ctx://session')}`, bobHeaders);
    expect(tree.status, tree.text).toBe(200);
    expect(tree.json().result.map((e: any) => e.uri)).toContain('ctx://session/old-bob/messages.jsonl');
    const w = await req('POST', '/api/v1/content/write', alice, { uri: 'ctx://session/old-alice/messages.jsonl', content: 'x' });
    expect(w.status, w.text).toBe(403);
  });
});

describe('find and search', () => {
  const find = (headers: Record<string, string>, body: Record<string, unknown>) => req('POST', '/api/v1/search/find', headers, { query: 'deploy window', limit: 20, ...body });

  it('legacy mode (X-Ctx-Agent) finds both the new peer data and the unmigrated agent data', async () => {
    const r = await find({ ...alice, 'x-ctx-agent': 'helper' }, {});
    expect(r.status, r.text).toBe(200);
    const got = uris(r.json().result);
    expect(got).toContain('ctx://agent/helper/memories/deploy.md');
    expect(got).toContain('ctx://user/alice/peers/helper/memories/deploy.md');
  });

  it('a plain actor peer does not read ctx://agent; body agent_id is legacy mode too (find and search)', async () => {
    const plain = uris((await find({ ...alice, 'x-ctx-actor-peer': 'helper' }, {})).json().result);
    expect(plain).toContain('ctx://user/alice/peers/helper/memories/deploy.md');
    expect(plain).not.toContain('ctx://agent/helper/memories/deploy.md');
    const body = await find(alice, { agent_id: 'helper' });
    expect(body.status, body.text).toBe(200);
    expect(uris(body.json().result)).toContain('ctx://agent/helper/memories/deploy.md');
    // What a 0.4.0 client configured with agent_id sends: the same id as actor peer and in the body.
    const both = await find({ ...alice, 'x-ctx-actor-peer': 'helper' }, { agent_id: 'helper' });
    expect(uris(both.json().result)).toContain('ctx://agent/helper/memories/deploy.md');
    const search = await req('POST', '/api/v1/search/search', alice, { query: 'deploy window', agent_id: 'helper', mode: 'fast', limit: 20 });
    expect(search.status, search.text).toBe(200);
    expect(uris(search.json().result)).toContain('ctx://agent/helper/memories/deploy.md');
    // An explicit target keeps to that target.
    const targeted = await find({ ...alice, 'x-ctx-agent': 'helper' }, { target_uri: 'ctx://user/alice/peers/helper' });
    expect(uris(targeted.json().result)).not.toContain('ctx://agent/helper/memories/deploy.md');
  });

  it('body peer_id is unsupported; a different actor peer and agent_id is both: 400 INVALID_ARGUMENT', async () => {
    for (const url of ['/api/v1/search/find', '/api/v1/search/search']) {
      const r = await req('POST', url, alice, { query: 'deploy', peer_id: 'helper' });
      expect(r.status, r.text).toBe(400);
      expect(r.json().error.code).toBe('INVALID_ARGUMENT');
      expect(r.json().error.message).toMatch(/actor_peer_id.*X-Ctx-Actor-Peer/);
    }
    const both = await find({ ...alice, 'x-ctx-actor-peer': 'other' }, { agent_id: 'helper' });
    expect(both.status, both.text).toBe(400);
    expect(both.json().error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('session messages', () => {
  const add = (headers: Record<string, string>, body: Record<string, unknown>) => req('POST', '/api/v1/sessions/legacy-chat/messages', headers, body);
  const stored = async () =>
    (await t.app.vfs.readFile(A, 'user/alice/sessions/legacy-chat/messages.jsonl')).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));

  it('an explicit message peer_id under a legacy agent_id client is refused', async () => {
    const r = await add({ ...alice, 'x-ctx-agent': 'helper' }, { role: 'assistant', content: 'hi', peer_id: 'someone' });
    expect(r.status, r.text).toBe(400);
    expect(r.json().error.code).toBe('INVALID_ARGUMENT');
    const b = await add(alice, { role: 'assistant', content: 'hi', peer_id: 'someone', agent_id: 'helper' });
    expect(b.status, b.text).toBe(400);
  });

  it("a legacy client's assistant messages are its agent speaking; role_id is accepted and ignored", async () => {
    expect((await add({ ...alice, 'x-ctx-agent': 'helper' }, { role: 'assistant', content: 'answer', role_id: 'ops' })).status).toBe(200);
    expect((await add({ ...alice, 'x-ctx-agent': 'helper' }, { role: 'user', content: 'question', role_id: 'alice' })).status).toBe(200);
    expect((await add(alice, { role: 'assistant', content: 'again', agent_id: 'helper' })).status).toBe(200);
    const msgs = await stored();
    expect(msgs.map((m: any) => [m.role, m.peer_id])).toEqual([
      ['assistant', 'helper'],
      ['user', undefined],
      ['assistant', 'helper'],
    ]);
    for (const m of msgs) expect(m).not.toHaveProperty('role_id');
  });
});
