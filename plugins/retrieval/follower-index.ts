/**
 * Cluster mode (docs/scale-out.md, phase 3): the retrieval records a shard's leader wrote reach a
 * follower as raw RocksDB ops. This turns them into index changes, so the follower's vector index
 * is fed record by record and can serve `find`/`search` itself.
 *
 * Ops of one applied record may come from several coalesced batches: per record id the last op on
 * its vector key wins (a delete then a re-insert is an insert), which is the state RocksDB holds.
 */
import type { KvOp } from 'ctx/plugin';
import type { RecordDoc, ReplicatedChange } from './store.js';

const S = '\x00';

export function replicatedChanges(prefix: string, ops: KvOp[]): ReplicatedChange[] {
  const byId = new Map<string, Extract<ReplicatedChange, { kind: 'put' | 'del' }>>();
  let seq: number | undefined;
  for (const op of ops) {
    if (!op.key.startsWith(prefix)) continue;
    const key = op.key.slice(prefix.length);
    if (key === `meta${S}seq`) {
      if (op.type === 'put' && op.value) seq = Number(op.value.toString('utf8'));
      continue;
    }
    const kind = key[0];
    if (key[1] !== S || (kind !== 'v' && kind !== 'r')) continue;
    if (kind === 'v') {
      const [account, id] = key.slice(2).split(S);
      if (!account || !id) continue;
      const k = `${account}${S}${id}`;
      if (op.type === 'del') byId.set(k, { kind: 'del', account, id });
      else {
        const prev = byId.get(k);
        byId.set(k, { kind: 'put', account, id, vector: op.value, doc: prev?.kind === 'put' ? prev.doc : undefined });
      }
    } else if (op.type === 'put' && op.value) {
      const doc = JSON.parse(op.value.toString('utf8')) as RecordDoc;
      const k = `${doc.attrs.account}${S}${doc.id}`;
      const prev = byId.get(k);
      byId.set(k, { kind: 'put', account: doc.attrs.account, id: doc.id, doc, vector: prev?.kind === 'put' ? prev.vector : undefined });
    }
    // A record's delete always deletes its vector key too: that op carries the id.
  }
  const out: ReplicatedChange[] = [...byId.values()];
  if (seq !== undefined && Number.isFinite(seq)) out.push({ kind: 'seq', value: seq });
  return out;
}
