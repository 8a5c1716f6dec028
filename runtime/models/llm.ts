/**
 * LLM provider: any OpenAI-compatible `POST {baseUrl}/chat/completions` (OpenAI, Ollama, vLLM,
 * llama.cpp server). The base URL includes `/v1` as in OpenAI's SDKs. Unset base URL = no LLM;
 * callers then use their deterministic fallbacks (createLlm returns null).
 */
import { ModelCallMetrics } from '../metrics/model-metrics.js';
import { startOutbound } from '../tracing/tracing.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  /** Null on an assistant message that only calls tools (OpenAI's shape). */
  content: string | null;
  /** An assistant message's tool calls, echoed back to the model on the next turn. */
  tool_calls?: ToolCall[];
  /** A `tool` message answers the call with this id. */
  tool_call_id?: string;
  /**
   * Image URLs (https or `data:` URLs) sent with a user message as OpenAI content parts
   * (`[{type:'text'}, {type:'image_url', image_url:{url, detail}}]`); the caller validates them.
   */
  images?: Array<{ url: string; detail?: 'auto' | 'low' | 'high' }>;
}

/** One piece of a streamed answer: text, or reasoning on servers that stream it apart. */
export interface ChatDelta {
  content?: string;
  reasoning?: string;
}

/** A function the model may call (OpenAI `tools: [{type: 'function', function}]`). */
export interface ToolDef {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  type: 'function';
  /** `arguments` is the model's JSON text, unparsed: models get it wrong and the caller decides. */
  function: { name: string; arguments: string };
}

export interface ChatOptions {
  maxTokens?: number;
  temperature?: number;
  /** Ask for a JSON object (`response_format: {type: 'json_object'}`), which most servers honour. */
  json?: boolean;
  /** Functions the model may call; the answer then may carry `toolCalls` instead of text. */
  tools?: ToolDef[];
  signal?: AbortSignal;
  /**
   * Stream the answer (`stream: true` with usage in the last chunk): called with each piece as it
   * arrives; the result is still the whole answer (text, tool calls assembled from their deltas,
   * usage). A request that already streamed a piece is not retried (the caller has shown it).
   */
  onDelta?: (delta: ChatDelta) => void;
}

export interface ChatResult {
  text: string;
  /** The model's tool calls, when it made any (`text` is then usually empty). */
  toolCalls?: ToolCall[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export interface Llm {
  readonly model: string;
  chat(messages: ChatMessage[], opts?: ChatOptions): Promise<ChatResult>;
  /** Totals since start, for observers and session token accounting. */
  readonly usage: { requests: number; failures: number; prompt_tokens: number; completion_tokens: number };
}

export interface LlmConfig {
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
  retries?: number;
}

export class LlmError extends Error {
  constructor(message: string, readonly status?: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LlmError';
  }
}

const RETRYABLE = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

export function createLlm(config: LlmConfig): Llm | null {
  if (!config.baseUrl) return null;
  const base = config.baseUrl.replace(/\/+$/, '');
  const model = config.model ?? 'default';
  const timeoutMs = config.timeoutMs ?? 60_000;
  const retries = config.retries ?? 2;
  const usage = { requests: 0, failures: 0, prompt_tokens: 0, completion_tokens: 0 };
  const metrics = new ModelCallMetrics('llm', 'openai', model);

  async function once(messages: ChatMessage[], opts: ChatOptions): Promise<ChatResult> {
    const body: Record<string, unknown> = { model, messages: messages.map(wireMessage), temperature: opts.temperature ?? 0, stream: !!opts.onDelta };
    if (opts.onDelta) body.stream_options = { include_usage: true };
    if (opts.maxTokens) body.max_tokens = opts.maxTokens;
    if (opts.json) body.response_format = { type: 'json_object' };
    if (opts.tools?.length) body.tools = opts.tools.map((f) => ({ type: 'function', function: f }));
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
    // W3C trace context of the request, task or queue message this call serves.
    const outbound = startOutbound('POST /chat/completions', { 'gen_ai.request.model': model });
    if (outbound) headers.traceparent = outbound.traceparent;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await fetch(`${base}/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body), signal });
    } catch (err) {
      outbound?.end(true);
      throw new LlmError(`LLM request failed: ${(err as Error).message}`, undefined, { cause: err });
    }
    outbound?.end(!res.ok);
    if (res.ok && opts.onDelta && /^text\/event-stream\b/i.test(res.headers.get('content-type') ?? '') && res.body) {
      return readStream(res.body, opts.onDelta, res.status, opts.tools?.length ? true : false);
    }
    const raw = await res.text();
    if (!res.ok) throw new LlmError(`LLM answered HTTP ${res.status}: ${raw.slice(0, 200)}`, res.status);
    let json: { choices?: Array<{ message?: { content?: unknown; tool_calls?: unknown } }>; usage?: Partial<ChatResult['usage']> };
    try {
      json = JSON.parse(raw);
    } catch {
      throw new LlmError('LLM answered with a body that is not JSON', res.status);
    }
    const message = json.choices?.[0]?.message;
    const toolCalls = opts.tools?.length ? parseToolCalls(message?.tool_calls) : undefined;
    const text = message?.content ?? (toolCalls?.length ? '' : undefined);
    if (typeof text !== 'string') throw new LlmError('LLM answer has no choices[0].message.content', res.status);
    const u = {
      prompt_tokens: json.usage?.prompt_tokens ?? 0,
      completion_tokens: json.usage?.completion_tokens ?? 0,
      total_tokens: json.usage?.total_tokens ?? (json.usage?.prompt_tokens ?? 0) + (json.usage?.completion_tokens ?? 0),
    };
    // A server that ignored `stream: true` answered whole: the caller still gets its text once.
    if (opts.onDelta && text) opts.onDelta({ content: text });
    return toolCalls?.length ? { text, toolCalls, usage: u } : { text, usage: u };
  }

  return {
    model,
    usage,
    chat(messages, opts = {}) {
      return metrics.time(() => chatWithRetries(messages, opts));
    },
  };

  async function chatWithRetries(messages: ChatMessage[], opts: ChatOptions): Promise<ChatResult> {
      usage.requests++;
      let streamed = false;
      const onDelta = opts.onDelta;
      const o: ChatOptions = onDelta ? { ...opts, onDelta: (d) => ((streamed = true), onDelta(d)) } : opts;
      for (let attempt = 0; ; attempt++) {
        try {
          const r = await once(messages, o);
          usage.prompt_tokens += r.usage.prompt_tokens;
          usage.completion_tokens += r.usage.completion_tokens;
          metrics.tokens(r.usage.prompt_tokens, r.usage.completion_tokens);
          return r;
        } catch (err) {
          const status = (err as LlmError).status;
          const retryable = status === undefined ? !opts.signal?.aborted : RETRYABLE.has(status);
          if (attempt >= retries || !retryable || streamed) {
            usage.failures++;
            throw err;
          }
          await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
        }
      }
  }
}

function wireMessage(m: ChatMessage): Record<string, unknown> {
  if (!m.images?.length) return m as unknown as Record<string, unknown>;
  const { images, ...rest } = m;
  const parts: unknown[] = m.content ? [{ type: 'text', text: m.content }] : [];
  for (const img of images) parts.push({ type: 'image_url', image_url: img.detail ? { url: img.url, detail: img.detail } : { url: img.url } });
  return { ...rest, content: parts };
}

/**
 * Reads an OpenAI chat completion stream (`data: {choices:[{delta}]}` lines, `data: [DONE]`):
 * content and reasoning go to `onDelta` as they arrive; tool calls are assembled from their
 * per-index pieces (id and name once, arguments in fragments); usage comes with the last chunk.
 */
async function readStream(body: ReadableStream<Uint8Array>, onDelta: (d: ChatDelta) => void, status: number, wantTools: boolean): Promise<ChatResult> {
  const decoder = new TextDecoder();
  let buf = '';
  let text = '';
  const calls: Array<{ id?: string; name: string; args: string }> = [];
  const u = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  let done = false;
  const line = (l: string) => {
    if (!l.startsWith('data:')) return;
    const data = l.slice(5).trim();
    if (data === '[DONE]') return void (done = true);
    let chunk: { choices?: Array<{ delta?: Record<string, unknown> }>; usage?: Partial<ChatResult['usage']>; error?: { message?: string } };
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new LlmError('LLM stream carried a chunk that is not JSON', status);
    }
    if (chunk.error) throw new LlmError(`LLM stream failed: ${chunk.error.message ?? 'unknown error'}`, status);
    if (chunk.usage) {
      u.prompt_tokens = chunk.usage.prompt_tokens ?? u.prompt_tokens;
      u.completion_tokens = chunk.usage.completion_tokens ?? u.completion_tokens;
      u.total_tokens = chunk.usage.total_tokens ?? u.prompt_tokens + u.completion_tokens;
    }
    const delta = chunk.choices?.[0]?.delta;
    if (!delta) return;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string' && reasoning) onDelta({ reasoning });
    if (typeof delta.content === 'string' && delta.content) {
      text += delta.content;
      onDelta({ content: delta.content });
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const tc of delta.tool_calls as Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>) {
        const i = tc.index ?? calls.length;
        const c = (calls[i] ??= { name: '', args: '' });
        if (tc.id) c.id = tc.id;
        if (tc.function?.name) c.name += tc.function.name;
        if (typeof tc.function?.arguments === 'string') c.args += tc.function.arguments;
      }
    }
  };
  try {
    for await (const piece of body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(piece, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        line(buf.slice(0, nl).replace(/\r$/, ''));
        buf = buf.slice(nl + 1);
      }
      if (done) break;
    }
  } catch (err) {
    if (err instanceof LlmError) throw err;
    // A connection cut mid-answer: no status, so the caller's retry rule (nothing shown yet) applies.
    throw new LlmError(`LLM stream broke: ${(err as Error).message}`, undefined, { cause: err });
  }
  if (buf) line(buf);
  const toolCalls: ToolCall[] = [];
  if (wantTools) calls.forEach((c, i) => c?.name && toolCalls.push({ id: c.id ?? `call_${i}`, type: 'function', function: { name: c.name, arguments: c.args || '{}' } }));
  if (u.total_tokens === 0) u.total_tokens = u.prompt_tokens + u.completion_tokens;
  return toolCalls.length ? { text, toolCalls, usage: u } : { text, usage: u };
}

function parseToolCalls(raw: unknown): ToolCall[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: ToolCall[] = [];
  for (const c of raw) {
    const fn = (c as { function?: { name?: unknown; arguments?: unknown } })?.function;
    if (!fn || typeof fn.name !== 'string') continue;
    const id = (c as { id?: unknown }).id;
    out.push({
      id: typeof id === 'string' ? id : `call_${out.length}`,
      type: 'function',
      function: { name: fn.name, arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}) },
    });
  }
  return out;
}

/** Pulls the first JSON object out of a model answer (models wrap JSON in prose or code fences). */
export function parseJsonAnswer(text: string): Record<string, unknown> | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  try {
    const v = JSON.parse(text.slice(start, end + 1));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
