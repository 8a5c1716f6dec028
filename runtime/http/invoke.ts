/**
 * A route called in process as an identity the host issued: the same router, role check, schema
 * validation, handler and envelope as an HTTP request, without credentials or a socket. A plugin
 * serving another protocol (MCP) runs its operations through it, so they can never do more than the
 * same request over HTTP would.
 */
import { CtxError, ERROR_STATUS, type ErrorCode } from '../errors.js';
import type { Identity } from '../identity/types.js';
import type { Pipeline } from './pipeline.js';
import { bufferedResponse } from './buffered-sink.js';

/**
 * What a call's cancellation must offer: an `AbortSignal` does, and so does a lighter object that
 * makes one only when asked (creating an AbortSignal costs ~10 µs in a loaded server, and a call
 * that is never cancelled never needs one: the MCP plugin's tool calls pass such an object).
 */
export interface AbortLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
}

export interface InvokeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A route path with its parameters filled in (`/api/v1/tasks/abc`), percent-encoded as on the wire. */
  path: string;
  /** Query parameters; arrays repeat the name. Values are strings as on the wire (the route's schema coerces). */
  query?: Record<string, string | number | boolean | Array<string | number | boolean> | undefined>;
  /** A JSON body. */
  body?: unknown;
  /** A body in another form (a multipart upload), sent as is; wins over `body`. */
  rawBody?: { contentType: string; data: Buffer };
  /** Aborts the handler's `ctx.signal` (the caller went away): an `AbortSignal` or any `AbortLike`. */
  signal?: AbortLike;
}

/** What a route answered outside the envelope (health, raw bytes, SSE): status, headers and bytes. */
export interface InvokeReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * The envelope's `result`, or the route's error thrown as the `CtxError` it carried. A route that
 * answers without the envelope (a `Reply`) gives an `InvokeReply`.
 */
export async function invoke(pipeline: Pipeline, identity: Identity, r: InvokeRequest): Promise<unknown> {
  const query = r.query ? encodeQuery(r.query) : '';
  const headers: Record<string, string> = {};
  let body: Buffer = Buffer.alloc(0);
  if (r.rawBody) {
    body = r.rawBody.data;
    headers['content-type'] = r.rawBody.contentType;
  } else if (r.body !== undefined) {
    body = Buffer.from(JSON.stringify(r.body));
    headers['content-type'] = 'application/json';
  }
  const res = bufferedResponse(r.signal, { keepJson: true });
  const handled = pipeline.handle({ method: r.method, path: r.path, query, headers, body, remoteAddress: '127.0.0.1' }, res.sink, identity);
  await Promise.race([res.ended, handled.then(() => (r.signal?.aborted ? undefined : res.ended))]);
  if (r.signal?.aborted) throw new CtxError('UNAVAILABLE', 'the call was cancelled');
  const status = res.status();
  const resHeaders = res.headers();
  const kept = res.json();
  // The envelope as a value: the handler's objects, never serialized and parsed back (an MCP find
  // spent a tenth of a millisecond on that). Callers read them and do not change them.
  if (kept !== undefined) return fromEnvelope(kept.value, () => Buffer.from(JSON.stringify(kept.value) ?? ''), status, resHeaders);
  const buf = res.body();
  const type = resHeaders['content-type'] ?? '';
  if (type.startsWith('application/json') && buf.length > 0) return fromEnvelope(JSON.parse(buf.toString('utf8')), () => buf, status, resHeaders);
  return { status, headers: resHeaders, body: buf } satisfies InvokeReply;
}

/** The envelope's result, its error thrown, or (a JSON body that is no envelope) the reply as bytes. */
function fromEnvelope(value: unknown, bytes: () => Buffer, status: number, headers: Record<string, string>): unknown {
  const parsed = value as { status?: unknown; result?: unknown; error?: { code: ErrorCode; message: string; details?: Record<string, unknown> }; time?: unknown } | null;
  if (parsed && typeof parsed === 'object' && 'time' in parsed) {
    if (parsed.status === 'ok' && 'result' in parsed) return parsed.result;
    if (parsed.status === 'error' && parsed.error && parsed.error.code in ERROR_STATUS) throw new CtxError(parsed.error.code, parsed.error.message, parsed.error.details);
  }
  return { status, headers, body: bytes() } satisfies InvokeReply;
}

function encodeQuery(q: NonNullable<InvokeRequest['query']>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) p.append(k, String(one));
  }
  return p.toString();
}
