import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let alice: Record<string, string>;
beforeAll(async () => {
  t = await startTestApp();
  alice = (await t.account('acme', ['alice'])).users.alice!;
});
afterAll(() => t.close());

const post = (url: string, body: unknown) => t.req({ method: 'POST', url, headers: alice, body });
const get = (url: string) => t.req({ method: 'GET', url, headers: alice });
const context = async (id: string, budget?: number) => (await get(`/api/v1/sessions/${id}/context${budget === undefined ? '' : `?token_budget=${budget}`}`)).json().result;

describe('add message', () => {
  it('simple mode: acknowledges with counts, creating a missing session', async () => {
    const res = await post('/api/v1/sessions/auto1/messages', { role: 'user', content: 'Hello there' });
    expect(res.status).toBe(200);
    const r = res.json().result;
    expect(r).toMatchObject({ session_id: 'auto1', message_count: 1 });
    expect(r.message_id).toMatch(/^msg_[0-9a-f]{24}$/);
    expect(r.pending_tokens).toBe(countTokens('Hello there') + 4);
    const r2 = (await post('/api/v1/sessions/auto1/messages', { role: 'assistant', content: 'Hi!' })).json().result;
    expect(r2.message_count).toBe(2);
    const info = (await get('/api/v1/sessions/auto1')).json().result;
    expect(info).toMatchObject({ message_count: 2, total_message_count: 2, pending_tokens: r2.pending_tokens });
  });

  it('parts mode with every part type; parts win over content; created_at, peer_id and metadata kept', async () => {
    const parts = [
      { type: 'text', text: 'Here is the answer' },
      { type: 'context', uri: 'ctx://resources/doc.md', context_type: 'resource', abstract: 'A doc' },
      { type: 'tool', tool_id: 't1', tool_name: 'search', skill_uri: 'ctx://user/alice/skills/web', tool_input: { q: 'x' }, tool_output: 'found', tool_status: 'completed' },
    ];
    const res = await post('/api/v1/sessions/parts/messages', { role: 'assistant', content: 'ignored', parts, created_at: '2026-01-02T03:04:05Z', peer_id: 'web_user_1', metadata: { source: 'test' } });
    expect(res.status).toBe(200);
    const [m] = (await context('parts')).messages;
    expect(m).toMatchObject({ role: 'assistant', parts, created_at: '2026-01-02T03:04:05.000Z', peer_id: 'web_user_1', metadata: { source: 'test' } });
    expect(typeof m.id).toBe('string');
  });

  it('defaults of context and tool parts', async () => {
    await post('/api/v1/sessions/defaults/messages', { role: 'assistant', parts: [{ type: 'context' }, { type: 'tool', tool_name: 'x' }] });
    const [m] = (await context('defaults')).messages;
    expect(m.parts).toEqual([
      { type: 'context', uri: '', context_type: 'memory', abstract: '' },
      { type: 'tool', tool_id: '', tool_name: 'x', skill_uri: '', tool_input: null, tool_output: '', tool_status: 'pending' },
    ]);
  });

  it('keeps text exactly (unicode, markup, newlines, long) and order', async () => {
    const texts = ['你好世界 🌍 café', '<script>alert("x")</script> & \'q\'', 'Line 1\nLine 2\n\nP2', 'X'.repeat(5000), '', '   \n\t '];
    for (const text of texts) await post('/api/v1/sessions/exact/messages', { role: 'user', content: text });
    await post('/api/v1/sessions/exact/messages', { role: 'system', content: 'be brief' });
    const ms = (await context('exact')).messages;
    expect(ms.map((m: any) => m.parts[0].text)).toEqual([...texts, 'be brief']);
    expect(ms.at(-1).role).toBe('system');
  });

  it('rejects bad input', async () => {
    const cases: Array<[unknown, string]> = [
      [{ role: 'user' }, 'content'],
      [{ content: 'x' }, 'role'],
      [{ role: 'robot', content: 'x' }, 'role'],
      [{ role: 'user', content: 5 }, 'content'],
      [{ role: 'user', parts: 'x' }, 'parts'],
      [{ role: 'user', parts: [{ type: 'image', url: 'x' }] }, 'parts[0].type'],
      [{ role: 'user', parts: [{ type: 'text' }] }, 'parts[0].text'],
      [{ role: 'user', parts: [{ type: 'text', text: 'a', extra: 1 }] }, 'parts[0].extra'],
      [{ role: 'user', parts: [{ type: 'context', context_type: 'file' }] }, 'parts[0].context_type'],
      [{ role: 'user', parts: [{ type: 'tool', tool_status: 'done' }] }, 'parts[0].tool_status'],
      [{ role: 'user', parts: [{ type: 'tool', tool_input: 'x' }] }, 'parts[0].tool_input'],
      [{ role: 'user', parts: [{ type: 'tool', tool_output: {} }] }, 'parts[0].tool_output'],
      [{ role: 'user', parts: [null] }, 'parts[0]'],
      [{ role: 'user', content: 'x', created_at: 'yesterday' }, 'created_at'],
      [{ role: 'user', content: 'x', peer_id: 'bad id' }, 'peer_id'],
      [{ role: 'user', content: 'x', unknown: 1 }, 'unknown'],
    ];
    for (const [body, field] of cases) {
      const res = await post('/api/v1/sessions/bad/messages', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('INVALID_ARGUMENT');
      expect(res.json().error.details.field, JSON.stringify(body)).toBe(field);
    }
    // Nothing was created by the rejected requests.
    expect((await get('/api/v1/sessions/bad')).status).toBe(404);
    const malformed = await t.req({ method: 'POST', url: '/api/v1/sessions/bad/messages', headers: { ...alice, 'content-type': 'application/json' }, body: '{"role":"user",' });
    expect(malformed.status).toBe(400);
  });

  it('rejects an oversized body with 413', async () => {
    const res = await post('/api/v1/sessions/big/messages', { role: 'user', content: 'y'.repeat(5 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect((await get('/api/v1/sessions/big')).status).toBe(404);
  });
});

describe('messages/batch', () => {
  it('adds up to 100 messages atomically', async () => {
    const messages = Array.from({ length: 100 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` }));
    const r = (await post('/api/v1/sessions/batch/messages/batch', { messages })).json().result;
    expect(r).toMatchObject({ session_id: 'batch', message_count: 100, added: 100 });
    expect((await context('batch')).messages.map((m: any) => m.parts[0].text)).toEqual(messages.map((m) => m.content));
  });

  it('rejects 101 messages, an empty list, and one bad message without adding any', async () => {
    const many = Array.from({ length: 101 }, () => ({ role: 'user', content: 'x' }));
    expect((await post('/api/v1/sessions/batch2/messages/batch', { messages: many })).status).toBe(400);
    expect((await post('/api/v1/sessions/batch2/messages/batch', { messages: [] })).status).toBe(400);
    const res = await post('/api/v1/sessions/batch2/messages/batch', { messages: [{ role: 'user', content: 'ok' }, { role: 'user', parts: [{ type: 'nope' }] }] });
    expect(res.status).toBe(400);
    expect(res.json().error.details.field).toBe('messages[1].parts[0].type');
    expect((await get('/api/v1/sessions/batch2')).status).toBe(404);
  });
});

describe('concurrency and durability', () => {
  it('concurrent appends to one session are all kept, in a consistent count', async () => {
    await Promise.all(Array.from({ length: 40 }, (_, i) => post('/api/v1/sessions/race/messages', { role: 'user', content: `c${i}` })));
    const info = (await get('/api/v1/sessions/race')).json().result;
    expect(info.message_count).toBe(40);
    const ms = (await context('race')).messages;
    expect(new Set(ms.map((m: any) => m.parts[0].text)).size).toBe(40);
    expect(info.pending_tokens).toBe(ms.length * 0 + (await context('race')).stats.activeTokens);
  });

  it('acknowledged messages survive a restart', async () => {
    await post('/api/v1/sessions/durable/messages', { role: 'user', content: 'remember me' });
    await t.restart();
    const ms = (await context('durable')).messages;
    expect(ms.map((m: any) => m.parts[0].text)).toEqual(['remember me']);
  });
});

describe('context', () => {
  it('returns live messages with real token counts and empty archive fields', async () => {
    await post('/api/v1/sessions/ctx1/messages', { role: 'user', content: 'What is machine learning?' });
    const r = await context('ctx1');
    const expected = countTokens('What is machine learning?') + 4;
    expect(r).toEqual({
      latest_archive_overview: '',
      pre_archive_abstracts: [],
      messages: [expect.objectContaining({ role: 'user' })],
      estimatedTokens: expected,
      stats: { totalArchives: 0, includedArchives: 0, droppedArchives: 0, failedArchives: 0, activeTokens: expected, archiveTokens: 0 },
    });
  });

  it('token_budget: negative or not an integer is 400, 0 is fine; missing session 404', async () => {
    await post('/api/v1/sessions/ctx2/messages', { role: 'user', content: 'x' });
    expect((await get('/api/v1/sessions/ctx2/context?token_budget=-1')).status).toBe(400);
    expect((await get('/api/v1/sessions/ctx2/context?token_budget=abc')).status).toBe(400);
    expect((await get('/api/v1/sessions/ctx2/context?token_budget=0')).status).toBe(200);
    const missing = await get('/api/v1/sessions/nonexistent-xyz/context');
    expect(missing.status).toBe(404);
    expect(missing.json().error.code).toBe('NOT_FOUND');
  });
});

describe('used', () => {
  it('records contexts and skills; validates URIs', async () => {
    await post('/api/v1/sessions/used/messages', { role: 'user', content: 'x' });
    const r = (await post('/api/v1/sessions/used/used', { contexts: ['ctx://resources/a', 'ctx://~/skills/s1'], skill: { name: 'sk', uri: 'ctx://~/skills/multi' } })).json().result;
    expect(r).toEqual({ session_id: 'used', contexts_used: 2, skills_used: 1 });
    expect((await post('/api/v1/sessions/used/used', {})).status).toBe(200);
    expect((await post('/api/v1/sessions/used/used', { contexts: ['not a uri'] })).status).toBe(400);
    expect((await post('/api/v1/sessions/used/used', { contexts: 'x' })).status).toBe(400);
    // As in the reference, a missing session is no error: it is created.
    expect((await post('/api/v1/sessions/nosuch/used', { contexts: ['ctx://resources/z'] })).json().result).toEqual({ session_id: 'nosuch', contexts_used: 1, skills_used: 0 });
    expect((await get('/api/v1/sessions/nosuch')).status).toBe(200);
  });
});

describe('sessions written through the file system (restored or migrated)', () => {
  it('a session directory without .meta.json is a session; odd lines are skipped; numbering continues after existing archives', async () => {
    const w = (uri: string, content: string) => t.req({ method: 'POST', url: '/api/v1/content/write', headers: alice, body: { uri, content } });
    expect((await w('ctx://user/alice/sessions/restored/messages.jsonl', [JSON.stringify({ role: 'user', content: 'old style' }), 'not json', JSON.stringify({ id: 'm2', role: 'assistant', parts: [{ type: 'text', text: 'new style' }], created_at: '2026-01-01T00:00:00.000Z' })].join('\n') + '\n')).status).toBe(200);
    expect((await w('ctx://user/alice/sessions/restored/history/archive_004/messages.jsonl', JSON.stringify({ role: 'user', content: 'archived long ago' }) + '\n')).status).toBe(200);
    const info = (await get('/api/v1/sessions/restored')).json().result;
    expect(info).toMatchObject({ session_id: 'restored', message_count: 2, total_message_count: 2 });
    expect(info.pending_tokens).toBeGreaterThan(0);
    // The archive has no done marker: an incomplete archive's messages stay active.
    expect((await context('restored')).messages.map((m: any) => m.parts[0].text)).toEqual(['archived long ago', 'old style', 'new style']);
    expect((await post('/api/v1/sessions/restored/messages', { role: 'user', content: 'appended' })).json().result.message_count).toBe(3);
    const started = (await post('/api/v1/sessions/restored/commit', {})).json().result;
    expect(started.archive_uri).toMatch(/archive_005$/);
    expect((await get('/api/v1/sessions')).json().result.map((s: any) => s.session_id)).toContain('restored');
  });
});
