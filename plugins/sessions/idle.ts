/**
 * The idle auto-commit scheduler (spec "Auto-commit policy", `idle_timeout_seconds`). Sessions
 * with a policy and uncommitted messages are indexed in this plugin's keyspace
 * (`idle\0{account}\0{user}\0{session}`), so the index survives restarts and a scan never walks
 * the VFS. Each scan re-reads the session: it is committed when it still has a policy, live
 * messages, and has been idle for `idle_timeout_seconds` (and `min_commit_interval_seconds` since
 * the last automatic commit). Idle commits archive the whole backlog (keep_recent_count ignored).
 */
import type { Identity, Kv, Logger, Role } from 'ctx/plugin';
import type { PluginHost } from 'ctx/plugin';
import type { Committer } from './commit.js';
import { sessionDir, type SessionStore } from './store.js';
import type { SessionMeta } from './types.js';

const S = '\x00';
const key = (account: string, user: string, session: string) => `idle${S}${account}${S}${user}${S}${session}`;

export function autoCommitAllowed(meta: SessionMeta, now = Date.now()): boolean {
  const min = (meta.auto_commit_policy?.min_commit_interval_seconds ?? 0) * 1000;
  return !meta.last_auto_commit_at || now - Date.parse(meta.last_auto_commit_at) >= min;
}

export class IdleScheduler {
  private timer?: NodeJS.Timeout;
  private scanning?: Promise<void>;
  /** Keys known to be in the index (this process), so a message write does not rewrite its key each time. */
  private readonly tracked = new Set<string>();

  constructor(
    private readonly kv: Kv,
    private readonly store: SessionStore,
    private readonly committer: Committer,
    private readonly log: Logger,
    private readonly scanMs: number,
    /** Cluster mode: a session is auto-committed by its account's shard leader only. */
    private readonly background?: PluginHost['cluster']['background'],
  ) {}

  /** Keeps the index in step with a session's state after a change. */
  async track(identity: Identity, meta: SessionMeta): Promise<void> {
    const k = key(identity.accountId, identity.userId, meta.session_id);
    if (meta.auto_commit_policy && meta.message_count > 0) {
      if (this.tracked.has(k)) return;
      await this.kv.putJson(k, { role: identity.role });
      this.tracked.add(k);
    } else await this.forget(k);
  }

  async untrack(account: string, user: string, session: string): Promise<void> {
    await this.forget(key(account, user, session));
  }

  private async forget(k: string): Promise<void> {
    this.tracked.delete(k);
    await this.kv.del(k);
  }

  start(): void {
    this.timer = setInterval(() => void this.scan(), this.scanMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.scanning;
  }

  /** One pass over the index; overlapping passes are skipped. */
  scan(now = Date.now()): Promise<void> {
    this.scanning ??= this.pass(now).finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  private async pass(now: number): Promise<void> {
    const due: Array<[string, Identity, string]> = [];
    for await (const [k, v] of this.kv.scanPrefix(`idle${S}`)) {
      const [, accountId, userId, session] = k.split(S) as [string, string, string, string];
      const { role } = JSON.parse(v.toString('utf8')) as { role: Role };
      due.push([k, { accountId, userId, role }, session]);
    }
    for (const [k, identity, session] of due) {
      const bg = this.background;
      if (!bg) await this.one(k, identity, session, now);
      else {
        const shard = bg.shardOf(identity.accountId);
        if (bg.leads(shard)) await bg.run(shard, () => this.one(k, identity, session, now));
      }
    }
  }

  private async one(k: string, identity: Identity, session: string, now: number): Promise<void> {
    try {
      const meta = await this.store.meta(identity.accountId, sessionDir(identity.userId, session));
      if (!meta || !meta.auto_commit_policy || meta.message_count === 0) {
        await this.forget(k);
        return;
      }
      if (now - Date.parse(meta.updated_at) < meta.auto_commit_policy.idle_timeout_seconds * 1000) return;
      const started = await this.committer.commit(identity, session, { keepRecent: 0, auto: (m) => autoCommitAllowed(m, now) });
      if (started?.archived) this.log.info('idle session committed', { account: identity.accountId, session_id: session, task_id: started.task_id });
      const after = started ? await this.store.meta(identity.accountId, sessionDir(identity.userId, session)) : null;
      if (!after || after.message_count === 0) await this.forget(k);
    } catch (err) {
      this.log.warn('idle auto commit failed', { session_id: session, error: (err as Error).message });
    }
  }

  async dropAccount(account: string): Promise<void> {
    const ops = [];
    for await (const [k] of this.kv.scanPrefix(`idle${S}${account}${S}`)) {
      this.tracked.delete(k);
      ops.push(this.kv.delOp(k));
    }
    if (ops.length) await this.kv.batch(ops);
  }
}
