/**
 * Behaviour where the spec is silent and ctx follows the reference product, so that clients written
 * for it work unchanged (docs/architecture.md, "Where the spec is silent"; docs/compatibility.md).
 * One describe per difference found by scripts/reference-compat.sh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
const logLines: string[] = [];
let alice: Record<string, string>;

beforeAll(async () => {
  t = await startTestApp({ logSink: (l) => logLines.push(l), config: { logLevel: 'debug' } });
  alice = (await t.account('shop', ['alice'])).users.alice!;
});
afterAll(() => t.close());

const post = (url: string, headers: Record<string, string>, body?: unknown) => t.req({ method: 'POST', url, headers, body });
const put = (url: string, headers: Record<string, string>, body?: unknown) => t.req({ method: 'PUT', url, headers, body });
const q = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();

describe('roles: any case, user by default', () => {
  it('creates users with lower-case, upper-case and mixed-case roles, and USER when none is given', async () => {
    const made: Array<[string, unknown, string]> = [
      ['lower-user', 'user', 'USER'],
      ['lower-admin', 'admin', 'ADMIN'],
      ['mixed-admin', 'Admin', 'ADMIN'],
      ['upper-user', 'USER', 'USER'],
      ['no-role', undefined, 'USER'],
    ];
    for (const [userId, role, stored] of made) {
      const res = await post('/api/v1/admin/accounts/shop/users', t.root, role === undefined ? { user_id: userId } : { user_id: userId, role });
      expect(res.status, userId).toBe(201);
      expect(res.json().result.role, userId).toBe(stored);
    }
    // The role really took: a lower-case "admin" may manage the account's users.
    const key = (await post('/api/v1/admin/accounts/shop/users/lower-admin/key', t.root)).json().result.user_key as string;
    expect((await t.req({ url: '/api/v1/admin/accounts/shop/users', headers: { 'x-api-key': key } })).status).toBe(200);
  });

  it('set-role takes any case too, and still refuses roles that do not exist', async () => {
    const up = await put('/api/v1/admin/accounts/shop/users/lower-user/role', t.root, { role: 'admin' });
    expect(up.status).toBe(200);
    expect(up.json().result.role).toBe('ADMIN');
    expect((await put('/api/v1/admin/accounts/shop/users/lower-user/role', t.root, { role: 'uSeR' })).json().result.role).toBe('USER');
    for (const role of ['root', 'ROOT', 'owner', '', 3, null]) {
      const res = await put('/api/v1/admin/accounts/shop/users/lower-user/role', t.root, { role });
      expect(res.status, String(role)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'role' } });
    }
    expect((await post('/api/v1/admin/accounts/shop/users', t.root, { user_id: 'would-be-root', role: 'root' })).status).toBe(400);
  });

  it('key regeneration accepts the empty JSON body the reference client sends', async () => {
    const res = await post('/api/v1/admin/accounts/shop/users/no-role/key', t.root, {});
    expect(res.status).toBe(200);
    const key = res.json().result.user_key as string;
    expect((await t.req({ url: '/api/v1/system/status', headers: { 'x-api-key': key } })).json().result.user).toBe('no-role');
  });
});

describe('the default account exists from the first start in api_key mode', () => {
  it('ROOT finds it and can register, promote and re-key a user in it without creating it', async () => {
    const accounts = (await t.req({ url: '/api/v1/admin/accounts', headers: t.root })).json().result as Array<{ account_id: string }>;
    expect(accounts.map((a) => a.account_id)).toContain('default');
    expect((await t.req({ url: '/api/v1/admin/accounts/default/users', headers: t.root })).json().result).toEqual([]);
    const made = await post('/api/v1/admin/accounts/default/users', t.root, { user_id: 'default', role: 'user' });
    expect(made.status).toBe(201);
    expect((await put('/api/v1/admin/accounts/default/users/default/role', t.root, { role: 'admin' })).status).toBe(200);
    const rekey = await post('/api/v1/admin/accounts/default/users/default/key', t.root, {});
    expect(rekey.status).toBe(200);
    const me = await t.req({ url: '/api/v1/system/status', headers: { authorization: `Bearer ${rekey.json().result.user_key}` } });
    expect(me.json().result.user).toBe('default');
  });

  it('survives restarts, and stays deleted once ROOT deletes it', async () => {
    await t.restart();
    const ids = async () => ((await t.req({ url: '/api/v1/admin/accounts', headers: t.root })).json().result as Array<{ account_id: string }>).map((a) => a.account_id);
    expect(await ids()).toContain('default');
    expect((await t.req({ method: 'DELETE', url: '/api/v1/admin/accounts/default', headers: t.root })).status).toBe(200);
    // The account's vector and privacy records are dropped after the response; shutdown waits for
    // that cleanup (no sleep needed: closing right away must not race the store).
    await t.restart();
    expect(await ids()).not.toContain('default');
    // Re-login after the restarts.
    alice = { 'x-api-key': (await post('/api/v1/admin/accounts/shop/users/alice/key', t.root)).json().result.user_key as string };
  });
});

describe('fs/mkdir is idempotent for directories', () => {
  it('a second mkdir of the same directory is 200 and changes nothing', async () => {
    const first = await post('/api/v1/fs/mkdir', alice, { uri: 'ctx://resources/kept', description: 'the first words' });
    expect(first.status).toBe(200);
    const again = await post('/api/v1/fs/mkdir', alice, { uri: 'ctx://resources/kept/', description: 'other words' });
    expect(again.status).toBe(200);
    expect(again.json().result).toEqual({ uri: 'ctx://resources/kept' });
    const abstract = await t.req({ url: `/api/v1/content/abstract?${q({ uri: 'ctx://resources/kept' })}`, headers: alice });
    expect(abstract.json().result).toBe('the first words');
  });

  it('a file in the way is still a 409 CONFLICT naming it', async () => {
    await post('/api/v1/content/write', alice, { uri: 'ctx://resources/kept/note.md', content: 'hello' });
    for (const uri of ['ctx://resources/kept/note.md', 'ctx://resources/kept/note.md/below']) {
      const res = await post('/api/v1/fs/mkdir', alice, { uri });
      expect(res.status, uri).toBe(409);
      expect(res.json().error.code).toBe('CONFLICT');
    }
  });
});

describe('path traversal is a denied access', () => {
  it('".." or "." segments answer 403 PERMISSION_DENIED on reads and writes, never 500', async () => {
    const stat = await t.req({ url: `/api/v1/fs/stat?${q({ uri: 'ctx://resources/../../../etc/passwd' })}`, headers: alice });
    expect(stat.status).toBe(403);
    expect(stat.json()).toMatchObject({ status: 'error', error: { code: 'PERMISSION_DENIED', details: { field: 'uri', resource: 'ctx://resources/../../../etc/passwd' } } });
    const write = await post('/api/v1/content/write', alice, { uri: 'ctx://resources/./x.md', content: 'x' });
    expect(write.status).toBe(403);
    const find = await post('/api/v1/search/find', alice, { query: 'x', target_uri: 'ctx://~/../bob' });
    expect(find.json().error).toMatchObject({ code: 'PERMISSION_DENIED', details: { field: 'target_uri' } });
  });

  it('percent-encoded dots stay a malformed URI (nothing is decoded)', async () => {
    const res = await t.req({ url: `/api/v1/fs/stat?${q({ uri: 'ctx://resources/%2e%2e/etc' })}`, headers: alice });
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe('INVALID_URI');
  });
});

describe('limits of zero or less answer an empty result', () => {
  it('find and search with limit 0, a negative limit or node_limit 0 are 200 with nothing in them', async () => {
    await post('/api/v1/content/write', alice, { uri: 'ctx://resources/kept/apples.md', content: 'apples and pears', wait: true });
    for (const body of [{ limit: 0 }, { limit: -1 }, { limit: -50 }, { node_limit: 0, limit: 5 }]) {
      for (const path of ['/api/v1/search/find', '/api/v1/search/search']) {
        const res = await post(path, alice, { query: 'apples', ...body });
        expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(200);
        expect(res.json().result).toMatchObject({ memories: [], resources: [], skills: [], total: 0 });
      }
    }
    // A positive limit still finds it, and the maximum still holds.
    expect((await post('/api/v1/search/find', alice, { query: 'apples', limit: 1 })).json().result.total).toBe(1);
    expect((await post('/api/v1/search/find', alice, { query: 'apples', limit: 1001 })).status).toBe(400);
  });

  it('tasks?limit=0 (or below) is an empty list; over the maximum is still 400', async () => {
    for (const limit of [0, -3]) {
      const res = await t.req({ url: `/api/v1/tasks?limit=${limit}`, headers: alice });
      expect(res.status, String(limit)).toBe(200);
      expect(res.json().result).toEqual([]);
    }
    expect((await t.req({ url: '/api/v1/tasks?limit=100000', headers: alice })).status).toBe(400);
    expect((await t.req({ url: '/api/v1/tasks?limit=lots', headers: alice })).status).toBe(400);
  });
});

describe('unknown query parameters are ignored; unknown body fields are not', () => {
  it('fs/ls with a parameter it does not know answers as without it, and the parameter is logged at debug', async () => {
    logLines.length = 0;
    const plain = await t.req({ url: `/api/v1/fs/ls?${q({ uri: 'ctx://resources/kept' })}`, headers: alice });
    const extra = await t.req({ url: `/api/v1/fs/ls?${q({ uri: 'ctx://resources/kept', depth: 1, _: 12345 })}`, headers: alice });
    expect(extra.status).toBe(200);
    expect(extra.json().result).toEqual(plain.json().result);
    const line = logLines.map((l) => JSON.parse(l)).find((l) => l.msg === 'ignored unknown query parameters');
    expect(line).toMatchObject({ level: 'debug', path: '/api/v1/fs/ls', params: ['depth', '_'] });
  });

  it('known query parameters are still validated', async () => {
    const res = await t.req({ url: `/api/v1/fs/ls?${q({ uri: 'ctx://resources/kept', depth: 1, node_limit: 'many' })}`, headers: alice });
    expect(res.status).toBe(400);
    expect(res.json().error.details.field).toBe('node_limit');
  });

  it('an unknown body field is still 400 naming it', async () => {
    const res = await post('/api/v1/fs/mkdir', alice, { uri: 'ctx://resources/other', parents: true });
    expect(res.status).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'parents' } });
  });
});
