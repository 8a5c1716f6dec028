/**
 * `find` through MCP and over HTTP in process (the app's `inject`: the real pipeline, no socket,
 * no client library), on the synthetic corpus, alternating: what the MCP layer adds to a find on
 * the server, and the size of each answer.
 *   npx tsx bench/mcp-find-inproc.ts [--files 2000] [--finds 2000] [--only http|mcp]
 * `--only` runs one way, to compare two CPU profiles (`node --cpu-prof --import tsx ...`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../runtime/app.js';
import { builtinPlugins } from '../plugins/index.js';
import { writeCorpus } from './synthetic-corpus.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const FILES = Number(arg('files', '2000'));
const FINDS = Number(arg('finds', '2000'));
const ONLY = arg('only', '');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-find-'));
const app = await createApp({ env: {}, plugins: builtinPlugins, config: { dataDir: dir, rootApiKey: 'bench-root-key-0123456789', authMode: 'api_key', logLevel: 'silent', accessLog: false, grpcPort: 0 } });
try {
  const h = { 'x-api-key': 'bench-root-key-0123456789', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const words = await writeCorpus(FILES, (url, body) => app.inject({ method: 'POST', url, headers: h, body }));
  await app.inject({ method: 'POST', url: '/api/v1/system/wait', headers: h, body: { timeout: 120 } });
  const probe = JSON.parse((await app.inject({ method: 'POST', url: '/api/v1/search/find', headers: h, body: { query: 'x', limit: 10 } })).body.toString()) as { result: { total: number } };
  if (!probe.result.total) throw new Error('the corpus is not findable');
  const init = await app.inject({ method: 'POST', url: '/mcp', headers: h, body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } } });
  const hs = { ...h, 'mcp-session-id': init.headers['mcp-session-id']!, 'mcp-protocol-version': '2025-11-25' };
  await app.inject({ method: 'POST', url: '/mcp', headers: hs, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  const query = (q: number) => {
    const w = words[(q * 7919) % FILES]!;
    const o = (q * 13) % Math.max(1, w.length - 4);
    return w.slice(o, o + 4).join(' ');
  };
  let id = 10;
  const viaHttp = (q: string) => app.inject({ method: 'POST', url: '/api/v1/search/find', headers: h, body: { query: q, limit: 10 } });
  const viaMcp = (q: string) => app.inject({ method: 'POST', url: '/mcp', headers: hs, body: { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'find', arguments: { query: q, limit: 10 } } } });
  const size = { http: 0, mcp: 0 };
  for (let i = 0; i < 200; i++) {
    size.http += (await viaHttp(query(i))).body.length;
    size.mcp += (await viaMcp(query(i))).body.length;
  }
  const t = { http: [] as number[], mcp: [] as number[] };
  for (let i = 0; i < FINDS; i++) {
    const q = query(1000 + i);
    for (const way of i % 2 ? (['http', 'mcp'] as const) : (['mcp', 'http'] as const)) {
      if (ONLY && way !== ONLY) continue;
      const t0 = performance.now();
      await (way === 'http' ? viaHttp(q) : viaMcp(q));
      t[way].push(performance.now() - t0);
    }
  }
  const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  console.log(`find over ${FILES} files in process, ${FINDS} each way alternating: HTTP p50 ${p50(t.http).toFixed(3)} ms, MCP p50 ${p50(t.mcp).toFixed(3)} ms, MCP adds ${(p50(t.mcp) - p50(t.http)).toFixed(3)} ms (${(p50(t.mcp) / p50(t.http)).toFixed(2)}×)`);
  console.log(`answer size, mean of 200: HTTP ${Math.round(size.http / 200)} B, MCP ${Math.round(size.mcp / 200)} B`);
} finally {
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
