/**
 * What every sessions route shares: the store (through each owner's scoped view), the committer,
 * the idle scheduler, and how a request names its session directory.
 */
import { invalidArgument, isValidId, notFound, s, type RouteContext, type ScopedVfs, type PluginHost } from 'ctx/plugin';
import { Committer, TASK_TYPE } from './commit.js';
import { IdleScheduler } from './idle.js';
import { sessionDir, SessionStore, uriOf } from './store.js';
import { randomBytes } from 'node:crypto';

export interface SessionsOptions {
  /** How often the idle auto-commit scheduler scans (ms). Default 60 s. */
  idleScanMs?: number;
}

export const sessionIdOf = (raw: string, field = 'session_id'): string => {
  if (!isValidId(raw)) throw invalidArgument(`${field} is not a valid id (1-128 characters from A-Z a-z 0-9 _ . @ -, starting with a letter or digit, not a reserved word): ${JSON.stringify(raw).slice(0, 140)}`, { field });
  return raw;
};
export const newMessageId = () => `msg_${randomBytes(12).toString('hex')}`;

export type SessionsKit = ReturnType<typeof createSessionsKit>;

export function createSessionsKit(host: PluginHost, opts: SessionsOptions) {
  // An owner's view is looked up (their current role) at most once a second per user: an append
  // makes several store calls.
  const views = new Map<string, { at: number; view: Promise<ScopedVfs> }>();
  const viewOf = (account: string, userId: string): Promise<ScopedVfs> => {
    const key = `${account}\0${userId}`;
    const hit = views.get(key);
    if (hit && Date.now() - hit.at < 1000) return hit.view;
    if (views.size >= 1024) views.clear();
    const view = host.ownerVfs({ account_id: account, user_id: userId });
    views.set(key, { at: Date.now(), view });
    return view;
  };
  const store = new SessionStore(viewOf);
  const llm = host.models.llm();
  const committer = new Committer(host, store, llm);
  host.taskType({ type: TASK_TYPE, cancellable: true, onRestart: 'resume', run: (task, input) => committer.run(task, input) });
  const idle = new IdleScheduler(host.kv, store, committer, host.log, opts.idleScanMs ?? 60_000, host.cluster.background);
  host.onReady(() => idle.start());
  host.onClose(() => idle.stop());
  // Session files go with the account's VFS; the idle index in this plugin's keyspace is ours to drop.
  host.on('account-deleted', ({ account }) => idle.dropAccount(account));

  /** The caller's session directory, authorized by the host's rules for the caller. */
  const locate = (ctx: RouteContext<unknown, unknown>, raw = ctx.params.session_id!) => {
    const id = sessionIdOf(raw);
    const dir = sessionDir(ctx.identity.userId, id);
    ctx.vfs.resolve(uriOf(dir), 'write');
    return { id, dir, account: ctx.identity.accountId };
  };
  const absent = (id: string) => notFound(`session ${id} not found`, { resource: `ctx://session/${id}`, session_id: id });
  const mustMeta = async (account: string, dir: string, id: string) => {
    const meta = await store.meta(account, dir);
    if (!meta) throw absent(id);
    return meta;
  };
  return { store, committer, llm, idle, locate, absent, mustMeta };
}

/** A session id as the OpenAPI document states it (runtime/uri/ids.ts checks it; reserved words aside). */
export const ID_PATTERN_SOURCE = '^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$';
/** Path parameters as the OpenAPI document states them (the handlers check them). */
export const PATH_PARAMS = { session_id: s.string({ min: 1, max: 128 }).annotate({ pattern: ID_PATTERN_SOURCE }) };
