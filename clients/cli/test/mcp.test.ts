/**
 * `ctx mcp` relays MCP between stdio and a Streamable HTTP endpoint: here a real McpServer from the
 * same SDK on node:http (the server's own /mcp may not exist in this checkout), driven by the SDK's
 * Client over stdio exactly as an MCP host would run it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { startLiveServer } from '../../typescript/test/server.js';
import { BIN, closedPort, ensureBuilt, isolatedEnv } from './run.js';

const KEY = 'mcp-test-key-0123456789';
let server: http.Server;
let url: string;
const seenKeys: Array<string | undefined> = [];

function mcpServer(): McpServer {
  const s = new McpServer({ name: 'fake-ctx', version: '1.0.0' });
  s.registerTool('echo', { description: 'echoes its text', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }));
  return s;
}

beforeAll(async () => {
  ensureBuilt();
  server = http.createServer(async (req, res) => {
    seenKeys.push(req.headers['x-api-key'] as string | undefined);
    if (req.url !== '/mcp') return res.writeHead(404).end();
    if (req.headers['x-api-key'] !== KEY) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ status: 'error', error: { code: 'UNAUTHENTICATED', message: 'bad key' } }));
    }
    // Stateless: a fresh server and transport per request, as the SDK's examples do.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const s = mcpServer();
    res.on('close', () => void transport.close().then(() => s.close()));
    await s.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function connect(env: Record<string, string>) {
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return { client, transport, stderr: () => stderr };
}

describe('ctx mcp', () => {
  it('relays initialize, tools/list and tools/call with the API key from the environment', async () => {
    const { client, transport } = await connect(isolatedEnv({ CTX_URL: url, CTX_API_KEY: KEY }));
    await client.connect(transport);
    expect(client.getServerVersion()).toMatchObject({ name: 'fake-ctx' });
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['echo']);
    const out = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(out.content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    expect(seenKeys.at(-1)).toBe(KEY);
    await client.close();
  });

  it('a refused key or an unreachable server answers the request with an error instead of hanging', async () => {
    for (const env of [isolatedEnv({ CTX_URL: url, CTX_API_KEY: 'wrong-key-0123456789' }), isolatedEnv({ CTX_URL: `http://127.0.0.1:${await closedPort()}` })]) {
      const { client, transport, stderr } = await connect(env);
      await expect(client.connect(transport)).rejects.toThrow(/ctx server unreachable or refused/);
      expect(stderr()).toMatch(/^ctx mcp: /);
      await client.close();
    }
  });

  it("relays to the ctx server's own /mcp plugin with the caller's key", async () => {
    const live = await startLiveServer();
    try {
      const { client, transport } = await connect(isolatedEnv({ CTX_URL: live.url, CTX_API_KEY: live.aliceKey }));
      await client.connect(transport);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
    } finally {
      await live.close();
    }
  });
});
