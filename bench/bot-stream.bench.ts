/**
 * Bot chat/stream (issue 13 performance): time from the fake LLM writing its first content token to
 * the client reading the `content_delta` event carrying it, over real sockets (client → ctx's uWS →
 * bot → createLlm's stream ← fake OpenAI-compatible server), all in this process so one clock
 * serves both ends. Target ≤ 20 ms p50. Also the time from sending the request to the first SSE
 * event (the `iteration` event, before the model is called: retrieval of relevant contexts runs first).
 *   npx tsx bench/bot-stream.bench.ts [--n 300]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtinPlugins } from '../plugins/index.js';
import { createApp } from '../runtime/app.js';
import { startFakeLlm } from '../test/bot/fake-llm.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('n', 300);
const ROOT_KEY = 'bench-root-key-0123456789abcdef0123';
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function main(): Promise<void> {
  const llm = await startFakeLlm();
  // The model keeps talking after its first token, as a real one does.
  llm.gapMs = 5;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-bot-bench-'));
  const app = await createApp({ env: {}, plugins: builtinPlugins, config: { dataDir: dir, rootApiKey: ROOT_KEY, authMode: 'api_key', logLevel: 'silent', accessLog: false, grpcPort: 0, botEnabled: true, llm: { baseUrl: llm.url } } });
  const server = await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${server.port}/bot/v1/chat/stream`;
  const headers = { 'x-api-key': ROOT_KEY, 'content-type': 'application/json' };
  await app.inject({ method: 'POST', url: '/api/v1/content/write', headers, body: { uri: 'ctx://resources/kb/redis.md', content: 'Redis evicts with allkeys-lru.' } });
  try {
    const afterToken: number[] = [];
    const firstEvent: number[] = [];
    for (let i = 0; i < N + 30; i++) {
      llm.script.push({ text: 'alpha beta gamma delta' });
      const sent = performance.now();
      const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ message: 'how does redis evict?', session_id: `b${i}` }) });
      const reader = res.body!.getReader();
      const dec = new TextDecoder();
      let buf = '';
      let first = 0;
      let gotDelta = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const t = performance.now();
        if (!first) first = t;
        buf += dec.decode(value, { stream: true });
        if (!gotDelta && buf.includes('"content_delta"')) gotDelta = t;
      }
      if (!gotDelta) throw new Error(`no content_delta: ${buf.slice(0, 300)}`);
      if (i >= 30) {
        afterToken.push(gotDelta - llm.firstTokenAt.at(-1)!);
        firstEvent.push(first - sent);
      }
    }
    console.log(`${N} streamed chats (after 30 warm-up), ms:`);
    console.log('| measure | p50 | p95 | p99 |\n|---|---|---|---|');
    for (const [name, xs] of [
      ['first token written by the LLM → its content_delta read by the client', afterToken],
      ['request sent → first SSE event read', firstEvent],
    ] as const)
      console.log(`| ${name} | ${pct(xs, 50).toFixed(3)} | ${pct(xs, 95).toFixed(3)} | ${pct(xs, 99).toFixed(3)} |`);
  } finally {
    await app.close();
    await llm.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
