/**
 * One chat turn: relevant contexts from the store, then a tool loop over the OpenAI-compatible LLM
 * (streamed when the caller streams), then the answer recorded as a response feedback can target.
 * Events go to `emit` as they happen; the SSE route sends them, the plain route collects them.
 */
import { randomUUID } from 'node:crypto';
import type { ChatMessage, Llm, Logger } from 'ctx/plugin';
import type { ChatImage } from './images.js';
import type { BotStore } from './store.js';
import { TOOLS, runTool, type Hit, type ToolEnv } from './tools.js';

/** Starts the system prompt; the test server tells the bot's requests from the indexer's by it. */
export const SYSTEM_MARK = "You are ctx's assistant";
/** Tool rounds before the model must answer without tools (a loop that never ends costs tokens). */
export const MAX_TOOL_ROUNDS = 6;
export const RELEVANT_LIMIT = 5;
/** What a tool_result event shows of a tool's output; the model gets all of it. */
const RESULT_PREVIEW = 2000;

export type EventKind = 'reasoning' | 'reasoning_delta' | 'tool_call' | 'tool_result' | 'content_delta' | 'iteration' | 'response';
export interface BotEvent {
  event: EventKind;
  data: unknown;
  timestamp: string;
}

export interface ChatInput {
  message: string;
  images: ChatImage[];
  session_id: string;
  context: Array<{ role: string; content: string }> | null;
  need_reply: boolean;
  disabled_tools: string[];
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatOutcome {
  session_id: string;
  response_id: string | null;
  message: string;
  events: BotEvent[];
  relevant_memories: Array<{ uri: string; context_type: string; abstract: string; score: number }>;
  token_usage: Usage;
  timestamp: string;
}

export interface ChatDeps {
  llm: Llm;
  store: BotStore;
  log: Logger;
}

const now = () => new Date().toISOString();

export async function runChat(deps: ChatDeps, env: ToolEnv, input: ChatInput, opts: { stream: boolean; signal: AbortSignal; emit?: (e: BotEvent) => void }): Promise<ChatOutcome> {
  const events: BotEvent[] = [];
  const emit = (event: EventKind, data: unknown) => {
    const e = { event, data, timestamp: now() };
    // Deltas are the stream's business; the collected list keeps what a non-streaming client reads.
    if (event !== 'content_delta' && event !== 'reasoning_delta') events.push(e);
    opts.emit?.(e);
  };
  const { account, user } = { account: env.identity.accountId, user: env.identity.userId };
  const relevant = await relevantContexts(deps, env, input.message);
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const userTurn = { role: 'user' as const, content: input.message };

  if (!input.need_reply) {
    await deps.store.record(account, user, input.session_id, [userTurn]);
    return { session_id: input.session_id, response_id: null, message: '', events, relevant_memories: relevant, token_usage: usage, timestamp: now() };
  }

  const history = await deps.store.history(account, user, input.session_id);
  const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt(relevant) }];
  for (const c of input.context ?? []) messages.push({ role: c.role === 'assistant' ? 'assistant' : 'user', content: c.content });
  for (const t of history) messages.push({ role: t.role, content: t.content });
  messages.push({ role: 'user', content: input.message, ...(input.images.length ? { images: input.images.map((i) => i.image_url) } : {}) });

  const disabled = new Set(input.disabled_tools);
  const tools = TOOLS.filter((t) => !disabled.has(t.name));
  const onDelta = opts.stream ? (d: { content?: string; reasoning?: string }) => (d.content ? emit('content_delta', { delta: d.content }) : emit('reasoning_delta', { delta: d.reasoning })) : undefined;
  let answer = '';
  for (let round = 1; ; round++) {
    const last = round > MAX_TOOL_ROUNDS || tools.length === 0;
    emit('iteration', { iteration: round });
    const r = await deps.llm.chat(messages, { tools: last ? undefined : tools, signal: opts.signal, onDelta, maxTokens: 4096, temperature: 0.2 });
    usage.prompt_tokens += r.usage.prompt_tokens;
    usage.completion_tokens += r.usage.completion_tokens;
    usage.total_tokens += r.usage.total_tokens;
    if (!r.toolCalls?.length) {
      answer = r.text;
      break;
    }
    if (r.text) emit('reasoning', { content: r.text });
    messages.push({ role: 'assistant', content: r.text || null, tool_calls: r.toolCalls });
    for (const tc of r.toolCalls) {
      emit('tool_call', { id: tc.id, name: tc.function.name, arguments: tc.function.arguments });
      const out = await runTool(env, tc.function.name, tc.function.arguments, disabled);
      emit('tool_result', { id: tc.id, name: tc.function.name, ok: out.ok, result: out.content.length > RESULT_PREVIEW ? `${out.content.slice(0, RESULT_PREVIEW)}…` : out.content });
      messages.push({ role: 'tool', tool_call_id: tc.id, content: out.content });
    }
  }

  const responseId = randomUUID();
  await deps.store.record(account, user, input.session_id, [userTurn, { role: 'assistant', content: answer }], {
    id: responseId,
    rec: { session_id: input.session_id, user_id: user, created_at: Date.now() },
  });
  emit('response', { content: answer, response_id: responseId, session_id: input.session_id, token_usage: usage });
  return { session_id: input.session_id, response_id: responseId, message: answer, events, relevant_memories: relevant, token_usage: usage, timestamp: now() };
}

/** The find route's best hits for the message; retrieval trouble costs the context, not the chat. */
async function relevantContexts(deps: ChatDeps, env: ToolEnv, message: string): Promise<ChatOutcome['relevant_memories']> {
  if (!env.find || !message.trim()) return [];
  try {
    const r = await env.find.find(env.identity, { query: message.slice(0, 8192), limit: RELEVANT_LIMIT });
    const hits: Hit[] = [...r.memories, ...r.resources, ...r.skills].sort((a, b) => b.score - a.score).slice(0, RELEVANT_LIMIT);
    return hits.map((h) => ({ uri: h.uri, context_type: h.context_type, abstract: h.abstract, score: h.score }));
  } catch (err) {
    deps.log.warn('relevant contexts unavailable; answering without them', { error: err });
    return [];
  }
}

function systemPrompt(relevant: ChatOutcome['relevant_memories']): string {
  const lines = [
    `${SYSTEM_MARK}: you answer the user from what ctx, their context store, holds (memories, resources, skills under ctx:// URIs).`,
    'Use the tools to look things up when the contexts below are not enough; cite the ctx:// URIs you used. Say so when you do not know.',
  ];
  if (relevant.length) {
    lines.push('', 'Contexts that look relevant to this message:');
    for (const r of relevant) lines.push(`- ${r.uri} (${r.context_type}, score ${r.score}): ${r.abstract}`);
  }
  return lines.join('\n');
}
