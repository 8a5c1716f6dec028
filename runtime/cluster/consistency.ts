/**
 * `GET /api/v1/system/consistency` (docs/scale-out.md, "Consistency check"): per shard this node
 * replicates, its `applied_seq` and a digest of the shard's key range at exactly that sequence, and
 * (cluster-wide) the same asked of every other replica and compared.
 *
 * A shard's key range: the identity registry for the system shard; for an account shard, every key
 * of the VFS and of the plugin keyspaces whose account segment (`<keyspace>\0<kind>\0<account>\0…`)
 * is an account placed on the shard. Node-local bookkeeping (queues, tasks, the applied markers,
 * store-wide counters, each node's own default-account bootstrap) is outside every range: replicas
 * may differ there by design.
 *
 * The digest runs inside the shard's apply chain, so no record is applied while it reads (the state
 * is exactly `applied_seq`); it reads in chunks (one await each), so the event loop keeps serving.
 */
import { createHash } from 'node:crypto';
import type { KvBackend } from '../storage/backend.js';
import type { ShardLog } from './shard-log.js';
import { SYS_SHARD, type Replicator } from './replicator.js';
import { DEFAULT_ACCOUNT } from '../identity/auth.js';

const S = '\x00';
const NEXT = '\x01';

export interface ShardDigest {
  /** -1 is the system shard. */
  shard: number;
  role: string;
  applied_seq: number;
  keys: number;
  /** sha256 over every (key, value) of the range in key order, each length-prefixed. */
  digest: string;
}

export interface Mismatch {
  shard: number;
  node: string;
  applied_seq: number;
  digest: string;
  keys: number;
  local: { applied_seq: number; digest: string; keys: number };
}

export interface ConsistencyReport {
  mode: 'single' | 'cluster';
  node?: string;
  shards: ShardDigest[];
  cluster?: {
    clean: boolean;
    /** Shard copies compared (peer × shard) at the same sequence. */
    compared: number;
    mismatches: Mismatch[];
    /** Copies whose sequence never matched this node's within the retries (writes going on). */
    unsettled: { shard: number; node: string; applied_seq: number; local_applied_seq: number }[];
    unreachable: { node: string; error: string }[];
  };
}

/** First key ≥ `from`, or undefined. */
async function firstFrom(backend: KvBackend, from: string): Promise<string | undefined> {
  for await (const [k] of backend.iterate({ gte: from, limit: 1 })) return k;
  return undefined;
}

/** Distinct `<ks>\0<kind>\0` prefixes of the VFS and plugin keyspaces, by skip-scan (a seek each). */
async function keyspaceKinds(backend: KvBackend): Promise<string[]> {
  const out: string[] = [];
  let cursor = '';
  for (;;) {
    const k = await firstFrom(backend, cursor);
    if (k === undefined) return out;
    const [ks, kind] = k.split(S);
    if (kind === undefined) {
      cursor = k + S;
      continue;
    }
    if (ks === 'vfs' || ks!.startsWith('p:')) out.push(`${ks}${S}${kind}${S}`);
    cursor = `${ks}${S}${kind}${NEXT}`;
  }
}

/** Accounts with data: the identity registry's, the default one, and every account segment of `vfs\0m\0`. */
async function accounts(backend: KvBackend): Promise<Set<string>> {
  const out = new Set<string>([DEFAULT_ACCOUNT]);
  for await (const [k] of backend.iterate({ gte: `identity${S}a${S}`, lt: `identity${S}a${NEXT}` })) out.add(k.split(S)[2]!);
  let cursor = `vfs${S}m${S}`;
  for (;;) {
    const k = await firstFrom(backend, cursor);
    if (k === undefined || !k.startsWith(`vfs${S}m${S}`)) return out;
    const acc = k.split(S)[2]!;
    out.add(acc);
    cursor = `vfs${S}m${S}${acc}${NEXT}`;
  }
}

/**
 * Written by every node for itself at its first start (the default account and its marker, with
 * that node's clock), not through the log: they differ between replicas by design (docs/scale-out.md,
 * phase 2's start-up bootstrap), so they are left out of the system shard's digest.
 */
const NODE_BOOTSTRAP = new Set([`identity${S}a${S}${DEFAULT_ACCOUNT}`]);
const isBootstrap = (k: string) => NODE_BOOTSTRAP.has(k) || k.startsWith(`identity${S}init${S}`);

async function digestRanges(backend: KvBackend, ranges: Array<{ gte: string; lt: string }>): Promise<{ keys: number; digest: string }> {
  const h = createHash('sha256');
  let keys = 0;
  const len = Buffer.alloc(4);
  for (const r of ranges.sort((a, b) => (a.gte < b.gte ? -1 : 1))) {
    const chunks = backend.iterateChunks ? backend.iterateChunks(r) : one(backend.iterate(r));
    for await (const chunk of chunks)
      for (const [k, v] of chunk) {
        if (isBootstrap(k)) continue;
        const kb = Buffer.from(k, 'utf8');
        len.writeUInt32BE(kb.length);
        h.update(len).update(kb);
        len.writeUInt32BE(v.length);
        h.update(len).update(v);
        keys++;
      }
  }
  return { keys, digest: h.digest('hex') };
}

async function* one(it: AsyncIterable<[string, Buffer]>): AsyncIterable<Array<[string, Buffer]>> {
  for await (const e of it) yield [e];
}

export class ConsistencyChecker {
  constructor(
    private readonly replicator: Replicator,
    private readonly backend: KvBackend,
  ) {}

  /** The shards this node holds a copy of (the system shard included), as in status. */
  held(): string[] {
    return this.replicator.allShards().filter((s) => s === SYS_SHARD || this.replicator.shard(s).role !== 'unassigned');
  }

  /** The shard's key ranges in this node's store (also what a dropped copy deletes: shard-state.ts). */
  async ranges(shard: string): Promise<Array<{ gte: string; lt: string }>> {
    if (shard === SYS_SHARD) return [{ gte: `identity${S}`, lt: `identity${NEXT}` }];
    const accs = [...(await accounts(this.backend))].filter((a) => this.replicator.shardOfAccount(a) === shard);
    if (!accs.length) return [];
    const kinds = await keyspaceKinds(this.backend);
    return kinds.flatMap((p) => accs.map((a) => ({ gte: `${p}${a}${S}`, lt: `${p}${a}${NEXT}` })));
  }

  /** The shard's digest at its applied sequence, after waiting (bounded) for `atLeast` to be applied. */
  async digest(shard: string, atLeast = 0, waitMs = 2000): Promise<ShardDigest> {
    const log: ShardLog = this.replicator.shard(shard);
    if (atLeast > log.applied) await log.waitApplied(atLeast, waitMs);
    return log.atApplied(async (seq) => {
      const d = await digestRanges(this.backend, await this.ranges(shard));
      return { shard: shard === SYS_SHARD ? -1 : Number(shard), role: log.role, applied_seq: seq, ...d };
    });
  }
}

export interface PeerRef {
  id: string;
  url: string;
}

/** `at` as the route takes it: `<shard>:<seq>` pairs, comma-separated (`sys` is the system shard). */
export function parseAt(at: string): Map<string, number> | undefined {
  const out = new Map<string, number>();
  for (const part of at.split(',')) {
    const m = /^([0-9]{1,4}|sys):([0-9]{1,15})$/.exec(part.trim());
    if (!m) return undefined;
    out.set(m[1]!, Number(m[2]));
  }
  return out;
}

const label = (d: ShardDigest) => (d.shard === -1 ? SYS_SHARD : String(d.shard));

/**
 * Cluster-wide: every other replica of each of `local`'s shards is asked for its digest at this
 * node's sequence; copies at the same sequence are compared. A copy at another sequence (writes
 * still arriving) is asked again at the larger of the two, both sides recomputed, a few times.
 */
export async function compareWithPeers(
  checker: ConsistencyChecker,
  local: ShardDigest[],
  replicasOf: (shard: string) => PeerRef[],
  ask: (peer: PeerRef, at: Map<string, number>) => Promise<ShardDigest[]>,
  rounds = 4,
): Promise<NonNullable<ConsistencyReport['cluster']>> {
  const out: NonNullable<ConsistencyReport['cluster']> = { clean: true, compared: 0, mismatches: [], unsettled: [], unreachable: [] };
  const mine = new Map(local.map((d) => [label(d), d]));
  // peer id → shard → the sequence to ask it at
  let todo = new Map<string, { peer: PeerRef; at: Map<string, number> }>();
  for (const d of local)
    for (const p of replicasOf(label(d))) {
      const t = todo.get(p.id) ?? { peer: p, at: new Map() };
      t.at.set(label(d), d.applied_seq);
      todo.set(p.id, t);
    }
  for (let round = 0; round < rounds && todo.size; round++) {
    const next = new Map<string, { peer: PeerRef; at: Map<string, number> }>();
    const last = round === rounds - 1;
    await Promise.all(
      [...todo.values()].map(async ({ peer, at }) => {
        let theirs: ShardDigest[];
        try {
          theirs = await ask(peer, at);
        } catch (err) {
          out.unreachable.push({ node: peer.id, error: (err as Error).message });
          return;
        }
        for (const d of theirs) {
          const shard = label(d);
          let own = mine.get(shard)!;
          if (d.applied_seq > own.applied_seq) mine.set(shard, (own = await checker.digest(shard, d.applied_seq)));
          if (d.applied_seq === own.applied_seq) {
            out.compared++;
            if (d.digest !== own.digest) out.mismatches.push({ shard: d.shard, node: peer.id, applied_seq: d.applied_seq, digest: d.digest, keys: d.keys, local: { applied_seq: own.applied_seq, digest: own.digest, keys: own.keys } });
          } else if (last) out.unsettled.push({ shard: d.shard, node: peer.id, applied_seq: d.applied_seq, local_applied_seq: own.applied_seq });
          else {
            const t = next.get(peer.id) ?? { peer, at: new Map() };
            t.at.set(shard, Math.max(d.applied_seq, own.applied_seq));
            next.set(peer.id, t);
          }
        }
      }),
    );
    todo = next;
  }
  out.clean = out.mismatches.length === 0 && out.unsettled.length === 0 && out.unreachable.length === 0;
  return out;
}
