/**
 * The runtime protocol over gRPC (`proto/runtime.proto`): grpc-js has no protobuf-es code generator,
 * so its service definition is built here from the generated descriptor (`toBinary`/`fromBinary`
 * per method). Used three ways: ctx serves its bundled backend on `CTX_GRPC_PORT`, a compile task
 * calls an external backend at `grpc://host:port`, and examples/ build their backends on it.
 */
import fs from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { create, fromBinary, toBinary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { CtxError, isCtxError, startOutbound, tlsProblem, type ErrorCode, type PluginHost, type ScopedVfs } from 'ctx/plugin';
import type { BundledBackend } from './bundled.js';
import { toStatus, type Caller, type ExecutionClient } from './clients.js';
import { Runtime, SessionRequestSchema, SubmitRequestSchema, SubmitResponseSchema, TaskStatusSchema, type SubmitRequest, type TaskStatus } from './gen/runtime_pb.js';
import { TERMINAL, checkSubmit, type CompilePayload, type RuntimeStatus } from './protocol.js';

export { Runtime };

/** grpc-js's definition of the Runtime service, methods keyed by their local names (submit, status, cancel, watch). */
export function runtimeServiceDefinition(): grpc.ServiceDefinition {
  const def: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const m of Runtime.methods) {
    const input = m.input as DescMessage;
    const output = m.output as DescMessage;
    def[m.localName] = {
      path: `/${Runtime.typeName}/${m.name}`,
      originalName: m.name,
      requestStream: m.methodKind === 'client_streaming' || m.methodKind === 'bidi_streaming',
      responseStream: m.methodKind === 'server_streaming' || m.methodKind === 'bidi_streaming',
      requestSerialize: (msg) => Buffer.from(toBinary(input, msg as MessageShape<DescMessage>)),
      requestDeserialize: (buf: Buffer) => fromBinary(input, buf),
      responseSerialize: (msg) => Buffer.from(toBinary(output, msg as MessageShape<DescMessage>)),
      responseDeserialize: (buf: Buffer) => fromBinary(output, buf),
    };
  }
  return def as grpc.ServiceDefinition;
}

const parseObject = (json: string, field: string): Record<string, unknown> | undefined => {
  if (!json) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    throw new CtxError('INVALID_ARGUMENT', `${field} is not valid JSON`, { field });
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new CtxError('INVALID_ARGUMENT', `${field} must be a JSON object`, { field });
  return v as Record<string, unknown>;
};

/** A Submit request as the `{task_type, payload}` body of `/runtime/v1/tasks`, checked the same way. */
export function submitFromPb(req: SubmitRequest): CompilePayload {
  const payload = req.payload
    ? { from: req.payload.from, to: req.payload.to, skill: req.payload.skill, instruction: req.payload.instruction, args: parseObject(req.payload.argsJson, 'payload.args_json') }
    : undefined;
  return checkSubmit({ task_type: req.taskType || undefined, payload });
}

export function statusToPb(st: RuntimeStatus): TaskStatus {
  return create(TaskStatusSchema, {
    status: st.status,
    stage: st.stage ?? undefined,
    error: st.error ?? undefined,
    metaJson: JSON.stringify(st.meta ?? {}),
    resultJson: st.result ? JSON.stringify(st.result) : '',
  });
}

export function statusFromPb(m: TaskStatus): RuntimeStatus {
  return toStatus({ status: m.status, stage: m.stage ?? null, error: m.error ?? null, meta: m.metaJson ? JSON.parse(m.metaJson) : {}, result: m.resultJson ? JSON.parse(m.resultJson) : null });
}

/** Call metadata as request headers (string values, lower-case names), for `host.authenticate`. */
export function metadataHeaders(md: grpc.Metadata): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(md.getMap())) if (typeof v === 'string') out[k] = v;
  return out;
}

const TO_GRPC: Partial<Record<ErrorCode, grpc.status>> = {
  INVALID_ARGUMENT: grpc.status.INVALID_ARGUMENT,
  INVALID_URI: grpc.status.INVALID_ARGUMENT,
  UNAUTHENTICATED: grpc.status.UNAUTHENTICATED,
  PERMISSION_DENIED: grpc.status.PERMISSION_DENIED,
  NOT_FOUND: grpc.status.NOT_FOUND,
  CONFLICT: grpc.status.ALREADY_EXISTS,
  FAILED_PRECONDITION: grpc.status.FAILED_PRECONDITION,
  RESOURCE_EXHAUSTED: grpc.status.RESOURCE_EXHAUSTED,
  UNAVAILABLE: grpc.status.UNAVAILABLE,
  DEADLINE_EXCEEDED: grpc.status.DEADLINE_EXCEEDED,
  UNIMPLEMENTED: grpc.status.UNIMPLEMENTED,
};

/** A thrown error as a gRPC status: CtxError codes map one to one; anything else is INTERNAL without detail. */
export function toServiceError(err: unknown): Partial<grpc.ServiceError> {
  if (isCtxError(err)) return { code: TO_GRPC[err.code] ?? grpc.status.INTERNAL, details: err.message };
  return { code: grpc.status.INTERNAL, details: 'internal error' };
}

const FROM_GRPC: Partial<Record<number, ErrorCode>> = Object.fromEntries(Object.entries(TO_GRPC).reverse().map(([k, v]) => [v, k as ErrorCode]));

function fromServiceError(err: grpc.ServiceError, target: string): CtxError {
  if (err.code === grpc.status.UNAVAILABLE && !err.details?.length) return new CtxError('UNAVAILABLE', `execution backend unreachable at ${target}`);
  return new CtxError(FROM_GRPC[err.code] ?? 'UNAVAILABLE', `execution backend answered gRPC ${grpc.status[err.code] ?? err.code}: ${err.details}`);
}

type Handler<Req, Res> = (call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>;
/** Told how each call ended (metrics): its gRPC status code and seconds. */
export type CallObserver = (code: grpc.status, seconds: number) => void;

/** A unary handler from an async function; its throw becomes the call's status. */
export function unary<Req, Res>(fn: Handler<Req, Res>, observe?: CallObserver): grpc.handleUnaryCall<Req, Res> {
  return (call, cb) => {
    const t0 = performance.now();
    fn(call).then(
      (res) => {
        observe?.(grpc.status.OK, (performance.now() - t0) / 1000);
        cb(null, res);
      },
      (err) => {
        const e = toServiceError(err);
        observe?.(e.code ?? grpc.status.UNKNOWN, (performance.now() - t0) / 1000);
        cb(e as grpc.ServiceError);
      },
    );
  };
}

/**
 * Server credentials: TLS when a certificate and key are configured (PEM files), mutual TLS when a
 * client CA is too (clients without a certificate it signed are refused in the handshake).
 */
export function serverCredentials(tls: { cert?: string; key?: string; clientCa?: string }): grpc.ServerCredentials {
  if (!tls.cert || !tls.key) return grpc.ServerCredentials.createInsecure();
  const ca = tls.clientCa ? fs.readFileSync(tls.clientCa) : null;
  return grpc.ServerCredentials.createSsl(ca, [{ cert_chain: fs.readFileSync(tls.cert), private_key: fs.readFileSync(tls.key) }], ca !== null);
}

/** Per-method children of the gRPC server metrics (`ctx_compile_grpc_server_*`), resolved once. */
function callMetrics(host: PluginHost): (method: string) => CallObserver {
  const handled = host.metrics.counter('grpc_server_handled_total', { help: 'gRPC calls of the runtime service, by method and status code', labels: ['method', 'code'] });
  const seconds = host.metrics.histogram('grpc_server_handling_seconds', { help: 'gRPC call latency of the runtime service, by method (watch: the stream\'s whole life)', labels: ['method'] });
  return (method) => {
    const latency = seconds.labels(method);
    const byCode = new Map<grpc.status, { inc(n?: number): void }>();
    return (code, s) => {
      let c = byCode.get(code);
      if (!c) byCode.set(code, (c = handled.labels(method, grpc.status[code] ?? String(code))));
      c.inc();
      latency.observe(s);
    };
  };
}

export interface GrpcServerHandle {
  port: number;
  close(): Promise<void>;
}

/** Binds `server` on 127.0.0.1 or `host` and resolves with the bound port (plaintext unless `creds` say otherwise). */
export function bindServer(server: grpc.Server, address: string, creds: grpc.ServerCredentials = grpc.ServerCredentials.createInsecure()): Promise<number> {
  return new Promise((resolve, reject) => server.bindAsync(address, creds, (err, port) => (err ? reject(err) : resolve(port))));
}

export function shutdown(server: grpc.Server, graceMs = 2000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** ctx's own Runtime service: the bundled backend, with callers authenticated like HTTP requests. */
export async function startGrpcServer(opts: { host: PluginHost; bundled: BundledBackend; port: number; checkTargets: (vfs: ScopedVfs, p: CompilePayload) => Promise<unknown> }): Promise<GrpcServerHandle> {
  const { host, bundled } = opts;
  const who = async (md: grpc.Metadata) => {
    const identity = await host.authenticate(metadataHeaders(md));
    return { identity, owner: `${identity.accountId}\0${identity.userId}` };
  };
  const server = new grpc.Server();
  const observer = callMetrics(host);
  // A caller's `traceparent` metadata (the OpenTelemetry gRPC convention) makes the call a server
  // span of its trace; the bundled backend's LLM calls then carry it on.
  const traced = <Req, Res>(method: string, fn: Handler<Req, Res>): Handler<Req, Res> =>
    (call) => host.tracing.run(`grpc ${method}`, { kind: 'server', traceparent: firstValue(call.metadata, 'traceparent'), attributes: rpcAttributes(method) }, () => fn(call));
  const watchObserved = observer('Watch');
  server.addService(runtimeServiceDefinition(), {
    submit: unary<SubmitRequest, unknown>(traced('Submit', async (call) => {
      const { identity, owner } = await who(call.metadata);
      const payload = submitFromPb(call.request);
      const vfs = host.vfsFor(identity);
      await opts.checkTargets(vfs, payload);
      const key = call.metadata.get('idempotency-key')[0];
      const sessionId = bundled.submit({ owner, idempotencyKey: typeof key === 'string' && key ? key : undefined, payload, vfs });
      return create(SubmitResponseSchema, { sessionId });
    }), observer('Submit')),
    status: unary<{ sessionId: string }, TaskStatus>(traced('Status', async (call) => statusToPb(bundled.status((await who(call.metadata)).owner, call.request.sessionId))), observer('Status')),
    cancel: unary<{ sessionId: string }, TaskStatus>(traced('Cancel', async (call) => statusToPb(bundled.cancel((await who(call.metadata)).owner, call.request.sessionId))), observer('Cancel')),
    watch: (call: grpc.ServerWritableStream<{ sessionId: string }, TaskStatus>) => {
      const t0 = performance.now();
      let observed = false;
      let ended: () => void = () => {};
      const done = (code: grpc.status) => {
        if (observed) return;
        observed = true;
        watchObserved(code, (performance.now() - t0) / 1000);
        ended();
      };
      // The stream's whole life is the span.
      const life = new Promise<void>((resolve) => (ended = resolve));
      void host.tracing.run('grpc Watch', { kind: 'server', traceparent: firstValue(call.metadata, 'traceparent'), attributes: rpcAttributes('Watch') }, () => {
        who(call.metadata)
          .then(({ owner }) => {
            const stop = bundled.watch(owner, call.request.sessionId, (st) => {
              call.write(statusToPb(st));
              if (TERMINAL.has(st.status))
                queueMicrotask(() => {
                  done(grpc.status.OK);
                  call.end();
                });
            });
            call.on('cancelled', () => {
              done(grpc.status.CANCELLED);
              stop();
            });
          })
          // grpc-js turns an 'error' event on a server stream into the call's status.
          .catch((err) => {
            const e = toServiceError(err);
            done(e.code ?? grpc.status.UNKNOWN);
            call.emit('error', e);
          });
        return life;
      });
    },
  } as grpc.UntypedServiceImplementation);
  const tls = { ...host.config.grpcTls, key: (host.pluginConfig as { grpcTlsKey?: string }).grpcTlsKey };
  const problem = tlsProblem('CTX_GRPC_TLS', tls);
  if (problem) throw new CtxError('INVALID_ARGUMENT', `gRPC runtime service: ${problem}`);
  let creds: grpc.ServerCredentials;
  try {
    creds = serverCredentials(tls);
  } catch (err) {
    throw new CtxError('UNAVAILABLE', `gRPC runtime service cannot read its TLS files: ${(err as Error).message}`);
  }
  const port = await bindServer(server, `${host.config.host}:${opts.port}`, creds).catch((err) => {
    throw new CtxError('UNAVAILABLE', `gRPC runtime service cannot listen on ${host.config.host}:${opts.port}: ${(err as Error).message}`);
  });
  host.log.info('gRPC runtime service listening', { port, tls: tls.cert ? (tls.clientCa ? 'mutual' : 'server') : 'off' });
  return { port, close: () => shutdown(server) };
}

const firstValue = (md: grpc.Metadata, key: string): string | undefined => {
  const v = md.get(key)[0];
  return typeof v === 'string' ? v : undefined;
};

const rpcAttributes = (method: string) => ({ 'rpc.system': 'grpc', 'rpc.service': Runtime.typeName, 'rpc.method': method });

type RuntimeClient = grpc.Client & Record<'submit' | 'status' | 'cancel', (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => grpc.ClientUnaryCall> & {
  watch(req: unknown, md: grpc.Metadata): grpc.ClientReadableStream<TaskStatus>;
};

export function runtimeClient(target: string, creds: grpc.ChannelCredentials = grpc.credentials.createInsecure()): RuntimeClient {
  const Ctor = grpc.makeGenericClientConstructor(runtimeServiceDefinition(), 'Runtime');
  return new Ctor(target, creds) as unknown as RuntimeClient;
}

/** PEM contents for a TLS client: `ca` replaces the system roots, `cert` + `key` present a client certificate (mutual TLS). */
export interface ClientTls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/** Channel credentials: plaintext without `tls`, TLS (system roots unless `ca`) with it. */
export function clientCredentials(tls: ClientTls | undefined): grpc.ChannelCredentials {
  if (!tls) return grpc.credentials.createInsecure();
  return grpc.credentials.createSsl(tls.ca ?? null, tls.key ?? null, tls.cert ?? null);
}

const METHOD_NAMES = { submit: 'Submit', status: 'Status', cancel: 'Cancel', watch: 'Watch' } as const;

/** A compile task's view of an external backend over gRPC (`grpc://host:port`, or `grpcs://` with `tls`). */
export function grpcClient(target: string, opts: { gatewayToken?: string; timeoutMs?: number; tls?: ClientTls } = {}): ExecutionClient {
  const client = runtimeClient(target, clientCredentials(opts.tls));
  const md = (caller: Caller, traceparent: string | undefined, extra: Record<string, string> = {}) => {
    const m = new grpc.Metadata();
    if (caller.apiKey) m.set('x-api-key', caller.apiKey);
    if (opts.gatewayToken) m.set('x-gateway-token', opts.gatewayToken);
    // W3C trace context as gRPC metadata (the OpenTelemetry gRPC convention: a `traceparent` key).
    if (traceparent) m.set('traceparent', traceparent);
    for (const [k, v] of Object.entries(extra)) m.set(k, v);
    return m;
  };
  /** A client span of the active trace around one call (when spans are exported), and its traceparent. */
  const outbound = (method: keyof typeof METHOD_NAMES) => startOutbound(`grpc ${METHOD_NAMES[method]}`, { ...rpcAttributes(METHOD_NAMES[method]), 'server.address': 'execution-backend' });
  const call = <T>(method: 'submit' | 'status' | 'cancel', req: unknown, caller: Caller, extra: Record<string, string> | undefined, signal?: AbortSignal) =>
    new Promise<T>((resolve, reject) => {
      const out = outbound(method);
      const c = client[method](req, md(caller, out?.traceparent, extra), { deadline: Date.now() + (opts.timeoutMs ?? 30_000) }, (err, res) => {
        out?.end(err !== null);
        if (err) reject(fromServiceError(err, target));
        else resolve(res as T);
      });
      signal?.addEventListener('abort', () => c.cancel(), { once: true });
    });
  return {
    kind: 'grpc',
    async submit(caller, key, payload, signal) {
      const req = create(SubmitRequestSchema, {
        taskType: 'compile',
        payload: { from: payload.from, to: payload.to, skill: payload.skill, instruction: payload.instruction, argsJson: payload.args ? JSON.stringify(payload.args) : '' },
      });
      const res = await call<{ sessionId: string }>('submit', req, caller, { 'idempotency-key': key }, signal);
      return res.sessionId;
    },
    status: async (caller, id, signal) => statusFromPb(await call<TaskStatus>('status', create(SessionRequestSchema, { sessionId: id }), caller, undefined, signal)),
    cancel: async (caller, id) => statusFromPb(await call<TaskStatus>('cancel', create(SessionRequestSchema, { sessionId: id }), caller, undefined)),
    watch(caller, id, fn, signal) {
      return new Promise<void>((resolve, reject) => {
        const out = outbound('watch');
        const stream = client.watch(create(SessionRequestSchema, { sessionId: id }), md(caller, out?.traceparent));
        const onAbort = () => stream.cancel();
        signal.addEventListener('abort', onAbort, { once: true });
        stream.on('data', (m: TaskStatus) => fn(statusFromPb(m)));
        stream.on('end', () => {
          out?.end();
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
        stream.on('error', (err: grpc.ServiceError) => {
          out?.end(!(err.code === grpc.status.CANCELLED && signal.aborted));
          signal.removeEventListener('abort', onAbort);
          if (err.code === grpc.status.CANCELLED && signal.aborted) resolve();
          else reject(fromServiceError(err, target));
        });
      });
    },
    async close() {
      client.close();
    },
  };
}
