/**
 * Tag rules (spec Part 2, set_tags on both paths, "Attrs result"): strict `k=v` strings; `replace`
 * sets the list (`[]` clears it), `append` merges by key (a new value replaces the old one for its
 * key); `recursive` also updates every existing descendant. All nodes change in one atomic batch
 * under a tree lock; the indexer re-tags vector records from the `meta` change events.
 */
import { invalidArgument, notFound } from '../../runtime/errors.js';
import type { Identity } from '../../runtime/identity/types.js';
import type { PluginHost } from '../../runtime/plugin.js';
import { uriFromPath } from '../../runtime/uri/index.js';
import { SIDECARS } from '../../runtime/vfs/types.js';
import { deniedNode } from './access.js';
import type { ListingCache } from './listing.js';
import { resolve } from './ops.js';

export interface SetTagsOptions {
  mode: 'replace' | 'append';
  recursive: boolean;
}

export interface SetTagsOutcome {
  /** URIs whose tags were set, the target first. */
  updated: string[];
  /** Descendants left alone because the caller may not read them (`access: denied`). */
  skipped_count: number;
}

/** A non-empty key without `=`, no control characters, no surrounding blanks, at most 512 characters. */
const TAG = /^[^=\x00-\x1f\x7f]+=[^\x00-\x1f\x7f]*$/;

export function checkTags(tags: unknown, field = 'tags'): string[] {
  if (!Array.isArray(tags)) throw invalidArgument(`${field} must be an array of k=v strings`, { field });
  tags.forEach((t, i) => {
    if (typeof t !== 'string' || !TAG.test(t) || t.length > 512 || t.trim() !== t)
      throw invalidArgument(`${field}[${i}] must be a k=v string (non-empty key, at most 512 characters), got ${JSON.stringify(t)?.slice(0, 100)}`, { field: `${field}[${i}]` });
  });
  return tags as string[];
}

export async function setTags(host: PluginHost, cache: ListingCache, identity: Identity, uri: string, tags: string[], opts: SetTagsOptions): Promise<SetTagsOutcome> {
  checkTags(tags);
  const u = await resolve(host, identity, uri, 'write');
  if (u.path === '') throw invalidArgument('the account root ctx:// carries no tags', { resource: u.uri });
  const account = identity.accountId;
  const lock = await host.vfs.locks.acquire(account, u.path, 'tree', 'fs.set_tags');
  try {
    const node = await host.vfs.stat(account, u.path);
    if (!node) throw notFound(`no such file or directory: ${u.uri}`, { resource: u.uri });
    const paths = [u.path];
    let skipped = 0;
    if (opts.recursive && node.kind === 'dir') {
      // Walk under the lock; denied subtrees are not entered (their nodes are not the caller's to tag).
      const stack = [u.path];
      while (stack.length) {
        for (const e of await cache.children(account, stack.pop()!)) {
          if (deniedNode(e, identity)) {
            skipped++;
            continue;
          }
          if (e.kind === 'file' && SIDECARS.has(e.name)) continue;
          paths.push(e.path);
          if (e.kind === 'dir') stack.push(e.path);
        }
      }
    }
    const done = await host.vfs.setTagsMany(account, paths, tags, opts.mode, { lock });
    return { updated: done.map(uriFromPath), skipped_count: skipped };
  } finally {
    lock.release();
  }
}
