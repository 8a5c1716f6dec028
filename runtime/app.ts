/**
 * Assembles the service: storage, identity, VFS, queues, tasks, the pipeline and the plugins.
 * `createApp` is what `main.ts`, the tests and the benchmarks all use.
 */
import path from 'node:path';
import fs from 'node:fs';
import { loadConfig, tlsProblem, type CtxConfig } from './config.js';
import { listenUws, type UwsServer } from './adapters/uws/server.js';
import { inject, type InjectRequest, type InjectResponse } from './http/inject.js';
import { Pipeline } from './http/pipeline.js';
import { openApiRoute } from './http/openapi.js';
import { Authenticator, DEFAULT_ACCOUNT, DEFAULT_USER } from './identity/auth.js';
import { IdentityRegistry } from './identity/registry.js';
import { createLogger, flushLogs, type Logger } from './logger.js';
import { AccessGuard } from './access/guard.js';
import { ScopedVfs } from './access/scoped-vfs.js';
import { ChangeFeed } from './access/change-feed.js';
import { orderPlugins, type ComponentProbe, type PluginDefinition, type ReadyCheck } from './plugin.js';
import { startPlugins } from './plugin-host.js';
import { importPlugin } from './plugin-loader.js';
import { QueueManager } from './queues/queue.js';
import { startIdleGc } from './queues/idle-gc.js';
import type { KvBackend } from './storage/backend.js';
import { Kv } from './storage/kv.js';
import { RocksDbBackend } from './storage/rocksdb.js';
import { TaskManager } from './tasks/task-manager.js';
import { Vfs } from './vfs/vfs.js';
import { HttpMetrics } from './metrics/http-metrics.js';
import { Metrics } from './metrics/registry.js';
import { metricsRoute } from './metrics/endpoint.js';
import { instrumentQueues, instrumentStorage, instrumentTasks } from './metrics/runtime-metrics.js';
import { startOtlpExporter } from './tracing/otel.js';
import { Tracing } from './tracing/tracing.js';
import { VERSION } from './version.js';
import { SINGLE_NODE, type ClusterStatusSource } from './cluster/cluster-node.js';

export { VERSION } from './version.js';

export interface App {
  readonly config: CtxConfig;
  readonly log: Logger;
  readonly kv: Kv;
  readonly vfs: Vfs;
  readonly tasks: TaskManager;
  readonly queues: QueueManager;
  readonly identities: IdentityRegistry;
  readonly pipeline: Pipeline;
  readonly plugins: string[];
  /** Readiness checks and observer components registered by the plugins. */
  readonly readyChecks: ReadonlyArray<{ name: string; plugin: string; check: ReadyCheck }>;
  readonly observers: ReadonlyArray<{ name: string; plugin: string; probe: ComponentProbe }>;
  readonly access: AccessGuard;
  /** The metrics registry (`GET /metrics`; plugins add theirs through `host.metrics`). */
  readonly metrics: Metrics;
  readonly tracing: Tracing;
  /** False once shutdown began: `/ready` answers 503 before anything else stops. */
  readonly ready: boolean;
  /** Cluster mode's state (docs/scale-out.md); `{mode: 'single'}` without CTX_CLUSTER_NATS. */
  readonly cluster: ClusterStatusSource;
  service<T = unknown>(name: string): T;
  inject(req: InjectRequest): Promise<InjectResponse>;
  listen(port?: number, host?: string): Promise<UwsServer>;
  close(): Promise<void>;
  readonly startedAt: number;
}

export interface CreateAppOptions {
  config?: Partial<CtxConfig>;
  env?: Record<string, string | undefined>;
  /**
   * The trusted plugins (the composition root passes the built-ins: runtime/main.ts, the tests);
   * they need no operator grant for their privileges.
   */
  plugins?: PluginDefinition[];
  /** More plugins, treated like the config's `plugins` (privileges must be granted). */
  extraPlugins?: PluginDefinition[];
  backend?: KvBackend;
  logSink?: (line: string) => void;
}

export async function createApp(opts: CreateAppOptions = {}): Promise<App> {
  const config = loadConfig(opts.env ?? process.env, opts.config ?? {});
  const log = createLogger(config.logLevel, opts.logSink);
  const dataDir = path.resolve(config.dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const tStorage = performance.now();
  const kv = await Kv.open(opts.backend ?? new RocksDbBackend(path.join(dataDir, 'db'), { writeBufferBytes: config.rocksdbWriteBufferMb * 2 ** 20, blockCacheBytes: config.rocksdbBlockCacheMb * 2 ** 20 }));
  const identities = new IdentityRegistry(kv.sub('identity'), config.rootApiKey);
  const ensureIdentities = async () => {
    await identities.ensureInitialAccount(DEFAULT_ACCOUNT, DEFAULT_USER);
    if (config.authMode !== 'api_key') await identities.ensureAccount(DEFAULT_ACCOUNT, DEFAULT_USER);
  };
  // Cluster mode: identities live in the system shard, so the bootstrap waits for the cluster (below).
  if (config.cluster.nats.length === 0) await ensureIdentities();
  const vfs = new Vfs(kv.sub('vfs'), { metaCacheEntries: config.vfsMetaCacheEntries });
  vfs.listenerError = (event, err) => log.error('a VFS event listener threw; the change is durable and the other listeners were told', { event, error: err });
  const queues = new QueueManager(kv.sub('queues'), log.child({ component: 'queues' }));
  await queues.load();
  if (config.startupTrace) log.info('start-up step', { step: 'storage, identity, queues', ms: Math.round((performance.now() - tStorage) * 10) / 10, since_process_start_ms: Math.round(performance.now()) });
  const tasks = new TaskManager(kv.sub('tasks'), queues, log.child({ component: 'tasks' }), config.taskRetentionHours);
  const guard = new AccessGuard();
  const feed = new ChangeFeed(vfs);
  // Always built: plugins register their metrics whatever CTX_METRICS says; `off` only skips the
  // per-request recording and answers /metrics with 404.
  const metrics = new Metrics(config.metricsAccountLabel);
  const metricsOn = config.metrics !== 'off';
  if (metricsOn) metrics.startProcessCollectors();
  const exporter = config.tracing && config.otlpTracesUrl ? await startOtlpExporter(config.otlpTracesUrl, { name: 'ctx', version: VERSION }, log.child({ component: 'tracing' })) : undefined;
  const tracing = new Tracing(config.tracing, exporter);
  let pipelineRef: Pipeline | undefined;
  const httpMetrics = metricsOn ? new HttpMetrics(metrics, () => pipelineRef?.inFlightCount ?? 0) : undefined;
  const pipeline = new Pipeline({
    scopedVfs: (identity) => new ScopedVfs(vfs, guard, identity, { feed }),
    auth: new Authenticator(config.authMode, identities),
    log: log.child({ component: 'http' }),
    accessLog: config.accessLog,
    profiling: config.profiling,
    maxJsonBodyBytes: config.maxJsonBodyBytes,
    metrics: httpMetrics,
    metricsAccountLabel: config.metricsAccountLabel,
    tracing: config.tracing ? tracing : undefined,
  });
  pipelineRef = pipeline;
  instrumentQueues(metricsOn ? metrics : undefined, tracing, queues);
  instrumentTasks(metricsOn ? metrics : undefined, tracing, tasks);
  if (metricsOn) instrumentStorage(metrics, kv);

  let cluster: (ClusterStatusSource & { close(): Promise<void> }) | undefined;
  try {
    // Before plugins: a node that cannot reach NATS must refuse to start, not serve alone.
    // Imported lazily so the single-node server never loads the NATS client.
    if (config.cluster.nats.length > 0) {
      const { ClusterNode } = await import('./cluster/cluster-node.js');
      const node = await ClusterNode.start(config, dataDir, log.child({ component: 'cluster' }), kv);
      // Another leader's records land below the VFS and the identity registry: drop what they cached.
      node.onApplied((ops) => {
        if (ops.some((o) => o.key.startsWith('vfs\x00'))) vfs.dropCaches();
        if (ops.some((o) => o.key.startsWith('identity\x00'))) identities.dropCaches();
      });
      pipeline.setGate(node.gate);
      node.ensureSystem('default account', ensureIdentities);
      // Background work (queue deliveries, task runs) only on the leader of its shard.
      queues.setGate(node.background);
      tasks.setGate(node.background);
      cluster = node;
    }
    // Before plugin setup: a consumer pumps as soon as it registers, and a cancelled task's message
    // left on disk (it was in flight when the process stopped) must not be delivered again.
    await tasks.blockCancelledWork();
    return await assemble(opts, config, log, dataDir, kv, identities, vfs, queues, tasks, pipeline, guard, feed, metrics, tracing, cluster);
  } catch (err) {
    await cluster?.close().catch(() => {});
    // A failed start must release RocksDB's lock so the operator can fix the config and retry.
    queues.close();
    await tracing.shutdown();
    await kv.close().catch(() => {});
    throw err;
  }
}

async function assemble(
  opts: CreateAppOptions,
  config: CtxConfig,
  log: Logger,
  dataDir: string,
  kv: Kv,
  identities: IdentityRegistry,
  vfs: Vfs,
  queues: QueueManager,
  tasks: TaskManager,
  pipeline: Pipeline,
  guard: AccessGuard,
  feed: ChangeFeed,
  metrics: Metrics,
  tracing: Tracing,
  cluster: (ClusterStatusSource & { close(): Promise<void> }) | undefined,
): Promise<App> {
  const trusted = opts.plugins ?? [];
  const definitions = [...trusted, ...(opts.extraPlugins ?? [])];
  for (const spec of config.plugins) {
    const def = await importPlugin(spec, { configDir: config.configDir });
    if (def.hostApi === undefined) log.warn('extra plugin declares no hostApi range: nothing checks it was written for this plugin API', { plugin: def.name, from: spec });
    definitions.push(def);
  }
  const ordered = orderPlugins(definitions);
  // The host's own route: the API document of every route the plugins register.
  pipeline.add('host', openApiRoute(() => pipeline.routes()));
  pipeline.add('host', metricsRoute(metrics, config.metrics, config.metricsToken));
  const started = await startPlugins({ config, log, dataDir, kv, vfs, identities, tasks, queues, pipeline, guard, feed, metrics, tracing, cluster: cluster ?? SINGLE_NODE }, ordered, new Set(trusted));
  let ready = true;
  // The host's own line in /ready: the first thing shutdown turns off.
  started.readyChecks.push({
    name: 'lifecycle',
    plugin: 'host',
    check: () => {
      if (!ready) throw new Error('shutting down');
      return 'ok';
    },
  });

  // After a bulk ingest drains, one full GC gives back the garbage V8 would otherwise keep.
  const idleGc = startIdleGc(queues, log.child({ component: 'memory' }), { quietMs: config.idleGcMs });
  let app!: App;
  const servers: UwsServer[] = [];
  let closed = false;
  app = {
    config,
    log,
    kv,
    vfs,
    tasks,
    queues,
    identities,
    pipeline,
    readyChecks: started.readyChecks,
    observers: started.observers,
    access: guard,
    metrics,
    tracing,
    get ready() {
      return ready;
    },
    cluster: cluster ?? SINGLE_NODE,
    plugins: ordered.map((p) => p.name),
    startedAt: Date.now(),
    service<T>(name: string): T {
      const s = started.services.get(name);
      if (!s) throw new Error(`no service ${name}`);
      return s.api as T;
    },
    inject: (req) => inject(pipeline, req),
    async listen(port = config.port, host = config.host) {
      const problem = tlsProblem('CTX_TLS', config.tls);
      if (problem) throw new Error(problem);
      const tls = config.tls.cert && config.tls.key ? { cert: config.tls.cert, key: config.tls.key } : undefined;
      const server = await listenUws(pipeline, host, port, tls);
      servers.push(server);
      log.info('listening', { host, port: server.port, tls: !!tls, auth_mode: config.authMode, data_dir: dataDir });
      return server;
    },
    async close() {
      if (closed) return;
      closed = true;
      // Readiness first: a load balancer stops routing here while requests are still served.
      ready = false;
      const deadline = Date.now() + config.shutdownTimeoutMs;
      if (servers.length && config.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
      pipeline.draining = true;
      for (const s of servers) s.close();
      const left = () => Math.max(0, deadline - Date.now());
      await Promise.race([pipeline.idle(), new Promise((r) => setTimeout(r, left()).unref())]);
      // No new deliveries; the running ones and the running task steps get what is left of the deadline.
      idleGc.stop();
      queues.close();
      const settled = await queues.settle(left());
      await tasks.drain(left());
      if (!settled || pipeline.inFlightCount > 0)
        log.warn('shutdown deadline passed with work in flight', { in_flight_requests: pipeline.inFlightCount, running_tasks: tasks.runningCount() });
      await started.settle();
      for (const { plugin, fn } of started.closeHooks()) {
        try {
          await fn();
        } catch (err) {
          log.error('onClose hook failed', { plugin, error: err });
        }
      }
      // Leaves the membership before storage closes: peers drop this node at once.
      await cluster?.close().catch((err: unknown) => log.error('leaving the cluster failed', { error: err }));
      await tracing.shutdown();
      await kv.close();
      flushLogs();
    },
  };
  return app;
}
