import { describe, expect, it } from 'vitest';
import { place, replicasOf, shardOf } from '../../runtime/cluster/placement.js';

const nodes = (n: number) => Array.from({ length: n }, (_, i) => `node-${i}`);
const moved = (a: string[][], b: string[][]) => a.reduce((n, set, s) => n + set.filter((id) => !b[s]!.includes(id)).length, 0);

describe('rendezvous placement', () => {
  it('is deterministic and independent of the order nodes are listed in', () => {
    const a = place(64, ['c', 'a', 'b'], 2);
    expect(place(64, ['a', 'b', 'c'], 2)).toEqual(a);
    expect(place(64, ['b', 'c', 'a', 'a'], 2)).toEqual(a);
    for (const set of a) {
      expect(set).toHaveLength(2);
      expect(new Set(set).size).toBe(2);
    }
  });

  it('balances shard replicas across nodes', () => {
    for (const n of [3, 5, 10]) {
      const counts = new Map<string, number>();
      for (const set of place(1024, nodes(n), 2)) for (const id of set) counts.set(id, (counts.get(id) ?? 0) + 1);
      const ideal = (1024 * 2) / n;
      for (const id of nodes(n)) {
        expect(counts.get(id)!).toBeGreaterThan(ideal * 0.8);
        expect(counts.get(id)!).toBeLessThan(ideal * 1.2);
      }
    }
  });

  it('moves only the leaving node’s replicas when a node leaves', () => {
    const before = place(256, nodes(5), 2);
    const after = place(256, nodes(5).filter((id) => id !== 'node-3'), 2);
    for (let s = 0; s < 256; s++) {
      if (!before[s]!.includes('node-3')) expect(after[s]).toEqual(before[s]);
      else expect(after[s]!.filter((id) => before[s]!.includes(id))).toEqual(before[s]!.filter((id) => id !== 'node-3'));
    }
  });

  it('moves about R/N of the replicas when a node joins, all of them to the new node', () => {
    const before = place(1024, nodes(4), 2);
    const after = place(1024, nodes(5), 2);
    const gained = after.reduce((n, set) => n + (set.includes('node-4') ? 1 : 0), 0);
    expect(moved(after, before)).toBe(gained);
    expect(gained / (1024 * 2)).toBeGreaterThan(0.15);
    expect(gained / (1024 * 2)).toBeLessThan(0.25);
  });

  it('gives every live node when there are fewer nodes than replicas, and nothing with none', () => {
    expect(replicasOf(7, ['x'], 2)).toEqual(['x']);
    expect(place(4, [], 2)).toEqual([[], [], [], []]);
  });

  it('maps an account to the same shard every time, spread over the shards', () => {
    expect(shardOf('acme', 64)).toBe(shardOf('acme', 64));
    const used = new Set(Array.from({ length: 2000 }, (_, i) => shardOf(`account-${i}`, 64)));
    expect(used.size).toBe(64);
  });
});
