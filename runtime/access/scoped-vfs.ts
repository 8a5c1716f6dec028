/**
 * The VFS as a plugin sees it: bound to one caller, addressed by `ctx://` URIs, with the namespace
 * rules and the per-entry read rules applied to every call. There is no account parameter, so a
 * foreign account cannot even be named; unreadable entries are left out of listings and walks, and
 * any operation on or below one answers 403. Writes need write access to the namespace and a
 * readable path (a caller may not write into what it may not see).
 *
 * The batch calls (`statMany`, `readMany`, `writeFiles`, `setTags`) check every target with ONE call
 * of the entry rules, so a plugin gets the raw VFS's batching without its reach.
 */
import { CtxError, conflict, permissionDenied } from '../errors.js';
import type { Identity } from '../identity/types.js';
import { SCHEME, authorize, parseUri, uriFromPath, type Access, type CtxUri } from '../uri/index.js';
import { SIDECARS, type ChangeEvent, type Entry } from '../vfs/types.js';
import { isAncestorPath, type LockHandle, type LockKind } from '../vfs/locks.js';
import type { Vfs, WriteOptions } from '../vfs/vfs.js';
import type { ChangeFeed } from './change-feed.js';
import { isSessionAlias, sessionReadTarget } from './legacy-session.js';
import type { AccessGuard } from './guard.js';
import { namespaceReadable } from './guard.js';

export interface ScopedEntry extends Entry {
  uri: string;
}

export interface ScopedWriteOptions {
  mode?: WriteOptions['mode'];
  tags?: string[];
  tagMode?: 'replace' | 'append';
  /** Plugin metadata stored with the node (keys the access rules own are refused). */
  meta?: Record<string, unknown>;
  /** A lock from `lock()` covering the target: the write joins it instead of taking its own. */
  lock?: LockHandle;
  /** Context travelling with the change event (`index`, `tags`, `source`). */
  hint?: Record<string, unknown>;
}

export interface ScopedWriteResult {
  uri: string;
  created: boolean;
  changed: boolean;
  size: number;
  /** Bytes this call wrote (an append: the appended bytes; unchanged content: 0). */
  writtenBytes: number;
  sha256: string;
}

export interface ScopedWriteFilesOptions {
  /** A tree lock from `lock(rootUri, 'tree')`; without one the call takes it. */
  lock?: LockHandle;
  hint?: Record<string, unknown>;
  /** `statMany` of the targets, taken under the same lock (saves a second multi-get). */
  existing?: (Entry | null)[];
  /** `statMany` of their ancestor directories, taken under the same lock. */
  ancestors?: Map<string, Entry | null>;
}

/** A change event as a subscription sees it: its URIs besides the internal paths. */
export interface ScopedChangeEvent extends ChangeEvent {
  uri: string;
}

export interface ScopedVfsOptions {
  /** Where `onChange` subscriptions come from (absent: `onChange` throws). */
  feed?: ChangeFeed;
  /** Only the plugin that supplies the entry rules may write the metadata keys they read. */
  rulesOwner?: boolean;
}

const withUri = (e: Entry): ScopedEntry => ({ ...e, uri: uriFromPath(e.path) });

export class ScopedVfs {
  constructor(
    private readonly vfs: Vfs,
    private readonly guard: AccessGuard,
    readonly identity: Identity,
    private readonly opts: ScopedVfsOptions = {},
  ) {}

  /**
   * Parses and authorizes a URI for this caller (400 INVALID_URI, 403 PERMISSION_DENIED). A sidecar
   * (`.abstract.md`, `.relations.json`...) is addressed below its directory, the account root
   * included (`ctx://.relations.json`), and authorized as that directory.
   */
  resolve(uri: string, access: Access = 'read', field = 'uri'): CtxUri {
    let u: CtxUri;
    try {
      u = parseUri(uri, this.identity, { field });
    } catch (err) {
      const sidecar = typeof uri === 'string' ? this.sidecarOf(uri, field) : null;
      if (!sidecar) throw err;
      u = sidecar;
    }
    authorize(u, this.identity, access);
    return u;
  }

  private sidecarOf(uri: string, field: string): CtxUri | null {
    const cut = uri.lastIndexOf('/');
    const name = uri.slice(cut + 1);
    if (!SIDECARS.has(name) || cut < SCHEME.length - 1) return null;
    const dir = parseUri(cut === SCHEME.length - 1 ? SCHEME : uri.slice(0, cut), this.identity, { field });
    const path = dir.path === '' ? name : `${dir.path}/${name}`;
    return { ...dir, uri: uriFromPath(path), path, segments: [...dir.segments, name], name, parent: dir.uri, aliasOf: undefined };
  }

  private get account(): string {
    return this.identity.accountId;
  }

  private async readable(uri: string, access: Access = 'read'): Promise<CtxUri> {
    const u = this.resolve(uri, access);
    await this.guard.assertEntryReadable(this.identity, u.path);
    // `ctx://session/...` (read-only) falls back to an unmigrated legacy session the caller may see.
    return isSessionAlias(u) ? sessionReadTarget(this.rawReads, this.identity, u) : u;
  }

  private readonly rawReads = {
    stat: (account: string, path: string) => this.vfs.stat(account, path),
    readFile: (account: string, path: string) => this.vfs.readFile(account, path),
    list: (account: string, path: string) => this.vfs.list(account, path),
  };

  /** Every URI resolved and authorized, then the entry rules asked once for all of them. */
  private async readableMany(uris: string[], access: Access = 'read'): Promise<CtxUri[]> {
    const us = uris.map((uri) => this.resolve(uri, access));
    if (us.length === 0) return us;
    const blocked = await this.guard.blockedOn(this.identity, us.map((u) => u.path));
    blocked.forEach((b, i) => {
      if (b !== null && b !== undefined) throw this.guard.denied(this.identity, us[i]!.path, b);
    });
    return us;
  }

  /** The node at `uri`, or null when it does not exist. */
  async stat(uri: string): Promise<ScopedEntry | null> {
    const u = await this.readable(uri);
    const node = await this.vfs.stat(this.account, u.path);
    return node ? withUri(node) : null;
  }

  /** `stat` of several URIs in one multi-get (null where missing); 403 when any is unreadable. */
  async statMany(uris: string[]): Promise<(ScopedEntry | null)[]> {
    const us = await this.readableMany(uris);
    return (await this.vfs.statMany(this.account, us.map((u) => u.path))).map((n) => (n ? withUri(n) : null));
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

  /** Contents of several files in one multi-get (undefined where missing or a directory); 403 when any is unreadable. */
  async readMany(uris: string[]): Promise<(Buffer | undefined)[]> {
    const us = await this.readableMany(uris);
    return this.vfs.readMany(this.account, us.map((u) => u.path));
  }

  /** The URI of the file whose record id is `id`, or null when none exists or the caller may not read it. */
  async uriOfRecordId(id: string): Promise<string | null> {
    const path = await this.vfs.pathOfRecordId(this.account, id);
    if (path === null || !namespaceReadable(this.identity, path)) return null;
    return (await this.guard.canReadPath(this.identity, path)) ? uriFromPath(path) : null;
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

  /**
   * The readable children of `uri` and of every readable directory below it, grouped by parent
   * URI, from two range scans (see Vfs.listSubtree); at most `limit` nodes are read. An unreadable
   * node is left out with everything below it.
   */
  async listSubtree(uri: string, limit: number): Promise<{ groups: Map<string, ScopedEntry[]>; complete: boolean }> {
    const u = await this.readable(uri);
    const { groups, complete } = await this.vfs.listSubtree(this.account, u.path, limit);
    const out = new Map<string, ScopedEntry[]>();
    const hidden: string[] = [];
    // Groups come in key order, parents before their descendants: a hidden node's are dropped with it.
    for (const parent of groups.keys()) {
      if (hidden.some((h) => isAncestorPath(h, parent))) continue;
      const kept: ScopedEntry[] = [];
      for (const e of groups.get(parent)!) {
        if (this.visible(e)) kept.push(withUri(e));
        else hidden.push(e.path);
      }
      out.set(uriFromPath(parent), kept);
    }
    return { groups: out, complete };
  }

  /**
   * Depth-first walk below `uri`, never descending into (or yielding) what the caller may not read.
   * `descend` prunes further (the caller's own filter, e.g. sidecars or ignore rules).
   */
  async *walk(uri: string, opts: { maxDepth?: number; descend?: (e: ScopedEntry) => boolean } = {}): AsyncIterable<ScopedEntry & { depth: number }> {
    const u = await this.readable(uri);
    let hidden: string | null = null;
    const descend = (d: Entry) => this.visible(d) && (!opts.descend || opts.descend(withUri(d)));
    for await (const e of this.vfs.walk(this.account, u.path, { maxDepth: opts.maxDepth, descend })) {
      if (hidden !== null && isAncestorPath(hidden, e.path)) continue;
      if (!this.visible(e)) {
        hidden = e.path;
        continue;
      }
      yield { ...withUri(e), depth: e.depth };
    }
  }

  /** Whether `uri` holds a lock or lies below a tree lock (the caller must be able to read it). */
  async isLocked(uri: string): Promise<boolean> {
    const u = await this.readable(uri);
    return this.vfs.locks.isLocked(this.account, u.path);
  }

  /**
   * A lock on `uri` (`tree`: it and everything below) that the caller may write: pass it as `lock`
   * to the writes made under it, and release it in a `finally`. Waits behind conflicting locks.
   */
  async lock(uri: string, kind: LockKind, owner?: string): Promise<LockHandle> {
    const u = await this.readable(uri, 'write');
    return this.vfs.locks.acquire(this.account, u.path, kind, owner);
  }

  /** `lock` of several URIs taken as one request (no deadlock against a tree lock queued between). */
  async lockAll(uris: string[], kind: LockKind, owner?: string): Promise<LockHandle[]> {
    const us = await this.readableMany(uris, 'write');
    return this.vfs.locks.acquireAll(this.account, us.map((u) => u.path), kind, owner);
  }

  async writeFile(uri: string, data: Buffer | string, opts: ScopedWriteOptions = {}): Promise<ScopedWriteResult> {
    const u = await this.readable(uri, 'write');
    if (opts.meta) this.checkMetaKeys(u, opts.meta);
    const out = await this.vfs.writeFile(this.account, u.path, typeof data === 'string' ? Buffer.from(data) : data, {
      mode: opts.mode,
      tags: opts.tags,
      tagMode: opts.tagMode,
      meta: opts.meta,
      lock: this.ownLock(opts.lock),
      hint: opts.hint,
    });
    return { uri: u.uri, created: out.created, changed: out.changed, size: out.size, writtenBytes: out.writtenBytes, sha256: out.sha256 };
  }

  /**
   * Writes several files below the directory `rootUri` in ONE atomic batch: a reader (and the
   * indexer) sees all of them or none, and a crash never leaves half of them. Every target is
   * authorized like `writeFile`, under a tree lock on `rootUri` (the caller's, or taken here).
   * `data` is each file's final content; `sha256` may be passed when already computed.
   */
  async writeFiles(rootUri: string, files: Array<{ uri: string; data: Buffer; sha256?: string }>, opts: ScopedWriteFilesOptions = {}): Promise<ScopedWriteResult[]> {
    const [root, ...targets] = await this.readableMany([rootUri, ...files.map((f) => f.uri)], 'write');
    for (const u of targets) if (!isAncestorPath(root!.path, u.path) || u.path === root!.path) throw new CtxError('INVALID_ARGUMENT', `${u.uri} is not below ${root!.uri}`, { resource: u.uri });
    const held = this.ownLock(opts.lock);
    if (held && !held.covers(this.account, root!.path)) throw new CtxError('INVALID_ARGUMENT', `the lock passed to writeFiles does not cover ${root!.uri}`, { resource: root!.uri });
    const lock = held ?? (await this.vfs.locks.acquire(this.account, root!.path, 'tree', 'scoped.writeFiles'));
    try {
      const out = await this.vfs.writeFiles(
        this.account,
        targets.map((u, i) => ({ path: u.path, content: files[i]!.data, sha256: files[i]!.sha256 })),
        { lock, hint: opts.hint, existing: opts.existing, ancestors: opts.ancestors },
      );
      return out.map((o, i) => ({ uri: targets[i]!.uri, created: o.created, changed: o.changed, size: o.size, writtenBytes: o.writtenBytes, sha256: o.sha256 }));
    } finally {
      if (!held) lock.release();
    }
  }

  /** Tags and plugin metadata of one node, without touching its content (404 when missing). */
  async setMeta(uri: string, patch: { tags?: string[]; tagMode?: 'replace' | 'append'; meta?: Record<string, unknown> }, opts: { lock?: LockHandle; hint?: Record<string, unknown> } = {}): Promise<ScopedEntry> {
    const u = await this.readable(uri, 'write');
    if (patch.meta) this.checkMetaKeys(u, patch.meta);
    return withUri(await this.vfs.setMeta(this.account, u.path, patch, { lock: this.ownLock(opts.lock), hint: opts.hint }));
  }

  /**
   * The same tag update on many nodes in ONE atomic batch (all or none) under the caller's tree
   * lock; missing nodes are skipped. Returns the URIs updated.
   */
  async setTags(uris: string[], tags: string[], tagMode: 'replace' | 'append', opts: { lock: LockHandle; hint?: Record<string, unknown> }): Promise<string[]> {
    const us = await this.readableMany(uris, 'write');
    const done = await this.vfs.setTagsMany(this.account, us.map((u) => u.path), tags, tagMode, { lock: this.ownLock(opts.lock)!, hint: opts.hint });
    return done.map(uriFromPath);
  }

  async mkdir(uri: string, opts: { lock?: LockHandle } = {}): Promise<{ created: string[] }> {
    const u = await this.readable(uri, 'write');
    const out = await this.vfs.mkdir(this.account, u.path, { existOk: true, lock: this.ownLock(opts.lock) });
    return { created: out.created.map(uriFromPath) };
  }

  /** Removes a file, or a directory with `recursive`; refused when anything inside is unreadable. */
  async rm(uri: string, opts: { recursive?: boolean; lock?: LockHandle } = {}): Promise<{ deleted: number; uris: string[] }> {
    const u = await this.readable(uri, 'write');
    await this.assertSubtreeVisible(u);
    const out = await this.vfs.rm(this.account, u.path, { recursive: opts.recursive, lock: this.ownLock(opts.lock) });
    return { deleted: out.deleted, uris: out.paths.map(uriFromPath) };
  }

  async mv(fromUri: string, toUri: string): Promise<{ moved: number }> {
    const from = await this.readable(fromUri, 'write');
    const to = this.resolve(toUri, 'write', 'to_uri');
    await this.guard.assertEntryReadable(this.identity, to.path);
    if (await this.vfs.stat(this.account, to.path)) throw conflict(`destination exists: ${to.uri}`, to.uri);
    await this.assertSubtreeVisible(from);
    return this.vfs.mv(this.account, from.path, to.path);
  }

  /**
   * Subscribes to this account's durable changes that this caller may read (namespace and entry
   * rules, asked when the event arrives); returns the function that ends the subscription. This is
   * how a plugin without `all-account-changes` follows changes: per account, as someone who may read them.
   */
  onChange(fn: (ev: ScopedChangeEvent) => void): () => void {
    const feed = this.opts.feed;
    if (!feed) throw new Error('this scoped VFS has no change feed');
    return feed.subscribe(this.account, (ev) => {
      if (!namespaceReadable(this.identity, ev.path)) return;
      this.guard.canReadPath(this.identity, ev.path).then(
        (ok) => ok && fn({ ...ev, uri: uriFromPath(ev.path) }),
        () => {},
      );
    });
  }

  private visible(node: Entry): boolean {
    return namespaceReadable(this.identity, node.path) && !this.guard.hides(this.identity, node);
  }

  /** A lock passed in must be one of this account's (a handle is an object any plugin could build). */
  private ownLock(lock: LockHandle | undefined): LockHandle | undefined {
    if (lock && lock.account !== this.account) throw permissionDenied(`the lock passed is not one of account ${this.account}'s`);
    return lock;
  }

  private checkMetaKeys(u: CtxUri, meta: Record<string, unknown>): void {
    if (this.opts.rulesOwner) return;
    for (const key of this.guard.reservedMetaKeys)
      if (key in meta) throw permissionDenied(`metadata key ${key} of ${u.uri} belongs to the access rules; set it through their own route`, { resource: u.uri });
  }

  /**
   * The first node below `uri` the caller may not read, or null: what a replace or delete of the
   * whole subtree would destroy unseen (rm and mv refuse it; a caller may name it in its own 403).
   */
  async firstHidden(uri: string): Promise<string | null> {
    const u = await this.readable(uri);
    const path = await this.hiddenBelow(u);
    return path === null ? null : uriFromPath(path);
  }

  private async hiddenBelow(u: CtxUri): Promise<string | null> {
    const node = await this.vfs.stat(this.account, u.path);
    if (node?.kind !== 'dir') return null;
    for await (const e of this.vfs.walk(this.account, u.path)) if (!this.visible(e)) return e.path;
    return null;
  }

  private async assertSubtreeVisible(u: CtxUri): Promise<void> {
    const hidden = await this.hiddenBelow(u);
    if (hidden !== null) throw this.guard.denied(this.identity, hidden, hidden);
  }
}
