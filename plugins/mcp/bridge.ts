/**
 * The SDK's web-standard transport behind the host's router: the request the pipeline already
 * authenticated becomes a `Request`, and the `Response` becomes a `Reply` (JSON bodies as bytes, SSE
 * streams streamed, ended when the client goes away).
 */
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Reply, type Identity, type RouteContext } from 'ctx/plugin';

export function jsonRpcError(status: number, code: number, message: string): Reply {
  return Reply.json({ jsonrpc: '2.0', error: { code, message }, id: null }, status);
}

/**
 * The headers the transport reads. Credentials stay behind: the SDK hands request headers to
 * handlers (`requestInfo`), and the identity already travels as `authInfo`.
 */
const PROTOCOL_HEADERS = ['accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'];

export async function serve(transport: WebStandardStreamableHTTPServerTransport, ctx: RouteContext, identity: Identity, parsedBody?: unknown): Promise<Reply> {
  const headers = new Headers();
  for (const k of PROTOCOL_HEADERS) {
    const v = ctx.req.headers[k];
    if (v !== undefined) headers.set(k, v);
  }
  // No signal: the transport never reads one, and a signal makes undici build and link its own per
  // request (a fifth of the bridge's cost); a gone client ends SSE streams through `stream` below.
  const request = new Request(`http://localhost${ctx.req.path}`, { method: ctx.req.method, headers });
  const res = await transport.handleRequest(request, {
    parsedBody,
    // The identity travels with the messages of this request to the handlers that run them.
    authInfo: { token: '', clientId: identity.userId, scopes: [], extra: { identity } },
  });
  return toReply(res, ctx.signal);
}

async function toReply(res: Response, signal: AbortSignal): Promise<Reply> {
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (k !== 'content-length' && k !== 'content-type') headers[k] = v;
  });
  const contentType = res.headers.get('content-type') ?? 'application/json';
  if (!res.body) return Reply.raw('', { status: res.status, contentType, headers });
  if (!contentType.startsWith('text/event-stream')) return Reply.raw(Buffer.from(await res.arrayBuffer()), { status: res.status, contentType, headers });
  return Reply.raw(stream(res.body, signal), { status: res.status, contentType, headers });
}

async function* stream(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  // The pipeline only notices a gone client between chunks; an idle SSE stream has none, so the
  // abort itself ends the read.
  const cancel = () => void reader.cancel().catch(() => {});
  if (signal.aborted) cancel();
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value) yield value;
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    cancel();
  }
}
