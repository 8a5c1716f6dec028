/**
 * How a compile task talks to its execution backend: the bundled one directly, an external one
 * over `/runtime/v1` HTTP (`http://`, `https://`) or gRPC (`grpc://`), chosen by
 * `CTX_EXECUTION_BACKEND_URL`. The caller's key goes in `X-API-Key` (gRPC metadata `x-api-key`) and
 * nowhere else: not in the task input on disk, not in logs, and scrubbed from what comes back.
 */
import { CtxError, startOutbound, type ScopedVfs } from 'ctx/plugin';
import type { BundledBackend } from './bundled.js';
import type { CompilePayload, RuntimeStatus } from './protocol.js';

export interface Caller {
  /** `account\0user`: the bundled backend's owner. */
  owner: string;
  /** The key the caller presented, forwarded to an external backend. */
  apiKey?: string;
  vfs: () => Promise<ScopedVfs>;
}

export interface ExecutionClient {
  readonly kind: 'bundled' | 'http' | 'grpc';
  submit(caller: Caller, idempotencyKey: string, payload: CompilePayload, signal?: AbortSignal): Promise<string>;
  status(caller: Caller, sessionId: string, signal?: AbortSignal): Promise<RuntimeStatus>;
  cancel(caller: Caller, sessionId: string): Promise<RuntimeStatus>;
  /** Streams state changes until the session ends or `signal` aborts (when the transport can). */
  watch?(caller: Caller, sessionId: string, fn: (s: RuntimeStatus) => void, signal: AbortSignal): Promise<void>;
  close?(): Promise<void>;
}

export function bundledClient(backend: BundledBackend): ExecutionClient {
  return {
    kind: 'bundled',
    async submit(caller, key, payload) {
      return backend.submit({ owner: caller.owner, idempotencyKey: key, payload, vfs: await caller.vfs() });
    },
    status: async (caller, id) => backend.status(caller.owner, id),
    cancel: async (caller, id) => backend.cancel(caller.owner, id),
    watch(caller, id, fn, signal) {
      return new Promise<void>((resolve) => {
        let stop = () => {};
        const done = () => {
          stop();
          signal.removeEventListener('abort', done);
          resolve();
        };
        stop = backend.watch(caller.owner, id, (s) => {
          fn(s);
          if (['completed', 'failed', 'cancelled'].includes(s.status)) queueMicrotask(done);
        });
        signal.addEventListener('abort', done, { once: true });
      });
    },
  };
}

/** Parses a backend's answer: bare JSON, or ctx's own `{status:'ok', result}` envelope. */
function unwrap(json: unknown): Record<string, unknown> {
  const o = (json ?? {}) as Record<string, unknown>;
  if (o.status === 'ok' && o.result && typeof o.result === 'object' && 'time' in o) return o.result as Record<string, unknown>;
  return o;
}

export function toStatus(raw: Record<string, unknown>): RuntimeStatus {
  const status = String(raw.status ?? '');
  if (!['pending', 'running', 'cancelling', 'completed', 'failed', 'cancelled'].includes(status))
    throw new CtxError('PROCESSING_ERROR', `the execution backend answered an unknown status ${JSON.stringify(raw.status)}`);
  return {
    status: status as RuntimeStatus['status'],
    stage: typeof raw.stage === 'string' ? raw.stage : null,
    error: typeof raw.error === 'string' ? raw.error : raw.error == null ? null : JSON.stringify(raw.error),
    meta: raw.meta && typeof raw.meta === 'object' ? (raw.meta as Record<string, unknown>) : {},
    result: raw.result && typeof raw.result === 'object' ? (raw.result as Record<string, unknown>) : null,
  };
}

export function httpClient(baseUrl: string, opts: { gatewayToken?: string; timeoutMs?: number } = {}): ExecutionClient {
  const base = baseUrl.replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 30_000;
  async function post(caller: Caller, path: string, body: unknown, extra: Record<string, string> = {}, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
    if (caller.apiKey) headers['x-api-key'] = caller.apiKey;
    if (opts.gatewayToken) headers['x-gateway-token'] = opts.gatewayToken;
    // The compile task's trace continues at the backend.
    const outbound = startOutbound(`POST ${path}`, { 'server.address': 'execution-backend' });
    if (outbound) headers.traceparent = outbound.traceparent;
    const timeout = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
      outbound?.end(res.status >= 500);
    } catch (err) {
      outbound?.end(true);
      if (signal?.aborted) throw err;
      throw new CtxError('UNAVAILABLE', `execution backend unreachable at ${base}: ${(err as Error).message}`);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      throw new CtxError('PROCESSING_ERROR', `execution backend answered HTTP ${res.status} with a body that is not JSON`);
    }
    if (!res.ok) {
      const err = (json as { error?: { message?: unknown } | string })?.error;
      const message = typeof err === 'string' ? err : typeof err?.message === 'string' ? err.message : text.slice(0, 200);
      throw new CtxError(res.status === 404 ? 'NOT_FOUND' : res.status < 500 ? 'INVALID_ARGUMENT' : 'UNAVAILABLE', `execution backend answered HTTP ${res.status}: ${message}`);
    }
    return unwrap(json);
  }
  return {
    kind: 'http',
    async submit(caller, key, payload, signal) {
      const r = await post(caller, '/runtime/v1/tasks', { task_type: 'compile', payload }, { 'idempotency-key': key }, signal);
      if (typeof r.session_id !== 'string' || !r.session_id) throw new CtxError('PROCESSING_ERROR', 'the execution backend answered a submit without session_id');
      return r.session_id;
    },
    status: async (caller, id, signal) => toStatus(await post(caller, '/runtime/v1/tasks/status', { session_id: id }, {}, signal)),
    cancel: async (caller, id) => toStatus(await post(caller, '/runtime/v1/tasks/cancel', { session_id: id })),
  };
}
