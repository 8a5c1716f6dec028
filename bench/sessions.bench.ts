/**
 * Sessions (issue 10 targets):
 * 1. add message over real HTTP, 16 concurrent clients each on its own session (autocannon;
 *    server in a child process with the full built-in plugin set; sessions auto-commit past 200
 *    messages, as an agent's would) — target p50 <= 2 ms; baseline: a durable 1 KB content write
 *    with the same 16 clients on the same server;
 * 2. context assembly of a session with 10,000 archived messages (100 completed archives of 100)
 *    plus 20 live ones, at the default budget, in-process through the real pipeline — target <= 20 ms;
 * 3. commit of a 200-message session with a fake OpenAI-compatible LLM: phase 1 (the request) —
 *    target <= 50 ms.
 *   npx tsx bench/sessions.bench.ts [--duration 10]
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { startTestApp } from '../test/helpers/app.js';
import { startFakeChat } from '../test/sessions/fake-chat.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const duration = arg('duration', 10);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)]!;

async function addMessage(): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers/content-server.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve));
  const { port, key } = JSON.parse(line) as { port: number; key: string };
  const base = `http://127.0.0.1:${port}`;
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  for (let s = 0; s < 16; s++)
    await fetch(`${base}/api/v1/sessions`, { method: 'POST', headers, body: JSON.stringify({ session_id: `bench-${s}`, auto_commit_policy: { message_count_threshold: 200 } }) });
  const body = JSON.stringify({ role: 'user', content: 'I prefer short answers with code examples, and I am working on a TypeScript service today.' });
  // One autocannon per session: 16 clients, each appending to its own session.
  const results = await Promise.all(
    Array.from({ length: 16 }, (_, s) =>
      autocannon({ url: `${base}/api/v1/sessions/bench-${s}/messages`, method: 'POST', headers, body, connections: 1, duration }),
    ),
  );
  const p50s = results.map((r) => r.latency.p50);
  const total = results.reduce((n, r) => n + r.requests.total, 0);
  const errors = results.reduce((n, r) => n + r.non2xx + r.errors, 0);
  console.log(`add message, 16 sessions x 1 client, ${duration} s: ${Math.round(total / duration)} msg/s, p50 ${median(p50s)} ms (per-client p50 ${Math.min(...p50s)}-${Math.max(...p50s)} ms), p99 ${Math.max(...results.map((r) => r.latency.p99))} ms, errors ${errors}`);
  // Baseline on the same server: one durable 1 KB content write per request (distinct bytes each
  // time, so every request really writes), 16 clients on 16 files.
  let n = 0;
  const base16 = await Promise.all(
    Array.from({ length: 16 }, (_, s) =>
      autocannon({
        url: `${base}/api/v1/content/write`,
        method: 'POST',
        headers,
        connections: 1,
        duration,
        requests: [{ setupRequest: (r: Record<string, unknown>) => ({ ...r, body: JSON.stringify({ uri: `ctx://resources/bench/f${s}.md`, content: `${n++} ${'x'.repeat(1024)}` }) }) }],
      }),
    ),
  );
  console.log(`baseline, content write 1 KB, 16 files x 1 client: ${Math.round(base16.reduce((n, r) => n + r.requests.total, 0) / duration)} req/s, p50 ${median(base16.map((r) => r.latency.p50))} ms, errors ${base16.reduce((n, r) => n + r.non2xx + r.errors, 0)}`);
  child.kill('SIGTERM');
}

async function contextAndCommit(): Promise<void> {
  const llm = await startFakeChat();
  const t = await startTestApp({ config: { llm: { baseUrl: llm.url, model: 'fake' } } });
  const headers = (await t.account('bench', ['u'])).users.u!;
  const post = (url: string, body: unknown) => t.req({ method: 'POST', url, headers, body });
  const waitTask = async (id: string) => {
    for (;;) {
      const r = (await t.req({ method: 'GET', url: `/api/v1/tasks/${id}`, headers })).json().result;
      if (r.status === 'completed') return;
      if (r.status === 'failed') throw new Error(r.error);
      await new Promise((res) => setTimeout(res, 5));
    }
  };
  const batch = (n: number, tag: string) => ({ messages: Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `${tag} message ${i}: I prefer concise answers about distributed systems and storage engines.` })) });

  for (let a = 0; a < 100; a++) {
    await post('/api/v1/sessions/big/messages/batch', batch(100, `archive ${a}`));
    await waitTask((await post('/api/v1/sessions/big/commit', {})).json().result.task_id);
  }
  await post('/api/v1/sessions/big/messages/batch', batch(20, 'live'));
  const times: number[] = [];
  let shape = '';
  for (let i = 0; i < 220; i++) {
    const t0 = performance.now();
    const res = await t.req({ method: 'GET', url: '/api/v1/sessions/big/context', headers });
    const ms = performance.now() - t0;
    if (i >= 20) times.push(ms);
    shape = JSON.stringify(res.json().result.stats);
  }
  console.log(`context, 10,000 archived messages in 100 archives + 20 live, default budget: median ${median(times).toFixed(2)} ms, p99 ${p99(times).toFixed(2)} ms; stats ${shape}`);

  const phase1: number[] = [];
  for (let s = 0; s < 20; s++) {
    await post(`/api/v1/sessions/c${s}/messages/batch`, batch(100, 'a'));
    await post(`/api/v1/sessions/c${s}/messages/batch`, batch(100, 'b'));
    const t0 = performance.now();
    const res = await post(`/api/v1/sessions/c${s}/commit`, {});
    phase1.push(performance.now() - t0);
    await waitTask(res.json().result.task_id);
  }
  console.log(`commit of 200 messages, phase 1 (the request), fake LLM: median ${median(phase1).toFixed(2)} ms, max ${Math.max(...phase1).toFixed(2)} ms`);
  await t.close();
  await llm.close();
}

await addMessage();
await contextAndCommit();
