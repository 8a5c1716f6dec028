/** A real server on a free port and the SDK's real client over Streamable HTTP. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { CreateAppOptions } from '../../runtime/app.js';
import type { CtxConfig } from '../../runtime/config.js';

export interface McpServerUnderTest {
  t: TestApp;
  base: string;
  close(): Promise<void>;
}

export async function startMcpServer(opts: CreateAppOptions & { config?: Partial<CtxConfig> } = {}): Promise<McpServerUnderTest> {
  const t = await startTestApp(opts);
  const server = await t.app.listen(0, '127.0.0.1');
  return { t, base: `http://127.0.0.1:${server.port}`, close: () => t.close() };
}

export async function connect(base: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'ctx-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(base + '/mcp'), { requestInit: { headers } }));
  return client;
}

export interface ToolResult {
  content: Array<{ type: string; text: string }>;
  structuredContent?: Record<string, any>;
  isError?: boolean;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** A successful call's structured content; fails the test with the tool's error text otherwise. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  const r = await call(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.content[0]?.text}`);
  return r;
}

export async function errorCode(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const r = await call(client, name, args);
  if (!r.isError) throw new Error(`${name} succeeded, expected an error: ${r.content[0]?.text}`);
  return r.structuredContent?.error?.code as string;
}
