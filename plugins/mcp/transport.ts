/**
 * MCP Streamable HTTP on the host's router, without web `Request`/`Response` objects.
 *
 * The SDK's web-standard transport answers every POST by building an undici `Response` around the
 * JSON text, which the bridge then had to read back through a web stream: a quarter of a
 * millisecond and most of the garbage of a tool call, on a path whose whole budget is the
 * difference between a `find` over MCP and the same `find` over HTTP. This transport speaks the
 * same protocol (2025-11-25 and the versions before it the SDK supports) straight from the
 * route's parsed body to a `Reply`: JSON responses for POSTs (`enableJsonResponse` mode, the only
 * one ctx uses: no tool streams), one SSE stream per session on GET for server notifications
 * (resource updates), DELETE to end the session. The SDK's `Server` still runs the protocol
 * (initialize, capabilities, request validation, handlers); only the HTTP framing is ours.
 */
import { randomUUID } from 'node:crypto';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type JSONRPCRequest, type MessageExtraInfo, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { Reply, type Identity, type RouteContext, type SseWriter } from 'ctx/plugin';
import { jsonRpcError, messageKind } from './messages.js';
import { Cancellation } from './cancellation.js';
import type { ToolCaller } from './server.js';

const SESSION_HEADER = 'mcp-session-id';
/** The SDK's own bound: a batch larger than this is refused before anything runs. */
const MAX_BATCH = 100;
/** Server notifications queued for a GET stream that is slow to read; older ones are dropped beyond this. */
const MAX_QUEUED_EVENTS = 1000;
const KEEPALIVE_MS = 15_000;


interface PendingPost {
  /** Request ids of the POST still waiting for their responses. */
  waiting: Set<RequestId>;
  responses: JSONRPCMessage[];
  done: () => void;
}

interface EventStream {
  queue: JSONRPCMessage[];
  wake?: () => void;
  closed: boolean;
}

export class HttpSessionTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  private readonly pending = new Map<RequestId, PendingPost>();
  /** `tools/call` requests running on the direct path, to cancel on `notifications/cancelled`. */
  private readonly direct = new Map<RequestId, Cancellation>();
  private stream: EventStream | undefined;
  private closed = false;

  /**
   * @param callTool when given, a POST holding one `tools/call` runs it directly instead of through
   *   the SDK's protocol layer, which parses every message with zod four times over (to classify
   *   it, for the handler, for `tools/call`, and the result): a tenth of a millisecond of every
   *   call, on the path whose budget is MCP's cost over the same HTTP request. The result is the
   *   one the SDK's handler would build (the same function); everything else goes to the SDK.
   */
  constructor(
    private readonly hooks: { onInitialized(id: string): void; onClosed(id: string): void },
    private readonly callTool?: ToolCaller,
  ) {}

  async start(): Promise<void> {}

  /** A POST: the messages of `body` (one or a batch), answered with their responses as JSON. */
  async post(ctx: RouteContext, identity: Identity, body: unknown): Promise<Reply> {
    const accept = ctx.req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return jsonRpcError(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    const list = Array.isArray(body) ? body : [body];
    if (list.length === 0) return jsonRpcError(400, -32600, 'Invalid Request: empty batch');
    if (list.length > MAX_BATCH) return jsonRpcError(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
    const messages: JSONRPCMessage[] = [];
    const requests: JSONRPCRequest[] = [];
    for (const m of list) {
      const kind = messageKind(m);
      if (kind === undefined) return jsonRpcError(400, -32700, 'Parse error: Invalid JSON-RPC message');
      messages.push(m as JSONRPCMessage);
      if (kind === 'request') requests.push(m as JSONRPCRequest);
    }

    const initializing = requests.some((r) => r.method === 'initialize');
    if (initializing) {
      if (this.sessionId !== undefined) return jsonRpcError(400, -32600, 'Invalid Request: Server already initialized');
      if (messages.length > 1) return jsonRpcError(400, -32600, 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = randomUUID();
      this.hooks.onInitialized(this.sessionId);
    } else {
      const refused = this.checkSession(ctx);
      if (refused) return refused;
    }

    if (this.callTool && requests.length === 1 && messages.length === 1 && isPlainToolCall(requests[0]!)) {
      return this.callDirect(identity, requests[0]!, Array.isArray(body));
    }
    const extra: MessageExtraInfo = { authInfo: { token: '', clientId: identity.userId, scopes: [], extra: { identity } } };
    if (requests.length === 0) {
      for (const m of messages) {
        this.cancelIfAsked(m);
        this.onmessage?.(m, extra);
      }
      return Reply.raw('', { status: 202, contentType: 'application/json', headers: this.sessionHeaders() });
    }

    const answered = new Promise<JSONRPCMessage[]>((resolve) => {
      const post: PendingPost = { waiting: new Set(requests.map((r) => r.id)), responses: [], done: () => resolve(post.responses) };
      for (const id of post.waiting) this.pending.set(id, post);
    });
    // A client that goes away stops waiting; the handlers still finish (the protocol cancels them
    // only on notifications/cancelled), their answers then find no one and are dropped.
    const forget = () => {
      for (const r of requests) this.pending.delete(r.id);
    };
    ctx.signal.addEventListener('abort', forget, { once: true });
    for (const m of messages) {
      this.cancelIfAsked(m);
      this.onmessage?.(m, extra);
    }
    const responses = await answered;
    ctx.signal.removeEventListener('abort', forget);
    if (responses.length === 0) return Reply.raw('', { status: 202, contentType: 'application/json', headers: this.sessionHeaders() });
    const payload = Array.isArray(body) ? responses : responses[0];
    return Reply.raw(JSON.stringify(payload), { status: 200, contentType: 'application/json', headers: this.sessionHeaders() });
  }

  /** One `tools/call` answered without the SDK's protocol layer (see the constructor). */
  private async callDirect(identity: Identity, request: JSONRPCRequest, batch: boolean): Promise<Reply> {
    const control = new Cancellation();
    this.direct.set(request.id, control);
    let response: JSONRPCMessage;
    try {
      response = { jsonrpc: '2.0', id: request.id, result: await this.callTool!(request.params, identity, control) };
    } catch (err) {
      // As the SDK's protocol layer answers a handler's error.
      const e = err as { code?: unknown; message?: string; data?: unknown };
      const code = typeof e?.code === 'number' && Number.isSafeInteger(e.code) ? e.code : -32603;
      response = { jsonrpc: '2.0', id: request.id, error: { code, message: e?.message ?? 'Internal error', ...(e?.data !== undefined ? { data: e.data } : {}) } };
    } finally {
      if (this.direct.get(request.id) === control) this.direct.delete(request.id);
    }
    // A cancelled request gets no response (the protocol's rule); its POST ends empty.
    if (control.aborted) return Reply.raw('', { status: 202, contentType: 'application/json', headers: this.sessionHeaders() });
    return Reply.raw(JSON.stringify(batch ? [response] : response), { status: 200, contentType: 'application/json', headers: this.sessionHeaders() });
  }

  /** `notifications/cancelled`: a request on the direct path is aborted (the SDK aborts its own). */
  private cancelIfAsked(m: JSONRPCMessage): void {
    const n = m as { method?: string; params?: { requestId?: RequestId } };
    if (n.method !== 'notifications/cancelled' || n.params?.requestId === undefined) return;
    const id = n.params.requestId;
    this.direct.get(id)?.abort();
    // The SDK answers nothing for a request it cancelled: its POST stops waiting for it.
    const post = this.pending.get(id);
    if (post) {
      this.pending.delete(id);
      post.waiting.delete(id);
      if (post.waiting.size === 0) post.done();
    }
  }

  /** A GET: the session's stream of server-to-client messages (one at a time per session). */
  open(ctx: RouteContext): Reply {
    if (!(ctx.req.headers.accept ?? '').includes('text/event-stream')) return jsonRpcError(406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    const refused = this.checkSession(ctx);
    if (refused) return refused;
    if (this.stream && !this.stream.closed) return jsonRpcError(409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    const stream: EventStream = { queue: [], closed: false };
    this.stream = stream;
    return Reply.sse((sse) => this.pump(sse, stream), this.sessionHeaders());
  }

  /** A DELETE: ends the session. */
  async end(ctx: RouteContext): Promise<Reply> {
    const refused = this.checkSession(ctx);
    if (refused) return refused;
    await this.close();
    return Reply.raw('', { status: 200, contentType: 'application/json' });
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (messageKind(message) === 'response') {
      const id = (message as { id?: RequestId | null }).id;
      const post = id === undefined || id === null ? undefined : this.pending.get(id);
      if (!post || id === undefined || id === null) return;
      this.pending.delete(id);
      post.responses.push(message);
      post.waiting.delete(id);
      if (post.waiting.size === 0) post.done();
      return;
    }
    // JSON responses carry no events: a message about a request in flight (progress) has nowhere
    // to go, as in the SDK's JSON mode. Anything else goes to the session's GET stream, if open.
    if (options?.relatedRequestId !== undefined) return;
    const stream = this.stream;
    if (!stream || stream.closed) return;
    if (stream.queue.length >= MAX_QUEUED_EVENTS) stream.queue.shift();
    stream.queue.push(message);
    stream.wake?.();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.stream) {
      this.stream.closed = true;
      this.stream.wake?.();
    }
    for (const post of new Set(this.pending.values())) post.done();
    this.pending.clear();
    for (const control of this.direct.values()) control.abort();
    if (this.sessionId !== undefined) this.hooks.onClosed(this.sessionId);
    this.onclose?.();
  }

  private async pump(sse: SseWriter, stream: EventStream): Promise<void> {
    const stop = () => {
      stream.closed = true;
      stream.wake?.();
    };
    sse.signal.addEventListener('abort', stop, { once: true });
    try {
      // Headers go out with the first bytes: a comment now, so the client sees the stream open
      // instead of waiting for the first notification.
      await sse.comment('stream open');
      while (!stream.closed) {
        const next = stream.queue.shift();
        if (next) {
          await sse.send(next, { event: 'message' });
          continue;
        }
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          stream.wake = resolve;
          timer = setTimeout(resolve, KEEPALIVE_MS);
        });
        clearTimeout(timer);
        stream.wake = undefined;
        // Proxies close a stream silent for long: a comment now and then keeps it open.
        if (!stream.closed && stream.queue.length === 0) await sse.comment('keep-alive');
      }
    } finally {
      sse.signal.removeEventListener('abort', stop);
      stream.closed = true;
      if (this.stream === stream) this.stream = undefined;
    }
  }

  /** The protocol version header, when sent, must be one this server speaks. */
  private checkSession(ctx: RouteContext): Reply | undefined {
    if (this.sessionId === undefined) return jsonRpcError(400, -32000, 'Bad Request: Server not initialized');
    const version = ctx.req.headers['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return jsonRpcError(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
    }
    return undefined;
  }

  private sessionHeaders(): Record<string, string> {
    return this.sessionId === undefined ? {} : { [SESSION_HEADER]: this.sessionId };
  }
}

/**
 * A `tools/call` the direct path may answer: not task-augmented and not tied to a task (the SDK
 * refuses or queues those), so the SDK's answer would be its handler's alone.
 */
function isPlainToolCall(r: JSONRPCRequest): boolean {
  if (r.method !== 'tools/call') return false;
  const params = r.params as { task?: unknown; _meta?: Record<string, unknown> } | undefined;
  return params?.task === undefined && params?._meta?.['io.modelcontextprotocol/related-task'] === undefined;
}
