/**
 * Snapshots of an account's tree as git commits (spec Part 2, "Snapshots"): commit, log, show and
 * restore. One bare repository per account under `{dataDir}/snapshots/`; at most one commit or
 * restore runs per account at a time, so a branch only moves forward from the head it was read at.
 *
 * Blob ids are found without reading content when possible: the VFS keeps each file's sha256, and
 * the plugin's keyspace maps a sha256 to the git blob written for it (`{account}\0b\0{sha256}`),
 * so an unchanged file costs a metadata read, never a read and a hash.
 *
 * A whole-tree commit need not even read every file's metadata: the plugin follows the VFS change
 * events of each account it has committed (a `Tracker`), so the next whole-tree commit re-reads only
 * the paths changed since, when the branch head is still the commit the tracker describes. After a
 * restart, a change of the ignore rules or too many changes, the next one reads everything again.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Entry, Identity, Kv, LockHandle, PluginHost, ScopedVfs } from 'ctx/plugin';
import { ancestorDirs, authorize, conflict, CtxError, hash, notFound, parseUri, permissionDenied, uriFromPath } from 'ctx/plugin';
import type { IgnoreStore } from './ignore-rules.js';
import { Repo, checkBranch, type CommitMeta } from './repo.js';
import { EMPTY_STATE, applyChanges, filesWithin, outermost, within, type Flat, type TreeState } from './tree.js';

const S = '\x00';
/** Top-level directories a snapshot holds; anything else at the root (internal scopes) is pruned. */
export const SNAPSHOT_SCOPES = ['agent', 'resources', 'user'];
/**
 * L0/L1 sidecars are pruned too: the indexer derives them from content in the background, so a
 * snapshot holding them would depend on how far indexing had got, and a restore would fight the
 * indexer over them. A restore rewrites content and the indexer regenerates them (the
 * `snapshot_restore_reindex` task follows that). `.relations.json` is the user's own data and kept.
 */
export const PRUNED_FILES = new Set(['.abstract.md', '.overview.md']);
const READ_BATCH = 128;
/** listSubtree reads at most this many nodes; far above any tree a snapshot can hold in memory. */
const SUBTREE_LIMIT = 1_000_000_000;

export interface CommitRequest {
  message: string;
  paths: string[] | null;
  branch: string;
  author_name?: string;
  author_email?: string;
}

export type CommitResult = { result: 'created'; commit_oid: string; changed: number; ignored: number } | { result: 'noop'; commit_oid: string | null; ignored: number };

export interface RestoreRequest {
  source_commit: string;
  project_dir?: string;
  branch: string;
  dry_run: boolean;
  message?: string;
  author_name?: string;
  author_email?: string;
}

export const RESTORE_TASK = 'snapshot_restore_reindex';
/** Beyond this many changed paths a tracker gives up and the next commit reads the whole tree. */
const MAX_TRACKED = 50_000;
/** Accounts whose last snapshot state stays in memory (the others re-read theirs from git). */
const STATES_KEPT = 16;

/**
 * What the live tree is known to be: the files of commit `since` (minus ignored and pruned ones),
 * except at the paths in `dirty` (changed since; null = unknown, read everything). `ignored` are the
 * files the ignore rules excluded when last read, for the `ignored` count of whole-tree commits.
 */
interface Tracker {
  since: string | null;
  dirty: Set<string> | null;
  ignored: Set<string>;
}

export class Snapshots {
  private readonly repos = new Map<string, Repo>();
  /** The last commit read or written per account, with its files (incremental commits reuse it). */
  private readonly states = new Map<string, TreeState>();
  private readonly queue = new Map<string, Promise<unknown>>();
  private readonly trackers = new Map<string, Tracker>();

  constructor(
    private readonly host: PluginHost,
    private readonly blobs: Kv,
    private readonly ignore: IgnoreStore,
  ) {}

  /** Host `change` events: paths changed since the tracked commit (an rm or mv names its root). */
  track(ev: { account: string; path: string; from?: string }): void {
    const t = this.trackers.get(ev.account);
    if (!t?.dirty) return;
    t.dirty.add(ev.path);
    if (ev.from !== undefined) t.dirty.add(ev.from);
    if (t.dirty.size > MAX_TRACKED) t.dirty = null;
  }

  /** The ignore rules changed: what was ignored may not be any more, and the reverse. */
  rulesChanged(account: string): void {
    const t = this.trackers.get(account);
    if (t) t.dirty = null;
  }

  private tracker(account: string): Tracker {
    let t = this.trackers.get(account);
    if (!t) this.trackers.set(account, (t = { since: null, dirty: null, ignored: new Set() }));
    return t;
  }

  gitdir(account: string): string {
    return path.join(this.host.dataDir, 'snapshots', `${account}.git`);
  }

  private repo(account: string): Repo {
    let r = this.repos.get(account);
    if (!r) this.repos.set(account, (r = new Repo(this.gitdir(account))));
    return r;
  }

  private async open(account: string): Promise<Repo> {
    const r = this.repo(account);
    // A repository created now holds no blobs, whatever an older cache says (a data dir restored
    // without its snapshots, a repository removed by hand): forget the cache before trusting it.
    if (await r.init()) await this.dropBlobCache(account);
    return r;
  }

  /** Serializes commits and restores of one account. */
  private exclusive<T>(account: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queue.get(account) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => {});
    this.queue.set(account, tail);
    void tail.then(() => {
      if (this.queue.get(account) === tail) this.queue.delete(account);
    });
    return run;
  }

  private async stateOf(account: string, repo: Repo, commit: string | null): Promise<TreeState> {
    if (!commit) return EMPTY_STATE;
    const cached = this.states.get(account);
    if (cached?.commit === commit) {
      this.remember(account, cached);
      return cached;
    }
    const s = await repo.state(commit);
    this.remember(account, s);
    return s;
  }

  /** Keeps the states of the accounts committed to most recently (a state holds a whole file list). */
  private remember(account: string, state: TreeState): void {
    this.states.delete(account);
    this.states.set(account, state);
    if (this.states.size > STATES_KEPT) this.states.delete(this.states.keys().next().value!);
  }

  /** A request URI as an internal path the caller may access (400/403 as every other route). */
  private resolvePath(identity: Identity, uri: string, access: 'read' | 'write', field: string): string {
    const u = parseUri(uri, identity, { field });
    authorize(u, identity, access);
    return u.path;
  }

  /**
   * Files at or below `scope` as `identity` sees them, internal scopes pruned. A snapshot must hold
   * the whole subtree (leaving out what its author cannot see would record deletions), so an entry
   * hidden from them is refused with 403 instead of skipped.
   */
  private async collect(identity: Identity, scope: string): Promise<Entry[]> {
    const vfs = this.host.vfsFor(identity);
    const out: Entry[] = [];
    const roots = scope === '' ? SNAPSHOT_SCOPES : SNAPSHOT_SCOPES.includes(scope.split('/')[0]!) ? [scope] : [];
    for (const root of roots) {
      const node = await vfs.stat(uriFromPath(root));
      if (!node) continue;
      if (node.kind === 'file') {
        if (!PRUNED_FILES.has(node.name)) out.push(node);
        continue;
      }
      const hidden = await vfs.firstHidden(uriFromPath(root));
      if (hidden !== null) await this.assertReadable(identity, [hidden.slice('ctx://'.length)]);
      // Two range scans for the whole subtree (a walk costs one per directory).
      const { groups } = await vfs.listSubtree(uriFromPath(root), SUBTREE_LIMIT);
      for (const children of groups.values()) for (const e of children) if (e.kind === 'file' && !PRUNED_FILES.has(e.name)) out.push(e);
    }
    return out;
  }

  /** A USER sees only what the per-entry rules let them read; a snapshot must not copy around that. */
  private async assertReadable(identity: Identity, paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    const ok = await this.host.access.readablePaths(identity, paths);
    const i = ok.indexOf(false);
    if (i < 0) return;
    // The entry rules explain a denial best; a namespace denial (another user's space) has no entry rule.
    await this.host.access.assertEntryReadable(identity, paths[i]!);
    throw permissionDenied(`${uriFromPath(paths[i]!)} is not readable by ${identity.userId}`, { resource: uriFromPath(paths[i]!) });
  }

  /**
   * Blob ids of files. With `write`, blobs missing from the repository are written (and remembered
   * by their sha256); without, they are only computed (a dry run writes nothing).
   */
  private async blobIds(identity: Identity, repo: Repo, entries: Entry[], write: boolean): Promise<string[]> {
    const account = identity.accountId;
    const vfs = this.host.vfsFor(identity);
    const out = new Array<string>(entries.length);
    const cacheKeys = entries.map((e) => `${account}${S}b${S}${(e.sha256 ?? '').replace(/^sha256:/, '')}`);
    const cached = entries.length ? await this.blobs.getMany(cacheKeys) : [];
    const missing: number[] = [];
    cached.forEach((v, i) => (v && entries[i]!.sha256 ? (out[i] = v.toString('utf8')) : missing.push(i)));
    for (let at = 0; at < missing.length; at += READ_BATCH) {
      const slice = missing.slice(at, at + READ_BATCH);
      const datas = (await vfs.readMany(slice.map((i) => uriFromPath(entries[i]!.path)))).map((b) => b ?? Buffer.alloc(0));
      // The content may have changed since the walk: key the cache by the digest of the bytes read.
      const digests = await hash.sha256ManyAsync(datas);
      const oids = write ? await repo.writeObjects('blob', datas) : datas.map((d) => Repo.blobId(d));
      slice.forEach((i, j) => (out[i] = oids[j]!));
      if (write) await this.blobs.batch(oids.map((oid, j) => this.blobs.putOp(`${account}${S}b${S}${digests[j]}`, oid)));
    }
    return out;
  }

  async commit(identity: Identity, req: CommitRequest): Promise<CommitResult> {
    const account = identity.accountId;
    const branch = checkBranch(req.branch);
    if (req.paths === null && identity.role === 'USER')
      throw permissionDenied('a snapshot of the whole account tree needs ADMIN or ROOT; a USER commits the paths they can read (paths=[...])', { field: 'paths' });
    const listed = req.paths === null ? null : outermost(req.paths.map((u, i) => this.resolvePath(identity, u, 'read', `paths[${i}]`)));
    const author = this.signature(identity, req.author_name, req.author_email);
    return this.exclusive(account, async () => {
      const repo = await this.open(account);
      const head = await repo.head(branch);
      if (listed?.length === 0) return { result: 'noop' as const, commit_oid: head, ignored: 0 };
      const prev = await this.stateOf(account, repo, head);
      const t = this.tracker(account);
      const tracked = t.since !== null && t.since === head;
      // A whole-tree commit re-reads only what changed since the tracked head, when it knows that.
      const incremental = listed === null && tracked && t.dirty !== null;
      const scopes = listed ?? (incremental ? outermost(t.dirty!) : ['']);
      const taken = listed === null ? t.dirty : null;
      if (listed === null) t.dirty = new Set();
      try {
        const ignoredNow = new Set(listed === null && !incremental ? [] : t.ignored);
        const { changes, ignored } = await this.changesIn(identity, repo, prev, scopes, ignoredNow, listed !== null);
        const result = await this.finish(account, repo, branch, head, prev, changes, req.message, author);
        if (listed === null || tracked) {
          t.since = result.oid ?? head;
          t.ignored = ignoredNow;
        }
        const ignoredCount = listed === null ? ignoredNow.size : ignored;
        return result.oid === null ? { result: 'noop' as const, commit_oid: head, ignored: ignoredCount } : { result: 'created' as const, commit_oid: result.oid, changed: changes.size, ignored: ignoredCount };
      } catch (err) {
        // The paths taken for this commit are still to be read by the next one.
        if (listed === null) {
          if (taken && t.dirty) for (const p of taken) t.dirty.add(p);
          else t.dirty = null;
        }
        throw err;
      }
    });
  }

  /**
   * The changes between `prev` and the live files of each scope (path → new blob oid, or null when
   * gone), writing new blobs. `ignoredSet` is kept up to date for the scopes read; the count of the
   * ignored files met is returned.
   */
  private async changesIn(identity: Identity, repo: Repo, prev: TreeState, scopes: string[], ignoredSet: Set<string>, logAbsent: boolean): Promise<{ changes: Map<string, string | null>; ignored: number }> {
    const account = identity.accountId;
    const rules = await this.ignore.rules(account);
    const changes = new Map<string, string | null>();
    let ignored = 0;
    for (const scope of scopes) {
      const before = filesWithin(prev, scope);
      const found = await this.collect(identity, scope);
      if (logAbsent && found.length === 0 && before.size === 0) this.host.log.info('snapshot commit: path absent from the file system and the previous snapshot (no-op deletion)', { account, path: uriFromPath(scope) });
      for (const p of ignoredSet) if (within(scope, p)) ignoredSet.delete(p);
      const kept: Entry[] = [];
      for (const e of found)
        if (rules.ignores(e.path)) {
          ignored++;
          ignoredSet.add(e.path);
        } else kept.push(e);
      await this.assertReadable(identity, kept.map((e) => e.path));
      const oids = await this.blobIds(identity, repo, kept, true);
      const now = new Map(kept.map((e, i) => [e.path, oids[i]!]));
      for (const p of before.keys()) if (!now.has(p)) changes.set(p, null);
      for (const [p, oid] of now) if (before.get(p) !== oid) changes.set(p, oid);
    }
    return { changes, ignored };
  }

  /** Writes the trees and the commit of `changes` on top of `head`; `oid` null when nothing changed. */
  private async finish(account: string, repo: Repo, branch: string, head: string | null, prev: TreeState, changes: Map<string, string | null>, message: string, author: { name: string; email: string }): Promise<{ oid: string | null }> {
    if (changes.size === 0) return { oid: null };
    const { next, root, fresh } = applyChanges(prev, changes);
    await repo.writeTrees(fresh);
    const oid = await repo.writeCommit({ tree: root, parents: head ? [head] : [], message, author });
    await repo.setHead(branch, oid);
    this.remember(account, { commit: oid, ...next });
    return { oid };
  }

  private signature(identity: Identity, name?: string, email?: string): { name: string; email: string } {
    return { name: name ?? identity.userId, email: email ?? `${identity.userId}@${identity.accountId}.ctx` };
  }

  async log(account: string, branch: string, limit: number): Promise<CommitMeta[]> {
    checkBranch(branch);
    const repo = this.repo(account);
    const head = (await repoExists(repo)) ? await repo.head(branch) : null;
    if (!head) throw notFound(`branch ${branch} has no commits`, { branch });
    const out: CommitMeta[] = [];
    for (let oid: string | undefined = head; oid && out.length < limit; ) {
      const c = await repo.readCommit(oid);
      out.push(c);
      oid = c.parents[0];
    }
    return out;
  }

  async show(identity: Identity, targetRef: string, uri?: string): Promise<CommitMeta | { oid: string; data: Buffer }> {
    const repo = this.repo(identity.accountId);
    const filePath = uri === undefined ? undefined : this.resolvePath(identity, uri, 'read', 'path');
    if (filePath !== undefined) await this.host.access.assertEntryReadable(identity, filePath);
    if (!(await repoExists(repo))) throw notFound(`no commit, branch or tag named ${targetRef}`, { field: 'target_ref', target_ref: targetRef });
    const commit = await repo.resolveCommit(targetRef);
    if (filePath === undefined) return repo.readCommit(commit);
    // Read along the path, not through stateOf: a look at an old commit must not evict the head's state.
    const entry = await repo.entryAt(commit, filePath);
    if (entry?.type === 'tree') throw new CtxError('INVALID_ARGUMENT', `path must be a file, got a directory in snapshot ${commit}: ${uriFromPath(filePath)}`, { field: 'path', expected: 'file', actual: 'directory', resource: uriFromPath(filePath) });
    if (!entry) throw notFound(`${uriFromPath(filePath)} is not in snapshot ${commit}`, { resource: uriFromPath(filePath), commit });
    const blob = entry.oid;
    return { oid: blob, data: await repo.readBlob(blob) };
  }

  async restore(identity: Identity, req: RestoreRequest): Promise<Record<string, unknown>> {
    const account = identity.accountId;
    const branch = checkBranch(req.branch);
    if (req.project_dir === undefined && identity.role === 'USER')
      throw permissionDenied('restoring the whole account tree needs ADMIN or ROOT; a USER restores a project_dir they can write', { field: 'project_dir' });
    const scope = req.project_dir === undefined ? '' : this.resolvePath(identity, req.project_dir, 'write', 'project_dir');
    const rel = (p: string) => (scope === '' ? p : p === scope ? path.posix.basename(p) : p.slice(scope.length + 1));
    return this.exclusive(account, async () => {
      if (!(await repoExists(this.repo(account)))) throw notFound(`no commit, branch or tag named ${req.source_commit}`, { field: 'source_commit' });
      const repo = await this.open(account);
      const head = await repo.head(branch);
      const source = await repo.resolveCommit(req.source_commit, 'source_commit');
      const wanted: Flat = filesWithin(await repo.state(source), scope);
      const rules = await this.ignore.rules(account);
      // Files the ignore rules keep out of snapshots are not the snapshot's to delete.
      const current = (await this.collect(identity, scope)).filter((e) => !rules.ignores(e.path));
      await this.assertReadable(identity, [...current.map((e) => e.path), ...wanted.keys()]);
      const currentIds = await this.blobIds(identity, repo, current, false);
      const have = new Map(current.map((e, i) => [e.path, currentIds[i]!]));
      const writes: Array<[string, string]> = [];
      const unchangedPaths: string[] = [];
      for (const [p, oid] of wanted) {
        if (have.get(p) === oid) unchangedPaths.push(p);
        else writes.push([p, oid]);
      }
      const toDelete = [...have.keys()].filter((p) => !wanted.has(p));
      if (writes.length === 0 && toDelete.length === 0) return { result: 'noop', head, source };
      if (req.dry_run)
        return {
          result: 'dry_run',
          head,
          source,
          diff: { to_write: writes.map(([p, oid]) => ({ path: rel(p), oid })), to_delete: toDelete.map(rel), unchanged: unchangedPaths.map(rel) },
        };
      await this.apply(identity, scope, writes, toDelete, repo);
      // The new commit is the head's tree with the scope replaced by the source's.
      const prev = await this.stateOf(account, repo, head);
      const changes = new Map<string, string | null>();
      const before = filesWithin(prev, scope);
      for (const p of before.keys()) if (!wanted.has(p)) changes.set(p, null);
      for (const [p, oid] of wanted) if (before.get(p) !== oid) changes.set(p, oid);
      const author = this.signature(identity, req.author_name, req.author_email);
      const message = req.message ?? `restore ${source}${scope ? ` (${uriFromPath(scope)})` : ''}`;
      // A commit is written even when the head already had the source's tree: the spec's restore is
      // always a new commit on top of the head (its writes made the live tree match it).
      const { next, root, fresh } = applyChanges(prev, changes);
      await repo.writeTrees(fresh);
      const oid = await repo.writeCommit({ tree: root, parents: head ? [head] : [], message, author });
      await repo.setHead(branch, oid);
      this.remember(account, { commit: oid, ...next });
      // The live tree now differs from the new commit only where it differed from the head, and at
      // the restored paths (their change events are on the way): the tracker stays valid.
      const t = this.trackers.get(account);
      if (t && t.since === head && head !== null) t.since = oid;
      const taskId = await this.reindexTask(identity, scope);
      return {
        result: 'applied',
        new_commit_oid: oid,
        source_commit: source,
        parent_commit: head,
        written: writes.length,
        deleted: toDelete.length,
        unchanged: unchangedPaths.length,
        written_paths: writes.map(([p]) => rel(p)),
        deleted_paths: toDelete.map(rel),
        task_id: taskId,
      };
    });
  }

  /**
   * Deletes first (a file may stand where the snapshot has a directory), then writes in atomic
   * batches, all under one tree lock on the scope so no other writer interleaves with the restore.
   */
  private async apply(identity: Identity, scope: string, writes: Array<[string, string]>, deletes: string[], repo: Repo): Promise<void> {
    const vfs = this.host.vfsFor(identity);
    const at = uriFromPath;
    const lock = await vfs.lock(at(scope), 'tree');
    try {
      // A file the restore keeps (ignored) where the snapshot needs a directory: refused before any change.
      const gone = new Set(deletes);
      const parents = ancestorDirs(writes.map(([p]) => p));
      const parentNodes = await vfs.statMany(parents.map(at));
      parentNodes.forEach((n, i) => {
        if (n?.kind === 'file' && !gone.has(parents[i]!)) throw conflict(`cannot restore below ${uriFromPath(parents[i]!)}: it is a file the snapshot does not hold (kept by .ctxgitignore)`, uriFromPath(parents[i]!));
      });
      for (const p of deletes) await vfs.rm(at(p), { lock });
      const nodes = await vfs.statMany(writes.map(([p]) => at(p)));
      // Only what the ignore rules kept out of the snapshot can remain in a directory here.
      for (let i = 0; i < writes.length; i++) if (nodes[i]?.kind === 'dir') await vfs.rm(at(writes[i]![0]), { recursive: true, lock });
      await this.pruneEmptyDirs(vfs, scope, deletes, new Set(writes.map(([p]) => p)), lock);
      for (let from = 0; from < writes.length; from += READ_BATCH) {
        const slice = writes.slice(from, from + READ_BATCH);
        const contents = await Promise.all(slice.map(([, oid]) => repo.readBlob(oid)));
        await vfs.writeFiles(at(scope), slice.map(([p], i) => ({ uri: at(p), data: contents[i]! })), { lock });
      }
    } finally {
      lock.release();
    }
  }

  /** Directories emptied by the deletes (sidecars aside) go too, unless the snapshot writes into them. */
  private async pruneEmptyDirs(vfs: ScopedVfs, scope: string, deleted: string[], written: Set<string>, lock: LockHandle): Promise<void> {
    const keep = new Set<string>();
    for (const p of written) for (let d = path.posix.dirname(p); d !== '.' && !keep.has(d); d = path.posix.dirname(d)) keep.add(d);
    const dirs = new Set<string>();
    for (const p of deleted) for (let d = path.posix.dirname(p); d !== '.' && within(scope, d) && d !== scope; d = path.posix.dirname(d)) dirs.add(d);
    // Deepest first, so a parent is looked at after its emptied children are gone.
    for (const d of [...dirs].sort((a, b) => b.split('/').length - a.split('/').length)) {
      if (keep.has(d) || d.split('/').length < 2) continue;
      // What the indexer derived for the directory goes with it.
      const left = await vfs.list(uriFromPath(d), { limit: PRUNED_FILES.size + 1 });
      if (left.every((e) => e.kind === 'file' && PRUNED_FILES.has(e.name))) await vfs.rm(uriFromPath(d), { recursive: true, lock });
    }
  }

  /** A task that follows the index work of the restored files, when an indexer runs to do it. */
  private async reindexTask(identity: Identity, scope: string): Promise<string | null> {
    const indexing = this.host.optional('indexing');
    if (!indexing?.running()) return null;
    const task = await this.host.tasks.create(RESTORE_TASK, identity, { resourceId: uriFromPath(scope), input: { account: identity.accountId, path: scope } });
    return task.task_id;
  }

  async dropAccount(account: string): Promise<void> {
    await this.exclusive(account, async () => {
      await this.repo(account).drop();
      this.repos.delete(account);
      this.states.delete(account);
      this.trackers.delete(account);
      await this.dropBlobCache(account);
    });
  }

  private async dropBlobCache(account: string): Promise<void> {
    let ops = [];
    for await (const [key] of this.blobs.scanPrefix(`${account}${S}b${S}`)) {
      ops.push(this.blobs.delOp(key));
      if (ops.length >= 1000) {
        await this.blobs.batch(ops);
        ops = [];
      }
    }
    if (ops.length) await this.blobs.batch(ops);
  }
}

async function repoExists(repo: Repo): Promise<boolean> {
  return fs.promises.access(path.join(repo.gitdir, 'HEAD')).then(
    () => true,
    () => false,
  );
}
