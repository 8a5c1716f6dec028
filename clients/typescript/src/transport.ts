/**
 * One HTTP call: URL and query building, the API key, the envelope, typed errors and retries.
 * The default is the global `fetch`, so the same code runs in Node 20+ and in browsers; a caller
 * may pass any function of the `FetchLike` shape (the CLI passes `httpFetch` from ctx-client/node,
 * which avoids loading undici in a short-lived process).
 */
import { CtxApiError, CtxConnectionError, errorFromResponse } from './errors.js';
import { routes } from './generated/routes.js';
import type { CallOptions, OperationId, ResultOf } from './types.js';

export const DEFAULT_URL = 'http://127.0.0.1:1933';

export interface RetryOptions {
  /** Extra attempts after the first (default 3); 0 turns retries off. */
  retries?: number;
  /** First backoff in ms, doubled each attempt with full jitter (default 200). */
  baseDelayMs?: number;
  /** Longest single wait in ms, Retry-After included (default 10000). */
  maxDelayMs?: number;
}

export interface ClientOptions {
  /** Server base URL (default http://127.0.0.1:1933, the dev server). */
  url?: string;
  /** Sent as X-API-Key; omit in dev mode. */
  apiKey?: string;
  /** Headers on every request, e.g. `X-Ctx-Actor-Peer`. */
  headers?: Record<string, string>;
  retry?: RetryOptions;
  /** A fetch implementation (default: the global one); `httpFetch` from ctx-client/node is one. */
  fetch?: FetchLike;
  /**
   * Read your own writes through any node of a ctx cluster (default true): the client keeps the
   * newest `X-Ctx-Consistency-Token` its responses carried, per shard, and sends them with every
   * request, so a node that has not applied this client's last write yet waits for it (or forwards
   * the read) instead of answering without it. A single-node server sends no token: nothing is added.
   */
  readYourWrites?: boolean;
  /** Tokens to start from (another client's or process's `consistencyToken()`), e.g. `"3:1042,sys:17"`. */
  consistencyToken?: string;
}

/** The cluster's consistency token header (docs/scale-out.md, "Reads and the consistency token"). */
export const CONSISTENCY_TOKEN_HEADER = 'x-ctx-consistency-token';
/**
 * Shards whose tokens a client keeps; when full, the least recently advanced one is dropped. One API
 * key writes to its account's shard and, through identity calls, the system one; a root key touring
 * many accounts keeps the latest few rather than growing every header.
 */
const MAX_TOKENS = 16;
const TOKEN = /^([0-9]+|sys):([0-9]+)$/;

/** Response headers as the client reads them (a `Headers` is one). */
export interface HttpHeaders {
  get(name: string): string | null;
}

/** The part of fetch's `Response` the client uses, so a transport need not build real Responses. */
export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: HttpHeaders;
  /** The unread body; reading it excludes `text()`/`json()`, as with fetch. */
  readonly body: ReadableStream<Uint8Array> | null;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

export type FetchInit = RequestInit & { duplex?: 'half' };

/** What the client calls to send a request: the global fetch, or a lighter function of this shape. */
export type FetchLike = (url: string, init: FetchInit) => Promise<HttpResponse>;

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

export class Transport {
  readonly url: string;
  private readonly apiKey: string | undefined;
  private readonly headers: Record<string, string>;
  private readonly retry: Required<RetryOptions>;
  private readonly fetchImpl: FetchLike;
  private readonly readYourWrites: boolean;
  /** Shard → the highest sequence a response told this client of (insertion order: least recently advanced first). */
  private readonly tokens = new Map<string, number>();

  constructor(opts: ClientOptions = {}) {
    this.url = (opts.url ?? DEFAULT_URL).replace(/\/+$/, '');
    this.apiKey = opts.apiKey;
    this.headers = opts.headers ?? {};
    this.retry = { retries: 3, baseDelayMs: 200, maxDelayMs: 10_000, ...opts.retry };
    this.fetchImpl = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.readYourWrites = opts.readYourWrites ?? true;
    if (opts.consistencyToken) this.rememberTokens(opts.consistencyToken);
  }

  /**
   * What this client has been told of its writes so far, as the header value (`<shard>:<seq>`,
   * comma-separated), or undefined before any write to a cluster: pass it to another client
   * (`consistencyToken` option) to have it read those writes too.
   */
  consistencyToken(): string | undefined {
    if (this.tokens.size === 0) return undefined;
    return [...this.tokens].map(([shard, seq]) => `${shard}:${seq}`).join(',');
  }

  /** Keeps the newest sequence per shard of a token header value; malformed entries are ignored. */
  private rememberTokens(value: string): void {
    for (const part of value.split(',')) {
      const m = TOKEN.exec(part.trim());
      if (!m) continue;
      const [shard, seq] = [m[1]!, Number(m[2])];
      const known = this.tokens.get(shard);
      if (known !== undefined && known >= seq) continue;
      this.tokens.delete(shard);
      this.tokens.set(shard, seq);
      if (this.tokens.size > MAX_TOKENS) this.tokens.delete(this.tokens.keys().next().value!);
    }
  }

  /** Calls an operation and resolves to its envelope's `result` (or its raw JSON body). */
  async call<O extends OperationId>(op: O, opts: CallOptions<O> = {}): Promise<ResultOf<O>> {
    const res = await this.send(op, opts);
    const type = res.headers.get('content-type') ?? '';
    if (!type.includes('json')) return (await res.text()) as ResultOf<O>;
    const body = (await res.json()) as { status?: unknown; result?: unknown };
    return (body && body.status === 'ok' && 'result' in body ? body.result : body) as ResultOf<O>;
  }

  /** Sends an operation and returns the successful Response unread (streams, downloads, SSE). */
  async send<O extends OperationId>(op: O, opts: CallOptions<O> = {}): Promise<HttpResponse> {
    const [method, template] = routes[op];
    const url = this.url + fillPath(template, opts.path as Record<string, unknown> | undefined) + queryString(opts.query as Record<string, unknown> | undefined);
    const headers: Record<string, string> = { ...this.headers, ...opts.headers };
    if (this.apiKey) headers['x-api-key'] = this.apiKey;
    // A token the caller set itself stands as given.
    if (this.readYourWrites && this.tokens.size && !Object.keys(headers).some((h) => h.toLowerCase() === CONSISTENCY_TOKEN_HEADER)) headers[CONSISTENCY_TOKEN_HEADER] = this.consistencyToken()!;
    let body: BodyInit | undefined;
    if (opts.body !== undefined) {
      if (!isJsonValue(opts.body) && isRawBody(opts.body)) body = opts.body;
      else {
        body = JSON.stringify(opts.body);
        headers['content-type'] = 'application/json';
      }
    }
    const idempotent = opts.idempotent ?? IDEMPOTENT_METHODS.has(method);
    const init: FetchInit = { method, headers, body, signal: opts.signal };
    // fetch refuses a streamed request body without it.
    // (Checked only with a body: naming ReadableStream loads Node's web streams.)
    if (body !== undefined && typeof ReadableStream !== 'undefined' && body instanceof ReadableStream) init.duplex = 'half';
    return this.fetchWithRetry(url, init, idempotent);
  }

  private async fetchWithRetry(url: string, init: FetchInit, idempotent: boolean): Promise<HttpResponse> {
    // A stream body cannot be replayed; it is never retried.
    const canRetry = idempotent && !(init.body != null && typeof ReadableStream !== 'undefined' && init.body instanceof ReadableStream);
    for (let attempt = 0; ; attempt++) {
      const last = !canRetry || attempt >= this.retry.retries;
      let res: HttpResponse;
      try {
        res = await this.fetchImpl(url, init);
      } catch (err) {
        if (init.signal?.aborted) throw err;
        if (last) throw new CtxConnectionError(`cannot reach ${new URL(url).origin}: ${describe(err)}`, url, { cause: err });
        await sleep(this.backoff(attempt), init.signal);
        continue;
      }
      if (res.ok) {
        if (this.readYourWrites) {
          const token = res.headers.get(CONSISTENCY_TOKEN_HEADER);
          if (token) this.rememberTokens(token);
        }
        return res;
      }
      const retryAfter = res.headers.get('retry-after');
      if (!last && (res.status === 429 || res.status === 503) && retryAfter !== null) {
        await res.body?.cancel().catch(() => undefined);
        await sleep(Math.min(this.retry.maxDelayMs, Math.max(parseRetryAfter(retryAfter), this.backoff(attempt))), init.signal);
        continue;
      }
      throw await errorFromResponse(res);
    }
  }

  private backoff(attempt: number): number {
    return Math.random() * Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt);
  }
}

function fillPath(template: string, params: Record<string, unknown> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params?.[name];
    if (v === undefined || v === null || v === '') throw new CtxApiError('INVALID_ARGUMENT', `missing path parameter ${name}`, 0, { field: name }, undefined);
    // Multi-segment parameters (the gateway path, sync paths) keep their slashes.
    return String(v).split('/').map(encodeURIComponent).join('/');
  });
}

function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) qs.append(k, String(item));
    else qs.append(k, String(v));
  }
  const s = qs.toString();
  return s ? `?${s}` : '';
}

/** A plain object or array: sent as JSON. Checked first because naming `FormData` or `URLSearchParams`
 * in Node loads undici (the global fetch's implementation), which a lighter transport avoids. */
function isJsonValue(b: unknown): boolean {
  if (typeof b !== 'object' || b === null) return typeof b === 'number' || typeof b === 'boolean';
  const proto = Object.getPrototypeOf(b);
  return Array.isArray(b) || proto === Object.prototype || proto === null;
}

function isRawBody(b: unknown): b is BodyInit {
  return (
    typeof b === 'string' ||
    b instanceof ArrayBuffer ||
    ArrayBuffer.isView(b) ||
    (typeof Blob !== 'undefined' && b instanceof Blob) ||
    (typeof FormData !== 'undefined' && b instanceof FormData) ||
    (typeof ReadableStream !== 'undefined' && b instanceof ReadableStream) ||
    (typeof URLSearchParams !== 'undefined' && b instanceof URLSearchParams)
  );
}

function parseRetryAfter(v: string): number {
  const secs = Number(v);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : 0;
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err as Error)?.message ?? String(err);
}

export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
