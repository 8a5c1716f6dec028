/** The `cluster` section of `GET /api/v1/system/status` (docs/scale-out.md, phase 1: membership and placement). */
import { s, resultObject } from 'ctx/plugin';

const node = resultObject({ id: s.string(), url: s.string(), started_at: s.string() });

export const clusterStatusSchema = resultObject({
  mode: s.enum(['single', 'cluster']).describe('`single` without CTX_CLUSTER_NATS; the other fields appear in cluster mode'),
  node: node.optional().describe('this node'),
  nats: resultObject({ connected: s.bool(), server: s.string().optional() }).optional(),
  shard_count: s.int().optional(),
  replicas: s.int().optional().describe('ctx replicas per shard'),
  peers: s.array(resultObject({ id: s.string(), url: s.string(), started_at: s.string(), last_seen_ms: s.int() })).optional().describe('live nodes, this one included, by id'),
  shards: s
    .array(resultObject({ shard: s.int(), replicas: s.array(s.string()), role: s.enum(['replica', 'unassigned']) }))
    .optional()
    .describe("every shard's replica set by rendezvous hashing over the live nodes, and this node's role in it (no leadership yet)"),
});
