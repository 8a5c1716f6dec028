/**
 * gRPC and the trace context, both ways, over real sockets: ctx's own Runtime service continues a
 * caller's `traceparent` metadata (its server span is a child of the caller's span, exported to an
 * in-test OTLP receiver), and the client to an external execution backend at `grpcs://` speaks TLS
 * (a CA and client certificate made by openssl in the test; mutual TLS refused without the client
 * certificate) and hands the compile task's trace on as metadata.
 */
import * as grpc from '@grpc/grpc-js';
import { create } from '@bufbuild/protobuf';
import { describe, expect, test } from 'vitest';
import { SessionRequestSchema } from '../../plugins/compile/gen/runtime_pb.js';
import { bindServer, runtimeClient, runtimeServiceDefinition } from '../../plugins/compile/grpc.js';
import type { CompileService } from '../../plugins/compile/index.js';
import { body, seed, settle } from '../compile/helpers.js';
import { startTestApp } from '../helpers/app.js';
import { freePort } from '../helpers/free-port.js';
import { pkiForFile } from './certs.js';
import { startFakeBackends, traceIdOf } from './fake-backends.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE}-${PARENT}-01`;

const pki = pkiForFile();

interface OtlpSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}

function spansOf(bodies: unknown[]): OtlpSpan[] {
  const hex = (id: string | undefined) => (!id ? undefined : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex'));
  const out: OtlpSpan[] = [];
  for (const b of bodies as Array<{ resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }>)
    for (const rs of b.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) out.push({ ...s, traceId: hex(s.traceId)!, spanId: hex(s.spanId)!, parentSpanId: hex(s.parentSpanId) });
  return out;
}

test("ctx's gRPC service continues the caller's traceparent: its server span is the caller span's child", async () => {
  const fake = await startFakeBackends();
  const port = await freePort();
  const t = await startTestApp({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: fake.url }, config: { grpcPort: port } });
  let closed = false;
  try {
    await t.app.service<CompileService>('compile').grpcListening();
    const key = (await t.account('grpc-trace', ['alice'])).users.alice!['x-api-key']!;
    const c = runtimeClient(`127.0.0.1:${port}`);
    const call = (traceparent?: string) =>
      new Promise<grpc.ServiceError | null>((resolve) => {
        const m = new grpc.Metadata();
        m.set('x-api-key', key);
        if (traceparent) m.set('traceparent', traceparent);
        c.status(create(SessionRequestSchema, { sessionId: 'no-such-session' }), m, { deadline: Date.now() + 5000 }, (err) => resolve(err));
      });
    try {
      expect((await call(TRACEPARENT))?.code).toBe(grpc.status.NOT_FOUND);
      expect((await call())?.code).toBe(grpc.status.NOT_FOUND);
      expect((await call('00-not-a-trace'))?.code).toBe(grpc.status.NOT_FOUND);
    } finally {
      c.close();
    }
    await t.close(); // flushes the batch processor
    closed = true;
    const spans = spansOf(fake.traces).filter((s) => s.name === 'grpc Status');
    expect(spans).toHaveLength(3);
    const continued = spans.filter((s) => s.traceId === TRACE);
    expect(continued).toHaveLength(1);
    expect(continued[0]).toMatchObject({ parentSpanId: PARENT, kind: 2 }); // SERVER
    // No traceparent, or a malformed one: a new trace, a root span.
    for (const s of spans.filter((x) => x.traceId !== TRACE)) expect(s.parentSpanId).toBeUndefined();
  } finally {
    if (!closed) await t.close();
    await fake.close();
  }
});

describe('the client to a grpcs:// execution backend', () => {
  /** An execution backend over TLS that records each call's traceparent and refuses it (the compile task then fails with its message). */
  async function backend(mutual: boolean) {
    const seen: string[] = [];
    const server = new grpc.Server();
    const refuse = (call: { metadata: grpc.Metadata }, cb: (err: Partial<grpc.ServiceError>) => void) => {
      seen.push(String(call.metadata.get('traceparent')[0] ?? ''));
      cb({ code: grpc.status.INVALID_ARGUMENT, details: 'refused by the TLS test backend' });
    };
    server.addService(runtimeServiceDefinition(), { submit: refuse, status: refuse, cancel: refuse, watch: () => {} } as never);
    const creds = grpc.ServerCredentials.createSsl(mutual ? pki.read(pki.ca) : null, [{ cert_chain: pki.read(pki.serverCert), private_key: pki.read(pki.serverKey) }], mutual);
    const port = await bindServer(server, '127.0.0.1:0', creds);
    return { seen, url: `grpcs://127.0.0.1:${port}`, close: () => server.forceShutdown() };
  }

  /** Runs one compile with a traceparent against `url` and returns the failed task's error. */
  async function compileError(url: string, compile: Record<string, string>): Promise<string> {
    const t = await startTestApp({ config: { executionBackendUrl: url, pluginSections: { compile } } });
    try {
      const { alice } = await seed(t);
      const r = await t.req({ method: 'POST', url: '/api/v1/compile', headers: { ...alice, traceparent: TRACEPARENT }, body: body() });
      expect(r.status, r.text).toBe(202);
      const task = await settle(t, alice, r.json().result.task_id);
      expect(task.status).toBe('failed');
      return String(task.error);
    } finally {
      await t.close();
    }
  }

  test('server TLS: trusting the CA it gets through and carries the trace; without the CA the handshake fails', async () => {
    const b = await backend(false);
    try {
      expect(await compileError(b.url, { backendTlsCa: pki.ca })).toContain('refused by the TLS test backend');
      expect(b.seen.length).toBeGreaterThan(0);
      for (const tp of b.seen) expect(traceIdOf(tp)).toBe(TRACE);
      const before = b.seen.length;
      // System roots do not know the test CA; plaintext grpc:// cannot talk to a TLS port.
      expect(await compileError(b.url, {})).toMatch(/unreachable|UNAVAILABLE/);
      expect(await compileError(b.url.replace('grpcs:', 'grpc:'), {})).toMatch(/unreachable|UNAVAILABLE/);
      expect(b.seen.length).toBe(before);
    } finally {
      b.close();
    }
  });

  test('mutual TLS: only with the client certificate', async () => {
    const b = await backend(true);
    try {
      expect(await compileError(b.url, { backendTlsCa: pki.ca, backendTlsCert: pki.clientCert, backendTlsKey: pki.clientKey })).toContain('refused by the TLS test backend');
      expect(b.seen.length).toBeGreaterThan(0);
      const before = b.seen.length;
      expect(await compileError(b.url, { backendTlsCa: pki.ca })).toMatch(/unreachable|UNAVAILABLE/);
      expect(await compileError(b.url, { backendTlsCa: pki.ca, backendTlsCert: pki.rogueCert, backendTlsKey: pki.rogueKey })).toMatch(/unreachable|UNAVAILABLE/);
      expect(b.seen.length).toBe(before);
    } finally {
      b.close();
    }
  });

  test('bad TLS settings stop the start with a message naming the variable', async () => {
    const port = await freePort();
    for (const [url, compile, message] of [
      [`grpc://127.0.0.1:${port}`, { backendTlsCa: pki.ca }, /apply to a grpcs:\/\/ execution backend/],
      [`grpcs://127.0.0.1:${port}`, { backendTlsCert: pki.clientCert }, /BACKEND_TLS_CERT and _KEY .* go together/],
      [`grpcs://127.0.0.1:${port}`, { backendTlsCa: `${pki.dir}/missing.pem` }, /CTX_PLUGIN_COMPILE_BACKEND_TLS_CA cannot be read/],
    ] as const) {
      await expect(startTestApp({ config: { executionBackendUrl: url, pluginSections: { compile } } })).rejects.toThrow(message);
    }
  });
});
