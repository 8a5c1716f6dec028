/** Bot chat against a fake OpenAI-compatible server with tool calls and streaming (in-process and real sockets). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { write, wait } from '../retrieval/helpers.js';
import { startFakeLlm, type FakeLlm } from './fake-llm.js';
import { pollUntil } from '../helpers/poll.js';

let llm: FakeLlm;
let t: TestApp;
let alice: Record<string, string>;
let bob: Record<string, string>;
let admin: Record<string, string>;
let base: string;

const chat = (headers: Record<string, string>, body: unknown) => t.req({ method: 'POST', url: '/bot/v1/chat', headers, body });

/** Reads an SSE response to its end: every `data:` message parsed. */
async function sseEvents(res: Response): Promise<Array<{ event: string; data: any; timestamp: string }>> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((b) => b.trim())
    .map((b) => {
      const lines = b.split('\n');
      expect(lines.every((l) => l.startsWith('data: '))).toBe(true);
      return JSON.parse(lines.map((l) => l.slice(6)).join('\n'));
    });
}

beforeAll(async () => {
  llm = await startFakeLlm();
  t = await startTestApp({ config: { botEnabled: true, llm: { baseUrl: llm.url } } });
  const acme = await t.account('acme', ['alice', 'bob']);
  ({ admin } = acme);
  alice = acme.users.alice!;
  bob = acme.users.bob!;
  await write(t, alice, 'ctx://user/alice/memories/preferences/editor.md', 'Alice prefers the vim editor with a dark solarized theme.');
  await write(t, bob, 'ctx://user/bob/memories/preferences/editor.md', 'Bob prefers the emacs editor with org mode.');
  await write(t, admin, 'ctx://resources/kb/redis.md', '# Redis eviction\n\nThe maxmemory policy allkeys-lru evicts least recently used keys.');
  await wait(t);
  base = `http://127.0.0.1:${(await t.app.listen(0, '127.0.0.1')).port}`;
}, 60_000);
afterAll(async () => {
  await t?.close();
  await llm?.close();
});

describe('chat', () => {
  it('health answers without the envelope', async () => {
    const r = await t.req({ url: '/bot/v1/health' });
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ status: 'healthy', version: expect.any(String), timestamp: expect.any(String) });
  });

  it('answers with relevant memories of the caller only, token usage and a session id', async () => {
    llm.script.push({ text: 'You use vim.', usage: { prompt_tokens: 30, completion_tokens: 4, total_tokens: 34 } });
    const r = await chat(alice, { message: 'which editor do I prefer?' });
    expect(r.status).toBe(200);
    const b = r.json();
    expect(b.status).toBeUndefined();
    expect(b).toMatchObject({ message: 'You use vim.', token_usage: { prompt_tokens: 30, completion_tokens: 4, total_tokens: 34 } });
    expect(b.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.response_id).toMatch(/^[0-9a-f-]{36}$/);
    const uris = b.relevant_memories.map((m: any) => m.uri);
    expect(uris).toContain('ctx://user/alice/memories/preferences/editor.md');
    expect(uris.some((u: string) => u.includes('/bob/'))).toBe(false);
    // The model saw them in its system prompt, and the bot's tools.
    const sent = llm.received.at(-1)!;
    expect(sent.messages[0]!.content).toContain('ctx://user/alice/memories/preferences/editor.md');
    expect(sent.tools!.map((x) => x.function.name).sort()).toEqual(['list_directory', 'read_file', 'search']);
    expect(b.events.map((e: any) => e.event)).toEqual(['iteration', 'response']);
  });

  it('runs tool calls against the store as the caller: readable files read, another user’s refused', async () => {
    llm.script.push(
      { calls: [{ name: 'read_file', args: { uri: 'ctx://resources/kb/redis.md' } }, { name: 'read_file', args: { uri: 'ctx://user/bob/memories/preferences/editor.md' } }], text: 'Let me look.' },
      { calls: [{ name: 'list_directory', args: { uri: 'ctx://resources/kb' } }] },
      { text: 'allkeys-lru evicts LRU keys.' },
    );
    const r = await chat(alice, { message: 'how does redis evict?', session_id: 'sess-1' });
    expect(r.status).toBe(200);
    const b = r.json();
    expect(b.session_id).toBe('sess-1');
    expect(b.message).toBe('allkeys-lru evicts LRU keys.');
    expect(b.token_usage.total_tokens).toBe(3 * 17);
    const kinds = b.events.map((e: any) => e.event);
    expect(kinds).toEqual(['iteration', 'reasoning', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'iteration', 'tool_call', 'tool_result', 'iteration', 'response']);
    const results = b.events.filter((e: any) => e.event === 'tool_result').map((e: any) => e.data);
    expect(results[0]).toMatchObject({ name: 'read_file', ok: true });
    expect(results[0].result).toContain('allkeys-lru');
    expect(results[1]).toMatchObject({ name: 'read_file', ok: false });
    expect(results[1].result).toMatch(/PERMISSION_DENIED/);
    expect(results[2].result).toContain('redis.md');
    // The tool answers went back to the model with their call ids.
    const third = llm.received.at(-1)!;
    const toolMsgs = third.messages.filter((m) => m.role === 'tool');
    expect(toolMsgs.length).toBe(3);
    expect(toolMsgs[0]!.tool_call_id).toMatch(/^call_/);
  });

  it('keeps the conversation per session and sends the context array', async () => {
    llm.script.push({ text: 'second answer' });
    await chat(alice, { message: 'follow-up', session_id: 'sess-1', context: [{ role: 'user', content: 'from the channel' }] });
    const sent = llm.received.at(-1)!.messages;
    const texts = sent.map((m) => m.content);
    expect(texts).toContain('from the channel');
    expect(texts).toContain('how does redis evict?');
    expect(texts).toContain('allkeys-lru evicts LRU keys.');
    expect(sent.at(-1)).toMatchObject({ role: 'user', content: 'follow-up' });
    // Bob's session of the same id is his own.
    llm.script.push({ text: 'hi bob' });
    await chat(bob, { message: 'hello', session_id: 'sess-1' });
    expect(llm.received.at(-1)!.messages.map((m) => m.content)).not.toContain('follow-up');
  });

  it('honours disabled_tools: not offered, and refused if called anyway', async () => {
    llm.script.push({ calls: [{ name: 'read_file', args: { uri: 'ctx://resources/kb/redis.md' } }] }, { text: 'done' });
    const r = await chat(alice, { message: 'read it', disabled_tools: ['read_file', 'search'] });
    const b = r.json();
    expect(llm.received.at(-2)!.tools!.map((x) => x.function.name)).toEqual(['list_directory']);
    const res = b.events.find((e: any) => e.event === 'tool_result').data;
    expect(res).toMatchObject({ ok: false, result: 'tool read_file is disabled for this conversation' });
    // All tools disabled: no tools at all.
    llm.script.push({ text: 'plain' });
    await chat(alice, { message: 'x', disabled_tools: ['read_file', 'search', 'list_directory'] });
    expect(llm.received.at(-1)!.tools).toBeUndefined();
  });

  it('bad tool arguments and unknown tools are answers for the model, not failures', async () => {
    llm.script.push({ calls: [{ name: 'read_file', args: 'not json' }, { name: 'rm_rf', args: {} }] }, { text: 'sorry' });
    const b = (await chat(alice, { message: 'x' })).json();
    const res = b.events.filter((e: any) => e.event === 'tool_result').map((e: any) => e.data.result);
    expect(res[0]).toMatch(/must be a JSON object/);
    expect(res[1]).toMatch(/unknown tool rm_rf/);
  });

  it('stops offering tools after the round limit and forces an answer', async () => {
    for (let i = 0; i < 6; i++) llm.script.push({ calls: [{ name: 'list_directory', args: { uri: 'ctx://resources' } }] });
    llm.script.push({ text: 'final' });
    const b = (await chat(alice, { message: 'loop' })).json();
    expect(b.message).toBe('final');
    expect(llm.received.at(-1)!.tools).toBeUndefined();
  });

  it('need_reply false records the message without calling the model', async () => {
    const n = llm.received.length;
    const b = (await chat(alice, { message: 'just so you know', need_reply: false, session_id: 'quiet' })).json();
    expect(llm.received.length).toBe(n);
    expect(b).toMatchObject({ session_id: 'quiet', response_id: null, message: '', token_usage: { total_tokens: 0 } });
  });

  it('sends images to the model as content parts', async () => {
    llm.script.push({ text: 'a cat' });
    await chat(alice, { images: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } }] });
    const last = llm.received.at(-1)!.messages.at(-1)!;
    expect(last.content).toEqual([{ type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } }]);
  });

  it('an LLM failure is 503', async () => {
    llm.script.push({ status: 400 });
    const r = await chat(alice, { message: 'x' });
    expect(r.status).toBe(503);
    expect(r.json().error.code).toBe('UNAVAILABLE');
  });
});

describe('bad input', () => {
  it.each([
    [{}, 'message'],
    [{ message: '   ' }, 'message'],
    [{ message: 1 }, 'message'],
    [{ message: 'x', session_id: 'a/b' }, 'session_id'],
    [{ message: 'x', need_reply: 'yes' }, 'need_reply'],
    [{ message: 'x', disabled_tools: 'read_file' }, 'disabled_tools'],
    [{ message: 'x', context: [{ role: 'user' }] }, 'context[0].content'],
    [{ images: [{ type: 'file', image_url: { url: 'https://a.b/c.png' } }] }, 'images[0].type'],
    [{ images: [{ type: 'image_url', image_url: { url: 'https://a.b/c.png', detail: 'max' } }] }, 'images[0].image_url.detail'],
  ])('%j → 400 naming %s', async (body, field) => {
    const r = await chat(alice, body);
    expect(r.status).toBe(400);
    expect(r.json().error.code).toBe('INVALID_ARGUMENT');
    expect(r.json().error.details.field).toBe(field);
  });

  it('needs credentials', async () => {
    expect((await t.req({ method: 'POST', url: '/bot/v1/chat', body: { message: 'x' } })).status).toBe(401);
  });
});

describe('feedback', () => {
  let responseId: string;
  beforeAll(async () => {
    llm.script.push({ text: 'rate me' });
    responseId = (await chat(alice, { message: 'q', session_id: 'fb' })).json().response_id;
  });
  const fb = (headers: Record<string, string>, body: unknown) => t.req({ method: 'POST', url: '/bot/v1/feedback', headers, body });

  it('thumb_up, thumb_down and rating with a score are accepted', async () => {
    for (const body of [{ feedback_type: 'thumb_up' }, { feedback_type: 'thumb_down', feedback_reason: 'wrong' }, { feedback_type: 'rating', feedback_score: 4, feedback_text: 'good' }]) {
      const r = await fb(alice, { session_id: 'fb', response_id: responseId, ...body });
      expect(r.status).toBe(200);
      expect(r.json()).toMatchObject({ accepted: true, response_id: responseId, session_id: 'fb', feedback_type: body.feedback_type, feedback_delay_sec: expect.any(Number), timestamp: expect.any(String) });
    }
  });

  it('rating without a score is a validation error', async () => {
    const r = await fb(alice, { session_id: 'fb', response_id: responseId, feedback_type: 'rating' });
    expect(r.status).toBe(400);
    expect(r.json().error.details.field).toBe('feedback_score');
  });

  it.each([
    [{ session_id: 'fb', feedback_type: 'thumb_up' }, 'response_id'],
    [{ response_id: 'x', feedback_type: 'thumb_up' }, 'session_id'],
    [{ session_id: 'fb', response_id: 'x' }, 'feedback_type'],
    [{ session_id: 'fb', response_id: 'x', feedback_type: 'love' }, 'feedback_type'],
    [{ session_id: 'fb', response_id: 'x', feedback_type: 'rating', feedback_score: 'five' }, 'feedback_score'],
  ])('%j → 400 naming %s', async (body, field) => {
    const r = await fb(alice, body);
    expect(r.status).toBe(400);
    expect(r.json().error.details.field).toBe(field);
  });

  it('an unknown response, another session or another user’s response is 404', async () => {
    expect((await fb(alice, { session_id: 'fb', response_id: 'nope', feedback_type: 'thumb_up' })).status).toBe(404);
    expect((await fb(alice, { session_id: 'other', response_id: responseId, feedback_type: 'thumb_up' })).status).toBe(404);
    const r = await fb(bob, { session_id: 'fb', response_id: responseId, feedback_type: 'thumb_up' });
    expect(r.status).toBe(404);
    expect(r.json().error.code).toBe('NOT_FOUND');
  });
});

describe('account deletion', () => {
  it("drops the account's conversations, responses and feedback", async () => {
    const { users } = await t.account('gone', ['carol']);
    llm.script.push({ text: 'hello carol' });
    const first = (await chat(users.carol!, { message: 'hi', session_id: 's' })).json();
    expect((await t.req({ method: 'DELETE', url: '/api/v1/admin/accounts/gone', headers: t.root })).status).toBe(200);
    const again = await t.account('gone', ['carol']);
    const r = await t.req({ method: 'POST', url: '/bot/v1/feedback', headers: again.users.carol!, body: { session_id: 's', response_id: first.response_id, feedback_type: 'thumb_up' } });
    expect(r.status).toBe(404);
    llm.script.push({ text: 'fresh' });
    await chat(again.users.carol!, { message: 'new start', session_id: 's' });
    expect(llm.received.at(-1)!.messages.map((m) => m.content)).not.toContain('hello carol');
  });
});

describe('streaming over a real socket', () => {
  it('sends data: {event, data, timestamp} messages, X-Bot-Session-ID, deltas and a final response', async () => {
    llm.script.push({ calls: [{ name: 'search', args: { query: 'redis eviction' } }], text: 'Searching. ' }, { text: 'LRU keys go first.', reasoning: 'think ' });
    const res = await fetch(`${base}/bot/v1/chat/stream`, { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'redis?', session_id: 'live' }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-bot-session-id')).toBe('live');
    const events = await sseEvents(res);
    const kinds = events.map((e) => e.event);
    expect(kinds[0]).toBe('iteration');
    expect(kinds).toContain('content_delta');
    expect(kinds).toContain('reasoning');
    expect(kinds).toContain('reasoning_delta');
    expect(kinds.indexOf('tool_call')).toBeLessThan(kinds.indexOf('tool_result'));
    expect(kinds.at(-1)).toBe('response');
    for (const e of events) expect(new Date(e.timestamp).toString()).not.toBe('Invalid Date');
    const deltas = events.filter((e) => e.event === 'content_delta').map((e) => e.data.delta).join('');
    expect(deltas).toBe('Searching. LRU keys go first.');
    const search = events.find((e) => e.event === 'tool_result')!.data;
    expect(search.ok).toBe(true);
    expect(search.result).toContain('ctx://resources/kb/redis.md');
    const final = events.at(-1)!.data;
    expect(final).toMatchObject({ content: 'LRU keys go first.', session_id: 'live', response_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(final.token_usage.total_tokens).toBe(34);
    // Streamed from the model too, with usage asked for; the answer is a feedback target.
    expect(llm.received.at(-1)).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const f = await fetch(`${base}/bot/v1/feedback`, { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ session_id: 'live', response_id: final.response_id, feedback_type: 'thumb_up' }) });
    expect(f.status).toBe(200);
  });

  it('generates a session id when none is sent', async () => {
    llm.script.push({ text: 'hi' });
    const res = await fetch(`${base}/bot/v1/chat/stream`, { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hello' }) });
    const id = res.headers.get('x-bot-session-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await sseEvents(res)).at(-1)!.data.session_id).toBe(id);
  });

  it('the first event leaves before the model has finished', async () => {
    llm.gapMs = 150;
    llm.script.push({ text: 'one two three four' });
    try {
      const t0 = performance.now();
      const res = await fetch(`${base}/bot/v1/chat/stream`, { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'count' }) });
      const reader = res.body!.getReader();
      const dec = new TextDecoder();
      let buf = '';
      while (!buf.includes('content_delta')) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value);
      }
      // Four words 150 ms apart (plus the role chunk): the whole answer takes ≥ 600 ms.
      expect(performance.now() - t0).toBeLessThan(500);
      await reader.cancel();
    } finally {
      llm.gapMs = 0;
    }
  });

  it('a client that goes away mid-stream stops the model request', async () => {
    llm.gapMs = 100;
    llm.script.push({ text: 'a b c d e f g h i j k l m n o p q r s t u v w x y z' });
    try {
      const ctrl = new AbortController();
      const res = await fetch(`${base}/bot/v1/chat/stream`, { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'long' }), signal: ctrl.signal });
      const reader = res.body!.getReader();
      let buf = '';
      while (!buf.includes('content_delta')) buf += new TextDecoder().decode((await reader.read()).value);
      const before = llm.cutShort;
      ctrl.abort();
      await pollUntil(() => llm.cutShort !== before, { what: 'the LLM stream to be cut short' });
      expect(llm.cutShort).toBe(before + 1);
    } finally {
      llm.gapMs = 0;
    }
  });

  it('bad input is refused before the stream starts', async () => {
    const res = await fetch(`${base}/bot/v1/chat/stream`, { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ message: '' }) });
    expect(res.status).toBe(400);
    expect((await res.json()).error.details.field).toBe('message');
  });

  it('an LLM failure mid-stream ends it with a response event carrying the error', async () => {
    llm.script.push({ status: 400 });
    const res = await fetch(`${base}/bot/v1/chat/stream`, { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'x' }) });
    expect(res.status).toBe(200);
    const last = (await sseEvents(res)).at(-1)!;
    expect(last.event).toBe('response');
    expect(last.data.error).toMatch(/LLM/);
  });
});

describe('disabled', () => {
  it('every route is 503 when the bot is not enabled, and when there is no LLM', async () => {
    for (const config of [{ llm: { baseUrl: llm.url } }, { botEnabled: true }]) {
      const off = await startTestApp({ config });
      try {
        const { users } = await off.account('acme', ['alice']);
        const h = users.alice!;
        for (const [method, url, body] of [
          ['GET', '/bot/v1/health', undefined],
          ['POST', '/bot/v1/chat', { message: 'x' }],
          ['POST', '/bot/v1/chat/stream', { message: 'x' }],
          ['POST', '/bot/v1/feedback', { session_id: 's', response_id: 'r', feedback_type: 'thumb_up' }],
        ] as const) {
          const r = await off.req({ method, url, headers: h, body });
          expect(r.status, `${method} ${url}`).toBe(503);
          expect(r.json().error.code).toBe('UNAVAILABLE');
        }
      } finally {
        await off.close();
      }
    }
  });
});
