/**
 * LLM provider: any OpenAI-compatible `POST {baseUrl}/chat/completions` (OpenAI, Ollama, vLLM,
 * llama.cpp server). The base URL includes `/v1` as in OpenAI's SDKs. Unset base URL = no LLM;
 * callers then use their deterministic fallbacks (createLlm returns null).
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  /** Null on an assistant message that only calls tools (OpenAI's shape). */
  content: string | null;
  /** An assistant message's tool calls, echoed back to the model on the next turn. */
  tool_calls?: ToolCall[];
  /** A `tool` message answers the call with this id. */
  tool_call_id?: string;
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

  async function once(messages: ChatMessage[], opts: ChatOptions): Promise<ChatResult> {
    const body: Record<string, unknown> = { model, messages, temperature: opts.temperature ?? 0, stream: false };
    if (opts.maxTokens) body.max_tokens = opts.maxTokens;
    if (opts.json) body.response_format = { type: 'json_object' };
    if (opts.tools?.length) body.tools = opts.tools.map((f) => ({ type: 'function', function: f }));
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await fetch(`${base}/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body), signal });
    } catch (err) {
      throw new LlmError(`LLM request failed: ${(err as Error).message}`, undefined, { cause: err });
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
    return toolCalls?.length ? { text, toolCalls, usage: u } : { text, usage: u };
  }

  return {
    model,
    usage,
    async chat(messages, opts = {}) {
      usage.requests++;
      for (let attempt = 0; ; attempt++) {
        try {
          const r = await once(messages, opts);
          usage.prompt_tokens += r.usage.prompt_tokens;
          usage.completion_tokens += r.usage.completion_tokens;
          return r;
        } catch (err) {
          const status = (err as LlmError).status;
          const retryable = status === undefined ? !opts.signal?.aborted : RETRYABLE.has(status);
          if (attempt >= retries || !retryable) {
            usage.failures++;
            throw err;
          }
          await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
        }
      }
    },
  };
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
