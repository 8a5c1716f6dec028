/**
 * W3C trace context: accepted on requests, carried to the embedding provider, the LLM and the
 * gateway (fake servers on 127.0.0.1 record the headers), continued by queue work the request
 * caused, and on every log line of the request. Spans go to an OTLP/HTTP receiver only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { definePlugin } from '../../runtime/plugin.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { parentIdOf, startFakeBackends, traceIdOf, type FakeBackends } from './fake-backends.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE}-${PARENT}-01`;
const GATEWAY_TOKEN = 'gateway-admin-token-0123456789abcdef';

const loggingPlugin = definePlugin({
  name: 'ops-logging',
  version: '1.0.0',
  setup(host) {
    host.route({ method: 'GET', path: '/api/v1/ops-logging', summary: 'logs one line', handler: () => (host.log.info('inside the request'), { ok: true }) });
  },
});

function backendsConfig(fake: FakeBackends) {
  return {
    embedding: { provider: 'openai' as const, baseUrl: `${fake.url}/v1`, model: 'fake-embed', dim: 8 },
    llm: { baseUrl: `${fake.url}/v1`, model: 'fake-chat' },
    gateway: { url: fake.url, adminToken: GATEWAY_TOKEN },
  };
}

describe('trace context without an exporter', () => {
  let fake: FakeBackends;
  let t: TestApp;
  const lines: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    fake = await startFakeBackends();
    t = await startTestApp({
      extraPlugins: [loggingPlugin],
      logSink: (l) => lines.push(JSON.parse(l)),
      config: { ...backendsConfig(fake), logLevel: 'info', accessLog: true },
    });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  test('a write with a traceparent: its queue work calls the embedder and the LLM in the same trace', async () => {
    fake.requests.length = 0;
    const r = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: { ...t.root, traceparent: TRACEPARENT }, body: { uri: 'ctx://resources/traced/a.md', content: '# Traced\n\nsome words to embed', mode: 'replace' } });
    expect(r.status).toBe(200);
    await t.app.queues.waitIdle(20_000);
    const embeds = fake.requests.filter((q) => q.path === '/v1/embeddings');
    const chats = fake.requests.filter((q) => q.path === '/v1/chat/completions');
    expect(embeds.length).toBeGreaterThan(0);
    expect(chats.length).toBeGreaterThan(0);
    for (const q of [...embeds, ...chats]) {
      expect(traceIdOf(q.headers.traceparent)).toBe(TRACE);
      // Our span is the parent, not the caller's.
      expect(parentIdOf(q.headers.traceparent)).toMatch(/^[0-9a-f]{16}$/);
      expect(parentIdOf(q.headers.traceparent)).not.toBe(PARENT);
    }
    const access = lines.find((l) => l.msg === 'request' && l.path === '/api/v1/content/write');
    expect(access).toMatchObject({ trace_id: TRACE, req_id: r.headers['x-request-id'] });
  });

  test('a find carries the trace to the query embedding', async () => {
    fake.requests.length = 0;
    const r = await t.req({ method: 'POST', url: '/api/v1/search/find', headers: { ...t.root, traceparent: TRACEPARENT }, body: { query: 'traced words' } });
    expect(r.status).toBe(200);
    const embed = fake.requests.find((q) => q.path === '/v1/embeddings');
    expect(traceIdOf(embed?.headers.traceparent)).toBe(TRACE);
  });

  test('without a traceparent (or with a malformed one) a trace is started for the logs, and not sent on without an exporter', async () => {
    fake.requests.length = 0;
    // A text of its own per request: a repeated one comes from the query-embedding cache, with no call to see.
    for (const [i, bad] of [undefined, '00-00000000000000000000000000000000-00f067aa0ba902b7-01', 'ff-' + TRACE + '-' + PARENT + '-01', 'garbage'].entries()) {
      const r = await t.req({ method: 'POST', url: '/api/v1/search/find', headers: bad ? { ...t.root, traceparent: bad } : t.root, body: { query: `more words ${i}` } });
      expect(r.status).toBe(200);
      const access = [...lines].reverse().find((l) => l.msg === 'request' && l.req_id === r.headers['x-request-id']);
      expect(access?.trace_id).toMatch(/^(?!0{32})[0-9a-f]{32}$/);
      expect(access?.trace_id).not.toBe(TRACE);
    }
    // Nothing would follow a trace started here (no exporter): propagating it would only cost.
    const embeds = fake.requests.filter((q) => q.path === '/v1/embeddings');
    expect(embeds).toHaveLength(4);
    for (const q of embeds) expect(q.headers.traceparent).toBeUndefined();
  });

  test('the gateway proxy passes the trace on', async () => {
    fake.requests.length = 0;
    const r = await t.req({ url: '/api/v1/admin/context-gateway/overview', headers: { ...t.root, traceparent: TRACEPARENT } });
    expect(r.status).toBe(200);
    const g = fake.requests.find((q) => q.path === '/admin/overview');
    expect(traceIdOf(g?.headers.traceparent)).toBe(TRACE);
  });

  test('a plugin\'s log line inside a request carries the request id and the trace id', async () => {
    const r = await t.req({ url: '/api/v1/ops-logging', headers: { ...t.root, traceparent: TRACEPARENT } });
    expect(r.status).toBe(200);
    const line = lines.find((l) => l.msg === 'inside the request');
    expect(line).toMatchObject({ plugin: 'ops-logging', req_id: r.headers['x-request-id'], trace_id: TRACE });
  });

  test('no exporter is loaded without an endpoint', () => {
    expect(t.app.tracing.exporter).toBeUndefined();
    expect(fake.requests.filter((q) => q.path === '/v1/traces')).toEqual([]);
  });
});

test('CTX_TRACING=false: no traceparent goes out and logs carry no trace id', async () => {
  const fake = await startFakeBackends();
  const lines: Array<Record<string, unknown>> = [];
  const t = await startTestApp({ env: { CTX_TRACING: 'false' }, logSink: (l) => lines.push(JSON.parse(l)), config: { ...backendsConfig(fake), logLevel: 'info', accessLog: true } });
  try {
    const r = await t.req({ method: 'POST', url: '/api/v1/search/find', headers: { ...t.root, traceparent: TRACEPARENT }, body: { query: 'words' } });
    expect(r.status).toBe(200);
    const embed = fake.requests.find((q) => q.path === '/v1/embeddings' && q.body.includes('words'));
    expect(embed?.headers.traceparent).toBeUndefined();
    expect(lines.find((l) => l.msg === 'request')).not.toHaveProperty('trace_id');
  } finally {
    await t.close();
    await fake.close();
  }
});

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
}

/** OTLP/JSON ids are hex here; base64 (protobuf JSON mapping) is accepted too. */
const hex = (id: string | undefined) => (id === undefined || id === '' ? undefined : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex'));

function spansOf(bodies: unknown[]): { spans: OtlpSpan[]; services: string[] } {
  const spans: OtlpSpan[] = [];
  const services: string[] = [];
  for (const b of bodies as Array<{ resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> }>) {
    for (const rs of b.resourceSpans) {
      const name = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
      if (name) services.push(name);
      for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, traceId: hex(s.traceId)!, spanId: hex(s.spanId)!, parentSpanId: hex(s.parentSpanId) });
    }
  }
  return { spans, services };
}

test('with OTEL_EXPORTER_OTLP_ENDPOINT: request, queue and client spans reach the OTLP receiver', async () => {
  const fake = await startFakeBackends();
  const t = await startTestApp({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: fake.url }, config: { ...backendsConfig(fake) } });
  let closed = false;
  try {
    expect(t.app.tracing.exporter).toBeDefined();
    const stat = await t.req({ url: '/api/v1/fs/stat?uri=ctx://resources', headers: { ...t.root, traceparent: TRACEPARENT } });
    expect(stat.status).toBe(200);
    const write = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: t.root, body: { uri: 'ctx://resources/otlp.md', content: 'spans please', mode: 'replace' } });
    expect(write.status).toBe(200);
    await t.app.queues.waitIdle(20_000);
    await t.close(); // flushes the batch processor
    closed = true;
    const { spans, services } = spansOf(fake.traces);
    expect(services).toContain('ctx');
    const server = spans.find((s) => s.name === 'GET /api/v1/fs/stat');
    expect(server).toMatchObject({ traceId: TRACE, parentSpanId: PARENT, kind: 2 });
    expect(server!.attributes).toEqual(expect.arrayContaining([{ key: 'http.route', value: { stringValue: '/api/v1/fs/stat' } }, { key: 'http.response.status_code', value: { intValue: 200 } }]));
    // The raw path (with its URI) is never an attribute.
    expect(JSON.stringify(server)).not.toContain('ctx://');
    const writeSpan = spans.find((s) => s.name === 'POST /api/v1/content/write')!;
    expect(writeSpan.parentSpanId).toBeUndefined();
    const queueSpans = spans.filter((s) => s.name.startsWith('queue ') && s.traceId === writeSpan.traceId);
    expect(queueSpans.map((s) => s.name)).toEqual(expect.arrayContaining(['queue Semantic', 'queue Embedding']));
    for (const q of queueSpans) expect(q.kind).toBe(5); // CONSUMER
    const client = spans.find((s) => s.name === 'POST /embeddings' && s.traceId === writeSpan.traceId);
    expect(client?.kind).toBe(3); // CLIENT
    expect(queueSpans.map((s) => s.spanId)).toContain(client!.parentSpanId);
    // The embedder saw the client span as its parent.
    const seen = fake.requests.filter((q) => q.path === '/v1/embeddings').map((q) => parentIdOf(q.headers.traceparent));
    expect(seen).toContain(client!.spanId);
  } finally {
    if (!closed) await t.close();
    await fake.close();
  }
});

describe('the execution backend gets the compile task\'s trace', () => {
  test('over HTTP (traceparent header) and gRPC (traceparent metadata)', async () => {
    const { seed, body, settle } = await import('../compile/helpers.js');
    const grpc = await import('@grpc/grpc-js');
    const { runtimeServiceDefinition, bindServer } = await import('../../plugins/compile/grpc.js');
    const fake = await startFakeBackends();
    const grpcSeen: string[] = [];
    const server = new grpc.Server();
    const refuse = (call: { metadata: import('@grpc/grpc-js').Metadata }, cb: (err: Partial<import('@grpc/grpc-js').ServiceError>) => void) => {
      grpcSeen.push(String(call.metadata.get('traceparent')[0] ?? ''));
      cb({ code: grpc.status.INVALID_ARGUMENT, details: 'refused by the test backend' });
    };
    server.addService(runtimeServiceDefinition(), { submit: refuse, status: refuse, cancel: refuse, watch: () => {} } as never);
    const grpcPort = await bindServer(server, '127.0.0.1:0');
    try {
      for (const url of [fake.url, `grpc://127.0.0.1:${grpcPort}`]) {
        const t = await startTestApp({ config: { executionBackendUrl: url } });
        try {
          const { alice } = await seed(t);
          const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: { ...alice, traceparent: TRACEPARENT }, body: body() });
          expect(r.status, r.text).toBe(202);
          expect((await settle(t, alice, r.json().result.task_id)).status).toBe('failed');
        } finally {
          await t.close();
        }
      }
      const submitted = fake.requests.find((q) => q.path === '/runtime/v1/tasks');
      expect(traceIdOf(submitted?.headers.traceparent)).toBe(TRACE);
      expect(grpcSeen.length).toBeGreaterThan(0);
      for (const tp of grpcSeen) expect(traceIdOf(tp)).toBe(TRACE);
    } finally {
      server.forceShutdown();
      await fake.close();
    }
  });
});
