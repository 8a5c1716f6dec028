/**
 * The VFS as a plugin sees it: bound to one caller, addressed by `ctx://` URIs, with the namespace
 * rules and the per-entry read rules applied to every call. There is no account parameter, so a
 * foreign account cannot even be named; unreadable entries are left out of listings and walks, and
 * any operation on or below one answers 403. Writes need write access to the namespace and a
 * readable path (a caller may not write into what it may not see).
 */
import { CtxError, conflict } from '../errors.js';
import type { Identity } from '../identity/types.js';
import { authorize, parseUri, uriFromPath, type Access, type CtxUri } from '../uri/index.js';
import type { Entry } from '../vfs/types.js';
import { isAncestorPath } from '../vfs/locks.js';
import type { Vfs, WriteOptions } from '../vfs/vfs.js';
import type { AccessGuard } from './guard.js';
import { namespaceReadable } from './guard.js';

export interface ScopedEntry extends Entry {
  uri: string;
}

export interface ScopedWriteOptions {
  mode?: WriteOptions['mode'];
  tags?: string[];
  tagMode?: 'replace' | 'append';
}

export interface ScopedWriteResult {
  uri: string;
  created: boolean;
  changed: boolean;
  size: number;
  sha256: string;
}

const withUri = (e: Entry): ScopedEntry => ({ ...e, uri: uriFromPath(e.path) });

export class ScopedVfs {
  constructor(
    private readonly vfs: Vfs,
    private readonly guard: AccessGuard,
    readonly identity: Identity,
  ) {}

  /** Parses and authorizes a URI for this caller (400 INVALID_URI, 403 PERMISSION_DENIED). */
  resolve(uri: string, access: Access = 'read', field = 'uri'): CtxUri {
    const u = parseUri(uri, this.identity, { field });
    authorize(u, this.identity, access);
    return u;
  }

  private get account(): string {
    return this.identity.accountId;
  }

  private async readable(uri: string, access: Access = 'read'): Promise<CtxUri> {
    const u = this.resolve(uri, access);
    await this.guard.assertEntryReadable(this.identity, u.path);
    return u;
  }

  /** The node at `uri`, or null when it does not exist. */
  async stat(uri: string): Promise<ScopedEntry | null> {
    const u = await this.readable(uri);
    const node = await this.vfs.stat(this.account, u.path);
    return node ? withUri(node) : null;
  }

  async exists(uri: string): Promise<boolean> {
    return (await this.stat(uri)) !== null;
  }

  async readFile(uri: string): Promise<Buffer> {
    const u = await this.readable(uri);
    return this.vfs.readFile(this.account, u.path);
  }

  async readText(uri: string): Promise<string> {
    return (await this.readFile(uri)).toString('utf8');
  }

  /** Readable children of a directory in name order; entries the caller may not read are left out. */
  async list(uri: string, opts: { after?: string; limit?: number } = {}): Promise<ScopedEntry[]> {
    const u = await this.readable(uri);
    const node = await this.vfs.stat(this.account, u.path);
    if (!node) throw new CtxError('NOT_FOUND', `no such directory: ${u.uri}`, { resource: u.uri });
    if (node.kind !== 'dir') throw new CtxError('INVALID_ARGUMENT', `uri must be a directory, got a file: ${u.uri}`, { resource: u.uri });
    const children = await this.vfs.list(this.account, u.path, opts);
    return children.filter((c) => this.visible(c)).map(withUri);
  }

  /** Depth-first walk below `uri`, never descending into (or yielding) what the caller may not read. */
  async *walk(uri: string, opts: { maxDepth?: number } = {}): AsyncIterable<ScopedEntry & { depth: number }> {
    const u = await this.readable(uri);
    let hidden: string | null = null;
    for await (const e of this.vfs.walk(this.account, u.path, { maxDepth: opts.maxDepth, descend: (d) => this.visible(d) })) {
      if (hidden !== null && isAncestorPath(hidden, e.path)) continue;
      if (!this.visible(e)) {
        hidden = e.path;
        continue;
      }
      yield { ...withUri(e), depth: e.depth };
    }
  }

  async writeFile(uri: string, data: Buffer | string, opts: ScopedWriteOptions = {}): Promise<ScopedWriteResult> {
    const u = await this.readable(uri, 'write');
    const out = await this.vfs.writeFile(this.account, u.path, typeof data === 'string' ? Buffer.from(data) : data, {
      mode: opts.mode,
      tags: opts.tags,
      tagMode: opts.tagMode,
    });
    return { uri: u.uri, created: out.created, changed: out.changed, size: out.size, sha256: out.sha256 };
  }

  /**
   * Writes several files below the directory `rootUri` in ONE atomic batch: a reader (and the
   * indexer) sees all of them or none, and a crash never leaves half of them. Every target is
   * authorized like `writeFile`, under a tree lock on `rootUri`.
   */
  async writeFiles(rootUri: string, files: Array<{ uri: string; data: Buffer }>): Promise<ScopedWriteResult[]> {
    const root = await this.readable(rootUri, 'write');
    const targets: CtxUri[] = [];
    for (const f of files) {
      const u = await this.readable(f.uri, 'write');
      if (!isAncestorPath(root.path, u.path) || u.path === root.path) throw new CtxError('INVALID_ARGUMENT', `${u.uri} is not below ${root.uri}`, { resource: u.uri });
      targets.push(u);
    }
    const lock = await this.vfs.locks.acquire(this.account, root.path, 'tree', 'scoped.writeFiles');
    try {
      const out = await this.vfs.writeFiles(
        this.account,
        targets.map((u, i) => ({ path: u.path, content: files[i]!.data })),
        { lock },
      );
      return out.map((o, i) => ({ uri: targets[i]!.uri, created: o.created, changed: o.changed, size: o.size, sha256: o.sha256 }));
    } finally {
      lock.release();
    }
  }

  async mkdir(uri: string): Promise<{ created: string[] }> {
    const u = await this.readable(uri, 'write');
    const out = await this.vfs.mkdir(this.account, u.path, { existOk: true });
    return { created: out.created.map(uriFromPath) };
  }

  /** Removes a file, or a directory with `recursive`; refused when anything inside is unreadable. */
  async rm(uri: string, opts: { recursive?: boolean } = {}): Promise<{ deleted: number }> {
    const u = await this.readable(uri, 'write');
    await this.assertSubtreeVisible(u);
    const out = await this.vfs.rm(this.account, u.path, { recursive: opts.recursive });
    return { deleted: out.deleted };
  }

  async mv(fromUri: string, toUri: string): Promise<{ moved: number }> {
    const from = await this.readable(fromUri, 'write');
    const to = this.resolve(toUri, 'write', 'to_uri');
    await this.guard.assertEntryReadable(this.identity, to.path);
    if (await this.vfs.stat(this.account, to.path)) throw conflict(`destination exists: ${to.uri}`, to.uri);
    await this.assertSubtreeVisible(from);
    return this.vfs.mv(this.account, from.path, to.path);
  }

  private visible(node: Entry): boolean {
    return namespaceReadable(this.identity, node.path) && !this.guard.hides(this.identity, node);
  }

  private async assertSubtreeVisible(u: CtxUri): Promise<void> {
    const node = await this.vfs.stat(this.account, u.path);
    if (node?.kind !== 'dir') return;
    for await (const e of this.vfs.walk(this.account, u.path))
      if (!this.visible(e)) throw this.guard.denied(this.identity, e.path, e.path);
  }
}
