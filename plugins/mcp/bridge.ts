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

/**
 * What the transport reads of a request: its method, URL and headers (`get`, `entries`); the body
 * only when no parsed body is given, and this plugin always parses POST bodies itself. A real
 * undici `Request` built per message (with its own AbortSignal, linked and made transferable) was
 * most of the bridge's CPU; the SDK version is pinned and the tests drive every path through it.
 */
class ProtocolRequest {
  readonly url: string;
  readonly headers: ProtocolHeaders;
  constructor(readonly method: string, path: string, headers: Record<string, string>) {
    this.url = `http://localhost${path}`;
    this.headers = new ProtocolHeaders(headers);
  }
}

class ProtocolHeaders {
  private readonly map: Map<string, string>;
  constructor(all: Record<string, string>) {
    this.map = new Map();
    for (const k of PROTOCOL_HEADERS) {
      const v = all[k];
      if (v !== undefined) this.map.set(k, v);
    }
  }
  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
  entries(): IterableIterator<[string, string]> {
    return this.map.entries();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.map.entries();
  }
}

export async function serve(transport: WebStandardStreamableHTTPServerTransport, ctx: RouteContext, identity: Identity, parsedBody?: unknown): Promise<Reply> {
  const request = new ProtocolRequest(ctx.req.method, ctx.req.path, ctx.req.headers) as unknown as Request;
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
