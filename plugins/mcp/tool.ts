/**
 * A tool as data: its name, a description written for a model, an input schema in the host's own
 * schema library (validated before it runs, published as JSON Schema), and a `run` that calls the
 * host's routes as the caller. Errors become tool results carrying the spec's code, never protocol
 * failures, so a model can read and correct them.
 */
import { CtxError, isCtxError, type Identity, type InvokeRequest, type PluginHost, type Schema } from 'ctx/plugin';

export interface ToolContext {
  identity: Identity;
  signal: AbortSignal;
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

export function oneLine(text: string, max = 200): string {
  // Word by word over the head only, whitespace runs collapsed to one space, stopping once the line
  // is full: a regex over each whole abstract (KBs per hit, ten hits a find) was a tenth of a
  // millisecond of every MCP find, and appending a character at a time half of that again.
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
