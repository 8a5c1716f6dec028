/**
 * `POST /api/v1/content/reindex {uri, mode, wait, recursive}` (issue 3; not in the spec). Runs as an
 * `admin_reindex` task: it enqueues one Semantic `refresh` message owned by the task (so cancelling
 * drops it), then waits until the index work for the URI has settled. One reindex per URI at a time.
 */
import { CtxError, conflict, notFound, unavailable } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import type { PluginHost } from 'ctx/plugin';
import { publicTask, type TaskRecord } from 'ctx/plugin';
import { indexing, indexingReport } from './indexing.js';
import { resolveUri } from './targets.js';

export const REINDEX_TASK = 'admin_reindex';

interface ReindexInput {
  account: string;
  path: string;
  uri: string;
  kind: 'file' | 'dir';
  mode: 'vectors_only' | 'semantic_and_vectors';
  recursive: boolean;
}

export function registerReindex(
  host: PluginHost,
): (identity: Identity, body: { uri: string; mode: ReindexInput['mode']; wait: boolean; recursive: boolean }, check: (uri: string) => Promise<void>, signal?: AbortSignal) => Promise<unknown> {
  /** account + path → task id, while a reindex of that URI is unfinished. */
  const active = new Map<string, string>();

  host.taskType({
    type: REINDEX_TASK,
    cancellable: true,
    async run(task, raw) {
      const input = raw as ReindexInput;
      const key = `${input.account}\x00${input.path}`;
      try {
        await task.setStage('queued');
        const service = indexing(host);
        if (!service) throw new Error('the indexer (retrieval plugin) is no longer loaded');
        await service.refresh({ account: input.account, path: input.path, kind: input.kind, mode: input.mode, recursive: input.recursive }, task.task.task_id);
        await task.setStage('processing_queue');
        const report = await indexingReport(host, input.account, input.path, { wait: true, signal: task.signal });
        return { uri: input.uri, mode: input.mode, recursive: input.recursive, ...report };
      } finally {
        if (active.get(key) === task.task.task_id) active.delete(key);
      }
    },
  });

  return async (identity, body, check, signal) => {
    const u = resolveUri(body.uri, identity, 'write');
    await check(u.uri);
    const account = identity.accountId;
    const node = await host.vfsFor(identity).stat(u.uri);
    if (!node) throw notFound(`no such file or directory: ${u.uri}`, { resource: u.uri });
    if (!indexing(host)?.running())
      throw unavailable('reindex needs an indexer: no consumer is registered for the Semantic and Embedding queues (is the retrieval plugin loaded?)');
    const key = `${account}\x00${u.path}`;
    let running = active.get(key);
    if (running) {
      // A task cancelled before it ran never reaches its finally: trust only unfinished records.
      const t = await host.tasks.load(running);
      if (!t || t.status === 'completed' || t.status === 'failed' || t.status === 'cancelled') {
        active.delete(key);
        running = undefined;
      }
    }
    if (running !== undefined) throw conflict(`a reindex of ${u.uri} is already running (task ${running})`, u.uri, { task_id: running });
    // Reserve before the first await so two concurrent requests cannot both pass the check.
    active.set(key, '');
    let task: TaskRecord;
    try {
      const input: ReindexInput = { account, path: u.path, uri: u.uri, kind: node.kind, mode: body.mode, recursive: body.recursive };
      task = await host.tasks.create(REINDEX_TASK, identity, { resourceId: u.uri, input });
      active.set(key, task.task_id);
    } catch (err) {
      active.delete(key);
      throw err;
    }
    if (!body.wait) return { task_id: task.task_id, uri: u.uri, mode: body.mode, recursive: body.recursive, status: task.status };
    const done = await waitForTask(host, task.task_id, signal);
    if (!done) throw new CtxError('UNAVAILABLE', 'the server is shutting down before the reindex finished', { task_id: task.task_id });
    const out = publicTask(done);
    if (done.status === 'failed') throw new CtxError('PROCESSING_ERROR', `reindex of ${u.uri} failed: ${done.error}`, { task_id: task.task_id, resource: u.uri });
    return { task_id: task.task_id, status: done.status, ...(out.result as Record<string, unknown> | null) };
  };
}

/** Polls the record until it is terminal (the task manager has no completion callback). */
async function waitForTask(host: PluginHost, id: string, signal?: AbortSignal): Promise<TaskRecord | undefined> {
  for (;;) {
    const t = await host.tasks.load(id);
    if (!t) return undefined;
    if (t.status === 'completed' || t.status === 'failed' || t.status === 'cancelled') return t;
    if (signal?.aborted) return t;
    await new Promise((r) => setTimeout(r, 20));
  }
}
