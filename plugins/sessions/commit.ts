/**
 * Session commit (spec Part 3 "States and transitions"; Part 1 `session_commit` result).
 *
 * Phase 1, synchronous, under the session's lock: the live messages (minus `keep_recent_count`)
 * move to `history/archive_NNN/` and the counters change, in one atomic batch. The
 * `session_commit` task is created under the same lock, so it cannot start before the archive
 * exists; if the process dies between the two, the resumed task finds no archive and completes
 * with `archived: false`.
 *
 * Phase 2, the task: summary and memory extraction, memory files merged (idempotent), then the
 * archive's `.abstract.md`, `.overview.md`, `memory_diff.json`, `.done` and the session's counters
 * in one final batch. A task that finds `.done` already written returns the recorded result, so a
 * retry or a resume after a restart never counts or writes twice.
 */
import { type Identity, type Llm, type PluginHost, type PluginTaskContext } from 'ctx/plugin';
import { extract } from './extract.js';
import { writeMemories } from './memories.js';
import { enabledCategories } from './policy.js';
import { archiveName, DIFF, DONE, LIVE, META, sessionDir, uriOf, type DoneMarker, type SessionStore } from './store.js';
import { countTokens, messageTokens } from './tokens.js';
import { MEMORY_CATEGORIES, type SessionMeta } from './types.js';
import { toJsonl } from './messages.js';

export const TASK_TYPE = 'session_commit';

export interface CommitStarted {
  session_id: string;
  status: 'accepted';
  task_id: string | null;
  archive_uri: string | null;
  archived: boolean;
}

interface TaskInput {
  session_id: string;
  archive_id: string;
  used: string[];
  /** The session's `created_at`: a session deleted and created again under the same id is another session. */
  session_created_at?: string;
}


export class Committer {
  constructor(
    private readonly host: PluginHost,
    private readonly store: SessionStore,
    private readonly llm: Llm | null,
  ) {}

  /**
   * Phase 1. `keepRecent` live messages stay unarchived. Returns null when the session does not
   * exist. `auto` marks an automatic commit (its time gates `min_commit_interval_seconds`).
   */
  async commit(identity: Identity, sessionId: string, opts: { keepRecent?: number; auto?: (meta: SessionMeta) => boolean } = {}): Promise<CommitStarted | null> {
    const account = identity.accountId;
    const dir = sessionDir(identity.userId, sessionId);
    return this.store.withLock(account, dir, async (lock) => {
      const meta = await this.store.meta(account, dir);
      if (!meta) return null;
      if (opts.auto && !opts.auto(meta)) return { session_id: sessionId, status: 'accepted', task_id: null, archive_uri: null, archived: false };
      const live = await this.store.live(account, dir);
      const keep = opts.keepRecent ? live.slice(Math.max(0, live.length - opts.keepRecent)) : [];
      const archived = live.slice(0, live.length - keep.length);
      if (archived.length === 0) return { session_id: sessionId, status: 'accepted', task_id: null, archive_uri: null, archived: false };
      const n = meta.archive_seq + 1;
      const name = archiveName(n);
      const archiveDir = `${dir}/history/${name}`;
      const input: TaskInput = { session_id: sessionId, archive_id: name, used: meta.used_since_commit ?? [], session_created_at: meta.created_at };
      const task = await this.host.tasks.create(TASK_TYPE, identity, { resourceId: uriOf(dir), input });
      const now = new Date().toISOString();
      const next: SessionMeta = {
        ...meta,
        updated_at: now,
        message_count: keep.length,
        pending_tokens: keep.reduce((t, m) => t + messageTokens(m), 0),
        commit_count: meta.commit_count + 1,
        last_commit_at: now,
        archive_seq: n,
        used_since_commit: [],
        last_auto_commit_at: opts.auto ? now : meta.last_auto_commit_at,
      };
      await this.store.write(account, lock, {
        [`${archiveDir}/${LIVE}`]: toJsonl(archived),
        [`${dir}/${LIVE}`]: toJsonl(keep),
        [`${dir}/${META}`]: JSON.stringify(next),
      });
      return { session_id: sessionId, status: 'accepted', task_id: task.task_id, archive_uri: uriOf(archiveDir), archived: true };
    });
  }

  /** Phase 2: the `session_commit` task. */
  async run(task: PluginTaskContext, raw: unknown): Promise<Record<string, unknown>> {
    const input = raw as TaskInput;
    const account = task.task.owner.account_id;
    const userId = task.task.owner.user_id;
    const dir = sessionDir(userId, input.session_id);
    const archiveDir = `${dir}/history/${input.archive_id}`;
    const base = { session_id: input.session_id, archive_uri: uriOf(archiveDir), memory_diff_uri: uriOf(`${archiveDir}/${DIFF}`) };
    // Waits for phase 1 to release the session, then reads a consistent state.
    const [meta, marker, messages] = await this.store.withLock(account, dir, async () => {
      const done = await this.store.exists(account, `${archiveDir}/${DONE}`);
      return [
        await this.store.meta(account, dir),
        done ? (JSON.parse((await this.store.readFile(account, `${archiveDir}/${DONE}`)).toString('utf8')) as DoneMarker) : null,
        await this.store.archiveMessages(account, dir, input.archive_id),
      ] as const;
    });
    if (marker) return marker.result;
    const sameSession = (m: SessionMeta | null): m is SessionMeta => m !== null && (input.session_created_at === undefined || m.created_at === input.session_created_at);
    const empty = { memories_extracted: {}, active_count_updated: 0, token_usage: tokenUsage({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }) };
    if (!sameSession(meta)) return { ...base, ...empty, archived: false, note: 'the session was deleted before its commit ran' };
    if (messages.length === 0) return { ...base, ...empty, archived: false, note: 'nothing was archived (phase 1 did not complete)' };

    await task.setStage('extracting');
    const policy = meta.memory_policy;
    const ex = await extract(input.archive_id, messages, enabledCategories(policy), { llm: this.llm, summary: policy.working_memory.enabled, signal: task.signal });
    await task.setStage('writing_memories');
    const changes = await writeMemories(await task.vfs(), userId, ex.memories, { self: policy.self, peer: policy.peer, eventTags: meta.memory_extraction_config.events.tags }, task.signal);
    const counts: Record<string, number> = {};
    for (const c of changes) counts[c.category] = (counts[c.category] ?? 0) + c.count;

    await task.setStage('finalizing');
    const result = { ...base, memories_extracted: counts, active_count_updated: input.used.length, token_usage: tokenUsage(ex.usage), archived: true };
    return this.store.withLock(account, dir, async (lock) => {
      const current = await this.store.meta(account, dir);
      if (!sameSession(current)) return { ...result, archived: false, note: 'the session was deleted while its commit ran' };
      if (await this.store.exists(account, `${archiveDir}/${DONE}`)) {
        return (JSON.parse((await this.store.readFile(account, `${archiveDir}/${DONE}`)).toString('utf8')) as DoneMarker).result;
      }
      const extracted = { ...current.memories_extracted };
      let total = extracted.total ?? 0;
      for (const [cat, n] of Object.entries(counts)) {
        extracted[cat] = (extracted[cat] ?? 0) + n;
        total += n;
      }
      extracted.total = total;
      const u = current.llm_token_usage;
      const next: SessionMeta = {
        ...current,
        memories_extracted: extracted,
        llm_token_usage: {
          prompt_tokens: u.prompt_tokens + ex.usage.prompt_tokens,
          completion_tokens: u.completion_tokens + ex.usage.completion_tokens,
          total_tokens: u.total_tokens + ex.usage.total_tokens,
        },
      };
      const done: DoneMarker = {
        completed_at: new Date().toISOString(),
        task_id: task.task.task_id,
        abstract_tokens: countTokens(ex.abstract),
        overview_tokens: countTokens(ex.overview),
        result,
      };
      const diff = { archive_id: input.archive_id, generator: ex.generator, llm_error: ex.llm_error ?? null, changes, skipped: ex.skipped };
      await this.store.write(account, lock, {
        [`${archiveDir}/.abstract.md`]: ex.abstract,
        [`${archiveDir}/.overview.md`]: ex.overview,
        [`${archiveDir}/${DIFF}`]: JSON.stringify(diff, null, 2),
        [`${archiveDir}/${DONE}`]: JSON.stringify(done),
        [`${dir}/${META}`]: JSON.stringify(next),
      });
      return result;
    });
  }
}

function tokenUsage(llm: { prompt_tokens: number; completion_tokens: number; total_tokens: number }) {
  return { llm: { ...llm }, embedding: { total_tokens: 0 }, total: { total_tokens: llm.total_tokens } };
}

/** Every category with a count (zero when none): the shape of Session info's `memories_extracted`. */
export function extractedCounts(m: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of MEMORY_CATEGORIES) out[c] = m[c] ?? 0;
  out.total = m.total ?? 0;
  return out;
}

