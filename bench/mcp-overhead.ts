/**
 * What the MCP layer itself costs the server, without sockets or a client library: the same app,
 * requests through `inject` (the real pipeline), one MCP session. A JSON-RPC ping (transport and
 * protocol only), the `stat` tool (ping's path plus the tool and the in-process route call), and
 * the route it calls over plain HTTP, in alternating rounds.
 *   npx tsx bench/mcp-overhead.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../runtime/app.js';
import { builtinPlugins } from '../plugins/index.js';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-inj-'));
const app = await createApp({ env: {}, plugins: builtinPlugins, config: { dataDir: dir, rootApiKey: 'bench-root-key-0123456789', authMode: 'api_key', logLevel: 'silent', accessLog: false, grpcPort: 0 } });
const h = { 'x-api-key': 'bench-root-key-0123456789', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const init = await app.inject({ method: 'POST', url: '/mcp', headers: h, body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } } });
const sid = init.headers['mcp-session-id']!;
const hs = { ...h, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
await app.inject({ method: 'POST', url: '/mcp', headers: hs, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(3);
let id = 10;
const run = async (name: string, f: () => Promise<unknown>) => {
  for (let i = 0; i < 100; i++) await f();
  const t: number[] = [];
  for (let i = 0; i < 3000; i++) { const t0 = performance.now(); await f(); t.push(performance.now() - t0); }
  console.log(`| ${name} | ${med(t)} |`);
};
console.log('| request (in process, median of 3,000) | ms |\n|---|---|');
for (let k = 0; k < 2; k++) {
  await run('MCP ping', () => app.inject({ method: 'POST', url: '/mcp', headers: hs, body: { jsonrpc: '2.0', id: id++, method: 'ping' } }));
  await run('MCP tools/call stat', () => app.inject({ method: 'POST', url: '/mcp', headers: hs, body: { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'stat', arguments: { uri: 'ctx://resources' } } } }));
  await run('HTTP GET /api/v1/fs/stat', () => app.inject({ method: 'GET', url: '/api/v1/fs/stat?uri=ctx://resources', headers: h }));
  await run('HTTP GET /api/v1/system/status', () => app.inject({ method: 'GET', url: '/api/v1/system/status', headers: h }));
}
await app.close();
fs.rmSync(dir, { recursive: true, force: true });
