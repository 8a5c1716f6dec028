/** The `cluster` section of `GET /api/v1/system/status` (docs/scale-out.md, phase 1: membership and placement). */
import { s, resultObject, statusTable as table, type ComponentStatus } from 'ctx/plugin';

const node = resultObject({ id: s.string(), url: s.string(), started_at: s.string() });

const shardRow = resultObject({
  shard: s.int(),
  replicas: s.array(s.string()),
  role: s.enum(['leader', 'follower', 'unassigned']).describe('`leader` holds the lease and appends; `follower` applies the stream; `unassigned` holds no copy'),
  leader: s.string().optional().describe('the lease holder this node knows of'),
  applied_seq: s.int().describe('last stream sequence applied to this node'),
  stream_seq: s.int().describe("the stream's last sequence as this node knows it"),
  lag: s.int().describe('stream_seq - applied_seq'),
});

export const clusterStatusSchema = resultObject({
  mode: s.enum(['single', 'cluster']).describe('`single` without CTX_CLUSTER_NATS; the other fields appear in cluster mode'),
  node: node.optional().describe('this node'),
  nats: resultObject({ connected: s.bool(), server: s.string().optional() }).optional(),
  shard_count: s.int().optional(),
  replicas: s.int().optional().describe('ctx replicas per shard'),
  peers: s.array(resultObject({ id: s.string(), url: s.string(), started_at: s.string(), last_seen_ms: s.int() })).optional().describe('live nodes, this one included, by id'),
  shards: s
    .array(shardRow)
    .optional()
    .describe("every shard's replica set by rendezvous hashing over the live nodes, this node's role in it, the lease holder, and applied vs stream sequence"),
  system_shard: shardRow.optional().describe('the system shard (identities), held by every node; `shard` is -1'),
});

interface ClusterView {
  mode: string;
  node?: { id: string };
  nats?: { connected: boolean; server?: string };
  peers?: { id: string; url: string; last_seen_ms: number }[];
  shards?: { shard: number; replicas: string[]; role: string }[];
}

/** The `cluster` observer component (registered in cluster mode only): peers and this node's shards. */
export function clusterComponent(c: ClusterView): ComponentStatus {
  const mine = (c.shards ?? []).filter((s) => s.role !== 'unassigned');
  const leading = mine.filter((s) => s.role === 'leader').length;
  const rows = (c.peers ?? []).map((p) => [p.id, p.url, p.id === c.node?.id ? 'self' : `${p.last_seen_ms} ms`, (c.shards ?? []).filter((s) => s.replicas.includes(p.id)).length]);
  const connected = c.nats?.connected ?? false;
  return {
    name: 'cluster',
    is_healthy: connected,
    has_errors: !connected,
    status:
      table(['node', 'url', 'last_heartbeat', 'shards'], rows) +
      `\nthis node: ${c.node?.id ?? '-'}, replica of ${mine.length} shards, leader of ${leading}; NATS ${connected ? `connected (${c.nats?.server ?? '-'})` : 'disconnected'}`,
  };
}
