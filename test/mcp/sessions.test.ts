/** The session table: idle sessions expire, and a user's sessions are bounded. */
import { describe, expect, it } from 'vitest';
import { SessionTable, type McpSession } from '../../plugins/mcp/sessions.js';

function fake(id: string, userId: string, lastSeen: number, closed: string[]): McpSession {
  const identity = { accountId: 'acme', userId, role: 'USER' as const };
  return {
    id,
    owner: `acme\0${userId}\0`,
    account: 'acme',
    identity,
    lastSeen,
    state: { subscriptions: new Map(), pending: new Set() },
    transport: { close: async () => void closed.push(id) } as unknown as McpSession['transport'],
    server: { close: async () => {} } as unknown as McpSession['server'],
  };
}

describe('SessionTable', () => {
  it('closes sessions idle longer than the limit, and only those', async () => {
    const closed: string[] = [];
    const table = new SessionTable({ maxSessions: 10, maxSessionsPerUser: 10, idleMs: 60_000 });
    const now = Date.now();
    table.add(fake('old', 'alice', now - 61_000, closed));
    table.add(fake('fresh', 'alice', now - 1_000, closed));
    expect(await table.sweep(now)).toBe(1);
    expect(closed).toEqual(['old']);
    expect(table.size).toBe(1);
  });

  it('finds a session only for its owner, and marks it used', async () => {
    const table = new SessionTable({ maxSessions: 10, maxSessionsPerUser: 10, idleMs: 60_000 });
    table.add(fake('s1', 'alice', 0, []));
    expect(table.get('s1', { accountId: 'acme', userId: 'bob', role: 'USER' })).toBeUndefined();
    expect(table.get('s1', { accountId: 'other', userId: 'alice', role: 'USER' })).toBeUndefined();
    expect(table.get('s1', { accountId: 'acme', userId: 'alice', role: 'USER', actorPeerId: 'p' })).toBeUndefined();
    const s = table.get('s1', { accountId: 'acme', userId: 'alice', role: 'ADMIN' });
    expect(s?.lastSeen).toBeGreaterThan(0);
    expect(s?.identity.role).toBe('ADMIN');
  });

  it('makes room for a user at their limit by closing their least recently used session; refuses when full', async () => {
    const closed: string[] = [];
    const table = new SessionTable({ maxSessions: 3, maxSessionsPerUser: 2, idleMs: 3_600_000 });
    const now = Date.now();
    table.add(fake('a1', 'alice', now - 10, closed));
    table.add(fake('a2', 'alice', now - 20, closed));
    expect(await table.makeRoom({ accountId: 'acme', userId: 'alice', role: 'USER' })).toBe(true);
    expect(closed).toEqual(['a2']);
    table.add(fake('a3', 'alice', now, closed));
    table.add(fake('b1', 'bob', now, closed));
    expect(await table.makeRoom({ accountId: 'acme', userId: 'carol', role: 'USER' })).toBe(false);
    await table.closeAll();
    expect(table.size).toBe(0);
  });
});
