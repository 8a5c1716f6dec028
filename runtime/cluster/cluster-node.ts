/**
 * Cluster mode (docs/scale-out.md): the NATS connection, membership, the placement computed from
 * it, shard leases, the replicated write path (`Kv.batch` → shard stream → quorum → apply) and the
 * request gate that forwards what another node must serve. Started by `createApp` only when `CTX_CLUSTER_NATS` is set; nothing here is
 * loaded in single-node mode.
 */
import path from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import type { CtxConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { MEMBERS_BUCKET, Membership, type Peer } from './membership.js';
import { stableNodeId } from './node-id.js';
import { place, replicasOf, type Placement } from './placement.js';
import type { Kv } from '../storage/kv.js';
import type { KvOp } from '../storage/backend.js';
import { LEASES_BUCKET, Leases } from './leases.js';
import { Replicator, SYS_SHARD } from './replicator.js';
import { ClusterGate } from './request-gate.js';
import { clusterSecret, PeerAuth } from './peer-auth.js';
import { compareWithPeers, ConsistencyChecker, parseAt, type ConsistencyReport, type ShardDigest } from './consistency.js';
import type { Identity } from '../identity/types.js';
import { CtxError } from '../errors.js';
import { createBackgroundGate, type BackgroundGate } from './background.js';
import { writeContext } from './replicator.js';
import { SystemWrites } from './system-writes.js';
import { Snapshots } from './snapshots.js';
import { dropShardCopy } from './shard-state.js';

export interface ShardStatus {
  shard: number;
  replicas: string[];
  /** `leader` holds the shard's lease; `follower` applies its stream; `unassigned` holds no copy. */
  role: 'leader' | 'follower' | 'unassigned';
  /** The lease holder this node knows of, if any. */
  leader?: string;
  applied_seq: number;
  stream_seq: number;
  lag: number;
}

export interface ClusterStatus {
  mode: 'single' | 'cluster';
  node?: { id: string; url: string; started_at: string };
  nats?: { connected: boolean; server?: string };
  shard_count?: number;
  replicas?: number;
  peers?: Peer[];
  shards?: ShardStatus[];
  /** The system shard (identities; every node is its replica), `shard` -1. */
  system_shard?: ShardStatus;
}

/** What plugins see of the cluster (`host.cluster`); `single` needs no cluster code. */
export interface ClusterStatusSource {
  status(): ClusterStatus;
  /**
   * Cluster mode only: records another leader wrote, as applied here (full keys, sublevel prefix
   * included). For in-memory state derived from a keyspace (an index) that must follow them; the
   * record counts as applied (reads waiting on its token go on) once the returned promise settles.
   */
  onApplied?(listener: (ops: KvOp[]) => void | Promise<void>): void;
  /** Cluster mode only: this node now leads `shard`, with the shard's whole stream applied. */
  onLeading?(listener: (shard: string) => void): void;
  /** Cluster mode only: `GET /api/v1/system/consistency` (runtime/cluster/consistency.ts). */
  consistency?(identity: Identity, q: ConsistencyQuery): Promise<ConsistencyReport>;
  /**
   * Cluster mode only: background work of an account (timers such as watches and idle
   * auto-commits) runs where `leads(shardOf(account))`, inside `run(shard, …)`.
   */
  readonly background?: BackgroundGate;
}

export interface ConsistencyQuery {
  /** Ask every other replica of the same shards and compare. */
  cluster?: boolean;
  /** One shard (a number, or `sys`). */
  shard?: string;
  /** `<shard>:<seq>,…`: digests of these shards once each sequence is applied (what peers are asked). */
  at?: string;
}

export const SINGLE_NODE: ClusterStatusSource = { status: () => ({ mode: 'single' }) };

export class ClusterNode implements ClusterStatusSource {
  private placement: Placement = [];
  private sysReplicas: string[] = [];
  private placedFor = '';
  private connected = true;
  /** Connected to NATS now: the client's last status said so, and it has not been closed. */
  private get natsUp(): boolean {
    return this.connected && !this.nc.isClosed();
  }
  private leases!: Leases;
  private placer?: NodeJS.Timeout;
  /** Leases are taken only once the membership has had a TTL to show the peers (no start-up grab). */
  private readonly leaseFrom: number;
  readonly gate: ClusterGate;
  readonly peerAuth?: PeerAuth;
  private readonly checker: ConsistencyChecker;
  private readonly appliedListeners: Array<(ops: KvOp[]) => void | Promise<void>> = [];
  /** Where background work runs (the shard's leader) and in which write context. */
  readonly background: ReturnType<typeof createBackgroundGate>;
  private readonly leadingListeners: Array<(shard: string) => void> = [];
  private systemWrites!: SystemWrites;
  private snapshots!: Snapshots;
  /** Since when each followed shard has been placed elsewhere (local clock): dropped after two TTLs. */
  private readonly placedAway = new Map<string, number>();
  /** When this node first saw each live peer (local clock): a returning node settles before leading. */
  private readonly liveSince = new Map<string, number>();
  private closed = false;

  private constructor(
    private readonly config: CtxConfig,
    private readonly nc: NatsConnection,
    private readonly membership: Membership,
    readonly replicator: Replicator,
    readonly self: { id: string; url: string; started_at: string },
    private readonly log: Logger,
  ) {
    membership.onChange = (ids) => {
      log.info('cluster membership changed', { nodes: ids });
      this.replace();
    };
    replicator.onApplied = async (_shard, ops) => {
      for (const l of this.appliedListeners) {
        try {
          await l(ops);
        } catch (err) {
          log.error('a cluster apply listener threw; the record is applied', { error: err });
        }
      }
    };
    this.leaseFrom = Date.now() + membership.ttlMs;
    const secret = clusterSecret(config.cluster.secret, config.rootApiKey);
    if (secret) this.peerAuth = new PeerAuth(secret, self.id);
    else log.warn('no cluster secret (CTX_CLUSTER_SECRET, or a root key to derive it from): requests are forwarded with the caller\'s own headers only, so in-process calls (MCP tools) on a node that does not lead their shard are refused');
    this.checker = new ConsistencyChecker(replicator, replicator.backendStore);
    this.background = createBackgroundGate({
      shard: (id) => replicator.shard(id),
      shardOfAccount: (a) => replicator.shardOfAccount(a),
      sysShard: SYS_SHARD,
      run: (shard, fn) => writeContext.run({ shard }, fn),
      current: () => writeContext.getStore()?.shard,
    });
    this.gate = new ClusterGate(replicator, {
      peerAuth: this.peerAuth,
      // Without NATS the bucket cannot answer, and asking would hold the request for the whole
      // request timeout (5 s) before the same 503: only the leader already known is used.
      leaderOf: async (s) => (this.natsUp ? this.leases?.lookup(s) : this.leases?.leaderOf(s)),
      node: self.id,
      tokenWaitMs: 2000,
      leaderWaitMs: membership.ttlMs + 2000,
      connected: () => this.natsUp,
      trace: config.cluster.trace ? (fields) => log.info('cluster write trace', fields) : undefined,
    });
    // The client reconnects by itself; this records the state for status, the gate and the logs.
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

  static async start(config: CtxConfig, dataDir: string, log: Logger, kv: Kv): Promise<ClusterNode> {
    const k = config.cluster;
    const id = k.nodeId ?? stableNodeId(dataDir);
    const url = k.advertiseUrl ?? `http://${config.host}:${config.port}`;
    const self = { id, url, started_at: new Date().toISOString() };
    const deadline = Date.now() + k.connectTimeoutMs;
    const nc = await connectBounded(k.nats, deadline, k.connectTimeoutMs, log);
    try {
      const replicas = Math.min(3, k.nats.length);
      const members = await openBucket(nc, k, deadline, MEMBERS_BUCKET, k.heartbeatMs * 3, log);
      const leaseKv = await openBucket(nc, k, deadline, LEASES_BUCKET, k.heartbeatMs * 3, log);
      const { jetstream, jetstreamManager } = await import('@nats-io/jetstream');
      const js = jetstream(nc);
      const jsm = await jetstreamManager(nc);
      const membership = new Membership(members, self, k.heartbeatMs, log);
      let node: ClusterNode | undefined;
      const replicator = new Replicator(nc, js, jsm, kv.backend, id, k.shards, replicas, () => node?.natsUp ?? true, log.child({ component: 'replication' }), k.trace ? (fields) => log.info('cluster record trace', fields) : undefined);
      await replicator.load();
      node = new ClusterNode(config, nc, membership, replicator, self, log);
      // The replay window of signed peer identities outlives a restart (peer-auth.ts).
      node.peerAuth?.persist(path.join(dataDir, 'cluster-peer-signatures'));
      const systemWrites = new SystemWrites(nc, replicator, id, membership.ttlMs + 5000, log.child({ component: 'system-writes' }));
      node.systemWrites = systemWrites;
      replicator.remoteSystem = (ops) => systemWrites.submit(ops);
      const snapshots = new Snapshots(nc, js, jsm, replicator, id, k.snapshotRecords, replicas, log.child({ component: 'snapshots' }), node.checker, path.join(dataDir, 'cluster-snapshots'));
      replicator.beforeConsume = (shard) => snapshots.bootstrap(shard);
      node.snapshots = snapshots;
      node.leases = new Leases(leaseKv, { node: id, url }, k.heartbeatMs * 3, () => node.candidates(), {
        gained: (shard) => {
          const s = replicator.shard(shard);
          replicator.follow(shard);
          void s.takeOver().then(() => {
            if (!s.ready) return;
            log.info('leading shard', { shard, applied_seq: s.applied });
            if (shard === SYS_SHARD) systemWrites.serve();
            try {
              node.background.leading(shard);
            } catch (err) {
              log.error('background work could not start on a gained shard', { shard, error: err });
            }
            for (const l of node.leadingListeners) void Promise.resolve().then(() => l(shard)).catch((err: unknown) => log.error('a leadership listener failed', { shard, error: err }));
          });
        },
        lost: (shard) => {
          replicator.shard(shard).stepDown();
          if (shard === SYS_SHARD) systemWrites.stop();
          node.background.losing(shard);
        },
      }, log);
      // Both open a KV watch (a JetStream consumer): while JetStream re-elects after a nats-server
      // died, such a call can time out once; a node (re)starting then must retry, not exit.
      await retryWhileJetStreamSettles('membership watch', () => membership.start(), log);
      node.replace();
      // Placement follows the live set, which changes by time (expiry) as well as by events.
      node.placer = setInterval(() => {
        node.replace();
        node.handBack();
        node.dropMoved();
        for (const shard of node.leases.heldShards()) node.snapshots.maybeTake(shard);
      }, Math.max(100, k.heartbeatMs));
      node.placer.unref();
      kv.setReplicator(replicator);
      await retryWhileJetStreamSettles('lease watch', () => node.leases.start(), log);
      log.info('cluster mode', { node: id, url, nats: k.nats, shards: k.shards, replicas: k.replicas });
      return node;
    } catch (err) {
      await nc.close().catch(() => {});
      throw err;
    }
  }

  /**
   * Runs a start-up identity write (the `default` account's bootstrap) once this node has applied
   * the system shard, so it sees what other nodes already did; retried until a system leader takes
   * it or the node closes.
   */
  ensureSystem(what: string, fn: () => Promise<void>): void {
    void (async () => {
      for (let attempt = 1; !this.closed; attempt++) {
        try {
          if (!(await this.systemWrites.caughtUp(10_000))) throw new Error('the system shard is not applied here yet');
          await fn();
          return;
        } catch (err) {
          if (attempt % 10 === 1) this.log.warn('start-up identity write waits for the system shard', { what, attempt, error: err });
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    })();
  }

  onApplied(listener: (ops: KvOp[]) => void | Promise<void>): void {
    this.appliedListeners.push(listener);
  }

  onLeading(listener: (shard: string) => void): void {
    this.leadingListeners.push(listener);
  }

  /** Recomputes the placement when the live set changed, and follows every shard placed here. */
  private replace(): void {
    const k = this.config.cluster;
    const ids = this.membership.liveIds();
    if (ids.join() === this.placedFor) return;
    this.placement = place(k.shards, ids, k.replicas);
    // Every node holds the system shard (identities): its order only picks the preferred leader.
    this.sysReplicas = replicasOf(k.shards, ids, ids.length);
    this.placedFor = ids.join();
    this.replicator.follow(SYS_SHARD);
    for (const [shard, set] of this.placement.entries()) if (set.includes(this.self.id)) this.replicator.follow(String(shard));
  }

  /**
   * Leadership goes back to a shard's preferred replica (first in rendezvous order) once that node
   * has been live for two membership TTLs (it takes leases one TTL after its start): a node that
   * joins or returns leads its share again. The lease is deleted, not left to expire.
   */
  private handBack(): void {
    const now = Date.now();
    const ids = this.membership.liveIds();
    for (const id of ids) if (!this.liveSince.has(id)) this.liveSince.set(id, now);
    for (const id of [...this.liveSince.keys()]) if (!ids.includes(id)) this.liveSince.delete(id);
    for (const shard of this.leases.heldShards()) {
      const preferred = shard === SYS_SHARD ? this.sysReplicas[0] : this.placement[Number(shard)]?.[0];
      if (!preferred || preferred === this.self.id) continue;
      if (now - (this.liveSince.get(preferred) ?? now) < 2 * this.membership.ttlMs) continue;
      void this.leases.release(shard, `handed back to its preferred replica ${preferred}`);
    }
  }

  /**
   * Unfollows the shards placed elsewhere once they have been for two membership TTLs (a peer
   * flapping in and out does not make this node drop and replay a shard each time) and this node
   * does not lead them (a leader keeps its copy until it hands the lease back).
   */
  private dropMoved(): void {
    const now = Date.now();
    for (const shard of this.replicator.following()) {
      if (shard === SYS_SHARD || this.placement[Number(shard)]?.includes(this.self.id)) {
        this.placedAway.delete(shard);
        continue;
      }
      const since = this.placedAway.get(shard);
      if (since === undefined) this.placedAway.set(shard, now);
      else if (now - since >= 2 * this.membership.ttlMs && this.replicator.unfollow(shard)) {
        this.placedAway.delete(shard);
        this.log.info('shard placed elsewhere: no longer applied here; its reads are forwarded', { shard, applied_seq: this.replicator.shard(shard).applied });
        // Its disk is freed too (shard-state.ts): nothing serves from the copy any more.
        const log = this.replicator.shard(shard);
        void dropShardCopy(this.replicator, this.checker, shard, () => log.leading || this.replicator.following().includes(shard)).then(
          (r) => r && this.log.info('dropped shard copy deleted', { shard, keys: r.keys }),
          (err: unknown) => this.log.warn('a dropped shard copy could not be deleted; it stays on disk', { shard, error: err }),
        );
      }
    }
  }

  /** Shards whose first live replica is this node: the leases it should take when they are free. */
  private candidates(): string[] {
    if (Date.now() < this.leaseFrom) return [];
    this.replace();
    const out: string[] = [];
    for (const [shard, set] of this.placement.entries()) if (set[0] === this.self.id) out.push(String(shard));
    if (this.sysReplicas[0] === this.self.id) out.push(SYS_SHARD);
    return out;
  }

  async consistency(identity: Identity, q: ConsistencyQuery): Promise<ConsistencyReport> {
    let shards = this.checker.held();
    const at = q.at === undefined ? undefined : parseAt(q.at);
    if (q.at !== undefined && !at) throw new CtxError('INVALID_ARGUMENT', 'at must be <shard>:<seq> pairs separated by commas (shard a number or sys)', { field: 'at' });
    if (q.shard !== undefined) {
      if (!this.replicator.shards.has(q.shard)) throw new CtxError('INVALID_ARGUMENT', `shard must be 0..${this.config.cluster.shards - 1} or sys; got ${q.shard}`, { field: 'shard' });
      shards = [q.shard];
    }
    if (at) {
      for (const s of at.keys()) if (!this.replicator.shards.has(s)) throw new CtxError('INVALID_ARGUMENT', `no shard ${s}`, { field: 'at' });
      shards = [...at.keys()];
    }
    const local: ShardDigest[] = [];
    for (const s of shards) local.push(await this.checker.digest(s, at?.get(s) ?? 0));
    const report: ConsistencyReport = { mode: 'cluster', node: this.self.id, shards: local };
    if (!q.cluster) return report;
    const peers = new Map(this.membership.peers().map((p) => [p.id, p]));
    this.replace();
    const replicasOf = (shard: string) => {
      const set = shard === SYS_SHARD ? this.sysReplicas : (this.placement[Number(shard)] ?? []);
      return set.filter((id) => id !== this.self.id && peers.has(id)).map((id) => ({ id, url: peers.get(id)!.url }));
    };
    const ask = async (peer: { id: string; url: string }, at: Map<string, number>) => {
      const path = '/api/v1/system/consistency';
      const query = `at=${encodeURIComponent([...at].map(([s, n]) => `${s}:${n}`).join(','))}`;
      const headers: Record<string, string> = this.peerAuth ? this.peerAuth.sign(identity, 'GET', `${path}?${query}`) : {};
      const res = await fetch(`${peer.url}${path}?${query}`, { headers, signal: AbortSignal.timeout(30_000) });
      const body = (await res.json()) as { result?: ConsistencyReport; error?: { code: string; message: string } };
      if (!res.ok || !body.result) throw new Error(`${res.status} ${body.error?.code ?? ''} ${body.error?.message ?? ''}`.trim());
      return body.result.shards;
    };
    report.cluster = await compareWithPeers(this.checker, local, replicasOf, ask);
    return report;
  }

  status(): ClusterStatus {
    const k = this.config.cluster;
    const peers = this.membership.peers();
    this.replace();
    const row = (shard: string, replicas: string[]): ShardStatus => {
      const s = this.replicator.shard(shard);
      const stream = Math.max(s.streamLast, s.applied);
      return { shard: shard === SYS_SHARD ? -1 : Number(shard), replicas, role: s.role, leader: this.leases.leaderOf(shard)?.node, applied_seq: s.applied, stream_seq: stream, lag: stream - s.applied };
    };
    return {
      mode: 'cluster',
      node: this.self,
      nats: { connected: this.natsUp, server: this.nc.getServer() },
      shard_count: k.shards,
      replicas: k.replicas,
      peers,
      shards: this.placement.map((replicas, shard) => row(String(shard), replicas)),
      system_shard: row(SYS_SHARD, this.sysReplicas),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.systemWrites.stop();
    clearInterval(this.placer);
    await this.leases.stop().catch(() => {});
    this.replicator.close();
    this.peerAuth?.close();
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
      // noAsyncTraces: the client otherwise builds an Error (a captured stack) for every request
      // and every request timer up front, in case it fails — every append, pull and KV call
      // (seen in the shard leader's profile; its CPU per write moved within noise).
      return await connect({ servers, name: 'ctx', maxReconnectAttempts: -1, noAsyncTraces: true, timeout: Math.max(500, Math.min(2000, deadline - Date.now())) });
    } catch (err) {
      last = err;
      log.debug('NATS not reachable yet', { error: err });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`cluster mode: cannot reach NATS at ${servers.join(', ')} (CTX_CLUSTER_NATS) within ${timeoutMs / 1000} s: ${(last as Error | undefined)?.message ?? 'timed out'}; start nats-server or unset CTX_CLUSTER_NATS for a single node`);
}

/** JetStream needs a meta leader before a bucket can be created: retried until the deadline. */
/** How long a start-up JetStream call is retried on a timeout (a re-election takes seconds). */
const JETSTREAM_SETTLE_MS = 60_000;

/**
 * A JetStream API call that failed only because JetStream is (re-)electing its meta leader: it
 * times out, or answers 10008 "JetStream system temporarily unavailable" (what a nats-server whose
 * cluster peers are not up yet answers after its first timeouts).
 */
function jetStreamSettling(err: unknown): boolean {
  const e = err as { name?: string; message?: string; code?: string | number };
  return e?.name === 'TimeoutError' || e?.code === 'TIMEOUT' || e?.code === 10008 || /timeout|temporarily unavailable/i.test(e?.message ?? '');
}

async function retryWhileJetStreamSettles<T>(what: string, fn: () => Promise<T>, log: Logger): Promise<T> {
  const end = Date.now() + JETSTREAM_SETTLE_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!jetStreamSettling(err) || Date.now() >= end) throw err;
      log.warn('cluster start-up: a JetStream call timed out; retrying', { what, attempt, error: err });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function openBucket(nc: NatsConnection, k: CtxConfig['cluster'], deadline: number, name: string, ttl: number, log?: Logger) {
  const { Kvm } = await import('@nats-io/kv');
  const kvm = new Kvm(nc);
  // Connected, JetStream fails this way only while it elects (a nats-server of the cluster was
  // lost, restarts or is not up yet): that is waited out as long as other start-up JetStream calls
  // are (`retryWhileJetStreamSettles`), not only the connect deadline. A node restarted right after a
  // nats-server was killed refused to start within those 10 s under CI load (stop 36).
  const settled = Math.max(deadline, Date.now() + JETSTREAM_SETTLE_MS);
  let last: unknown;
  for (let attempt = 1; ; attempt++) {
    try {
      // R3 needs three servers; a single test server gets R1 (one URL, one server).
      return await kvm.create(name, { replicas: Math.min(3, k.nats.length), history: 1, ttl });
    } catch (err) {
      last = err;
      const settling = jetStreamSettling(err);
      if (Date.now() >= (settling ? settled : deadline)) break;
      if (settling && Date.now() >= deadline) log?.warn('cluster start-up: JetStream is not ready to open a KV bucket; retrying while it settles', { bucket: name, attempt, error: err });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`cluster mode: NATS at ${k.nats.join(', ')} is reachable but its JetStream KV bucket ${name} cannot be opened: ${(last as Error | undefined)?.message}`);
}
