/**
 * What the resources routes, the import task and the watch runner share: the in-memory jobs (never
 * persisted: uploads are parsed already and credentials must never be stored), the reserved roots,
 * the watches, and the bookkeeping of a watch's current run.
 */
import path from 'node:path';
import { CtxError, type Identity, type PluginHost, type Services, type TaskRecord } from 'ctx/plugin';
import { sourceLabel, type Loaded, type Source } from './sources.js';
import { Reservations, type Target } from './target.js';
import { type TreeFilters } from './tree.js';
import { WatchStore, redact, type ProcessingMode } from './watches.js';

export const TASK_TYPE = 'add_resource';
/** Skipped source files a task result lists by name (the count is always whole). */
export const SKIPPED_SHOWN = 50;

/** The reference's compact index status, from the semantic plugin (deferred without it). */
export function summarize(host: PluginHost, report: Parameters<Services['indexing']['compact']>[0] | undefined) {
  const indexing = host.optional('indexing');
  if (!report || !indexing) return { semantic_status: 'deferred', vector_status: 'deferred' };
  return indexing.compact(report);
}


export interface Job {
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

export type ResourcesState = ReturnType<typeof createResourcesState>;

export function createResourcesState(host: PluginHost) {
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
  return { temp, jobs, reserved, release, tmpRoot, watches, createTask, currentRun, recordRun };
}
