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
import { CtxError, HOST_VERSION, checkOptionalTags, definePlugin, invalidArgument, isCtxError, notFound, permissionDenied, resultObject, s, type Identity, type PluginHost, type TaskRecord } from '../../runtime/sdk/index.js';
import { checkLocalPath, classifyPath, fetchSource, loadUpload, mediaFolder, parseFetched, sourceLabel, sourceName, type Loaded, type Source } from './sources.js';
import { Reservations, planTarget, type Target } from './target.js';
import { globMatcher, type TreeFilters } from './tree.js';
import { writeResource } from './write.js';
import { ZIP_LIMITS } from '../../runtime/sdk/index.js';

export const TASK_TYPE = 'add_resource';
const SKIPPED_SHOWN = 50;

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
  error?: CtxError;
  taskId?: string;
  started?: boolean;
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
    host.onReady(async () => {
      // Clones left by a process that stopped mid-import: nothing refers to them any more.
      await fs.promises.rm(tmpRoot, { recursive: true, force: true });
      timer = setInterval(() => void sweep().catch(() => {}), 30_000);
      timer.unref();
    });
    host.onClose(() => clearInterval(timer));

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
            meta: {
              source_type: job.source.kind,
              source: sourceLabel(job.source),
              reason: job.reason,
              instruction: job.instruction,
              imported_at: new Date().toISOString(),
              task_id: task.task.task_id,
              ...(loaded.commit ? { commit: loaded.commit } : {}),
              ...(loaded.media ? { media: { ...loaded.media } } : {}),
            },
          });
          release(account, job.target.path);
          await task.setStage('processing_queue');
          const indexing = host.optional('indexing');
          const report = indexing ? await indexing.report(account, job.target.path, { wait: true, signal: task.signal, kind: 'dir' }) : undefined;
          return {
            root_uri: job.target.uri,
            source_type: job.source.kind,
            source: sourceLabel(job.source),
            files: written.files,
            removed: written.removed,
            filtered: loaded.filtered,
            skipped_count: loaded.skipped.length,
            skipped: loaded.skipped.slice(0, SKIPPED_SHOWN),
            ...(loaded.commit ? { commit: loaded.commit, ref: loaded.ref } : {}),
            ...summarize(report),
          };
        } catch (err) {
          if (isCtxError(err)) job.error = err;
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
        path: s.string({ max: 8192 }).nullable().optional(),
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
        tags: s.array(s.string(), { max: 64 }).nullable().optional(),
        tag_mode: s.enum(['replace', 'append'] as const).default('replace'),
        watch_interval: s.number().default(0),
        processing_mode: s.string({ max: 64 }).nullable().optional(),
        telemetry: s.telemetry(),
      }),
      response: resultObject({
        status: s.enum(['success', 'pending', 'running'] as const),
        root_uri: s.string(),
        task_id: s.string(),
        source_type: s.enum(['upload', 'http', 'git', 'local'] as const),
        source: s.string(),
        files: s.int().optional(),
        skipped_count: s.int().optional(),
        skipped: s.array(resultObject({ path: s.string(), reason: s.string() })).optional(),
        commit: s.string().optional(),
        queue_status: queueStatus.optional(),
        semantic_status: s.string().optional(),
        vector_status: s.string().optional(),
      }),
      errors: ['INVALID_ARGUMENT', 'INVALID_URI', 'PERMISSION_DENIED', 'CONFLICT', 'NOT_FOUND', 'PROCESSING_ERROR', 'UNIMPLEMENTED'],
      async handler(ctx) {
        const b = ctx.body;
        const hasTemp = typeof b.temp_file_id === 'string' && b.temp_file_id !== '';
        const hasPath = typeof b.path === 'string' && b.path.trim() !== '';
        if (!hasTemp && !hasPath) throw invalidArgument("either 'path' or 'temp_file_id' must be provided", { field: b.path === '' ? 'path' : 'temp_file_id' });
        if (b.to && b.parent) throw invalidArgument("'to' and 'parent' cannot be used together", { field: 'to' });
        if (b.watch_interval > 0) throw new CtxError('UNIMPLEMENTED', 'watches (watch_interval > 0) are not available yet; add the resource without watch_interval', { field: 'watch_interval' });
        const tags = checkOptionalTags(b.tags ?? undefined);
        const filters: TreeFilters = { include: b.include, exclude: b.exclude, ignore_dirs: b.ignore_dirs };
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
        const target = await planTarget(host, reserved, ctx.vfs, where, b.source_name || sourceName(source));
        const jobId = randomUUID();
        jobs.set(jobId, { identity: ctx.identity, source, loaded, target, filters, tags, tagMode: b.tag_mode, reason: b.reason, instruction: b.instruction });
        let task: TaskRecord;
        try {
          task = await host.tasks.create(TASK_TYPE, ctx.identity, { resourceId: target.uri, input: { job: jobId, root_uri: target.uri, source: sourceLabel(source) }, stage: 'queued' });
          jobs.get(jobId)!.taskId = task.task_id;
        } catch (err) {
          jobs.delete(jobId);
          release(ctx.identity.accountId, target.path);
          throw err;
        }
        if (hasTemp) void temp.remove(b.temp_file_id!).catch(() => {});
        const base = { root_uri: target.uri, task_id: task.task_id, source_type: source.kind, source: sourceLabel(source) };
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

    host.route({
      method: 'GET',
      path: '/api/v1/resources/info',
      summary: 'what a resource root was imported from: source, reason, instruction, time, task (never credentials)',
      query: s.object({ uri: s.string({ min: 1 }) }),
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

function summarize(report: { semantic_status: string; vector_status: string; queue_status: { Semantic: { pending: number; processed: number; error_count: number }; Embedding: { pending: number; processed: number; error_count: number } } } | undefined) {
  if (!report) return { semantic_status: 'deferred', vector_status: 'deferred' };
  const q = report.queue_status;
  return {
    semantic_status: report.semantic_status,
    vector_status: report.vector_status,
    queue_status: {
      pending: q.Semantic.pending + q.Embedding.pending,
      // The queues do not tell pending from in-flight messages apart.
      processing: 0,
      completed: q.Semantic.processed + q.Embedding.processed,
      errors: q.Semantic.error_count + q.Embedding.error_count,
    },
  };
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
