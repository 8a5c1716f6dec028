/** Runs due watches (a tick every WATCH_TICK_MS) and sweeps jobs whose task was cancelled before it started. */
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { CtxError, type PluginHost } from 'ctx/plugin';
import { checkLocalPath, classifyPath } from './sources.js';
import { nextSlot, redact, type Watch } from './watches.js';
import { type Job, type ResourcesState } from './state.js';

/** How often due watches are looked for: the lateness of a run, at most. */
const WATCH_TICK_MS = 100;

export function runWatches(host: PluginHost, st: ResourcesState): { fire(account: string, id: string, trigger: boolean): Promise<void> } {
  const { jobs, reserved, release, tmpRoot, watches, createTask, currentRun } = st;
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
        job = {
          identity: { accountId: account, userId: w.user_id, role: w.original_role },
          source,
          // Whether the run replaces a root is asked by the task, through its owner's view.
          target: { uri: w.to_uri, path: w.to_path, replace: false },
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
      for (const w of watches.all()) {
        if (!w.is_active || Date.parse(w.next_execution_time) > now) continue;
        const run = () => fire(w.account_id, w.task_id, false);
        // Cluster mode: a watch fires on its account's shard leader, writing through that shard's log.
        const shard = bg?.shardOf(w.account_id);
        if (bg && !bg.leads(shard!)) continue;
        void (bg ? bg.run(shard!, run) : run()).catch((err: unknown) => host.log.warn('watch run failed to start', { watch: w.task_id, err: redact(String(err)) }));
      }
    }, WATCH_TICK_MS);
    tick.unref();
  });
  const bg = host.cluster.background;
  // The watches written while another node led: the new leader fires them from their records.
  host.cluster.onLeading?.(() => void watches.load().catch((err: unknown) => host.log.warn('watches could not be reloaded', { err: redact(String(err)) })));
  host.onClose(() => {
    closed = true;
    clearInterval(timer);
    clearInterval(tick);
  });
  host.on('account-deleted', ({ account }) => watches.dropAccount(account));
return { fire };
}
