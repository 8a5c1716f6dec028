/**
 * One fake HTTP server on 127.0.0.1 for what cannot run here, speaking the real protocols: an
 * OpenAI-compatible embeddings and chat endpoint, a context gateway's admin API, and an OTLP/HTTP
 * traces receiver (JSON, as @opentelemetry/exporter-trace-otlp-http sends it). Every request is
 * recorded with its headers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FakeBackends {
  url: string;
  requests: Recorded[];
  /** OTLP export bodies received at /v1/traces, parsed. */
  traces: unknown[];
  close(): Promise<void>;
}

const DIM = 8;

function vectorOf(text: string): number[] {
  const v = new Array<number>(DIM).fill(0);
  for (let i = 0; i < text.length; i++) v[i % DIM]! += text.charCodeAt(i) % 17;
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

export async function startFakeBackends(): Promise<FakeBackends> {
  const requests: Recorded[] = [];
  const traces: unknown[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0]!;
      requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (path === '/v1/traces') {
        if (!/^application\/json/.test(req.headers['content-type'] ?? '')) return json(415, { error: 'expected OTLP/JSON' });
        traces.push(JSON.parse(body));
        return json(200, {});
      }
      if (path === '/v1/embeddings') {
        const input = (JSON.parse(body) as { input: string[] }).input;
        return json(200, { data: input.map((t, index) => ({ index, embedding: vectorOf(t) })), usage: { prompt_tokens: input.length, total_tokens: input.length } });
      }
      if (path === '/v1/chat/completions')
        return json(200, { choices: [{ index: 0, message: { role: 'assistant', content: 'A short summary.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 } });
      if (path.startsWith('/admin/')) return json(200, { ok: true, path });
      json(404, { error: 'not found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    traces,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The trace id in a traceparent header. */
export const traceIdOf = (tp: unknown) => (typeof tp === 'string' ? tp.split('-')[1] : undefined);
export const parentIdOf = (tp: unknown) => (typeof tp === 'string' ? tp.split('-')[2] : undefined);
