import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { client } from './helpers.js';

let t: TestApp;
let c: ReturnType<typeof client>;
beforeAll(async () => {
  t = await startTestApp();
  c = client(t, (await t.account('acme', ['alice'])).users.alice!);
});
afterAll(() => t.close());

describe('commit without an LLM', () => {
  it('archives at once, then the task extracts explicit statements by category', async () => {
    await c.say('s1', 'user', 'I prefer Python for scripting. My name is Alice Liddell.');
    await c.say('s1', 'assistant', 'Python is great for scripting.');
    await c.say('s1', 'user', 'On 2026-03-14 I moved to Lyon. What should I visit?');
    const started = await c.commit('s1');
    expect(started).toEqual({ session_id: 's1', status: 'accepted', task_id: expect.any(String), archive_uri: 'ctx://user/alice/sessions/s1/history/archive_001', archived: true });
    // Phase 1 is visible as soon as commit answers.
    const mid = await c.info('s1');
    expect(mid).toMatchObject({ message_count: 0, total_message_count: 3, commit_count: 1, pending_tokens: 0 });
    expect(mid.last_commit_at).toEqual(expect.any(String));

    const task = await c.task(started.task_id);
    expect(task).toMatchObject({ task_type: 'session_commit', status: 'completed', resource_id: 'ctx://user/alice/sessions/s1' });
    expect(task.result).toEqual({
      session_id: 's1',
      archive_uri: 'ctx://user/alice/sessions/s1/history/archive_001',
      memory_diff_uri: 'ctx://user/alice/sessions/s1/history/archive_001/memory_diff.json',
      memories_extracted: { preferences: 1, profile: 1, events: 1 },
      active_count_updated: 0,
      token_usage: { llm: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, embedding: { total_tokens: 0 }, total: { total_tokens: 0 } },
      archived: true,
    });
    expect(await c.read('ctx://user/alice/memories/preferences/python-scripting.md')).toContain('- I prefer Python for scripting');
    expect(await c.read('ctx://user/alice/memories/profile/profile.md')).toContain('- **name**: My name is Alice Liddell');
    const events = await c.read('ctx://user/alice/memories/events/2026-03-14.md');
    expect(events).toContain('On 2026-03-14 I moved to Lyon');
    expect(events).not.toContain('visit');

    const info = await c.info('s1');
    expect(info.memories_extracted).toMatchObject({ preferences: 1, profile: 1, events: 1, total: 3, entities: 0 });
    const diff = JSON.parse((await c.read(task.result.memory_diff_uri))!);
    expect(diff.generator).toBe('deterministic');
    expect(diff.changes.map((ch: any) => ch.action)).toEqual(['created', 'created', 'created']);
  });

  it('the archive is exposed once done, with a deterministic summary', async () => {
    const ctx = await c.context('s1');
    expect(ctx.latest_archive_overview).toContain('# Session archive_001');
    expect(ctx.latest_archive_overview).toContain('user: I prefer Python for scripting');
    expect(ctx.stats).toMatchObject({ totalArchives: 1, includedArchives: 1, droppedArchives: 0 });
    expect(ctx.messages).toEqual([]);
    expect(ctx.estimatedTokens).toBe(ctx.stats.archiveTokens);
    const arch = (await c.get('/api/v1/sessions/s1/archives/archive_001')).json().result;
    expect(arch.archive_id).toBe('archive_001');
    expect(arch.abstract).toMatch(/^3 messages \(2 from the user\)/);
    expect(arch.messages).toHaveLength(3);
    expect((await c.get('/api/v1/sessions/s1/archives/archive_002')).status).toBe(404);
    expect((await c.get('/api/v1/sessions/s1/archives/..')).status).toBeGreaterThanOrEqual(400);
  });

  it('a second commit merges into existing memory files instead of duplicating', async () => {
    await c.say('s1', 'user', 'i prefer python for scripting! My name is Alice Smith.');
    await c.say('s1', 'user', 'I also love hiking in the Alps.');
    const started = await c.commit('s1');
    expect(started.archive_uri).toMatch(/archive_002$/);
    const task = await c.task(started.task_id);
    expect(task.result.memories_extracted).toEqual({ preferences: 2, profile: 1 });
    const prefs = (await c.read('ctx://user/alice/memories/preferences/python-scripting.md'))!;
    expect(prefs.match(/python for scripting/gi)).toHaveLength(1);
    const profile = (await c.read('ctx://user/alice/memories/profile/profile.md'))!;
    expect(profile).toContain('Alice Smith');
    expect(profile).not.toContain('Liddell');
    expect(await c.read('ctx://user/alice/memories/preferences/hiking-in-alps.md')).toContain('I also love hiking in the Alps');
    const info = await c.info('s1');
    expect(info).toMatchObject({ commit_count: 2, total_message_count: 5 });
    expect(info.memories_extracted).toMatchObject({ preferences: 3, profile: 2, events: 1, total: 6 });
    const diff = JSON.parse((await c.read(task.result.memory_diff_uri))!);
    expect(diff.changes.find((ch: any) => ch.uri.endsWith('python-scripting.md')).action).toBe('unchanged');
  });

  it('an empty commit archives nothing and starts no task; a missing session is 404', async () => {
    await c.post('/api/v1/sessions', { session_id: 'empty' });
    expect(await c.commit('empty')).toEqual({ session_id: 'empty', status: 'accepted', task_id: null, archive_uri: null, archived: false });
    expect((await c.info('empty')).commit_count).toBe(0);
    expect((await c.post('/api/v1/sessions/none/commit')).status).toBe(404);
    expect((await c.post('/api/v1/sessions/empty/commit', { keep_recent_count: -1 })).status).toBe(400);
    expect((await c.post('/api/v1/sessions/empty/commit', { bogus: 1 })).status).toBe(400);
  });

  it('keep_recent_count keeps the last live messages unarchived', async () => {
    for (let i = 0; i < 5; i++) await c.say('keep', 'user', `note ${i}`);
    const started = await c.commit('keep', { keep_recent_count: 2 });
    await c.task(started.task_id);
    const ctx = await c.context('keep');
    expect(ctx.messages.map((m: any) => m.parts[0].text)).toEqual(['note 3', 'note 4']);
    expect((await c.info('keep')).message_count).toBe(2);
    expect((await c.get('/api/v1/sessions/keep/archives/archive_001')).json().result.messages).toHaveLength(3);
  });

  it('the budget drops older abstracts first, then the overview; 0 disables archive payload', async () => {
    for (let i = 0; i < 3; i++) {
      await c.say('budget', 'user', `Topic number ${i}: ${'word '.repeat(30)}`);
      await c.task((await c.commit('budget')).task_id);
    }
    await c.say('budget', 'user', 'live question');
    const full = await c.context('budget');
    expect(full.pre_archive_abstracts.map((a: any) => a.archive_id)).toEqual(['archive_001', 'archive_002']);
    expect(full.latest_archive_overview).toContain('Topic number 2');
    expect(full.stats).toMatchObject({ totalArchives: 3, includedArchives: 3, droppedArchives: 0 });
    const active = full.stats.activeTokens;
    expect(full.stats.archiveTokens).toBeGreaterThan(0);
    // One token short of everything: the oldest abstract goes.
    const tight = await c.context('budget', active + full.stats.archiveTokens - 1);
    expect(tight.latest_archive_overview).not.toBe('');
    expect(tight.pre_archive_abstracts.map((a: any) => a.archive_id)).toEqual(['archive_002']);
    expect(tight.stats).toMatchObject({ includedArchives: 2, droppedArchives: 1 });
    expect(tight.estimatedTokens).toBe(active + tight.stats.archiveTokens);
    const none = await c.context('budget', 0);
    expect(none).toMatchObject({ latest_archive_overview: '', pre_archive_abstracts: [], stats: { includedArchives: 0, archiveTokens: 0, activeTokens: active } });
    expect(none.messages).toHaveLength(1);
    // Active messages are returned even when they alone exceed the budget.
    expect((await c.context('budget', 1)).messages).toHaveLength(1);
  });

  it('memory_policy: memory_types, working_memory and self decide what is written', async () => {
    await c.post('/api/v1/sessions', { session_id: 'only-events', memory_policy: { memory_types: ['events'], working_memory: { enabled: false } } });
    await c.say('only-events', 'user', 'I love jazz. On March 3rd, 2026 I started a new job.');
    const r = await c.task((await c.commit('only-events')).task_id);
    expect(r.result.memories_extracted).toEqual({ events: 1 });
    expect((await c.get('/api/v1/sessions/only-events/archives/archive_001')).json().result).toMatchObject({ abstract: '', overview: '' });
    expect(await c.read('ctx://user/alice/memories/events/2026-03-03.md')).toContain('started a new job');
    expect(await c.read('ctx://user/alice/memories/preferences/jazz.md')).toBeNull();

    await c.post('/api/v1/sessions', { session_id: 'no-self', memory_policy: { self: 'false' } });
    await c.say('no-self', 'user', 'I enjoy chess.');
    const r2 = await c.task((await c.commit('no-self')).task_id);
    expect(r2.result.memories_extracted).toEqual({});
    expect(await c.read('ctx://user/alice/memories/preferences/chess.md')).toBeNull();
  });

  it('experiences stands for cases and trajectories', async () => {
    const { enabledCategories, defaultMemoryPolicy } = await import('../../plugins/sessions/policy.js');
    const withExp = enabledCategories({ ...defaultMemoryPolicy(), memory_types: ['experiences', 'profile'] });
    expect([...withExp].sort()).toEqual(['cases', 'experiences', 'profile', 'trajectories']);
    const without = enabledCategories({ ...defaultMemoryPolicy(), memory_types: ['cases', 'trajectories', 'events'] });
    expect([...without]).toEqual(['events']);
  });

  it('used contexts are reported as active_count_updated', async () => {
    await c.say('used', 'user', 'hello');
    await c.post('/api/v1/sessions/used/used', { contexts: ['ctx://resources/a', 'ctx://resources/b'] });
    const r = await c.task((await c.commit('used')).task_id);
    expect(r.result.active_count_updated).toBe(2);
  });

  it('extracted memories are findable', async () => {
    await c.say('find', 'user', 'I prefer tea with oat milk in the morning.');
    await c.task((await c.commit('find')).task_id);
    await c.post('/api/v1/system/wait', {});
    const res = await c.post('/api/v1/search/find', { query: 'tea with oat milk', target_uri: 'ctx://user/alice/memories' });
    expect(res.status, res.text).toBe(200);
    const uris = res.json().result.memories.map((m: any) => m.uri);
    expect(uris).toContain('ctx://user/alice/memories/preferences/tea-with-oat-milk.md');
  });
});

describe('extract', () => {
  it('writes memories from the live messages without archiving them', async () => {
    await c.say('manual', 'user', 'I prefer window seats on flights.');
    const res = await c.post('/api/v1/sessions/manual/extract');
    expect(res.status, res.text).toBe(200);
    expect(res.json().result).toEqual([
      { category: 'preferences', uri: 'ctx://user/alice/memories/preferences/window-seats-on-flights.md', action: 'created', added: ['I prefer window seats on flights'], count: 1 },
    ]);
    expect((await c.post('/api/v1/sessions/manual/extract')).json().result[0].action).toBe('unchanged');
    expect(await c.info('manual')).toMatchObject({ message_count: 1, commit_count: 0 });
    expect((await c.post('/api/v1/sessions/missing/extract')).status).toBe(404);
    expect((await c.post('/api/v1/sessions/manual/extract', { x: 1 })).status).toBe(400);
  });
});

describe('events.tags', () => {
  it('label the event memories a commit writes', async () => {
    await c.post('/api/v1/sessions', { session_id: 'tagged', memory_extraction_config: { events: { tags: ['Project=Apollo'] } } });
    await c.say('tagged', 'user', 'On 2026-05-01 we shipped Apollo.');
    await c.task((await c.commit('tagged')).task_id);
    const attrs = (await c.get(`/api/v1/fs/attrs?uri=${encodeURIComponent('ctx://user/alice/memories/events/2026-05-01.md')}`)).json().result;
    expect(attrs.attrs.tags).toContain('project=apollo');
  });
});

describe('peers without an LLM', () => {
  it('statements of a peer go to the peer\'s memories when memory_policy.peer is on, nowhere when off', async () => {
    await c.post('/api/v1/sessions/duo/messages', { role: 'user', content: 'I enjoy chess.', peer_id: 'bob' });
    await c.task((await c.commit('duo')).task_id);
    expect(await c.read('ctx://user/alice/peers/bob/memories/preferences/chess.md')).toContain('I enjoy chess');
    await c.post('/api/v1/sessions', { session_id: 'duo-off', memory_policy: { peer: false } });
    await c.post('/api/v1/sessions/duo-off/messages', { role: 'user', content: 'I enjoy go.', peer_id: 'bob' });
    expect((await c.task((await c.commit('duo-off')).task_id)).result.memories_extracted).toEqual({});
  });
});
