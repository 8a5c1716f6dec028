/**
 * Watches (issue 11, item 3; spec Part 2 "Watches"): a resource added with `watch_interval` > 0 is
 * imported again every `watch_interval` minutes into the same root. Records live in the plugin's
 * keyspace (`{account}\0{task_id}`), so they survive a restart, and a scheduler in this process
 * fires them from that record's `next_execution_time`. The re-ingest itself is an ordinary
 * `add_resource` task (the caller of `fire` creates it), so it has the same stages, events,
 * cancellation and replace-the-root semantics as the first import.
 */
import { randomUUID } from 'node:crypto';
import type { Identity, Kv, Role } from 'ctx/plugin';
import type { GitAuth } from './git.js';

export interface ProcessorKwargs {
  include?: string | null;
  exclude?: string | null;
  ignore_dirs?: string | null;
  tags?: string[];
  tag_mode?: 'replace' | 'append';
  ref?: string;
  strict?: boolean;
  preserve_structure?: boolean | null;
  directly_upload_media?: boolean;
  processing_mode?: ProcessingMode;
  parse_mode?: 'default' | 'no_split';
}

export type ProcessingMode = 'semantic_and_vectors' | 'vectors_only';

/** The spec's Watch task, plus what the scheduler needs (`to_path`, `needs_credentials`). */
export interface Watch {
  task_id: string;
  path: string;
  source_type: string | null;
  to_uri: string;
  parent_uri: string | null;
  reason: string;
  instruction: string;
  watch_interval: number;
  build_index: boolean;
  summarize: boolean;
  processor_kwargs: ProcessorKwargs;
  created_at: string;
  last_execution_time: string | null;
  last_task_id: string | null;
  last_status: 'completed' | 'failed' | 'cancelled' | null;
  last_error: string | null;
  next_execution_time: string;
  is_active: boolean;
  account_id: string;
  user_id: string;
  original_role: Role;
  to_path: string;
  /** The source was fetched with credentials, which are never stored (see `secrets`). */
  needs_credentials: boolean;
}

export const ERROR_MAX = 500;

/**
 * `text` safe to store and return: URL user-info, the watch's own secret wherever it appears, and
 * the usual token shapes are replaced, then cut to 500 characters (spec Part 1 limits).
 */
export function redact(text: string, secrets: string[] = []): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join('[redacted]');
  out = out
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1[redacted]@')
    .replace(/(bearer\s+|basic\s+)[^\s"']+/gi, '$1[redacted]')
    .replace(/((?:api[_-]?key|token|secret|password|authorization)["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, '$1[redacted]')
    .replace(/\b(sk|ghp|gho|glpat|github_pat)[-_][A-Za-z0-9_-]{8,}/g, '[redacted]');
  return out.length > ERROR_MAX ? out.slice(0, ERROR_MAX - 1) + '…' : out;
}

const key = (account: string, id: string) => `${account}\0${id}`;

/** Durable records with an in-memory copy for the scheduler's tick (the store is the truth on start). */
export class WatchStore {
  private readonly byKey = new Map<string, Watch>();
  /**
   * Git credentials of a watch, in memory only: a restart forgets them, and the next run records
   * `last_error` asking for them again (the resource is added again with `args.auth_config`).
   */
  readonly secrets = new Map<string, GitAuth>();

  constructor(private readonly kv: Kv) {}

  async load(): Promise<void> {
    this.byKey.clear();
    for await (const [k, v] of this.kv.scanPrefix('')) this.byKey.set(k, JSON.parse(v.toString('utf8')) as Watch);
  }

  all(): Watch[] {
    return [...this.byKey.values()];
  }

  get(account: string, id: string): Watch | undefined {
    return this.byKey.get(key(account, id));
  }

  byPath(account: string, toPath: string): Watch | undefined {
    for (const w of this.byKey.values()) if (w.account_id === account && w.to_path === toPath) return w;
    return undefined;
  }

  /** In memory first, so a read right after sees it; the keyspace keeps writes in their order. */
  async put(w: Watch): Promise<void> {
    this.byKey.set(key(w.account_id, w.task_id), w);
    await this.kv.putJson(key(w.account_id, w.task_id), w);
  }

  /** Changes the current record (whatever else changed it meanwhile), if it still exists. */
  async update(account: string, id: string, fn: (w: Watch) => Watch): Promise<Watch | undefined> {
    const w = this.get(account, id);
    if (!w) return undefined;
    const next = fn(w);
    await this.put(next);
    return next;
  }

  async del(w: Watch): Promise<void> {
    this.byKey.delete(key(w.account_id, w.task_id));
    this.secrets.delete(w.task_id);
    await this.kv.del(key(w.account_id, w.task_id));
  }

  async dropAccount(account: string): Promise<void> {
    for (const w of this.all()) if (w.account_id === account) await this.del(w);
  }

  /** What `who` may see and change: their own watches; an account ADMIN (or ROOT) all of the account's. */
  visible(who: Identity, w: Watch): boolean {
    if (w.account_id !== who.accountId) return false;
    return who.role !== 'USER' || w.user_id === who.userId;
  }

  create(fields: Omit<Watch, 'task_id' | 'created_at' | 'last_execution_time' | 'last_task_id' | 'last_status' | 'last_error' | 'next_execution_time' | 'is_active' | 'build_index' | 'summarize'>, now: number): Watch {
    return {
      task_id: randomUUID(),
      build_index: true,
      summarize: false,
      created_at: new Date(now).toISOString(),
      last_execution_time: null,
      last_task_id: null,
      last_status: null,
      last_error: null,
      next_execution_time: new Date(now + minutes(fields.watch_interval)).toISOString(),
      is_active: true,
      ...fields,
    };
  }
}

export const minutes = (m: number) => m * 60_000;

/**
 * The first slot of the watch's cadence after `now`: the phase set by its last schedule is kept
 * (pause/resume and a restart do not shift it), and slots missed while down or paused collapse
 * into one run instead of a burst.
 */
export function nextSlot(scheduled: number, intervalMin: number, now: number): number {
  const step = Math.max(1, minutes(intervalMin));
  if (scheduled > now) return scheduled;
  return scheduled + (Math.floor((now - scheduled) / step) + 1) * step;
}

/** Public view: the spec's fields only. */
export function publicWatch(w: Watch): Record<string, unknown> {
  const { to_path: _p, needs_credentials: _c, ...rest } = w;
  return rest;
}
