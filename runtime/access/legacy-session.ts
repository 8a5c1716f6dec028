/**
 * Reads of the `ctx://session` alias over 0.3.x data (spec Part 1, "Runtime compatibility without
 * migration"): `ctx://session/...` reads the current user's new sessions (`user/{me}/sessions`)
 * and, for a session absent there, the unmigrated legacy one (`session/{id}`, or the nested
 * `session/{me}/{id}` layout): new first, legacy as the fallback; the alias root lists both. Only
 * legacy sessions the caller owns are shown (owner in `.meta.json`, else the nested path's user);
 * a session without any owner is shown to every user of the account, as the reference does; ROOT
 * sees all. Writes never reach here: the alias is read-only (authorize.ts).
 */
import type { Identity } from '../identity/types.js';
import type { CtxUri } from '../uri/types.js';
import type { Entry } from '../vfs/types.js';

interface VfsReads {
  stat(account: string, path: string): Promise<Entry | null>;
  readFile(account: string, path: string): Promise<Buffer>;
  list(account: string, path: string): Promise<Entry[]>;
}

const OWNER_FIELDS = ['created_by_user_id', 'user_id', 'owner_user_id', 'created_by'] as const;
const SESSION_LEAVES = ['.meta.json', 'messages.jsonl', 'history', 'tools'];

/** True for `ctx://session` and the URIs below it (the read-only alias). */
export const isSessionAlias = (u: CtxUri): boolean => u.aliasOf === 'ctx://session' || (u.aliasOf?.startsWith('ctx://session/') ?? false);

async function ownerOf(vfs: VfsReads, account: string, dir: string): Promise<string | undefined> {
  try {
    const meta = JSON.parse((await vfs.readFile(account, `${dir}/.meta.json`)).toString('utf8')) as Record<string, unknown>;
    for (const f of OWNER_FIELDS) if (typeof meta[f] === 'string' && meta[f] !== '') return meta[f] as string;
  } catch {
    // no or unreadable metadata: no owner recorded
  }
  return undefined;
}

async function looksLikeSession(vfs: VfsReads, account: string, dir: string): Promise<boolean> {
  const node = await vfs.stat(account, dir);
  if (!node || node.kind !== 'dir') return false;
  for (const leaf of SESSION_LEAVES) if (await vfs.stat(account, `${dir}/${leaf}`)) return true;
  return false;
}

async function visible(vfs: VfsReads, identity: Identity, dir: string, hint?: string): Promise<boolean> {
  if (identity.role === 'ROOT') return true;
  const owner = (await ownerOf(vfs, identity.accountId, dir)) ?? hint;
  return owner === undefined || owner === identity.userId;
}

/**
 * The URI to read for `u`: unchanged unless it is below `ctx://session/{id}`, that session is not
 * in the user's new sessions, and a legacy one the caller may see is; then `path` points at it.
 */
export async function sessionReadTarget(vfs: VfsReads, identity: Identity, u: CtxUri): Promise<CtxUri> {
  if (!isSessionAlias(u) || u.sessionId === undefined) return u;
  const account = identity.accountId;
  const id = u.sessionId;
  if (await vfs.stat(account, `user/${identity.userId}/sessions/${id}`)) return u;
  const rest = u.segments.slice(4);
  for (const [dir, hint] of [[`session/${id}`, undefined], [`session/${identity.userId}/${id}`, identity.userId]] as const) {
    if (!(await looksLikeSession(vfs, account, dir)) || !(await visible(vfs, identity, dir, hint))) continue;
    return { ...u, path: [dir, ...rest].join('/') };
  }
  return u;
}

/** The legacy `session/{id}` directories the caller may see at the alias root. */
export async function legacySessionDirs(vfs: VfsReads, identity: Identity): Promise<Entry[]> {
  const account = identity.accountId;
  if (!(await vfs.stat(account, 'session'))) return [];
  const out: Entry[] = [];
  for (const e of await vfs.list(account, 'session')) {
    if (e.kind !== 'dir') continue;
    // Nested `session/{user}/{id}` sessions are read by their URI (sessionReadTarget), not listed:
    // their entries would carry the nested path's URI.
    if ((await looksLikeSession(vfs, account, e.path)) && (await visible(vfs, identity, e.path))) out.push(e);
  }
  return out;
}
