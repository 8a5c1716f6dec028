/**
 * What ctx-client adds to a `find` round trip: the same request sent with a bare `fetch` and with
 * `client.search.find`, alternating in blocks against one real server (child process), sequentially
 * (one request in flight, so the figure is per-call latency, not throughput). Target (issue 21): the
 * SDK adds ≤ 5%.
 *   npx tsx bench/sdk.bench.ts [--requests 3000]
 */
import { CtxClient } from '../clients/typescript/src/index.js';
import { httpFetch } from '../clients/typescript/src/node/http-fetch.js';
import { startServer } from './find-load.js';

const reqArg = process.argv.indexOf('--requests');
const N = reqArg > 0 ? Number(process.argv[reqArg + 1]) : 3000;
const BLOCK = 100;

const server = await startServer();
const url = `http://127.0.0.1:${server.port}`;
const body = { query: 'bench readme', limit: 10 };
const client = new CtxClient({ url, apiKey: server.key });
// The CLI's transport (node:http); its row shows what it costs or saves per call against fetch.
const httpClient = new CtxClient({ url, apiKey: server.key, fetch: httpFetch });

async function bare(): Promise<unknown> {
  const res = await fetch(`${url}/api/v1/search/find`, { method: 'POST', headers: { 'x-api-key': server.key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`find ${res.status}`);
  return ((await res.json()) as { result: unknown }).result;
}
const sdk = () => client.search.find(body);
const sdkHttp = () => httpClient.search.find(body);

/** Wall ms per call, and this process's CPU µs per call (the server is another process, so this is
 * the client side alone: what the SDK itself costs, steady even when the shared machine is loaded). */
async function block(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  for (let i = 0; i < BLOCK; i++) await fn();
  const c = process.cpuUsage(c0);
  return { wall: Number(process.hrtime.bigint() - t0) / 1e6 / BLOCK, cpu: (c.user + c.system) / BLOCK };
}

try {
  const a = (await bare()) as { total: number };
  const b = await sdk();
  if (JSON.stringify(a) !== JSON.stringify(b) || JSON.stringify(a) !== JSON.stringify(await sdkHttp())) throw new Error('the SDK and bare fetch disagree');
  // Warm-up: JIT and the keep-alive pool.
  for (let i = 0; i < 5; i++) {
    await block(bare);
    await block(sdk);
    await block(sdkHttp);
  }
  const perBare: Array<{ wall: number; cpu: number }> = [];
  const perSdk: typeof perBare = [];
  const perHttp: typeof perBare = [];
  const order: Array<[() => Promise<unknown>, typeof perBare]> = [[bare, perBare], [sdk, perSdk], [sdkHttp, perHttp]];
  for (let done = 0, round = 0; done < N; done += 2 * BLOCK, round++) {
    // Rotate which goes first so drift in the machine's load cancels out.
    for (let k = 0; k < order.length; k++) {
      const [fn, into] = order[(round + k) % order.length]!;
      into.push(await block(fn));
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const row = (name: string, xs: typeof perBare) => {
    const w = median(xs.map((x) => x.wall));
    const c = median(xs.map((x) => x.cpu));
    const wb = median(perBare.map((x) => x.wall));
    const cb = median(perBare.map((x) => x.cpu));
    const pct = (a: number, b: number) => `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(1)}%`;
    console.log(`| ${name} | ${w.toFixed(3)} | ${xs === perBare ? '' : pct(w, wb)} | ${c.toFixed(0)} | ${xs === perBare ? '' : pct(c, cb)} |`);
  };
  console.log(`| find round trip, sequential (median of ${perBare.length} blocks of ${BLOCK}) | wall ms per call | vs bare fetch | client CPU µs per call | vs bare fetch |`);
  console.log('|---|---|---|---|---|');
  row('bare fetch + JSON parse of the envelope', perBare);
  row('ctx-client search.find (SDK overhead)', perSdk);
  row("ctx-client search.find with httpFetch (the CLI's transport)", perHttp);
  console.log(`(load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')})`);
} finally {
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
}
