import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startFakeChat, type FakeChat } from './fake-chat.js';
import { client } from './helpers.js';

let t: TestApp;
let llm: FakeChat;
let c: ReturnType<typeof client>;
beforeAll(async () => {
  llm = await startFakeChat();
  t = await startTestApp({ config: { llm: { baseUrl: llm.url, model: 'fake-model' } } });
  c = client(t, (await t.account('acme', ['alice'])).users.alice!);
});
afterAll(async () => {
  await t.close();
  await llm.close();
});

const answer = (o: unknown, usage = { prompt_tokens: 300, completion_tokens: 60, total_tokens: 360 }) => ({ content: JSON.stringify(o), usage });

describe('commit with an LLM', () => {
  it('writes structured memories; malformed items are recorded and skipped, never aborting the rest', async () => {
    llm.extraction.push(
      answer({
        abstract: 'Alice planned a trip to Kyoto and talked about food.',
        overview: '## Topics\n- Kyoto trip in April\n- vegetarian food',
        memories: [
          { category: 'preferences', key: 'Vegetarian food', content: 'Alice is vegetarian and prefers Japanese food.' },
          { category: 'events', key: 'Kyoto trip', content: 'Alice travels to Kyoto on 2026-04-10.' },
          { category: 'nonsense', key: 'x', content: 'bad category' },
          { category: 'profile', key: 'job' },
          'just a string',
          { category: 'entities', key: 'Kyoto', content: 42 },
          { category: 'entities', key: 'Kyoto', content: 'Kyoto is a city in Japan Alice will visit.' },
        ],
      }),
    );
    await c.say('trip', 'user', "I'm vegetarian and I'm going to Kyoto on April 10th.");
    await c.say('trip', 'assistant', 'Kyoto has great vegetarian temples food.');
    const started = await c.commit('trip');
    const task = await c.task(started.task_id);
    expect(task.status).toBe('completed');
    expect(task.result.memories_extracted).toEqual({ preferences: 1, events: 1, entities: 1 });
    expect(task.result.token_usage).toEqual({ llm: { prompt_tokens: 300, completion_tokens: 60, total_tokens: 360 }, embedding: { total_tokens: 0 }, total: { total_tokens: 360 } });
    expect(await c.read('ctx://user/alice/memories/preferences/vegetarian-food.md')).toContain('- Alice is vegetarian and prefers Japanese food');
    expect(await c.read('ctx://user/alice/memories/events/kyoto-trip.md')).toContain('Kyoto on 2026-04-10');
    expect(await c.read('ctx://user/alice/memories/entities/kyoto.md')).toContain('city in Japan');
    const diff = JSON.parse((await c.read(task.result.memory_diff_uri))!);
    expect(diff.generator).toBe('llm');
    expect(diff.skipped.map((s: any) => s.index)).toEqual([2, 3, 4, 5]);
    expect(diff.skipped[0].reason).toMatch(/not an enabled memory type/);
    // The request asked for JSON and carried the transcript.
    const req = llm.received.at(-1)!;
    expect(req.response_format).toEqual({ type: 'json_object' });
    expect(req.messages[1]!.content).toContain("user: I'm vegetarian");

    const info = await c.info('trip');
    expect(info.llm_token_usage).toEqual({ prompt_tokens: 300, completion_tokens: 60, total_tokens: 360 });
    expect(info.memories_extracted).toMatchObject({ preferences: 1, events: 1, entities: 1, total: 3 });
    const ctx = await c.context('trip');
    expect(ctx.latest_archive_overview).toBe('## Topics\n- Kyoto trip in April\n- vegetarian food\n');
    expect((await c.get('/api/v1/sessions/trip/archives/archive_001')).json().result.abstract).toBe('Alice planned a trip to Kyoto and talked about food.');
  });

  it('only enabled memory types are asked for and accepted', async () => {
    await c.post('/api/v1/sessions', { session_id: 'prefs-only', memory_policy: { memory_types: ['preferences'] } });
    llm.extraction.push(answer({ abstract: 'a', overview: 'o', memories: [{ category: 'preferences', key: 'tea', content: 'Alice likes green tea.' }, { category: 'events', key: 'e', content: 'Something happened.' }] }));
    await c.say('prefs-only', 'user', 'I like green tea.');
    const task = await c.task((await c.commit('prefs-only')).task_id);
    expect(task.result.memories_extracted).toEqual({ preferences: 1 });
    expect(llm.received.at(-1)!.messages[0]!.content).toContain('one of: preferences>');
  });

  it('an answer that is not JSON, or a failing server, falls back to the deterministic path', async () => {
    llm.extraction.push({ content: 'Sorry, I cannot help with that.' });
    await c.say('garbage', 'user', 'I love rock climbing.');
    const task = await c.task((await c.commit('garbage')).task_id);
    expect(task.status).toBe('completed');
    expect(task.result.memories_extracted).toEqual({ preferences: 1 });
    const diff = JSON.parse((await c.read(task.result.memory_diff_uri))!);
    expect(diff).toMatchObject({ generator: 'deterministic', llm_error: 'LLM answer is not a JSON object' });

    llm.extraction.push({ status: 400 });
    await c.say('down', 'user', 'My name is Alice Liddell.');
    const t2 = await c.task((await c.commit('down')).task_id);
    expect(t2.status).toBe('completed');
    expect(t2.result.memories_extracted).toEqual({ profile: 1 });
    expect(JSON.parse((await c.read(t2.result.memory_diff_uri))!).llm_error).toMatch(/HTTP 400/);
  });

  it('an archive is hidden until its phase 2 is done; its messages stay active meanwhile', async () => {
    llm.hold();
    await c.say('slow', 'user', 'I prefer dark mode.');
    const started = await c.commit('slow');
    await llm.waiting();
    expect((await c.get('/api/v1/sessions/slow/archives/archive_001')).status).toBe(404);
    const ctx = await c.context('slow');
    expect(ctx.messages.map((m: any) => m.parts[0].text)).toEqual(['I prefer dark mode.']);
    expect(ctx.stats.totalArchives).toBe(0);
    expect(ctx.stats.activeTokens).toBeGreaterThan(0);
    // Appends go on while the commit runs.
    await c.say('slow', 'user', 'later message');
    llm.extraction.push(answer({ abstract: 'dark mode', overview: 'o', memories: [{ category: 'preferences', key: 'dark mode', content: 'Alice prefers dark mode.' }] }));
    llm.release();
    expect((await c.task(started.task_id)).status).toBe('completed');
    expect((await c.context('slow')).messages.map((m: any) => m.parts[0].text)).toEqual(['later message']);
    expect((await c.get('/api/v1/sessions/slow/archives/archive_001')).status).toBe(200);
  });

  it('a commit interrupted by a restart resumes and completes once, without duplicates', async () => {
    llm.hold();
    const before = llm.received.length;
    await c.say('crash', 'user', 'I enjoy sailing on weekends.');
    const started = await c.commit('crash');
    await llm.waiting();
    // The server stops while phase 2 waits for the LLM: the task is left running and resumes.
    await t.restart();
    llm.extraction.push(answer({ abstract: 'sailing', overview: 'o', memories: [{ category: 'preferences', key: 'sailing', content: 'Alice enjoys sailing on weekends.' }] }));
    llm.release();
    const task = await c.task(started.task_id);
    expect(task.status).toBe('completed');
    expect(task.result.memories_extracted).toEqual({ preferences: 1 });
    // One request before the restart (never answered), one from the resumed task.
    expect(llm.received.length - before).toBe(2);
    const file = (await c.read('ctx://user/alice/memories/preferences/sailing.md'))!;
    expect(file.match(/sailing on weekends/g)).toHaveLength(1);
    const info = await c.info('crash');
    expect(info).toMatchObject({ commit_count: 1, message_count: 0, total_message_count: 1 });
    expect(info.memories_extracted.total).toBe(1);
  });
});

describe('delete during a commit', () => {
  it('a commit of a deleted session neither finishes the new session of that id nor counts in it', async () => {
    llm.hold();
    await c.say('reborn', 'user', 'I like opera.');
    const started = await c.commit('reborn');
    await llm.waiting();
    expect((await t.req({ method: 'DELETE', url: '/api/v1/sessions/reborn', headers: c.headers })).status).toBe(200);
    await c.say('reborn', 'user', 'second life');
    const again = await c.commit('reborn');
    expect(again.archive_uri).toMatch(/archive_001$/);
    llm.extraction.push(answer({ abstract: 'x', overview: 'o', memories: [] }), answer({ abstract: 'second', overview: 'second life', memories: [] }));
    llm.release();
    const old = await c.task(started.task_id);
    expect(old.result).toMatchObject({ archived: false, note: expect.stringMatching(/deleted/) });
    expect((await c.task(again.task_id)).status).toBe('completed');
    const arch = (await c.get('/api/v1/sessions/reborn/archives/archive_001')).json().result;
    expect(arch.messages.map((m: any) => m.parts[0].text)).toEqual(['second life']);
    expect((await c.info('reborn')).commit_count).toBe(1);
  });
});

describe('serialization', () => {
  it('appends racing a commit are each archived or live, exactly once; other sessions are not blocked', async () => {
    for (let i = 0; i < 10; i++) await c.say('busy', 'user', `before ${i}`);
    llm.hold();
    const racing = Array.from({ length: 20 }, (_, i) => c.say('busy', 'user', `during ${i}`));
    const started = await c.commit('busy');
    await Promise.all(racing);
    await llm.waiting();
    // While busy's phase 2 waits for the LLM, another session appends, commits and reads freely.
    const t0 = Date.now();
    await c.say('free', 'user', 'independent');
    await c.context('free');
    expect(Date.now() - t0).toBeLessThan(2000);
    llm.release();
    await c.task(started.task_id);
    const archived = (await c.get('/api/v1/sessions/busy/archives/archive_001')).json().result.messages.map((m: any) => m.parts[0].text);
    const live = (await c.context('busy')).messages.map((m: any) => m.parts[0].text);
    const all = [...archived, ...live];
    expect(all).toHaveLength(30);
    expect(new Set(all).size).toBe(30);
    expect(archived.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `before ${i}`));
    const info = await c.info('busy');
    expect(info).toMatchObject({ total_message_count: 30, message_count: live.length });
  });

  it('LLM-extracted memories are findable a moment later', async () => {
    await c.post('/api/v1/system/wait', {});
    const res = await c.post('/api/v1/search/find', { query: 'vegetarian Japanese food', target_uri: 'ctx://user/alice/memories' });
    expect(res.status, res.text).toBe(200);
    expect(res.json().result.memories.map((m: any) => m.uri)).toContain('ctx://user/alice/memories/preferences/vegetarian-food.md');
  });
});

describe('peers', () => {
  it('an item naming a peer of the conversation goes to that peer\'s memories; an unknown peer is skipped', async () => {
    await c.post('/api/v1/sessions/group/messages', { role: 'user', content: 'I love Rust.', peer_id: 'bob' });
    await c.say('group', 'user', 'I prefer Go.');
    llm.extraction.push(
      answer({
        abstract: 'a',
        overview: 'o',
        memories: [
          { category: 'preferences', key: 'rust', content: 'Bob loves Rust.', peer_id: 'bob' },
          { category: 'preferences', key: 'go', content: 'The user prefers Go.' },
          { category: 'preferences', key: 'zig', content: 'Carol likes Zig.', peer_id: 'carol' },
        ],
      }),
    );
    const task = await c.task((await c.commit('group')).task_id);
    expect(llm.received.at(-1)!.messages[0]!.content).toContain('one of bob');
    expect(task.result.memories_extracted).toEqual({ preferences: 2 });
    expect(await c.read('ctx://user/alice/peers/bob/memories/preferences/rust.md')).toContain('Bob loves Rust');
    expect(await c.read('ctx://user/alice/memories/preferences/go.md')).toContain('prefers Go');
    const diff = JSON.parse((await c.read(task.result.memory_diff_uri))!);
    expect(diff.skipped).toEqual([{ index: 2, reason: 'peer_id "carol" is not a peer of this conversation' }]);
  });
});
