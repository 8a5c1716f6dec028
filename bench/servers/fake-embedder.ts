/**
 * An OpenAI-compatible embedding server for benchmarks, in its own process so its CPU is not the
 * bench's: `POST /v1/embeddings` {model, input} → {data:[{embedding, index}], model, usage}, each
 * vector (a float list, or its float32 bytes in base64 when asked `encoding_format: "base64"`,
 * as OpenAI's API answers) a deterministic hash of its text (unit length, `--dim`), answered after `--delay-ms` (the
 * remote model's round trip). Prints `{"url": ...}` as one JSON line when listening.
 * `--stamps FILE`: each request's arrival and answer, `process.hrtime.bigint()` (one clock for all
 * processes), written to FILE at exit (bench/find-remote-gap.ts --stamps).
 *   npx tsx bench/servers/fake-embedder.ts [--dim 256] [--delay-ms 0] [--stamps FILE]
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const DIM = Number(arg('--dim', '256'));
const DELAY = Number(arg('--delay-ms', '0'));
const STAMPS = arg('--stamps', '');
const stamps: string[] = [];
if (STAMPS) process.on('exit', () => fs.writeFileSync(STAMPS, stamps.join('\n') + '\n'));

function vector(text: string): number[] {
  const out = new Array<number>(DIM);
  let block = createHash('sha256').update(text).digest();
  let norm = 0;
  for (let i = 0; i < DIM; i++) {
    if (i % 32 === 0 && i) block = createHash('sha256').update(block).digest();
    out[i] = block[i % 32]! - 127.5;
    norm += out[i]! * out[i]!;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < DIM; i++) out[i] = out[i]! / norm;
  return out;
}

const server = http.createServer((req, res) => {
  const arrived = STAMPS ? process.hrtime.bigint() : 0n;
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return reply(404, { error: { message: 'POST /v1/embeddings only' } });
    let body: { model?: string; input?: unknown; encoding_format?: string };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
    } catch {
      return reply(400, { error: { message: 'invalid JSON' } });
    }
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || input.some((t) => typeof t !== 'string')) return reply(400, { error: { message: 'input must be a string or strings' } });
    // base64 as OpenAI sends it: the vector's little-endian float32 bytes.
    const b64 = body.encoding_format === 'base64';
    const data = (input as string[]).map((t, index) => ({ object: 'embedding', index, embedding: b64 ? Buffer.from(new Float32Array(vector(t)).buffer).toString('base64') : vector(t) }));
    const send = () => {
      if (STAMPS) stamps.push(`emb.request ${arrived}`, `emb.reply ${process.hrtime.bigint()}`);
      reply(200, { object: 'list', data, model: body.model, usage: { prompt_tokens: input.length, total_tokens: input.length } });
    };
    if (DELAY > 0) setTimeout(send, DELAY);
    else send();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }) + '\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
