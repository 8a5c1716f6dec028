/**
 * Where a request is served in cluster mode (docs/scale-out.md, "Write path" 1 and "Reads and the
 * consistency token"). Runs in the pipeline after authentication, before the body is parsed:
 *
 * - a write (any method but GET/HEAD) of a shard this node leads runs here, inside the shard's
 *   write context, and answers `X-Ctx-Consistency-Token: <shard>:<seq>`; otherwise it is forwarded
 *   to the leader's advertised URL with the caller's own headers and answered verbatim (one hop);
 * - a read is served here when this node is a replica of the shard and, given a token, has applied
 *   it within a bounded wait; otherwise it is forwarded to the leader.
 *
 * Node-local routes (system status, the observer, MCP sessions) and unauthenticated ones are never
 * forwarded. A forward carries the caller's identity signed with the cluster secret (peer-auth.ts).
 */
import type { HttpRequestData } from '../http/types.js';
import { CtxError } from '../errors.js';
import type { GateAdmission, ForwardedResponse, RequestGate } from '../http/pipeline.js';
import type { Identity } from '../identity/types.js';
import type { LeaseValue } from './leases.js';
import { SYS_SHARD, writeContext, type Replicator, type WriteTicket } from './replicator.js';
import { unavailable, type ShardLog } from './shard-log.js';
import { PEER_IDENTITY_HEADER, PEER_SIGNATURE_HEADER, type PeerAuth } from './peer-auth.js';
import { requestPhases, type WriteTrace } from './write-trace.js';
import { forwardRequest, type ForwardAnswer } from './forward-client.js';

export const TOKEN_HEADER = 'x-ctx-consistency-token';
export const FORWARDED_HEADER = 'x-ctx-forwarded-by';
// `/mcp` keeps its sessions in the node the client talks to; each tool's route call goes through
// this gate again (in process), so its reads are local and its writes forwarded with the identity.
const NODE_LOCAL = /^\/api\/v1\/(system|observer)(\/|$)|^\/mcp$/;
/** POSTs that only read (their bodies are queries): any caught-up replica serves them, as GETs. */
const READ_POSTS = new Set(['/api/v1/search/find', '/api/v1/search/search', '/api/v1/search/grep', '/api/v1/search/glob']);
const HOP_BY_HOP = new Set([PEER_IDENTITY_HEADER, PEER_SIGNATURE_HEADER, 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'host', 'upgrade', 'te', 'trailer', 'proxy-connection', 'date', 'uwebsockets']);

export interface GateOptions {
  node: string;
  /** How long a read with a token waits for this replica to apply it before forwarding. */
  tokenWaitMs: number;
  /** How long a write waits for a leader to appear (a failover in progress) before answering 503. */
  leaderWaitMs: number;
  connected: () => boolean;
  /** The shard's lease holder as this node knows it (asking NATS when its view is stale). */
  leaderOf: (shard: string) => Promise<LeaseValue | undefined>;
  /** Signs the caller's identity onto forwarded requests; absent = the caller's own headers only. */
  peerAuth?: PeerAuth;
  /** `CTX_CLUSTER_TRACE`: told of every admitted write's phases once its handler is done. */
  trace?: (fields: Record<string, unknown>) => void;
}

export function parseToken(v: string | undefined): { shard: string; seq: number } | undefined {
  const m = v ? /^([0-9]+|sys):([0-9]+)$/.exec(v.trim()) : null;
  return m ? { shard: m[1]!, seq: Number(m[2]) } : undefined;
}

/**
 * The token a request presents for `shard`. The header may list several, comma-separated — a
 * client that wrote to more than one shard (its account's, and the system shard through identity
 * calls) sends the newest of each (the TypeScript client does, clients/typescript/src/transport.ts);
 * the one naming the request's shard counts, the highest if named twice. Malformed entries are ignored,
 * as a malformed single token always was.
 */
export function tokenFor(v: string | undefined, shard: string): { shard: string; seq: number } | undefined {
  if (!v) return undefined;
  let best: { shard: string; seq: number } | undefined;
  for (const part of v.split(',')) {
    const t = parseToken(part);
    if (t && t.shard === shard && (!best || t.seq > best.seq)) best = t;
  }
  return best;
}

class Admission implements GateAdmission {
  readonly ticket: WriteTicket;
  constructor(
    shard: string,
    private readonly log: ShardLog,
    private readonly traced?: { trace: WriteTrace; path: string; forwarded: boolean; emit: (fields: Record<string, unknown>) => void },
  ) {
    this.ticket = { shard, request: true };
    if (traced) {
      traced.trace.admitted = performance.now();
      this.ticket.trace = traced.trace;
    }
  }
  run<T>(fn: () => Promise<T>): Promise<T> {
    // Background records of the shard hold back until this request's batch can carry them.
    const request = this.log.beginRequest();
    this.ticket.arrived = request.arrived;
    let ran: Promise<T>;
    try {
      ran = writeContext.run(this.ticket, fn);
    } catch (err) {
      request.end();
      throw err;
    }
    void ran.then(request.end, request.end);
    const t = this.traced;
    if (!t) return ran;
    const done = () => t.emit({ shard: this.ticket.shard, path: t.path, forwarded: t.forwarded, ...requestPhases(t.trace, performance.now()) });
    return ran.finally(done);
  }
  headers(): Record<string, string> | undefined {
    // Everything the leader has applied when it answers, not only the request's own records: a
    // write that waited for its indexing (`wait`) is read back with its derived records too.
    return this.ticket.seq === undefined ? undefined : { [TOKEN_HEADER]: `${this.ticket.shard}:${Math.max(this.ticket.seq, this.log.applied)}` };
  }
}

export class ClusterGate implements RequestGate {
  constructor(
    private readonly replicator: Replicator,
    private readonly opts: GateOptions,
  ) {}

  /** The identity another node signed onto this request (it forwarded it), checked; 401 when forged or stale. */
  peerIdentity(req: HttpRequestData): Identity | undefined {
    if (!this.opts.peerAuth) {
      if (req.headers[PEER_IDENTITY_HEADER] !== undefined || req.headers[PEER_SIGNATURE_HEADER] !== undefined) throw new CtxError('UNAUTHENTICATED', 'cluster peer identity refused: this node has no cluster secret (set CTX_CLUSTER_SECRET or CTX_ROOT_API_KEY)');
      return undefined;
    }
    return this.opts.peerAuth.verify(req);
  }

  async admit(req: HttpRequestData, identity: Identity | undefined): Promise<GateAdmission | ForwardedResponse | undefined> {
    if (!identity || NODE_LOCAL.test(req.path)) return undefined;
    const shard = req.path.startsWith('/api/v1/admin/') || identity.accountId === undefined ? SYS_SHARD : this.replicator.shardOfAccount(identity.accountId);
    const log = this.replicator.shard(shard);
    const hop = req.headers[FORWARDED_HEADER];
    if (req.method === 'GET' || req.method === 'HEAD' || (req.method === 'POST' && READ_POSTS.has(req.path))) {
      const token = tokenFor(req.headers[TOKEN_HEADER], shard);
      const wanted = token !== undefined;
      if (log.role !== 'unassigned' && (!wanted || (await log.waitApplied(token.seq, this.opts.tokenWaitMs)))) return undefined;
      if (wanted) log.behind(token.seq);
      // A leader still catching up (taking over) may not hold the token's write yet: stale data
      // would be a wrong answer, and there is nobody to forward to.
      if (wanted && log.leading && !log.ready) throw unavailable(`shard ${shard}: this node is taking over and has not applied ${token.shard}:${token.seq} yet; retry`, { shard });
      if (log.leading || hop) return undefined;
      const leader = await this.opts.leaderOf(shard);
      if (!leader) {
        // No leader known (NATS away, a failover): a replica serves what it has, unless the caller
        // asked for a write it has not applied yet — then stale data would be a wrong answer.
        if (log.role !== 'unassigned' && !wanted) return undefined;
        const why = !this.opts.connected() ? ' (the replicated log, NATS, is unreachable from this node)' : '';
        throw unavailable(`no leader is known for shard ${shard}${why}${wanted ? ` and this node has not applied ${token.shard}:${token.seq} yet` : log.role === 'unassigned' ? ' and this node holds no copy of it' : ''}; retry`, { shard });
      }
      return this.forward(req, leader.url, shard, identity);
    }
    if (!this.opts.connected()) throw unavailable('the replicated log (NATS) is unreachable: writes are refused until it is back; reads are served', { shard });
    const trace: WriteTrace | undefined = this.opts.trace ? { gate: performance.now(), batches: [] } : undefined;
    const end = Date.now() + this.opts.leaderWaitMs;
    for (;;) {
      if (log.leading && log.ready) return new Admission(shard, log, trace && { trace, path: req.path, forwarded: hop !== undefined, emit: this.opts.trace! });
      const leader = log.leading ? undefined : await this.opts.leaderOf(shard);
      if (leader && leader.node !== this.opts.node) {
        if (hop) throw unavailable(`shard ${shard} is changing leader; retry`, { shard });
        return this.forward(req, leader.url, shard, identity);
      }
      // Which branch gave up, told apart: a leader still applying the stream before it appends, or no leader known.
      if (Date.now() >= end) throw unavailable(log.leading ? `shard ${shard}: this node leads it and is still applying its stream before it appends; retry` : `no leader for shard ${shard} yet; retry`, { shard });
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private async forward(req: HttpRequestData, url: string, shard: string, identity: Identity): Promise<ForwardedResponse> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k)) headers[k] = v;
    headers[FORWARDED_HEADER] = this.opts.node;
    const pathQuery = `${req.path}${req.query ? `?${req.query}` : ''}`;
    // The identity this node authenticated travels signed: an in-process call (MCP) has no
    // credentials to pass on, and the serving node need not resolve them again.
    if (this.opts.peerAuth) Object.assign(headers, this.opts.peerAuth.sign(identity, req.method, pathQuery, req.body));
    const target = `${url}${pathQuery}`;
    const t0 = this.opts.trace ? performance.now() : 0;
    let res: ForwardAnswer;
    try {
      res = await forwardRequest(target, req.method, headers, req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body, 60_000);
    } catch (err) {
      throw unavailable(`the leader of shard ${shard} (${url}) is unreachable: ${(err as Error).message}; retry`, { shard });
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (!HOP_BY_HOP.has(k)) out[k] = v;
    if (this.opts.trace) this.opts.trace({ forward: true, shard, path: req.path, to: url, answer_ms: Math.round((performance.now() - t0) * 1000) / 1000 });
    return { status: res.status, headers: out, body: res.body };
  }
}
