/** task ls|show|wait|cancel. */
import { int, type Handler } from '../context.js';
import { kv, paint, table, when } from '../output.js';
import { progress } from '../progress.js';

type Task = { task_id: string; task_type: string; status: string; stage: string | null; created_at: number; resource_id: string | null; error: string | null };

export const ls: Handler = async (cx, _a, o) => {
  const c = await cx.client();
  const res = await c.tasks.list({ status: o.status, task_type: o.type, limit: int(o.limit, '--limit') });
  // A finished task keeps its last stage; only a running one's stage says anything.
  const state = (t: Task) => (t.stage && (t.status === 'pending' || t.status === 'running') ? `${t.status} (${t.stage})` : t.status);
  const colour = { completed: 'green', failed: 'red', cancelled: 'yellow' } as const;
  cx.out.emit(res, (r: Task[]) =>
    table(cx.out, ['ID', 'TYPE', 'STATUS', 'CREATED', 'RESOURCE'], r.map((t) => [t.task_id, t.task_type, t.status in colour ? paint(cx.out, colour[t.status as keyof typeof colour], state(t)) : state(t), when(t.created_at), t.resource_id ?? '-'])),
  );
};

export const show: Handler = async (cx, [id], o) => {
  const c = await cx.client();
  cx.out.emit(await c.tasks.get(id as string, { include_events: o.events }), (r: Record<string, unknown>) => kv(cx.out, { ...r, created_at: when(r.created_at as number), updated_at: when(r.updated_at as number) }));
};

export const wait: Handler = async (cx, [id], o) => {
  const c = await cx.client();
  const bar = progress();
  const secs = o.timeout === undefined ? undefined : Number(o.timeout);
  const task = await c.tasks.wait(id as string, { timeoutMs: secs === undefined ? undefined : secs * 1000, onProgress: (t) => bar.update(`${t.task_id}: ${t.status}${t.stage ? ` (${t.stage})` : ''}`) });
  bar.done();
  cx.out.emit(task, (t: Task) => `${t.task_id}: ${t.status}${t.error ? `\nerror: ${t.error}` : ''}`);
  if (task.status !== 'completed') process.exitCode = 1;
};

export const cancel: Handler = async (cx, [id]) => {
  const c = await cx.client();
  cx.out.emit(await c.tasks.cancel(id as string), (t: Task) => `${t.task_id}: ${t.status}`);
};
