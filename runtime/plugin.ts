/**
 * The plugin API (public: third parties write plugins against it; see docs/plugins.md).
 * A plugin is `definePlugin({name, version, dependsOn?, setup(host)})`. In `setup` it registers
 * routes, provides and uses services, task types, queue consumers and lifecycle hooks. The loader
 * checks metadata at load time and fails start-up with a coded error naming both plugins.
 */
import semver from 'semver';
import type { EntryRules } from './access/guard.js';
import type { InvokeRequest } from './http/invoke.js';
import type { ScopedVfs } from './access/scoped-vfs.js';
import type { OwnFiles } from './access/own-files.js';
import type { PublicConfig } from './config.js';
import type { ClusterStatusSource } from './cluster/cluster-node.js';
import type { Identity, Role } from './identity/types.js';
import type { IdentityRegistry } from './identity/registry.js';
import type { Logger } from './logger.js';
import type { ConsumerOptions, Consumer } from './queues/queue.js';
import type { PluginQueues } from './queues/plugin-queues.js';
import type { KvOp } from './storage/backend.js';
import type { Entry } from './vfs/types.js';
import type { LockKind } from './vfs/locks.js';
import { ObjectSchema, type Schema } from './schema.js';
import type { HostModels } from './models/host-models.js';
import { PLUGIN_API_VERSION, VERSION } from './version.js';
import type { Kv } from './storage/kv.js';
import type { TaskContext, TaskManager, TaskRecord, TaskTypeDef } from './tasks/task-manager.js';
import type { ChangeEvent } from './vfs/types.js';
import type { Vfs } from './vfs/vfs.js';
import type { Reply } from './http/reply.js';
import type { ErrorCode } from './errors.js';
import type { PluginMetrics } from './metrics/registry.js';
import type { PluginTracing } from './tracing/tracing.js';

import type { Services } from './sdk/index.js';
export type { Services };

export type AuthRequirement = 'none' | 'optional' | 'required';

/**
 * What a plugin may do beyond the default, scoped surface. Built-in plugins are trusted; an extra
 * plugin's privileges must also be granted by the operator (`pluginPrivileges` in the config), or
 * start-up fails naming the plugin and the privilege. `PRIVILEGE_INFO` says what each gives; the
 * table in docs/plugins.md is generated from it and from the built-ins' `privilegeReasons`.
 */
export type Privilege = 'unscoped-vfs' | 'all-account-changes' | 'own-files' | 'owner-views' | 'access-rules' | 'identity-read' | 'identity-admin' | 'lock-observer';

export const PRIVILEGE_INFO: Readonly<Record<Privilege, string>> = {
  'unscoped-vfs': '`host.unscopedVfs`, the raw VFS of every account (`account, path` parameters, content, writes, locks, commit hooks). The escape hatch: the plugin applies access rules itself.',
  'all-account-changes': "`host.on('change')` with every account's changes, and `host.onCommit(hook)`: the plugin's own KV ops in the batch of every account's change. Without it a plugin follows changes per account through a scoped handle (`vfs.onChange`), as someone who may read them.",
  'own-files': '`host.ownFiles(account)`: read, write, remove and lock the files named in the plugin\'s `ownFiles` in any account, and stat any node (metadata only), for upkeep with no caller.',
  'owner-views': '`host.ownerVfs({account_id, user_id})`: the scoped view of a registered user, with their current role, for work done on their behalf with no request (what a task\'s `ctx.vfs()` gives its owner).',
  'access-rules': '`host.access.installRules(rules)` (once per host), `host.access.setEntryMeta` (the reader-list metadata the rules read) and `host.access.metadata` (node metadata of every account: never content, never writes).',
  'identity-read': '`host.identities`: `getAccount`, `getUser`, `listAccounts`, `listUsers` (records, never keys).',
  'identity-admin': 'all of the identity registry (create and delete accounts and users, roles, keys) and `host.dropAccountData(account)`.',
  'lock-observer': "`host.locks`: the locks held in every account (account, path, kind, owner, age) and the number waiting; read only.",
};
export const PRIVILEGES = Object.keys(PRIVILEGE_INFO) as readonly Privilege[];

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
   * The VFS as this request's caller may see it (namespace and per-entry rules applied to every
   * call; no other account reachable). Throws 401 on a route without an identity.
   */
  readonly vfs: ScopedVfs;
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
  /**
   * 'always': the success and error envelopes carry `telemetry.operation_id` even when the request
   * did not ask for it (routes whose spec row lists it in the envelope, e.g. pack import).
   */
  telemetry?: 'always';
  /**
   * What the route is, for `GET /api/v1/openapi.json` (runtime/http/openapi.ts): every field below
   * is documentation only, never checked per request. A test fails when a built-in route lacks a
   * summary, a request schema for input it reads, or a response.
   */
  summary?: string;
  description?: string;
  /** OpenAPI tags; default: the plugin's name. */
  tags?: string[];
  /** The success envelope's `result` (`{status:'ok', result, time}`). */
  response?: Schema<unknown>;
  /** A handler that returns a `Reply`: its content type and, for JSON without the envelope, the body. */
  reply?: { contentType: string; schema?: Schema<unknown>; description?: string };
  /** What each path parameter accepts (documentation: the handler checks them with its own messages). */
  params?: Record<string, Schema<unknown>>;
  /** A retired route kept to tell old clients where to go (OpenAPI `deprecated`). */
  deprecated?: boolean;
  /** The content type of a `rawBody` request (e.g. multipart/form-data). */
  bodyType?: string;
  /** Success status when not 200 (e.g. 201). */
  successStatus?: number;
  /**
   * Error codes the route answers beyond those the host adds from its definition (UNAUTHENTICATED
   * when auth is required, PERMISSION_DENIED with roles, INVALID_ARGUMENT with a schema,
   * PAYLOAD_TOO_LARGE and UNSUPPORTED_MEDIA_TYPE with a body, UNAVAILABLE and INTERNAL always).
   */
  errors?: ErrorCode[];
  handler(ctx: RouteContext<B, Q>): Promise<unknown | Reply> | unknown | Reply;
}

/** A background task's context as the host hands it to a plugin's task type. */
export interface PluginTaskContext extends TaskContext {
  /** The VFS as the task's owner may see it (their current role, looked up when the task runs). */
  vfs(): Promise<ScopedVfs>;
}

export interface PluginTaskTypeDef extends Omit<TaskTypeDef, 'run'> {
  run(ctx: PluginTaskContext, input: unknown): Promise<Record<string, unknown> | void>;
}

/**
 * Tasks as a plugin sees them: `get`/`list`/`cancel` answer for the caller (ownership checked by
 * the task manager, as the tasks routes do); `create` and `load` only for task types this plugin
 * registered, so one plugin cannot read another's task inputs and results.
 */
export interface PluginTasks {
  create(type: string, owner: Identity, opts?: Parameters<TaskManager['create']>[2]): Promise<TaskRecord>;
  load(id: string): Promise<TaskRecord | undefined>;
  get(id: string, who: Identity): Promise<TaskRecord>;
  list(who: Identity, filter: Parameters<TaskManager['list']>[1]): Promise<TaskRecord[]>;
  cancel(id: string, who: Identity): Promise<TaskRecord>;
}

/** Host events a plugin may subscribe to (typed). */
export interface HostEvents {
  /** A VFS change of any account, after its batch is durable (privilege `all-account-changes`). Carries paths, never content. */
  change: ChangeEvent;
  /** An account and all its data were deleted: drop whatever the plugin keeps for it. */
  'account-deleted': { account: string };
}

/** Access checks any plugin may ask (read-only; the rules come from the plugin that installs them). */
export interface AccessFacility {
  /** Namespace and per-entry rules for an internal path (search hits, relation targets...). */
  canReadPath(identity: Identity, path: string): Promise<boolean>;
  readablePaths(identity: Identity, paths: string[]): Promise<boolean[]>;
  /** Throws 403 when `path` or an ancestor is not readable by `identity`. */
  assertEntryReadable(identity: Identity, path: string): Promise<void>;
  /** Installs the per-entry rules (privilege `access-rules`; once per host). */
  installRules(rules: EntryRules): void;
  /**
   * Writes the metadata keys the rules own (`EntryRules.metaKeys`, e.g. reader lists) on `uri`,
   * with `identity`'s write access checked as a scoped `setMeta` (privilege `access-rules`).
   */
  setEntryMeta(identity: Identity, uri: string, meta: Record<string, unknown>): Promise<Entry>;
  /** Node metadata of any account, to evaluate the rules (privilege `access-rules`): never content, never writes. */
  readonly metadata: MetadataReader;
}

/** Raw node metadata, for the plugin that evaluates the access rules (see Vfs for each call). */
export interface MetadataReader {
  stat(account: string, path: string): Promise<Entry | null>;
  statMany(account: string, paths: string[]): Promise<(Entry | null)[]>;
  list(account: string, path: string, opts?: { after?: string; limit?: number }): Promise<Entry[]>;
  listSubtree(account: string, path: string, limit: number): Promise<{ groups: Map<string, Entry[]>; complete: boolean }>;
  walk(account: string, path: string, opts?: { maxDepth?: number; descend?: (e: Entry) => boolean }): AsyncIterable<Entry & { depth: number }>;
}

/** The locks held in every account (privilege `lock-observer`). */
export interface LockObserver {
  list(): Array<{ account: string; path: string; kind: LockKind; owner?: string; heldMs: number }>;
  readonly waiting: number;
}

/** Observer components (spec "Observer and health shapes"), a host facility every plugin may add to. */
export interface ComponentStatus {
  name: string;
  is_healthy: boolean;
  has_errors: boolean;
  status: string;
}
export type ComponentProbe = () => Promise<ComponentStatus> | ComponentStatus;
export type ReadyCheck = () => Promise<string> | string;

/** Read accounts and users (privilege `identity-read`). */
export type IdentityReader = Pick<IdentityRegistry, 'getAccount' | 'listAccounts' | 'listUsers'>;
/** Full account/user administration (privilege `identity-admin`). */
export type IdentityAdmin = IdentityRegistry;

/** What a plugin's `config` schema accepts: its section's fields. */
export type PluginConfig = Record<string, unknown>;

export interface PluginHost<C extends PluginConfig = PluginConfig> {
  readonly name: string;
  /** The server's configuration without any secret (runtime/config.ts `SECRET_FIELDS`) or any plugin's section. */
  readonly config: Readonly<PublicConfig>;
  /**
   * This plugin's own section (`plugins.<name>` in the config file, `CTX_PLUGIN_<NAME>_<KEY>` in
   * the environment), validated at start-up by `definePlugin({ config })`; `{}` without a schema.
   */
  readonly pluginConfig: Readonly<C>;
  /** The configured model clients; their keys stay inside them. */
  readonly models: HostModels;
  readonly log: Logger;
  /** This plugin's own keyspace (no other plugin reads it). */
  readonly kv: Kv;
  /**
   * The identity behind credentials that arrived on a transport the plugin serves itself (gRPC
   * metadata): the same rules as an HTTP request's (`x-api-key`, `authorization`, `x-ctx-*`, by
   * auth mode; lower-case names). Rejects UNAUTHENTICATED; the identity works with `vfsFor`.
   */
  authenticate(headers: Record<string, string>): Promise<Identity>;
  /** The VFS as `identity` may see it; `identity` must come from the host (a request or a task). */
  vfsFor(identity: Identity): ScopedVfs;
  /**
   * Calls a route in process as `identity` (one the host issued): role check, schema validation,
   * handler and envelope exactly as over HTTP. Resolves with the envelope's `result` (or an
   * `InvokeReply` for a route answering without the envelope); rejects with the route's `CtxError`.
   */
  invoke(identity: Identity, req: InvokeRequest): Promise<unknown>;
  /** Access checks for what a plugin shows from elsewhere (index hits, relation targets). */
  readonly access: AccessFacility;
  /** The raw VFS of every account: privilege `unscoped-vfs` (throws without it). */
  readonly unscopedVfs: Vfs;
  /** Identity operations: `identity-read` gives the reader, `identity-admin` everything (throws without). */
  readonly identities: IdentityAdmin;
  /**
   * The scoped view of a registered user with their current role, for background work on their
   * behalf (privilege `owner-views`); a user the registry does not know (trusted mode) is a USER.
   */
  ownerVfs(owner: { account_id: string; user_id: string }): Promise<ScopedVfs>;
  /** This plugin's own files (`ownFiles`) in `account`, for upkeep with no caller (privilege `own-files`). */
  ownFiles(account: string): OwnFiles;
  /** Account data deletion with the account (privilege `identity-admin`): every VFS node of `account`. */
  dropAccountData(account: string): Promise<number>;
  /** Held locks of every account (privilege `lock-observer`). */
  readonly locks: LockObserver;
  readonly tasks: PluginTasks;
  /** This plugin's own queues, and those other plugins shared with it (see `shareQueue`). */
  readonly queues: PluginQueues;
  /** Lets `plugins` use queue `name`, which this plugin owns (enqueue, consume, counts, dead letters). */
  shareQueue(name: string, plugins: string[]): void;
  /**
   * Adds this plugin's own KV ops (`host.kv` ops only) to the atomic batch of every account's VFS
   * change, e.g. an index that must never miss a change (privilege `all-account-changes`).
   */
  onCommit(hook: (events: ChangeEvent[]) => KvOp[]): void;
  /** Cluster mode's membership and placement, read-only (`{mode: 'single'}` on one node). */
  readonly cluster: ClusterStatusSource;
  readonly dataDir: string;
  /**
   * This plugin's own Prometheus metrics, served by `GET /metrics`: `counter`, `gauge`, `histogram`,
   * named `ctx_<plugin>_<name>` (dashes become underscores). Label names that would carry an id or
   * a URI (`account`, `user_id`, `uri`, `path`, ...) are refused, and so are `ctx://` label values.
   */
  readonly metrics: PluginMetrics;
  /**
   * Continue a caller's W3C trace for work arriving through the plugin's own listener (a gRPC
   * service, a socket): `run(name, {kind, traceparent, attributes}, fn)`. Requests through the
   * host's routes, tasks and queue work are traced by the host already.
   */
  readonly tracing: PluginTracing;
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
  taskType(def: PluginTaskTypeDef): void;
  consume<P>(queue: string, consumer: Consumer<P>, opts?: ConsumerOptions): void;
  /**
   * Subscribes to a host event. `change` carries every account's changes, so it needs privilege
   * `all-account-changes` (without it, subscribe per account with a scoped handle's `onChange`). An
   * `account-deleted` handler may return a promise: the host logs its failure and waits for it on
   * shutdown (its cleanup never races the storage closing).
   */
  on<E extends keyof HostEvents>(event: E, fn: (ev: HostEvents[E]) => void | Promise<void>): void;
  onReady(fn: () => Promise<void> | void): void;
  onClose(fn: () => Promise<void> | void): void;
  /** A line in `GET /ready`: return 'ok', 'not_configured', or throw. Names are unique across plugins. */
  readyCheck(name: string, fn: ReadyCheck): void;
  /** Every readiness check, in registration order, with the plugin that owns it. */
  readyChecks(): ReadonlyArray<{ name: string; plugin: string; check: ReadyCheck }>;
  /** An observer component (`GET /api/v1/observer/{name}`). Names are unique across plugins. */
  observer(name: string, probe: ComponentProbe): void;
  observers(): ReadonlyArray<{ name: string; plugin: string; probe: ComponentProbe }>;
  readonly authMode: string;
}

export interface PluginDefinition<C extends PluginConfig = PluginConfig> {
  name: string;
  version: string;
  /**
   * The host plugin API versions this plugin works with, a semver range (`'^1.0.0'`); a host whose
   * `PLUGIN_API_VERSION` is outside it refuses to start (`CTX_PLUGIN_API_VERSION`).
   */
  hostApi?: string;
  /** Its configuration section's schema (`s.object({...})`), checked at start-up: see `PluginHost.pluginConfig`. */
  config?: Schema<C>;
  dependsOn?: string[];
  /** Milliseconds setup may take before start-up fails naming this plugin. Default 10 s. */
  bootTimeoutMs?: number;
  /** What this plugin needs beyond the scoped surface (see `Privilege`). */
  privileges?: Privilege[];
  /**
   * Why, per declared privilege: shown in the generated privilege table of docs/plugins.md (a
   * built-in plugin must give one for each; review it like an `unsafe` block).
   */
  privilegeReasons?: Partial<Record<Privilege, string>>;
  /** File names this plugin owns in every directory (its sidecars), for `host.ownFiles` (privilege `own-files`). */
  ownFiles?: string[];
  setup(host: PluginHost<C>): Promise<void> | void;
}

const PLUGIN_NAME = /^[a-z][a-z0-9-]{0,63}$/;
/** Marks what `definePlugin` returned; `Symbol.for` so the mark survives a second copy of this module. */
const DEFINED = Symbol.for('ctx.plugin-definition');

export function definePlugin<C extends PluginConfig = PluginConfig>(def: PluginDefinition<C>): PluginDefinition<C> {
  if (!def || typeof def !== 'object') throw new PluginError('CTX_PLUGIN_INVALID', 'definePlugin expects an object');
  if (!PLUGIN_NAME.test(def.name)) throw new PluginError('CTX_PLUGIN_INVALID', `plugin name must be kebab-case: ${JSON.stringify(def.name)}`);
  // `plugins.load` in the config file is the list of plugins to load, not a section.
  if (def.name === 'load') throw new PluginError('CTX_PLUGIN_INVALID', 'plugin name load is reserved (plugins.load in the config file lists the plugins to load)');
  if (typeof def.setup !== 'function') throw new PluginError('CTX_PLUGIN_INVALID', `plugin ${def.name} has no setup function`);
  for (const p of def.privileges ?? [])
    if (!PRIVILEGES.includes(p)) throw new PluginError('CTX_PLUGIN_INVALID', `plugin ${def.name} declares unknown privilege ${JSON.stringify(p)} (known: ${PRIVILEGES.join(', ')})`);
  for (const p of Object.keys(def.privilegeReasons ?? {}))
    if (!def.privileges?.includes(p as Privilege)) throw new PluginError('CTX_PLUGIN_INVALID', `plugin ${def.name} gives a reason for privilege ${p}, which it does not declare`);
  if (def.hostApi !== undefined && (typeof def.hostApi !== 'string' || semver.validRange(def.hostApi) === null))
    throw new PluginError('CTX_PLUGIN_INVALID', `plugin ${def.name} declares hostApi ${JSON.stringify(def.hostApi)}, which is not a semver range (e.g. '^1.0.0')`);
  if (def.config !== undefined && !(def.config instanceof ObjectSchema))
    throw new PluginError('CTX_PLUGIN_INVALID', `plugin ${def.name}: config must be an object schema, s.object({...})`);
  return Object.freeze({ ...def, [DEFINED]: true });
}

/** Whether `value` came from `definePlugin` (the loader's test for "is this module a plugin"). */
export function isPluginDefinition(value: unknown): value is PluginDefinition {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DEFINED] === true;
}

/** Refuses a plugin whose `hostApi` range excludes this host's plugin API, naming both versions. */
export function checkHostApi(def: PluginDefinition): void {
  if (def.hostApi === undefined || semver.satisfies(PLUGIN_API_VERSION, def.hostApi)) return;
  throw new PluginError(
    'CTX_PLUGIN_API_VERSION',
    `plugin ${def.name} ${def.version} supports host plugin API ${def.hostApi}, but this host (ctx ${VERSION}) implements plugin API ${PLUGIN_API_VERSION}; install a version of the plugin built for plugin API ${semver.major(PLUGIN_API_VERSION)}.x`,
  );
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
  | 'CTX_PLUGIN_NOT_FOUND'
  | 'CTX_PLUGIN_API_VERSION'
  | 'CTX_PLUGIN_CONFIG'
  | 'CTX_PLUGIN_PRIVILEGE'
  | 'CTX_PLUGIN_SETUP_FAILED'
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
    checkHostApi(p);
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
