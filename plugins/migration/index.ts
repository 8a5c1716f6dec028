/**
 * Legacy namespace migration (spec Part 1): `POST /api/v1/admin/migrate` (ROOT) starts one
 * storage-wide `legacy_migration` task that copies 0.3.x agent and session data to the 0.4 user,
 * peer, skill and session paths (`migrate`), or deletes the legacy scopes (`cleanup`).
 * Preflight failures are answered before the task exists. README.md describes the choices.
 */
import { definePlugin, HOST_VERSION, invalidArgument, s, taskStartedSchema } from 'ctx/plugin';
import { planMigration } from './plan.js';
import { runCleanup, runMigration } from './run.js';

export const TASK_TYPE = 'legacy_migration';

export default definePlugin({
  name: 'migration',
  version: HOST_VERSION,
  dependsOn: ['system', 'admin', 'tasks'],
  privileges: ['unscoped-vfs', 'identity-admin'],
  privilegeReasons: {
    'unscoped-vfs': "storage-wide: it rewrites every account's legacy layout (copies under tree locks, paths no URI names); only ROOT starts it (one of the three plugins keeping it)",
    'identity-admin': 'registers the owners of legacy data as users',
  },
  setup(host) {
    host.taskType({
      type: TASK_TYPE,
      cancellable: false,
      // A copy skips what exists, so running it again after a restart finishes the job.
      onRestart: 'resume',
      async run(task, raw) {
        const input = raw as { action: 'migrate' | 'cleanup' };
        await task.setStage(input.action === 'cleanup' ? 'cleanup' : 'migrating');
        return input.action === 'cleanup' ? { action: 'cleanup', ...(await runCleanup(host, task)) } : { action: 'migrate', ...(await runMigration(host, task)) };
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/admin/migrate',
      summary: 'Migrate legacy agent and session data to user paths (or clean the legacy scopes up) as a legacy_migration task',
      description: 'An empty body is `migrate`. Preflight failures (an owner that is not a valid user id, a session whose owner cannot be resolved in a multi-user account) answer 400 before the task is created.',
      roles: ['ROOT'],
      body: s.object({ action: s.enum(['migrate', 'cleanup'] as const).default('migrate') }),
      response: taskStartedSchema,
      async handler(ctx) {
        const action = ctx.body.action;
        if (action === 'migrate') {
          const plan = await planMigration(host);
          if (plan.problems.length)
            throw invalidArgument(`legacy migration preflight failed: ${plan.problems.map((p) => `${p.account}: ctx://${p.path}: ${p.reason}`).join('; ')}`, { problems: plan.problems });
        }
        const task = await host.tasks.create(TASK_TYPE, ctx.identity, { stage: 'queued', input: { action } });
        return { task_id: task.task_id };
      },
    });
  },
});
