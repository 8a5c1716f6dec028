/**
 * A real local cluster (3 nats-servers as one JetStream cluster, 3 ctx nodes), started by the same
 * launcher users run (`npm run cluster`). Skips only when nats-server is not installed (no Go:
 * scripts/install-nats.sh says so during setup).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { localClusterForFile } from './one-at-a-time.js';
import { alive, down, natsServerInstalled, NATS_BIN, type ClusterFile } from '../../runtime/cluster/launcher.js';
import { place } from '../../runtime/cluster/placement.js';
import { tempDir } from '../helpers/app.js';
import { pollUntil } from '../helpers/poll.js';

const HEARTBEAT_MS = 500;
const TTL_MS = HEARTBEAT_MS * 3;

interface ClusterSection {
  mode: string;
  node: { id: string; url: string };
  peers: { id: string; url: string }[];
  shards: { shard: number; replicas: string[]; role: string }[];
  shard_count: number;
  replicas: number;
}

if (!natsServerInstalled()) console.warn(`test/cluster skipped: ${NATS_BIN} is not installed (Go is missing; run bash scripts/install-nats.sh)`);

describe.skipIf(!natsServerInstalled())('a local cluster over real processes', () => {
  const dir = tempDir('ctx-cluster-');
  let file: ClusterFile;

  const status = async (url: string): Promise<ClusterSection> => {
    const res = await fetch(`${url}/api/v1/system/status`, { headers: { 'x-api-key': file.root_api_key } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { result: { cluster: ClusterSection } }).result.cluster;
  };
  const peerIds = (c: ClusterSection) => c.peers.map((p) => p.id);

  localClusterForFile(dir, HEARTBEAT_MS, (f) => (file = f));

  it('writes cluster.json with 3 nats-servers, the nodes and the root key', () => {
    const onDisk = JSON.parse(fs.readFileSync(`${dir}/cluster.json`, 'utf8')) as ClusterFile;
    expect(onDisk).toEqual(file);
    expect(file.nats).toHaveLength(3);
    expect(file.nodes.map((n) => n.id)).toEqual(['ctx-1', 'ctx-2', 'ctx-3']);
    for (const p of [...file.nats, ...file.nodes]) expect(alive(p.pid)).toBe(true);
    expect(file.root_api_key.length).toBeGreaterThanOrEqual(16);
  });

  it('every node lists the 3 peers and computes the same placement', async () => {
    const ids = ['ctx-1', 'ctx-2', 'ctx-3'];
    const seen = await pollUntil(async () => {
      const all = await Promise.all(file.nodes.map((n) => status(n.url)));
      return all.every((c) => peerIds(c).join() === ids.join()) && all;
    }, { what: 'every node to see 3 peers', timeoutMs: 15_000, intervalMs: 100 });
    const expected = place(64, ids, 2);
    for (const [i, c] of seen.entries()) {
      expect(c.mode).toBe('cluster');
      expect(c.node.id).toBe(file.nodes[i]!.id);
      expect(c.node.url).toBe(file.nodes[i]!.url);
      expect(c.peers.find((p) => p.id === c.node.id)!.url).toBe(c.node.url);
      expect(c.shard_count).toBe(64);
      expect(c.replicas).toBe(2);
      expect(c.shards.map((s) => s.replicas)).toEqual(expected);
      // A replica leads or follows; a node outside the set holds no copy unless it took the lease.
      for (const s of c.shards) if (s.replicas.includes(c.node.id)) expect(['leader', 'follower']).toContain(s.role);
    }
    const res = await fetch(`${file.nodes[1]!.url}/api/v1/observer/system`, { headers: { 'x-api-key': file.root_api_key } });
    const component = ((await res.json()) as { result: { components: Record<string, { is_healthy: boolean; status: string }> } }).result.components.cluster!;
    expect(component.is_healthy).toBe(true);
    for (const id of ids) expect(component.status).toContain(id);
    expect(component.status).toContain('this node: ctx-2');
  });

  it('kill -9 of a node: the others drop it within the TTL and only its shards move', async () => {
    const before = (await status(file.nodes[0]!.url)).shards.map((s) => s.replicas);
    const victim = file.nodes[2]!;
    process.kill(victim.pid, 'SIGKILL');
    // The bound is the TTL plus slack for a shared machine's timers, not a latency target.
    const after = await pollUntil(async () => {
      const all = await Promise.all(file.nodes.slice(0, 2).map((n) => status(n.url)));
      return all.every((c) => !peerIds(c).includes(victim.id)) && all;
    }, { what: `${victim.id} to leave the peers`, timeoutMs: TTL_MS + 5_000, intervalMs: 100 });
    for (const c of after) {
      expect(peerIds(c)).toEqual(['ctx-1', 'ctx-2']);
      const now = c.shards.map((s) => s.replicas);
      for (let s = 0; s < 64; s++) {
        if (!before[s]!.includes(victim.id)) expect(now[s]).toEqual(before[s]);
        else expect(now[s]!.slice().sort()).toEqual(['ctx-1', 'ctx-2']);
      }
    }
  });

  it('down stops every process, removes cluster.json and is idempotent', async () => {
    const pids = [...file.nats, ...file.nodes].map((p) => p.pid);
    const { stopped } = await down({ dir });
    expect(stopped).toBe(5); // the killed node was already gone
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(fs.existsSync(`${dir}/cluster.json`)).toBe(false);
    expect(await down({ dir })).toEqual({ stopped: 0 });
  }, 60_000);
});
