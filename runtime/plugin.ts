/**
 * The plugin API (public: third parties write plugins against it; see docs/plugins.md).
 * A plugin is `definePlugin({name, version, dependsOn?, setup(host)})`. In `setup` it registers
 * routes, provides and uses services, task types, queue consumers and lifecycle hooks. The loader
 * checks metadata at load time and fails start-up with a coded error naming both plugins.
 */
import type { CtxConfig } from './config.js';
import type { Identity, Role } from './identity/types.js';
import type { IdentityRegistry } from './identity/registry.js';
import type { Logger } from './logger.js';
import type { ConsumerOptions, Consumer, QueueManager } from './queues/queue.js';
import type { Schema } from './schema.js';
import type { Kv } from './storage/kv.js';
import type { TaskManager, TaskTypeDef } from './tasks/task-manager.js';
import type { Vfs } from './vfs/vfs.js';
import type { Reply } from './http/reply.js';

/** Services plugins provide to each other. Plugins extend it: `declare module '../../runtime/plugin.js' { interface Services { x: X } }`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Services {}

export type AuthRequirement = 'none' | 'optional' | 'required';

export interface RequestInfo {
  id: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  remoteAddress: string;
  rawBody: Buffer;
}

export interface RouteContext<B = unknown, Q = unknown> {
  req: RequestInfo;
  params: Record<string, string>;
  query: Q;
  body: B;
  /** Set unless the route has `auth: 'none'` (or `optional` without valid credentials). */
  identity: Identity;
  /**
   * The request presented credentials (a key, or identity headers in trusted mode), valid or not:
   * lets an `auth: 'optional'` route tell a bad key from none without reading auth headers.
   */
  readonly credentialsSupplied: boolean;
  signal: AbortSignal;
  log: Logger;
  /** HTTP status for the envelope response (default 200). */
  status(code: number): void;
  header(name: string, value: string): void;
  /** Adds a line to `profile` (when the request asked for it and profiling is enabled). */
  mark(label: string): void;
}

export interface RouteDef<B = unknown, Q = unknown> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** Default 'required'. */
  auth?: AuthRequirement;
  roles?: Role[];
  body?: Schema<B>;
  query?: Schema<Q>;
  /** Skip JSON parsing (multipart, raw uploads). */
  rawBody?: boolean;
  /**
   * Parses the JSON body in place of `JSON.parse` (a route with bulk payloads, e.g. batch-write
   * keeping file contents as slices of `req.rawBody`); must throw what `JSON.parse` throws.
   */
  parseJson?: (raw: Buffer) => unknown;
  bodyLimit?: number;
  summary?: string;
  handler(ctx: RouteContext<B, Q>): Promise<unknown | Reply> | unknown | Reply;
}

export interface PluginHost {
  readonly name: string;
  readonly config: Readonly<CtxConfig>;
  readonly log: Logger;
  /** This plugin's own keyspace. */
  readonly kv: Kv;
  readonly vfs: Vfs;
  readonly tasks: TaskManager;
  readonly queues: QueueManager;
  readonly identities: IdentityRegistry;
  readonly dataDir: string;
  route<B, Q>(def: RouteDef<B, Q>): void;
  provide<K extends keyof Services>(name: K, api: Services[K]): void;
  provide(name: string, api: unknown): void;
  use<K extends keyof Services>(name: K): Services[K];
  use<T = unknown>(name: string): T;
  has(name: string): boolean;
  /**
   * A service of a plugin this one does not depend on, or undefined when that plugin is not loaded.
   * Call it at request time, not in setup (the provider may set up later).
   */
  optional<K extends keyof Services>(name: K): Services[K] | undefined;
  optional<T = unknown>(name: string): T | undefined;
  taskType(def: TaskTypeDef): void;
  consume<P>(queue: string, consumer: Consumer<P>, opts?: ConsumerOptions): void;
  onReady(fn: () => Promise<void> | void): void;
  onClose(fn: () => Promise<void> | void): void;
  /** Readiness checks shown by `/ready`: return 'ok', 'not_configured', or throw. */
  readyCheck(name: string, fn: () => Promise<string> | string): void;
  /** Every registered readiness check (read by the system plugin's `/ready`). */
  readonly readyChecks: ReadonlyMap<string, () => Promise<string> | string>;
  /** Liveness of the whole app, for health endpoints. */
  readonly authMode: string;
}

export interface PluginDefinition {
  name: string;
  version: string;
  dependsOn?: string[];
  /** Milliseconds setup may take before start-up fails naming this plugin. Default 10 s. */
  bootTimeoutMs?: number;
  setup(host: PluginHost): Promise<void> | void;
}

const PLUGIN_NAME = /^[a-z][a-z0-9-]{0,63}$/;

export function definePlugin(def: PluginDefinition): PluginDefinition {
  if (!PLUGIN_NAME.test(def.name)) throw new PluginError('CTX_PLUGIN_INVALID', `plugin name must be kebab-case: ${JSON.stringify(def.name)}`);
  if (typeof def.setup !== 'function') throw new PluginError('CTX_PLUGIN_INVALID', `plugin ${def.name} has no setup function`);
  return Object.freeze({ ...def });
}

export type PluginErrorCode =
  | 'CTX_PLUGIN_INVALID'
  | 'CTX_PLUGIN_MISSING_DEPENDENCY'
  | 'CTX_PLUGIN_DEPENDENCY_CYCLE'
  | 'CTX_PLUGIN_DUPLICATE'
  | 'CTX_PLUGIN_DUPLICATE_SERVICE'
  | 'CTX_PLUGIN_MISSING_SERVICE'
  | 'CTX_PLUGIN_LATE_REGISTRATION'
  | 'CTX_PLUGIN_BOOT_TIMEOUT'
  | 'CTX_PLUGIN_LOAD_FAILED'
  | 'CTX_DUPLICATE_ROUTE';

export class PluginError extends Error {
  constructor(readonly code: PluginErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PluginError';
  }
}

/** Orders plugins so each comes after its dependencies; errors name the plugin and what it lacks. */
export function orderPlugins(plugins: PluginDefinition[]): PluginDefinition[] {
  const byName = new Map<string, PluginDefinition>();
  for (const p of plugins) {
    if (byName.has(p.name)) throw new PluginError('CTX_PLUGIN_DUPLICATE', `plugin ${p.name} is registered twice`);
    byName.set(p.name, p);
  }
  for (const p of plugins)
    for (const dep of p.dependsOn ?? [])
      if (!byName.has(dep)) throw new PluginError('CTX_PLUGIN_MISSING_DEPENDENCY', `plugin ${p.name} depends on plugin ${dep}, which is not loaded`);
  const ordered: PluginDefinition[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: PluginDefinition, trail: string[]) => {
    const s = state.get(p.name);
    if (s === 'done') return;
    if (s === 'visiting') throw new PluginError('CTX_PLUGIN_DEPENDENCY_CYCLE', `plugin dependency cycle: ${[...trail, p.name].join(' -> ')}`);
    state.set(p.name, 'visiting');
    for (const dep of p.dependsOn ?? []) visit(byName.get(dep)!, [...trail, p.name]);
    state.set(p.name, 'done');
    ordered.push(p);
  };
  for (const p of plugins) visit(p, []);
  return ordered;
}
