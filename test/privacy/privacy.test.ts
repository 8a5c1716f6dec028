/**
 * Privacy configs over the real pipeline and RocksDB: versions only on changed values, activate moves
 * the stored pointer only, values come back unmasked, every error path, isolation between users and
 * accounts, and values never reaching the logs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pollUntil } from '../helpers/poll.js';

type Headers = Record<string, string>;
let t: TestApp;
let admin: Headers;
let alice: Headers;
let bob: Headers;
let carol: Headers;
const logLines: string[] = [];
const BASE = '/api/v1/privacy-configs';
const SECRET = 'sk-live-THIS-MUST-NEVER-BE-LOGGED-42';

const get = (url: string, h: Headers) => t.req({ url: BASE + url, headers: h });
const post = (url: string, body: unknown, h: Headers) => t.req({ method: 'POST', url: BASE + url, headers: h, body });

beforeAll(async () => {
  // Debug level and the access log on: the most verbose the service gets.
  t = await startTestApp({ logSink: (l) => logLines.push(l), config: { logLevel: 'debug', accessLog: true } });
  const acme = await t.account('acme', ['alice', 'bob']);
  admin = acme.admin;
  alice = acme.users.alice!;
  bob = acme.users.bob!;
  carol = (await t.account('globex', ['carol'])).users.carol!;
});
afterAll(() => t.close());

describe('privacy configs: versions', () => {
  it('set creates version 1, get returns {meta, current} unmasked', async () => {
    const r = await post('/llm/openai', { values: { api_key: SECRET, org: 'acme' }, change_reason: 'initial', labels: { env: 'prod' } }, alice);
    expect(r.status).toBe(200);
    const cur = r.json().result;
    expect(cur).toMatchObject({ version: 1, category: 'llm', target_key: 'openai', values: { api_key: SECRET, org: 'acme' }, change_reason: 'initial', created_by: 'alice' });
    expect(typeof cur.created_at).toBe('string');

    const g = await get('/llm/openai', alice);
    expect(g.status).toBe(200);
    const { meta, current } = g.json().result;
    expect(current).toEqual(cur);
    expect(meta).toMatchObject({ category: 'llm', target_key: 'openai', active_version: 1, latest_version: 1, updated_by: 'alice', labels: { env: 'prod' } });
    expect(Object.keys(meta).sort()).toEqual(['active_version', 'category', 'created_at', 'labels', 'last_accessed_at', 'latest_version', 'target_key', 'updated_at', 'updated_by'].sort());
    expect(typeof meta.last_accessed_at).toBe('string');
    expect(Object.keys(current).sort()).toEqual(['category', 'change_reason', 'created_at', 'created_by', 'target_key', 'values', 'version'].sort());
  });

  it('identical values (in any key order) create no new version; changed values do', async () => {
    const same = await post('/llm/openai', { values: { org: 'acme', api_key: SECRET }, change_reason: 'noop' }, alice);
    expect(same.json().result).toMatchObject({ version: 1, change_reason: 'initial' });
    expect((await get('/llm/openai/versions', alice)).json().result).toEqual([1]);

    const v2 = await post('/llm/openai', { values: { api_key: 'sk-second' } }, alice);
    expect(v2.json().result).toMatchObject({ version: 2, values: { api_key: 'sk-second' }, change_reason: '' });
    const v3 = await post('/llm/openai', { values: { api_key: 'sk-third', nested: { a: [1, 2] } }, change_reason: 'rotate', labels: { env: 'staging' } }, alice);
    expect(v3.json().result.version).toBe(3);
    expect((await get('/llm/openai/versions', alice)).json().result).toEqual([1, 2, 3]);
    const { meta } = (await get('/llm/openai', alice)).json().result;
    expect(meta).toMatchObject({ active_version: 3, latest_version: 3, labels: { env: 'staging' } });
  });

  it('labels alone update the meta without a version', async () => {
    await post('/llm/openai', { values: { api_key: 'sk-third', nested: { a: [1, 2] } }, labels: { env: 'qa' } }, alice);
    const { meta, current } = (await get('/llm/openai', alice)).json().result;
    expect(current.version).toBe(3);
    expect(meta.labels).toEqual({ env: 'qa' });
    expect(meta.latest_version).toBe(3);
  });

  it('one version by number', async () => {
    const r = await get('/llm/openai/versions/1', alice);
    expect(r.status).toBe(200);
    expect(r.json().result).toMatchObject({ version: 1, values: { api_key: SECRET, org: 'acme' }, change_reason: 'initial' });
  });

  it('activate changes the current values only: no new version, latest unchanged', async () => {
    const r = await post('/llm/openai/activate', { version: 1 }, alice);
    expect(r.status).toBe(200);
    expect(r.json().result).toMatchObject({ version: 1, values: { api_key: SECRET } });
    const { meta, current } = (await get('/llm/openai', alice)).json().result;
    expect(meta).toMatchObject({ active_version: 1, latest_version: 3 });
    expect(current.version).toBe(1);
    expect((await get('/llm/openai/versions', alice)).json().result).toEqual([1, 2, 3]);
    // Setting the active values again is still a no-op; new values go after the latest.
    expect((await post('/llm/openai', { values: { api_key: SECRET, org: 'acme' } }, alice)).json().result.version).toBe(1);
    expect((await post('/llm/openai', { values: { api_key: 'sk-fourth' } }, alice)).json().result.version).toBe(4);
    expect((await get('/llm/openai', alice)).json().result.meta).toMatchObject({ active_version: 4, latest_version: 4 });
  });

  it('categories and targets list what the user set, sorted', async () => {
    await post('/llm/anthropic', { values: { k: 'v' } }, alice);
    await post('/git/github.com', { values: { token: 't' } }, alice);
    expect((await get('', alice)).json().result).toEqual(['git', 'llm']);
    expect((await get('/llm', alice)).json().result).toEqual(['anthropic', 'openai']);
    expect((await get('/nothing', alice)).json().result).toEqual([]);
  });

  it('concurrent sets of distinct values make distinct, gap-free versions', async () => {
    const rs = await Promise.all(Array.from({ length: 12 }, (_, i) => post('/race/target', { values: { n: i } }, alice)));
    expect(rs.every((r) => r.status === 200)).toBe(true);
    expect(rs.map((r) => r.json().result.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect((await get('/race/target/versions', alice)).json().result).toHaveLength(12);
  });

  it('survives a restart', async () => {
    await t.restart();
    const { meta, current } = (await get('/llm/openai', alice)).json().result;
    expect(meta.latest_version).toBe(4);
    expect(current.values).toEqual({ api_key: 'sk-fourth' });
  });
});

describe('privacy configs: errors', () => {
  it('missing target, version and category are NOT_FOUND', async () => {
    for (const url of ['/llm/nope', '/llm/nope/versions', '/llm/nope/versions/1', '/llm/openai/versions/99']) {
      const r = await get(url, alice);
      expect(r.status, url).toBe(404);
      expect(r.json().error.code).toBe('NOT_FOUND');
    }
    const a = await post('/llm/nope/activate', { version: 1 }, alice);
    expect(a.status).toBe(404);
    const b = await post('/llm/openai/activate', { version: 42 }, alice);
    expect(b.status).toBe(404);
    expect(b.json().error.details).toMatchObject({ version: 42 });
  });

  it('bad bodies are INVALID_ARGUMENT naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'values'],
      [{ values: 'x' }, 'values'],
      [{ values: [1] }, 'values'],
      [{ values: null }, 'values'],
      [{ values: {}, change_reason: 5 }, 'change_reason'],
      [{ values: {}, labels: 'x' }, 'labels'],
      [{ values: {}, extra: 1 }, 'extra'],
      [{ values: Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i])) }, 'values'],
    ];
    for (const [body, field] of cases) {
      const r = await post('/llm/x', body, alice);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
    }
    for (const body of [{}, { version: '1' }, { version: 1.5 }, { version: 0 }, { version: 1, x: 1 }]) {
      const r = await post('/llm/openai/activate', body, alice);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json().error.code).toBe('INVALID_ARGUMENT');
    }
    const bad = await t.req({ method: 'POST', url: `${BASE}/llm/x`, headers: { ...alice, 'content-type': 'application/json' }, body: '{"values": {' });
    expect(bad.status).toBe(400);
    expect((await get('/llm/x', alice)).status).toBe(404);
  });

  it('bad names and versions in the path are INVALID_ARGUMENT', async () => {
    for (const url of ['/..%2F..', '/llm/..', '/llm/%00x', `/${'c'.repeat(129)}`, '/llm/a%20b', '/llm/openai/versions/abc', '/llm/openai/versions/0', '/llm/openai/versions/-1', '/llm/openai/versions/1e3']) {
      const r = await get(url, alice);
      expect(r.status, url).toBe(400);
      expect(r.json().error.code, url).toBe('INVALID_ARGUMENT');
    }
  });

  it('oversized bodies are refused', async () => {
    const r = await post('/llm/big', { values: { blob: 'x'.repeat(32 * 1024 * 1024) } }, alice);
    expect(r.status).toBe(413);
    expect((await get('/llm/big', alice)).status).toBe(404);
  });

  it('requires credentials', async () => {
    expect((await get('', {})).status).toBe(401);
    expect((await post('/llm/openai', { values: {} }, { 'x-api-key': 'wrong' })).status).toBe(401);
  });
});

describe('privacy configs: isolation', () => {
  it('another user of the same account sees none of them', async () => {
    expect((await get('', bob)).json().result).toEqual([]);
    expect((await get('/llm', bob)).json().result).toEqual([]);
    expect((await get('/llm/openai', bob)).status).toBe(404);
    expect((await get('/llm/openai/versions', bob)).status).toBe(404);
    expect((await get('/llm/openai/versions/1', bob)).status).toBe(404);
    expect((await post('/llm/openai/activate', { version: 1 }, bob)).status).toBe(404);
    // Bob's own config of the same name is separate.
    expect((await post('/llm/openai', { values: { api_key: 'bob' } }, bob)).json().result.version).toBe(1);
    expect((await get('/llm/openai', alice)).json().result.current.values).toEqual({ api_key: 'sk-fourth' });
  });

  it('the account admin and other accounts do not see them either', async () => {
    for (const h of [admin, carol]) {
      expect((await get('', h)).json().result).toEqual([]);
      expect((await get('/llm/openai', h)).status).toBe(404);
    }
  });

  it('deleting the account drops its configs', async () => {
    const d = await t.account('doomed', ['dora']);
    await post('/llm/k', { values: { a: 1 } }, d.users.dora!);
    const del = await t.req({ method: 'DELETE', url: '/api/v1/admin/accounts/doomed', headers: t.root });
    expect(del.status).toBe(200);
    const again = await t.account('doomed', ['dora']);
    // The drop runs after the account deletion answers; poll the store through the API.
    await pollUntil(async () => ((await get('', again.users.dora!)).json().result as string[]).length === 0, { what: "the deleted account's privacy configs to be dropped" });
  });
});

describe('privacy configs: logs', () => {
  it('values never appear in any log line, even on errors', async () => {
    await post('/llm/logcheck', { values: { api_key: SECRET, password: SECRET } }, alice);
    await post('/llm/logcheck', { values: { api_key: SECRET }, bogus: SECRET }, alice);
    await get('/llm/logcheck', alice);
    await get('/llm/logcheck/versions/1', alice);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.some((l) => l.includes('/api/v1/privacy-configs'))).toBe(true);
    for (const l of logLines) expect(l).not.toContain(SECRET);
  });

  it('the logger redacts a values object a handler might log', async () => {
    const { createLogger } = await import('../../runtime/logger.js');
    const lines: string[] = [];
    createLogger('debug', (l) => lines.push(l)).info('privacy set', { values: { api_key: SECRET }, current: { values: { x: SECRET } } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(SECRET);
    expect(lines[0]).toContain('[redacted]');
  });
});
