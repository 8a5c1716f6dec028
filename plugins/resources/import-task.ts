/** The `add_resource` task: fetch, parse and write an import as its owner, then follow its index work. */
import { CtxError, invalidArgument, isCtxError, type PluginHost } from 'ctx/plugin';
import { fetchSource, parseFetched, sourceLabel, type Source } from './sources.js';
import { writeResource } from './write.js';
import { SKIPPED_SHOWN, TASK_TYPE, summarize, type ResourcesState } from './state.js';

export function registerImportTask(host: PluginHost, st: ResourcesState): void {
  const { jobs, release, tmpRoot, recordRun } = st;
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
        if (job.watchId) job.target.replace = (await vfs.stat(job.target.uri)) !== null;
        const written = await writeResource(vfs, {
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
}
