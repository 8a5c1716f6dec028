/**
 * The remote embedder client's own cost (issue 27, item 1): `OpenAiEmbedder.embed` of one query
 * text against the fake OpenAI-compatible embedder (bench/servers/fake-embedder.ts, no delay, its
 * own process), alternating call by call with a bare keep-alive `http.request` of the same body
 * whose answer is only `JSON.parse`d. The difference of the p50s is what ctx adds to the model's
 * round trip in every find that misses the query-embedding cache.
 *   npx tsx bench/embedder-client.bench.ts [--calls 3000] [--rounds 3]
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import readline from 'node:readline';
import { OpenAiEmbedder } from '../runtime/models/embedder.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const CALLS = Number(arg('calls', '3000'));
const ROUNDS = Number(arg('rounds', '3'));
const emb = spawn(process.execPath, ['--import', 'tsx', 'bench/servers/fake-embedder.ts', '--dim', '256'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url: string = await new Promise((r) => readline.createInterface({ input: emb.stdout! }).once('line', (l) => r(JSON.parse(l).url)));
const client = new OpenAiEmbedder({ provider: 'openai', baseUrl: url, model: 'bench-embed', dim: 256 });
const agent = new http.Agent({ keepAlive: true });
const bare = (text: string) =>
  new Promise<unknown>((resolve, reject) => {
    const req = http.request(`${url}/embeddings`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ model: 'bench-embed', input: [text], encoding_format: 'float' }));
  });
const p50 = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]!;
await client.embed(['warm'], 'query');
await bare('warm');
for (let round = 0; round < ROUNDS; round++) {
  const C: number[] = [];
  const B: number[] = [];
  const D: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    let t = performance.now();
    await client.embed([`query text ${round} ${i}`], 'query');
    const c = performance.now() - t;
    t = performance.now();
    await bare(`bare text ${round} ${i}`);
    const b = performance.now() - t;
    C.push(c);
    B.push(b);
    D.push(c - b);
  }
  console.log(JSON.stringify({ round, load: os.loadavg()[0]!.toFixed(2), ctx_client_p50_ms: +p50(C).toFixed(3), bare_p50_ms: +p50(B).toFixed(3), per_pair_gap_p50_ms: +p50(D).toFixed(3) }));
}
agent.destroy();
emb.kill('SIGTERM');
