/**
 * The Watches endpoints of spec Part 2: list, get, PATCH, DELETE and trigger, each single-watch
 * call naming the watch by `task_id` in the path or `?to_uri=` (both → they must agree, else 400).
 */
import { invalidArgument, notFound, resultObject, s, type Identity, type ErrorCode, type PluginHost, type ScopedVfs } from 'ctx/plugin';
import { minutes, nextSlot, publicWatch, type Watch, type WatchStore } from './watches.js';

const watchSchema = resultObject({
  task_id: s.string(),
  path: s.string(),
  source_type: s.string().nullable(),
  to_uri: s.string(),
  parent_uri: s.string().nullable(),
  reason: s.string(),
  instruction: s.string(),
  watch_interval: s.number(),
  build_index: s.bool(),
  summarize: s.bool(),
  processor_kwargs: s.record(s.any()),
  created_at: s.string(),
  last_execution_time: s.string().nullable(),
  last_task_id: s.string().nullable(),
  last_status: s.enum(['completed', 'failed', 'cancelled'] as const).nullable(),
  last_error: s.string().nullable(),
  next_execution_time: s.string(),
  is_active: s.bool(),
  account_id: s.string(),
  user_id: s.string(),
  original_role: s.string(),
});

const byUriQuery = s.object({ to_uri: s.uri({ max: 4096 }).optional() });
// Without a task_id in the path, to_uri is what names the watch.
const byUriRequired = s.object({ to_uri: s.uri({ max: 4096 }) });
const patchBody = s.object({
  watch_interval: s.number().optional().describe('minutes, > 0'),
  is_active: s.bool().optional(),
  reason: s.string({ max: 16384 }).optional(),
  instruction: s.string({ max: 16384 }).optional(),
});

export function registerWatchRoutes(host: PluginHost, store: WatchStore, trigger: (account: string, id: string) => void, forgetRun: (id: string) => void): void {
  const pathOf = (vfs: ScopedVfs, uri: string) => vfs.resolve(uri, 'read', 'to_uri').path;

  /** The watch a single-watch call names; 404 when none the caller may see, 400 when id and URI disagree. */
  const find = (who: Identity, vfs: ScopedVfs, id: string | undefined, toUri: string | undefined): Watch => {
    if (id === undefined && toUri === undefined) throw invalidArgument('name the watch: task_id in the path or the to_uri query parameter', { field: 'to_uri' });
    let byId: Watch | undefined;
    if (id !== undefined) {
      byId = store.get(who.accountId, id);
      if (!byId || !store.visible(who, byId)) throw notFound(`no watch ${id}`, { task_id: id });
    }
    if (toUri === undefined) return byId!;
    const w = store.byPath(who.accountId, pathOf(vfs, toUri));
    const byUri = w && store.visible(who, w) ? w : undefined;
    if (byId) {
      if (byUri?.task_id !== byId.task_id) throw invalidArgument(`task_id ${byId.task_id} and to_uri ${toUri} do not name the same watch`, { field: 'to_uri', task_id: byId.task_id });
      return byId;
    }
    if (!byUri) throw notFound(`no watch for ${toUri}`, { resource: toUri });
    return byUri;
  };

  host.route({
    method: 'GET',
    path: '/api/v1/watches',
    summary: 'watch tasks the caller may see (their own; an ADMIN all of the account)',
    query: s.object({ active_only: s.bool().default(false), to_uri: s.uri({ max: 4096 }).optional() }),
    response: resultObject({ tasks: s.array(watchSchema), total: s.int() }),
    errors: ['INVALID_URI', 'PERMISSION_DENIED'],
    handler(ctx) {
      const want = ctx.query.to_uri === undefined ? undefined : pathOf(ctx.vfs, ctx.query.to_uri);
      const tasks = store
        .all()
        .filter((w) => store.visible(ctx.identity, w) && (!ctx.query.active_only || w.is_active) && (want === undefined || w.to_path === want))
        .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.task_id.localeCompare(b.task_id))
        .map(publicWatch);
      return { tasks, total: tasks.length };
    },
  });

  host.route({
    method: 'GET',
    path: '/api/v1/watches/{task_id}',
    summary: 'one watch task; a to_uri given must name the same watch',
    query: byUriQuery,
    response: watchSchema,
    errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
    handler: (ctx) => publicWatch(find(ctx.identity, ctx.vfs, ctx.params.task_id, ctx.query.to_uri)),
  });

  const patch = async (who: Identity, w: Watch, body: { watch_interval?: number; is_active?: boolean; reason?: string; instruction?: string }) => {
    if (body.watch_interval === undefined && body.is_active === undefined && body.reason === undefined && body.instruction === undefined)
      throw invalidArgument('give at least one of watch_interval, is_active, reason, instruction', { field: 'body' });
    if (body.watch_interval !== undefined && !(body.watch_interval > 0)) throw invalidArgument(`watch_interval must be > 0 minutes, got ${body.watch_interval}`, { field: 'watch_interval' });
    const now = Date.now();
    const updated = await store.update(who.accountId, w.task_id, (cur) => {
      const next = { ...cur, ...(body.reason !== undefined ? { reason: body.reason } : {}), ...(body.instruction !== undefined ? { instruction: body.instruction } : {}) };
      if (body.watch_interval !== undefined && body.watch_interval !== cur.watch_interval) {
        next.watch_interval = body.watch_interval;
        // A new interval counts from the last run (or creation), not from the old schedule.
        const from = Date.parse(cur.last_execution_time ?? cur.created_at);
        next.next_execution_time = new Date(nextSlot(from + minutes(body.watch_interval), body.watch_interval, now)).toISOString();
      }
      if (body.is_active !== undefined) {
        // Resuming keeps the cadence: the next slot of the same phase, not "now".
        if (body.is_active && !cur.is_active) next.next_execution_time = new Date(nextSlot(Date.parse(next.next_execution_time), next.watch_interval, now)).toISOString();
        next.is_active = body.is_active;
      }
      return next;
    });
    if (!updated) throw notFound(`no watch ${w.task_id}`, { task_id: w.task_id });
    return publicWatch(updated);
  };

  const patchDoc = {
    body: patchBody,
    response: watchSchema,
    errors: ['INVALID_ARGUMENT', 'INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'] as ErrorCode[],
    description: 'Fields not given keep their values; unknown fields are refused (400). Pausing (`is_active: false`) and resuming keep `watch_interval` and the phase of `next_execution_time`.',
  };
  host.route({
    method: 'PATCH',
    path: '/api/v1/watches/{task_id}',
    summary: 'changes a watch: watch_interval, is_active (pause/resume), reason, instruction',
    query: byUriQuery,
    ...patchDoc,
    handler: (ctx) => patch(ctx.identity, find(ctx.identity, ctx.vfs, ctx.params.task_id, ctx.query.to_uri), ctx.body),
  });
  host.route({
    method: 'PATCH',
    path: '/api/v1/watches',
    summary: 'changes the watch of ?to_uri=: watch_interval, is_active (pause/resume), reason, instruction',
    query: byUriRequired,
    ...patchDoc,
    handler: (ctx) => patch(ctx.identity, find(ctx.identity, ctx.vfs, undefined, ctx.query.to_uri), ctx.body),
  });

  const remove = async (w: Watch) => {
    await store.del(w);
    // A run still going finishes its import but records nothing on a watch that is gone.
    forgetRun(w.task_id);
    return { task_id: w.task_id, to_uri: w.to_uri, deleted: true };
  };
  const deleted = resultObject({ task_id: s.string(), to_uri: s.string(), deleted: s.bool() });
  host.route({
    method: 'DELETE',
    path: '/api/v1/watches/{task_id}',
    summary: 'deletes a watch (the imported resource stays)',
    query: byUriQuery,
    response: deleted,
    errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
    handler: (ctx) => remove(find(ctx.identity, ctx.vfs, ctx.params.task_id, ctx.query.to_uri)),
  });
  host.route({
    method: 'DELETE',
    path: '/api/v1/watches',
    summary: 'deletes the watch of ?to_uri= (the imported resource stays)',
    query: byUriRequired,
    response: deleted,
    errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
    handler: (ctx) => remove(find(ctx.identity, ctx.vfs, undefined, ctx.query.to_uri)),
  });

  const fire = (w: Watch) => {
    trigger(w.account_id, w.task_id);
    return { task_id: w.task_id, to_uri: w.to_uri, scheduled: true };
  };
  const scheduled = resultObject({ task_id: s.string(), to_uri: s.string(), scheduled: s.bool() });
  const triggerDoc = 'Returns once the run is scheduled, before the re-import runs; its outcome is the watch\'s `last_task_id`, `last_status` and `last_error` afterwards. The cadence is not moved; a paused watch runs once and stays paused; a run still going is not doubled.';
  host.route({
    method: 'POST',
    path: '/api/v1/watches/{task_id}/trigger',
    summary: 'runs a watch now (re-imports its source in the background)',
    description: triggerDoc,
    query: byUriQuery,
    response: scheduled,
    errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
    handler: (ctx) => fire(find(ctx.identity, ctx.vfs, ctx.params.task_id, ctx.query.to_uri)),
  });
  host.route({
    method: 'POST',
    path: '/api/v1/watches/trigger',
    summary: 'runs the watch of ?to_uri= now (re-imports its source in the background)',
    description: triggerDoc,
    query: byUriRequired,
    response: scheduled,
    errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
    handler: (ctx) => fire(find(ctx.identity, ctx.vfs, undefined, ctx.query.to_uri)),
  });
}
