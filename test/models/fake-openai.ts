/**
 * A small OpenAI-compatible server on 127.0.0.1 for the embedding and rerank providers: real
 * HTTP, real protocol (`POST /v1/embeddings` {model, input} → {data:[{embedding, index}], model,
 * usage}, each vector a float list or, with `encoding_format: "base64"`, its float32 bytes;
 * `POST /v1/rerank` {model, query, documents, top_n} → {results:[{index,
 * relevance_score}]}). Tests script failures per request with `plan`.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  body: { model?: string; input?: string[]; encoding_format?: string; query?: string; documents?: string[]; top_n?: number };
  auth?: string;
}

/** Per-request override: an HTTP status (with optional headers/body) or a custom JSON answer. */
export type Step = { status: number; headers?: Record<string, string>; body?: string } | { json: unknown } | 'ok';

export interface FakeServer {
  url: string;
  dim: number;
  received: Received[];
  /** Consumed one per request; when empty, requests succeed. */
  plan: Step[];
  /** Answers in reverse order (exercises `index`). */
  shuffle: boolean;
  /** Requests are held until this many are in flight (0: answer at once). */
  gate: number;
  maxInFlight: number;
  /** Rerank scores as logits instead of probabilities. */
  logits: boolean;
  /** `encoding_format: "base64"`: `ignore` answers float lists anyway, `refuse` answers 400. */
  base64: 'ok' | 'ignore' | 'refuse';
  close(): Promise<void>;
}

/** Deterministic, deliberately un-normalized vector for a text. */
export function fakeVector(text: string, dim: number): number[] {
  const out: number[] = [];
  let block = createHash('sha256').update(text).digest();
  while (out.length < dim) {
    for (const b of block) if (out.length < dim) out.push((b - 127.5) / 10);
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

export async function startFakeOpenAi(dim = 8): Promise<FakeServer> {
  let inFlight = 0;
  const waiting: Array<() => void> = [];
  const state: Omit<FakeServer, 'url' | 'close'> = { dim, received: [], plan: [], shuffle: false, gate: 0, maxInFlight: 0, logits: false, base64: 'ok' };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, inFlight);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Received['body'];
      state.received.push({ path: req.url ?? '', body, auth: req.headers.authorization });
      if (state.gate > 0) {
        if (inFlight >= state.gate) waiting.splice(0).forEach((w) => w());
        else await new Promise<void>((r) => waiting.push(r));
      }
      const step = state.plan.shift() ?? 'ok';
      const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
        inFlight--;
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(typeof json === 'string' ? json : JSON.stringify(json));
      };
      if (step !== 'ok' && 'status' in step) return send(step.status, step.body ?? JSON.stringify({ error: { message: `scripted ${step.status}` } }), step.headers);
      if (step !== 'ok' && 'json' in step) return send(200, step.json);
      if (req.method !== 'POST') return send(405, { error: { message: 'POST only' } });
      if (req.url === '/v1/embeddings') {
        if (!Array.isArray(body.input) || body.input.some((t) => typeof t !== 'string' || t === '')) {
          return send(400, { error: { message: 'input must be non-empty strings' } });
        }
        const b64 = body.encoding_format === 'base64';
        if (b64 && state.base64 === 'refuse') return send(400, { error: { message: "encoding_format: unsupported value 'base64'" } });
        // base64 as OpenAI sends it: the vector's little-endian float32 bytes.
        const encode = (v: number[]) => (b64 && state.base64 === 'ok' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v);
        let data = body.input.map((t, index) => ({ object: 'embedding', index, embedding: encode(fakeVector(t, state.dim)) }));
        if (state.shuffle) data = data.reverse();
        return send(200, { object: 'list', data, model: body.model, usage: { prompt_tokens: body.input.length, total_tokens: body.input.length } });
      }
      if (req.url === '/v1/rerank') {
        const q = new Set((body.query ?? '').toLowerCase().split(/\W+/).filter(Boolean));
        const results = (body.documents ?? []).map((d, index) => {
          const words = d.toLowerCase().split(/\W+/).filter(Boolean);
          const overlap = words.filter((w) => q.has(w)).length / Math.max(1, words.length);
          return { index, relevance_score: state.logits ? overlap * 10 - 5 : overlap };
        });
        results.sort((a, b) => b.relevance_score - a.relevance_score);
        return send(200, { results: results.slice(0, body.top_n ?? results.length), model: body.model });
      }
      send(404, { error: { message: `no route ${req.url}` } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  }) as FakeServer;
}
