/**
 * One request pipeline for every transport: route → identity → query/body validation → handler →
 * envelope or reply → access log. The uWS adapter and `inject()` both call `handle`, so in-process
 * tests exercise exactly what the socket serves.
 */
// Imported, not the global: `Buffer` on globalThis is a getter, a call per use on the request path.
import { Buffer, isAscii } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { CtxError, ERROR_STATUS, isCtxError } from '../errors.js';
import type { Authenticator } from '../identity/auth.js';
import { credentialsSupplied } from '../identity/auth.js';
import type { Identity } from '../identity/types.js';
import type { ScopedVfs } from '../access/scoped-vfs.js';
import { issueIdentity } from '../access/issued.js';
import type { Logger } from '../logger.js';
import type { RequestInfo, RouteContext, RouteDef } from '../plugin.js';
import { dropUnknownQueryParams, parseQueryString } from '../schema.js';
import { Router } from './router.js';
import { JsonResult, JsonText, Reply, formatSse, type SseWriter } from './reply.js';
import type { HttpRequestData, ResponseSink } from './types.js';
import type { HttpMetrics, RouteMetrics } from '../metrics/http-metrics.js';
import { runWithTrace, type ActiveTrace, type Tracing } from '../tracing/tracing.js';
import { newTraceId } from '../tracing/trace-context.js';
import { stamp, stamping } from '../models/wire-stamps.js';

export interface RegisteredRoute {
  def: RouteDef<any, any>;
  plugin: string;
  /** This route's metric children (resolved from its template at registration), when metrics are on. */
  metrics?: RouteMetrics;
}

export interface PipelineOptions {
  auth: Authenticator;
  log: Logger;
  accessLog: boolean;
  profiling: boolean;
  maxJsonBodyBytes: number;
  /** Builds the caller-scoped VFS view a handler reads as `ctx.vfs` (created on first use). */
  scopedVfs?: (identity: Identity) => ScopedVfs;
  /** Request metrics (`GET /metrics`); absent = not recorded. */
  metrics?: HttpMetrics;
  /** The per-account label of the request counter (CTX_METRICS_ACCOUNT_LABEL). */
  metricsAccountLabel?: boolean;
  /** Trace context (traceparent in, trace id in logs, spans when exported); absent = none. */
  tracing?: Tracing;
  /** Cluster mode's routing (runtime/cluster/request-gate.ts); absent on a single node. */
  gate?: RequestGate;
}

/** A response another node gave, to be answered verbatim (cluster forwarding). */
export interface ForwardedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** A request admitted to run here: its handler runs through `run`, then `headers` are added. */
export interface GateAdmission {
  run<T>(fn: () => Promise<T>): Promise<T>;
  headers(): Record<string, string> | undefined;
}

/** Decides, after authentication, whether a request runs here or is answered by another node. */
export interface RequestGate {
  admit(req: HttpRequestData, identity: Identity | undefined): Promise<GateAdmission | ForwardedResponse | undefined>;
  /** The caller's identity another node signed onto a request it forwarded; throws when refused. */
  peerIdentity?(req: HttpRequestData): Identity | undefined;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const PROFILE_ON = new Set(['1', 'true', 'yes', 'on']);
const ENVELOPE_HEAD = Buffer.from('{"status":"ok","result":');
const JSON_TYPE = 'application/json';

/**
 * `ctx.req` of an exchange, made on its first read and kept beside the exchange rather than in a
 * field of it: a field written after the constructor turns from constant to mutable in the class's
 * hidden class, which deoptimises the request path's optimised code the first time any route reads
 * `ctx.req` after the warm-up (the /metrics loopback check at the first scrape: issue 24).
 */
const requestInfos = new WeakMap<Exchange, RequestInfo>();

/**
 * What one request carries through the pipeline, and the handler's `RouteContext`: one object per
 * request with its methods on the prototype (object-literal getters and arrow functions were a
 * handful of closures per request, and GC was a fifth of a small request's CPU).
 */
class Exchange implements RouteContext {
  params: Record<string, string> = NO_PARAMS;
  query: unknown = undefined;
  body: unknown = undefined;
  identity: Identity = undefined as unknown as Identity;
  /** Set once authentication succeeded (the access log's account and user). */
  authed: Identity | undefined = undefined;
  /** The caller of an in-process call (`invoke`): used instead of resolving credentials. */
  preset: Identity | undefined = undefined;
  httpStatus = 200;
  /** Headers a handler set (lower-case names) or the pipeline added, after x-request-id. */
  extraHeaders: Record<string, string> | undefined = undefined;
  profile: string[] | undefined = undefined;
  lastMark: number;
  /** When the envelope's `time` was read (0 = not yet): the duration metric and the access log reuse it. */
  ended = 0;
  /** The matched route (its metric children), once routing succeeded. */
  route: RegisteredRoute | undefined = undefined;
  /** Bytes of the response body handed to the sink (metrics). */
  resBytes = 0;
  /** The error code of an error response (metrics). */
  errorCode: string | undefined = undefined;
  /** A trace that goes beyond this process (a `traceparent` came in, or spans are exported). */
  trace: ActiveTrace | undefined = undefined;
  /**
   * Trace context is on but nothing follows this request's trace past its own log lines: its id
   * is made only if a line asks for it (most requests write none, or only the access line).
   */
  localTrace = false;
  private localTraceId: string | undefined = undefined;
  private abort: AbortController | undefined = undefined;
  private reqLog: Logger | undefined = undefined;
  private scopedView: ScopedVfs | undefined = undefined;

  constructor(
    readonly raw: HttpRequestData,
    readonly sink: ResponseSink,
    readonly id: string,
    readonly started: number,
    private readonly authMode: Authenticator['authMode'],
    private readonly rootLog: Logger,
    private readonly scoper: ((identity: Identity) => ScopedVfs) | undefined,
  ) {
    this.lastMark = started;
  }

  get vfs(): ScopedVfs {
    if (this.scopedView) return this.scopedView;
    if (!this.identity) throw new CtxError('UNAUTHENTICATED', 'this route has no caller identity: the scoped VFS needs one');
    if (!this.scoper) throw new Error('no scoped VFS is configured for this pipeline');
    return (this.scopedView = this.scoper(this.identity));
  }

  get req(): RequestInfo {
    let info = requestInfos.get(this);
    if (info === undefined) {
      const r = this.raw;
      requestInfos.set(this, (info = { id: this.id, method: r.method, path: r.path, headers: r.headers, remoteAddress: r.remoteAddress, rawBody: r.body }));
    }
    return info;
  }

  get credentialsSupplied(): boolean {
    return credentialsSupplied(this.raw.headers, this.authMode);
  }

  // Created on first use: most handlers never look at the signal or the logger.
  get signal(): AbortSignal {
    if (!this.abort) {
      const a = (this.abort = new AbortController());
      this.sink.onAbort(() => a.abort());
    }
    return this.abort.signal;
  }

  get log(): Logger {
    if (this.reqLog) return this.reqLog;
    const traceId = this.traceId;
    return (this.reqLog = this.rootLog.child(traceId !== undefined ? { req_id: this.id, trace_id: traceId } : { req_id: this.id }));
  }

  /** The trace id log lines carry; undefined with trace context off. */
  get traceId(): string | undefined {
    if (this.trace) return this.trace.traceId;
    return this.localTrace ? (this.localTraceId ??= newTraceId()) : undefined;
  }

  status(code: number): void {
    this.httpStatus = code;
  }

  header(name: string, value: string): void {
    (this.extraHeaders ??= {})[name.toLowerCase()] = value;
  }

  /** The envelope's `time` in seconds; its clock read stands for the response being handed over (one read, ~0.2 µs, not two). */
  time(): number {
    const now = (this.ended = performance.now());
    return Math.round((now - this.started) * 1000) / 1e6;
  }

  mark(label: string): void {
    if (!this.profile) return;
    const now = performance.now();
    this.profile.push(`${label}: ${(now - this.lastMark).toFixed(3)} ms`);
    this.lastMark = now;
  }

  /** x-request-id, then whatever was added: the headers of every response but a JSON one's type. */
  headers(): Record<string, string> {
    return this.extraHeaders ? { 'x-request-id': this.id, ...this.extraHeaders } : { 'x-request-id': this.id };
  }

  /** The headers of a JSON response: content-type first, as `{content-type, ...headers()}` ordered them. */
  jsonHeaders(): Record<string, string> {
    return this.extraHeaders
      ? { 'content-type': JSON_TYPE, 'x-request-id': this.id, ...this.extraHeaders }
      : { 'content-type': JSON_TYPE, 'x-request-id': this.id };
  }
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export class Pipeline {
  readonly router = new Router<RegisteredRoute>();
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];
  draining = false;

  constructor(private readonly opts: PipelineOptions) {}

  /** Cluster mode installs its routing once the NATS connection is up (before any plugin route). */
  setGate(gate: RequestGate | undefined): void {
    this.opts.gate = gate;
  }

  private readonly registered: RegisteredRoute[] = [];

  add(plugin: string, def: RouteDef<any, any>): void {
    const entry: RegisteredRoute = { def, plugin, metrics: this.opts.metrics?.forRoute(def.method, def.path) };
    this.router.add(def.method, def.path, entry, (e) => `plugin ${e.plugin}`);
    this.registered.push(entry);
  }

  /** The identity behind request headers, for transports beside HTTP (a plugin's gRPC server). */
  async authenticate(headers: Record<string, string>): Promise<Identity> {
    return issueIdentity(await this.opts.auth.resolve(headers));
  }

  /** Every route in registration order (the OpenAPI document is built from them). */
  routes(): readonly RegisteredRoute[] {
    return this.registered;
  }

  /** The largest body this route accepts; the transport enforces it while the body streams in. */
  bodyLimitFor(method: string, path: string): number {
    const m = this.router.find(method, path);
    return m && 'value' in m ? (m.value.def.bodyLimit ?? this.opts.maxJsonBodyBytes) : this.opts.maxJsonBodyBytes;
  }

  get inFlightCount(): number {
    return this.inFlight;
  }

  /** Resolves when no request is in flight (graceful shutdown). */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  async handle(req: HttpRequestData, sink: ResponseSink, as?: Identity): Promise<void> {
    this.inFlight++;
    const started = performance.now();
    const x = new Exchange(req, sink, requestId(req.headers), started, this.opts.auth.authMode, this.opts.log, this.opts.scopedVfs);
    const tracing = this.opts.tracing;
    x.preset = as;
    let status = 500;
    try {
      if (tracing !== undefined && tracing.enabled) {
        // No trace object at all for the common case (no traceparent, no exporter): see Exchange.localTrace.
        const traceparent = req.headers.traceparent;
        const trace = traceparent !== undefined || tracing.exporter ? tracing.forRequest(traceparent, x.id) : undefined;
        if (trace === undefined) {
          x.localTrace = true;
          status = await this.run(x);
        } else {
          x.trace = trace;
          status = await runWithTrace(trace, runExchange, this, x);
        }
      } else status = await this.run(x);
    } catch (err) {
      // run() renders every error itself; this is rendering that error failing too (details that do
      // not serialize, a sink that throws). The client still gets a 500 carrying the request id.
      this.opts.log.error('response failed', { req_id: x.id, trace_id: x.traceId, error: err, stack: err instanceof Error ? err.stack : undefined });
      if (!sink.aborted) x.resBytes = this.sendError(sink, new CtxError('INTERNAL', `internal error (request id ${x.id})`), x.id, started, req.method === 'HEAD');
    } finally {
      this.inFlight--;
      if (this.inFlight === 0 && this.idleWaiters.length) for (const w of this.idleWaiters.splice(0)) w();
      // The duration metric and the access log share the envelope's clock read (a stream: one read here).
      const now = this.opts.metrics === undefined && !this.opts.accessLog ? 0 : x.ended > 0 ? x.ended : performance.now();
      if (this.opts.metrics !== undefined) this.record(x, status, now);
      if (x.trace !== undefined && x.trace.span !== undefined) endSpan(x, status);
      if (this.opts.accessLog) this.accessLine(req, x.id, status, started, now, x.authed, x.traceId);
    }
  }

  /**
   * Small on purpose: V8 inlines it (and `RouteMetrics.record`) into `handle` first, under one
   * bytecode budget with the request's own set-up; the rare parts are calls.
   */
  private record(x: Exchange, status: number, now: number): void {
    const route = x.route;
    const m = route !== undefined ? route.metrics! : this.opts.metrics!.forUnmatched(x.raw.method);
    m.record(status, (now - x.started) / 1000, x.raw.body.length, x.resBytes, this.opts.metricsAccountLabel ? accountOf(x) : undefined);
    if (x.errorCode !== undefined) m.error(x.errorCode);
  }

  /**
   * An error the transport answers without running the pipeline (a body over the route's limit,
   * refused before it is read), with what every response carries: the request id, the envelope's
   * `time` and an access-log line. `started` is when the transport saw the request.
   */
  reject(req: Pick<HttpRequestData, 'method' | 'path' | 'headers'>, sink: ResponseSink, err: CtxError, started: number): void {
    const id = requestId(req.headers);
    let bytes = 0;
    if (!sink.aborted) bytes = this.sendError(sink, err, id, started, req.method === 'HEAD');
    const status = ERROR_STATUS[err.code];
    if (this.opts.metrics) {
      const found = this.router.find(req.method, req.path);
      const m = found && 'value' in found ? found.value.metrics : undefined;
      const rm = m ?? this.opts.metrics.forUnmatched(req.method);
      rm.record(status, (performance.now() - started) / 1000, 0, bytes, undefined);
      rm.error(err.code);
    }
    if (this.opts.accessLog) this.accessLine(req, id, status, started, performance.now());
  }

  private sendError(sink: ResponseSink, e: CtxError, id: string, started: number, isHead: boolean): number {
    const envelope = { status: 'error', error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) }, time: elapsed(started) };
    return this.sendJson(sink, ERROR_STATUS[e.code], { 'content-type': JSON_TYPE, 'x-request-id': id }, envelope, isHead);
  }

  private accessLine(req: Pick<HttpRequestData, 'method' | 'path'>, id: string, status: number, started: number, now: number, identity?: Identity, traceId?: string): void {
    // The line `trusted('request', {req_id, trace_id, method, path, status, ms, account, user})` wrote, built
    // as text: no fields object, no second copy of the line's head (undefined fields are left out).
    const ms = Math.round((now - started) * 100) / 100;
    let fields = ',"req_id":' + jsonString(id);
    // Trace ids are validated lower-case hex (ours or a parsed traceparent): no escaping needed.
    if (traceId !== undefined) fields += ',"trace_id":"' + traceId + '"';
    fields += ',"method":' + jsonString(req.method) + ',"path":' + jsonString(req.path) + ',"status":' + status + ',"ms":' + ms;
    if (identity) {
      if (identity.accountId !== undefined) fields += ',"account":' + jsonString(identity.accountId);
      if (identity.userId !== undefined) fields += ',"user":' + jsonString(identity.userId);
    }
    this.opts.log.trustedJson('request', fields);
  }

  private async run(x: Exchange): Promise<number> {
    const req = x.raw;
    const sink = x.sink;
    const isHead = req.method === 'HEAD';
    if (this.opts.profiling && wantsProfile(req.query)) {
      x.profile = [];
      // From the socket to here: the body arriving (the client's pace), then the hop to the next
      // loop turn and queueing behind other requests.
      if (req.received !== undefined) {
        const from = req.bodyReceived ?? req.received;
        if (req.bodyReceived !== undefined) x.profile.push(`body: ${(req.bodyReceived - req.received).toFixed(3)} ms`);
        x.profile.push(`queued: ${(x.started - from).toFixed(3)} ms`);
      }
      // The marks time the request, not this set-up (parsing the query for `profile`, formatting).
      x.lastMark = performance.now();
    }
    let telemetry: boolean | { summary?: boolean } = false;
    try {
      if (this.draining) throw new CtxError('UNAVAILABLE', 'server is shutting down');
      const found = this.router.find(isHead ? 'GET' : req.method, req.path);
      if (!found) throw new CtxError('NOT_FOUND', `no route for ${req.method} ${req.path}`, { method: req.method, path: req.path });
      if (!('value' in found)) {
        const allow = found.allowed.join(', ');
        x.header('allow', allow);
        throw new CtxError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}; allowed: ${allow}`, { allowed: found.allowed });
      }
      x.route = found.value;
      const { def } = found.value;
      const limit = def.bodyLimit ?? this.opts.maxJsonBodyBytes;
      if (req.body.length > limit)
        throw new CtxError('PAYLOAD_TOO_LARGE', `request body of ${req.body.length} bytes exceeds the limit of ${limit} bytes`, { limit });

      let identity: Identity | undefined;
      const auth = def.auth ?? 'required';
      const peer = x.preset ? undefined : this.opts.gate?.peerIdentity?.(req);
      if (x.preset || peer) {
        identity = x.authed = x.preset ?? peer;
      } else if (auth === 'required' || (auth === 'optional' && credentialsSupplied(req.headers, this.opts.auth.authMode))) {
        try {
          // Synchronous when the identity is known without a read (a cached key): no await then.
          const resolved = this.opts.auth.resolve(req.headers);
          identity = resolved instanceof Promise ? await resolved : resolved;
          x.authed = identity;
        } catch (err) {
          if (auth === 'required') throw err;
        }
      }
      if (def.roles && (!identity || !def.roles.includes(identity.role)))
        throw new CtxError('PERMISSION_DENIED', `this endpoint requires role ${def.roles.join(' or ')}${identity ? `; you are ${identity.role}` : ''}`, { required: def.roles });
      x.mark('auth');

      let admission: GateAdmission | undefined;
      if (this.opts.gate) {
        const g = await this.opts.gate.admit(req, identity);
        if (g && 'status' in g) {
          if (sink.aborted) return 499;
          sink.writeHead(g.status, g.headers);
          sink.end(isHead ? undefined : g.body);
          x.resBytes = g.body.length;
          return g.status;
        }
        admission = g;
      }

      const rawQuery = req.query === '' ? {} : parseQueryString(req.query);
      if (rawQuery.profile !== undefined) delete rawQuery.profile;
      if (def.query) {
        const ignored = dropUnknownQueryParams(def.query, rawQuery);
        if (ignored) this.opts.log.debug('ignored unknown query parameters', { req_id: x.id, trace_id: x.traceId, method: req.method, path: req.path, params: ignored });
      }
      const query = def.query ? def.query.parse(rawQuery, 'query', 'query') : rawQuery;

      let body: unknown = undefined;
      if (!def.rawBody) {
        if (req.body.length > 0) {
          const ct = req.headers['content-type'] ?? '';
          if (ct && !/^application\/(json|[\w.+-]+\+json)\b/i.test(ct) && !/^text\/plain\b/i.test(ct))
            throw new CtxError('UNSUPPORTED_MEDIA_TYPE', `request body must be application/json, got ${ct}`, { field: 'content-type' });
          try {
            // ASCII bodies (most JSON) decode twice as fast as latin1, with the same result.
            body = def.parseJson ? def.parseJson(req.body) : JSON.parse(isAscii(req.body) ? req.body.toString('latin1') : req.body.toString('utf8'));
          } catch (err) {
            throw new CtxError('INVALID_ARGUMENT', `malformed JSON body: ${(err as Error).message}`, { field: 'body' });
          }
        }
        if (body && typeof body === 'object' && !Array.isArray(body) && 'telemetry' in body) {
          telemetry = (body as { telemetry: boolean | { summary?: boolean } }).telemetry;
          if (typeof telemetry !== 'boolean' && (typeof telemetry !== 'object' || telemetry === null || Array.isArray(telemetry)))
            throw new CtxError('INVALID_ARGUMENT', 'telemetry must be a boolean or an object like {summary: true}', { field: 'telemetry' });
          delete (body as { telemetry?: unknown }).telemetry;
        }
        if (def.body) body = def.body.parse(body === undefined ? {} : body, 'body', 'json');
      }
      if (telemetry === false && def.telemetry === 'always') telemetry = true;
      x.mark('parse');

      x.params = found.params;
      x.query = query;
      x.body = body;
      if (identity) issueIdentity(identity);
      x.identity = identity as Identity;
      if (stamping) stamp('srv.handler');
      const result = admission ? await admission.run(() => Promise.resolve(def.handler(x))) : await def.handler(x);
      if (admission) {
        const added = admission.headers();
        if (added) for (const k in added) x.header(k, added[k]!);
      }
      x.mark('handler');
      if (stamping) stamp('srv.result');
      if (sink.aborted) return 499;
      const httpStatus = x.httpStatus;
      const profile = x.profile;
      if (result instanceof Reply) return await this.sendReply(sink, result, x.headers(), isHead, profile, x);
      if (result instanceof JsonResult && (telemetry || profile || !(result instanceof JsonText))) {
        // Same envelope, with the pre-encoded result spliced in between its other fields.
        const rest: Record<string, unknown> = { time: x.time() };
        if (telemetry) rest.telemetry = telemetryOf(x.id, telemetry, x.started);
        if (profile) rest.profile = profile;
        sink.writeHead(httpStatus, x.jsonHeaders());
        const built = result.build(ENVELOPE_HEAD, Buffer.from(',' + JSON.stringify(rest).slice(1)));
        x.resBytes = built.length;
        sink.end(isHead ? undefined : built);
        if (stamping) stamp('srv.written');
        return httpStatus;
      }
      if (!telemetry && !profile) {
        // The common envelope as text: JSON.stringify({status, result, time}) without the object.
        const json = result === undefined ? 'null' : result instanceof JsonText ? result.text : JSON.stringify(result);
        if (json !== undefined) {
          sink.writeHead(httpStatus, x.jsonHeaders());
          const text = '{"status":"ok","result":' + json + ',"time":' + x.time() + '}';
          // The socket's sink encodes the text once and tells its size (the size metric's number,
          // free); elsewhere only the size metric makes a second pass over it.
          if (!isHead && sink.endText !== undefined) x.resBytes = sink.endText(text);
          else {
            sink.end(isHead ? undefined : text);
            if (this.opts.metrics !== undefined) x.resBytes = Buffer.byteLength(text);
          }
          if (stamping) stamp('srv.written');
          return httpStatus;
        }
      }
      const envelope: Record<string, unknown> = { status: 'ok', result: result === undefined ? null : result, time: x.time() };
      if (telemetry) envelope.telemetry = telemetryOf(x.id, telemetry, x.started);
      if (profile) envelope.profile = profile;
      x.resBytes = this.sendJson(sink, httpStatus, x.jsonHeaders(), envelope, isHead);
      if (stamping) stamp('srv.written');
      return httpStatus;
    } catch (err) {
      if (sink.aborted) return 499;
      const e = isCtxError(err) ? err : internal(err, x, this.opts.log);
      x.errorCode = e.code;
      // Cluster mode's 503s are transient (a failover, NATS away): say when to come back.
      if (this.opts.gate && e.code === 'UNAVAILABLE') x.header('retry-after', '1');
      const envelope: Record<string, unknown> = { status: 'error', error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) }, time: x.time() };
      if (telemetry) envelope.telemetry = telemetryOf(x.id, telemetry, x.started);
      if (x.profile) envelope.profile = x.profile;
      x.resBytes = this.sendJson(sink, ERROR_STATUS[e.code], x.jsonHeaders(), envelope, isHead);
      return ERROR_STATUS[e.code];
    }
  }

  /** `headers` must already start with content-type (`jsonHeaders`, `jsonHead`). Returns the body's size in bytes (0 with metrics off). */
  private sendJson(sink: ResponseSink, status: number, headers: Record<string, string>, body: unknown, isHead: boolean): number {
    if (sink.endJson && !isHead) {
      sink.endJson(status, headers, body);
      return 0;
    }
    const text = JSON.stringify(body);
    sink.writeHead(status, headers);
    sink.end(isHead ? undefined : text);
    return text === undefined || this.opts.metrics === undefined ? 0 : Buffer.byteLength(text);
  }

  private async sendReply(sink: ResponseSink, reply: Reply, headers: Record<string, string>, isHead: boolean, profile: string[] | undefined, x: Exchange): Promise<number> {
    if (reply.kind === 'json') {
      const body = profile && reply.body && typeof reply.body === 'object' && !Array.isArray(reply.body) ? { ...(reply.body as object), profile } : reply.body;
      x.resBytes = this.sendJson(sink, reply.status, { 'content-type': JSON_TYPE, ...headers, ...reply.headers }, body, isHead);
      return reply.status;
    }
    if (reply.kind === 'sse') {
      sink.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no', ...headers, ...reply.headers });
      const abort = new AbortController();
      sink.onAbort(() => abort.abort());
      const writer: SseWriter = {
        send: (data, opts) => (sink.aborted ? Promise.resolve() : sink.write(Buffer.from(formatSse(data, opts)))),
        comment: (text) => (sink.aborted ? Promise.resolve() : sink.write(Buffer.from(`: ${text}\n\n`))),
        get closed() {
          return sink.aborted;
        },
        signal: abort.signal,
      };
      try {
        await reply.sse!(writer);
      } finally {
        if (!sink.aborted) sink.end();
      }
      return 200;
    }
    const h = { ...headers, ...reply.headers };
    const body = reply.body as Buffer | string | AsyncIterable<Uint8Array>;
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      sink.writeHead(reply.status, h);
      x.resBytes = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
      sink.end(isHead ? undefined : body);
      return reply.status;
    }
    if (reply.size !== undefined) x.resBytes = reply.size;
    if (isHead) {
      if (reply.size !== undefined) h['content-length'] = String(reply.size);
      sink.writeHead(reply.status, h);
      sink.end();
      return reply.status;
    }
    sink.writeHead(reply.status, h);
    if (reply.size !== undefined && sink.endStream) {
      await sink.endStream(body, reply.size);
      return reply.status;
    }
    for await (const chunk of body) {
      if (sink.aborted) return 499;
      await sink.write(chunk);
    }
    sink.end();
    return reply.status;
  }
}

function requestId(headers: Record<string, string>): string {
  const given = headers['x-request-id'];
  return given !== undefined && REQUEST_ID.test(given) ? given : nextRequestId();
}

/**
 * Request ids shaped like a UUID (8-4-4-4-12 lower-case hex): 80 random bits drawn once per process,
 * then a per-process counter in the last 12 digits (2^48 ids before it would wrap). Unique within
 * the process by the counter and across processes by the random head with overwhelming odds, at
 * a string concatenation per request instead of formatting a random UUID.
 */
const ID_HEAD = (() => {
  const h = randomBytes(10).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-`;
})();
const ID_PAD = '000000000000';
let idCounter = 0;
let idBlockHead = '';
let idBlockEnd = 0;

function nextRequestId(): string {
  // The low 16 bits change every id; the 8 digits above them change every 65,536 ids and are
  // formatted once per block (apart: this is inlined into `handle`, whose callees share a budget).
  const n = idCounter++;
  if (n >= idBlockEnd) nextIdBlock(n);
  const low = (n & 0xffff).toString(16);
  return idBlockHead + ID_PAD.slice(0, 4 - low.length) + low;
}

function nextIdBlock(n: number): void {
  const high = Math.floor(n / 65536).toString(16);
  idBlockHead = ID_HEAD + ID_PAD.slice(0, 8 - high.length) + high;
  idBlockEnd = (Math.floor(n / 65536) + 1) * 65536;
}

/** The per-account label's value (CTX_METRICS_ACCOUNT_LABEL): '' for a request without a caller. */
function accountOf(x: Exchange): string {
  return x.authed?.accountId ?? '';
}

/** A JSON string literal of `s`: plain printable ASCII (ids, methods, most paths) skips JSON.stringify. */
function jsonString(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(s);
  }
  return '"' + s + '"';
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1e6;
}

function wantsProfile(query: string): boolean {
  if (!query.includes('profile=')) return false;
  const v = new URLSearchParams(query).get('profile');
  return v !== null && PROFILE_ON.has(v.toLowerCase());
}

function telemetryOf(id: string, t: boolean | { summary?: boolean }, started: number): Record<string, unknown> {
  const out: Record<string, unknown> = { operation_id: id };
  if (typeof t === 'object' && t.summary) out.summary = { duration_ms: Math.round((performance.now() - started) * 1000) / 1000 };
  return out;
}

function internal(err: unknown, x: Exchange, log: Logger): CtxError {
  log.error('unhandled error', { req_id: x.id, trace_id: x.traceId, error: err, stack: err instanceof Error ? err.stack : undefined });
  return new CtxError('INTERNAL', `internal error (request id ${x.id})`);
}

/** `run` for `runWithTrace`'s callback (a module function: no closure per request). */
function runExchange(p: Pipeline, x: Exchange): Promise<number> {
  return (p as unknown as { run(x: Exchange): Promise<number> }).run(x);
}

function endSpan(x: Exchange, status: number): void {
  const span = x.trace!.span!;
  // Semantic conventions: the route template, never the raw path (it carries URIs and ids).
  if (x.route) {
    span.updateName(`${x.raw.method} ${x.route.def.path}`);
    span.setAttribute('http.route', x.route.def.path);
  }
  span.setAttribute('http.request.method', x.raw.method);
  span.setAttribute('http.response.status_code', status);
  if (x.errorCode) span.setAttribute('error.type', x.errorCode);
  span.end(status >= 500);
}
