/** session new|add|commit|ls|show|rm and chat (the bot's answer streamed as it is written). */
import type { Handler } from '../context.js';
import { kv, paint, table } from '../output.js';
import { progress } from '../progress.js';

export const newSession: Handler = async (cx, [id]) => {
  const c = await cx.client();
  const res = await c.sessions.create(id ? { session_id: id as string } : {});
  cx.out.emit(res, (r: { session_id: string; uri: string }) => `${r.session_id}  ${r.uri}`);
};

export const add: Handler = async (cx, [id, content], o) => {
  const c = await cx.client();
  const res = await c.sessions.addMessage(id as string, { role: o.role, content: (content as string[]).join(' ') });
  cx.out.emit(res, (r: Record<string, unknown>) => `added a ${o.role} message to ${id}${r.message_count !== undefined ? ` (${r.message_count} messages)` : ''}`);
};

export const commit: Handler = async (cx, [id], o) => {
  const c = await cx.client();
  const res = await c.sessions.commit(id as string);
  if (!o.wait || !res.task_id) return cx.out.emit(res, (r: typeof res) => `${r.session_id}: ${r.status}${r.task_id ? `, task ${r.task_id}` : ''}`);
  const bar = progress();
  const task = await c.tasks.wait(res.task_id, { onProgress: (t) => bar.update(`commit ${t.status}${t.stage ? ` (${t.stage})` : ''}`) });
  bar.done();
  cx.out.emit({ ...res, task }, () => {
    const r = (task.result ?? {}) as { archive_uri?: string; memories_extracted?: Record<string, number> };
    const mem = Object.entries(r.memories_extracted ?? {}).map(([k, v]) => `${k}: ${v}`).join(', ');
    return `${id}: ${task.status}${r.archive_uri ? `, archived to ${r.archive_uri}` : ''}${mem ? `; memories ${mem}` : ''}${task.error ? `\nerror: ${task.error}` : ''}`;
  });
  if (task.status !== 'completed') process.exitCode = 1;
};

export const ls: Handler = async (cx) => {
  const c = await cx.client();
  cx.out.emit(await c.sessions.list(), (r: Array<{ session_id: string; uri: string }>) => table(cx.out, ['ID', 'URI'], r.map((s) => [s.session_id, s.uri])));
};

export const show: Handler = async (cx, [id]) => {
  const c = await cx.client();
  cx.out.emit(await c.sessions.get(id as string), (r: Record<string, unknown>) => kv(cx.out, r));
};

export const rm: Handler = async (cx, [id]) => {
  const c = await cx.client();
  cx.out.emit(await c.sessions.delete(id as string), () => `deleted session ${id}`);
};

export const chat: Handler = async (cx, [message], o) => {
  const c = await cx.client();
  const stream = c.bot.chatStream({ message: (message as string[]).join(' '), session_id: o.session });
  const events: unknown[] = [];
  let wrote = false;
  let final: { content?: string; error?: unknown } | undefined;
  for await (const ev of stream) {
    if (cx.out.json) {
      events.push(ev);
      continue;
    }
    if (ev.event === 'content_delta') {
      process.stdout.write((ev.data as { delta: string }).delta);
      wrote = true;
    } else if (ev.event === 'tool_call') process.stderr.write(paint(cx.out, 'dim', `[tool ${(ev.data as { name?: string }).name ?? ''}]\n`));
    else if (ev.event === 'response') final = ev.data as typeof final;
  }
  if (cx.out.json) return cx.out.emit({ session_id: stream.sessionId, events }, () => '');
  if (!wrote && final?.content) process.stdout.write(final.content);
  process.stdout.write('\n');
  if (final?.error) {
    process.stderr.write(`ctx: the answer failed: ${JSON.stringify(final.error)}\n`);
    process.exitCode = 1;
  }
  if (stream.sessionId) process.stderr.write(paint(cx.out, 'dim', `session ${stream.sessionId}\n`));
};
