/**
 * Shard placement by rendezvous (highest-random-weight) hashing: a pure function of the shard
 * count, the replica count and the live node ids, so every node computes the same map with no
 * coordination, and a node joining or leaving moves only the shards whose top-R set it enters or
 * leaves (docs/scale-out.md, "Membership and placement").
 */
import { createHash } from 'node:crypto';

/** Shard s → its replica node ids, best score first (the first is the preferred leader). */
export type Placement = string[][];

/** 52 bits of sha256(shard, node): a float-safe integer, so ties are practically impossible. */
export function score(shard: number, node: string): number {
  const h = createHash('sha256').update(`${shard}\0${node}`).digest();
  return h.readUIntBE(0, 6) * 16 + (h[6]! >> 4);
}

export function replicasOf(shard: number, nodes: readonly string[], replicas: number): string[] {
  return nodes
    .map((id) => ({ id, s: score(shard, id) }))
    .sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, replicas)
    .map((x) => x.id);
}

export function place(shards: number, nodes: readonly string[], replicas: number): Placement {
  const unique = [...new Set(nodes)];
  const out: Placement = [];
  for (let s = 0; s < shards; s++) out.push(replicasOf(s, unique, replicas));
  return out;
}

/** The shard an account belongs to: stable across nodes and restarts (never depends on the membership). */
export function shardOf(account: string, shards: number): number {
  return createHash('sha256').update(account).digest().readUInt32BE(0) % shards;
}
