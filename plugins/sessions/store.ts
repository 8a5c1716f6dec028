/**
 * Session storage in the VFS: `ctx://user/{user}/sessions/{id}/` holds `.meta.json` (the counters
 * and configuration of "Session info"), `messages.jsonl` (live messages) and
 * `history/archive_NNN/` (archived messages, `.abstract.md`, `.overview.md`, `memory_diff.json`,
 * and the `.done` marker written last).
 *
 * Every change of a session is ONE atomic, durable VFS batch (`writeFiles`) taken under a tree lock
 * on the session directory: messages and the counters that describe them can never disagree, an
 * acknowledged message is on disk before the answer, and appends, commits and deletes of one
 * session serialize while other sessions proceed in parallel.
 */
import { conflict, uriFromPath, type Identity, type LockHandle, type ScopedVfs } from 'ctx/plugin';
import { parseJsonl, toJsonl } from './messages.js';
import { defaultMemoryPolicy } from './policy.js';
import { messageTokens } from './tokens.js';
import type { Message, SessionMeta } from './types.js';

export const META = '.meta.json';
export const LIVE = 'messages.jsonl';
export const DONE = '.done';
export const DIFF = 'memory_diff.json';

export const sessionsDir = (userId: string) => `user/${userId}/sessions`;
export const sessionDir = (userId: string, sessionId: string) => `${sessionsDir(userId)}/${sessionId}`;
export const archiveName = (n: number) => `archive_${String(n).padStart(3, '0')}`;
export const archiveNumber = (name: string): number | null => {
  const m = /^archive_(\d{3,})$/.exec(name);
  return m ? Number(m[1]) : null;
};
export const uriOf = (path: string) => `ctx://${path}`;

/** What `.done` holds: the archive's texts' token counts, so context assembly never re-tokenizes them. */
export interface DoneMarker {
  completed_at: string;
  task_id: string | null;
  abstract_tokens: number;
  overview_tokens: number;
  result: Record<string, unknown>;
}

export interface ArchiveInfo {
  name: string;
  n: number;
  done: DoneMarker | null;
}

/** The view of a session's owner: every read and write of the store goes through it. */
export type OwnerView = (account: string, userId: string) => Promise<ScopedVfs>;

/** `user/{u}/sessions/...` → u */
const ownerOf = (dir: string) => dir.split('/')[1]!;
const u = uriFromPath;

export class SessionStore {
  constructor(private readonly viewOf: OwnerView) {}

  private view(account: string, dir: string): Promise<ScopedVfs> {
    return this.viewOf(account, ownerOf(dir));
  }

  async withLock<T>(account: string, dir: string, fn: (lock: LockHandle) => Promise<T>): Promise<T> {
    const lock = await (await this.view(account, dir)).lock(u(dir), 'tree');
    try {
      return await fn(lock);
    } finally {
      lock.release();
    }
  }

  private async readJson<T>(account: string, path: string): Promise<T | null> {
    const [buf] = await (await this.view(account, path)).readMany([u(path)]);
    return buf === undefined ? null : (JSON.parse(buf.toString('utf8')) as T);
  }

  /**
   * The session's meta. A session directory with messages but no `.meta.json` (restored from a
   * pack, migrated, or written by hand through the file system) is a session too: its meta is
   * derived from what is there, and written with the next change.
   */
  async meta(account: string, dir: string): Promise<SessionMeta | null> {
    const meta = await this.readJson<SessionMeta>(account, `${dir}/${META}`);
    if (meta) return meta;
    const node = await (await this.view(account, dir)).stat(u(`${dir}/${LIVE}`));
    if (node?.kind !== 'file') return null;
    const [, , userId, , sessionId] = ['', ...dir.split('/')] as string[];
    const live = await this.live(account, dir);
    const archives = await this.archives(account, dir);
    const derived = this.newMeta({ accountId: account, userId: userId!, role: 'USER' }, sessionId!);
    const at = new Date(node.ctime).toISOString();
    return {
      ...derived,
      created_at: at,
      updated_at: new Date(node.mtime).toISOString(),
      message_count: live.length,
      total_message_count: live.length,
      pending_tokens: live.reduce((t, m) => t + messageTokens(m), 0),
      archive_seq: archives.at(-1)?.n ?? 0,
    };
  }

  async live(account: string, dir: string): Promise<Message[]> {
    const [buf] = await (await this.view(account, dir)).readMany([u(`${dir}/${LIVE}`)]);
    return buf ? parseJsonl(buf.toString('utf8')) : [];
  }

  newMeta(identity: Identity, sessionId: string): SessionMeta {
    const now = new Date().toISOString();
    return {
      session_id: sessionId,
      created_at: now,
      updated_at: now,
      user: { account_id: identity.accountId, user_id: identity.userId },
      message_count: 0,
      total_message_count: 0,
      pending_tokens: 0,
      commit_count: 0,
      last_commit_at: null,
      archive_seq: 0,
      memories_extracted: {},
      llm_token_usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      auto_commit_policy: null,
      memory_policy: defaultMemoryPolicy(),
      memory_extraction_config: { events: { tags: [] } },
      contexts_used: [],
      skills_used: [],
      used_since_commit: [],
      last_auto_commit_at: null,
    };
  }

  /** Writes files of one session in one atomic batch; the caller holds the session's lock. */
  async write(account: string, lock: LockHandle, files: Record<string, string | Buffer>): Promise<void> {
    const entries = Object.entries(files);
    const dir = sessionDirOf(entries[0]![0]);
    await (await this.view(account, dir)).writeFiles(
      u(dir),
      entries.map(([path, c]) => ({ uri: u(path), data: typeof c === 'string' ? Buffer.from(c) : c })),
      { lock },
    );
  }

  async create(account: string, dir: string, meta: SessionMeta): Promise<void> {
    await this.withLock(account, dir, async (lock) => {
      if (await (await this.view(account, dir)).stat(u(dir))) throw conflict(`session ${meta.session_id} already exists`, uriOf(dir));
      await this.write(account, lock, { [`${dir}/${META}`]: JSON.stringify(meta), [`${dir}/${LIVE}`]: '' });
    });
  }

  async putMeta(account: string, lock: LockHandle, dir: string, meta: SessionMeta): Promise<void> {
    await this.write(account, lock, { [`${dir}/${META}`]: JSON.stringify(meta) });
  }

  /** Appends messages and updates the counters in one batch; returns the new meta. */
  async append(account: string, lock: LockHandle, dir: string, meta: SessionMeta, messages: Message[], tokens: number): Promise<SessionMeta> {
    const [old] = await (await this.view(account, dir)).readMany([u(`${dir}/${LIVE}`)]);
    const next: SessionMeta = {
      ...meta,
      updated_at: new Date().toISOString(),
      message_count: meta.message_count + messages.length,
      total_message_count: meta.total_message_count + messages.length,
      pending_tokens: meta.pending_tokens + tokens,
    };
    const content = Buffer.concat([old ?? Buffer.alloc(0), Buffer.from(toJsonl(messages))]);
    await this.write(account, lock, { [`${dir}/${LIVE}`]: content, [`${dir}/${META}`]: JSON.stringify(next) });
    return next;
  }

  /** Removes the session's tree; false when there was none. */
  async remove(account: string, dir: string): Promise<boolean> {
    return this.withLock(account, dir, async (lock) => {
      const vfs = await this.view(account, dir);
      if (!(await vfs.stat(u(dir)))) return false;
      await vfs.rm(u(dir), { recursive: true, lock });
      return true;
    });
  }

  async list(account: string, userId: string): Promise<string[]> {
    const dir = sessionsDir(userId);
    const vfs = await this.viewOf(account, userId);
    if (!(await vfs.stat(u(dir)))) return [];
    const out: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await vfs.list(u(dir), { after, limit: 1000 });
      for (const e of page) if (e.kind === 'dir') out.push(e.name);
      if (page.length < 1000) return out;
      after = page[page.length - 1]!.name;
    }
  }

  /** Archives of a session in order, each with its done marker (null while incomplete). */
  async archives(account: string, dir: string): Promise<ArchiveInfo[]> {
    const hist = `${dir}/history`;
    const vfs = await this.view(account, dir);
    if (!(await vfs.stat(u(hist)))) return [];
    const names = (await vfs.list(u(hist))).filter((e) => e.kind === 'dir').map((e) => e.name);
    const infos = names.flatMap((name) => {
      const n = archiveNumber(name);
      return n === null ? [] : [{ name, n }];
    });
    infos.sort((a, b) => a.n - b.n);
    const marks = await vfs.readMany(infos.map((a) => u(`${hist}/${a.name}/${DONE}`)));
    return infos.map((a, i) => ({ ...a, done: marks[i] ? (JSON.parse(marks[i]!.toString('utf8')) as DoneMarker) : null }));
  }

  async archiveMessages(account: string, dir: string, name: string): Promise<Message[]> {
    const [buf] = await (await this.view(account, dir)).readMany([u(`${dir}/history/${name}/${LIVE}`)]);
    return buf ? parseJsonl(buf.toString('utf8')) : [];
  }

  async archiveTexts(account: string, dir: string, names: string[]): Promise<Array<{ abstract: string; overview: string }>> {
    const paths = names.flatMap((n) => [`${dir}/history/${n}/.abstract.md`, `${dir}/history/${n}/.overview.md`]);
    const bufs = await (await this.view(account, dir)).readMany(paths.map(u));
    return names.map((_, i) => ({ abstract: bufs[2 * i]?.toString('utf8') ?? '', overview: bufs[2 * i + 1]?.toString('utf8') ?? '' }));
  }

  async readFile(account: string, path: string): Promise<Buffer> {
    return (await this.view(account, path)).readFile(u(path));
  }

  async exists(account: string, path: string) {
    return (await this.view(account, path)).stat(u(path));
  }
}

/** The session directory (`user/{u}/sessions/{id}`) a path lies in. */
function sessionDirOf(path: string): string {
  return path.split('/').slice(0, 4).join('/');
}
