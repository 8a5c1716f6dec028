/**
 * System plugin: health and readiness, status, queue wait, observers, debug health, backend sync
 * status/retry, and temporary uploads.
 */
import { CtxError } from 'ctx/plugin';
import { Reply } from 'ctx/plugin';
import { definePlugin } from 'ctx/plugin';
import { s, URI_PATTERN } from 'ctx/plugin';
import { HOST_VERSION } from 'ctx/plugin';
import { coreInfo } from 'ctx/plugin';
import { parseUri } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import { isAncestorPath } from 'ctx/plugin';
import { statusTable as table, type ComponentStatus, type QueueManager } from 'ctx/plugin';
import { clusterComponent, clusterStatusSchema } from './cluster-status.js';
import { registerConsistencyRoute } from './consistency-route.js';
import { TempFileStore, type TempFiles } from './temp-files.js';
import { componentStatusSchema, resultObject } from 'ctx/plugin';

/** The `core` of the status: the native addon or its WebAssembly build (CTX_CORE, docs/configuration.md). */
const coreSchema = resultObject({
  kind: s.enum(['native', 'wasm']).describe('`native`: the platform addon; `wasm`: the WebAssembly build of the same crates'),
  version: s.string().describe('the core crate version'),
  graph: s.enum(['faiss', 'rust']).describe("the HNSW graph: FAISS's (native) or the pure-Rust one (wasm)"),
});

declare module 'ctx/plugin' {
  interface Services {
    'temp-files': TempFiles;
  }
}

/** The part of the retrieval plugin's `vector-index` service the `models` observer reads. */
interface EmbedderInfoSource {
  embedderInfo?(): { provider: string; model: string; dim: number };
}

export default definePlugin({
  name: 'system',
  version: HOST_VERSION,
  privileges: ['lock-observer', 'identity-read'],
  privilegeReasons: {
    'lock-observer': 'the lock table of every account (GET /api/v1/observer/lock, ROOT)',
    'identity-read': 'the ready check of the key registry',
  },
  setup(host) {
    const temp = new TempFileStore(host.dataDir, host.kv.sub('temp'), host.config.tempFileTtlMinutes * 60_000);
    host.provide('temp-files', temp);
    host.onReady(() => temp.start());
    host.onClose(() => temp.stop());

    // Health is polled by load balancers at high rates: probe RocksDB at most once a second.
    let lastProbe = 0;
    const probeStorage = async (): Promise<void> => {
      const now = Date.now();
      if (now - lastProbe < 1000) return;
      await host.kv.get('health-probe');
      lastProbe = now;
    };

    host.readyCheck('filesystem', async () => {
      await probeStorage();
      return 'ok';
    });
    host.readyCheck('api_key_manager', async () => {
      if (host.authMode === 'dev') return 'not_configured';
      await host.identities.getAccount('default');
      return 'ok';
    });
    // Components the spec lists that no loaded plugin may serve: shown as not configured.
    const PLACEHOLDER_CHECKS = ['local_model_server', 'vectordb'];

    host.route({
      method: 'GET',
      path: '/health',
      auth: 'optional',
      summary: 'liveness; auth_mode appears when credentials are supplied',
      reply: { contentType: 'application/json', schema: resultObject({ status: s.enum(['ok']), healthy: s.bool(), version: s.string(), auth_mode: s.string().optional() }), description: 'Health object (no envelope)' },
      async handler(ctx) {
        let healthy = true;
        try {
          await probeStorage();
        } catch {
          healthy = false;
        }
        const body: Record<string, unknown> = { status: 'ok', healthy, version: HOST_VERSION };
        // Spec: auth_mode appears when credentials are supplied; bad ones never fail liveness.
        if (ctx.credentialsSupplied) body.auth_mode = host.authMode;
        return Reply.json(body);
      },
    });

    host.route({
      method: 'GET',
      path: '/ready',
      summary: 'readiness of every subsystem; 503 when one that is configured is not ready',
      reply: { contentType: 'application/json', schema: resultObject({ status: s.enum(['ready', 'not_ready']), checks: s.record(s.string()).describe('check name to `ok`, `not_configured` or the error') }), description: 'Ready object (no envelope); HTTP 503 when not ready' },
      auth: 'none',
      async handler() {
        const checks: Record<string, string> = {};
        let ready = true;
        const registered = host.readyChecks();
        for (const name of PLACEHOLDER_CHECKS) if (!registered.some((c) => c.name === name)) checks[name] = 'not_configured';
        for (const { name, check } of registered) {
          try {
            checks[name] = await check();
          } catch (err) {
            ready = false;
            checks[name] = `error: ${(err as Error).message}`.slice(0, 200);
          }
        }
        return Reply.json({ status: ready ? 'ready' : 'not_ready', checks }, ready ? 200 : 503);
      },
    });

    host.route({
      method: 'GET',
      path: '/api/v1/system/status',
      summary: 'whether the service is initialized, the caller, the cluster (docs/scale-out.md) and which core runs',
      response: resultObject({ initialized: s.bool(), user: s.string(), cluster: clusterStatusSchema, core: coreSchema }),
      handler: (ctx) => ({ initialized: true, user: ctx.identity.userId, cluster: host.cluster.status(), core: { kind: coreInfo.kind, version: coreInfo.version, graph: coreInfo.graph } }),
    });

    host.route({
      method: 'POST',
      path: '/api/v1/system/wait',
      summary: 'waits until the Semantic and Embedding queues are drained (or timeout seconds pass)',
      response: s.record(resultObject({ processed: s.int(), requeue_count: s.int(), error_count: s.int(), errors: s.array(s.string()) })).describe('queue name to its counts'),
      errors: ['DEADLINE_EXCEEDED'],
      body: s.object({ timeout: s.number({ min: 0 }).nullable().optional() }),
      async handler(ctx) {
        const timeout = ctx.body.timeout ?? undefined;
        const idle = await host.queues.waitIdle(timeout === undefined ? undefined : timeout * 1000);
        const result = waitResult(host.queues.stats());
        if (!idle) throw new CtxError('DEADLINE_EXCEEDED', `queues still busy after ${timeout} s`, { queues: result });
        return result;
      },
    });

    const queueComponent = (): ComponentStatus => {
      const stats = host.queues.stats();
      const rows = Object.entries(stats).map(([name, q]) => [name, q.pending, q.in_flight, q.processed, q.requeue_count, q.error_count, q.dead_letter]);
      const errors = Object.values(stats).reduce((n, q) => n + q.error_count, 0);
      return { name: 'queue', is_healthy: true, has_errors: errors > 0, status: table(['queue', 'pending', 'in_flight', 'processed', 'requeued', 'errors', 'dead_letter'], rows) };
    };
    const modelsComponent = (): ComponentStatus => {
      const e = host.config.embedding;
      const r = host.config.rerank;
      // The running embedder (model version, adopted dimension) is only known to whoever loaded
      // it; without the retrieval plugin only the configuration can be shown.
      const live = host.optional<EmbedderInfoSource>('vector-index')?.embedderInfo?.();
      const rows = [
        live ? ['dense_embedding', live.provider, live.model, live.dim, 'loaded'] : ['dense_embedding', e.provider, e.model ?? '-', e.dim ?? '-', 'configured'],
        ['rerank', r.baseUrl ? 'http' : '-', r.model ?? '-', '-', r.baseUrl ? 'configured' : 'not_configured'],
        ['vlm', '-', '-', '-', 'not_configured'],
      ];
      return { name: 'models', is_healthy: true, has_errors: false, status: table(['model', 'provider', 'name', 'dim', 'state'], rows) };
    };
    const lockComponent = (): ComponentStatus => {
      const held = host.locks.list();
      const rows = held.map((l) => [l.account, 'ctx://' + l.path, l.kind, l.owner ?? '-', l.heldMs]);
      return {
        name: 'lock',
        is_healthy: true,
        has_errors: false,
        status: table(['account', 'uri', 'kind', 'owner', 'held_ms'], rows) + `\nwaiting: ${host.locks.waiting}`,
      };
    };
    const notLoaded = (name: string, what: string): ComponentStatus => ({ name, is_healthy: true, has_errors: false, status: `${what} is not loaded` });
    host.observer('queue', queueComponent);
    host.observer('models', modelsComponent);
    host.observer('lock', lockComponent);
    // Only in cluster mode: a single node's observer output stays what it was.
    if (host.cluster.status().mode === 'cluster') host.observer('cluster', () => clusterComponent(host.cluster.status()));
    registerConsistencyRoute(host);
    const probeOf = (name: string) => host.observers().find((o) => o.name === name)?.probe;

    const component = async (name: string): Promise<ComponentStatus> => {
      const probe = probeOf(name);
      if (probe) return probe();
      if (name === 'vectordb') return notLoaded('vectordb', 'the vector index (retrieval plugin)');
      if (name === 'retrieval') return notLoaded('retrieval', 'the retrieval plugin');
      if (name === 'vlm') return { name: 'vlm', is_healthy: true, has_errors: false, status: 'no vision-language model configured' };
      throw new CtxError('NOT_FOUND', `no observer ${name}`);
    };

    for (const name of ['queue', 'vectordb', 'models', 'lock', 'retrieval'])
      host.route({ method: 'GET', path: `/api/v1/observer/${name}`, tags: ['observer'], summary: `the ${name} observer component`, response: componentStatusSchema, handler: () => component(name) });

    host.route({
      method: 'GET',
      path: '/api/v1/observer/system',
      tags: ['observer'],
      summary: 'every observer component and overall health',
      response: resultObject({ is_healthy: s.bool(), errors: s.array(s.string()), components: s.record(componentStatusSchema) }),
      async handler() {
        const components: Record<string, ComponentStatus> = {};
        const errors: string[] = [];
        for (const name of new Set(['queue', 'vectordb', 'vlm', 'models', 'lock', 'retrieval', ...host.observers().map((o) => o.name)])) {
          try {
            components[name] = await component(name);
            if (!components[name]!.is_healthy) errors.push(`${name} is unhealthy`);
          } catch (err) {
            errors.push(`${name}: ${(err as Error).message}`);
          }
        }
        return { is_healthy: errors.length === 0, errors, components };
      },
    });

    host.route({
      method: 'GET',
      path: '/api/v1/debug/health',
      summary: 'whether storage answers a read',
      response: resultObject({ healthy: s.bool() }),
      async handler() {
        try {
          await probeStorage();
          return { healthy: true };
        } catch {
          return { healthy: false };
        }
      },
    });

    // Backend sync on RocksDB: every VFS write is already durable and atomic, so the only records that
    // can be "out of sync" are index updates still queued (pending) or given up on (dead-lettered)
    // for paths in scope. Status counts them; retry moves dead-lettered ones back to their queue.
    const inScope = (who: Identity, path: string) => (payload: unknown) => {
      const p = payload as { account?: string; path?: string } | null;
      return !!p && p.account === who.accountId && typeof p.path === 'string' && isAncestorPath(path, p.path);
    };
    const syncStatus = async (who: Identity, uri: unknown) => {
      const u = parseUri(uri, who);
      const { pending, dead } = await host.queues.matching(inScope(who, u.path));
      return { path: u.uri, entry_count: pending + dead, pending_count: pending, failed_count: dead };
    };
    const syncRetry = async (who: Identity, uri: unknown) => {
      const u = parseUri(uri, who);
      const { retried, failed } = await host.queues.retryDead(inScope(who, u.path));
      return { path: u.uri, retried, failed };
    };
    const admins = ['ROOT', 'ADMIN'] as const;
    const uriBody = s.object({ uri: s.uri() });
    host.route({ method: 'POST', path: '/api/v1/system/backend/sync-status', summary: 'index work still pending or failed under uri (ROOT or ADMIN)', response: resultObject({ path: s.string(), entry_count: s.int(), pending_count: s.int(), failed_count: s.int() }), errors: ['INVALID_URI'], roles: [...admins], body: uriBody, handler: (ctx) => syncStatus(ctx.identity, ctx.body.uri) });
    host.route({ method: 'POST', path: '/api/v1/system/backend/sync-retry', summary: 'moves failed index work under uri back onto its queues (ROOT or ADMIN)', response: resultObject({ path: s.string(), retried: s.int(), failed: s.int() }), errors: ['INVALID_URI'], roles: [...admins], body: uriBody, handler: (ctx) => syncRetry(ctx.identity, ctx.body.uri) });
    host.route({ method: 'GET', path: '/api/v1/system/sync/{sync_path*}', params: { sync_path: s.string({ min: 1 }).annotate({ pattern: URI_PATTERN.replace('^ctx://(', '^(').replace(')?/?$', ')/?$') }) }, summary: 'sync-status for the URI path ctx://{sync_path}', response: resultObject({ path: s.string(), entry_count: s.int(), pending_count: s.int(), failed_count: s.int() }), errors: ['INVALID_URI'], roles: [...admins], handler: (ctx) => syncStatus(ctx.identity, 'ctx://' + ctx.params.sync_path) });
    host.route({
      method: 'POST',
      path: '/api/v1/system/sync/{sync_path*}',
      summary: 'sync-retry for ctx://{sync_path} (the path ends in /retry)',
      response: resultObject({ path: s.string(), retried: s.int(), failed: s.int() }),
      errors: ['INVALID_URI', 'NOT_FOUND'],
      roles: [...admins],
      handler(ctx) {
        const p = ctx.params.sync_path!;
        if (!p.endsWith('/retry') && p !== 'retry') throw new CtxError('NOT_FOUND', `no route for POST ${ctx.req.path}; use .../{sync_path}/retry`);
        return syncRetry(ctx.identity, 'ctx://' + p.slice(0, -'retry'.length).replace(/\/$/, ''));
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/resources/temp_upload',
      summary: 'stores an uploaded file (multipart part `file`) for a later add-resource',
      bodyType: 'multipart/form-data',
      response: resultObject({ temp_file_id: s.string(), filename: s.string().nullable().optional(), size: s.int(), upload_mode: s.enum(['local', 'shared']), expires_at: s.string().describe('ISO 8601') }),
      rawBody: true,
      errors: ['UNSUPPORTED_MEDIA_TYPE'],
      bodyLimit: host.config.maxUploadBytes,
      query: s.object({ upload_mode: s.enum(['local', 'shared']).default('local') }),
      async handler(ctx) {
        const rec = await temp.save(ctx.identity, ctx.req.rawBody, ctx.req.headers['content-type'] ?? '', ctx.query.upload_mode);
        return { temp_file_id: rec.temp_file_id, filename: rec.filename, size: rec.size, upload_mode: rec.upload_mode, expires_at: new Date(rec.expires_at).toISOString() };
      },
    });
  },
});

function waitResult(stats: ReturnType<QueueManager['stats']>) {
  const out: Record<string, { processed: number; requeue_count: number; error_count: number; errors: string[] }> = {};
  for (const [name, q] of Object.entries(stats)) out[name] = { processed: q.processed, requeue_count: q.requeue_count, error_count: q.error_count, errors: q.errors };
  return out;
}
