/**
 * A shard's local copy as RocksDB keys (docs/scale-out.md, "Membership changes" and "Snapshots"):
 * what a node deletes when the shard moved away from it for good, and what it wipes before it
 * installs a snapshot. The range is the consistency digest's (every key of the VFS and plugin
 * keyspaces of the accounts placed on the shard) plus the shard's queue messages (their sequence
 * is partitioned by shard, background.ts) and its applied marker.
 */
import type { KvBackend, KvOp } from '../storage/backend.js';
import type { ConsistencyChecker } from './consistency.js';
import { APPLIED_PREFIX } from './shard-log.js';
import { SYS_SHARD, type Replicator } from './replicator.js';
import { SEQ_SPAN, seqBaseOf } from './background.js';

const S = '\x00';
const NEXT = '\x01';
/** Ops per local write: one await each, so the event loop keeps serving while a big shard goes. */
const CHUNK = 1000;

/** Queue keys (`queues\0m|d\0<queue>\0<seq>`) whose sequence is in the shard's partition. */
async function* queueKeys(backend: KvBackend, shard: string): AsyncIterable<string> {
  const lo = seqBaseOf(shard);
  for await (const [k] of backend.iterate({ gte: `queues${S}`, lt: `queues${NEXT}` })) {
    const seq = Number(k.split(S)[3]);
    if (seq > lo && seq <= lo + SEQ_SPAN) yield k;
  }
}

/** Every local key of an account shard's copy, in chunks (the applied marker last). */
export async function* shardKeys(backend: KvBackend, checker: ConsistencyChecker, shard: string): AsyncIterable<string[]> {
  if (shard === SYS_SHARD) throw new Error('the system shard is held by every node; it is never dropped');
  let out: string[] = [];
  for (const r of await checker.ranges(shard))
    for await (const [k] of backend.iterate(r)) {
      out.push(k);
      if (out.length >= CHUNK) yield out.splice(0);
    }
  for await (const k of queueKeys(backend, shard)) {
    out.push(k);
    if (out.length >= CHUNK) yield out.splice(0);
  }
  out.push(APPLIED_PREFIX + shard);
  yield out;
}

/**
 * Deletes this node's copy of a shard it no longer replicates, between two applies of the shard
 * (none runs meanwhile), and only while it neither follows nor leads it: a shard placed back here
 * before this runs keeps its copy. The deletes are announced like applied records, so the VFS
 * cache and the vector index drop what they held; `applied_seq` goes back to 0, so the shard, if it
 * comes back, bootstraps as on a joining node (snapshot when the stream was truncated, then the log).
 */
export function dropShardCopy(replicator: Replicator, checker: ConsistencyChecker, shard: string, held: () => boolean): Promise<{ keys: number } | undefined> {
  const log = replicator.shard(shard);
  return log.atApplied(async () => {
    if (held()) return undefined;
    const backend = replicator.backendStore;
    let keys = 0;
    for await (const chunk of shardKeys(backend, checker, shard)) {
      if (held()) break; // placed back meanwhile: what is left stays, the replay rewrites the rest
      const ops: KvOp[] = chunk.map((key) => ({ type: 'del', key }));
      await backend.write(ops, false);
      await replicator.onApplied(shard, ops);
      keys += ops.length;
    }
    // From scratch if it returns: even a partial drop restarts from 0 (the replay rewrites it all).
    await backend.write([{ type: 'del', key: APPLIED_PREFIX + shard }], false);
    log.applied = log.seen = log.streamLast = 0;
    return { keys };
  });
}
