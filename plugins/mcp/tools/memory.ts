/** Memory and skills: remember, session_context, skills — /api/v1/sessions/* and /api/v1/skills. */
import { randomUUID } from 'node:crypto';
import { invalidArgument, s } from 'ctx/plugin';
import { asObject, clip, defineTool, oneLine, type ToolContext } from '../tool.js';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

interface TaskView {
  task_id: string;
  status: string;
  error?: string | null;
  result?: unknown;
  [k: string]: unknown;
}

/** Polls a task until it finishes or `timeoutMs` passes (then returns it as it is). */
export async function waitForTask(c: ToolContext, taskId: string, timeoutMs: number): Promise<TaskView> {
  const until = Date.now() + timeoutMs;
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    const t = (await c.call({ method: 'GET', path: `/api/v1/tasks/${encodeURIComponent(taskId)}` })) as TaskView;
    if (TERMINAL.has(t.status) || Date.now() >= until || c.signal.aborted) return t;
    await new Promise((r) => setTimeout(r, Math.min(delay, Math.max(0, until - Date.now()))));
  }
}

export const remember = defineTool({
  name: 'remember',
  title: 'Remember (store memories)',
  description:
    'Saves what should outlive this conversation. Give the exchange (or a note) as `messages`; ctx appends them to a session and commits it, and memory extraction turns them into durable memories (preferences, facts, decisions, how-tos) under ctx://~/memories that `find` returns later. Pass the same `session_id` across calls to keep one conversation together. `wait: true` returns once the memories are extracted.',
  input: s.object({
    messages: s
      .array(s.object({ role: s.enum(['user', 'assistant'] as const), content: s.string({ min: 1, max: 256 * 1024 }) }), { min: 1, max: 100 })
      .describe('the messages to remember, oldest first; a single note can be one user message'),
    session_id: s.string({ min: 1, max: 128 }).optional().describe('the ctx session to add to (created when missing; default: a new one)'),
    wait: s.bool().default(false).describe('return when extraction finished'),
    timeout: s.number({ min: 0, max: 600 }).default(60).describe('seconds to wait at most with `wait`'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(c, a) {
    const sid = a.session_id ?? `mcp-${randomUUID()}`;
    const base = `/api/v1/sessions/${encodeURIComponent(sid)}`;
    await c.call({ method: 'POST', path: `${base}/messages/batch`, body: { messages: a.messages } });
    const commit = asObject(await c.call({ method: 'POST', path: `${base}/commit`, body: {} }));
    const taskId = commit.task_id as string | null;
    if (!a.wait || !taskId) return { text: `added ${a.messages.length} message(s) to session ${sid}; memory extraction ${taskId ? `runs as task ${taskId}` : 'had nothing to do'}`, structured: { session_id: sid, ...commit } };
    const task = await waitForTask(c, taskId, a.timeout * 1000);
    const done = TERMINAL.has(task.status);
    return {
      text: `added ${a.messages.length} message(s) to session ${sid}; extraction task ${taskId} ${done ? task.status : `still ${task.status} after ${a.timeout}s`}${task.error ? `: ${task.error}` : ''}`,
      structured: { session_id: sid, ...commit, task },
      isError: task.status === 'failed',
    };
  },
});

export const sessionContext = defineTool({
  name: 'session_context',
  title: 'Session context',
  description: 'What a ctx session holds, within a token budget: the live messages, the latest archive\'s overview and the abstracts of earlier archives. Use it to pick up a conversation that was saved with `remember`.',
  input: s.object({ session_id: s.string({ min: 1, max: 128 }), token_budget: s.int({ min: 0, max: 1_000_000 }).default(8000) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    const r = asObject(await c.call({ method: 'GET', path: `/api/v1/sessions/${encodeURIComponent(a.session_id)}/context`, query: { token_budget: a.token_budget } }));
    const messages = (r.messages as Array<{ role: string; parts?: Array<{ type: string; text?: string }>; content?: string }>) ?? [];
    const abstracts = (r.pre_archive_abstracts as Array<{ archive_id: string; abstract: string }>) ?? [];
    const lines: string[] = [];
    if (abstracts.length) lines.push('Earlier:', ...abstracts.map((x) => `- ${x.archive_id}: ${oneLine(x.abstract)}`));
    if (r.latest_archive_overview) lines.push('Latest archive:', clip(String(r.latest_archive_overview), 2000));
    lines.push(`Messages (${messages.length}, ~${r.estimatedTokens} tokens):`);
    for (const m of messages) lines.push(`${m.role}: ${oneLine(m.content ?? (m.parts ?? []).map((p) => p.text ?? `[${p.type}]`).join(' '), 500)}`);
    return { text: lines.join('\n'), structured: r };
  },
});

interface Skill {
  name: string;
  description?: string;
  uri?: string;
  [k: string]: unknown;
}

export const skills = defineTool({
  name: 'skills',
  title: 'Skills',
  description: 'Your skills (reusable instructions stored in ctx://~/skills). `action: list` gives their names and descriptions; `action: read` with a `name` gives one skill\'s SKILL.md and file list. Check for a relevant skill before starting a task you may have done before.',
  input: s.object({ action: s.enum(['list', 'read'] as const).default('list'), name: s.string({ min: 1, max: 128 }).optional() }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    if (a.action === 'list') {
      const r = await c.call({ method: 'GET', path: '/api/v1/skills' });
      const list = (Array.isArray(r) ? r : ((asObject(r).skills as Skill[]) ?? [])) as Skill[];
      return { text: [`${list.length} skill${list.length === 1 ? '' : 's'}`, ...list.map((k) => `- ${k.name}: ${oneLine(k.description ?? '')}`)].join('\n'), structured: { skills: list } };
    }
    if (!a.name) throw invalidArgument('name is required to read a skill', { field: 'name' });
    const r = asObject(await c.call({ method: 'GET', path: `/api/v1/skills/${encodeURIComponent(a.name)}`, query: { include_content: true, include_files: true } }));
    const files = (r.files as Array<{ path: string }> | undefined) ?? [];
    return { text: [`# ${r.name}: ${r.description ?? ''}`, String(r.content ?? ''), files.length ? `Files: ${files.map((f) => f.path).join(', ')}` : ''].filter(Boolean).join('\n\n'), structured: r };
  },
});
