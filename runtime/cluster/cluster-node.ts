/**
 * Cluster mode, phase 1 (docs/scale-out.md): the NATS connection, membership and the placement
 * computed from it. Started by `createApp` only when `CTX_CLUSTER_NATS` is set; nothing here is
 * loaded in single-node mode.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { CtxConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { MEMBERS_BUCKET, Membership, type Peer } from './membership.js';
import { stableNodeId } from './node-id.js';
import { place, type Placement } from './placement.js';

export interface ShardStatus {
  shard: number;
  replicas: string[];
  /** Phase 1 has no leadership yet: this node either holds a replica of the shard or not. */
  role: 'replica' | 'unassigned';
}

export interface ClusterStatus {
  mode: 'single' | 'cluster';
  node?: { id: string; url: string; started_at: string };
  nats?: { connected: boolean; server?: string };
  shard_count?: number;
  replicas?: number;
  peers?: Peer[];
  shards?: ShardStatus[];
}

/** What the system plugin shows; `single` needs no cluster code. */
export interface ClusterStatusSource {
  status(): ClusterStatus;
}

export const SINGLE_NODE: ClusterStatusSource = { status: () => ({ mode: 'single' }) };

export class ClusterNode implements ClusterStatusSource {
  private placement: Placement = [];
  private placedFor = '';
  private connected = true;

  private constructor(
    private readonly config: CtxConfig,
    private readonly nc: NatsConnection,
    private readonly membership: Membership,
    readonly self: { id: string; url: string; started_at: string },
    private readonly log: Logger,
  ) {
    membership.onChange = (ids) => log.info('cluster membership changed', { nodes: ids });
    // The client reconnects by itself; this only records the state for status and the logs.
    void (async () => {
      for await (const st of nc.status()) {
        if (st.type === 'disconnect') {
          this.connected = false;
          log.warn('NATS connection lost; reconnecting', { server: st.server });
        } else if (st.type === 'reconnect') {
          this.connected = true;
          log.info('NATS connection restored', { server: st.server });
        }
      }
    })().catch(() => {});
  }

  static async start(config: CtxConfig, dataDir: string, log: Logger): Promise<ClusterNode> {
    const k = config.cluster;
    const id = k.nodeId ?? stableNodeId(dataDir);
    const url = k.advertiseUrl ?? `http://${config.host}:${config.port}`;
    const self = { id, url, started_at: new Date().toISOString() };
    const deadline = Date.now() + k.connectTimeoutMs;
    const nc = await connectBounded(k.nats, deadline, k.connectTimeoutMs, log);
    try {
      const kv = await openMembersBucket(nc, k, deadline);
      const membership = new Membership(kv, self, k.heartbeatMs, log);
      const node = new ClusterNode(config, nc, membership, self, log);
      await membership.start();
      log.info('cluster mode', { node: id, url, nats: k.nats, shards: k.shards, replicas: k.replicas });
      return node;
    } catch (err) {
      await nc.close().catch(() => {});
      throw err;
    }
  }

  status(): ClusterStatus {
    const k = this.config.cluster;
    const peers = this.membership.peers();
    // From the same live set as `peers` (expiry is time-based, so a timer-driven copy could lag it).
    const ids = peers.map((p) => p.id);
    if (ids.join() !== this.placedFor) {
      this.placement = place(k.shards, ids, k.replicas);
      this.placedFor = ids.join();
    }
    return {
      mode: 'cluster',
      node: this.self,
      nats: { connected: this.connected && !this.nc.isClosed(), server: this.nc.getServer() },
      shard_count: k.shards,
      replicas: k.replicas,
      peers,
      shards: this.placement.map((replicas, shard) => ({ shard, replicas, role: replicas.includes(this.self.id) ? 'replica' : 'unassigned' })),
    };
  }

  async close(): Promise<void> {
    await this.membership.stop();
    await this.nc.drain().catch(() => this.nc.close());
  }
}

/** Retries until the deadline: nats-servers started with the node may still be coming up. */
async function connectBounded(servers: string[], deadline: number, timeoutMs: number, log: Logger): Promise<NatsConnection> {
  const { connect } = await import('@nats-io/transport-node');
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      return await connect({ servers, name: 'ctx', maxReconnectAttempts: -1, timeout: Math.max(500, Math.min(2000, deadline - Date.now())) });
    } catch (err) {
      last = err;
      log.debug('NATS not reachable yet', { error: err });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`cluster mode: cannot reach NATS at ${servers.join(', ')} (CTX_CLUSTER_NATS) within ${timeoutMs / 1000} s: ${(last as Error | undefined)?.message ?? 'timed out'}; start nats-server or unset CTX_CLUSTER_NATS for a single node`);
}

/** JetStream needs a meta leader before a bucket can be created: also retried until the deadline. */
async function openMembersBucket(nc: NatsConnection, k: CtxConfig['cluster'], deadline: number) {
  const { Kvm } = await import('@nats-io/kv');
  const kvm = new Kvm(nc);
  let last: unknown;
  do {
    try {
      // R3 needs three servers; a single test server gets R1 (one URL, one server).
      return await kvm.create(MEMBERS_BUCKET, { replicas: Math.min(3, k.nats.length), history: 1, ttl: k.heartbeatMs * 3 });
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  } while (Date.now() < deadline);
  throw new Error(`cluster mode: NATS at ${k.nats.join(', ')} is reachable but its JetStream KV bucket ${MEMBERS_BUCKET} cannot be opened: ${(last as Error | undefined)?.message}`);
}
