/**
 * The bundled backend's agent: a tool-calling loop over the OpenAI-compatible LLM. The model may
 * list and read below the `from` directories and the skill, and write files below `to`; nothing
 * else is reachable, and every call goes through the owner's scoped VFS, so the agent can never
 * read what its owner could not.
 */
import { CtxError, isAncestorOrSelf, type ChatMessage, type Llm, type ScopedVfs, type ToolCall, type ToolDef } from 'ctx/plugin';
import type { CompilePayload } from './protocol.js';

export const MAX_TURNS = 24;
const MAX_READ_CHARS = 64 * 1024;
const MAX_LIST = 200;
const MAX_WRITE_BYTES = 1024 * 1024;
const MAX_FILES = 200;

const TOOLS: ToolDef[] = [
  {
    name: 'list_dir',
    description: 'Lists a directory below one of the source directories or the skill: name, kind (file/dir) and size of each entry.',
    parameters: { type: 'object', properties: { uri: { type: 'string', description: 'a ctx:// directory URI' } }, required: ['uri'] },
  },
  {
    name: 'read_file',
    description: `Reads a text file below one of the source directories or the skill (at most ${MAX_READ_CHARS} characters).`,
    parameters: { type: 'object', properties: { uri: { type: 'string', description: 'a ctx:// file URI' } }, required: ['uri'] },
  },
  {
    name: 'write_file',
    description: 'Writes (replaces) a file below the target directory; parent directories are created.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'path relative to the target directory, e.g. "notes/summary.md"' }, content: { type: 'string' } },
      required: ['path', 'content'],
    },
  },
  {
    name: 'finish',
    description: 'Ends the compile with a one-paragraph summary of what was written.',
    parameters: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
  },
];

export interface AgentRun {
  vfs: ScopedVfs;
  llm: Llm;
  payload: CompilePayload;
  /** The skill's SKILL.md URI (resolved by the caller). */
  skillFile: string;
  signal: AbortSignal;
  setStage(stage: 'agent' | 'writing'): void;
  /** Each file as it is written: a cancel keeps what was written (completed writes stand). */
  onWrite(uri: string): void;
}

export interface AgentResult {
  /** `completed`, or `salvaged` when the loop ran out of turns or the model failed after writing. */
  outcome: 'completed' | 'salvaged';
  written: string[];
  turns: number;
  summary: string;
  token_usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export async function runAgent(run: AgentRun): Promise<AgentResult> {
  const { vfs, llm, payload, signal } = run;
  const readable = [...payload.from.map((f) => vfs.resolve(f, 'read', 'from').uri), vfs.resolve(run.skillFile, 'read', 'skill').uri.replace(/\/SKILL\.md$/, '')];
  const target = vfs.resolve(payload.to, 'write', 'to').uri;
  const skillText = await vfs.readText(run.skillFile);
  const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const written = new Set<string>();
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content:
        'You compile source directories into a target directory, following the skill below. Use the tools: list_dir and read_file on the sources, ' +
        'write_file for every output file, then finish. Write only what the skill asks for.\n\n# Skill\n\n' +
        skillText.slice(0, MAX_READ_CHARS),
    },
    {
      role: 'user',
      content: `Sources: ${readable.slice(0, payload.from.length).join(', ')}\nTarget: ${target}\n${payload.instruction ? `Instruction: ${payload.instruction}` : 'Instruction: follow the skill.'}`,
    },
  ];

  const inside = (uri: string, roots: string[]): string => {
    const u = vfs.resolve(uri, 'read', 'uri').uri;
    if (!roots.some((r) => isAncestorOrSelf(r, u))) throw new CtxError('PERMISSION_DENIED', `${u} is outside the compile's sources (${roots.join(', ')})`);
    return u;
  };

  async function call(tc: ToolCall): Promise<{ content: string; finished?: string }> {
    let args: Record<string, unknown>;
    try {
      args = JSON.parse(tc.function.arguments || '{}');
    } catch {
      return { content: 'error: arguments are not valid JSON' };
    }
    try {
      switch (tc.function.name) {
        case 'list_dir': {
          const entries = await vfs.list(inside(String(args.uri ?? ''), readable), { limit: MAX_LIST });
          return { content: JSON.stringify(entries.filter((e) => !e.name.startsWith('.')).map((e) => ({ uri: e.uri, kind: e.kind, size: e.size }))) };
        }
        case 'read_file': {
          const text = await vfs.readText(inside(String(args.uri ?? ''), readable));
          return { content: text.length > MAX_READ_CHARS ? `${text.slice(0, MAX_READ_CHARS)}\n[truncated]` : text };
        }
        case 'write_file': {
          const rel = String(args.path ?? '');
          const segs = rel.split('/');
          if (!rel || rel.startsWith('/') || segs.some((x) => x === '' || x === '.' || x === '..')) return { content: 'error: path must be relative to the target, without "." or ".." segments' };
          const content = typeof args.content === 'string' ? args.content : '';
          if (Buffer.byteLength(content) > MAX_WRITE_BYTES) return { content: `error: a file may hold at most ${MAX_WRITE_BYTES} bytes` };
          if (written.size >= MAX_FILES && !written.has(`${target}/${rel}`)) return { content: `error: at most ${MAX_FILES} files per compile` };
          run.setStage('writing');
          const r = await vfs.writeFile(`${target}/${rel}`, content);
          written.add(r.uri);
          run.onWrite(r.uri);
          run.setStage('agent');
          return { content: `wrote ${r.uri} (${r.size} bytes)` };
        }
        case 'finish':
          return { content: 'ok', finished: String(args.summary ?? '') };
        default:
          return { content: `error: unknown tool ${tc.function.name}` };
      }
    } catch (err) {
      if (signal.aborted) throw err;
      return { content: `error: ${(err as Error).message}` };
    }
  }

  run.setStage('agent');
  for (let turn = 1; turn <= MAX_TURNS; turn++) {
    signal.throwIfAborted();
    let answer;
    try {
      answer = await llm.chat(messages, { tools: TOOLS, signal, maxTokens: 4096 });
    } catch (err) {
      if (signal.aborted || written.size === 0) throw err;
      return { outcome: 'salvaged', written: [...written], turns: turn, summary: `the model failed after ${written.size} file(s) were written: ${(err as Error).message}`, token_usage: usage };
    }
    usage.prompt_tokens += answer.usage.prompt_tokens;
    usage.completion_tokens += answer.usage.completion_tokens;
    usage.total_tokens += answer.usage.total_tokens;
    if (!answer.toolCalls?.length) return { outcome: 'completed', written: [...written], turns: turn, summary: answer.text, token_usage: usage };
    messages.push({ role: 'assistant', content: answer.text || null, tool_calls: answer.toolCalls });
    let finished: string | undefined;
    for (const tc of answer.toolCalls) {
      const r = await call(tc);
      messages.push({ role: 'tool', tool_call_id: tc.id, content: r.content });
      if (r.finished !== undefined) finished = r.finished;
    }
    if (finished !== undefined) return { outcome: 'completed', written: [...written], turns: turn, summary: finished, token_usage: usage };
  }
  if (written.size === 0) throw new CtxError('PROCESSING_ERROR', `the model wrote nothing in ${MAX_TURNS} turns`);
  return { outcome: 'salvaged', written: [...written], turns: MAX_TURNS, summary: `stopped after ${MAX_TURNS} turns; what was written is kept`, token_usage: usage };
}
