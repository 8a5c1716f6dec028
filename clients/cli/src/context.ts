/** What every command handler gets: parsed options, output, and a client built on first use. */
import type { Command } from 'commander';
import type { CtxClient } from 'ctx-client/node';
import { report, UsageError } from './exit.js';
import { makeOut, type Out } from './output.js';
import { resolveConnection, type Connection } from './profiles.js';

export interface Cx {
  out: Out;
  /** This command's options merged with the global ones. */
  opts: Record<string, unknown>;
  connection(): Promise<Connection>;
  client(): Promise<CtxClient>;
}

export type Handler = (cx: Cx, args: Array<string | string[] | undefined>, opts: Record<string, any>) => Promise<void>;

export async function runHandler(cmd: Command, args: Array<string | string[] | undefined>, load: () => Promise<Handler>): Promise<void> {
  const opts = cmd.optsWithGlobals() as Record<string, unknown>;
  const out = makeOut(Boolean(opts.json), opts.color === false);
  let conn: Connection | undefined;
  let client: CtxClient | undefined;
  const cx: Cx = {
    out,
    opts,
    async connection() {
      return (conn ??= await resolveConnection({ url: opts.url as string | undefined, apiKey: opts.apiKey as string | undefined, profile: opts.profile as string | undefined }));
    },
    async client() {
      if (client) return client;
      const c = await cx.connection();
      const { CtxClient, httpFetch } = await import('ctx-client/node');
      const peer = (opts.peer as string | undefined) ?? c.peer;
      // node:http, not the global fetch: loading undici would be most of a short command's time.
      return (client = new CtxClient({ url: c.url, apiKey: c.apiKey, headers: peer ? { 'x-ctx-actor-peer': peer } : undefined, fetch: httpFetch }));
    },
  };
  try {
    const handler = await load();
    await handler(cx, args, opts);
  } catch (err) {
    process.exitCode = report(err, out.json);
  }
}

/** `resources/x` → `ctx://resources/x`; `~/x` → `ctx://~/x`; a full URI stays as it is. */
export function uri(s: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) return s;
  return `ctx://${s.replace(/^\/+/, '')}`;
}

export function int(v: unknown, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new UsageError(`${name} must be an integer, got ${String(v)}`);
  return n;
}

export function jsonArg(v: string, name: string): unknown {
  try {
    return JSON.parse(v);
  } catch {
    throw new UsageError(`${name} must be JSON, got ${v}`);
  }
}

/** Reads all of stdin (for `write` without a file). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
