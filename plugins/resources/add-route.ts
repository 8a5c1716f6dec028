/** `POST /api/v1/resources`: plans the import root and starts (or runs, for uploads) the `add_resource` task. */
import { randomUUID } from 'node:crypto';
import { CtxError, checkOptionalTags, conflict, invalidArgument, isCtxError, permissionDenied, resultObject, s, TAG_PATTERN, type PluginHost, type TaskRecord } from 'ctx/plugin';
import { checkLocalPath, classifyPath, loadUpload, mediaFolder, parseModeOf, sourceLabel, sourceName, type Loaded, type Source } from './sources.js';
import { planTarget } from './target.js';
import { globMatcher, type TreeFilters } from './tree.js';
import { ZIP_LIMITS } from 'ctx/plugin';
import { minutes, type ProcessingMode, type ProcessorKwargs, type Watch } from './watches.js';
import { SKIPPED_SHOWN, summarize, type Job, type ResourcesState } from './state.js';

/** Comma-separated globs of at most 512 characters each (tree.ts globMatcher). */
const GLOB_LIST_PATTERN = '^[^,]{0,512}(,[^,]{0,512})*$';
const queueStatus = resultObject({ pending: s.int(), processing: s.int(), completed: s.int(), errors: s.int() });

export function registerAddRoute(host: PluginHost, st: ResourcesState): void {
  const { temp, jobs, reserved, watches, createTask, currentRun } = st;
  host.route({
    method: 'POST',
    path: '/api/v1/resources',
    summary: 'imports a file, a zipped tree, a web page or file, or a git repository as a resource',
    description:
      '`path` is an http(s) URL (a page or file; a `.git` URL or a code-host `/owner/repo` URL is cloned) or, when the operator allows a root (`CTX_IMPORT_ROOTS`), an absolute host path; `temp_file_id` names an upload (a file, or a zip of a directory tree), and wins over `path`. The resource root is `to`, or `parent` (default `ctx://resources`) plus the source name made unique. Runs as an `add_resource` task (`task_id`); with `wait` the call returns when it is indexed (or after `timeout` seconds). `args.auth_config` `{username?, token}` authenticates a git clone and is never stored or returned.',
    body: s.object({
      // A URL with a host, an scp-style git address, or an absolute host path.
      path: s.string({ max: 8192 }).annotate({ pattern: '^(https?://[^/?#\\s]+|git@[^:\\s]+:|ssh://[^/\\s]+|git://[^/\\s]+|/)' }).nullable().optional(),
      temp_file_id: s.string({ max: 256 }).nullable().optional(),
      to: s.string({ max: 4096 }).nullable().optional(),
      parent: s.string({ max: 4096 }).nullable().optional(),
      create_parent: s.bool().default(false),
      reason: s.string({ max: 16384 }).default(''),
      instruction: s.string({ max: 16384 }).default(''),
      wait: s.bool().default(false),
      timeout: s.number({ min: 0 }).nullable().optional(),
      strict: s.bool().default(false),
      source_name: s.string({ max: 255 }).nullable().optional(),
      ignore_dirs: s.string({ max: 4096 }).nullable().optional(),
      // Comma-separated globs, each at most 512 characters (commas inside {a,b} belong to a glob).
      include: s.string({ max: 4096 }).annotate({ pattern: GLOB_LIST_PATTERN }).nullable().optional(),
      exclude: s.string({ max: 4096 }).annotate({ pattern: GLOB_LIST_PATTERN }).nullable().optional(),
      directly_upload_media: s.bool().default(true),
      preserve_structure: s.bool().nullable().optional(),
      args: s.record(s.any()).default({}),
      tags: s.array(s.string().annotate({ pattern: TAG_PATTERN }), { max: 64 }).nullable().optional(),
      tag_mode: s.enum(['replace', 'append'] as const).default('replace'),
      watch_interval: s.number().default(0).describe('minutes between re-imports into the same root; > 0 creates (or updates) the watch of that root; 0 or less with `to` pauses the watch of that root'),
      processing_mode: s
        .enum(['semantic_and_vectors', 'vectors_only'] as const)
        .nullable()
        .optional()
        .describe('`semantic_and_vectors` (default): L0/L1 text and vectors; `vectors_only`: what changed is embedded, no L0/L1 text is generated'),
      telemetry: s.telemetry(),
    }).annotate({
      // A source is required: temp_file_id (wins) or path.
      allOf: [
        {
          anyOf: [
            { required: ['temp_file_id'], properties: { temp_file_id: { type: 'string', minLength: 1 } } },
            { required: ['path'], properties: { path: { type: 'string', minLength: 1 } } },
          ],
        },
      ],
    }),
    response: resultObject({
      status: s.enum(['success', 'pending', 'running'] as const),
      root_uri: s.string(),
      task_id: s.string(),
      source_type: s.enum(['upload', 'http', 'git', 'local'] as const),
      source: s.string(),
      files: s.int().optional(),
      written: s.int().optional(),
      unchanged: s.int().optional(),
      removed: s.int().optional(),
      skipped_count: s.int().optional(),
      skipped: s.array(resultObject({ path: s.string(), reason: s.string() })).optional(),
      commit: s.string().optional(),
      queue_status: queueStatus.optional(),
      semantic_status: s.string().optional(),
      vector_status: s.string().optional(),
      watch_task_id: s.string().optional(),
    }),
    errors: ['INVALID_ARGUMENT', 'INVALID_URI', 'PERMISSION_DENIED', 'CONFLICT', 'NOT_FOUND', 'PROCESSING_ERROR'],
    async handler(ctx) {
      const b = ctx.body;
      const hasTemp = typeof b.temp_file_id === 'string' && b.temp_file_id !== '';
      const hasPath = typeof b.path === 'string' && b.path.trim() !== '';
      if (!hasTemp && !hasPath) throw invalidArgument("either 'path' or 'temp_file_id' must be provided", { field: b.path === '' ? 'path' : 'temp_file_id' });
      if (b.to && b.parent) throw invalidArgument("'to' and 'parent' cannot be used together", { field: 'to' });
      // 0 or less: no watch, and (with `to`) the watch of that root is cancelled, as in the reference.
      const watching = b.watch_interval > 0;
      // An upload is consumed by its import: there is nothing to fetch again.
      if (watching && hasTemp) throw invalidArgument('watch_interval needs a source that can be fetched again (path), not temp_file_id', { field: 'watch_interval' });
      const tags = checkOptionalTags(b.tags ?? undefined);
      const parseMode = parseModeOf(b.args);
      const filters: TreeFilters = { include: b.include, exclude: b.exclude, ignore_dirs: b.ignore_dirs, strict: b.strict, preserve_structure: b.preserve_structure ?? null, directly_upload_media: b.directly_upload_media, no_split: parseMode === 'no_split' };
      const processingMode: ProcessingMode = b.processing_mode ?? 'semantic_and_vectors';
      globMatcher(b.include, 'include');
      globMatcher(b.exclude, 'exclude');
      let source: Source;
      let loaded: Loaded | undefined;
      if (hasTemp) {
        // The reference answers an unknown or foreign upload id with 403.
        const rec = await temp.resolve(ctx.identity, b.temp_file_id!).catch((err: unknown) => {
          if (isCtxError(err) && (err.code === 'NOT_FOUND' || err.code === 'INVALID_ARGUMENT')) throw permissionDenied(`temp file not found, expired or not yours: ${b.temp_file_id}`, { field: 'temp_file_id' });
          throw err;
        });
        if (rec.size > ZIP_LIMITS.archiveBytes) throw invalidArgument(`the upload is larger than ${ZIP_LIMITS.archiveBytes} bytes`, { field: 'temp_file_id', max: ZIP_LIMITS.archiveBytes });
        source = { kind: 'upload', filename: b.source_name || rec.filename, data: await temp.read(ctx.identity, b.temp_file_id!) };
        // Parsed and checked in full before anything exists: bad input leaves nothing behind.
        loaded = await loadUpload(source, filters);
        if (loaded.files.length === 0) throw invalidArgument(`nothing to import from ${rec.filename}: no file passed the filters (${loaded.skipped.length} skipped, ${loaded.filtered} filtered out)`, { field: 'temp_file_id', skipped: loaded.skipped.slice(0, 10) });
      } else {
        source = classifyPath(b.path!, b.args, host.config.importRoots);
        if (source.kind === 'local') await checkLocalPath(source.file, host.config.importRoots);
      }
      // Media without a target go to ctx://resources/images or /audio, as in the reference.
      const folder = !b.to && !b.parent ? mediaFolder(source) : null;
      const where = folder ? { parent: `ctx://resources/${folder}`, create_parent: true } : b;
      const account = ctx.identity.accountId;
      let unwatch: Watch | undefined;
      if (b.to) {
        // A watched root belongs to its source: another source would be overwritten at the next
        // run. The reference's way out is this very call with watch_interval <= 0, which pauses
        // the watch; a watch the caller cannot see (another USER's) they cannot pause: 409.
        const w = watches.byPath(account, ctx.vfs.resolve(b.to, 'write', 'to').path);
        if (w && w.is_active) {
          if (watching ? w.path !== sourceLabel(source) : !watches.visible(ctx.identity, w))
            throw conflict(`${w.to_uri} is watched for another source (${w.path}); pause it (PATCH is_active=false, or add with watch_interval 0) or delete it first`, w.to_uri, { watch_task_id: w.task_id });
          if (!watching) unwatch = w;
        }
      }
      const target = await planTarget(host, reserved, ctx.vfs, where, b.source_name || sourceName(source));
      const jobId = randomUUID();
      const job: Job = { identity: ctx.identity, source, loaded, target, filters, tags, tagMode: b.tag_mode, reason: b.reason, instruction: b.instruction, processingMode };
      let watch: Watch | undefined;
      let fresh = false;
      if (watching) {
        const now = Date.now();
        const kwargs: ProcessorKwargs = {
          include: b.include ?? null,
          exclude: b.exclude ?? null,
          ignore_dirs: b.ignore_dirs ?? null,
          strict: b.strict,
          preserve_structure: b.preserve_structure ?? null,
          directly_upload_media: b.directly_upload_media,
          processing_mode: processingMode,
          parse_mode: parseMode,
          ...(tags ? { tags, tag_mode: b.tag_mode } : {}), ...(source.kind === 'git' && source.ref ? { ref: source.ref } : {}) };
        const existing = watches.byPath(account, target.path);
        const fields = {
          path: sourceLabel(source),
          source_type: source.kind === 'http' ? 'url' : source.kind,
          reason: b.reason,
          instruction: b.instruction,
          watch_interval: b.watch_interval,
          processor_kwargs: kwargs,
          needs_credentials: source.kind === 'git' && !!source.auth,
        };
        // Re-adding the watched source (or any source to a paused watch's root) updates that watch and restarts its cadence.
        watch = existing
          ? { ...existing, ...fields, is_active: true, next_execution_time: new Date(now + minutes(b.watch_interval)).toISOString() }
          : watches.create({ ...fields, to_uri: target.uri, to_path: target.path, parent_uri: target.uri.slice(0, target.uri.lastIndexOf('/')), account_id: account, user_id: ctx.identity.userId, original_role: ctx.identity.role }, now);
        fresh = !existing;
        watch.last_execution_time = new Date(now).toISOString();
        if (source.kind === 'git' && source.auth) watches.secrets.set(watch.task_id, source.auth);
        else watches.secrets.delete(watch.task_id);
        await watches.put(watch);
        job.watchId = watch.task_id;
        currentRun.set(watch.task_id, jobId);
      }
      let task: TaskRecord;
      try {
        task = await createTask(jobId, job);
      } catch (err) {
        if (watch) {
          currentRun.delete(watch.task_id);
          if (fresh) await watches.del(watch);
        }
        throw err;
      }
      if (watch && currentRun.get(watch.task_id) === jobId) await watches.update(account, watch.task_id, (x) => ({ ...x, last_task_id: task.task_id }));
      if (unwatch) await watches.update(account, unwatch.task_id, (x) => ({ ...x, is_active: false }));
      if (hasTemp) void temp.remove(b.temp_file_id!).catch(() => {});
      const base = { root_uri: target.uri, task_id: task.task_id, source_type: source.kind, source: sourceLabel(source), ...(watch ? { watch_task_id: watch.task_id } : {}) };
      if (!b.wait) return { status: 'success', ...base };
      const done = await waitForTask(host, task.task_id, b.timeout ?? undefined, ctx.signal);
      if (!done || (done.status !== 'completed' && done.status !== 'failed' && done.status !== 'cancelled')) return { status: done?.status === 'running' ? 'running' : 'pending', ...base };
      if (done.status === 'failed') {
        const err = jobs.get(jobId)?.error;
        if (err) throw err;
        throw new CtxError('PROCESSING_ERROR', `the import failed: ${done.error ?? 'unknown error'}`, { task_id: task.task_id });
      }
      if (done.status === 'cancelled') throw new CtxError('PROCESSING_ERROR', 'the import was cancelled', { task_id: task.task_id });
      const r = (done.result ?? {}) as Record<string, unknown>;
      return { status: 'success', ...base, ...r, root_uri: target.uri };
    },
  });
}

/** Polls the task until it ends, `timeoutSec` passes or the client goes away. */
async function waitForTask(host: PluginHost, id: string, timeoutSec: number | undefined, signal: AbortSignal): Promise<TaskRecord | undefined> {
  const until = timeoutSec === undefined ? Infinity : Date.now() + timeoutSec * 1000;
  for (;;) {
    const t = await host.tasks.load(id);
    if (!t || ['completed', 'failed', 'cancelled'].includes(t.status) || Date.now() >= until || signal.aborted) return t;
    await new Promise((r) => setTimeout(r, 25));
  }
}
