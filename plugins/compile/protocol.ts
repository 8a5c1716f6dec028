/**
 * The compile runtime protocol (spec Part 3, "Compile", runtime protocol table) as the plugin sees
 * it, whatever carries it: the bundled backend in this process, `/runtime/v1` over HTTP, or gRPC
 * (`proto/runtime.proto`). One payload check serves every transport so they answer the same 4xx.
 */
import { invalidArgument } from 'ctx/plugin';

export const TASK_TYPE = 'compile';
export const RUNTIME_STATUSES = ['pending', 'running', 'cancelling', 'completed', 'failed', 'cancelled'] as const;
export type RuntimeStatusName = (typeof RUNTIME_STATUSES)[number];
export const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

export interface CompilePayload {
  from: string[];
  to: string;
  skill: string;
  instruction?: string;
  args?: Record<string, unknown>;
}

/** `{status, stage, error, meta, result}`: one execution session's state. */
export interface RuntimeStatus {
  status: RuntimeStatusName;
  stage: string | null;
  error: string | null;
  meta: Record<string, unknown>;
  result: Record<string, unknown> | null;
}

/** Who submitted a session: status and cancel answer only the same principal. */
export interface Principal {
  /** Stable per user (`account\0user` in process; a key digest at an external backend). */
  owner: string;
}

/** Checks `{task_type, payload}` of a submit; throws 400 naming the field, before any session exists. */
export function checkSubmit(body: unknown): CompilePayload {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidArgument('body must be an object {task_type, payload}', { field: 'body' });
  const { task_type: type, payload } = body as { task_type?: unknown; payload?: unknown };
  if (type === undefined) throw invalidArgument('task_type is required', { field: 'task_type' });
  if (type !== TASK_TYPE) throw invalidArgument(`unsupported task_type ${JSON.stringify(type)}: this backend runs 'compile'`, { field: 'task_type' });
  if (payload === undefined) throw invalidArgument('payload is required', { field: 'payload' });
  return checkPayload(payload);
}

export function checkPayload(payload: unknown): CompilePayload {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw invalidArgument('payload must be an object {from, to, skill, instruction?, args?}', { field: 'payload' });
  const p = payload as Record<string, unknown>;
  for (const k of Object.keys(p))
    if (!['from', 'to', 'skill', 'instruction', 'args'].includes(k)) throw invalidArgument(`unknown field payload.${k}`, { field: `payload.${k}` });
  if (!Array.isArray(p.from) || p.from.length === 0 || !p.from.every((f) => typeof f === 'string' && f.length > 0))
    throw invalidArgument('payload.from must be a non-empty array of directory URIs', { field: 'payload.from' });
  if (p.from.length > 32) throw invalidArgument('payload.from takes at most 32 directories', { field: 'payload.from' });
  if (typeof p.to !== 'string' || !p.to) throw invalidArgument('payload.to must be a non-empty URI', { field: 'payload.to' });
  if (typeof p.skill !== 'string' || !p.skill) throw invalidArgument('payload.skill must be a non-empty URI', { field: 'payload.skill' });
  if (p.instruction !== undefined && p.instruction !== null && typeof p.instruction !== 'string') throw invalidArgument('payload.instruction must be a string', { field: 'payload.instruction' });
  if (p.args !== undefined && p.args !== null && (typeof p.args !== 'object' || Array.isArray(p.args))) throw invalidArgument('payload.args must be an object', { field: 'payload.args' });
  const out: CompilePayload = { from: p.from as string[], to: p.to, skill: p.skill };
  if (typeof p.instruction === 'string') out.instruction = p.instruction;
  if (p.args) out.args = p.args as Record<string, unknown>;
  return out;
}

/**
 * Removes every occurrence of a secret from a value headed for a task record or a log: a backend
 * that echoes the caller's key in an error or result must not publish it.
 */
export function scrub<T>(value: T, secrets: ReadonlyArray<string | undefined>): T {
  const live = secrets.filter((x): x is string => typeof x === 'string' && x.length >= 4);
  if (!live.length) return value;
  const clean = (v: unknown): unknown => {
    if (typeof v === 'string') return live.reduce((acc, sec) => acc.split(sec).join('[redacted]'), v);
    if (Array.isArray(v)) return v.map(clean);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clean(x)]));
    return v;
  };
  return clean(value) as T;
}
