/**
 * ctx mcp: an MCP server on stdio that relays every JSON-RPC message to the ctx server's
 * Streamable HTTP endpoint (`/mcp`) with the caller's key, and every answer back. The relay holds
 * no tools of its own, so what an MCP client can do is exactly what the key allows over HTTP.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Handler } from '../context.js';

export const mcp: Handler = async (cx) => {
  const conn = await cx.connection();
  const [{ StdioServerTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const headers: Record<string, string> = {};
  if (conn.apiKey) headers['x-api-key'] = conn.apiKey;
  const peer = (cx.opts.peer as string | undefined) ?? conn.peer;
  if (peer) headers['x-ctx-actor-peer'] = peer;
  const remote = new StreamableHTTPClientTransport(new URL(`${conn.url}/mcp`), { requestInit: { headers } });
  const local = new StdioServerTransport();
  const initIds = new Set<string | number>();

  let closing = false;
  const shutdown = async (code: number) => {
    if (closing) return;
    closing = true;
    await remote.close().catch(() => undefined);
    await local.close().catch(() => undefined);
    process.exitCode = code;
  };

  local.onmessage = (msg: JSONRPCMessage) => {
    if ('method' in msg && msg.method === 'initialize' && 'id' in msg && msg.id !== undefined) initIds.add(msg.id);
    remote.send(msg).catch((err: unknown) => {
      const text = err instanceof Error ? err.message : String(err);
      process.stderr.write(`ctx mcp: ${conn.url}/mcp: ${text}\n`);
      // A request still gets an answer, so the MCP client does not hang.
      if ('id' in msg && 'method' in msg) void local.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32000, message: `ctx server unreachable or refused: ${text}` } });
    });
  };
  remote.onmessage = (msg: JSONRPCMessage) => {
    // Later requests must carry the negotiated protocol version header.
    if ('id' in msg && msg.id !== undefined && initIds.has(msg.id) && 'result' in msg) {
      initIds.delete(msg.id);
      const v = (msg.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof v === 'string') remote.setProtocolVersion(v);
    }
    void local.send(msg);
  };
  remote.onerror = (err: Error) => process.stderr.write(`ctx mcp: ${err.message}\n`);
  local.onerror = (err: Error) => process.stderr.write(`ctx mcp: stdio: ${err.message}\n`);
  local.onclose = () => void shutdown(0);

  await remote.start();
  await local.start();
  // stdin closing ends the relay (the MCP client went away).
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await shutdown(0);
};
