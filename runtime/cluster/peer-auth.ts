/**
 * The caller's identity carried between nodes (docs/scale-out.md, "Forwarding carries identity"):
 * a forwarded request (and a peer query such as `system/consistency?cluster=1`) bears the identity
 * the first node authenticated, signed with the cluster secret, so the node serving it needs no
 * credentials from the caller — in-process route calls (`host.invoke`, MCP tools) have none.
 *
 * Signature: HMAC-SHA256 over version, timestamp, signing node, method, path with query, the
 * body's sha256 and the identity; the receiver refuses (401) a wrong signature, a timestamp more
 * than `MAX_SKEW_MS` away from its clock, and a signature it has already accepted (replay).
 * The secret is `CTX_CLUSTER_SECRET`, else derived from the root key every node shares.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { CtxError } from '../errors.js';
import type { HttpRequestData } from '../http/types.js';
import { ID_PATTERN, type Identity } from '../identity/types.js';

export const PEER_IDENTITY_HEADER = 'x-ctx-peer-identity';
export const PEER_SIGNATURE_HEADER = 'x-ctx-peer-signature';
export const MAX_SKEW_MS = 30_000;
const ROLES = new Set(['ROOT', 'ADMIN', 'USER']);

/** The shared secret, or undefined when there is none to derive (no root key, no CTX_CLUSTER_SECRET). */
export function clusterSecret(secret: string | undefined, rootApiKey: string | undefined): Buffer | undefined {
  if (secret) return Buffer.from(secret, 'utf8');
  if (rootApiKey) return createHmac('sha256', rootApiKey).update('ctx-cluster-peer-identity-v1').digest();
  return undefined;
}

const unauthenticated = (why: string) => new CtxError('UNAUTHENTICATED', `cluster peer identity refused: ${why}`);

/** Appended lines past which the replay file is rewritten with the live entries only. */
const COMPACT_AFTER = 10_000;

export class PeerAuth {
  /** Signatures accepted within the skew window, by expiry: a replay inside it is refused. */
  private readonly seen = new Map<string, number>();
  /** `persist`: the file the accepted signatures are appended to, and its line count. */
  private file?: { path: string; fd: number; lines: number };

  constructor(
    private readonly secret: Buffer,
    private readonly node: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Keeps the replay window across a restart: the signatures accepted here are appended to `path`
   * (one `<mac> <expiry>` line each, one unbuffered write, no fsync: a process crash keeps it, and
   * after a machine crash the window is 30 s of downtime anyway), and those still in their window
   * are loaded now. Without it a restarted node would accept, within 30 s, a signature it had
   * already accepted before the restart.
   */
  persist(path: string): void {
    const now = this.now();
    try {
      for (const line of fs.readFileSync(path, 'utf8').split('\n')) {
        const [mac, exp] = line.split(' ');
        if (mac && /^[0-9a-f]{64}$/.test(mac) && Number(exp) >= now) this.seen.set(mac, Number(exp));
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    this.rewrite(path);
  }

  private rewrite(path: string): void {
    if (this.file) fs.closeSync(this.file.fd);
    const tmp = `${path}.tmp`;
    fs.writeFileSync(tmp, [...this.seen].map(([m, e]) => `${m} ${e}\n`).join(''));
    fs.renameSync(tmp, path);
    this.file = { path, fd: fs.openSync(path, 'a'), lines: this.seen.size };
  }

  close(): void {
    if (this.file) fs.closeSync(this.file.fd);
    this.file = undefined;
  }

  private mac(ts: string, node: string, method: string, target: string, body: Uint8Array, id: string): string {
    const bodySha = createHash('sha256').update(body).digest('hex');
    return createHmac('sha256', this.secret).update(`v1\n${ts}\n${node}\n${method}\n${target}\n${bodySha}\n${id}`).digest('hex');
  }

  /** Headers that carry `identity` with this request (`target` = path plus `?query` when there is one). */
  sign(identity: Identity, method: string, target: string, body: Uint8Array = new Uint8Array()): Record<string, string> {
    const fields: Identity = { accountId: identity.accountId, userId: identity.userId, role: identity.role };
    if (identity.actorPeerId !== undefined) fields.actorPeerId = identity.actorPeerId;
    if (identity.legacyAgentId !== undefined) fields.legacyAgentId = identity.legacyAgentId;
    const id = Buffer.from(JSON.stringify(fields)).toString('base64url');
    const ts = String(this.now());
    return { [PEER_IDENTITY_HEADER]: id, [PEER_SIGNATURE_HEADER]: `v1.${this.node}.${ts}.${this.mac(ts, this.node, method, target, body, id)}` };
  }

  /** The identity a peer signed for this request; undefined when it carries none; 401 when it is refused. */
  verify(req: HttpRequestData): Identity | undefined {
    const id = req.headers[PEER_IDENTITY_HEADER];
    const sig = req.headers[PEER_SIGNATURE_HEADER];
    if (id === undefined && sig === undefined) return undefined;
    if (!id || !sig) throw unauthenticated(`${PEER_IDENTITY_HEADER} and ${PEER_SIGNATURE_HEADER} go together`);
    const m = /^v1\.([A-Za-z0-9_-]{1,64})\.([0-9]{1,15})\.([0-9a-f]{64})$/.exec(sig);
    if (!m) throw unauthenticated('malformed signature');
    const [, node, ts, mac] = m as unknown as [string, string, string, string];
    const target = req.query ? `${req.path}?${req.query}` : req.path;
    const want = Buffer.from(this.mac(ts, node, req.method, target, req.body, id), 'hex');
    if (!timingSafeEqual(want, Buffer.from(mac, 'hex'))) throw unauthenticated('bad signature');
    const now = this.now();
    if (Math.abs(now - Number(ts)) > MAX_SKEW_MS) throw unauthenticated(`signed ${Math.round((now - Number(ts)) / 1000)} s away from this node's clock (at most ${MAX_SKEW_MS / 1000} s)`);
    // Insertion order is about expiry order: prune from the front, stop at the first live one.
    for (const [k, exp] of this.seen) {
      if (exp >= now) break;
      this.seen.delete(k);
    }
    if (this.seen.has(mac)) throw unauthenticated('replayed signature');
    this.seen.set(mac, Number(ts) + MAX_SKEW_MS);
    if (this.file) {
      fs.writeSync(this.file.fd, `${mac} ${Number(ts) + MAX_SKEW_MS}\n`);
      if (++this.file.lines > COMPACT_AFTER + this.seen.size) this.rewrite(this.file.path);
    }
    let identity: Identity;
    try {
      identity = JSON.parse(Buffer.from(id, 'base64url').toString('utf8')) as Identity;
    } catch {
      throw unauthenticated('unreadable identity');
    }
    const ok = (v: unknown) => v === undefined || (typeof v === 'string' && ID_PATTERN.test(v));
    if (!identity || typeof identity !== 'object' || !ROLES.has(identity.role) || typeof identity.accountId !== 'string' || !ok(identity.accountId) || typeof identity.userId !== 'string' || !ok(identity.userId) || !ok(identity.actorPeerId) || !ok(identity.legacyAgentId))
      throw unauthenticated('malformed identity');
    const out: Identity = { accountId: identity.accountId, userId: identity.userId, role: identity.role };
    if (identity.actorPeerId !== undefined) out.actorPeerId = identity.actorPeerId;
    if (identity.legacyAgentId !== undefined) out.legacyAgentId = identity.legacyAgentId;
    return out;
  }
}
