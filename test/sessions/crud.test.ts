import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let alice: Record<string, string>;
let bob: Record<string, string>;
let other: Record<string, string>;
beforeAll(async () => {
  t = await startTestApp();
  const acme = await t.account('acme', ['alice', 'bob']);
  alice = acme.users.alice!;
  bob = acme.users.bob!;
  other = (await t.account('globex', ['alice'])).users.alice!;
});
afterAll(() => t.close());

const req = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string>, body?: unknown) => t.req({ method, url, headers, body });
const err = (res: { json(): any }) => res.json().error;

describe('create, get, list, delete', () => {
  it('creates with a generated id and answers the spec shape', async () => {
    const res = await req('POST', '/api/v1/sessions', alice, {});
    expect(res.status).toBe(200);
    const r = res.json().result;
    expect(r.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.uri).toBe(`ctx://user/alice/sessions/${r.session_id}`);
    expect(r.user).toEqual({ account_id: 'acme', user_id: 'alice' });
    expect(r.auto_commit_policy).toBeNull();
  });

  it('creates with a chosen id; a second create of it is 409', async () => {
    expect((await req('POST', '/api/v1/sessions', alice, { session_id: 'chat.one_1' })).status).toBe(200);
    const again = await req('POST', '/api/v1/sessions', alice, { session_id: 'chat.one_1' });
    expect(again.status).toBe(409);
    expect(err(again).code).toBe('CONFLICT');
  });

  it('an empty body creates a session', async () => {
    const res = await t.req({ method: 'POST', url: '/api/v1/sessions', headers: alice });
    expect(res.status).toBe(200);
  });

  it('get answers every session-info field', async () => {
    await req('POST', '/api/v1/sessions', alice, { session_id: 'info' });
    const r = (await req('GET', '/api/v1/sessions/info', alice)).json().result;
    expect(Object.keys(r).sort()).toEqual(
      ['auto_commit_policy', 'commit_count', 'created_at', 'embedding_token_usage', 'last_commit_at', 'llm_token_usage', 'memories_extracted', 'message_count', 'pending_tokens', 'session_id', 'total_message_count', 'updated_at', 'uri', 'user'].sort(),
    );
    expect(r.memories_extracted).toEqual({ profile: 0, preferences: 0, entities: 0, events: 0, identity: 0, soul: 0, cases: 0, patterns: 0, trajectories: 0, experiences: 0, tools: 0, skills: 0, total: 0 });
    expect(r.llm_token_usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    expect(r).toMatchObject({ message_count: 0, total_message_count: 0, commit_count: 0, last_commit_at: '', pending_tokens: 0, embedding_token_usage: { total_tokens: 0 } });
  });

  it('get of a missing session is 404 unless auto_create', async () => {
    const res = await req('GET', '/api/v1/sessions/nope', alice);
    expect(res.status).toBe(404);
    expect(err(res).code).toBe('NOT_FOUND');
    const created = await req('GET', '/api/v1/sessions/nope?auto_create=true', alice);
    expect(created.status).toBe(200);
    expect(created.json().result.session_id).toBe('nope');
    expect((await req('GET', '/api/v1/sessions/nope', alice)).status).toBe(200);
  });

  it('lists the caller\'s sessions only', async () => {
    await req('POST', '/api/v1/sessions', bob, { session_id: 'bobs' });
    const list = (await req('GET', '/api/v1/sessions', alice)).json().result as Array<{ session_id: string; uri: string; is_dir: boolean }>;
    expect(list.map((s) => s.session_id)).toContain('info');
    expect(list.map((s) => s.session_id)).not.toContain('bobs');
    expect(list.find((s) => s.session_id === 'info')).toEqual({ session_id: 'info', uri: 'ctx://user/alice/sessions/info', is_dir: true });
  });

  it('deletes; a deleted session is 404 to get; deleting again is fine (as in the reference)', async () => {
    await req('POST', '/api/v1/sessions', alice, { session_id: 'gone' });
    await req('POST', '/api/v1/sessions/gone/messages', alice, { role: 'user', content: 'hi' });
    const del = await req('DELETE', '/api/v1/sessions/gone', alice);
    expect(del.status).toBe(200);
    expect(del.json().result).toEqual({ session_id: 'gone' });
    expect((await req('GET', '/api/v1/sessions/gone', alice)).status).toBe(404);
    expect((await req('DELETE', '/api/v1/sessions/gone', alice)).status).toBe(200);
    expect((await req('DELETE', '/api/v1/sessions/never-was', alice)).json().result).toEqual({ session_id: 'never-was' });
    const fsls = await req('GET', '/api/v1/fs/stat?uri=' + encodeURIComponent('ctx://user/alice/sessions/gone'), alice);
    expect(fsls.status).toBe(404);
  });

  it('other users and other accounts cannot see or touch a session', async () => {
    await req('POST', '/api/v1/sessions', alice, { session_id: 'private' });
    await req('POST', '/api/v1/sessions/private/messages', alice, { role: 'user', content: 'secret plan' });
    for (const who of [bob, other]) {
      expect((await req('GET', '/api/v1/sessions/private', who)).status).toBe(404);
      expect((await req('GET', '/api/v1/sessions/private/context', who)).status).toBe(404);
      await req('DELETE', '/api/v1/sessions/private', who);
      expect((await req('POST', '/api/v1/sessions/private/commit', who, {})).status).toBe(404);
    }
    // Their deletes and writes touch only their own "private": Alice's is untouched.
    await req('POST', '/api/v1/sessions/private/messages', bob, { role: 'user', content: 'bob here' });
    expect((await req('GET', '/api/v1/sessions/private', alice)).json().result.message_count).toBe(1);
    // The files are in Alice's space, which Bob cannot read through fs either.
    const peek = await req('GET', '/api/v1/content/read?uri=' + encodeURIComponent('ctx://user/alice/sessions/private/messages.jsonl'), bob);
    expect(peek.status).toBe(403);
  });

  it('needs credentials', async () => {
    expect((await t.req({ method: 'GET', url: '/api/v1/sessions' })).status).toBe(401);
  });

  it('rejects bad ids, unknown fields, wrong types and malformed JSON', async () => {
    expect(err(await req('POST', '/api/v1/sessions', alice, { session_id: 'a/b' })).code).toBe('INVALID_ARGUMENT');
    expect(err(await req('POST', '/api/v1/sessions', alice, { session_id: 'sessions' })).code).toBe('INVALID_ARGUMENT');
    expect(err(await req('POST', '/api/v1/sessions', alice, { session_id: 7 })).details.field).toBe('session_id');
    expect(err(await req('POST', '/api/v1/sessions', alice, { nope: 1 })).code).toBe('INVALID_ARGUMENT');
    const bad = await t.req({ method: 'POST', url: '/api/v1/sessions', headers: { ...alice, 'content-type': 'application/json' }, body: '{"session_id":' });
    expect(bad.status).toBe(400);
    expect((await req('GET', '/api/v1/sessions/..', alice)).status).toBeGreaterThanOrEqual(400);
    expect(err(await req('GET', '/api/v1/sessions/bad%20id', alice)).code).toBe('INVALID_ARGUMENT');
  });
});

describe('memory_policy and auto_commit_policy on create', () => {
  it('fills defaults of a supplied policy and clamps to the maximum', async () => {
    const r = (await req('POST', '/api/v1/sessions', alice, { auto_commit_policy: { message_count_threshold: 5000, keep_recent_count: 2 } })).json().result;
    expect(r.auto_commit_policy).toEqual({ pending_token_threshold: 150000, message_count_threshold: 1000, idle_timeout_seconds: 86400, keep_recent_count: 2, min_commit_interval_seconds: 0 });
  });

  it('rejects unknown keys, negatives, non-integers and null fields', async () => {
    for (const policy of [{ foo: 1 }, { keep_recent_count: -1 }, { keep_recent_count: 1.5 }, { keep_recent_count: '3' }, { keep_recent_count: null }, [1], 'x']) {
      const res = await req('POST', '/api/v1/sessions', alice, { auto_commit_policy: policy });
      expect(res.status, JSON.stringify(policy)).toBe(400);
      expect(err(res).code).toBe('INVALID_ARGUMENT');
    }
  });

  it('validates memory_policy, accepting legacy boolean strings', async () => {
    expect((await req('POST', '/api/v1/sessions', alice, { memory_policy: { self: true, peer: 'false', working_memory: { enabled: 'true' }, memory_types: ['preferences', 'experiences'] } })).status).toBe(200);
    expect((await req('POST', '/api/v1/sessions', alice, { memory_policy: { memory_types: null } })).status).toBe(200);
    for (const mp of [{ memory_types: ['nonsense'] }, { self: 'maybe' }, { working_memory: true }, { working_memory: { on: true } }, { extra: 1 }, { memory_types: 'profile' }]) {
      const res = await req('POST', '/api/v1/sessions', alice, { memory_policy: mp });
      expect(res.status, JSON.stringify(mp)).toBe(400);
      expect(err(res).code).toBe('INVALID_ARGUMENT');
    }
  });
});

describe('PATCH config', () => {
  it('normalizes events.tags and merges the policy; null disables; omitted keeps', async () => {
    await req('POST', '/api/v1/sessions', alice, { session_id: 'cfg' });
    let r = (await req('PATCH', '/api/v1/sessions/cfg/config', alice, { memory_extraction_config: { events: { tags: [' Project=Apollo ', 'project=apollo', 'TEAM=Core'] } }, auto_commit_policy: { keep_recent_count: 3 } })).json().result;
    expect(r.memory_extraction_config.events.tags).toEqual(['project=apollo', 'team=core']);
    expect(r.auto_commit_policy.keep_recent_count).toBe(3);
    expect(r.auto_commit_policy.message_count_threshold).toBe(100);
    r = (await req('PATCH', '/api/v1/sessions/cfg/config', alice, { auto_commit_policy: { message_count_threshold: 10 } })).json().result;
    expect(r.auto_commit_policy).toMatchObject({ keep_recent_count: 3, message_count_threshold: 10 });
    expect(r.memory_extraction_config.events.tags).toEqual(['project=apollo', 'team=core']);
    r = (await req('PATCH', '/api/v1/sessions/cfg/config', alice, {})).json().result;
    expect(r.auto_commit_policy.message_count_threshold).toBe(10);
    r = (await req('PATCH', '/api/v1/sessions/cfg/config', alice, { memory_extraction_config: { events: { tags: [] } }, auto_commit_policy: null })).json().result;
    expect(r).toEqual({ session_id: 'cfg', memory_extraction_config: { events: { tags: [] } }, auto_commit_policy: null });
    expect((await req('GET', '/api/v1/sessions/cfg', alice)).json().result.auto_commit_policy).toBeNull();
    expect((await req('PATCH', '/api/v1/sessions/cfg/config', alice, { telemetry: true })).status).toBe(200);
  });

  it('rejects bad tags, unknown keys and fields, null policy fields; 404 for a missing session', async () => {
    await req('POST', '/api/v1/sessions', alice, { session_id: 'cfg2' });
    for (const body of [
      { memory_extraction_config: { events: { tags: ['novalue'] } } },
      { memory_extraction_config: { events: { tags: ['a=b=c'] } } },
      { memory_extraction_config: { events: { tags: ['=x'] } } },
      { memory_extraction_config: { events: { tags: 'a=b' } } },
      { memory_extraction_config: { events: { tags: [1] } } },
      { memory_extraction_config: { other: {} } },
      { memory_extraction_config: { events: { labels: [] } } },
      { auto_commit_policy: { unknown_key: 1 } },
      { auto_commit_policy: { idle_timeout_seconds: null } },
      { something: true },
    ]) {
      const res = await req('PATCH', '/api/v1/sessions/cfg2/config', alice, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(err(res).code).toBe('INVALID_ARGUMENT');
    }
    expect((await req('PATCH', '/api/v1/sessions/missing/config', alice, {})).status).toBe(404);
    // Only the config subpath takes PATCH.
    expect((await req('PATCH', '/api/v1/sessions/cfg2', alice, {})).status).not.toBe(200);
  });
});
