/**
 * mkdir queues the new directory's semantic processing (spec Part 2: "either way `.abstract.md` is
 * written and L0 vectorization queued"). The directory and its `.abstract.md` are created by one
 * file write, and indexers skip sidecar writes (they are their own output), so nothing else would
 * tell the indexer that a directory appeared. The message joins the mkdir's own batch: it exists
 * exactly when the directory does.
 */
import type { PluginHost } from '../../runtime/sdk/index.js';
import { queueSemanticOnCommit } from '../../runtime/sdk/index.js';
import { splitPath } from '../../runtime/sdk/index.js';

/** The hint of the `.abstract.md` write of fs/mkdir. */
export const MKDIR_HINT = { source: 'fs.mkdir' } as const;

export function queueMkdirIndexing(host: PluginHost): void {
  queueSemanticOnCommit(host, (ev) => {
    if (ev.type !== 'write' || ev.hint?.source !== MKDIR_HINT.source) return null;
    const dir = splitPath(ev.path)[0];
    return { message: { account: ev.account, path: dir, kind: 'dir', op: 'upsert' }, dedupeKey: `fs-mkdir\x00${ev.account}\x00${dir}` };
  });
}
