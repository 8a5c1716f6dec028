/**
 * The host's per-request fast paths give what the general code gave: the query parser against
 * URLSearchParams, the access-log line built as text against JSON.stringify, counter-based request
 * ids, and the cached key → identity answer against key rotation, re-roling and deletion.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../runtime/logger.js';
import { parseQueryString } from '../../runtime/schema.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

function viaUrlSearchParams(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!query) return out;
  for (const [k, v] of new URLSearchParams(query)) {
    const key = k.endsWith('[]') ? k.slice(0, -2) : k;
    const prev = out[key];
    if (prev === undefined) out[key] = k.endsWith('[]') ? [v] : v;
    else out[key] = Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

describe('parseQueryString', () => {
  it('splits undecoded queries exactly as URLSearchParams does', () => {
    const pieces = ['a', 'b', '=', '&', '[]', 'x', '&&', 'c=d', '?', '/', ':', 'uri=ctx://resources/a', '%20', '+', 'é', '%zz', '=='];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) % n);
    for (let i = 0; i < 20_000; i++) {
      let q = '';
      for (let j = rand(9); j > 0; j--) q += pieces[rand(pieces.length)];
      expect(JSON.stringify(parseQueryString(q)), q).toBe(JSON.stringify(viaUrlSearchParams(q)));
    }
  });
});

describe('logger.trustedJson', () => {
  it('writes the line trusted() writes, with and without bindings (a field replacing a bound key too)', () => {
    const lines: string[] = [];
    const fields = { req_id: 'a"b', method: 'GET', path: '/p\u00e9\n', status: 200, ms: 0.12, account: 'acc', user: 'u' };
    const fieldsJson = Object.entries(fields).map(([k, v]) => ',' + JSON.stringify(k) + ':' + JSON.stringify(v)).join('');
    for (const bindings of [{}, { component: 'http' }, { component: 'http', path: 'bound' }]) {
      const log = createLogger('info', (l) => lines.push(l.replace(/"time":"[^"]+"/, '"time":T')), bindings);
      log.trusted('request', fields);
      log.trustedJson('request', fieldsJson);
      const [a, b] = lines.splice(0);
      expect(b).toBe(a);
    }
    createLogger('warn', (l) => lines.push(l)).trustedJson('request', fieldsJson);
    expect(lines).toEqual([]);
  });
});

describe('request ids and cached identities', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('generated request ids are UUID-shaped and distinct', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const id = (await t.req({ url: '/api/v1/system/status', headers: t.root })).headers['x-request-id']!;
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(200);
  });

  it('a cached key stops working once rotated, re-roled users get their new role, deleted users are refused', async () => {
    const { admin, users } = await t.account('fast', ['bob']);
    const bob = users.bob!;
    const status = (h: Record<string, string>) => t.req({ url: '/api/v1/system/status', headers: h });
    expect((await status(bob)).status).toBe(200);
    expect((await status(bob)).status).toBe(200); // now from the cache
    const listAsBob = () => t.req({ url: '/api/v1/admin/accounts/fast/users', headers: bob });
    expect((await listAsBob()).status).toBe(403);
    expect((await t.req({ method: 'PUT', url: '/api/v1/admin/accounts/fast/users/bob/role', headers: admin, body: { role: 'ADMIN' } })).status).toBe(200);
    expect((await listAsBob()).status).toBe(200);
    const rotated = await t.req({ method: 'POST', url: '/api/v1/admin/accounts/fast/users/bob/key', headers: admin });
    const fresh = { 'x-api-key': rotated.json().result.user_key as string };
    expect((await status(bob)).status).toBe(401);
    expect((await status(fresh)).status).toBe(200);
    expect((await t.req({ method: 'DELETE', url: '/api/v1/admin/accounts/fast/users/bob', headers: admin })).status).toBe(200);
    expect((await status(fresh)).status).toBe(401);
  });
});
