/** Gateway admin proxy against a real fake gateway on 127.0.0.1, in-process and over a real socket. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_KEY, startTestApp, type TestApp } from '../helpers/app.js';
import { startFakeGateway, type FakeGateway } from './fake-gateway.js';

const TOKEN = 'gateway-admin-token-0123456789abcdef0123';
const P = '/api/v1/admin/context-gateway';

let gw: FakeGateway;
let t: TestApp;
let admin: Record<string, string>;
let user: Record<string, string>;
let base: string;

beforeAll(async () => {
  gw = await startFakeGateway();
  t = await startTestApp({ config: { gateway: { url: `${gw.url}/`, adminToken: TOKEN } } });
  const acme = await t.account('acme', ['bob']);
  admin = acme.admin;
  user = acme.users.bob!;
  base = `http://127.0.0.1:${(await t.app.listen(0, '127.0.0.1')).port}`;
});
afterAll(async () => {
  await t?.close();
  await gw?.close();
});

describe('forwarding', () => {
  it('GET with query: admin token and the caller account replace the caller credentials', async () => {
    gw.next.push({ status: 200, body: '{"records":[]}', headers: { etag: '"v1"' } });
    const res = await t.req({ method: 'GET', url: `${P}/logs?limit=5&x=a&x=b`, headers: { ...admin, authorization: 'Bearer caller-secret', cookie: 'c=1' } });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"records":[]}');
    expect(res.headers['etag']).toBe('"v1"');
    const r = gw.received.at(-1)!;
    expect(r.method).toBe('GET');
    expect(r.url).toBe('/admin/logs?limit=5&x=a&x=b');
    expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(r.headers['x-ctx-account']).toBe('acme');
    expect(r.headers['x-api-key']).toBeUndefined();
    expect(r.headers.cookie).toBeUndefined();
    expect(JSON.stringify(r.headers)).not.toContain(admin['x-api-key']);
  });

  it('PUT, POST and DELETE carry method and body; the gateway status and body come back unchanged', async () => {
    const obj = { id: 'u1', name: 'openai', protocol: 'chat' };
    gw.next.push({ status: 422, body: '{"detail":"invalid body"}' });
    const put = await t.req({ method: 'PUT', url: `${P}/upstreams/u1`, headers: admin, body: obj });
    expect(put.status).toBe(422);
    expect(put.json()).toEqual({ detail: 'invalid body' });
    expect(gw.received.at(-1)).toMatchObject({ method: 'PUT', url: '/admin/upstreams/u1', body: JSON.stringify(obj) });
    expect(gw.received.at(-1)!.headers['content-type']).toBe('application/json');

    gw.next.push({ status: 409, body: '{"detail":"in use"}' });
    const del = await t.req({ method: 'DELETE', url: `${P}/upstreams/u1`, headers: admin });
    expect(del.status).toBe(409);
    expect(del.json()).toEqual({ detail: 'in use' });

    const post = await t.req({ method: 'POST', url: `${P}/keys/k1/capture/reset`, headers: t.root, body: { session: 's', protocol: 'chat' } });
    expect(post.status).toBe(200);
    expect(post.json().echo).toEqual({ method: 'POST', url: '/admin/keys/k1/capture/reset', body: '{"session":"s","protocol":"chat"}' });
    // ROOT acts for its own account.
    expect(gw.received.at(-1)!.headers['x-ctx-account']).toBe('default');
  });

  it('a 204 and a non-JSON body pass through', async () => {
    gw.next.push({ status: 204, body: '' });
    const r1 = await t.req({ method: 'DELETE', url: `${P}/keys/k9`, headers: admin });
    expect(r1.status).toBe(204);
    gw.next.push({ status: 405, body: 'Method Not Allowed', headers: { 'content-type': 'text/plain', allow: 'GET, DELETE' } });
    const r2 = await t.req({ method: 'PUT', url: `${P}/keys/k9`, headers: admin, body: {} });
    expect(r2.status).toBe(405);
    expect(r2.text).toBe('Method Not Allowed');
    expect(r2.headers['content-type']).toBe('text/plain');
    expect(r2.headers['allow']).toBe('GET, DELETE');
  });

  it('path segments are re-encoded for the gateway', async () => {
    await t.req({ method: 'DELETE', url: `${P}/users/a%20b%2Fc/data`, headers: admin });
    expect(gw.received.at(-1)!.url).toBe('/admin/users/a%20b%2Fc/data');
  });
});

describe('refusals', () => {
  it('USER gets 403 and nothing reaches the gateway', async () => {
    const n = gw.received.length;
    const res = await t.req({ method: 'GET', url: `${P}/overview`, headers: user });
    expect(res.status).toBe(403);
    expect(res.json().error.code).toBe('PERMISSION_DENIED');
    expect(gw.received.length).toBe(n);
  });

  it('POST keys with both openviking_key and user_id: 400 naming the choice, nothing forwarded', async () => {
    const n = gw.received.length;
    const body = { name: 'k', openviking_key: 'sk-x', user_id: 'bob', policy_id: 'p', upstream_ids: ['u'] };
    const res = await t.req({ method: 'POST', url: `${P}/keys`, headers: admin, body });
    expect(res.status).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'user_id' } });
    expect(res.json().error.message).toMatch(/openviking_key.*or.*user_id/);
    expect(gw.received.length).toBe(n);
    // Either one alone is forwarded.
    const { user_id: _omit, ...one } = body;
    expect((await t.req({ method: 'POST', url: `${P}/keys`, headers: admin, body: one })).status).toBe(200);
    expect(gw.received.length).toBe(n + 1);
  });

  it('no credentials: 401', async () => {
    expect((await t.req({ method: 'GET', url: `${P}/overview` })).status).toBe(401);
  });

  it.each([`${P}/admin`, `${P}/secrets/x`, `${P}/upstreams/..`, `${P}/upstreams/%2e%2e/x`, `${P}/keys/./k`, `${P}/keys//k`])('%s → 404', async (url) => {
    const n = gw.received.length;
    const res = await t.req({ method: 'GET', url, headers: admin });
    expect(res.status).toBe(404);
    expect(res.json().error.code).toBe('NOT_FOUND');
    expect(gw.received.length).toBe(n);
  });

  it('PATCH is not a proxied method', async () => {
    expect((await t.req({ method: 'PATCH', url: `${P}/upstreams/u1`, headers: admin, body: {} })).status).toBe(405);
  });
});

describe('availability', () => {
  it('503 when no gateway URL is configured, when the token is missing, and when the gateway is unreachable', async () => {
    const off = await startTestApp({});
    const h = { 'x-api-key': ROOT_KEY };
    const r1 = await off.req({ method: 'GET', url: `${P}/overview`, headers: h });
    expect(r1.status).toBe(503);
    expect(r1.json().error.code).toBe('UNAVAILABLE');
    await off.close();

    const noToken = await startTestApp({ config: { gateway: { url: gw.url } } });
    const r2 = await noToken.req({ method: 'GET', url: `${P}/overview`, headers: h });
    expect(r2.status).toBe(503);
    expect(r2.json().error.message).toMatch(/admin token/);
    await noToken.close();

    const dead = await startFakeGateway();
    const deadUrl = dead.url;
    await dead.close();
    const down = await startTestApp({ config: { gateway: { url: deadUrl, adminToken: TOKEN } } });
    const r3 = await down.req({ method: 'GET', url: `${P}/overview`, headers: h });
    expect(r3.status).toBe(503);
    expect(r3.json().error.message).toMatch(/unreachable/);
    await down.close();
  });

  it('a token shorter than 32 characters is refused at start-up', async () => {
    await expect(startTestApp({ env: { CTX_GATEWAY_URL: gw.url, CTX_GATEWAY_ADMIN_TOKEN: 'short' } })).rejects.toThrow(/at least 32/);
  });
});

describe('real socket', () => {
  it('streams a large body through unchanged, with its length', async () => {
    const size = 8 * 1024 * 1024 + 123;
    gw.next.push({ big: size });
    const res = await fetch(`${base}${P}/logs`, { headers: admin });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(size));
    let n = 0;
    for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) n += c.length;
    expect(n).toBe(size);
  });

  it('PUT body and gateway error status over HTTP', async () => {
    gw.next.push({ status: 400, body: '{"detail":"unknown profile"}' });
    const res = await fetch(`${base}${P}/policies/p1`, { method: 'PUT', headers: { ...admin, 'content-type': 'application/json' }, body: '{"id":"p1"}' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: 'unknown profile' });
    expect(gw.received.at(-1)!.body).toBe('{"id":"p1"}');
  });
});
