/**
 * Assembles the service: storage, identity, VFS, queues, tasks, the pipeline and the plugins.
 * `createApp` is what `main.ts`, the tests and the benchmarks all use.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import { loadConfig, type CtxConfig } from './config.js';
import { listenUws, type UwsServer } from './adapters/uws/server.js';
import { inject, type InjectRequest, type InjectResponse } from './http/inject.js';
import { Pipeline } from './http/pipeline.js';
import { Authenticator, DEFAULT_ACCOUNT, DEFAULT_USER } from './identity/auth.js';
import { IdentityRegistry } from './identity/registry.js';
import { createLogger, flushLogs, type Logger } from './logger.js';
import { PluginError, orderPlugins, type PluginDefinition, type PluginHost, type RouteDef } from './plugin.js';
import { QueueManager } from './queues/queue.js';
import type { KvBackend } from './storage/backend.js';
import { Kv } from './storage/kv.js';
import { RocksDbBackend } from './storage/rocksdb.js';
import { TaskManager } from './tasks/task-manager.js';
import { Vfs } from './vfs/vfs.js';
import { builtinPlugins } from '../plugins/index.js';

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
  readonly readyChecks: Map<string, () => Promise<string> | string>;
  service<T = unknown>(name: string): T;
  inject(req: InjectRequest): Promise<InjectResponse>;
  listen(port?: number, host?: string): Promise<UwsServer>;
  close(): Promise<void>;
  readonly startedAt: number;
}

export interface CreateAppOptions {
  config?: Partial<CtxConfig>;
  env?: Record<string, string | undefined>;
  /** Replace the built-in plugin list (tests of the loader). */
  plugins?: PluginDefinition[];
  extraPlugins?: PluginDefinition[];
  backend?: KvBackend;
  logSink?: (line: string) => void;
}

async function importPlugin(spec: string): Promise<PluginDefinition> {
  const target = spec.startsWith('.') || path.isAbsolute(spec) ? pathToFileURL(path.resolve(spec)).href : spec;
  try {
    const mod = (await import(target)) as { default?: PluginDefinition };
    if (!mod.default || typeof mod.default.setup !== 'function') throw new Error('its default export is not a definePlugin({...}) result');
    return mod.default;
  } catch (err) {
    throw new PluginError('CTX_PLUGIN_LOAD_FAILED', `cannot load plugin ${spec}: ${(err as Error).message}`, { cause: err });
  }
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
  const queues = new QueueManager(kv.sub('queues'), log.child({ component: 'queues' }));
  await queues.load();
  queues.declare('Embedding');
  queues.declare('Semantic');
  const tasks = new TaskManager(kv.sub('tasks'), queues, log.child({ component: 'tasks' }), config.taskRetentionHours);
  const pipeline = new Pipeline({
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
    return await assemble(opts, config, log, dataDir, kv, identities, vfs, queues, tasks, pipeline);
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
): Promise<App> {
  const definitions = [...(opts.plugins ?? builtinPlugins), ...(opts.extraPlugins ?? [])];
  for (const spec of config.plugins) definitions.push(await importPlugin(spec));
  const ordered = orderPlugins(definitions);

  const services = new Map<string, { plugin: string; api: unknown }>();
  const readyChecks = new Map<string, () => Promise<string> | string>();
  const readyHooks: Array<() => Promise<void> | void> = [];
  const closeHooks: Array<{ plugin: string; fn: () => Promise<void> | void }> = [];
  let started = false;
  const byName = new Map(ordered.map((p) => [p.name, p]));
  const dependencyClosure = (name: string): Set<string> => {
    const seen = new Set<string>();
    const stack = [...(byName.get(name)?.dependsOn ?? [])];
    while (stack.length) {
      const n = stack.pop()!;
      if (seen.has(n)) continue;
      seen.add(n);
      stack.push(...(byName.get(n)?.dependsOn ?? []));
    }
    return seen;
  };

  let app!: App;
  for (const def of ordered) {
    const late = (what: string) => {
      if (started) throw new PluginError('CTX_PLUGIN_LATE_REGISTRATION', `plugin ${def.name} tried to ${what} after start-up; register everything in setup()`);
    };
    const deps = dependencyClosure(def.name);
    const host: PluginHost = {
      name: def.name,
      config,
      log: log.child({ plugin: def.name }),
      kv: kv.sub(`p:${def.name}`),
      vfs,
      tasks,
      queues,
      identities,
      dataDir,
      route(r: RouteDef<any, any>) {
        late(`add route ${r.method} ${r.path}`);
        try {
          pipeline.add(def.name, r);
        } catch (err) {
          throw new PluginError('CTX_DUPLICATE_ROUTE', `plugin ${def.name}: ${(err as Error).message}`);
        }
      },
      provide(name: string, api: unknown) {
        late(`provide service ${name}`);
        const existing = services.get(name);
        if (existing) throw new PluginError('CTX_PLUGIN_DUPLICATE_SERVICE', `plugin ${def.name} provides service ${name}, already provided by plugin ${existing.plugin}`);
        services.set(name, { plugin: def.name, api });
      },
      use(name: string) {
        const s = services.get(name);
        if (!s || (s.plugin !== def.name && !deps.has(s.plugin)))
          throw new PluginError(
            'CTX_PLUGIN_MISSING_SERVICE',
            s
              ? `plugin ${def.name} uses service ${name} of plugin ${s.plugin} but does not list ${s.plugin} in dependsOn`
              : `plugin ${def.name} uses service ${name}, which no loaded plugin provides`,
          );
        return s.api as never;
      },
      has: (name: string) => services.has(name),
      optional: (name: string) => services.get(name)?.api as never,
      taskType(t) {
        late(`register task type ${t.type}`);
        tasks.registerType(t);
      },
      consume(queue, consumer, o) {
        queues.consume(queue, consumer, o);
      },
      onReady(fn) {
        readyHooks.push(fn);
      },
      onClose(fn) {
        closeHooks.push({ plugin: def.name, fn });
      },
      readyCheck(name, fn) {
        readyChecks.set(name, fn);
      },
      readyChecks,
      authMode: config.authMode,
    } as PluginHost;
    const timeoutMs = def.bootTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.resolve(def.setup(host)),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new PluginError('CTX_PLUGIN_BOOT_TIMEOUT', `plugin ${def.name} did not finish setup within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
  }
  started = true;
  await tasks.start();
  for (const fn of readyHooks) await fn();

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
    readyChecks,
    plugins: ordered.map((p) => p.name),
    startedAt: Date.now(),
    service<T>(name: string): T {
      const s = services.get(name);
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
      for (const { plugin, fn } of closeHooks.reverse()) {
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
