/**
 * mkdir queues the new directory's semantic processing (spec Part 2: "either way `.abstract.md` is
 * written and L0 vectorization queued"). The directory and its `.abstract.md` are created by one
 * file write, and indexers skip sidecar writes (they are their own output), so nothing else would
 * tell the indexer that a directory appeared. The message joins the mkdir's own batch: it exists
 * exactly when the directory does.
 */
import type { PluginHost } from '../../runtime/plugin.js';
import { SEMANTIC_QUEUE, type SemanticMessage } from '../../runtime/queues/indexing.js';
import type { ChangeEvent } from '../../runtime/vfs/types.js';
import { splitPath } from '../../runtime/vfs/vfs.js';

/** The hint of the `.abstract.md` write of fs/mkdir. */
export const MKDIR_HINT = { source: 'fs.mkdir' } as const;

export function queueMkdirIndexing(host: PluginHost): void {
  const activations = new WeakMap<ChangeEvent, () => void>();
  host.vfs.onCommit((events) => {
    const ops = [];
    for (const ev of events) {
      // Queued only when an indexer consumes the queue, or the messages would pile up unread.
      if (ev.type !== 'write' || ev.hint?.source !== MKDIR_HINT.source || !host.queues.hasConsumer(SEMANTIC_QUEUE)) continue;
      const dir = splitPath(ev.path)[0];
      const msg: SemanticMessage = { account: ev.account, path: dir, kind: 'dir', op: 'upsert' };
      const prepared = host.queues.prepare(SEMANTIC_QUEUE, msg, { dedupeKey: `fs-mkdir\x00${ev.account}\x00${dir}` });
      if (!prepared) continue;
      ops.push(...prepared.ops);
      activations.set(ev, prepared.activate);
    }
    return ops;
  });
  // Consumers may see the message only once the batch is durable, which the change event signals.
  host.vfs.on('change', (ev: ChangeEvent) => {
    const activate = activations.get(ev);
    if (!activate) return;
    activations.delete(ev);
    activate();
  });
}
