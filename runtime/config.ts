/**
 * Configuration: embedded defaults < `ctx.config.json` (path from CTX_CONFIG) < environment variables.
 * Every key of the file has an environment variable (DESIGN.md, "Configuration contract").
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LogLevel } from './logger.js';
import { tracesUrl } from './tracing/otel.js';

export type AuthMode = 'api_key' | 'trusted' | 'dev';

export interface CtxConfig {
  host: string;
  port: number;
  dataDir: string;
  rootApiKey?: string;
  authMode: AuthMode;
  embedding: { provider: 'local' | 'neural' | 'openai'; baseUrl?: string; model?: string; apiKey?: string; dim?: number; modelDir?: string };
  rerank: { baseUrl?: string; model?: string; apiKey?: string };
  llm: { baseUrl?: string; model?: string; apiKey?: string };
  botEnabled: boolean;
  gateway: { url?: string; adminToken?: string };
  executionBackendUrl?: string;
  /** Sent as `X-Gateway-Token` (gRPC `x-gateway-token`) to the execution backend when set; never logged. */
  executionBackendGatewayToken?: string;
  grpcPort: number;
  profiling: boolean;
  /** Log each start-up step's milliseconds (CTX_STARTUP_TRACE): storage, every plugin's setup, onReady hooks. */
  startupTrace: boolean;
  /** Memory bounds (docs/configuration.md, "Memory"): RocksDB memtable size and block cache, MiB; VFS metadata cache, entries. */
  rocksdbWriteBufferMb: number;
  rocksdbBlockCacheMb: number;
  vfsMetaCacheEntries: number;
  /** One full GC this long after a burst of queue work drained, ms; 0 = off (runtime/queues/idle-gc.ts). */
  idleGcMs: number;
  logLevel: LogLevel;
  accessLog: boolean;
  /** Largest JSON body accepted, bytes. Batch write allows 16 MiB of content, which base64 inflates. */
  maxJsonBodyBytes: number;
  /** Largest multipart upload accepted, bytes. */
  maxUploadBytes: number;
  /** Completed, failed and cancelled tasks are kept this long. */
  taskRetentionHours: number;
  tempFileTtlMinutes: number;
  /**
   * Host directories `POST /api/v1/resources` may read a local `path` from (absolute; resolved
   * with symlinks). Empty (the default) refuses every host-local path: a request must not read the
   * server's disk unless the operator says where. Env `CTX_IMPORT_ROOTS=/srv/docs,/data/repos`.
   */
  importRoots: string[];
  /**
   * Lets `POST /api/v1/resources` fetch and clone from private, loopback and link-local addresses.
   * Off by default: a user could otherwise make the server read its own network. Env
   * `CTX_IMPORT_ALLOW_PRIVATE=true` (tests, or a deployment whose sources live on its LAN).
   */
  importAllowPrivate: boolean;
  /** Live vector records above which the index becomes an HNSW graph (docs/vector-index.md). */
  vectorFlatThreshold: number;
  /**
   * Extra plugins: paths (relative to the config file, or to the working directory from the
   * environment) or package names (resolved from `configDir`, then the working directory). The file
   * takes `"plugins": [...]` or, with sections, `"plugins": {"load": [...], "<name>": {...}}`.
   */
  plugins: string[];
  /**
   * Each plugin's own section (`plugins.<name>` in the file's object form), validated by the schema
   * the plugin declares and handed only to it (`host.pluginConfig`). Never in `host.config`.
   */
  pluginSections: Record<string, Record<string, unknown>>;
  /** `CTX_PLUGIN_<NAME>_<KEY>` variables, matched to a plugin's schema when it loads (runtime/plugin-config.ts). */
  pluginEnv: Record<string, string>;
  /** The directory of the config file, when there is one: package names in `plugins` resolve from it first. */
  configDir?: string;
  /**
   * Privileges granted to extra plugins, by plugin name (`{"my-plugin": ["identity-read"]}`); env
   * `CTX_PLUGIN_PRIVILEGES=my-plugin=identity-read+unscoped-vfs,other=identity-read`. Built-in
   * plugins need no grant.
   */
  pluginPrivileges: Record<string, string[]>;
  shutdownTimeoutMs: number;
  /**
   * On SIGTERM, how long `/ready` answers 503 before the listener closes (a load balancer's probe
   * interval: it stops sending new requests before they would be refused). Env `CTX_SHUTDOWN_DELAY_MS`.
   */
  shutdownDelayMs: number;
  /** `GET /metrics`: `off`, `loopback` (only from 127.0.0.0/8 and ::1), or `token` (`Authorization: Bearer <metricsToken>`). */
  metrics: 'off' | 'loopback' | 'token';
  metricsToken?: string;
  /** Adds an `account` label to the HTTP request counter (small deployments only: one series set per account). */
  metricsAccountLabel: boolean;
  /** W3C trace context on requests, tasks and queue work, trace ids in logs. Env `CTX_TRACING`. */
  tracing: boolean;
  /** OTLP/HTTP traces endpoint (from `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`); unset = no spans exported. */
  otlpTracesUrl?: string;
  /** PEM files for the gRPC server: certificate chain and key; `clientCa` turns on mutual TLS. */
  grpcTls: { cert?: string; key?: string; clientCa?: string };
  /** PEM files for HTTPS on the HTTP port (uWS SSLApp). */
  tls: { cert?: string; key?: string };
  /**
   * Cluster mode (docs/scale-out.md): on when `nats` is non-empty (`CTX_CLUSTER_NATS`); absent or
   * empty is the single-node server, unchanged.
   */
  cluster: ClusterConfig;
}

export interface ClusterConfig {
  /** NATS URLs (`CTX_CLUSTER_NATS=nats://a:4222,nats://b:4222`); empty = single node. */
  nats: string[];
  /** Default: an id generated once and kept in `<data dir>/node-id`. */
  nodeId?: string;
  shards: number;
  replicas: number;
  /** The URL other nodes forward to; default `http://<host>:<port>`. */
  advertiseUrl?: string;
  /** Membership heartbeat; a peer silent for 3 heartbeats is gone. */
  heartbeatMs: number;
  /** How long a start-up waits for NATS (and JetStream) before refusing to start. */
  connectTimeoutMs: number;
  /** Signs the caller's identity on requests between nodes; default: derived from the root key. */
  secret?: string;
  /** A shard's leader snapshots it (and truncates its stream) every this many records; 0 = never. */
  snapshotRecords: number;
  /** Logs every write's and appended record's per-phase timing (docs/scale-out.md, "What a write costs"). */
  trace?: boolean;
}

export const DEFAULTS: CtxConfig = {
  host: '127.0.0.1',
  port: 1933,
  dataDir: './data',
  authMode: 'api_key',
  embedding: { provider: 'local' },
  rerank: {},
  llm: {},
  botEnabled: false,
  gateway: {},
  grpcPort: 1934,
  profiling: false,
  startupTrace: false,
  rocksdbWriteBufferMb: 64,
  rocksdbBlockCacheMb: 8,
  vfsMetaCacheEntries: 100_000,
  idleGcMs: 2000,
  logLevel: 'info',
  accessLog: true,
  maxJsonBodyBytes: 32 * 1024 * 1024,
  maxUploadBytes: 256 * 1024 * 1024,
  taskRetentionHours: 168,
  tempFileTtlMinutes: 60,
  importRoots: [],
  importAllowPrivate: false,
  vectorFlatThreshold: 20_000,
  plugins: [],
  pluginSections: {},
  pluginEnv: {},
  pluginPrivileges: {},
  shutdownTimeoutMs: 10_000,
  shutdownDelayMs: 0,
  metrics: 'loopback',
  metricsAccountLabel: false,
  tracing: true,
  grpcTls: {},
  tls: {},
  cluster: { nats: [], shards: 64, replicas: 2, heartbeatMs: 1000, connectTimeoutMs: 10_000, snapshotRecords: 10_000 },
};

type Env = Record<string, string | undefined>;

const bool = (v: string | undefined) => (v === undefined ? undefined : ['1', 'true', 'yes', 'on'].includes(v.toLowerCase()));
const int = (name: string, v: string | undefined) => {
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return n;
};

function fromEnv(env: Env): Partial<CtxConfig> & Record<string, unknown> {
  const out: Record<string, unknown> = {
    host: env.CTX_HOST,
    port: int('CTX_PORT', env.CTX_PORT),
    dataDir: env.CTX_DATA_DIR,
    rootApiKey: env.CTX_ROOT_API_KEY,
    authMode: env.CTX_AUTH_MODE,
    botEnabled: bool(env.CTX_BOT_ENABLED),
    executionBackendUrl: env.CTX_EXECUTION_BACKEND_URL,
    executionBackendGatewayToken: env.CTX_EXECUTION_BACKEND_GATEWAY_TOKEN,
    grpcPort: int('CTX_GRPC_PORT', env.CTX_GRPC_PORT),
    profiling: bool(env.CTX_PROFILING),
    startupTrace: bool(env.CTX_STARTUP_TRACE),
    rocksdbWriteBufferMb: int('CTX_ROCKSDB_WRITE_BUFFER_MB', env.CTX_ROCKSDB_WRITE_BUFFER_MB),
    rocksdbBlockCacheMb: int('CTX_ROCKSDB_BLOCK_CACHE_MB', env.CTX_ROCKSDB_BLOCK_CACHE_MB),
    vfsMetaCacheEntries: int('CTX_VFS_META_CACHE_ENTRIES', env.CTX_VFS_META_CACHE_ENTRIES),
    idleGcMs: int('CTX_IDLE_GC_MS', env.CTX_IDLE_GC_MS),
    logLevel: env.CTX_LOG_LEVEL,
    accessLog: bool(env.CTX_ACCESS_LOG),
    maxJsonBodyBytes: int('CTX_MAX_JSON_BODY_BYTES', env.CTX_MAX_JSON_BODY_BYTES),
    maxUploadBytes: int('CTX_MAX_UPLOAD_BYTES', env.CTX_MAX_UPLOAD_BYTES),
    taskRetentionHours: int('CTX_TASK_RETENTION_HOURS', env.CTX_TASK_RETENTION_HOURS),
    tempFileTtlMinutes: int('CTX_TEMP_FILE_TTL_MINUTES', env.CTX_TEMP_FILE_TTL_MINUTES),
    vectorFlatThreshold: int('CTX_VECTOR_FLAT_THRESHOLD', env.CTX_VECTOR_FLAT_THRESHOLD),
    importRoots: env.CTX_IMPORT_ROOTS !== undefined ? env.CTX_IMPORT_ROOTS.split(',').map((p) => p.trim()).filter(Boolean) : undefined,
    importAllowPrivate: bool(env.CTX_IMPORT_ALLOW_PRIVATE),
    plugins: env.CTX_PLUGINS ? env.CTX_PLUGINS.split(',').map((p) => p.trim()).filter(Boolean) : undefined,
    pluginPrivileges: env.CTX_PLUGIN_PRIVILEGES ? parsePrivilegeGrants(env.CTX_PLUGIN_PRIVILEGES) : undefined,
    shutdownTimeoutMs: int('CTX_SHUTDOWN_TIMEOUT_MS', env.CTX_SHUTDOWN_TIMEOUT_MS),
    shutdownDelayMs: int('CTX_SHUTDOWN_DELAY_MS', env.CTX_SHUTDOWN_DELAY_MS),
    metrics: env.CTX_METRICS,
    metricsToken: env.CTX_METRICS_TOKEN,
    metricsAccountLabel: bool(env.CTX_METRICS_ACCOUNT_LABEL),
    tracing: bool(env.CTX_TRACING),
    otlpTracesUrl: tracesUrl(env),
  };
  const nested = {
    embedding: {
      provider: env.CTX_EMBEDDING_PROVIDER,
      baseUrl: env.CTX_EMBEDDING_BASE_URL,
      model: env.CTX_EMBEDDING_MODEL,
      apiKey: env.CTX_EMBEDDING_API_KEY,
      dim: int('CTX_EMBEDDING_DIM', env.CTX_EMBEDDING_DIM),
      modelDir: env.CTX_EMBEDDING_MODEL_DIR,
    },
    rerank: { baseUrl: env.CTX_RERANK_BASE_URL, model: env.CTX_RERANK_MODEL, apiKey: env.CTX_RERANK_API_KEY },
    llm: { baseUrl: env.CTX_LLM_BASE_URL, model: env.CTX_LLM_MODEL, apiKey: env.CTX_LLM_API_KEY },
    gateway: { url: env.CTX_GATEWAY_URL, adminToken: env.CTX_GATEWAY_ADMIN_TOKEN },
    grpcTls: { cert: env.CTX_GRPC_TLS_CERT, key: env.CTX_GRPC_TLS_KEY, clientCa: env.CTX_GRPC_TLS_CLIENT_CA },
    tls: { cert: env.CTX_TLS_CERT, key: env.CTX_TLS_KEY },
    cluster: {
      nats: env.CTX_CLUSTER_NATS !== undefined ? env.CTX_CLUSTER_NATS.split(',').map((u) => u.trim()).filter(Boolean) : undefined,
      nodeId: env.CTX_NODE_ID,
      shards: int('CTX_CLUSTER_SHARDS', env.CTX_CLUSTER_SHARDS),
      replicas: int('CTX_CLUSTER_REPLICAS', env.CTX_CLUSTER_REPLICAS),
      advertiseUrl: env.CTX_CLUSTER_ADVERTISE_URL,
      heartbeatMs: int('CTX_CLUSTER_HEARTBEAT_MS', env.CTX_CLUSTER_HEARTBEAT_MS),
      connectTimeoutMs: int('CTX_CLUSTER_CONNECT_TIMEOUT_MS', env.CTX_CLUSTER_CONNECT_TIMEOUT_MS),
      secret: env.CTX_CLUSTER_SECRET,
      snapshotRecords: int('CTX_CLUSTER_SNAPSHOT_RECORDS', env.CTX_CLUSTER_SNAPSHOT_RECORDS),
      trace: bool(env.CTX_CLUSTER_TRACE),
    },
  };
  for (const [k, v] of Object.entries(nested)) out[k] = v;
  const pluginEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (k.startsWith('CTX_PLUGIN_') && k !== 'CTX_PLUGIN_PRIVILEGES' && v !== undefined) pluginEnv[k] = v;
  if (Object.keys(pluginEnv).length) out.pluginEnv = pluginEnv;
  return out as Partial<CtxConfig>;
}

/** `a=identity-read+unscoped-vfs,b=identity-read` → `{a: [...], b: [...]}`. */
function parsePrivilegeGrants(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`CTX_PLUGIN_PRIVILEGES entries look like plugin=privilege+privilege; got ${JSON.stringify(part)}`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).split('+').map((p) => p.trim()).filter(Boolean);
  }
  return out;
}

function merge<T>(base: T, over: Record<string, unknown> | undefined): T {
  if (!over) return base;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    const cur = out[k];
    out[k] = cur && typeof cur === 'object' && !Array.isArray(cur) && v && typeof v === 'object' && !Array.isArray(v) ? merge(cur, v as Record<string, unknown>) : v;
  }
  return out as T;
}

export function validateConfig(c: CtxConfig): CtxConfig {
  if (!['api_key', 'trusted', 'dev'].includes(c.authMode)) throw new Error(`CTX_AUTH_MODE must be api_key, trusted or dev; got ${JSON.stringify(c.authMode)}`);
  if (c.authMode === 'api_key' && !c.rootApiKey)
    throw new Error('CTX_ROOT_API_KEY is required in api_key mode (or set CTX_AUTH_MODE=dev for a local, key-less server)');
  if (c.rootApiKey !== undefined && c.rootApiKey.length < 16) throw new Error('CTX_ROOT_API_KEY must be at least 16 characters');
  if (c.authMode === 'dev' && !isLoopback(c.host)) throw new Error(`CTX_AUTH_MODE=dev serves without keys and only listens on loopback; CTX_HOST=${c.host} is not`);
  if (!['local', 'neural', 'openai'].includes(c.embedding.provider)) throw new Error(`CTX_EMBEDDING_PROVIDER must be local, neural or openai; got ${c.embedding.provider}`);
  if (c.embedding.provider === 'openai' && (!c.embedding.baseUrl || !c.embedding.model))
    throw new Error('CTX_EMBEDDING_PROVIDER=openai needs CTX_EMBEDDING_BASE_URL (including /v1) and CTX_EMBEDDING_MODEL');
  if (c.rocksdbWriteBufferMb < 1 || c.rocksdbWriteBufferMb > 4096) throw new Error(`CTX_ROCKSDB_WRITE_BUFFER_MB must be between 1 and 4096; got ${c.rocksdbWriteBufferMb}`);
  if (c.rocksdbBlockCacheMb > 65_536) throw new Error(`CTX_ROCKSDB_BLOCK_CACHE_MB must be at most 65536; got ${c.rocksdbBlockCacheMb}`);
  if (c.embedding.dim !== undefined && (c.embedding.dim < 1 || c.embedding.dim > 8192)) throw new Error(`CTX_EMBEDDING_DIM must be between 1 and 8192; got ${c.embedding.dim}`);
  if (c.rerank.model && !c.rerank.baseUrl) throw new Error('CTX_RERANK_MODEL is set but CTX_RERANK_BASE_URL is not');
  for (const r of c.importRoots ?? []) if (!path.isAbsolute(r)) throw new Error(`CTX_IMPORT_ROOTS entries must be absolute directories; got ${JSON.stringify(r)}`);
  if (c.gateway.adminToken !== undefined && c.gateway.adminToken.length < 32) throw new Error('CTX_GATEWAY_ADMIN_TOKEN must be at least 32 characters');
  if (c.executionBackendUrl !== undefined && c.executionBackendUrl !== '' && !/^(https?|grpcs?):\/\/[^/\s]+/i.test(c.executionBackendUrl))
    throw new Error(`CTX_EXECUTION_BACKEND_URL must be http://, https://, grpc:// or grpcs://host:port; got ${JSON.stringify(c.executionBackendUrl)}`);
  if (!['off', 'loopback', 'token'].includes(c.metrics)) throw new Error(`CTX_METRICS must be off, loopback or token; got ${JSON.stringify(c.metrics)}`);
  if (c.metrics === 'token' && (c.metricsToken ?? '').length < 16) throw new Error('CTX_METRICS=token needs CTX_METRICS_TOKEN of at least 16 characters');
  validateCluster(c.cluster);
  return c;
}

function validateCluster(k: ClusterConfig): void {
  for (const u of k.nats) if (!/^(nats|tls|wss?):\/\/[^/\s]+/i.test(u)) throw new Error(`CTX_CLUSTER_NATS entries must be nats://host:port URLs; got ${JSON.stringify(u)}`);
  if (k.shards < 1 || k.shards > 4096) throw new Error(`CTX_CLUSTER_SHARDS must be between 1 and 4096; got ${k.shards}`);
  if (k.replicas < 1 || k.replicas > 9) throw new Error(`CTX_CLUSTER_REPLICAS must be between 1 and 9; got ${k.replicas}`);
  if (k.nodeId !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(k.nodeId)) throw new Error(`CTX_NODE_ID must be 1-64 letters, digits, _ or -; got ${JSON.stringify(k.nodeId)}`);
  if (k.advertiseUrl !== undefined && !/^https?:\/\/[^/\s]+/i.test(k.advertiseUrl)) throw new Error(`CTX_CLUSTER_ADVERTISE_URL must be an http(s):// URL; got ${JSON.stringify(k.advertiseUrl)}`);
  if (k.heartbeatMs < 100) throw new Error(`CTX_CLUSTER_HEARTBEAT_MS must be at least 100; got ${k.heartbeatMs}`);
  if (k.secret !== undefined && k.secret.length < 16) throw new Error('CTX_CLUSTER_SECRET must be at least 16 characters');
  if (!Number.isInteger(k.snapshotRecords) || k.snapshotRecords < 0) throw new Error(`CTX_CLUSTER_SNAPSHOT_RECORDS must be a whole number, 0 for never; got ${k.snapshotRecords}`);
}

/**
 * What is wrong with a TLS setting (PEM file paths), checked where the listener starts (the HTTP
 * port in `app.listen`, the gRPC port in the compile plugin), or undefined when it is usable.
 */
export function tlsProblem(prefix: 'CTX_TLS' | 'CTX_GRPC_TLS', tls: { cert?: string; key?: string; clientCa?: string }): string | undefined {
  if (!!tls.cert !== !!tls.key) return `${prefix}_CERT and ${prefix}_KEY go together: set both or neither`;
  if (tls.clientCa && !tls.cert) return `${prefix}_CLIENT_CA (mutual TLS) needs ${prefix}_CERT and ${prefix}_KEY`;
  for (const [name, file] of [[`${prefix}_CERT`, tls.cert], [`${prefix}_KEY`, tls.key], [`${prefix}_CLIENT_CA`, tls.clientCa]] as const)
    if (file && !fs.existsSync(file)) return `${name} names a file that does not exist: ${file}`;
  return undefined;
}

/**
 * The file's `plugins`: an array of what to load, or an object whose `load` is that array and whose
 * other keys are plugin sections. Relative paths are resolved against the config file's directory.
 */
function pluginsOfFile(value: unknown, base: string, file: string): { plugins?: string[]; pluginSections?: Record<string, Record<string, unknown>> } {
  if (value === undefined) return {};
  const specs = (list: unknown, where: string) => {
    if (!Array.isArray(list) || list.some((p) => typeof p !== 'string' || p === ''))
      throw new Error(`${file}: ${where} must be an array of plugin paths or package names`);
    return (list as string[]).map((p) => (p.startsWith('.') ? path.resolve(base, p) : p));
  };
  if (Array.isArray(value)) return { plugins: specs(value, 'plugins') };
  if (typeof value !== 'object' || value === null) throw new Error(`${file}: plugins must be an array, or an object like {"load": [...], "<plugin>": {...}}`);
  const { load, ...sections } = value as Record<string, unknown>;
  for (const [name, section] of Object.entries(sections))
    if (typeof section !== 'object' || section === null || Array.isArray(section)) throw new Error(`${file}: plugins.${name} must be an object (the configuration section of plugin ${name})`);
  return { plugins: load === undefined ? [] : specs(load, 'plugins.load'), pluginSections: sections as Record<string, Record<string, unknown>> };
}

/**
 * Every secret of the configuration. None reaches `host.config`: the root key stays with the
 * identity registry, the model keys inside the clients the host builds (`host.models`), and the
 * others in the section of the one plugin that uses them (`SECRETS_BY_PLUGIN`). A test fails when
 * a configuration key that looks like a secret is missing here.
 */
export const SECRET_FIELDS = ['rootApiKey', 'embedding.apiKey', 'rerank.apiKey', 'llm.apiKey', 'gateway.adminToken', 'executionBackendGatewayToken', 'metricsToken', 'grpcTls.key', 'tls.key', 'cluster.secret'] as const;

/**
 * Secrets kept under their established names (`CTX_GATEWAY_ADMIN_TOKEN`, ...) that belong to one
 * capability: the host adds each to that plugin's section, as if set in `plugins.<name>`.
 */
export const SECRETS_BY_PLUGIN: Readonly<Record<string, Readonly<Record<string, (c: CtxConfig) => string | undefined>>>> = {
  'gateway-proxy': { adminToken: (c) => c.gateway.adminToken },
  // The gRPC port's private key file: only the plugin that serves it sees where it is.
  compile: { gatewayToken: (c) => c.executionBackendGatewayToken, grpcTlsKey: (c) => c.grpcTls.key },
};

/** The configuration as every plugin sees it (`host.config`): no secret, no plugin's section. */
export type PublicConfig = Omit<CtxConfig, 'rootApiKey' | 'executionBackendGatewayToken' | 'metricsToken' | 'pluginSections' | 'pluginEnv' | 'embedding' | 'rerank' | 'llm' | 'gateway' | 'grpcTls' | 'tls'> & {
  grpcTls: Omit<CtxConfig['grpcTls'], 'key'>;
  tls: Omit<CtxConfig['tls'], 'key'>;
  embedding: Omit<CtxConfig['embedding'], 'apiKey'>;
  rerank: Omit<CtxConfig['rerank'], 'apiKey'>;
  llm: Omit<CtxConfig['llm'], 'apiKey'>;
  gateway: Omit<CtxConfig['gateway'], 'adminToken'>;
};

export function publicConfig(c: CtxConfig): Readonly<PublicConfig> {
  const copy = structuredClone(c) as unknown as Record<string, Record<string, unknown>>;
  for (const field of SECRET_FIELDS) {
    const [outer, inner] = field.split('.') as [string, string | undefined];
    if (inner === undefined) delete copy[outer];
    else if (copy[outer]) delete copy[outer][inner];
  }
  delete copy.pluginSections;
  delete copy.pluginEnv;
  return deepFreeze(copy) as unknown as PublicConfig;
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/**
 * With neither a root key nor an auth mode given, `npm start` runs in dev mode on loopback:
 * zero set-up for a laptop, and nothing reachable from the network without a key.
 */
export function loadConfig(env: Env = process.env, overrides: Partial<CtxConfig> = {}): CtxConfig {
  let fileConfig: Record<string, unknown> | undefined;
  const file = env.CTX_CONFIG ?? (fs.existsSync('ctx.config.json') ? 'ctx.config.json' : undefined);
  if (file) {
    try {
      fileConfig = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`cannot read config file ${file}: ${(err as Error).message}`);
    }
    const base = path.dirname(path.resolve(file));
    fileConfig = { ...fileConfig, ...pluginsOfFile(fileConfig.plugins, base, file), configDir: base };
  }
  let c = merge(DEFAULTS, fileConfig);
  c = merge(c, fromEnv(env));
  c = merge(c, overrides as Record<string, unknown>);
  if (!env.CTX_AUTH_MODE && !fileConfig?.authMode && !overrides.authMode && !c.rootApiKey) c.authMode = 'dev';
  return validateConfig(c);
}
