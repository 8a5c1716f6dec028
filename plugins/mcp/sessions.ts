/**
 * MCP sessions (Mcp-Session-Id), each bound to the identity that opened it: a request carrying the
 * id under another identity is answered as if the session did not exist. Bounded in number (per
 * user and in all) and closed after an idle period, so abandoned clients cannot pile up state.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { HttpSessionTransport } from './transport.js';
import type { Identity } from 'ctx/plugin';
import type { SessionState } from './server.js';

export interface McpSession {
  id: string;
  owner: string;
  account: string;
  transport: HttpSessionTransport;
  server: Server;
  state: SessionState;
  /** The latest identity that used it (same owner; role may have changed): subscriptions are checked as it. */
  identity: Identity;
  lastSeen: number;
}

export interface SessionLimits {
  maxSessions: number;
  maxSessionsPerUser: number;
  idleMs: number;
}

/** Who a session belongs to: account, user and peer view, so no other caller can use it. */
export function ownerOf(identity: Identity): string {
  return `${identity.accountId}\0${identity.userId}\0${identity.actorPeerId ?? ''}`;
}

export class SessionTable {
  private readonly byId = new Map<string, McpSession>();

  constructor(private readonly limits: SessionLimits) {}

  get size(): number {
    return this.byId.size;
  }

  /** The session `id` if `identity` owns it; marks it used. */
  get(id: string, identity: Identity): McpSession | undefined {
    const s = this.byId.get(id);
    if (!s || s.owner !== ownerOf(identity)) return undefined;
    s.lastSeen = Date.now();
    s.identity = identity;
    return s;
  }

  add(s: McpSession): void {
    this.byId.set(s.id, s);
  }

  remove(id: string): McpSession | undefined {
    const s = this.byId.get(id);
    this.byId.delete(id);
    return s;
  }

  all(): IterableIterator<McpSession> {
    return this.byId.values();
  }

  /**
   * Room for one more session of `identity`: idle sessions are closed first, then the user's
   * least recently used one when they are at their own limit. False when the server is full.
   */
  async makeRoom(identity: Identity): Promise<boolean> {
    await this.sweep();
    const owner = ownerOf(identity);
    const own = [...this.byId.values()].filter((s) => s.owner === owner).sort((a, b) => a.lastSeen - b.lastSeen);
    for (let i = 0; i <= own.length - this.limits.maxSessionsPerUser; i++) await this.close(own[i]!.id);
    return this.byId.size < this.limits.maxSessions;
  }

  /** Closes sessions idle longer than the limit; returns how many. */
  async sweep(now = Date.now()): Promise<number> {
    const idle = [...this.byId.values()].filter((s) => now - s.lastSeen > this.limits.idleMs);
    for (const s of idle) await this.close(s.id);
    return idle.length;
  }

  async close(id: string): Promise<void> {
    const s = this.remove(id);
    if (!s) return;
    // Closing the transport ends its open streams; the server then lets go of it.
    await s.transport.close().catch(() => {});
    await s.server.close().catch(() => {});
  }

  async closeAll(): Promise<void> {
    for (const id of [...this.byId.keys()]) await this.close(id);
  }
}
