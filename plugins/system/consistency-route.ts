/**
 * `GET /api/v1/system/consistency` (ROOT or ADMIN; not in the spec: docs/scale-out.md, "Consistency
 * check"): per shard this node replicates, the applied sequence and a digest of the shard's keys at
 * it; `cluster=true` compares every other replica's copy at the same sequence. A single node has no
 * shards and answers `mode: single`.
 */
import { s, resultObject, type PluginHost } from 'ctx/plugin';

const digestRow = resultObject({
  shard: s.int().describe('-1 is the system shard (identities)'),
  role: s.string().describe('this node\'s role for the shard: leader, follower (or unassigned when asked for a shard it holds no copy of)'),
  applied_seq: s.int().describe('the stream sequence the digest is taken at'),
  keys: s.int().describe('keys in the shard\'s range'),
  digest: s.string().describe('sha256 over every key and value of the range, in key order'),
});

const copy = { shard: s.int(), node: s.string(), applied_seq: s.int() };

export const consistencySchema = resultObject({
  mode: s.enum(['single', 'cluster']),
  node: s.string().optional(),
  shards: s.array(digestRow),
  cluster: resultObject({
    clean: s.bool().describe('every other replica\'s copy was compared at the same sequence and matched'),
    compared: s.int().describe('copies compared (peer × shard)'),
    mismatches: s.array(resultObject({ ...copy, digest: s.string(), keys: s.int(), local: resultObject({ applied_seq: s.int(), digest: s.string(), keys: s.int() }) })),
    unsettled: s.array(resultObject({ ...copy, local_applied_seq: s.int() })).describe('copies whose sequence never met this node\'s (writes still arriving)'),
    unreachable: s.array(resultObject({ node: s.string(), error: s.string() })),
  })
    .optional()
    .describe('with cluster=true'),
});

export function registerConsistencyRoute(host: PluginHost): void {
  host.route({
    method: 'GET',
    path: '/api/v1/system/consistency',
    summary: "per shard this node replicates, its applied sequence and a digest of the shard's keys; cluster=true compares every replica (ROOT or ADMIN; cluster mode)",
    response: consistencySchema,
    errors: ['INVALID_ARGUMENT'],
    roles: ['ROOT', 'ADMIN'],
    query: s.object({
      cluster: s.bool().default(false).describe('also ask every other replica of the same shards and compare'),
      shard: s.string({ pattern: /^([0-9]{1,4}|sys)$/, patternHint: 'a shard number or sys' }).optional().describe('one shard (its number, or sys)'),
      at: s.string({ max: 65536, pattern: /^([0-9]{1,4}|sys):[0-9]{1,15}(,([0-9]{1,4}|sys):[0-9]{1,15})*$/, patternHint: '<shard>:<seq> pairs separated by commas' }).optional().describe('`<shard>:<seq>,…`: digests of these shards once each sequence is applied here (how peers are asked)'),
    }),
    async handler(ctx) {
      const c = host.cluster;
      if (!c.consistency) return { mode: 'single', shards: [] };
      return c.consistency(ctx.identity, ctx.query);
    },
  });
}
