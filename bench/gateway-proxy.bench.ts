/**
 * Gateway admin proxy (issue 13 performance): latency of `GET /api/v1/admin/context-gateway/overview`
 * through ctx (real uWS socket, keep-alive fetch) against the same request sent straight to the fake
 * gateway, in the same run; target overhead ≤ 1 ms p50. Then a `--mb` MiB body streamed from the
 * gateway through ctx to a client that discards it, sampling this process's RSS and external memory
 * (client, ctx and gateway all live here, so any buffering of the body would show); target: flat.
 *   npx tsx bench/gateway-proxy.bench.ts [--n 3000] [--mb 100]
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { builtinPlugins } from '../plugins/index.js';
import { createApp } from '../runtime/app.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('n', 3000);
const MB = arg('mb', 100);
const ROOT_KEY = 'bench-root-key-0123456789abcdef0123';
const TOKEN = 'bench-gateway-admin-token-0123456789abcdef';
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const OVERVIEW = JSON.stringify({ requests: 1234, last_request_at: '2026-11-25T00:00:00Z', output_tokens: 99, degradations: 0, sample_limit: 10000 });

async function main(): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const gateway = http.createServer((req, res) => {
    if (req.url?.startsWith('/admin/logs')) {
      let left = MB * 1024 * 1024;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(left) });
      const pump = () => {
        while (left > 0) {
          const n = Math.min(left, chunk.length);
          left -= n;
          if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(OVERVIEW);
  });
  await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
  const gwUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-gw-bench-'));
  const plugins = builtinPlugins.filter((p) => p.name !== 'retrieval' && !(p.dependsOn ?? []).includes('retrieval'));
  const app = await createApp({ env: {}, plugins, config: { dataDir: dir, rootApiKey: ROOT_KEY, authMode: 'api_key', logLevel: 'silent', accessLog: false, grpcPort: 0, gateway: { url: gwUrl, adminToken: TOKEN } } });
  const server = await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${server.port}/api/v1/admin/context-gateway`;
  const headers = { 'x-api-key': ROOT_KEY };
  try {
    const direct = async () => {
      const r = await fetch(`${gwUrl}/admin/overview`, { headers: { authorization: `Bearer ${TOKEN}`, 'x-ctx-account': 'default' } });
      await r.text();
    };
    const proxied = async () => {
      const r = await fetch(`${base}/overview`, { headers });
      if ((await r.text()) !== OVERVIEW) throw new Error('proxied body differs');
    };
    const measure = async (fn: () => Promise<void>) => {
      for (let i = 0; i < 300; i++) await fn();
      const xs: number[] = [];
      for (let i = 0; i < N; i++) {
        const s = performance.now();
        await fn();
        xs.push(performance.now() - s);
      }
      return xs;
    };
    // Interleaved halves so drift in machine load hits both alike.
    const d1 = await measure(direct);
    const p1 = await measure(proxied);
    const d2 = await measure(direct);
    const p2 = await measure(proxied);
    const d = [...d1, ...d2];
    const p = [...p1, ...p2];
    const row = (name: string, xs: number[]) => console.log(`| ${name} | ${pct(xs, 50).toFixed(3)} | ${pct(xs, 95).toFixed(3)} | ${pct(xs, 99).toFixed(3)} |`);
    console.log(`GET overview, ${2 * N} sequential requests each (keep-alive fetch), ms:`);
    console.log('| path | p50 | p95 | p99 |\n|---|---|---|---|');
    row('direct to the fake gateway', d);
    row('through ctx', p);
    console.log(`proxy overhead p50: ${(pct(p, 50) - pct(d, 50)).toFixed(3)} ms`);

    global.gc?.();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    let peakExt = before.external + before.arrayBuffers;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakExt = Math.max(peakExt, m.external + m.arrayBuffers);
    }, 5);
    const t0 = performance.now();
    const r = await fetch(`${base}/logs`, { headers });
    let n = 0;
    for await (const c of r.body as unknown as AsyncIterable<Uint8Array>) n += c.length;
    const secs = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    if (n !== MB * 1024 * 1024) throw new Error(`streamed ${n} bytes, expected ${MB} MiB`);
    const mib = (x: number) => (x / 1024 / 1024).toFixed(1);
    console.log(`\n${MB} MiB through ctx: ${secs.toFixed(2)} s (${(MB / secs).toFixed(0)} MiB/s); RSS ${mib(before.rss)} → peak ${mib(peakRss)} MiB (+${mib(peakRss - before.rss)}); external+arrayBuffers ${mib(before.external + before.arrayBuffers)} → peak ${mib(peakExt)} MiB`);
  } finally {
    await app.close();
    gateway.closeAllConnections();
    gateway.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
