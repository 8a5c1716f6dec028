/**
 * Assembles the service: storage, identity, VFS, queues, tasks, the pipeline and the plugins.
 * `createApp` is what `main.ts`, the tests and the benchmarks all use.
 */
import path from 'node:path';
import fs from 'node:fs';
import { loadConfig, type CtxConfig } from './config.js';
import { listenUws, type UwsServer } from './adapters/uws/server.js';
import { inject, type InjectRequest, type InjectResponse } from './http/inject.js';
import { Pipeline } from './http/pipeline.js';
import { openApiRoute } from './http/openapi.js';
import { Authenticator, DEFAULT_ACCOUNT, DEFAULT_USER } from './identity/auth.js';
import { IdentityRegistry } from './identity/registry.js';
import { createLogger, flushLogs, type Logger } from './logger.js';
import { AccessGuard } from './access/guard.js';
import { ScopedVfs } from './access/scoped-vfs.js';
import { orderPlugins, type ComponentProbe, type PluginDefinition, type ReadyCheck } from './plugin.js';
import { startPlugins } from './plugin-host.js';
import { importPlugin } from './plugin-loader.js';
import { QueueManager } from './queues/queue.js';
import type { KvBackend } from './storage/backend.js';
import { Kv } from './storage/kv.js';
import { RocksDbBackend } from './storage/rocksdb.js';
import { TaskManager } from './tasks/task-manager.js';
import { Vfs } from './vfs/vfs.js';

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
  const kv = await Kv.open(opts.backend ?? new RocksDbBackend(path.join(dataDir, 'db')));
  const identities = new IdentityRegistry(kv.sub('identity'), config.rootApiKey);
  await identities.ensureInitialAccount(DEFAULT_ACCOUNT, DEFAULT_USER);
  if (config.authMode !== 'api_key') await identities.ensureAccount(DEFAULT_ACCOUNT, DEFAULT_USER);
  const vfs = new Vfs(kv.sub('vfs'));
  vfs.listenerError = (event, err) => log.error('a VFS event listener threw; the change is durable and the other listeners were told', { event, error: err });
  const queues = new QueueManager(kv.sub('queues'), log.child({ component: 'queues' }));
  await queues.load();
  const tasks = new TaskManager(kv.sub('tasks'), queues, log.child({ component: 'tasks' }), config.taskRetentionHours);
  const guard = new AccessGuard();
  const pipeline = new Pipeline({
    scopedVfs: (identity) => new ScopedVfs(vfs, guard, identity),
    auth: new Authenticator(config.authMode, identities),
    log: log.child({ component: 'http' }),
    accessLog: config.accessLog,
    profiling: config.profiling,
    maxJsonBodyBytes: config.maxJsonBodyBytes,
  });

  try {
    // Before plugin setup: a consumer pumps as soon as it registers, and a cancelled task's message
    // left on disk (it was in flight when the process stopped) must not be delivered again.
    await tasks.blockCancelledWork();
    return await assemble(opts, config, log, dataDir, kv, identities, vfs, queues, tasks, pipeline, guard);
  } catch (err) {
    // A failed start must release RocksDB's lock so the operator can fix the config and retry.
    queues.close();
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
  const started = await startPlugins({ config, log, dataDir, kv, vfs, identities, tasks, queues, pipeline, guard }, ordered, new Set(trusted));

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
    plugins: ordered.map((p) => p.name),
    startedAt: Date.now(),
    service<T>(name: string): T {
      const s = started.services.get(name);
      if (!s) throw new Error(`no service ${name}`);
      return s.api as T;
    },
    inject: (req) => inject(pipeline, req),
    async listen(port = config.port, host = config.host) {
      const server = await listenUws(pipeline, host, port);
      servers.push(server);
      log.info('listening', { host, port: server.port, auth_mode: config.authMode, data_dir: dataDir });
      return server;
    },
    async close() {
      if (closed) return;
      closed = true;
      pipeline.draining = true;
      for (const s of servers) s.close();
      await Promise.race([pipeline.idle(), new Promise((r) => setTimeout(r, config.shutdownTimeoutMs).unref())]);
      queues.close();
      await tasks.drain(Math.min(2000, config.shutdownTimeoutMs));
      await started.settle();
      for (const { plugin, fn } of started.closeHooks()) {
        try {
          await fn();
        } catch (err) {
          log.error('onClose hook failed', { plugin, error: err });
        }
      }
      await kv.close();
      flushLogs();
    },
  };
  return app;
}
