/**
 * The loop an agent relies on: `remember` a conversation → the LLM (a fake one on 127.0.0.1
 * speaking the OpenAI protocol) extracts memories → `find` returns them in a later session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeChat, type FakeChat } from '../sessions/fake-chat.js';
import { connect, ok, startMcpServer, type McpServerUnderTest } from './helpers.js';

let srv: McpServerUnderTest;
let llm: FakeChat;
let alice: Record<string, string>;
let bob: Record<string, string>;

beforeAll(async () => {
  llm = await startFakeChat();
  srv = await startMcpServer({ config: { llm: { baseUrl: llm.url, model: 'fake-model' } } });
  const acme = await srv.t.account('acme', ['alice', 'bob']);
  alice = acme.users.alice!;
  bob = acme.users.bob!;
}, 60_000);
afterAll(async () => {
  await srv?.close();
  await llm?.close();
});

describe('remember → extracted memory → find', () => {
  it('a memory the LLM extracted from a remembered exchange is found in a new session', async () => {
    llm.extraction.push({
      content: JSON.stringify({
        abstract: 'Alice talked about her allergy.',
        overview: '## Health\n- peanut allergy',
        memories: [{ category: 'profile', key: 'Peanut allergy', content: 'Alice is allergic to peanuts and carries an epinephrine pen.' }],
      }),
    });
    const first = await connect(srv.base, alice);
    const r = await ok(first, 'remember', {
      session_id: 'lunch',
      messages: [
        { role: 'user', content: 'Book lunch somewhere, but remember I am allergic to peanuts.' },
        { role: 'assistant', content: 'Noted: no peanuts. I booked the noodle bar.' },
      ],
      wait: true,
    });
    expect(r.structuredContent!.task).toMatchObject({ status: 'completed' });
    expect(r.structuredContent!.task.result.memories_extracted).toEqual({ profile: 1 });
    // The transcript reached the model.
    expect(llm.received.at(-1)!.messages[1]!.content).toContain('allergic to peanuts');
    await first.close();
    await srv.t.req({ method: 'POST', url: '/api/v1/system/wait', headers: srv.t.root, body: { timeout: 60 } });

    const later = await connect(srv.base, alice);
    const found = await ok(later, 'find', { query: 'what is alice allergic to', context_type: 'memory' });
    const hit = found.structuredContent!.memories[0];
    expect(hit.uri).toMatch(/^ctx:\/\/user\/alice\/memories\/profile\//);
    const memory = await ok(later, 'read', { uri: hit.uri });
    expect(memory.content[0]!.text).toContain('allergic to peanuts');
    await later.close();

    // Bob, in the same account, does not find it.
    const b = await connect(srv.base, bob);
    const his = await ok(b, 'find', { query: 'what is alice allergic to', context_type: 'memory' });
    expect(his.structuredContent!.total).toBe(0);
    await b.close();
  });

  it('without wait it returns the extraction task at once, which task_status follows to its end', async () => {
    const c = await connect(srv.base, alice);
    llm.hold();
    llm.extraction.push({ content: JSON.stringify({ abstract: 'a', overview: 'o', memories: [{ category: 'profile', key: 'Home town', content: 'Alice lives in Lisbon.' }] }) });
    const r = await ok(c, 'remember', { session_id: 'home', messages: [{ role: 'user', content: 'I live in Lisbon.' }] });
    const taskId = r.structuredContent!.task_id as string;
    expect(r.content[0]!.text).toContain(`runs as task ${taskId}`);
    await llm.waiting();
    expect((await ok(c, 'task_status', { task_id: taskId })).structuredContent!.status).toBe('running');
    llm.release();
    const done = await ok(c, 'task_status', { task_id: taskId, wait_seconds: 60 });
    expect(done.structuredContent).toMatchObject({ status: 'completed', result: { memories_extracted: { profile: 1 } } });
    await c.close();
  });
});
