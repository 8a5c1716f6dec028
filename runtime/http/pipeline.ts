/**
 * One request pipeline for every transport: route → identity → query/body validation → handler →
 * envelope or reply → access log. The uWS adapter and `inject()` both call `handle`, so in-process
 * tests exercise exactly what the socket serves.
 */
import { isAscii } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { CtxError, ERROR_STATUS, isCtxError } from '../errors.js';
import type { Authenticator } from '../identity/auth.js';
import { credentialsSupplied } from '../identity/auth.js';
import type { Identity } from '../identity/types.js';
import type { Logger } from '../logger.js';
import type { RouteContext, RouteDef } from '../plugin.js';
import { parseQueryString } from '../schema.js';
import { Router } from './router.js';
import { JsonResult, Reply, formatSse, type SseWriter } from './reply.js';
import type { HttpRequestData, ResponseSink } from './types.js';

export interface RegisteredRoute {
  def: RouteDef<any, any>;
  plugin: string;
}

export interface PipelineOptions {
  auth: Authenticator;
  log: Logger;
  accessLog: boolean;
  profiling: boolean;
  maxJsonBodyBytes: number;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const PROFILE_ON = new Set(['1', 'true', 'yes', 'on']);
const JSON_HEADERS = { 'content-type': 'application/json' };
const ENVELOPE_HEAD = Buffer.from('{"status":"ok","result":');

export class Pipeline {
  readonly router = new Router<RegisteredRoute>();
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];
  draining = false;

  constructor(private readonly opts: PipelineOptions) {}

  add(plugin: string, def: RouteDef<any, any>): void {
    this.router.add(def.method, def.path, { def, plugin }, (e) => `plugin ${e.plugin}`);
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

  async handle(req: HttpRequestData, sink: ResponseSink): Promise<void> {
    this.inFlight++;
    const started = performance.now();
    const id = requestId(req.headers);
    let status = 500;
    let identity: Identity | undefined;
    const isHead = req.method === 'HEAD';
    try {
      status = await this.run(req, sink, id, isHead, started, (i) => (identity = i));
    } catch (err) {
      // run() renders every error itself; this is rendering that error failing too (details that do
      // not serialize, a sink that throws). The client still gets a 500 carrying the request id.
      this.opts.log.error('response failed', { req_id: id, error: err, stack: err instanceof Error ? err.stack : undefined });
      if (!sink.aborted) this.sendError(sink, new CtxError('INTERNAL', `internal error (request id ${id})`), id, started, isHead);
    } finally {
      this.inFlight--;
      if (this.inFlight === 0 && this.idleWaiters.length) for (const w of this.idleWaiters.splice(0)) w();
      this.accessLine(req, id, status, started, identity);
    }
  }

  /**
   * An error the transport answers without running the pipeline (a body over the route's limit,
   * refused before it is read), with what every response carries: the request id, the envelope's
   * `time` and an access-log line. `started` is when the transport saw the request.
   */
  reject(req: Pick<HttpRequestData, 'method' | 'path' | 'headers'>, sink: ResponseSink, err: CtxError, started: number): void {
    const id = requestId(req.headers);
    if (!sink.aborted) this.sendError(sink, err, id, started, req.method === 'HEAD');
    this.accessLine(req, id, ERROR_STATUS[err.code], started);
  }

  private sendError(sink: ResponseSink, e: CtxError, id: string, started: number, isHead: boolean): void {
    const envelope = { status: 'error', error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) }, time: elapsed(started) };
    this.sendJson(sink, ERROR_STATUS[e.code], { 'x-request-id': id }, envelope, isHead);
  }

  private accessLine(req: Pick<HttpRequestData, 'method' | 'path'>, id: string, status: number, started: number, identity?: Identity): void {
    if (!this.opts.accessLog) return;
    this.opts.log.trusted('request', {
      req_id: id,
      method: req.method,
      path: req.path,
      status,
      ms: Math.round((performance.now() - started) * 100) / 100,
      account: identity?.accountId,
      user: identity?.userId,
    });
  }

  private async run(req: HttpRequestData, sink: ResponseSink, id: string, isHead: boolean, started: number, setIdentity: (i: Identity) => void): Promise<number> {
    const headers: Record<string, string> = { 'x-request-id': id };
    const profile: string[] | undefined = this.opts.profiling && wantsProfile(req.query) ? [] : undefined;
    let lastMark = started;
    const mark = (label: string) => {
      if (!profile) return;
      const now = performance.now();
      profile.push(`${label}: ${(now - lastMark).toFixed(3)} ms`);
      lastMark = now;
    };
    let telemetry: boolean | { summary?: boolean } = false;
    // Created on first use: most handlers never look at the signal or the logger.
    let abort: AbortController | undefined;
    let reqLog: Logger | undefined;
    try {
      if (this.draining) throw new CtxError('UNAVAILABLE', 'server is shutting down');
      const found = this.router.find(isHead ? 'GET' : req.method, req.path);
      if (!found) throw new CtxError('NOT_FOUND', `no route for ${req.method} ${req.path}`, { method: req.method, path: req.path });
      if (!('value' in found)) {
        headers['allow'] = found.allowed.join(', ');
        throw new CtxError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}; allowed: ${headers['allow']}`, { allowed: found.allowed });
      }
      const { def } = found.value;
      const limit = def.bodyLimit ?? this.opts.maxJsonBodyBytes;
      if (req.body.length > limit)
        throw new CtxError('PAYLOAD_TOO_LARGE', `request body of ${req.body.length} bytes exceeds the limit of ${limit} bytes`, { limit });

      let identity: Identity | undefined;
      const auth = def.auth ?? 'required';
      const authMode = this.opts.auth.authMode;
      if (auth === 'required' || (auth === 'optional' && credentialsSupplied(req.headers, authMode))) {
        try {
          identity = await this.opts.auth.resolve(req.headers);
          setIdentity(identity);
        } catch (err) {
          if (auth === 'required') throw err;
        }
      }
      if (def.roles && (!identity || !def.roles.includes(identity.role)))
        throw new CtxError('PERMISSION_DENIED', `this endpoint requires role ${def.roles.join(' or ')}${identity ? `; you are ${identity.role}` : ''}`, { required: def.roles });
      mark('auth');

      const rawQuery = req.query === '' ? {} : parseQueryString(req.query);
      delete rawQuery.profile;
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
      mark('parse');

      let httpStatus = 200;
      const log = this.opts.log;
      const ctx: RouteContext = {
        req: { id, method: req.method, path: req.path, headers: req.headers, remoteAddress: req.remoteAddress, rawBody: req.body },
        params: found.params,
        query,
        body,
        identity: identity as Identity,
        get credentialsSupplied() {
          return credentialsSupplied(req.headers, authMode);
        },
        get signal() {
          if (!abort) {
            abort = new AbortController();
            const a = abort;
            sink.onAbort(() => a.abort());
          }
          return abort.signal;
        },
        get log() {
          return (reqLog ??= log.child({ req_id: id }));
        },
        status: (code) => (httpStatus = code),
        header: (name, value) => (headers[name.toLowerCase()] = value),
        mark,
      };
      const result = await def.handler(ctx);
      mark('handler');
      if (sink.aborted) return 499;
      if (result instanceof Reply) return await this.sendReply(sink, result, headers, isHead, profile);
      if (result instanceof JsonResult) {
        // Same envelope, with the pre-encoded result spliced in between its other fields.
        const rest: Record<string, unknown> = { time: elapsed(started) };
        if (telemetry) rest.telemetry = telemetryOf(id, telemetry, started);
        if (profile) rest.profile = profile;
        sink.writeHead(httpStatus, { ...JSON_HEADERS, ...headers });
        sink.end(isHead ? undefined : result.build(ENVELOPE_HEAD, Buffer.from(',' + JSON.stringify(rest).slice(1))));
        return httpStatus;
      }
      const envelope: Record<string, unknown> = { status: 'ok', result: result === undefined ? null : result, time: elapsed(started) };
      if (telemetry) envelope.telemetry = telemetryOf(id, telemetry, started);
      if (profile) envelope.profile = profile;
      this.sendJson(sink, httpStatus, headers, envelope, isHead);
      return httpStatus;
    } catch (err) {
      if (sink.aborted) return 499;
      const e = isCtxError(err) ? err : internal(err, id, this.opts.log);
      const envelope: Record<string, unknown> = { status: 'error', error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) }, time: elapsed(started) };
      if (telemetry) envelope.telemetry = telemetryOf(id, telemetry, started);
      if (profile) envelope.profile = profile;
      this.sendJson(sink, ERROR_STATUS[e.code], headers, envelope, isHead);
      return ERROR_STATUS[e.code];
    }
  }

  private sendJson(sink: ResponseSink, status: number, headers: Record<string, string>, body: unknown, isHead: boolean): void {
    const text = JSON.stringify(body);
    sink.writeHead(status, { ...JSON_HEADERS, ...headers });
    sink.end(isHead ? undefined : text);
  }

  private async sendReply(sink: ResponseSink, reply: Reply, headers: Record<string, string>, isHead: boolean, profile?: string[]): Promise<number> {
    if (reply.kind === 'json') {
      const body = profile && reply.body && typeof reply.body === 'object' && !Array.isArray(reply.body) ? { ...(reply.body as object), profile } : reply.body;
      this.sendJson(sink, reply.status, { ...headers, ...reply.headers }, body, isHead);
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
      sink.end(isHead ? undefined : body);
      return reply.status;
    }
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
  return given !== undefined && REQUEST_ID.test(given) ? given : randomUUID();
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

function internal(err: unknown, id: string, log: Logger): CtxError {
  log.error('unhandled error', { req_id: id, error: err, stack: err instanceof Error ? err.stack : undefined });
  return new CtxError('INTERNAL', `internal error (request id ${id})`);
}
