/** The fs routes over the real uWS socket: query strings as clients send them, DELETE, error envelopes, a large listing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UwsServer } from '../../runtime/adapters/uws/server.js';
import type { TestApp } from '../helpers/app.js';
import { fsApp } from './helpers.js';

let t: TestApp;
let server: UwsServer;
let base: string;
let alice: Record<string, string>;

beforeAll(async () => {
  t = (await fsApp()).t;
  alice = (await t.account('acme', ['alice'])).users.alice!;
  server = await t.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => t.close());

describe('fs over HTTP', () => {
  it('mkdir, ls with repeated and comma-separated array parameters, stat, mv, DELETE', async () => {
    const json = { ...alice, 'content-type': 'application/json' };
    expect((await fetch(`${base}/api/v1/fs/mkdir`, { method: 'POST', headers: json, body: JSON.stringify({ uri: 'ctx://resources/w/dir one', description: 'über' }) })).status).toBe(200);
    await t.app.vfs.writeFile('acme', 'resources/w/a.md', Buffer.from('a'), { tags: ['k=v', 'x=y'] });
    const ls = await fetch(`${base}/api/v1/fs/ls?uri=${encodeURIComponent('ctx://resources/w/')}&extra_fields=id&extra_fields=locked&tags=k%3Dv,x%3Dy&include_tags=1`, { headers: alice });
    const body = await ls.json();
    expect(body.result).toEqual([expect.objectContaining({ name: 'a.md', isLocked: false, meta: { tags: ['k=v', 'x=y'] }, id: expect.stringMatching(/^[0-9a-f]{32}$/) })]);
    const dir = await (await fetch(`${base}/api/v1/fs/ls?uri=${encodeURIComponent('ctx://resources/w')}`, { headers: alice })).json();
    expect(dir.result[0]).toMatchObject({ name: 'dir one', uri: 'ctx://resources/w/dir one', abstract: 'über' });
    const mv = await fetch(`${base}/api/v1/fs/mv`, { method: 'POST', headers: json, body: JSON.stringify({ from_uri: 'ctx://resources/w/dir one', to_uri: 'ctx://resources/w/dir two' }) });
    expect((await mv.json()).result).toEqual({ from: 'ctx://resources/w/dir one', to: 'ctx://resources/w/dir two' });
    const del = await fetch(`${base}/api/v1/fs?uri=${encodeURIComponent('ctx://resources/w')}&recursive=true`, { method: 'DELETE', headers: alice });
    expect((await del.json()).result).toEqual({ uri: 'ctx://resources/w', deleted_count: 3 });
    const gone = await fetch(`${base}/api/v1/fs/stat?uri=${encodeURIComponent('ctx://resources/w')}`, { headers: alice });
    expect(gone.status).toBe(404);
    expect((await gone.json()).status).toBe('error');
  });

  it('an encoded traversal in the raw query string is refused', async () => {
    // Query decoding turns these into literal ".." segments: a denied access.
    for (const q of ['ctx://resources/..%2Fuser', 'ctx%3A%2F%2Fresources%2F..%2Fuser'])
      expect((await fetch(`${base}/api/v1/fs/ls?uri=${q}`, { headers: alice })).status, q).toBe(403);
    // Still encoded after query decoding: a malformed URI.
    expect((await fetch(`${base}/api/v1/fs/ls?uri=ctx://resources/%252e%252e/x`, { headers: alice })).status).toBe(400);
  });

  it('a 5,000-entry tree arrives complete', async () => {
    const lock = await t.app.vfs.locks.acquire('acme', 'resources/many', 'tree');
    await t.app.vfs.writeFiles('acme', Array.from({ length: 5000 }, (_, i) => ({ path: `resources/many/d${i % 50}/f${i}.md`, content: Buffer.from('x') })), { lock });
    lock.release();
    const res = await fetch(`${base}/api/v1/fs/tree?uri=${encodeURIComponent('ctx://resources/many')}&node_limit=10000&output=original`, { headers: alice });
    expect((await res.json()).result).toHaveLength(5050);
  });
});
