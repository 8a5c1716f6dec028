/**
 * The plugin SDK: everything a plugin may import from ctx, and nothing else (`ctx/plugin` in
 * package.json `exports`; the built-in plugins import it by that name too, and a test fails on
 * any other import of the host's files). See docs/plugins.md.
 *
 * What is here is public API: changing a signature is a breaking change for third-party plugins.
 */

/**
 * Services plugins provide to each other, typed by augmenting this interface from the providing
 * plugin: `declare module 'ctx/plugin' { interface Services { 'word-counter': WordCounter } }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Services {}

// Defining a plugin, its host, routes, tasks, events, services and privileges.
export {
  definePlugin,
  isPluginDefinition,
  PluginError,
  PRIVILEGES,
  PRIVILEGE_INFO,
  type AccessFacility,
  type AuthRequirement,
  type ComponentProbe,
  type ComponentStatus,
  type HostEvents,
  type IdentityAdmin,
  type IdentityReader,
  type LockObserver,
  type MetadataReader,
  type PluginConfig,
  type PluginDefinition,
  type PluginErrorCode,
  type PluginHost,
  type PluginTaskContext,
  type PluginTaskTypeDef,
  type PluginTasks,
  type Privilege,
  type ReadyCheck,
  type RequestInfo,
  type RouteContext,
  type RouteDef,
} from '../plugin.js';
export { VERSION as HOST_VERSION, PLUGIN_API_VERSION } from '../version.js';
export type { CtxConfig, PublicConfig } from '../config.js';
export type { HostModels } from '../models/host-models.js';
export type { Logger } from '../logger.js';

// Access: the caller-scoped VFS and the rules it applies.
export type { ScopedVfs, ScopedEntry, ScopedWriteOptions, ScopedWriteResult } from '../access/scoped-vfs.js';
export type { EntryRules } from '../access/guard.js';
export type { OwnFiles } from '../access/own-files.js';
export type { ScopedChangeEvent, ScopedWriteFilesOptions } from '../access/scoped-vfs.js';
export { isSessionAlias, legacySessionDirs, sessionReadTarget } from '../access/legacy-session.js';

// Identity, errors, schemas, replies.
export type { Identity, Role } from '../identity/types.js';
/**
 * The key a request presented (`X-API-Key` or `Authorization: Bearer`), for a plugin that must
 * forward the caller's own credentials to a service acting for them (compile's execution backend).
 * Never for deciding identity (that is `ctx.identity`), never to be logged or stored.
 */
export { presentedKey } from '../identity/auth.js';
export type { AccountRecord, UserRecord } from '../identity/registry.js';
export { CtxError, conflict, failedPrecondition, invalidArgument, isCtxError, notFound, permissionDenied, unavailable, type ErrorCode } from '../errors.js';
export { s, Schema, TAG_PATTERN, URI_PATTERN, SCOPED_URI_PATTERN, NODE_URI_PATTERN, SHARED_RESOURCE_URI_PATTERN, spaceUriPattern, fieldError, type Infer } from '../schema.js';
export { componentStatusSchema, resultObject, taskRecordSchema, taskStartedSchema } from '../result-schemas.js';
export { JsonResult, JsonText, Reply, contentDisposition, formatSse, type SseWriter, type StreamSource } from '../http/reply.js';
export type { AbortLike, InvokeReply, InvokeRequest } from '../http/invoke.js';
export { parseMultipart, type MultipartField } from '../adapters/uws/index.js';

// ctx:// URIs and shared helpers.
export {
  authorize,
  canRead,
  isAncestorOrSelf,
  isRecordId,
  isValidId,
  joinUri,
  parseUri,
  relativePath,
  rootUriOf,
  spaceRootDepth,
  uriFromPath,
  RESERVED_IDS,
  SCHEME,
  type Access,
  type ContextType,
  type CtxUri,
  type Scope,
  type UserSpace,
} from '../uri/index.js';
export { checkTags, checkOptionalTags } from '../tags.js';
export { ZIP_LIMITS, isZip, nameProblem as zipEntryNameProblem, readZip, zipError, type ZipFile, type ZipLimits } from '../zip.js';
export { table as statusTable } from '../status-table.js';
export { TEXT_EXTENSIONS, extensionOf, hasTextExtension } from '../text-extensions.js';

// Storage, VFS types, tasks and queues.
export type { Kv } from '../storage/kv.js';
export type { KvOp } from '../storage/backend.js';
export { SIDECARS, DIR_MODE, FILE_MODE, type ChangeEvent, type ChangeType, type IndexHint, type Entry, type NodeKind, type NodeMeta } from '../vfs/types.js';
export { splitPath, ancestorDirs, mergeTags, sha256Of, type Vfs, type WriteOptions, type WriteOutcome } from '../vfs/vfs.js';
export { isAncestorPath, type LockHandle, type LockKind } from '../vfs/locks.js';
export { SIDECAR_META_FIELDS, formatHeader, splitHeader, withHeader, type HeaderKind, type TextHeader } from '../vfs/headers.js';
export { recordId } from '../vfs/record-id.js';
export { TASK_STATUSES, publicTask, type TaskContext, type TaskEvent, type TaskRecord, type TaskStatus, type TaskManager } from '../tasks/task-manager.js';
export type { Consumer, ConsumerOptions, QueueManager, QueueMessage, QueueStats } from '../queues/queue.js';
export type { PluginQueues } from '../queues/plugin-queues.js';

// Metrics (`host.metrics`) and the trace context of the work in progress.
export type { PluginMetrics, PluginCounter, PluginGauge, PluginHistogram } from '../metrics/registry.js';
export { LATENCY_BUCKETS, SIZE_BUCKETS } from '../metrics/families.js';
/**
 * An outgoing call of the current request, task or queue message: the `traceparent` header to send
 * (and a client span when spans are exported); undefined outside any trace. Call `end()` when done.
 */
export { startOutbound, activeTraceparent, type OutboundCall, type PluginTracing } from '../tracing/tracing.js';
/** What is wrong with a TLS setting of PEM files (`CTX_..._CERT`/`_KEY`/`_CLIENT_CA`), or undefined. */
export { tlsProblem } from '../config.js';

// Models (OpenAI-compatible LLM, reranker) and the native core.
export { createLlm, parseJsonAnswer, LlmError, type ChatDelta, type ChatMessage, type ChatOptions, type ChatResult, type Llm, type LlmConfig, type ToolCall, type ToolDef } from '../models/llm.js';
export { createReranker, type Reranker, type RerankResult } from '../models/reranker.js';
export { createEmbedder, type Embedder, type EmbedderInfo } from '../models/embedder.js';
export {
  coreInfo,
  grep,
  hash,
  jsonQuotedLen,
  jsonStringResult,
  localEmbed,
  nativeErrorCode,
  needsRebuild,
  outlineCode,
  outlineCodeBulk,
  outlineLanguageOf,
  outlineLanguages,
  textKernels,
  VectorIndex,
  type HierarchicalResult,
  type CodeOutline,
  type CodeOutlineInput,
  type CodeOutlineResult,
  type CodeSymbol,
  type CoreInfo,
  type Hit,
  type RecordAttrs,
  type VectorFilter,
  type VectorIndexStats,
} from '../native.js';
