/**
 * An OpenAI-compatible chat server on 127.0.0.1 with tool calls and streaming. Requests whose
 * system prompt is the bot's get `script` answers in order (then a plain "ok"); others (the
 * indexer's summaries) get a short text. With `stream: true` the answer is sent as
 * `chat.completion.chunk` SSE lines: reasoning, then content word by word (`gapMs` apart), tool
 * calls in two argument fragments, usage in the last chunk, `data: [DONE]`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Step =
  | { text: string; reasoning?: string; usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } }
  | { calls: Array<{ name: string; args: Record<string, unknown> | string }>; text?: string }
  | { status: number };

export interface FakeLlm {
  url: string;
  script: Step[];
  /** Bot requests received, in order. */
  received: Array<{ stream?: boolean; messages: Array<{ role: string; content: unknown; tool_call_id?: string }>; tools?: Array<{ function: { name: string } }>; stream_options?: unknown }>;
  /** Delay between streamed chunks. */
  gapMs: number;
  /** Timestamps (performance.now) at which the first content chunk of each streamed answer was written. */
  firstTokenAt: number[];
  /** Streamed answers whose client went away before the end. */
  cutShort: number;
  close(): Promise<void>;
}

export const BOT_MARK = "You are ctx's assistant";
const USAGE = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };

export async function startFakeLlm(): Promise<FakeLlm> {
  let n = 0;
  const state = { script: [] as Step[], received: [] as FakeLlm['received'], gapMs: 0, firstTokenAt: [] as number[], cutShort: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      const isBot = typeof body.messages?.[0]?.content === 'string' && body.messages[0].content.startsWith(BOT_MARK);
      const json = (status: number, j: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(j));
      };
      if (!isBot) return json(200, { choices: [{ message: { role: 'assistant', content: 'A short summary.' } }], usage: USAGE });
      state.received.push(body);
      const step = state.script.shift() ?? { text: 'ok' };
      if ('status' in step) return json(step.status, { error: { message: `scripted ${step.status}` } });
      const toolCalls = 'calls' in step ? step.calls.map((c) => ({ id: `call_${++n}`, type: 'function', function: { name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args) } })) : undefined;
      const usage = ('usage' in step && step.usage) || USAGE;
      if (!body.stream) {
        const message = toolCalls ? { role: 'assistant', content: step.text ?? null, tool_calls: toolCalls } : { role: 'assistant', content: step.text };
        return json(200, { id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message, finish_reason: toolCalls ? 'tool_calls' : 'stop' }], usage });
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.on('close', () => !res.writableEnded && state.cutShort++);
      const send = async (delta: unknown, extra: Record<string, unknown> = {}) => {
        if (res.destroyed) return;
        res.write(`data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: delta ? [{ index: 0, delta }] : [], ...extra })}\n\n`);
        if (state.gapMs) await new Promise((r) => setTimeout(r, state.gapMs));
      };
      await send({ role: 'assistant' });
      if ('reasoning' in step && step.reasoning) for (const w of step.reasoning.split(/(?<= )/)) await send({ reasoning_content: w });
      let first = true;
      for (const w of (step.text ?? '').split(/(?<= )/).filter(Boolean)) {
        if (first) state.firstTokenAt.push(performance.now());
        first = false;
        await send({ content: w });
      }
      for (const [index, tc] of (toolCalls ?? []).entries()) {
        const half = Math.floor(tc.function.arguments.length / 2);
        await send({ tool_calls: [{ index, id: tc.id, type: 'function', function: { name: tc.function.name, arguments: tc.function.arguments.slice(0, half) } }] });
        await send({ tool_calls: [{ index, function: { arguments: tc.function.arguments.slice(half) } }] });
      }
      await send(null, { usage });
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}
