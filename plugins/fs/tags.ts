/**
 * Tag rules (spec Part 2, set_tags on both paths, "Attrs result"): strict `k=v` strings; `replace`
 * sets the list (`[]` clears it), `append` merges by key (a new value replaces the old one for its
 * key); `recursive` also updates every existing descendant. All nodes change in one atomic batch
 * under a tree lock; the indexer re-tags vector records from the `meta` change events.
 */
import { checkTags } from 'ctx/plugin';
import { invalidArgument, notFound } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import type { PluginHost } from 'ctx/plugin';
import { uriFromPath } from 'ctx/plugin';
import { SIDECARS } from 'ctx/plugin';
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


export async function setTags(host: PluginHost, cache: ListingCache, identity: Identity, uri: string, tags: string[], opts: SetTagsOptions): Promise<SetTagsOutcome> {
  checkTags(tags);
  const u = await resolve(host, identity, uri, 'write');
  if (u.path === '') throw invalidArgument('the account root ctx:// carries no tags', { resource: u.uri });
  const account = identity.accountId;
  const lock = await host.unscopedVfs.locks.acquire(account, u.path, 'tree', 'fs.set_tags');
  try {
    const node = await host.unscopedVfs.stat(account, u.path);
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
    const done = await host.unscopedVfs.setTagsMany(account, paths, tags, opts.mode, { lock });
    return { updated: done.map(uriFromPath), skipped_count: skipped };
  } finally {
    lock.release();
  }
}
