/**
 * An OpenAI-compatible chat server on 127.0.0.1 that scripts tool calls: requests carrying `tools`
 * (the compile agent's) get `script` answers in order; others (the indexer's summaries) a short
 * text. `hold()` parks agent requests until `release()`, to cancel a compile mid-flight.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type AgentAnswer = { calls: Array<{ name: string; args: Record<string, unknown> }> } | { text: string } | { status: number };

export interface FakeLlm {
  url: string;
  script: AgentAnswer[];
  /** Bodies of agent requests, in order. */
  received: Array<{ messages: Array<{ role: string; content: string | null; tool_call_id?: string }>; tools?: Array<{ type: string; function: { name: string } }> }>;
  hold(): void;
  /** Parks agent requests from the n-th received (0-based over `received`) on. */
  holdFrom(n: number): void;
  release(): void;
  waiting(): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeLlm(): Promise<FakeLlm> {
  let held = false;
  let holdIndex = Infinity;
  let parked: Array<() => void> = [];
  let arrivals: Array<() => void> = [];
  let n = 0;
  const sockets = new Set<import('node:net').Socket>();
  const state = { script: [] as AgentAnswer[], received: [] as FakeLlm['received'] };
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
      const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
      if (!body.tools) return send(200, { choices: [{ message: { role: 'assistant', content: 'A short summary.' } }], usage });
      state.received.push(body);
      if (held || state.received.length - 1 >= holdIndex) {
        arrivals.splice(0).forEach((f) => f());
        await new Promise<void>((r) => parked.push(r));
        if (res.destroyed || req.socket.destroyed) return;
      }
      const a = state.script.shift() ?? { text: 'done' };
      if ('status' in a) return send(a.status, { error: { message: `scripted ${a.status}` } });
      if ('text' in a) return send(200, { choices: [{ index: 0, message: { role: 'assistant', content: a.text }, finish_reason: 'stop' }], usage });
      const tool_calls = a.calls.map((c) => ({ id: `call_${++n}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }));
      send(200, { choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls }, finish_reason: 'tool_calls' }], usage });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    hold: () => void (held = true),
    holdFrom: (n: number) => void (holdIndex = n),
    release: () => {
      held = false;
      holdIndex = Infinity;
      parked.splice(0).forEach((f) => f());
    },
    waiting: () => (parked.length ? Promise.resolve() : new Promise<void>((r) => arrivals.push(r))),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        parked.splice(0).forEach((f) => f());
        arrivals = [];
        server.close(() => r());
      }),
  });
}
