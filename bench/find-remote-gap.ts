/**
 * Where a find with a remote embedder spends its time (issue 27, item 1): a fresh server
 * (`node dist/server/main.js`, `npm start`'s flags) with the fake OpenAI-compatible embedder
 * (bench/servers/fake-embedder.ts, 5 ms delay) and CTX_PROFILING on, 300 short notes, then 400
 * finds alternating one by one with a direct call to the embedder: the client's wall time, the
 * server's own time (envelope `time`) and its marks (auth, parse, handler), and the embedder's round
 * trip, p50 each, all in the same seconds.
 * With `--files N`, bench/vs-reference.ts's corpus and queries instead (N synthetic ~1 KB notes,
 * four words of a note per query), waited for until the last note is findable.
 * `--main` serves another build (a copy of dist/server made before a change, for a before/after).
 * `--stamps`: where the embedding call's time goes across the three processes — the bench, ctx
 * (CTX_BENCH_STAMPS, runtime/models/wire-stamps.ts) and the fake embedder stamp each step with
 * `process.hrtime.bigint()` (CLOCK_MONOTONIC, one clock for all); p50 of each step's time from the
 * find's send, and the same for the direct embedder call.
 *   npx tsx bench/find-remote-gap.ts [--files 2000] [--finds 400] [--main dist/server/main.js] [--stamps]
 */
import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { doc, writeCorpus } from './synthetic-corpus.js';
const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const FILES = Number(arg('files') ?? 0);
const FINDS = Number(arg('finds') ?? 400);
const MAIN = arg('main') ?? 'dist/server/main.js';
const STAMPS = process.argv.includes('--stamps');
const stampDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-stamps-'));
const clientStamps: Array<[string, bigint]> = [];
const cstamp = (label: string) => STAMPS && clientStamps.push([label, process.hrtime.bigint()]);
const emb = spawn(process.execPath, ['--import', 'tsx', 'bench/servers/fake-embedder.ts', '--dim', '256', '--delay-ms', '5', ...(STAMPS ? ['--stamps', path.join(stampDir, 'embedder')] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
const url: string = await new Promise((r) => readline.createInterface({ input: emb.stdout! }).once('line', (l) => r(JSON.parse(l).url)));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-gap-'));
const port = await new Promise<number>((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const p = (s.address() as net.AddressInfo).port;
    s.close(() => resolve(p));
  });
});
const srv = spawn(process.execPath, ['--max-semi-space-size=4', MAIN], { env: { ...process.env, CTX_DATA_DIR: dir, CTX_PORT: String(port), CTX_HOST: '127.0.0.1', CTX_GRPC_PORT: '0', CTX_LOG_LEVEL: 'warn', CTX_PROFILING: 'true', CTX_ACCESS_LOG: 'false', ...(STAMPS ? { CTX_BENCH_STAMPS: path.join(stampDir, 'ctx') } : {}), ...(process.argv.includes('--local') ? { CTX_EMBEDDING_PROVIDER: 'local' } : { CTX_EMBEDDING_PROVIDER: 'openai', CTX_EMBEDDING_BASE_URL: url, CTX_EMBEDDING_MODEL: 'bench-embed', CTX_EMBEDDING_DIM: '256' }) }, stdio: ['ignore', 'ignore', 'inherit'] });
const agent = new http.Agent({ keepAlive: true });
const call = (u: string, body: string) => new Promise<{ ms: number; text: string }>((resolve, reject) => {
  const t0 = performance.now();
  const req = http.request(u, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => { let t = ''; res.on('data', (c) => (t += c)); res.on('end', () => resolve({ ms: performance.now() - t0, text: t })); });
  req.on('error', reject); req.end(body);
});
for (;;) { try { await call(`http://127.0.0.1:${port}/health`, ''); break; } catch { await new Promise((r) => setTimeout(r, 50)); } }
const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon'.split(' ');
let queryOf = (i: number) => `${words[i % 20]} ${words[(i * 11) % 20]} q${i}`;
if (FILES) {
  const corpus = await writeCorpus(FILES, (p, b) => call(`http://127.0.0.1:${port}${p}`, JSON.stringify(b)));
  queryOf = (i: number) => {
    const w = corpus[((i + 1) * 7919) % FILES]!;
    const o = ((i + 1) * 13) % Math.max(1, w.length - 4);
    return `${w.slice(o, o + 4).join(' ')} q${i}`;
  };
  const last = doc(FILES - 1).uri;
  for (let t = 0; ; t++) {
    const r = JSON.parse((await call(`http://127.0.0.1:${port}/api/v1/search/find`, JSON.stringify({ query: corpus[FILES - 1]!.slice(0, 6).join(' '), target_uri: last, limit: 1 }))).text);
    if (r.result?.total > 0 || t > 1200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 3000));
} else {
  for (let i = 0; i < 300; i++) await call(`http://127.0.0.1:${port}/api/v1/content/write`, JSON.stringify({ uri: `ctx://resources/n/${i}.md`, content: `${words[i % 20]} ${words[(i * 7) % 20]} note ${i} ${words[(i * 3) % 20]}` }));
  await new Promise((r) => setTimeout(r, 5000));
}
const F: number[] = [], E: number[] = [], H: number[] = [], G: number[] = [];
const marks: Record<string, number[]> = {};
for (let i = 0; i < FINDS; i++) {
  cstamp('find.send');
  const f = await call(`http://127.0.0.1:${port}/api/v1/search/find?profile=true`, JSON.stringify({ query: queryOf(i), limit: 10 }));
  cstamp('find.answer');
  cstamp('direct.send');
  // The same request ctx's embedder client sends (base64 vectors): the same bytes both ways.
  const e = await call(`${url}/embeddings`, JSON.stringify({ model: 'bench-embed', input: [`kalo zipe ${i}`], encoding_format: 'base64' }));
  cstamp('direct.answer');
  const env = JSON.parse(f.text);
  F.push(f.ms); E.push(e.ms); G.push(f.ms - e.ms); if (env.time !== undefined) H.push(env.time * 1000); // seconds in the envelope
  for (const m of env.profile ?? []) { const [k, v] = String(m).split(": "); (marks[k!] ??= []).push(parseFloat(v!)); }
}
const p50 = (xs: number[]) => Math.round(xs.slice().sort((a, b) => a - b)[xs.length >> 1]! * 100) / 100;
console.log(JSON.stringify({ main: MAIN, load: os.loadavg().map((x) => Math.round(x * 100) / 100), find_client_p50: p50(F), embedder_rtt_p50: p50(E), per_pair_gap_p50: p50(G), server_time_p50: p50(H), marks: Object.fromEntries(Object.entries(marks).map(([k, v]) => [k, p50(v)])) }));
const exited = (p: ChildProcess) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)));
srv.kill('SIGTERM'); emb.kill('SIGTERM'); agent.destroy();
await Promise.all([exited(srv), exited(emb)]);
if (STAMPS) console.log(JSON.stringify(stampReport()));
fs.rmSync(dir, { recursive: true, force: true });
fs.rmSync(stampDir, { recursive: true, force: true });

/**
 * Every stamp between a find's send and its answer belongs to that find (one request at a time);
 * the same for the direct call. Each step: p50 of its time since the send, in ms.
 */
function stampReport() {
  // A build from before the stamps (`--main`) writes none of its own: the other two still line up.
  const read = (f: string) => (fs.existsSync(path.join(stampDir, f)) ? fs.readFileSync(path.join(stampDir, f), 'utf8') : '').trim().split('\n').filter(Boolean).map((l) => { const [k, v] = l.split(' '); return [k!, BigInt(v!)] as [string, bigint]; });
  const all = [...clientStamps, ...read('ctx'), ...read('embedder')].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const steps: Record<string, Record<string, number[]>> = { find: {}, direct: {} };
  let open: { kind: 'find' | 'direct'; t0: bigint; first: Map<string, bigint> } | null = null;
  for (const [k, t] of all) {
    if (k === 'find.send' || k === 'direct.send') { open = { kind: k === 'find.send' ? 'find' : 'direct', t0: t, first: new Map() }; continue; }
    if (!open) continue;
    // The first occurrence of each label in the window (one embedding call per find).
    const label = k === `${open.kind}.answer` ? 'answer' : k;
    if (!open.first.has(label)) open.first.set(label, t);
    if (label === 'answer') {
      for (const [l, lt] of open.first) (steps[open.kind]![l] ??= []).push(Number(lt - open.t0) / 1e6);
      open = null;
    }
  }
  const out: Record<string, Record<string, number>> = {};
  for (const [kind, m] of Object.entries(steps)) out[kind] = Object.fromEntries(Object.entries(m).map(([k, v]) => [k, p50(v)] as [string, number]).sort((x, y) => x[1] - y[1]));
  return { stamps_ms_since_send_p50: out };
}
