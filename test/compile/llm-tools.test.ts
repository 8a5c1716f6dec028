/** createLlm's tool calls against a real server on 127.0.0.1: the request's `tools`, and answers in the shapes servers send. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlm } from '../../runtime/sdk/index.js';

describe('createLlm with tools', () => {
  let server: http.Server;
  let url: string;
  let answer: unknown;
  let received: any;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const tools = [{ name: 'read_file', description: 'reads', parameters: { type: 'object', properties: { uri: { type: 'string' } } } }];

  it('sends tools in OpenAI form and returns the calls (arguments as text; object arguments and missing ids tolerated)', async () => {
    const llm = createLlm({ baseUrl: url, model: 'm', retries: 0 })!;
    answer = {
      choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"uri":"ctx://a"}' } }, { function: { name: 'read_file', arguments: { uri: 'ctx://b' } } }, { nonsense: true }] } }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    };
    const r = await llm.chat([{ role: 'user', content: 'go' }], { tools });
    expect(received.tools).toEqual([{ type: 'function', function: tools[0] }]);
    expect(r.text).toBe('');
    expect(r.toolCalls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"uri":"ctx://a"}' } },
      { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"uri":"ctx://b"}' } },
    ]);
    // The assistant turn and the tool answer go back as OpenAI messages.
    answer = { choices: [{ message: { content: 'done' } }] };
    const r2 = await llm.chat([{ role: 'user', content: 'go' }, { role: 'assistant', content: null, tool_calls: r.toolCalls }, { role: 'tool', tool_call_id: 'c1', content: 'A' }], { tools });
    expect(r2).toMatchObject({ text: 'done' });
    expect(r2.toolCalls).toBeUndefined();
    expect(received.messages[1].tool_calls[0].id).toBe('c1');
    expect(received.messages[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'A' });
  });

  it('without tools, a tool-only answer is still an error (callers that asked for text get no empty text)', async () => {
    const llm = createLlm({ baseUrl: url, retries: 0 })!;
    answer = { choices: [{ message: { content: null, tool_calls: [{ id: 'x', function: { name: 'f', arguments: '{}' } }] } }] };
    await expect(llm.chat([{ role: 'user', content: 'go' }])).rejects.toThrow(/no choices\[0\]\.message\.content/);
    expect(received.tools).toBeUndefined();
  });
});
