/**
 * OpenTelemetry spans exported over OTLP/HTTP. Loaded (dynamic import) only when an endpoint is
 * configured: without one no SDK code runs and nothing leaves the process. Our ids stay the source
 * of truth (they were already in logs and propagated headers), so each span is started under the
 * parent we resolved and gets our span id through a one-shot id generator.
 */
import type { Logger } from '../logger.js';
import type { SpanRef } from './trace-context.js';

export type SpanKindName = 'server' | 'client' | 'internal' | 'consumer';

export interface ExportedSpan {
  updateName(name: string): void;
  setAttribute(key: string, value: string | number | boolean): void;
  end(error?: boolean): void;
}

export interface SpanExporterHandle {
  /** Starts a span with id `self.spanId` in trace `self.traceId`, child of `parent` when given. */
  start(name: string, kind: SpanKindName, self: SpanRef, parent: SpanRef | undefined, attributes?: Record<string, string | number | boolean>): ExportedSpan;
  shutdown(): Promise<void>;
}

/** `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces` (the OTLP spec's rule). */
export function tracesUrl(env: Record<string, string | undefined>): string | undefined {
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (specific) return specific;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!base) return undefined;
  return base.replace(/\/+$/, '') + '/v1/traces';
}

export async function startOtlpExporter(url: string, service: { name: string; version: string }, log: Logger): Promise<SpanExporterHandle> {
  const api = await import('@opentelemetry/api');
  const sdk = await import('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  const { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } = await import('@opentelemetry/semantic-conventions');

  // The next span id the SDK asks for is the one we already chose (set just before startSpan, which
  // asks synchronously); anything else (never expected) gets a random one.
  let nextSpanId: string | undefined;
  let nextTraceId: string | undefined;
  const random = new sdk.RandomIdGenerator();
  const idGenerator = {
    generateTraceId: () => {
      const id = nextTraceId ?? random.generateTraceId();
      nextTraceId = undefined;
      return id;
    },
    generateSpanId: () => {
      const id = nextSpanId ?? random.generateSpanId();
      nextSpanId = undefined;
      return id;
    },
  };
  const exporter = new OTLPTraceExporter({ url });
  const provider = new sdk.BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: service.name, [ATTR_SERVICE_VERSION]: service.version }),
    // Parent-based: an upstream that chose not to sample keeps its decision; our roots are sampled.
    sampler: new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() }),
    idGenerator,
    spanProcessors: [new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  });
  const tracer = provider.getTracer('ctx', service.version);
  const KIND = { server: api.SpanKind.SERVER, client: api.SpanKind.CLIENT, internal: api.SpanKind.INTERNAL, consumer: api.SpanKind.CONSUMER };
  log.info('tracing: exporting spans over OTLP/HTTP', { url });
  return {
    start(name, kind, self, parent, attributes) {
      let ctx = api.ROOT_CONTEXT;
      if (parent) ctx = api.trace.setSpanContext(ctx, { traceId: parent.traceId, spanId: parent.spanId, traceFlags: parent.sampled ? 1 : 0, isRemote: true });
      // A root span's trace id comes from the id generator too: ours as well.
      else nextTraceId = self.traceId;
      nextSpanId = self.spanId;
      const span = tracer.startSpan(name, { kind: KIND[kind], attributes }, ctx);
      nextSpanId = undefined;
      nextTraceId = undefined;
      return {
        updateName: (n) => void span.updateName(n),
        setAttribute: (k, v) => void span.setAttribute(k, v),
        end(error) {
          if (error) span.setStatus({ code: api.SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    async shutdown() {
      await provider.shutdown().catch((err: unknown) => log.warn('tracing: flushing spans failed', { error: err }));
    },
  };
}
