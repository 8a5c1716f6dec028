/**
 * The /mcp endpoint over a real socket with the SDK's client: tool list and schemas, auth as the
 * HTTP API, sessions bound to the identity that opened them, bounded and expiring.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, ok, startMcpServer, type McpServerUnderTest } from './helpers.js';

let srv: McpServerUnderTest;
let alice: Record<string, string>;
let bob: Record<string, string>;
let eve: Record<string, string>;
beforeAll(async () => {
  srv = await startMcpServer({ env: { CTX_PLUGIN_MCP_MAX_SESSIONS: '6', CTX_PLUGIN_MCP_MAX_SESSIONS_PER_USER: '3' } });
  const acme = await srv.t.account('acme', ['alice', 'bob']);
  alice = acme.users.alice!;
  bob = acme.users.bob!;
  eve = (await srv.t.account('evil', ['eve'])).users.eve!;
}, 60_000);
afterAll(() => srv?.close());

const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const init = (id = 1) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

async function rawInit(headers: Record<string, string>): Promise<{ status: number; session: string | null; body: any }> {
  const res = await fetch(`${srv.base}/mcp`, { method: 'POST', headers: { ...ACCEPT, ...headers }, body: JSON.stringify(init()) });
  return { status: res.status, session: res.headers.get('mcp-session-id'), body: await res.json() };
}

async function rawCall(headers: Record<string, string>, session: string, body: unknown) {
  const res = await fetch(`${srv.base}/mcp`, { method: 'POST', headers: { ...ACCEPT, ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

const ISSUE_TOOLS = [
  'find', 'search', 'read', 'list', 'tree', 'stat', 'grep', 'glob', 'write', 'edit', 'mkdir', 'move', 'forget', 'tag',
  'add_resource', 'watch', 'list_watches', 'cancel_watch', 'remember', 'session_context', 'skills', 'task_status',
  'code_outline', 'code_search', 'code_expand', 'health',
];

describe('tools/list', () => {
  it('lists every tool with a description for a model and an object schema', async () => {
    const c = await connect(srv.base, alice);
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...ISSUE_TOOLS].sort());
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeGreaterThan(60);
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(t.annotations?.readOnlyHint, t.name).toBeTypeOf('boolean');
    }
    const find = tools.find((t) => t.name === 'find')!;
    expect(find.inputSchema.required).toEqual(['query']);
    expect((find.inputSchema.properties as any).limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 10 });
    expect(tools.find((t) => t.name === 'forget')!.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    await c.close();
  });

  it('announces itself with instructions and the capabilities it serves', async () => {
    const c = await connect(srv.base, alice);
    expect(c.getServerVersion()).toMatchObject({ name: 'ctx' });
    expect(c.getServerCapabilities()).toMatchObject({ tools: {}, resources: { subscribe: true }, prompts: {} });
    expect(c.getInstructions()).toContain('find');
    await c.close();
  });

  it('bad arguments are a tool error with INVALID_ARGUMENT naming the field, not a protocol failure', async () => {
    const c = await connect(srv.base, alice);
    const r = (await c.callTool({ name: 'find', arguments: { query: 'x', limit: 'many' } })) as any;
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'arguments.limit' } });
    const extra = (await c.callTool({ name: 'stat', arguments: { uri: 'ctx://resources', nope: 1 } })) as any;
    expect(extra.structuredContent.error.code).toBe('INVALID_ARGUMENT');
    await expect(c.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/unknown tool/);
    await c.close();
  });
});

describe('auth as the HTTP API', () => {
  it('refuses a missing or wrong key with 401 and the spec envelope', async () => {
    const none = await fetch(`${srv.base}/mcp`, { method: 'POST', headers: ACCEPT, body: JSON.stringify(init()) });
    expect(none.status).toBe(401);
    expect((await none.json()).error.code).toBe('UNAUTHENTICATED');
    const wrong = await fetch(`${srv.base}/mcp`, { method: 'POST', headers: { ...ACCEPT, 'x-api-key': 'not-a-key-0123456789' }, body: JSON.stringify(init()) });
    expect(wrong.status).toBe(401);
  });

  it('takes Authorization: Bearer as well as X-API-Key', async () => {
    const c = await connect(srv.base, { authorization: `Bearer ${alice['x-api-key']}` });
    const r = await ok(c, 'health');
    expect(r.structuredContent).toMatchObject({ healthy: true, account_id: 'acme', user_id: 'alice', role: 'USER' });
    await c.close();
  });

  it('runs every call as the caller: the root key is ROOT, a user key that user', async () => {
    const root = await connect(srv.base, srv.t.root);
    expect((await ok(root, 'health')).structuredContent).toMatchObject({ role: 'ROOT' });
    await root.close();
  });
});

describe('sessions', () => {
  it('a session is usable only by the identity that opened it', async () => {
    const opened = await rawInit(alice);
    expect(opened.status).toBe(200);
    expect(opened.session).toMatch(/^[0-9a-f-]{36}$/);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    expect((await rawCall(alice, opened.session!, list)).status).toBe(200);
    // Another user of the same account, and a user of another account: as if it did not exist.
    for (const other of [bob, eve]) {
      const r = await rawCall(other, opened.session!, list);
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ code: -32001, message: 'Session not found' });
    }
    const stream = await fetch(`${srv.base}/mcp`, { headers: { ...bob, accept: 'text/event-stream', 'mcp-session-id': opened.session! } });
    expect(stream.status).toBe(404);
    const del = await fetch(`${srv.base}/mcp`, { method: 'DELETE', headers: { ...eve, 'mcp-session-id': opened.session! } });
    expect(del.status).toBe(404);
    // Still alive for its owner.
    expect((await rawCall(alice, opened.session!, list)).status).toBe(200);
  });

  it('an unknown session is 404; no session and no initialize is 400; bad JSON is a parse error', async () => {
    expect((await rawCall(alice, '00000000-0000-0000-0000-000000000000', { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(404);
    const noSession = await fetch(`${srv.base}/mcp`, { method: 'POST', headers: { ...ACCEPT, ...alice }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(noSession.status).toBe(400);
    expect((await noSession.json()).error.code).toBe(-32000);
    const bad = await fetch(`${srv.base}/mcp`, { method: 'POST', headers: { ...ACCEPT, ...alice }, body: '{nope' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe(-32700);
    const getNoSession = await fetch(`${srv.base}/mcp`, { headers: { ...alice, accept: 'text/event-stream' } });
    expect(getNoSession.status).toBe(400);
  });

  it('the mcp observer component counts the open sessions', async () => {
    const r = await srv.t.req({ url: '/api/v1/observer/system', headers: srv.t.root });
    expect(r.json().result.components.mcp).toMatchObject({ is_healthy: true, status: expect.stringMatching(/^sessions: \d+ of 6$/) });
  });

  it('DELETE ends the session', async () => {
    const opened = await rawInit(alice);
    const del = await fetch(`${srv.base}/mcp`, { method: 'DELETE', headers: { ...alice, 'mcp-session-id': opened.session!, 'mcp-protocol-version': '2025-11-25' } });
    expect(del.status).toBe(200);
    expect((await rawCall(alice, opened.session!, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(404);
  });

  it('a user over their limit loses their least recently used session; a full server refuses with 429', async () => {
    const carol = (await srv.t.account('limits', ['u1', 'u2', 'u3'])).users;
    const first = await rawInit(carol.u1!);
    const second = await rawInit(carol.u1!);
    const third = await rawInit(carol.u1!);
    await rawCall(carol.u1!, first.session!, { jsonrpc: '2.0', id: 2, method: 'tools/list' }); // second is now the oldest used
    const fourth = await rawInit(carol.u1!);
    expect(fourth.status).toBe(200);
    expect((await rawCall(carol.u1!, second.session!, { jsonrpc: '2.0', id: 3, method: 'tools/list' })).status).toBe(404);
    for (const s of [first, third, fourth]) expect((await rawCall(carol.u1!, s.session!, { jsonrpc: '2.0', id: 4, method: 'tools/list' })).status).toBe(200);
    // 6 in all: whatever earlier tests left open, fill up to the limit with other users, then one more is refused.
    let refused: Awaited<ReturnType<typeof rawInit>> | undefined;
    for (const u of [carol.u2!, carol.u2!, carol.u2!, carol.u3!, carol.u3!, carol.u3!]) {
      const r = await rawInit(u);
      if (r.status !== 200) {
        refused = r;
        break;
      }
    }
    expect(refused?.status).toBe(429);
    expect(refused?.body.error.message).toMatch(/Too many MCP sessions/);
    for (const s of [first, third, fourth])
      await fetch(`${srv.base}/mcp`, { method: 'DELETE', headers: { ...carol.u1!, 'mcp-session-id': s.session!, 'mcp-protocol-version': '2025-11-25' } });
  });
});
