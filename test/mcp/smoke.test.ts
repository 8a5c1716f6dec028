import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, ok, startMcpServer, type McpServerUnderTest } from './helpers.js';

let srv: McpServerUnderTest;
let alice: Record<string, string>;
beforeAll(async () => {
  srv = await startMcpServer();
  const acct = await srv.t.account('acme', ['alice']);
  alice = acct.users.alice!;
}, 60_000);
afterAll(() => srv?.close());

describe('smoke', () => {
  it('lists tools and writes then reads', async () => {
    const c = await connect(srv.base, alice);
    const tools = await c.listTools();
    expect(tools.tools.length).toBeGreaterThan(20);
    const w = await ok(c, 'write', { uri: 'ctx://~/resources/notes/a.md', content: 'hello world' });
    console.log(w.content[0]!.text);
    const r = await ok(c, 'read', { uri: 'ctx://~/resources/notes/a.md' });
    expect(r.content[0]!.text).toBe('hello world');
    await c.close();
  });
});
