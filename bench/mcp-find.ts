/**
 * `find` through MCP (Streamable HTTP, one client session, the SDK's client) against the same
 * `find` over HTTP (POST /api/v1/search/find with fetch), side by side in one run against one
 * server in a child process (bench/servers/ctx-server.ts) holding a synthetic corpus.
 *   npx tsx bench/mcp-find.ts [--files 2000] [--finds 1000] [--clients 8] [--duration 10] [--cpu-prof-dir d]
 * Phase 1, latency: one client, the same query sent both ways in alternation (so drift and noise
 * hit both alike); p50/p90/p99/mean of each and their ratio. Three clients each way, so what the
 * protocol and the server cost is told apart from what a client library costs: the SDK's `Client`
 * against `fetch` (what users run), the same JSON-RPC POST sent with `fetch` against `fetch` (one
 * client library on both sides), and both with node:http on one kept-alive socket. Phase 2, load: `--clients` HTTP
 * callers and as many MCP callers (each its own session) at the same time for `--duration` seconds,
 * so both see the same load (this machine is shared: separate phases measured the neighbours).
 * Target (issue 22): MCP ≤ 1.3× HTTP.
 */
import nodeHttp from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { writeCorpus } from './synthetic-corpus.js';
import { startServer } from './find-load.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const FILES = Number(arg('files', '2000'));
const FINDS = Number(arg('finds', '1000'));
const CLIENTS = Number(arg('clients', '8'));
const DURATION = Number(arg('duration', '10'));

const profDir = arg('cpu-prof-dir', '');
const server = await startServer({}, profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []);
const base = `http://127.0.0.1:${server.port}`;
const headers = { 'x-api-key': server.key, 'content-type': 'application/json' };

async function http(method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const j = (await r.json()) as { status: string; result: unknown; error?: unknown };
  if (j.status !== 'ok') throw new Error(`${path}: ${JSON.stringify(j.error)}`);
  return j.result;
}

async function mcpClient(): Promise<Client> {
  const c = new Client({ name: 'bench', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(base + '/mcp'), { requestInit: { headers: { 'x-api-key': server.key } } }));
  return c;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const fmt = (x: number) => x.toFixed(2);

try {
  const words = await writeCorpus(FILES, (path, body) => http('POST', path, body));
  for (;;) {
    try {
      await http('POST', '/api/v1/system/wait', { timeout: 30 });
      break;
    } catch {
      console.error('still indexing');
    }
  }
  const query = (q: number) => {
    const w = words[(q * 7919) % FILES]!;
    const o = (q * 13) % Math.max(1, w.length - 4);
    return w.slice(o, o + 4).join(' ');
  };
  const viaHttp = (q: string) => http('POST', '/api/v1/search/find', { query: q, limit: 10 });
  const viaMcp = async (c: Client, q: string) => {
    const r = await c.callTool({ name: 'find', arguments: { query: q, limit: 10 } });
    if (r.isError) throw new Error(JSON.stringify(r.content));
    return r;
  };

  // Phase 1: latency, one session, alternating.
  const c = await mcpClient();
  // A raw session for the fetch and node:http rows: initialize, then the session id on every POST.
  const accept = 'application/json, text/event-stream';
  const initRes = await fetch(base + '/mcp', { method: 'POST', headers: { ...headers, accept }, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }) });
  const sid = initRes.headers.get('mcp-session-id')!;
  await initRes.json();
  const mcpHeaders = { ...headers, accept, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  await (await fetch(base + '/mcp', { method: 'POST', headers: mcpHeaders, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).arrayBuffer();
  let rpcId = 1;
  const mcpBody = (q: string) => JSON.stringify({ jsonrpc: '2.0', id: rpcId++, method: 'tools/call', params: { name: 'find', arguments: { query: q, limit: 10 } } });
  const viaFetchMcp = async (q: string) => {
    const j = (await (await fetch(base + '/mcp', { method: 'POST', headers: mcpHeaders, body: mcpBody(q) })).json()) as { result?: { isError?: boolean } };
    if (!j.result || j.result.isError) throw new Error(JSON.stringify(j));
  };
  const agent = new nodeHttp.Agent({ keepAlive: true, maxSockets: 1 });
  const nodePost = (path: string, body: string, h: Record<string, string>) =>
    new Promise<unknown>((resolve, reject) => {
      const r = nodeHttp.request({ host: '127.0.0.1', port: server.port, path, method: 'POST', agent, headers: { ...h, 'content-length': Buffer.byteLength(body) } }, (res: nodeHttp.IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (x: Buffer) => chunks.push(x));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      });
      r.on('error', reject);
      r.end(body);
    });
  const viaNodeHttp = (q: string) => nodePost('/api/v1/search/find', JSON.stringify({ query: q, limit: 10 }), headers);
  const viaNodeMcp = (q: string) => nodePost('/mcp', mcpBody(q), mcpHeaders);

  const pairs: Array<{ name: string; http: (q: string) => Promise<unknown>; mcp: (q: string) => Promise<unknown>; tHttp: number[]; tMcp: number[] }> = [
    { name: 'SDK Client vs fetch (what users run)', http: viaHttp, mcp: (q) => viaMcp(c, q), tHttp: [], tMcp: [] },
    { name: 'fetch vs fetch (one client library)', http: viaHttp, mcp: viaFetchMcp, tHttp: [], tMcp: [] },
    { name: 'node:http vs node:http (one socket)', http: viaNodeHttp, mcp: viaNodeMcp, tHttp: [], tMcp: [] },
  ];
  for (let i = 0; i < 100; i++) for (const p of pairs) await Promise.all([p.http(query(i)), p.mcp(query(i))]);
  for (let i = 0; i < FINDS; i++) {
    const q = query(1000 + i);
    for (const p of pairs) {
      const first = i % 2 === 0;
      for (const way of first ? ['http', 'mcp'] : ['mcp', 'http']) {
        const t0 = performance.now();
        await (way === 'http' ? p.http(q) : p.mcp(q));
        (way === 'http' ? p.tHttp : p.tMcp).push(performance.now() - t0);
      }
    }
  }
  await c.close();
  agent.destroy();
  console.log(`find over ${FILES} files, ${FINDS} queries each way per client, one at a time, alternating (ms):`);
  console.log(`| client | HTTP p50 | MCP p50 | ratio p50 | HTTP mean | MCP mean | ratio mean | ratio p90 |`);
  console.log(`|---|---|---|---|---|---|---|---|`);
  for (const p of pairs) {
    console.log(`| ${p.name} | ${fmt(pct(p.tHttp, 50))} | ${fmt(pct(p.tMcp, 50))} | **${fmt(pct(p.tMcp, 50) / pct(p.tHttp, 50))}** | ${fmt(mean(p.tHttp))} | ${fmt(mean(p.tMcp))} | ${fmt(mean(p.tMcp) / mean(p.tHttp))} | ${fmt(pct(p.tMcp, 90) / pct(p.tHttp, 90))} |`);
  }

  // Phase 2: load, CLIENTS callers per transport, both transports at once.
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => mcpClient()));
  const end = performance.now() + DURATION * 1000;
  const loop = async (one: (n: number) => Promise<unknown>, lat: number[]) => {
    for (let n = 0; performance.now() < end; n++) {
      const t0 = performance.now();
      await one(n);
      lat.push(performance.now() - t0);
    }
  };
  const h: number[] = [];
  const m: number[] = [];
  await Promise.all([
    ...Array.from({ length: CLIENTS }, (_, w) => loop((n) => viaHttp(query(w * 100_003 + n)), h)),
    ...clients.map((cl, w) => loop((n) => viaMcp(cl, query((w + CLIENTS) * 100_003 + n)), m)),
  ]);
  await Promise.all(clients.map((x) => x.close()));
  console.log(`\n${CLIENTS} HTTP and ${CLIENTS} MCP callers at the same time, ${DURATION} s:`);
  console.log(`| transport | p50 ms | p90 ms | p99 ms | finds/s |`);
  console.log(`|---|---|---|---|---|`);
  console.log(`| HTTP | ${fmt(pct(h, 50))} | ${fmt(pct(h, 90))} | ${fmt(pct(h, 99))} | ${Math.round(h.length / DURATION)} |`);
  console.log(`| MCP | ${fmt(pct(m, 50))} | ${fmt(pct(m, 90))} | ${fmt(pct(m, 99))} | ${Math.round(m.length / DURATION)} |`);
  console.log(`| ratio MCP/HTTP | ${fmt(pct(m, 50) / pct(h, 50))} | ${fmt(pct(m, 90) / pct(h, 90))} | ${fmt(pct(m, 99) / pct(h, 99))} | ${fmt(h.length / m.length)} (HTTP/MCP finds) |`);
} finally {
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
}
