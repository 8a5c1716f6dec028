/**
 * A tool as data: its name, a description written for a model, an input schema in the host's own
 * schema library (validated before it runs, published as JSON Schema), and a `run` that calls the
 * host's routes as the caller. Errors become tool results carrying the spec's code, never protocol
 * failures, so a model can read and correct them.
 */
import { CtxError, isCtxError, type AbortLike, type Identity, type InvokeRequest, type PluginHost, type Schema } from 'ctx/plugin';

export interface ToolContext {
  identity: Identity;
  /** The call's cancellation (an AbortSignal on the SDK's path, a `Cancellation` on the direct one). */
  signal: AbortLike;
  host: PluginHost;
  /** A route as the caller: the envelope's result, or the route's CtxError thrown. */
  call(req: Omit<InvokeRequest, 'signal'>): Promise<unknown>;
}

export interface ToolOutput {
  /** What a model reads: short, one fact per line. */
  text: string;
  /** The same answer as data (an object, per the protocol). */
  structured: Record<string, unknown>;
  isError?: boolean;
}

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolDef<A = any> {
  name: string;
  title: string;
  description: string;
  input: Schema<A>;
  annotations: ToolAnnotations;
  run(c: ToolContext, args: A): Promise<ToolOutput>;
}

export function defineTool<A>(def: ToolDef<A>): ToolDef<A> {
  return def;
}

export interface CallToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

export async function runTool(tool: ToolDef, c: ToolContext, rawArgs: unknown): Promise<CallToolResult> {
  try {
    const args = tool.input.parse(rawArgs ?? {}, 'arguments', 'json');
    const out = await tool.run(c, args);
    return { content: [{ type: 'text', text: out.text }], structuredContent: out.structured, ...(out.isError ? { isError: true } : {}) };
  } catch (err) {
    return errorResult(err, c.host);
  }
}

export function errorResult(err: unknown, host: PluginHost): CallToolResult {
  const e = isCtxError(err) ? err : internal(err, host);
  const error = { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) };
  return { content: [{ type: 'text', text: `${e.code}: ${e.message}` }], structuredContent: { error }, isError: true };
}

function internal(err: unknown, host: PluginHost): CtxError {
  host.log.error('mcp tool failed', { error: err, stack: err instanceof Error ? err.stack : undefined });
  return new CtxError('INTERNAL', 'internal error (logged on the server)');
}

/** `value` as an object for structuredContent: objects as they are, anything else under `result`. */
export function asObject(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
}

/** Text cut to `max` characters with a note saying how much was left out. */
export function clip(text: string, max = 400): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x2028 || c === 0x2029 || c === 0xfeff || c === 0x3000;

/** Whitespace `oneLine` would change in a line's head: a run, or any space but ' ', or one at either end. */
const IRREGULAR_SPACE = /[\t\n\v\f\r\u00a0\u2028\u2029\ufeff\u3000]| {2}|^ | $/;

export function oneLine(text: string, max = 200): string {
  // Only the head is read: a regex over each whole abstract (KBs per hit, ten hits a find) was a
  // tenth of a millisecond of every MCP find. Most abstracts are one line already (single spaces
  // between words): then the line is a slice of the text; building it word by word (a slice and a
  // concatenation per word, ~3 µs per hit) is for a head with whitespace to collapse.
  const n = text.length;
  if (IRREGULAR_SPACE.test(n <= max + 1 ? text : text.slice(0, max + 1))) return collapsed(text, max);
  if (n <= max) return text;
  // Cut inside or after the word that crosses max; what was left out is counted from the end of
  // that word's following whitespace, as `collapsed` counts it.
  let wordEnd = max + 1;
  while (wordEnd < n && !isSpace(text.charCodeAt(wordEnd))) wordEnd++;
  let next = wordEnd;
  while (next < n && isSpace(text.charCodeAt(next))) next++;
  return `${text.slice(0, max)}… (${Math.max(1, n - next + wordEnd - max)} more characters)`;
}

/** `oneLine` for a head with whitespace to collapse: the words joined by single spaces. */
function collapsed(text: string, max: number): string {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n && out.length <= max) {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && !isSpace(text.charCodeAt(i))) i++;
    out += out.length > 0 ? ` ${text.slice(start, i)}` : text.slice(start, i);
  }
  while (i < n && isSpace(text.charCodeAt(i))) i++;
  if (out.length <= max && i >= n) return out;
  // What was left out: the characters of the text beyond those the line shows (its whitespace
  // counted as in the text, so the figure never exceeds the text's length).
  return `${out.slice(0, max)}… (${Math.max(1, n - i + out.length - max)} more characters)`;
}
