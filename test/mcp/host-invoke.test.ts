/**
 * host.invoke, the runtime facility the MCP tools run on: a route called in process as an issued
 * identity gets exactly what the same request over HTTP would (roles, schemas, access, errors).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePlugin, type PluginHost } from '../../runtime/plugin.js';
import { s } from '../../runtime/schema.js';
import { CtxError } from '../../runtime/errors.js';
import type { InvokeReply, InvokeRequest } from '../../runtime/http/invoke.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let host!: PluginHost;
const probe = definePlugin({
  name: 'invoke-probe',
  version: '1.0.0',
  setup(h) {
    host = h;
    h.route({
      method: 'POST',
      path: '/test/invoke',
      summary: 'calls a route as the caller',
      body: s.object({ req: s.record(s.any()) }),
      response: s.any(),
      async handler(ctx) {
        const r = await h.invoke(ctx.identity, ctx.body.req as unknown as InvokeRequest);
        const reply = r as InvokeReply;
        return reply && Buffer.isBuffer(reply.body) ? { raw: { status: reply.status, type: reply.headers['content-type'], body: reply.body.toString('utf8') } } : { result: r };
      },
    });
  },
});

let t: TestApp;
let alice: Record<string, string>;
const via = (who: Record<string, string>, req: Record<string, unknown>) => t.req({ method: 'POST', url: '/test/invoke', headers: who, body: { req } });

beforeAll(async () => {
  t = await startTestApp({ extraPlugins: [probe] });
  alice = (await t.account('acme', ['alice'])).users.alice!;
  await t.req({ method: 'POST', url: '/api/v1/content/write', headers: alice, body: { uri: 'ctx://user/alice/resources/a.md', content: 'line 0\nline 1\nline 2\n' } });
}, 60_000);
afterAll(() => t?.close());

describe('host.invoke', () => {
  it('returns the envelope\'s result, with the query coerced by the route\'s schema', async () => {
    const r = await via(alice, { method: 'GET', path: '/api/v1/content/read', query: { uri: 'ctx://~/resources/a.md', offset: 1, limit: 1 } });
    expect(r.json().result).toEqual({ result: 'line 1' });
  });

  it('passes a JSON body through the route\'s schema; a bad one is its 400', async () => {
    const r = await via(alice, { method: 'POST', path: '/api/v1/search/glob', body: { uri: 'ctx://~/resources', pattern: '*.md' } });
    expect(r.json().result.result.matches).toEqual(['ctx://user/alice/resources/a.md']);
    const bad = await via(alice, { method: 'POST', path: '/api/v1/search/glob', body: { uri: 'ctx://~/resources', pattern: '*.md', nope: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'nope' } });
  });

  it('rejects with the route\'s error: access rules, roles and missing routes as over HTTP', async () => {
    const other = await via(alice, { method: 'GET', path: '/api/v1/fs/stat', query: { uri: 'ctx://user/bob' } });
    expect(other.status).toBe(403);
    expect(other.json().error.code).toBe('PERMISSION_DENIED');
    const admin = await via(alice, { method: 'GET', path: '/api/v1/admin/accounts' });
    expect(admin.status).toBe(403);
    expect(admin.json().error.details).toEqual({ required: ['ROOT'] });
    const none = await via(alice, { method: 'GET', path: '/api/v1/nowhere' });
    expect(none.json().error.code).toBe('NOT_FOUND');
  });

  it('gives a route answering outside the envelope as status, headers and bytes', async () => {
    const r = await via(alice, { method: 'GET', path: '/health' });
    expect(r.json().result.raw).toMatchObject({ status: 200, type: 'application/json' });
    expect(JSON.parse(r.json().result.raw.body)).toMatchObject({ status: 'ok', healthy: true });
  });

  it('refuses an identity the host did not issue', () => {
    expect(() => host.invoke({ accountId: 'acme', userId: 'alice', role: 'ROOT' }, { method: 'GET', path: '/health' })).toThrow(/identity the host issued/);
  });

  it('an aborted call rejects instead of answering', async () => {
    const issued = await host.authenticate({ 'x-api-key': alice['x-api-key']! });
    const ac = new AbortController();
    ac.abort();
    await expect(host.invoke(issued, { method: 'GET', path: '/api/v1/fs/stat', query: { uri: 'ctx://~/resources/a.md' }, signal: ac.signal })).rejects.toBeInstanceOf(CtxError);
    const r = await host.invoke(issued, { method: 'GET', path: '/api/v1/fs/stat', query: { uri: 'ctx://~/resources/a.md' } });
    expect(r).toMatchObject({ isDir: false, uri: 'ctx://user/alice/resources/a.md' });
  });
});
