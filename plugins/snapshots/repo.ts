/**
 * One account's bare git repository, read and written with isomorphic-git, so that the git CLI
 * (`git log`, `git fsck`, `git show`) works on it unchanged. Only loose objects are written; refs
 * are `refs/heads/<branch>` (and tags a user may add with the git CLI are honoured when resolving).
 */
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import type Git from 'isomorphic-git';
import { CtxError, invalidArgument, notFound } from 'ctx/plugin';
import { objectId, type Flat, type TreeObject, type TreeState } from './tree.js';

// Required on first use, not at start-up: isomorphic-git costs ~40-150 ms of start-up to a server
// that may never snapshot (bench/RESULTS.md, start-up). Its CommonJS build keeps the calls synchronous.
let gitModule: typeof Git | undefined;
const git = (): typeof Git => (gitModule ??= createRequire(import.meta.url)('isomorphic-git') as typeof Git);

export interface Signature {
  name: string;
  email: string;
  time_seconds: number;
  tz_offset_seconds: number;
}

/** Spec Part 2 "Snapshot commit metadata". */
export interface CommitMeta {
  oid: string;
  tree: string;
  parents: string[];
  author: Signature;
  committer: Signature;
  message: string;
}

// A conservative subset of git-check-ref-format: what any git tool accepts as a branch name.
const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*\/\.)(?!\.)[A-Za-z0-9._\/-]{1,200}(?<![./])(?<!\.lock)$/;

export function checkBranch(branch: string, field = 'branch'): string {
  if (!BRANCH.test(branch)) throw invalidArgument(`${field} is not a valid branch name: ${JSON.stringify(branch)}`, { field });
  return branch;
}

const deflate = promisify(zlib.deflate);
/** Loose objects written at once: each is a few small file-system calls, cheap alone, slow in series. */
const WRITE_CONCURRENCY = 16;

const gitCode = (err: unknown): string | undefined => (err && typeof err === 'object' && 'code' in err ? String((err as { code: unknown }).code) : undefined);

export class Repo {
  private ready?: Promise<boolean>;

  constructor(readonly gitdir: string) {}

  /** Creates the bare repository on first use; resolves true only to the call that created it. */
  init(): Promise<boolean> {
    if (this.ready) return this.ready.then(() => false);
    this.ready = (async () => {
      if (fs.existsSync(path.join(this.gitdir, 'HEAD'))) return false;
      await fs.promises.mkdir(this.gitdir, { recursive: true });
      await git().init({ fs, gitdir: this.gitdir, bare: true, defaultBranch: 'main' });
      return true;
    })();
    return this.ready;
  }

  /** The branch's head commit, or null when the branch has no commits. */
  async head(branch: string): Promise<string | null> {
    try {
      return await git().resolveRef({ fs, gitdir: this.gitdir, ref: `refs/heads/${branch}` });
    } catch (err) {
      if (gitCode(err) === 'NotFoundError') return null;
      throw err;
    }
  }

  async setHead(branch: string, oid: string): Promise<void> {
    await git().writeRef({ fs, gitdir: this.gitdir, ref: `refs/heads/${branch}`, value: oid, force: true });
  }

  /**
   * Writes loose objects, several at a time, and returns their oids. The object is hashed and
   * deflated here (zlib on the thread pool) and handed to isomorphic-git already deflated: its own
   * path compresses each object through a web CompressionStream, which costs more than the
   * compression for the small objects snapshots are made of. Existing objects are left as they are.
   */
  async writeObjects(type: 'blob' | 'tree', contents: Buffer[]): Promise<string[]> {
    const oids = new Array<string>(contents.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < contents.length; i = next++) {
        const data = contents[i]!;
        const wrapped = Buffer.concat([Buffer.from(`${type} ${data.length}\0`), data]);
        const oid = objectId(type, data);
        const deflated = await deflate(wrapped, { level: 1 });
        await git().writeObject({ fs, gitdir: this.gitdir, type, object: deflated, format: 'deflated', oid });
        oids[i] = oid;
      }
    };
    await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, contents.length) }, worker));
    return oids;
  }

  async readBlob(oid: string): Promise<Buffer> {
    const { blob } = await git().readBlob({ fs, gitdir: this.gitdir, oid });
    return Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  }

  /** Tree objects from `applyChanges`, children before parents; no ref points at them until the commit. */
  async writeTrees(trees: TreeObject[]): Promise<void> {
    await this.writeObjects('tree', trees.map((t) => t.content));
  }

  async writeCommit(c: { tree: string; parents: string[]; message: string; author: { name: string; email: string }; committer?: { name: string; email: string } }): Promise<string> {
    const timestamp = Math.floor(Date.now() / 1000);
    const sig = (p: { name: string; email: string }) => ({ name: p.name, email: p.email, timestamp, timezoneOffset: 0 });
    return git().writeCommit({
      fs,
      gitdir: this.gitdir,
      commit: { tree: c.tree, parent: c.parents, message: c.message.endsWith('\n') ? c.message : c.message + '\n', author: sig(c.author), committer: sig(c.committer ?? c.author) },
    });
  }

  async readCommit(oid: string): Promise<CommitMeta> {
    const { commit } = await git().readCommit({ fs, gitdir: this.gitdir, oid });
    // isomorphic-git keeps JavaScript's sign (minutes west of UTC); the spec's offset is seconds east.
    const sig = (s: typeof commit.author): Signature => ({ name: s.name, email: s.email, time_seconds: s.timestamp, tz_offset_seconds: -s.timezoneOffset * 60 || 0 });
    return { oid, tree: commit.tree, parents: commit.parent, author: sig(commit.author), committer: sig(commit.committer ?? commit.author), message: commit.message.replace(/\n$/, '') };
  }

  /** What `path` is in a commit's tree (one tree read per segment), or null when absent. */
  async entryAt(commit: string, path: string): Promise<{ type: 'blob' | 'tree'; oid: string } | null> {
    const { commit: c } = await git().readCommit({ fs, gitdir: this.gitdir, oid: commit });
    let entry: { type: 'blob' | 'tree'; oid: string } = { type: 'tree', oid: c.tree };
    for (const name of path === '' ? [] : path.split('/')) {
      if (entry.type !== 'tree') return null;
      const { tree } = await git().readTree({ fs, gitdir: this.gitdir, oid: entry.oid });
      const found = tree.find((e) => e.path === name);
      if (!found || (found.type !== 'blob' && found.type !== 'tree')) return null;
      entry = { type: found.type, oid: found.oid };
    }
    return entry;
  }

  /** Every file and directory of a commit's tree. */
  async state(commit: string): Promise<TreeState> {
    const { commit: c } = await git().readCommit({ fs, gitdir: this.gitdir, oid: commit });
    const files: Flat = new Map();
    const dirs = new Map<string, string>();
    const children = new Map<string, Map<string, 'file' | 'dir'>>();
    const visit = async (oid: string, dir: string): Promise<void> => {
      dirs.set(dir, oid);
      const kids = new Map<string, 'file' | 'dir'>();
      children.set(dir, kids);
      const { tree } = await git().readTree({ fs, gitdir: this.gitdir, oid });
      for (const e of tree) {
        const p = dir === '' ? e.path : `${dir}/${e.path}`;
        if (e.type === 'tree') {
          kids.set(e.path, 'dir');
          await visit(e.oid, p);
        } else if (e.type === 'blob') {
          kids.set(e.path, 'file');
          files.set(p, e.oid);
        }
      }
    };
    await visit(c.tree, '');
    return { commit, files, dirs, children };
  }

  /**
   * A commit named by a full oid, an abbreviated prefix, a branch or a tag (annotated tags peeled).
   * 404 when nothing matches, 400 when a prefix is ambiguous or the object is not a commit.
   */
  async resolveCommit(ref: string, field = 'target_ref'): Promise<string> {
    if (ref.length === 0 || ref.length > 256 || /[\x00-\x20~^:?*[\\]/.test(ref)) throw invalidArgument(`${field} is not a commit id, branch or tag: ${JSON.stringify(ref)}`, { field });
    let oid: string | null = null;
    if (/^[0-9a-f]{40}$/i.test(ref)) oid = ref.toLowerCase();
    if (!oid) oid = await this.tryRef(ref);
    if (!oid && /^[0-9a-f]{4,39}$/i.test(ref)) {
      try {
        oid = await git().expandOid({ fs, gitdir: this.gitdir, oid: ref.toLowerCase() });
      } catch (err) {
        if (gitCode(err) === 'AmbiguousError') throw invalidArgument(`${field} ${ref} is ambiguous: several objects start with it`, { field, target_ref: ref });
        if (gitCode(err) !== 'NotFoundError') throw err;
      }
    }
    if (!oid) throw notFound(`no commit, branch or tag named ${ref}`, { field, target_ref: ref });
    return this.peel(oid, ref, field);
  }

  private async tryRef(ref: string): Promise<string | null> {
    for (const full of [`refs/heads/${ref}`, `refs/tags/${ref}`, ref.startsWith('refs/') ? ref : null]) {
      if (!full) continue;
      try {
        return await git().resolveRef({ fs, gitdir: this.gitdir, ref: full });
      } catch (err) {
        if (gitCode(err) !== 'NotFoundError') throw err;
      }
    }
    return null;
  }

  private async peel(oid: string, ref: string, field: string): Promise<string> {
    for (let depth = 0; depth < 8; depth++) {
      let obj;
      try {
        obj = await git().readObject({ fs, gitdir: this.gitdir, oid, format: 'parsed' });
      } catch (err) {
        if (gitCode(err) === 'NotFoundError') throw notFound(`no commit, branch or tag named ${ref}`, { field, target_ref: ref });
        throw err;
      }
      if (obj.type === 'commit') return oid;
      if (obj.type !== 'tag') throw invalidArgument(`${ref} names a ${obj.type}, not a commit`, { field, target_ref: ref });
      oid = (obj.object as { object: string }).object;
    }
    throw new CtxError('INVALID_ARGUMENT', `${ref}: too many nested tags`, { field });
  }

  /** Blob oid of a buffer without writing it. */
  static blobId(data: Buffer): string {
    return objectId('blob', data);
  }

  async drop(): Promise<void> {
    this.ready = undefined;
    await fs.promises.rm(this.gitdir, { recursive: true, force: true });
  }
}
