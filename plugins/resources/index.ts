/**
 * Resources (issue 11, items 1–2): `POST /api/v1/resources` imports a temp upload (a file or a
 * zipped tree), an http(s) page or file, a git repository or an operator-allowed host path into a
 * resource root under `ctx://resources` (or a user's resources space), as an `add_resource` task
 * with the stages `queued`, `fetching`, `parsing`, `finalizing`, `processing_queue`. The body is
 * the reference's; the spec does not show it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { CtxError, HOST_VERSION, checkOptionalTags, conflict, definePlugin, invalidArgument, isCtxError, notFound, permissionDenied, resultObject, s, TAG_PATTERN, type Identity, type PluginHost, type Services, type TaskRecord } from 'ctx/plugin';
import { checkLocalPath, classifyPath, fetchSource, loadUpload, mediaFolder, parseFetched, parseModeOf, sourceLabel, sourceName, type Loaded, type Source } from './sources.js';
import { Reservations, planTarget, type Target } from './target.js';
import { globMatcher, type TreeFilters } from './tree.js';
import { writeResource } from './write.js';
import { ZIP_LIMITS } from 'ctx/plugin';
import { WatchStore, minutes, nextSlot, redact, type ProcessingMode, type ProcessorKwargs, type Watch } from './watches.js';
import { registerWatchRoutes } from './watch-routes.js';

export const TASK_TYPE = 'add_resource';
const SKIPPED_SHOWN = 50;
/** How often due watches are looked for: the lateness of a run, at most. */
const WATCH_TICK_MS = 100;

interface Job {
  identity: Identity;
  source: Source;
  /** Set for uploads: parsed in the request, before the task existed. */
  loaded?: Loaded;
  target: Target;
  filters: TreeFilters;
  tags?: string[];
  tagMode: 'replace' | 'append';
  reason: string;
  instruction: string;
  processingMode: ProcessingMode;
  error?: CtxError;
  taskId?: string;
  started?: boolean;
  /** A watch's run: its outcome is recorded on the watch. */
  watchId?: string;
}

const queueStatus = resultObject({ pending: s.int(), processing: s.int(), completed: s.int(), errors: s.int() });

export default definePlugin({
  name: 'resources',
  version: HOST_VERSION,
  // temp-files (uploads by temp_file_id).
  dependsOn: ['system'],
  // Imports write whole trees: atomic multi-file batches under one tree lock, tags of every node
  // in one batch, and the resource's metadata on its root, which the scoped VFS does not offer.
  // Every target is resolved and authorized for the caller first (ctx.vfs.resolve 'write' and
  // host.access.assertEntryReadable in target.ts; again with the owner's current view in the task).
  privileges: ['unscoped-vfs'],
  setup(host) {
    const temp = host.use('temp-files');
    // Jobs live in memory only: uploads are parsed already and credentials must never be
    // persisted; an import interrupted by a restart fails (the task manager's default).
    const jobs = new Map<string, Job>();
    const reserved = new Reservations();
    const release = reserved.release;
    const tmpRoot = path.join(host.dataDir, 'tmp', 'resources');
    const watches = new WatchStore(host.kv.sub('watches'));

    const createTask = async (jobId: string, job: Job): Promise<TaskRecord> => {
      jobs.set(jobId, job);
      try {
        const task = await host.tasks.create(TASK_TYPE, job.identity, { resourceId: job.target.uri, input: { job: jobId, root_uri: job.target.uri, source: sourceLabel(job.source), ...(job.watchId ? { watch_id: job.watchId } : {}) }, stage: 'queued' });
        job.taskId = task.task_id;
        return task;
      } catch (err) {
        jobs.delete(jobId);
        release(job.identity.accountId, job.target.path);
        throw err;
      }
    };

    // The job whose outcome a watch records: a run it no longer waits for (deleted, re-added) keeps nothing.
    const currentRun = new Map<string, string>();
    const recordRun = async (job: Job, jobId: string, taskId: string, status: 'completed' | 'failed' | 'cancelled', err?: unknown) => {
      if (!job.watchId || currentRun.get(job.watchId) !== jobId) return;
      currentRun.delete(job.watchId);
      const auth = job.source.kind === 'git' ? job.source.auth : undefined;
      const message = err === undefined ? null : redact(err instanceof Error ? err.message : String(err), auth ? [auth.password, auth.username] : []);
      await watches.update(job.identity.accountId, job.watchId, (w) => ({ ...w, last_task_id: taskId, last_status: status, last_error: message }));
    };

    /**
     * One run of a watch: a new `add_resource` task into its root, or, when that cannot start
     * (credentials gone after a restart, the root busy, the source no longer allowed), a failed run
     * recorded on the watch with no task. `trigger` runs now without moving the cadence.
     */
    const firing = new Set<string>();
    const fire = async (account: string, id: string, trigger: boolean): Promise<void> => {
      if (firing.has(id)) return;
      firing.add(id);
      try {
        const w = watches.get(account, id);
        if (!w) return;
        const now = Date.now();
        let next = w.next_execution_time;
        if (!trigger) next = new Date(nextSlot(Date.parse(w.next_execution_time), w.watch_interval, now)).toISOString();
        const prev = w.last_task_id ? await host.tasks.load(w.last_task_id) : undefined;
        // The previous run still going: this slot is skipped rather than stacked behind it.
        if (prev && (prev.status === 'pending' || prev.status === 'running')) {
          await watches.put({ ...w, next_execution_time: next });
          return;
        }
        const base: Watch = { ...w, next_execution_time: next, last_execution_time: new Date(now).toISOString() };
        let job: Job;
        try {
          const kw = w.processor_kwargs;
          const args: Record<string, unknown> = kw.ref ? { ref: kw.ref } : {};
          const source = classifyPath(w.path, args, host.config.importRoots);
          if (w.needs_credentials) {
            const auth = watches.secrets.get(w.task_id);
            if (!auth || source.kind !== 'git') throw new CtxError('FAILED_PRECONDITION', 'the source needs credentials, which are kept in memory only and were lost with a restart: add the resource again with the same path and to and args.auth_config');
            source.auth = auth;
          }
          if (source.kind === 'local') await checkLocalPath(source.file, host.config.importRoots);
          if (reserved.has(account, w.to_path)) throw new CtxError('CONFLICT', `another import into ${w.to_uri} is running`);
          reserved.add(account, w.to_path);
          const replace = (await host.unscopedVfs.stat(account, w.to_path)) !== null;
          job = {
            identity: { accountId: account, userId: w.user_id, role: w.original_role },
            source,
            target: { uri: w.to_uri, path: w.to_path, replace },
            filters: { include: kw.include, exclude: kw.exclude, ignore_dirs: kw.ignore_dirs, strict: kw.strict, preserve_structure: kw.preserve_structure, directly_upload_media: kw.directly_upload_media, no_split: kw.parse_mode === 'no_split' },
            processingMode: kw.processing_mode ?? 'semantic_and_vectors',
            tags: kw.tags,
            tagMode: kw.tag_mode ?? 'replace',
            reason: w.reason,
            instruction: w.instruction,
            watchId: w.task_id,
          };
        } catch (err) {
          await watches.put({ ...base, last_status: 'failed', last_error: redact(err instanceof Error ? err.message : String(err)) });
          return;
        }
        const jobId = randomUUID();
        await watches.put(base);
        currentRun.set(id, jobId);
        const task = await createTask(jobId, job).catch(async (err: unknown) => {
          currentRun.delete(id);
          await watches.update(account, id, (x) => ({ ...x, last_status: 'failed', last_error: redact(err instanceof Error ? err.message : String(err)) }));
          return undefined;
        });
        // The run may have ended already (its outcome then set last_task_id itself).
        if (task && currentRun.get(id) === jobId) await watches.update(account, id, (x) => ({ ...x, last_task_id: task.task_id }));
      } finally {
        firing.delete(id);
      }
    };
    // A task cancelled before it started never runs: its job (credentials included) and its
    // reserved root are dropped here once its record is terminal.
    const sweep = async () => {
      for (const [id, job] of jobs) {
        if (!job.taskId || job.started) continue;
        const t = await host.tasks.load(job.taskId);
        if (!t || t.status === 'cancelled' || t.status === 'failed') {
          release(job.identity.accountId, job.target.path);
          jobs.delete(id);
        }
      }
    };
    let timer: NodeJS.Timeout | undefined;
    let tick: NodeJS.Timeout | undefined;
    let closed = false;
    host.onReady(async () => {
      // Clones left by a process that stopped mid-import: nothing refers to them any more.
      await fs.promises.rm(tmpRoot, { recursive: true, force: true });
      timer = setInterval(() => void sweep().catch(() => {}), 30_000);
      timer.unref();
      await watches.load();
      // Due times come from the stored records, so a watch due while the server was down runs
      // on the first tick after start, and the others at their own time.
      tick = setInterval(() => {
        if (closed) return;
        const now = Date.now();
        for (const w of watches.all())
          if (w.is_active && Date.parse(w.next_execution_time) <= now)
            void fire(w.account_id, w.task_id, false).catch((err: unknown) => host.log.warn('watch run failed to start', { watch: w.task_id, err: redact(String(err)) }));
      }, WATCH_TICK_MS);
      tick.unref();
    });
    host.onClose(() => {
      closed = true;
      clearInterval(timer);
      clearInterval(tick);
    });
    host.on('account-deleted', ({ account }) => watches.dropAccount(account));

    host.taskType({
      type: TASK_TYPE,
      cancellable: true,
      async run(task, raw) {
        const { job: jobId } = raw as { job: string };
        const job = jobs.get(jobId);
        if (!job) throw new CtxError('PROCESSING_ERROR', 'the import was interrupted by a restart; add the resource again');
        job.started = true;
        const account = job.identity.accountId;
        try {
          let loaded = job.loaded;
          if (!loaded) {
            const src = job.source as Exclude<Source, { kind: 'upload' }>;
            await task.setStage('fetching');
            const fetched = await fetchSource(src, { signal: task.signal, allowPrivate: host.config.importAllowPrivate, importRoots: host.config.importRoots, tmpRoot });
            await task.setStage('parsing');
            loaded = await parseFetched(fetched, job.filters);
          } else await task.setStage('parsing');
          if (loaded.files.length === 0) throw invalidArgument(`nothing to import from ${sourceLabel(job.source)}: no file passed the filters (${loaded.skipped.length} skipped, ${loaded.filtered} filtered out)`, { field: 'path' });
          await task.setStage('finalizing');
          // The owner's current view: a role lost since the request is not written with.
          const vfs = await task.vfs();
          vfs.resolve(job.target.uri, 'write', 'to');
          await host.access.assertEntryReadable(vfs.identity, job.target.path);
          const written = await writeResource(host, {
            account,
            root: job.target.path,
            files: loaded.files,
            replace: job.target.replace,
            tags: job.tags,
            tagMode: job.tagMode,
            signal: task.signal,
            vectorsOnly: job.processingMode === 'vectors_only',
            meta: {
              source_type: job.source.kind,
              source: sourceLabel(job.source),
              reason: job.reason,
              instruction: job.instruction,
              imported_at: new Date().toISOString(),
              task_id: task.task.task_id,
              processing_mode: job.processingMode,
              ...(loaded.commit ? { commit: loaded.commit } : {}),
              ...(loaded.media ? { media: { ...loaded.media } } : {}),
            },
          });
          release(account, job.target.path);
          await task.setStage('processing_queue');
          const indexing = host.optional('indexing');
          const report = indexing ? await indexing.report(account, job.target.path, { wait: true, signal: task.signal, kind: 'dir' }) : undefined;
          await recordRun(job, jobId, task.task.task_id, 'completed');
          return {
            root_uri: job.target.uri,
            source_type: job.source.kind,
            source: sourceLabel(job.source),
            files: written.files,
            written: written.written,
            unchanged: written.unchanged,
            removed: written.removed,
            filtered: loaded.filtered,
            skipped_count: loaded.skipped.length,
            skipped: loaded.skipped.slice(0, SKIPPED_SHOWN),
            ...(loaded.commit ? { commit: loaded.commit, ref: loaded.ref } : {}),
            ...summarize(host, report),
          };
        } catch (err) {
          if (isCtxError(err)) job.error = err;
          await recordRun(job, jobId, task.task.task_id, task.signal.aborted ? 'cancelled' : 'failed', err).catch(() => {});
          throw err;
        } finally {
          release(account, job.target.path);
          // Kept a little for a waiting request to read the error; credentials go with it.
          setTimeout(() => jobs.delete(jobId), 60_000).unref();
        }
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/resources',
      summary: 'imports a file, a zipped tree, a web page or file, or a git repository as a resource',
      description:
        '`path` is an http(s) URL (a page or file; a `.git` URL or a code-host `/owner/repo` URL is cloned) or, when the operator allows a root (`CTX_IMPORT_ROOTS`), an absolute host path; `temp_file_id` names an upload (a file, or a zip of a directory tree), and wins over `path`. The resource root is `to`, or `parent` (default `ctx://resources`) plus the source name made unique. Runs as an `add_resource` task (`task_id`); with `wait` the call returns when it is indexed (or after `timeout` seconds). `args.auth_config` `{username?, token}` authenticates a git clone and is never stored or returned.',
      body: s.object({
        path: s.string({ max: 8192 }).annotate({ pattern: '^(https?://|git@|ssh://|git://|/)' }).nullable().optional(),
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
        include: s.string({ max: 4096 }).nullable().optional(),
        exclude: s.string({ max: 4096 }).nullable().optional(),
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

    registerWatchRoutes(host, watches, (account, id) => {
      void fire(account, id, true).catch((err: unknown) => host.log.warn('watch run failed to start', { watch: id, err: redact(String(err)) }));
    }, (id) => currentRun.delete(id));

    host.route({
      method: 'GET',
      path: '/api/v1/resources/info',
      summary: 'what a resource root was imported from: source, reason, instruction, time, task (never credentials)',
      query: s.object({ uri: s.uri() }),
      response: resultObject({
        uri: s.string(),
        source_type: s.string(),
        source: s.string(),
        reason: s.string(),
        instruction: s.string(),
        imported_at: s.string(),
        task_id: s.string(),
        commit: s.string().optional(),
        media: s.record(s.any()).optional(),
        processing_mode: s.string().optional(),
      }),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
      async handler(ctx) {
        const node = await ctx.vfs.stat(ctx.query.uri);
        const rec = node?.meta?.resource as Record<string, unknown> | undefined;
        if (!node || !rec) throw notFound(`not an imported resource root: ${ctx.query.uri}`, { resource: ctx.query.uri });
        return { uri: node.uri, ...rec };
      },
    });
  },
});

/** The reference's compact index status, from the semantic plugin (deferred without it). */
function summarize(host: PluginHost, report: Parameters<Services['indexing']['compact']>[0] | undefined) {
  const indexing = host.optional('indexing');
  if (!report || !indexing) return { semantic_status: 'deferred', vector_status: 'deferred' };
  return indexing.compact(report);
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
