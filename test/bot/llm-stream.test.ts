/** createLlm streaming (`onDelta`) on a real socket: deltas, tool calls from fragments, usage, retries. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlm, type ChatDelta } from '../../runtime/sdk/index.js';
import { BOT_MARK, startFakeLlm, type FakeLlm } from './fake-llm.js';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(() => llm?.close());

const sys = { role: 'system' as const, content: `${BOT_MARK}: test` };
const tool = { name: 'read_file', description: 'reads', parameters: { type: 'object' } };

describe('createLlm with onDelta', () => {
  it('streams content and reasoning pieces and returns the whole answer with usage', async () => {
    llm.script.push({ text: 'alpha beta gamma', reasoning: 'hmm ok', usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });
    const deltas: ChatDelta[] = [];
    const r = await createLlm({ baseUrl: llm.url })!.chat([sys, { role: 'user', content: 'hi' }], { onDelta: (d) => deltas.push(d) });
    expect(r).toEqual({ text: 'alpha beta gamma', usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });
    expect(deltas.filter((d) => d.content).map((d) => d.content)).toEqual(['alpha ', 'beta ', 'gamma']);
    expect(deltas.filter((d) => d.reasoning).map((d) => d.reasoning).join('')).toBe('hmm ok');
  });

  it('assembles tool calls from their fragments', async () => {
    llm.script.push({ calls: [{ name: 'read_file', args: { uri: 'ctx://resources/a.md' } }, { name: 'search', args: { query: 'q' } }] });
    const r = await createLlm({ baseUrl: llm.url })!.chat([sys], { tools: [tool], onDelta: () => {} });
    expect(r.toolCalls!.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['read_file', { uri: 'ctx://resources/a.md' }],
      ['search', { query: 'q' }],
    ]);
    expect(r.toolCalls![0]!.id).toMatch(/^call_/);
  });

  it('a server that ignores stream:true still gives the caller its text once', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ message: { content: 'whole' } }], usage: { prompt_tokens: 1, completion_tokens: 1 } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const deltas: ChatDelta[] = [];
      const r = await createLlm({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` })!.chat([sys], { onDelta: (d) => deltas.push(d) });
      expect(r.text).toBe('whole');
      expect(deltas).toEqual([{ content: 'whole' }]);
    } finally {
      server.close();
    }
  });

  it('retries a failure before the first piece, not after one', async () => {
    llm.script.push({ status: 503 }, { text: 'after retry' });
    const r = await createLlm({ baseUrl: llm.url, retries: 1 })!.chat([sys], { onDelta: () => {} });
    expect(r.text).toBe('after retry');

    // A stream cut after its first chunk: the caller already showed it, so no second request.
    let requests = 0;
    const server = http.createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: 'half' } }] })}\n\n`);
        setTimeout(() => res.destroy(), 20);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const deltas: ChatDelta[] = [];
      await expect(createLlm({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, retries: 2 })!.chat([sys], { onDelta: (d) => deltas.push(d) })).rejects.toThrow(/stream broke/);
      expect(deltas).toEqual([{ content: 'half' }]);
      expect(requests).toBe(1);
    } finally {
      server.close();
    }
  });

  it('an error chunk in the stream fails the call', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify({ error: { message: 'overloaded' } })}\n\n`);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await expect(createLlm({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, retries: 0 })!.chat([sys], { onDelta: () => {} })).rejects.toThrow(/overloaded/);
    } finally {
      server.close();
    }
  });
});
