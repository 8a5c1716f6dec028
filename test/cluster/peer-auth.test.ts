/** The identity signed between nodes (runtime/cluster/peer-auth.ts), and the consistency route on a single node. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSecret, MAX_SKEW_MS, PeerAuth, PEER_IDENTITY_HEADER, PEER_SIGNATURE_HEADER } from '../../runtime/cluster/peer-auth.js';
import type { HttpRequestData } from '../../runtime/http/types.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const secret = clusterSecret(undefined, 'root-key-for-tests-0123456789abcdef')!;
const identity = { accountId: 'acme', userId: 'bob', role: 'USER' as const };
const req = (headers: Record<string, string>, over: Partial<HttpRequestData> = {}): HttpRequestData => ({ method: 'POST', path: '/api/v1/content/write', query: '', headers, body: Buffer.from('{"a":1}'), remoteAddress: '127.0.0.1', ...over });

describe('peer identity signatures', () => {
  it('a signed identity verifies once, on the same request only', () => {
    const a = new PeerAuth(secret, 'ctx-1');
    const b = new PeerAuth(secret, 'ctx-2');
    const h = a.sign({ ...identity, actorPeerId: 'p1' }, 'POST', '/api/v1/content/write', Buffer.from('{"a":1}'));
    expect(b.verify(req(h))).toEqual({ ...identity, actorPeerId: 'p1' });
    expect(() => b.verify(req(h))).toThrow(/replayed/);
    const h2 = a.sign(identity, 'POST', '/api/v1/content/write', Buffer.from('{"a":1}'));
    expect(() => b.verify(req(h2, { body: Buffer.from('{"a":2}') }))).toThrow(/bad signature/);
    expect(() => b.verify(req(h2, { path: '/api/v1/fs/mkdir' }))).toThrow(/bad signature/);
    expect(() => b.verify(req(h2, { method: 'DELETE' }))).toThrow(/bad signature/);
    expect(() => b.verify(req(h2, { query: 'x=1' }))).toThrow(/bad signature/);
  });

  it('the replay window survives a restart when persisted: a new instance on the same file refuses what the old one accepted', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-peer-replay-'));
    try {
      const file = path.join(dir, 'cluster-peer-signatures');
      const a = new PeerAuth(secret, 'ctx-1');
      const before = new PeerAuth(secret, 'ctx-2');
      before.persist(file);
      const h = a.sign(identity, 'POST', '/api/v1/content/write', Buffer.from('{"a":1}'));
      expect(before.verify(req(h))).toEqual(identity);
      before.close();
      const after = new PeerAuth(secret, 'ctx-2');
      after.persist(file);
      expect(() => after.verify(req(h))).toThrow(/replayed/);
      // A fresh signature still passes; expired entries are not carried into the next start.
      expect(after.verify(req(a.sign(identity, 'POST', '/api/v1/content/write', Buffer.from('{"a":1}'))))).toEqual(identity);
      after.close();
      const later = new PeerAuth(secret, 'ctx-2', () => Date.now() + MAX_SKEW_MS + 1000);
      later.persist(file);
      later.close();
      expect(fs.readFileSync(file, 'utf8')).toBe('');
      // Not persisted (the default): the window is this process's only.
      const volatile = new PeerAuth(secret, 'ctx-2');
      expect(volatile.verify(req(h))).toEqual(identity);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a forged identity, another secret, a stale or malformed signature are refused with 401', () => {
    const a = new PeerAuth(secret, 'ctx-1');
    const h = a.sign(identity, 'POST', '/api/v1/content/write', Buffer.from('{"a":1}'));
    const root = Buffer.from(JSON.stringify({ ...identity, role: 'ROOT' })).toString('base64url');
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as { code: string; status: number; message: string };
      }
      throw new Error('not refused');
    };
    expect(err(() => a.verify(req({ ...h, [PEER_IDENTITY_HEADER]: root }))).code).toBe('UNAUTHENTICATED');
    const other = new PeerAuth(clusterSecret('another-cluster-secret-value', undefined)!, 'ctx-9');
    expect(err(() => a.verify(req(other.sign(identity, 'POST', '/api/v1/content/write', Buffer.from('{"a":1}'))))).message).toMatch(/bad signature/);
    const old = new PeerAuth(secret, 'ctx-1', () => Date.now() - MAX_SKEW_MS - 5000);
    expect(err(() => a.verify(req(old.sign(identity, 'POST', '/api/v1/content/write', Buffer.from('{"a":1}'))))).message).toMatch(/away from this node's clock/);
    expect(err(() => a.verify(req({ [PEER_SIGNATURE_HEADER]: h[PEER_SIGNATURE_HEADER]! }))).message).toMatch(/go together/);
    expect(err(() => a.verify(req({ ...h, [PEER_SIGNATURE_HEADER]: 'v1.ctx-1.x.y' }))).message).toMatch(/malformed/);
    expect(a.verify(req({}))).toBeUndefined();
  });

  it('the secret: CTX_CLUSTER_SECRET wins, else derived from the root key, else none', () => {
    expect(clusterSecret('s'.repeat(16), 'r'.repeat(16))!.toString()).toBe('s'.repeat(16));
    expect(clusterSecret(undefined, 'r'.repeat(16))).toHaveLength(32);
    expect(clusterSecret(undefined, 'r'.repeat(16))!.equals(Buffer.from('r'.repeat(16)))).toBe(false);
    expect(clusterSecret(undefined, undefined)).toBeUndefined();
  });
});

describe('GET /api/v1/system/consistency on a single node', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers mode single with no shards; admins only; bad queries get the envelope', async () => {
    const ok = await t.req({ method: 'GET', url: '/api/v1/system/consistency', headers: t.root });
    expect(ok.status).toBe(200);
    expect(ok.json().result).toEqual({ mode: 'single', shards: [] });
    const { users } = await t.account('acme', ['bob']);
    const user = await t.req({ method: 'GET', url: '/api/v1/system/consistency', headers: users.bob! });
    expect(user.status).toBe(403);
    expect(user.json().error.code).toBe('PERMISSION_DENIED');
    expect((await t.req({ method: 'GET', url: '/api/v1/system/consistency' })).status).toBe(401);
    const bad = await t.req({ method: 'GET', url: '/api/v1/system/consistency?shard=abc', headers: t.root });
    expect(bad.status).toBe(400);
    expect(bad.json().error.code).toBe('INVALID_ARGUMENT');
    expect((await t.req({ method: 'GET', url: '/api/v1/system/consistency?at=1:x', headers: t.root })).status).toBe(400);
  });

  it('a peer identity header is ignored on a single node (no gate): credentials still decide', async () => {
    const forged = new PeerAuth(secret, 'ctx-1').sign({ accountId: 'default', userId: 'default', role: 'ROOT' }, 'GET', '/api/v1/system/consistency');
    expect((await t.req({ method: 'GET', url: '/api/v1/system/consistency', headers: forged })).status).toBe(401);
  });
});
