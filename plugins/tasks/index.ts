/** Task endpoints (spec Part 1 "Tasks"): get, cancel, list — each visible only to the task's creator. */
import { definePlugin } from 'ctx/plugin';
import { s } from 'ctx/plugin';
import { TASK_STATUSES, publicTask } from 'ctx/plugin';
import { HOST_VERSION } from 'ctx/plugin';
import { taskRecordSchema } from 'ctx/plugin';

export default definePlugin({
  name: 'tasks',
  version: HOST_VERSION,
  setup(host) {
    host.route({
      method: 'GET',
      path: '/api/v1/tasks/{task_id}',
      summary: 'a task record; 404 when missing, expired or owned by someone else',
      response: taskRecordSchema,
      errors: ['NOT_FOUND'],
      query: s.object({ include_events: s.bool().default(false) }),
      async handler(ctx) {
        return publicTask(await host.tasks.get(ctx.params.task_id!, ctx.identity), ctx.query.include_events);
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/tasks/{task_id}/cancel',
      summary: 'cancels a task the caller owns (status cancelling or cancelled)',
      response: taskRecordSchema,
      errors: ['NOT_FOUND', 'PERMISSION_DENIED', 'FAILED_PRECONDITION'],
      async handler(ctx) {
        return publicTask(await host.tasks.cancel(ctx.params.task_id!, ctx.identity));
      },
    });

    host.route({
      method: 'GET',
      path: '/api/v1/tasks',
      summary: 'the caller\'s tasks, newest first',
      response: s.array(taskRecordSchema),
      query: s.object({
        task_type: s.string({ min: 1 }).optional(),
        status: s.enum(TASK_STATUSES).optional(),
        resource_id: s.string({ min: 1 }).optional(),
        include_internal: s.bool().default(false),
        // Below 1 answers an empty list (the reference's behaviour for 0) rather than 400.
        limit: s.int({ max: 1000 }).default(50),
      }),
      async handler(ctx) {
        if (ctx.query.limit <= 0) return [];
        return (await host.tasks.list(ctx.identity, ctx.query)).map((t) => publicTask(t));
      },
    });
  },
});
