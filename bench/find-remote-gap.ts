/**
 * Where a find with a remote embedder spends its time (issue 27, item 1): a fresh server
 * (`node dist/server/main.js`, `npm start`'s flags) with the fake OpenAI-compatible embedder
 * (bench/servers/fake-embedder.ts, 5 ms delay) and CTX_PROFILING on, 300 short notes, then 400
 * finds alternating one by one with a direct call to the embedder: the client's wall time, the
 * server's own time (envelope `time`) and its marks (auth, parse, handler), and the embedder's round
 * trip, p50 each, all in the same seconds.
 *   npx tsx bench/find-remote-gap.ts
 */
import net from 'node:net';
import { spawn } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
const emb = spawn(process.execPath, ['--import', 'tsx', 'bench/servers/fake-embedder.ts', '--dim', '256', '--delay-ms', '5'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url: string = await new Promise((r) => readline.createInterface({ input: emb.stdout! }).once('line', (l) => r(JSON.parse(l).url)));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-gap-'));
const port = await new Promise<number>((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const p = (s.address() as net.AddressInfo).port;
    s.close(() => resolve(p));
  });
});
const srv = spawn(process.execPath, ['--max-semi-space-size=4', 'dist/server/main.js'], { env: { ...process.env, CTX_DATA_DIR: dir, CTX_PORT: String(port), CTX_HOST: '127.0.0.1', CTX_GRPC_PORT: '0', CTX_LOG_LEVEL: 'warn', CTX_PROFILING: 'true', CTX_ACCESS_LOG: 'false', CTX_EMBEDDING_PROVIDER: 'openai', CTX_EMBEDDING_BASE_URL: url, CTX_EMBEDDING_MODEL: 'bench-embed', CTX_EMBEDDING_DIM: '256' }, stdio: ['ignore', 'ignore', 'inherit'] });
const agent = new http.Agent({ keepAlive: true });
const call = (u: string, body: string) => new Promise<{ ms: number; text: string }>((resolve, reject) => {
  const t0 = performance.now();
  const req = http.request(u, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => { let t = ''; res.on('data', (c) => (t += c)); res.on('end', () => resolve({ ms: performance.now() - t0, text: t })); });
  req.on('error', reject); req.end(body);
});
for (;;) { try { await call(`http://127.0.0.1:${port}/health`, ''); break; } catch { await new Promise((r) => setTimeout(r, 50)); } }
const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon'.split(' ');
for (let i = 0; i < 300; i++) await call(`http://127.0.0.1:${port}/api/v1/content/write`, JSON.stringify({ uri: `ctx://resources/n/${i}.md`, content: `${words[i % 20]} ${words[(i * 7) % 20]} note ${i} ${words[(i * 3) % 20]}` }));
await new Promise((r) => setTimeout(r, 5000));
const F: number[] = [], E: number[] = [], H: number[] = [];
const marks: Record<string, number[]> = {};
for (let i = 0; i < 400; i++) {
  const f = await call(`http://127.0.0.1:${port}/api/v1/search/find?profile=true`, JSON.stringify({ query: `${words[i % 20]} ${words[(i * 11) % 20]} q${i}`, limit: 10 }));
  const e = await call(`${url}/embeddings`, JSON.stringify({ model: 'bench-embed', input: [`kalo zipe ${i}`] }));
  const env = JSON.parse(f.text);
  F.push(f.ms); E.push(e.ms); if (env.time !== undefined) H.push(env.time * 1000); // seconds in the envelope
  for (const m of env.profile ?? []) { const [k, v] = String(m).split(": "); (marks[k!] ??= []).push(parseFloat(v!)); }
}
const p50 = (xs: number[]) => Math.round(xs.slice().sort((a, b) => a - b)[xs.length >> 1]! * 100) / 100;
console.log(JSON.stringify({ load: os.loadavg().map((x) => Math.round(x * 100) / 100), find_client_p50: p50(F), embedder_rtt_p50: p50(E), server_time_p50: p50(H), marks: Object.fromEntries(Object.entries(marks).map(([k, v]) => [k, p50(v)])) }));
srv.kill('SIGTERM'); emb.kill('SIGTERM'); agent.destroy();
await new Promise((r) => srv.once('exit', r));
fs.rmSync(dir, { recursive: true, force: true });
