/**
 * A shard's local copy as RocksDB keys (docs/scale-out.md, "Membership changes" and "Snapshots"):
 * what a node deletes when the shard moved away from it for good, and what it wipes before it
 * installs a snapshot. The range is the consistency digest's (every key of the VFS and plugin
 * keyspaces of the accounts placed on the shard) plus the shard's queue messages (their sequence
 * is partitioned by shard, background.ts), its task records and its applied marker.
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

/** Queue entries (`queues\0m|d\0<queue>\0<seq>`) whose sequence is in the shard's partition. */
async function* queueEntries(backend: KvBackend, shard: string): AsyncIterable<[string, Buffer]> {
  const lo = seqBaseOf(shard);
  for await (const e of backend.iterate({ gte: `queues${S}`, lt: `queues${NEXT}` })) {
    const seq = Number(e[0].split(S)[3]);
    if (seq > lo && seq <= lo + SEQ_SPAN) yield e;
  }
}

/**
 * Task entries of the shard: its records (`tasks\0t\0<id>`, the shard in the record, else its
 * owner's account's), their inputs (`tasks\0in\0<id>`) and owner index keys (`tasks\0o\0…\0<id>`).
 */
async function* taskEntries(backend: KvBackend, replicator: Replicator, shard: string): AsyncIterable<[string, Buffer]> {
  const ids = new Set<string>();
  for await (const e of backend.iterate({ gte: `tasks${S}t${S}`, lt: `tasks${S}t${NEXT}` })) {
    let t: { task_id?: string; shard?: string; owner?: { account_id?: string } };
    try {
      t = JSON.parse(e[1].toString('utf8')) as typeof t;
    } catch {
      continue;
    }
    if ((t.shard ?? replicator.shardOfAccount(t.owner?.account_id ?? '')) !== shard) continue;
    ids.add(e[0].slice(`tasks${S}t${S}`.length));
    yield e;
  }
  if (!ids.size) return;
  for await (const e of backend.iterate({ gte: `tasks${S}in${S}`, lt: `tasks${S}in${NEXT}` })) if (ids.has(e[0].slice(`tasks${S}in${S}`.length))) yield e;
  for await (const e of backend.iterate({ gte: `tasks${S}o${S}`, lt: `tasks${S}o${NEXT}` })) if (ids.has(e[0].slice(e[0].lastIndexOf(S) + 1))) yield e;
}

/**
 * Every local entry of an account shard's copy (not its applied marker), in chunks: what a
 * snapshot holds and what a dropped copy deletes.
 */
export async function* shardEntries(replicator: Replicator, checker: ConsistencyChecker, shard: string): AsyncIterable<Array<[string, Buffer]>> {
  if (shard === SYS_SHARD) throw new Error('the system shard is held by every node; it has no copy to drop or stream');
  const backend = replicator.backendStore;
  let out: Array<[string, Buffer]> = [];
  const sources: AsyncIterable<[string, Buffer]>[] = (await checker.ranges(shard)).map((r) => backend.iterate(r));
  sources.push(queueEntries(backend, shard), taskEntries(backend, replicator, shard));
  for (const src of sources)
    for await (const e of src) {
      out.push(e);
      if (out.length >= CHUNK) yield out.splice(0);
    }
  if (out.length) yield out;
}

/** Deletes the shard's local copy (applied marker included) and announces it; returns the keys deleted. */
export async function wipeShardCopy(replicator: Replicator, checker: ConsistencyChecker, shard: string, stop: () => boolean = () => false): Promise<number> {
  const backend = replicator.backendStore;
  let keys = 0;
  for await (const chunk of shardEntries(replicator, checker, shard)) {
    if (stop()) break;
    const ops: KvOp[] = chunk.map(([key]) => ({ type: 'del', key }));
    await backend.write(ops, false);
    // Announced like applied records: the VFS cache and the vector index drop what they held.
    await replicator.onApplied(shard, ops);
    keys += ops.length;
  }
  // From scratch next time: even a partial wipe restarts from 0 (a replay or a snapshot rewrites it all).
  await backend.write([{ type: 'del', key: APPLIED_PREFIX + shard }], false);
  return keys;
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
    const keys = await wipeShardCopy(replicator, checker, shard, held);
    log.applied = log.seen = log.streamLast = 0;
    return { keys };
  });
}
