/**
 * What ctx-client adds to a `find` round trip: the same request sent with a bare `fetch` and with
 * `client.search.find`, alternating in blocks against one real server (child process), sequentially
 * (one request in flight, so the figure is per-call latency, not throughput). Target (issue 21): the
 * SDK adds ≤ 5%.
 *   npx tsx bench/sdk.bench.ts [--requests 3000]
 */
import { CtxClient } from '../clients/typescript/src/index.js';
import { startServer } from './find-load.js';

const reqArg = process.argv.indexOf('--requests');
const N = reqArg > 0 ? Number(process.argv[reqArg + 1]) : 3000;
const BLOCK = 100;

const server = await startServer();
const url = `http://127.0.0.1:${server.port}`;
const body = { query: 'bench readme', limit: 10 };
const client = new CtxClient({ url, apiKey: server.key });

async function bare(): Promise<unknown> {
  const res = await fetch(`${url}/api/v1/search/find`, { method: 'POST', headers: { 'x-api-key': server.key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`find ${res.status}`);
  return ((await res.json()) as { result: unknown }).result;
}
const sdk = () => client.search.find(body);

async function block(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < BLOCK; i++) await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6 / BLOCK;
}

try {
  const a = (await bare()) as { total: number };
  const b = await sdk();
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error('the SDK and bare fetch disagree');
  // Warm-up: JIT and the keep-alive pool.
  for (let i = 0; i < 5; i++) {
    await block(bare);
    await block(sdk);
  }
  const perBare: number[] = [];
  const perSdk: number[] = [];
  for (let done = 0; done < N; done += 2 * BLOCK) {
    // Alternate which goes first so drift in the machine's load cancels out.
    if ((done / (2 * BLOCK)) % 2 === 0) {
      perBare.push(await block(bare));
      perSdk.push(await block(sdk));
    } else {
      perSdk.push(await block(sdk));
      perBare.push(await block(bare));
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const mb = median(perBare);
  const ms = median(perSdk);
  console.log(`| find round trip, sequential (median of ${perBare.length} blocks of ${BLOCK}) | ms per call |`);
  console.log('|---|---|');
  console.log(`| bare fetch | ${mb.toFixed(3)} |`);
  console.log(`| ctx-client search.find | ${ms.toFixed(3)} |`);
  console.log(`| SDK overhead | ${(((ms - mb) / mb) * 100).toFixed(1)}% (ratio ${(ms / mb).toFixed(3)}) |`);
  console.log(`(load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')})`);
} finally {
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
}
