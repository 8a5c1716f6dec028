import { describe, expect, it } from 'vitest';
import { oneLine } from '../../plugins/mcp/tool.js';
import { messageKind } from '../../plugins/mcp/messages.js';

describe('MCP transport: JSON-RPC message shapes', () => {
  it('tells requests, notifications and responses apart', () => {
    expect(messageKind({ jsonrpc: '2.0', id: 1, method: 'ping' })).toBe('request');
    expect(messageKind({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'x' } })).toBe('request');
    expect(messageKind({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe('notification');
    expect(messageKind({ jsonrpc: '2.0', id: 3, result: {} })).toBe('response');
    expect(messageKind({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'x' } })).toBe('response');
  });

  it('refuses what is not JSON-RPC 2.0', () => {
    for (const bad of [null, 1, 'x', [], {}, { jsonrpc: '1.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 1.5, method: 'ping' }, { jsonrpc: '2.0', id: {}, method: 'ping' },
      { jsonrpc: '2.0', id: 1, method: 'ping', params: [1] }, { jsonrpc: '2.0', id: 1, method: 7 }, { jsonrpc: '2.0', id: 1, result: 5 }, { jsonrpc: '2.0', id: 1, error: { code: 'x', message: 'm' } }, { jsonrpc: '2.0', id: 1 }]) {
      expect(messageKind(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });
});

describe('oneLine', () => {
  it('collapses whitespace runs and trims', () => {
    expect(oneLine('  a\n\n b\t c  ')).toBe('a b c');
    expect(oneLine('')).toBe('');
  });
  it('cuts at max with a count of what was left out, reading only the head', () => {
    const text = 'word '.repeat(10_000);
    const line = oneLine(text, 20);
    expect(line.startsWith('word word word word ')).toBe(true);
    expect(line).toMatch(/… \(\d+ more characters\)$/);
    const more = Number(/\((\d+) more/.exec(line)![1]);
    expect(more).toBeGreaterThan(text.length - 40);
    expect(more).toBeLessThanOrEqual(text.length - 20);
  });
  it('keeps a line of exactly max characters whole', () => {
    expect(oneLine('x'.repeat(200))).toBe('x'.repeat(200));
    expect(oneLine('x'.repeat(201))).toBe(`${'x'.repeat(200)}… (1 more characters)`);
  });
});

import { afterAll, beforeAll } from 'vitest';
import { startMcpServer, type McpServerUnderTest } from './helpers.js';

describe('MCP Streamable HTTP framing over a real socket', () => {
  let srv: McpServerUnderTest;
  let h: Record<string, string>;
  let session: string;
  const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  const post = (headers: Record<string, string>, body: unknown) =>
    fetch(`${srv.base}/mcp`, { method: 'POST', headers: { ...ACCEPT, ...h, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const inSession = (extra: Record<string, string> = {}) => ({ 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', ...extra });

  beforeAll(async () => {
    srv = await startMcpServer();
    h = srv.t.root;
    const r = await post({}, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    expect(r.status).toBe(200);
    session = r.headers.get('mcp-session-id')!;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    expect((await post(inSession(), { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  }, 60_000);
  afterAll(() => srv?.close());

  it('answers a request with JSON carrying the session id, and a batch with an array in order', async () => {
    const one = await post(inSession(), { jsonrpc: '2.0', id: 7, method: 'ping' });
    expect(one.status).toBe(200);
    expect(one.headers.get('content-type')).toMatch(/^application\/json/);
    expect(one.headers.get('mcp-session-id')).toBe(session);
    expect(await one.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    const batch = await post(inSession(), [{ jsonrpc: '2.0', id: 'a', method: 'ping' }, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'zz' } }, { jsonrpc: '2.0', id: 'b', method: 'tools/list' }]);
    const body = (await batch.json()) as Array<{ id: string }>;
    expect(body.map((m) => m.id).sort()).toEqual(['a', 'b']);
  });

  it('refuses a client that does not accept both JSON and SSE (406), a wrong protocol version (400), a message that is not JSON-RPC (400 -32700)', async () => {
    expect((await post({ ...inSession(), accept: 'application/json' }, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(406);
    const version = await post(inSession({ 'mcp-protocol-version': '1999-01-01' }), { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(version.status).toBe(400);
    expect(((await version.json()) as { error: { message: string } }).error.message).toMatch(/Unsupported protocol version/);
    const notRpc = await post(inSession(), { hello: 'world' });
    expect(notRpc.status).toBe(400);
    expect(((await notRpc.json()) as { error: { code: number } }).error.code).toBe(-32700);
    expect((await post(inSession(), [])).status).toBe(400);
    expect((await post(inSession(), Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })))).status).toBe(400);
  });

  it('refuses a second initialize on a session', async () => {
    const r = await post(inSession(), { jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/already initialized/);
  });

  it('opens one event stream per session (a second is 409) and needs Accept: text/event-stream (406)', async () => {
    expect((await fetch(`${srv.base}/mcp`, { headers: { ...h, ...inSession(), accept: 'application/json' } })).status).toBe(406);
    const ac = new AbortController();
    const first = await fetch(`${srv.base}/mcp`, { headers: { ...h, ...inSession(), accept: 'text/event-stream' }, signal: ac.signal });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const second = await fetch(`${srv.base}/mcp`, { headers: { ...h, ...inSession(), accept: 'text/event-stream' } });
    expect(second.status).toBe(409);
    ac.abort();
  });

  it('DELETE ends the session; it is then unknown (404)', async () => {
    const del = await fetch(`${srv.base}/mcp`, { method: 'DELETE', headers: { ...h, ...inSession() } });
    expect(del.status).toBe(200);
    expect((await post(inSession(), { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(404);
  });
});
