/** A shard's row in `GET /api/v1/system/status` (`cluster.shards`), as the cluster tests read it. */
export interface Shard {
  shard: number;
  replicas: string[];
  role: string;
  leader?: string;
  applied_seq: number;
  stream_seq: number;
  lag: number;
}
