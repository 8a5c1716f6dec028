/**
 * Builds each plugin's `host` and runs the plugins' set-up in dependency order. What a plugin gets
 * is decided here: scoped handles by default, privileged ones only when declared (and, for extra
 * plugins, granted by the operator); every registration after start-up throws; a failed start
 * closes what was already set up, in reverse order.
 */
import { AccessGuard } from './access/guard.js';
import { isIssuedIdentity, issueIdentity } from './access/issued.js';
import { ScopedVfs } from './access/scoped-vfs.js';
import type { ChangeFeed } from './access/change-feed.js';
import { ownFiles } from './access/own-files.js';
import { publicConfig, type CtxConfig } from './config.js';
import { hostModels } from './models/host-models.js';
import { pluginSection, unclaimedEnv } from './plugin-config.js';
import type { Identity } from './identity/types.js';
import type { IdentityRegistry } from './identity/registry.js';
import type { Logger } from './logger.js';
import {
  PluginError,
  type ComponentProbe,
  type HostEvents,
  type MetadataReader,
  type PluginDefinition,
  type PluginHost,
  type PluginTasks,
  type Privilege,
  type ReadyCheck,
  type RouteDef,
} from './plugin.js';
import type { Pipeline } from './http/pipeline.js';
import { invoke, type InvokeRequest } from './http/invoke.js';
import type { QueueManager } from './queues/queue.js';
import { QueueRegistry, isPreparedQueueOp, pluginQueues } from './queues/plugin-queues.js';
import type { ClusterStatusSource } from './cluster/cluster-node.js';
import type { Kv } from './storage/kv.js';
import type { TaskManager } from './tasks/task-manager.js';
import type { Vfs } from './vfs/vfs.js';
import { Metrics, type PluginMetrics } from './metrics/registry.js';

export interface HostParts {
  config: CtxConfig;
  log: Logger;
  dataDir: string;
  kv: Kv;
  vfs: Vfs;
  identities: IdentityRegistry;
  tasks: TaskManager;
  queues: QueueManager;
  cluster: ClusterStatusSource;
  pipeline: Pipeline;
  guard: AccessGuard;
  /** Per-account change subscriptions of scoped handles (`vfs.onChange`). */
  feed: ChangeFeed;
  /** Absent only for hosts built without metrics (then `host.metrics` registers into a private registry). */
  metrics?: Metrics;
}

export interface StartedPlugins {
  services: Map<string, { plugin: string; api: unknown }>;
  readyChecks: Array<{ name: string; plugin: string; check: ReadyCheck }>;
  observers: Array<{ name: string; plugin: string; probe: ComponentProbe }>;
  /** onClose hooks in the order they must run (reverse of registration). */
  closeHooks(): Array<{ plugin: string; fn: () => Promise<void> | void }>;
  /** Resolves when no account-deleted handler is running. */
  settle(): Promise<void>;
}

/** Privileges an extra plugin declares that the operator did not grant. */
function ungranted(def: PluginDefinition, builtin: boolean, config: CtxConfig): Privilege[] {
  if (builtin) return [];
  const granted = new Set(config.pluginPrivileges[def.name] ?? []);
  return (def.privileges ?? []).filter((p) => !granted.has(p));
}

export async function startPlugins(parts: HostParts, ordered: PluginDefinition[], builtins: ReadonlySet<PluginDefinition>): Promise<StartedPlugins> {
  const { config, log, kv, vfs, identities, tasks, queues, pipeline, guard, feed } = parts;
  const queueRegistry = new QueueRegistry();
  for (const def of ordered) {
    const missing = ungranted(def, builtins.has(def), config);
    if (missing.length)
      throw new PluginError(
        'CTX_PLUGIN_PRIVILEGE',
        `plugin ${def.name} declares privilege ${missing.join(', ')}, which the operator has not granted (config pluginPrivileges / CTX_PLUGIN_PRIVILEGES)`,
      );
  }

  // Every section is checked before any plugin sets up: a typo fails start-up at once, naming the field.
  const loadedNames = ordered.map((p) => p.name);
  const sections = new Map(ordered.map((def) => [def.name, pluginSection(def, config, loadedNames)]));
  for (const name of Object.keys(config.pluginSections))
    if (!sections.has(name)) log.warn('configuration section of a plugin that is not loaded', { section: `plugins.${name}` });
  for (const variable of unclaimedEnv(config, loadedNames)) log.warn('environment variable of a plugin that is not loaded', { variable });
  const shared = publicConfig(config);
  const models = hostModels(config);
  const services = new Map<string, { plugin: string; api: unknown }>();
  const readyChecks: StartedPlugins['readyChecks'] = [];
  const observers: StartedPlugins['observers'] = [];
  const closeHooks: Array<{ plugin: string; fn: () => Promise<void> | void }> = [];
  const listeners: Array<{ event: 'change' | 'drop'; fn: (ev: never) => void }> = [];
  /** account-deleted handlers still running: shutdown waits for them before storage closes. */
  const cleanups = new Set<Promise<void>>();
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
  const scoped = (identity: Identity) => new ScopedVfs(vfs, guard, identity, { feed });
  // Key material and every write stay with `identity-admin`; a reader sees records, never more.
  const READ_OPS = new Set(['getAccount', 'listAccounts', 'listUsers', 'getUser']);
  const identityReader = (plugin: string): IdentityRegistry =>
    new Proxy(identities, {
      get(target, prop) {
        if (typeof prop === 'string' && READ_OPS.has(prop)) {
          const fn = (target as unknown as Record<string, unknown>)[prop];
          return typeof fn === 'function' ? fn.bind(target) : undefined;
        }
        return () => {
          throw new PluginError('CTX_PLUGIN_PRIVILEGE', `plugin ${plugin} uses identities.${String(prop)} with privilege identity-read only; it needs identity-admin`);
        };
      },
      set: () => false,
    });
  const readyHooks: Array<() => Promise<void> | void> = [];
  // Metadata only, bound methods: the rules' plugin never receives the VFS object itself.
  const metadataReader: MetadataReader = {
    stat: (account, path) => vfs.stat(account, path),
    statMany: (account, paths) => vfs.statMany(account, paths),
    list: (account, path, o) => vfs.list(account, path, o),
    listSubtree: (account, path, limit) => vfs.listSubtree(account, path, limit),
    walk: (account, path, o) => vfs.walk(account, path, o),
  };

  const hostFor = (def: PluginDefinition): PluginHost => {
    const privileges = new Set(def.privileges ?? []);
    const need = (p: Privilege, what: string) => {
      if (!privileges.has(p)) throw new PluginError('CTX_PLUGIN_PRIVILEGE', `plugin ${def.name} uses ${what} without declaring privilege ${p} in definePlugin({ privileges })`);
    };
    const late = (what: string) => {
      if (started) throw new PluginError('CTX_PLUGIN_LATE_REGISTRATION', `plugin ${def.name} tried to ${what} after start-up; register everything in setup()`);
    };
    const deps = dependencyClosure(def.name);
    const ownTypes = new Set<string>();
    const pluginTasks: PluginTasks = {
      create(type, owner, opts) {
        if (!ownTypes.has(type)) throw new PluginError('CTX_PLUGIN_PRIVILEGE', `plugin ${def.name} creates a task of type ${type}, which it did not register`);
        return tasks.create(type, owner, opts);
      },
      async load(id) {
        const t = await tasks.load(id);
        return t && ownTypes.has(t.task_type) ? t : undefined;
      },
      get: (id, who) => tasks.get(id, who),
      list: (who, filter) => tasks.list(who, filter),
      cancel: (id, who) => tasks.cancel(id, who),
    };
    const pluginLog = log.child({ plugin: def.name });
    const ownQueues = pluginQueues(def.name, queues, queueRegistry);
    const ownKv = kv.sub(`p:${def.name}`);
    let pluginMetrics: PluginMetrics | undefined;
    return {
      name: def.name,
      config: shared,
      pluginConfig: sections.get(def.name)!,
      models,
      log: pluginLog,
      kv: ownKv,
      dataDir: parts.dataDir,
      authMode: config.authMode,
      tasks: pluginTasks,
      queues: ownQueues,
      shareQueue(name: string, plugins: string[]) {
        late(`share queue ${name}`);
        queueRegistry.share(def.name, name, plugins);
      },
      onCommit(hook) {
        need('all-account-changes', 'host.onCommit()');
        late('add a commit hook');
        vfs.onCommit((events) => {
          const ops = hook(events);
          // The batch is every account's change: a hook writes its own keyspace, nothing else.
          for (const op of ops)
            if (!op.key.startsWith(ownKv.prefix) && !isPreparedQueueOp(op))
              throw new PluginError('CTX_PLUGIN_PRIVILEGE', `plugin ${def.name}: a commit hook may only add ops of its own host.kv and messages its queues prepared`);
          return ops;
        });
      },
      async ownerVfs(owner) {
        need('owner-views', 'host.ownerVfs()');
        return scoped(await ownerIdentity(identities, owner));
      },
      ownFiles(account: string) {
        need('own-files', 'host.ownFiles()');
        return ownFiles(def.name, def.ownFiles ?? [], vfs, account);
      },
      dropAccountData(account: string) {
        need('identity-admin', 'host.dropAccountData()');
        return vfs.dropAccount(account);
      },
      get locks() {
        need('lock-observer', 'host.locks');
        return { list: () => vfs.locks.list(), get waiting() { return vfs.locks.waiting; } };
      },
      cluster: parts.cluster,
      authenticate: (headers: Record<string, string>) => pipeline.authenticate(headers),
      vfsFor(identity: Identity) {
        if (!isIssuedIdentity(identity)) throw new PluginError('CTX_PLUGIN_PRIVILEGE', `plugin ${def.name}: vfsFor() takes an identity the host issued (ctx.identity or a task's owner), not one built by a plugin`);
        return scoped(identity);
      },
      invoke(identity: Identity, req: InvokeRequest) {
        if (!isIssuedIdentity(identity)) throw new PluginError('CTX_PLUGIN_PRIVILEGE', `plugin ${def.name}: invoke() takes an identity the host issued (ctx.identity or a task's owner), not one built by a plugin`);
        return invoke(pipeline, identity, req);
      },
      access: {
        canReadPath: (identity, path) => guard.canReadPath(identity, path),
        readablePaths: (identity, paths) => guard.readablePaths(identity, paths),
        assertEntryReadable: (identity, path) => guard.assertEntryReadable(identity, path),
        installRules(rules) {
          need('access-rules', 'access.installRules()');
          late('install access rules');
          guard.install(def.name, rules);
        },
        async setEntryMeta(identity, uri, meta) {
          need('access-rules', 'access.setEntryMeta()');
          if (!isIssuedIdentity(identity)) throw new PluginError('CTX_PLUGIN_PRIVILEGE', `plugin ${def.name}: setEntryMeta() takes an identity the host issued`);
          return new ScopedVfs(vfs, guard, identity, { rulesOwner: true }).setMeta(uri, { meta });
        },
        get metadata() {
          need('access-rules', 'access.metadata');
          return metadataReader;
        },
      },
      // Created on first use; metric names are prefixed with the plugin's name (ctx_<plugin>_...).
      get metrics() {
        return (pluginMetrics ??= (parts.metrics ?? new Metrics(false)).forPlugin(def.name));
      },
      get unscopedVfs() {
        need('unscoped-vfs', 'host.unscopedVfs');
        return vfs;
      },
      get identities() {
        if (privileges.has('identity-admin')) return identities;
        if (privileges.has('identity-read')) return identityReader(def.name);
        need('identity-read', 'host.identities');
        return identities;
      },
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
        ownTypes.add(t.type);
        tasks.registerType({
          ...t,
          run: (ctx, input) =>
            t.run(
              Object.assign(Object.create(ctx) as typeof ctx, {
                vfs: async () => scoped(await ownerIdentity(identities, ctx.task.owner)),
              }),
              input,
            ),
        });
      },
      consume(queue, consumer, o) {
        late(`consume queue ${queue}`);
        ownQueues.consume(queue, consumer, o);
      },
      on(event, fn) {
        late(`subscribe to ${event}`);
        let vfsEvent: 'change' | 'drop';
        let registered: (...args: any[]) => void; // eslint-disable-line @typescript-eslint/no-explicit-any
        if (event === 'change') {
          need('all-account-changes', "host.on('change') (every account's changes; a scoped handle's onChange follows one account)");
          vfsEvent = 'change';
          registered = fn as (ev: HostEvents['change']) => void;
        } else if (event === 'account-deleted') {
          vfsEvent = 'drop';
          registered = ((account: string) => {
            const p: Promise<void> = Promise.resolve()
              .then(() => (fn as (ev: HostEvents['account-deleted']) => void | Promise<void>)({ account }))
              .catch((err) => pluginLog.error('account-deleted handler failed', { account, error: err }))
              .finally(() => cleanups.delete(p));
            cleanups.add(p);
          });
        } else throw new PluginError('CTX_PLUGIN_INVALID', `plugin ${def.name} subscribes to unknown host event ${JSON.stringify(event)}`);
        vfs.on(vfsEvent, registered);
        listeners.push({ event: vfsEvent, fn: registered });
      },
      onReady(fn) {
        late('add an onReady hook');
        readyHooks.push(fn);
      },
      onClose(fn) {
        late('add an onClose hook');
        closeHooks.push({ plugin: def.name, fn });
      },
      readyCheck(name, check) {
        late(`add ready check ${name}`);
        const taken = readyChecks.find((c) => c.name === name);
        if (taken) throw new PluginError('CTX_PLUGIN_DUPLICATE', `plugin ${def.name} adds ready check ${name}, already added by plugin ${taken.plugin}`);
        readyChecks.push({ name, plugin: def.name, check });
      },
      readyChecks: () => readyChecks,
      observer(name, probe) {
        late(`add observer ${name}`);
        const taken = observers.find((o) => o.name === name);
        if (taken) throw new PluginError('CTX_PLUGIN_DUPLICATE', `plugin ${def.name} adds observer ${name}, already added by plugin ${taken.plugin}`);
        observers.push({ name, plugin: def.name, probe });
      },
      observers: () => observers,
    } as PluginHost;
  };

  const closeInReverse = () => closeHooks.slice().reverse();
  try {
    const trace = config.startupTrace ? (step: string, since: number) => log.info('start-up step', { step, ms: Math.round((performance.now() - since) * 10) / 10 }) : undefined;
    for (const def of ordered) {
      const timeoutMs = def.bootTimeoutMs ?? 10_000;
      const t0 = performance.now();
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          Promise.resolve().then(() => def.setup(hostFor(def))),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new PluginError('CTX_PLUGIN_BOOT_TIMEOUT', `plugin ${def.name} did not finish setup within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      } catch (err) {
        if (err instanceof PluginError) throw err;
        throw new PluginError('CTX_PLUGIN_SETUP_FAILED', `plugin ${def.name} failed to set up: ${(err as Error)?.message ?? String(err)}`, { cause: err });
      } finally {
        clearTimeout(timer);
      }
      trace?.(`setup ${def.name}`, t0);
    }
    started = true;
    let t0 = performance.now();
    await tasks.start();
    trace?.('tasks start', t0);
    t0 = performance.now();
    for (const fn of readyHooks) await fn();
    trace?.('onReady hooks', t0);
  } catch (err) {
    // Whatever set up before the failure is closed, newest first, so a failed start leaks no
    // timers, workers or open files and the operator can retry in the same process.
    for (const { plugin, fn } of closeInReverse()) {
      try {
        await fn();
      } catch (closeErr) {
        log.error('onClose hook failed after a failed start', { plugin, error: closeErr });
      }
    }
    for (const { event, fn } of listeners) vfs.off(event, fn as never);
    throw err;
  }
  return {
    services,
    readyChecks,
    observers,
    closeHooks: closeInReverse,
    async settle() {
      while (cleanups.size) await Promise.all([...cleanups]);
    },
  };
}

/** A task owner as an identity with their current role (USER when no longer registered). */
async function ownerIdentity(identities: IdentityRegistry, owner: { account_id: string; user_id: string }): Promise<Identity> {
  const users = await identities.listUsers(owner.account_id).catch(() => []);
  const user = users.find((u) => u.user_id === owner.user_id);
  return issueIdentity({ accountId: owner.account_id, userId: owner.user_id, role: user?.role ?? 'USER' });
}
