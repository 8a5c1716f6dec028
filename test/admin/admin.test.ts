import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_KEY, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const post = (url: string, headers: Record<string, string>, body?: unknown) => t.req({ method: 'POST', url, headers, body });

describe('accounts (ROOT)', () => {
  it('creates an account with an ADMIN key that is shown once and stored hashed', async () => {
    const res = await post('/api/v1/admin/accounts', t.root, { account_id: 'acct1', admin_user_id: 'boss' });
    expect(res.status).toBe(201);
    const r = res.json().result;
    expect(r).toMatchObject({ account_id: 'acct1', admin_user_id: 'boss' });
    expect(r.user_key).toMatch(/^ctx_[A-Za-z0-9_-]{43}$/);
    // The key itself is nowhere in storage; only its hash is.
    let found = false;
    for await (const [, v] of t.app.kv.iterate()) if (v.includes(Buffer.from(r.user_key))) found = true;
    expect(found).toBe(false);
    const me = await t.req({ url: '/api/v1/system/status', headers: { 'x-api-key': r.user_key } });
    expect(me.json().result.user).toBe('boss');
  });

  it('lists accounts and rejects duplicates, bad ids and unknown fields', async () => {
    const list = (await t.req({ url: '/api/v1/admin/accounts', headers: t.root })).json().result;
    expect(list.map((a: any) => a.account_id)).toContain('acct1');
    expect((await post('/api/v1/admin/accounts', t.root, { account_id: 'acct1', admin_user_id: 'x' })).status).toBe(409);
    const bad = await post('/api/v1/admin/accounts', t.root, { account_id: '../etc', admin_user_id: 'x' });
    expect(bad.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'account_id' } });
    const reserved = await post('/api/v1/admin/accounts', t.root, { account_id: 'ok1', admin_user_id: 'memories' });
    expect(reserved.json().error.details.field).toBe('admin_user_id');
    const unknown = await post('/api/v1/admin/accounts', t.root, { account_id: 'ok2', admin_user_id: 'x', plan: 'gold' });
    expect(unknown.json().error.details.field).toBe('plan');
    const wrongType = await post('/api/v1/admin/accounts', t.root, { account_id: 7, admin_user_id: 'x' });
    expect(wrongType.json().error.details.field).toBe('account_id');
  });

  it('only ROOT manages accounts', async () => {
    const { admin, users } = await t.account('acct2', ['u1']);
    expect((await post('/api/v1/admin/accounts', admin, { account_id: 'x9', admin_user_id: 'y' })).status).toBe(403);
    expect((await t.req({ url: '/api/v1/admin/accounts', headers: users.u1! })).status).toBe(403);
    expect((await t.req({ method: 'DELETE', url: '/api/v1/admin/accounts/acct2', headers: admin })).status).toBe(403);
  });

  it('deleting an account revokes its keys and deletes its data', async () => {
    const { admin } = await t.account('gone', []);
    await t.app.vfs.writeFile('gone', 'resources/a.md', Buffer.from('x'));
    await t.app.vfs.writeFile('acct1', 'resources/a.md', Buffer.from('keep'));
    const res = await t.req({ method: 'DELETE', url: '/api/v1/admin/accounts/gone', headers: t.root });
    expect(res.json().result).toMatchObject({ account_id: 'gone', deleted: true, deleted_users: 1 });
    expect((await t.req({ url: '/api/v1/system/status', headers: admin })).status).toBe(401);
    expect(await t.app.vfs.stat('gone', 'resources/a.md')).toBeNull();
    expect((await t.app.vfs.readFile('acct1', 'resources/a.md')).toString()).toBe('keep');
    expect((await t.req({ method: 'DELETE', url: '/api/v1/admin/accounts/gone', headers: t.root })).status).toBe(404);
  });
});

describe('users (ROOT or the account ADMIN)', () => {
  it('ADMIN creates, lists, re-roles, rotates keys of and deletes users of its own account', async () => {
    const { admin } = await t.account('team', []);
    const created = await post('/api/v1/admin/accounts/team/users', admin, { user_id: 'carol', role: 'USER' });
    expect(created.status).toBe(201);
    const carolKey = created.json().result.user_key;
    const list = (await t.req({ url: '/api/v1/admin/accounts/team/users', headers: admin })).json().result;
    expect(list.map((u: any) => [u.user_id, u.role])).toEqual([['admin', 'ADMIN'], ['carol', 'USER']]);
    expect(list[0]).not.toHaveProperty('key_hash');

    const role = await t.req({ method: 'PUT', url: '/api/v1/admin/accounts/team/users/carol/role', headers: admin, body: { role: 'ADMIN' } });
    expect(role.json().result.role).toBe('ADMIN');
    // The cached identity follows the role change.
    expect((await t.req({ url: '/api/v1/admin/accounts/team/users', headers: { 'x-api-key': carolKey } })).status).toBe(200);

    const rotated = await post('/api/v1/admin/accounts/team/users/carol/key', admin);
    const newKey = rotated.json().result.user_key;
    expect(newKey).not.toBe(carolKey);
    expect((await t.req({ url: '/api/v1/system/status', headers: { 'x-api-key': carolKey } })).status).toBe(401);
    expect((await t.req({ url: '/api/v1/system/status', headers: { 'x-api-key': newKey } })).json().result.user).toBe('carol');

    expect((await t.req({ method: 'DELETE', url: '/api/v1/admin/accounts/team/users/carol', headers: admin })).status).toBe(200);
    expect((await t.req({ url: '/api/v1/system/status', headers: { 'x-api-key': newKey } })).status).toBe(401);
    expect((await t.req({ method: 'DELETE', url: '/api/v1/admin/accounts/team/users/carol', headers: admin })).status).toBe(404);
  });

  it('an ADMIN cannot manage another account; a USER cannot manage users', async () => {
    const a = await t.account('one', ['plain']);
    await t.account('two', []);
    expect((await post('/api/v1/admin/accounts/two/users', a.admin, { user_id: 'x' })).status).toBe(403);
    expect((await t.req({ url: '/api/v1/admin/accounts/two/users', headers: a.admin })).status).toBe(403);
    expect((await post('/api/v1/admin/accounts/one/users', a.users.plain!, { user_id: 'x' })).status).toBe(403);
  });

  it('validates roles, duplicates and missing accounts', async () => {
    const a = await t.account('three', ['dup']);
    expect((await post('/api/v1/admin/accounts/three/users', a.admin, { user_id: 'r', role: 'ROOT' })).json().error.details.field).toBe('role');
    expect((await post('/api/v1/admin/accounts/three/users', a.admin, { user_id: 'dup' })).status).toBe(409);
    expect((await post('/api/v1/admin/accounts/nope/users', t.root, { user_id: 'x' })).status).toBe(404);
    expect((await t.req({ url: '/api/v1/admin/accounts/nope/users', headers: t.root })).status).toBe(404);
    expect((await t.req({ method: 'PUT', url: '/api/v1/admin/accounts/three/users/ghost/role', headers: a.admin, body: { role: 'USER' } })).status).toBe(404);
  });
});

describe('identity resolution', () => {
  it('ROOT acts in the account and user named by X-Ctx-Account / X-Ctx-User', async () => {
    const res = await t.req({ url: '/api/v1/system/status', headers: { ...t.root, 'x-ctx-account': 'acct1', 'x-ctx-user': 'boss' } });
    expect(res.json().result.user).toBe('boss');
    const bad = await t.req({ url: '/api/v1/system/status', headers: { ...t.root, 'x-ctx-user': 'bad/../user' } });
    expect(bad.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'x-ctx-user' } });
  });

  it('a user key ignores identity headers (no switching accounts)', async () => {
    const { users } = await t.account('four', ['eve']);
    const res = await t.req({ url: '/api/v1/system/status', headers: { ...users.eve!, 'x-ctx-account': 'acct1', 'x-ctx-user': 'boss' } });
    expect(res.json().result.user).toBe('eve');
  });

  it('rejects an invalid X-Ctx-Actor-Peer', async () => {
    const res = await t.req({ url: '/api/v1/system/status', headers: { ...t.root, 'x-ctx-actor-peer': '../p' } });
    expect(res.status).toBe(400);
  });
});

describe('auth modes', () => {
  it('trusted mode takes identity headers, role from the registry', async () => {
    const tt = await startTestApp({ config: { authMode: 'trusted' } });
    try {
      expect((await tt.req({ url: '/api/v1/system/status' })).status).toBe(401);
      const res = await tt.req({ url: '/api/v1/system/status', headers: { 'x-ctx-account': 'gw', 'x-ctx-user': 'zed' } });
      expect(res.json().result.user).toBe('zed');
      // Not an admin just by asking: unregistered users are USER.
      expect((await tt.req({ url: '/api/v1/system/backend/sync-status', method: 'POST', headers: { 'x-ctx-account': 'gw', 'x-ctx-user': 'zed' }, body: { uri: 'ctx://resources' } })).status).toBe(403);
      expect((await tt.req({ url: '/health', headers: { 'x-ctx-account': 'gw', 'x-ctx-user': 'zed' } })).json().auth_mode).toBe('trusted');
      // The ROOT key still means ROOT.
      expect((await tt.req({ url: '/api/v1/admin/accounts', headers: { 'x-api-key': ROOT_KEY } })).status).toBe(200);
    } finally {
      await tt.close();
    }
  });

  it('dev mode needs no key and acts as ADMIN of the default account', async () => {
    const td = await startTestApp({ config: { authMode: 'dev', rootApiKey: undefined } });
    try {
      const res = await td.req({ url: '/api/v1/system/status' });
      expect(res.json().result).toMatchObject({ initialized: true, user: 'default', cluster: { mode: 'single' } });
      expect((await td.req({ method: 'POST', url: '/api/v1/system/backend/sync-status', body: { uri: 'ctx://resources' } })).status).toBe(200);
      expect((await td.req({ url: '/ready' })).json().checks.api_key_manager).toBe('not_configured');
    } finally {
      await td.close();
    }
  });

  it('configuration errors are refused at start-up', async () => {
    await expect(startTestApp({ config: { authMode: 'api_key', rootApiKey: undefined } })).rejects.toThrow(/CTX_ROOT_API_KEY is required/);
    await expect(startTestApp({ config: { authMode: 'dev', rootApiKey: undefined, host: '0.0.0.0' } })).rejects.toThrow(/loopback/);
    await expect(startTestApp({ config: { rootApiKey: 'short' } })).rejects.toThrow(/at least 16/);
    await expect(startTestApp({ config: { authMode: 'magic' as never } })).rejects.toThrow(/CTX_AUTH_MODE/);
  });
});
