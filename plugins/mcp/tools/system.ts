/** task_status and health — /api/v1/tasks/{id}, /health and /api/v1/system/status. */
import { s, type InvokeReply } from 'ctx/plugin';
import { asObject, defineTool } from '../tool.js';
import { waitForTask } from './memory.js';

export const taskStatus = defineTool({
  name: 'task_status',
  title: 'Task status',
  description: 'The state of a background task ctx started for you (an import from `add_resource`, a memory extraction from `remember`): pending, running, completed, failed or cancelled, with its result or error. `wait_seconds` waits for it to finish first.',
  input: s.object({ task_id: s.string({ min: 1, max: 128 }), wait_seconds: s.number({ min: 0, max: 600 }).default(0) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    const t =
      a.wait_seconds > 0
        ? await waitForTask(c, a.task_id, a.wait_seconds * 1000)
        : ((await c.call({ method: 'GET', path: `/api/v1/tasks/${encodeURIComponent(a.task_id)}` })) as { status: string; error?: string | null });
    const r = asObject(t);
    return { text: `task ${a.task_id}: ${r.status}${r.stage ? ` (${r.stage})` : ''}${r.error ? ` — ${r.error}` : ''}`, structured: r };
  },
});

export const health = defineTool({
  name: 'health',
  title: 'Health',
  description: 'Whether the ctx server is up and its storage answers, its version, and who you are to it (account, user, role). Use it to check the connection.',
  input: s.object({}),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c) {
    const h = JSON.parse((await c.call({ method: 'GET', path: '/health' }) as InvokeReply).body.toString('utf8')) as { healthy: boolean; version: string };
    const st = asObject(await c.call({ method: 'GET', path: '/api/v1/system/status' }));
    const out = { healthy: h.healthy, version: h.version, account_id: c.identity.accountId, user_id: c.identity.userId, role: c.identity.role, initialized: st.initialized };
    return { text: `ctx ${h.version}: ${h.healthy ? 'healthy' : 'storage not answering'}; you are ${c.identity.userId} (${c.identity.role}) in account ${c.identity.accountId}`, structured: out, isError: !h.healthy };
  },
});
