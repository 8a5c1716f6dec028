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
  it('gives the same line for text that is already one line as for text whose whitespace it collapses', () => {
    // The reference: the words joined by single spaces, cut at max with what was left out counted.
    const reference = (text: string, max: number) => {
      const words = text.split(/[\s\u00a0\u2028\u2029\ufeff\u3000]+/).filter(Boolean);
      const line = words.join(' ');
      return line.length <= max ? line : line.slice(0, max);
    };
    let seed = 7;
    const rand = (k: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % k);
    for (let round = 0; round < 2000; round++) {
      const pieces: string[] = [];
      const words = rand(60);
      for (let w = 0; w < words; w++) pieces.push('abcdefghijkl'.slice(0, 1 + rand(12)).repeat(1 + rand(3)));
      const messy = rand(3) === 0;
      const text = messy ? pieces.map((p) => p + [' ', '  ', '\n', ' \t '][rand(4)]).join('') : pieces.join(' ');
      const max = [20, 50, 200][rand(3)]!;
      const line = oneLine(text, max);
      const head = line.replace(/… \(\d+ more characters\)$/, '');
      expect(head).toBe(reference(text, max));
      // Cut exactly when the collapsed line is longer than max, and never counting more than is there.
      expect(line !== head).toBe(reference(text, Infinity).length > max);
      if (line !== head) expect(Number(/\((\d+) more/.exec(line)![1])).toBeLessThanOrEqual(text.length - max);
      // Already one line: the same answer as collapsing it would give.
      if (!messy) expect(line).toBe(oneLine(` ${text}`, max));
    }
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

  it('answers a lone tools/call (the direct path) exactly as the SDK answers it inside a batch', async () => {
    // A batch of two goes through the SDK's protocol layer; a lone call does not. Same answers.
    const calls: Array<{ params: unknown; same: 'whole' | 'code' }> = [
      { params: { name: 'stat', arguments: { uri: 'ctx://resources' } }, same: 'whole' },
      { params: { name: 'read', arguments: { uri: 'ctx://resources/no-such-file.md' } }, same: 'whole' },
      { params: { name: 'stat', arguments: {} }, same: 'whole' },
      { params: { name: 'no_such_tool', arguments: {} }, same: 'whole' },
      { params: { arguments: {} }, same: 'code' },
      { params: { name: 'stat', arguments: ['x'] }, same: 'code' },
    ];
    for (const [i, c] of calls.entries()) {
      const lone = (await (await post(inSession(), { jsonrpc: '2.0', id: `lone-${i}`, method: 'tools/call', params: c.params })).json()) as Record<string, any>;
      const batch = (await (await post(inSession(), [{ jsonrpc: '2.0', id: `sdk-${i}`, method: 'tools/call', params: c.params }, { jsonrpc: '2.0', id: 'p', method: 'ping' }])).json()) as Array<Record<string, any>>;
      const viaSdk = batch.find((m) => m.id === `sdk-${i}`)!;
      const label = JSON.stringify(c.params);
      if (c.same === 'whole') expect({ ...lone, id: 0 }, label).toEqual({ ...viaSdk, id: 0 });
      else {
        // Malformed params: the SDK's own parse throws a bare ZodError there, which its protocol
        // layer answers as -32603 (internal error); the direct path says -32602 (invalid params),
        // JSON-RPC's code for it. Both refuse the call.
        expect(lone.error.code, label).toBe(-32602);
        expect(lone.error.message, label).toMatch(/^MCP error -32602: Invalid tools\/call request: params\./);
        expect(viaSdk.error.code, label).toBeLessThan(0);
      }
    }
  });

  it('DELETE ends the session; it is then unknown (404)', async () => {
    const del = await fetch(`${srv.base}/mcp`, { method: 'DELETE', headers: { ...h, ...inSession() } });
    expect(del.status).toBe(200);
    expect((await post(inSession(), { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(404);
  });
});

import { HttpSessionTransport } from '../../plugins/mcp/transport.js';
import type { AbortLike, Identity, RouteContext } from 'ctx/plugin';

describe('MCP transport: cancelling a tools/call', () => {
  const identity = { accountId: 'a', userId: 'u', role: 'user' } as unknown as Identity;
  const ctxFor = (headers: Record<string, string>) => ({ req: { headers: { accept: 'application/json, text/event-stream', ...headers } }, signal: new AbortController().signal }) as unknown as RouteContext;

  it('aborts the running call on notifications/cancelled; its POST ends with 202 and no body', async () => {
    let seen: AbortLike | undefined;
    const transport = new HttpSessionTransport({ onInitialized() {}, onClosed() {} }, (_params, _who, signal) => {
      seen = signal;
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    });
    transport.sessionId = 's';
    const running = transport.post(ctxFor({ 'mcp-session-id': 's' }), identity, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'find', arguments: { query: 'q' } } });
    await new Promise((r) => setImmediate(r));
    expect(seen?.aborted).toBe(false);
    const note = await transport.post(ctxFor({ 'mcp-session-id': 's' }), identity, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } });
    expect(note.status).toBe(202);
    expect(seen?.aborted).toBe(true);
    const reply = await running;
    expect(reply.status).toBe(202);
  });

  it('a call that finishes answers its result; a thrown error is a JSON-RPC error as the SDK writes it', async () => {
    const transport = new HttpSessionTransport({ onInitialized() {}, onClosed() {} }, async (params) => {
      if ((params as { name: string }).name === 'boom') throw Object.assign(new Error('MCP error -32602: unknown tool'), { code: -32602 });
      if ((params as { name: string }).name === 'crash') throw new Error('disk on fire');
      return { content: [{ type: 'text', text: 'ok' }], structuredContent: {} };
    });
    transport.sessionId = 's';
    const send = async (name: string) => {
      const r = await transport.post(ctxFor({ 'mcp-session-id': 's' }), identity, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name } });
      return JSON.parse(String((r as unknown as { body: string | Buffer }).body));
    };
    expect(await send('fine')).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ok' }], structuredContent: {} } });
    expect(await send('boom')).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'MCP error -32602: unknown tool' } });
    expect(await send('crash')).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'disk on fire' } });
  });
});
