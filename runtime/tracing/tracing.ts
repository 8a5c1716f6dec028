/**
 * Trace context for requests, tasks and queue work. Always on (unless `CTX_TRACING=false`): a
 * request's `traceparent` is accepted (or a trace started), its ids go on every log line of the
 * request and on every call it makes to a model, the gateway or the execution backend. Spans are
 * recorded only when an OTLP endpoint is configured (`otel.ts`).
 *
 * The active trace travels in an AsyncLocalStorage, so code far from the request (a model client
 * called by a plugin) finds it without every plugin passing it along.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ExportedSpan, SpanExporterHandle, SpanKindName } from './otel.js';
import { formatTraceparent, newSpanId, newTraceId, parseTraceparent, type SpanRef } from './trace-context.js';

export interface ActiveTrace extends SpanRef {
  /** The request id, when this trace is a request's (log lines carry both). */
  reqId?: string;
  /**
   * Whether the work runs with this trace as the async context (so calls it makes carry it): when
   * it continues a caller's trace or spans are exported. A trace started here for an untraced
   * request without an exporter only labels the request's own log lines: entering an
   * AsyncLocalStorage installs promise hooks for the whole process, which cost ~25% of a small
   * request's CPU (bench/RESULTS.md), a price worth paying only when someone follows the trace.
   */
  propagate: boolean;
  /** The recorded span, when spans are exported. */
  span?: ExportedSpan;
  /** Where child spans go (the app's exporter), when spans are exported. */
  exporter?: SpanExporterHandle;
}

const storage = new AsyncLocalStorage<ActiveTrace>();

export function currentTrace(): ActiveTrace | undefined {
  return storage.getStore();
}

/** Runs `fn(...args)` with `trace` as the active trace (for it and everything it awaits). */
export function runWithTrace<A extends unknown[], T>(trace: ActiveTrace, fn: (...args: A) => T, ...args: A): T {
  return storage.run(trace, fn, ...args);
}

/** The `traceparent` of the active trace, for a message or record that continues it later. */
export function activeTraceparent(): string | undefined {
  const t = storage.getStore();
  return t ? formatTraceparent(t) : undefined;
}

export interface OutboundCall {
  /** The header value to send. */
  traceparent: string;
  end(error?: boolean): void;
}

const NO_END = () => {};

/**
 * An outgoing call (model, gateway, execution backend) of the active trace: its `traceparent`, and
 * a client span around it when spans are exported. Undefined outside a trace.
 */
export function startOutbound(name: string, attributes?: Record<string, string | number | boolean>): OutboundCall | undefined {
  const t = storage.getStore();
  if (!t) return undefined;
  if (!t.exporter || !t.sampled) return { traceparent: formatTraceparent(t), end: NO_END };
  const self = { traceId: t.traceId, spanId: newSpanId(), sampled: true };
  const span = t.exporter.start(name, 'client', self, t, attributes);
  return { traceparent: formatTraceparent(self), end: (error) => span.end(error) };
}

/** `host.tracing`: work a plugin receives from elsewhere (its own listener) as a span of the caller's trace. */
export interface PluginTracing {
  /**
   * Runs `fn` continuing the caller's trace (`traceparent` as received: a header, gRPC metadata,
   * a stored value), as a span of kind `kind` when spans are exported; without a valid
   * `traceparent` it starts a trace only when spans are exported. Calls `fn` makes carry the trace
   * (`startOutbound`) and its log lines the trace id. With tracing off, just `fn()`.
   */
  run<T>(name: string, opts: { kind?: SpanKindName; traceparent?: string; attributes?: Record<string, string | number | boolean> }, fn: () => Promise<T>): Promise<T>;
}

export class Tracing {
  constructor(
    readonly enabled: boolean,
    readonly exporter?: SpanExporterHandle,
  ) {}

  /**
   * The trace of an incoming request: continues `traceparent` when valid, else starts one when
   * spans are exported. Undefined when nothing would follow the trace past this process's own log
   * lines (no valid traceparent, no exporter): the caller then labels its lines with a trace id
   * made only when a line asks for one (see `propagate`), and allocates nothing per request.
   */
  forRequest(traceparent: string | undefined, reqId: string): ActiveTrace | undefined {
    const parent = parseTraceparent(traceparent);
    if (!parent && !this.exporter) return undefined;
    const t: ActiveTrace = { traceId: parent ? parent.traceId : newTraceId(), spanId: newSpanId(), sampled: parent ? parent.sampled : true, reqId, propagate: true };
    if (this.exporter && t.sampled) {
      t.exporter = this.exporter;
      t.span = this.exporter.start('HTTP', 'server', t, parent);
    }
    return t;
  }

  /**
   * Runs background work (a task, a queue message) as a span continuing the trace that caused it
   * (`traceparent` stored with the work), or a new trace when none was.
   */
  async work<T>(name: string, kind: SpanKindName, traceparent: string | undefined, attributes: Record<string, string | number | boolean>, fn: () => Promise<T>): Promise<T> {
    if (!this.enabled) return fn();
    const parent = parseTraceparent(traceparent);
    // Work no trace caused, without an exporter: nothing would follow a new trace (see `propagate`).
    if (!parent && !this.exporter) return fn();
    const t: ActiveTrace = { traceId: parent ? parent.traceId : newTraceId(), spanId: newSpanId(), sampled: parent ? parent.sampled : true, propagate: true };
    if (this.exporter && t.sampled) {
      t.exporter = this.exporter;
      t.span = this.exporter.start(name, kind, t, parent, attributes);
    }
    let failed = true;
    try {
      const out = await storage.run(t, fn);
      failed = false;
      return out;
    } finally {
      t.span?.end(failed);
    }
  }

  /** The view plugins get (`host.tracing`). */
  forPlugins(): PluginTracing {
    return { run: (name, opts, fn) => this.work(name, opts.kind ?? 'internal', opts.traceparent, opts.attributes ?? {}, fn) };
  }

  async shutdown(): Promise<void> {
    await this.exporter?.shutdown();
  }
}

export { formatTraceparent, parseTraceparent };
