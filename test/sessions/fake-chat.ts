/**
 * A small OpenAI-compatible chat server on 127.0.0.1 (`POST /v1/chat/completions`, real HTTP and
 * protocol). Requests whose system prompt is the session extraction prompt get the scripted
 * `extraction` answers in order (then `fallback`); other requests (the indexer's summaries) get a
 * short plain answer. `hold()` keeps extraction requests waiting until `release()`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Answer = { content: string; usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } } | { status: number };

export interface FakeChat {
  url: string;
  extraction: Answer[];
  fallback: Answer;
  /** Bodies of extraction requests received. */
  received: Array<{ messages: Array<{ role: string; content: string }>; response_format?: unknown }>;
  hold(): void;
  release(): void;
  /** Resolves when an extraction request is waiting in hold. */
  waiting(): Promise<void>;
  close(): Promise<void>;
}

const EXTRACTION_MARK = 'You turn a conversation into long-term memory';

export async function startFakeChat(): Promise<FakeChat> {
  let held = false;
  let queue: Array<() => void> = [];
  let arrived: Array<() => void> = [];
  const sockets = new Set<import('node:net').Socket>();
  const state = {
    extraction: [] as Answer[],
    fallback: { content: '{"abstract":"","overview":"","memories":[]}' } as Answer,
    received: [] as FakeChat['received'],
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      const send = (status: number, json: unknown) => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      const isExtraction = body.messages?.[0]?.content?.startsWith?.(EXTRACTION_MARK);
      if (!isExtraction) return send(200, { choices: [{ message: { role: 'assistant', content: 'A short summary.' } }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
      state.received.push(body);
      if (held) {
        arrived.splice(0).forEach((f) => f());
        await new Promise<void>((r) => queue.push(r));
        // The client gave up (its process stopped): its answer is left for the next request.
        if (res.destroyed || req.socket.destroyed) return;
      }
      const a = state.extraction.shift() ?? state.fallback;
      if ('status' in a) return send(a.status, { error: { message: `scripted ${a.status}` } });
      send(200, { id: 'chatcmpl-1', object: 'chat.completion', model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: a.content }, finish_reason: 'stop' }], usage: a.usage ?? { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/v1`,
    hold: () => void (held = true),
    release: () => {
      held = false;
      queue.splice(0).forEach((f) => f());
    },
    waiting: () => (queue.length ? Promise.resolve() : new Promise<void>((r) => arrived.push(r))),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        queue.splice(0).forEach((f) => f());
        arrived = [];
        queue = [];
        server.close(() => r());
      }),
  });
}
