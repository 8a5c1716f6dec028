/**
 * Isolation and safety of every relations route: another account's URIs are never visible, a USER
 * cannot reach another user's namespace (as source, target, space or output), peer views and the
 * `access: denied` entries under ctx://resources hold, and relations never reveal unreadable names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relApp, type Headers, type RelApp } from './helpers.js';

let r: RelApp;

const graphData = async (account: string, path: string) => {
  const html = (await r.t.app.vfs.readFile(account, path)).toString('utf8');
  return JSON.parse(html.match(/id="ctx-graph-data">([\s\S]*?)<\/script>/)![1]!) as { nodes: Array<{ uri: string }>; edges: unknown[] };
};

beforeAll(async () => {
  r = await relApp();
  await r.put('acme', 'resources/shared/open.md', 'open');
  await r.put('acme', 'resources/shared/other.md', 'other');
  await r.put('acme', 'user/alice/memories/a1.md', 'alice one');
  await r.put('acme', 'user/alice/memories/a2.md', 'alice two');
  await r.put('acme', 'user/bob/memories/b1.md', 'bob secret name');
  await r.put('acme', 'user/alice/peers/p1/memories/x.md', 'peer one');
  await r.put('acme', 'user/alice/peers/p2/memories/y.md', 'peer two');
  await r.put('acme', 'resources/team/secret/plan.md', 'top secret');
  await r.put('acme', 'resources/team/open.md', 'team open');
  await r.put('globex', 'resources/shared/open.md', 'globex open');
  const acl = await r.t.req({ method: 'POST', url: '/api/v1/fs/access', headers: r.admin, body: { uri: 'ctx://resources/team/secret', readers: ['bob'] } });
  expect(acl.status).toBe(200);
  // Set up by the admin, who reads everything in the account.
  const link = async (from: string, to: string[]) => expect((await r.link({ from_uri: from, to_uris: to, reason: 'admin made' }, r.admin)).status).toBe(200);
  await link('ctx://resources/shared/open.md', ['ctx://user/bob/memories/b1.md', 'ctx://resources/shared/other.md', 'ctx://resources/team/secret/plan.md']);
  await link('ctx://user/alice/memories/a1.md', ['ctx://user/alice/memories/a2.md']);
  await link('ctx://resources/team/secret', ['ctx://resources/team/open.md']);
  await link('ctx://user/bob/memories/b1.md', ['ctx://resources/shared/open.md']);
});
afterAll(() => r.t.close());

const expectError = async (res: Promise<{ status: number; json(): any }>, status: number, code: string) => {
  const out = await res;
  expect(out.status).toBe(status);
  expect(out.json().error.code).toBe(code);
};

describe('other accounts', () => {
  it('never see this account’s relations, sources or targets', async () => {
    // The same path exists in globex, without relations.
    expect((await r.list('ctx://resources/shared/open.md', r.carol)).json().result).toEqual([]);
    await expectError(r.list('ctx://user/alice/memories/a1.md', r.globexAdmin), 404, 'NOT_FOUND');
    await expectError(r.list('ctx://resources/shared/other.md', r.carol), 404, 'NOT_FOUND');
    await expectError(r.link({ from_uri: 'ctx://resources/shared/open.md', to_uris: 'ctx://resources/shared/other.md' }, r.carol), 404, 'NOT_FOUND');
    await expectError(r.unlink({ from_uri: 'ctx://resources/shared/open.md', to_uri: 'ctx://resources/shared/other.md' }, r.carol), 404, 'NOT_FOUND');
    await expectError(r.unlink({ from_uri: 'ctx://resources/shared/other.md', to_uri: 'ctx://resources/shared/open.md' }, r.carol), 404, 'NOT_FOUND');
    const g = await r.graph({ space_uris: ['ctx://resources'], output_uri: 'ctx://resources/g.html' }, r.carol);
    expect(g.status).toBe(200);
    expect((await graphData('globex', 'resources/g.html')).nodes).toEqual([]);
    // acme's sidecars are untouched by globex's calls.
    expect((await r.list('ctx://resources/shared/open.md', r.admin)).json().result).toHaveLength(3);
    expect(await r.t.app.vfs.stat('acme', 'resources/g.html')).toBeNull();
  });
});

describe('a USER and another user’s namespace', () => {
  const bobsUri = 'ctx://user/bob/memories/b1.md';
  it('cannot link from, to, list, unlink or graph it', async () => {
    await expectError(r.link({ from_uri: bobsUri, to_uris: 'ctx://resources/shared/open.md' }, r.alice), 403, 'PERMISSION_DENIED');
    await expectError(r.link({ from_uri: 'ctx://resources/shared/other.md', to_uris: [bobsUri] }, r.alice), 403, 'PERMISSION_DENIED');
    await expectError(r.link({ from_uri: 'ctx://resources/shared/other.md', to_uris: ['ctx://user/bob/memories/none.md'] }, r.alice), 403, 'PERMISSION_DENIED');
    await expectError(r.list(bobsUri, r.alice), 403, 'PERMISSION_DENIED');
    await expectError(r.list('ctx://user/bob/memories/none.md', r.alice), 403, 'PERMISSION_DENIED');
    await expectError(r.unlink({ from_uri: bobsUri, to_uri: 'ctx://resources/shared/open.md' }, r.alice), 403, 'PERMISSION_DENIED');
    await expectError(r.graph({ space_uris: ['ctx://user/bob/memories'], output_uri: 'ctx://resources/g.html' }, r.alice), 403, 'PERMISSION_DENIED');
    await expectError(r.graph({ space_uris: ['ctx://~/memories'], output_uri: 'ctx://user/bob/resources/g.html' }, r.alice), 403, 'PERMISSION_DENIED');
    expect(await r.t.app.vfs.stat('acme', 'user/bob/resources/g.html')).toBeNull();
    expect((await r.list(bobsUri, r.bob)).json().result).toEqual([{ uri: 'ctx://resources/shared/open.md', reason: 'admin made' }]);
  });

  it('listing a shared source leaves out targets the caller cannot read', async () => {
    const forAlice = (await r.list('ctx://resources/shared/open.md', r.alice)).json().result.map((x: { uri: string }) => x.uri);
    expect(forAlice).toEqual(['ctx://resources/shared/other.md']);
    const forBob = (await r.list('ctx://resources/shared/open.md', r.bob)).json().result.map((x: { uri: string }) => x.uri);
    expect(forBob.sort()).toEqual(['ctx://resources/shared/other.md', 'ctx://resources/team/secret/plan.md', bobsUri].sort());
  });

  it('a graph of shared resources holds no unreadable node', async () => {
    const g = await r.graph({ space_uris: ['ctx://resources'], output_uri: 'ctx://resources/graphs/alice.html' }, r.alice);
    expect(g.status).toBe(200);
    const data = await graphData('acme', 'resources/graphs/alice.html');
    const uris = data.nodes.map((n) => n.uri);
    expect(uris.sort()).toEqual(['ctx://resources/shared/open.md', 'ctx://resources/shared/other.md']);
    const html = (await r.t.app.vfs.readFile('acme', 'resources/graphs/alice.html')).toString('utf8');
    expect(html).not.toContain('user/bob');
    expect(html).not.toContain('secret');
  });

  it('ctx://~ resolves to the caller: alice and bob each see their own', async () => {
    expect((await r.list('ctx://~/memories/a1.md', r.alice)).json().result).toEqual([{ uri: 'ctx://user/alice/memories/a2.md', reason: 'admin made' }]);
    await expectError(r.list('ctx://~/memories/a1.md', r.bob), 404, 'NOT_FOUND');
  });
});

describe('peer view and access: denied entries', () => {
  it('a peer view cannot use another peer’s data', async () => {
    const p1: Headers = { ...r.alice, 'x-ctx-actor-peer': 'p1' };
    expect((await r.link({ from_uri: 'ctx://~/peers/p1/memories/x.md', to_uris: 'ctx://resources/shared/other.md' }, p1)).status).toBe(200);
    await expectError(r.link({ from_uri: 'ctx://~/peers/p2/memories/y.md', to_uris: 'ctx://resources/shared/other.md' }, p1), 403, 'PERMISSION_DENIED');
    await expectError(r.link({ from_uri: 'ctx://~/peers/p1/memories/x.md', to_uris: 'ctx://~/peers/p2/memories/y.md' }, p1), 403, 'PERMISSION_DENIED');
    await expectError(r.list('ctx://~/peers/p2/memories/y.md', p1), 403, 'PERMISSION_DENIED');
  });

  it('entries a user may not read are 403 on every route, and their relations stay hidden', async () => {
    const secret = 'ctx://resources/team/secret';
    await expectError(r.list(secret, r.alice), 403, 'PERMISSION_DENIED');
    await expectError(r.list(`${secret}/plan.md`, r.alice), 403, 'PERMISSION_DENIED');
    await expectError(r.link({ from_uri: `${secret}/plan.md`, to_uris: 'ctx://resources/team/open.md' }, r.alice), 403, 'PERMISSION_DENIED');
    await expectError(r.link({ from_uri: 'ctx://resources/team/open.md', to_uris: `${secret}/plan.md` }, r.alice), 403, 'PERMISSION_DENIED');
    await expectError(r.unlink({ from_uri: secret, to_uri: 'ctx://resources/team/open.md' }, r.alice), 403, 'PERMISSION_DENIED');
    await expectError(r.graph({ space_uris: [secret], output_uri: 'ctx://resources/g2.html' }, r.alice), 403, 'PERMISSION_DENIED');
    await expectError(r.graph({ space_uris: ['ctx://resources/team'], output_uri: `${secret}/g.html` }, r.alice), 403, 'PERMISSION_DENIED');
    // Bob, a reader, sees the relation.
    expect((await r.list(secret, r.bob)).json().result).toEqual([{ uri: 'ctx://resources/team/open.md', reason: 'admin made' }]);
    const g = await r.graph({ space_uris: ['ctx://resources/team'], output_uri: 'ctx://resources/graphs/team.html' }, r.alice);
    expect(g.status).toBe(200);
    expect((await graphData('acme', 'resources/graphs/team.html')).nodes).toEqual([]);
  });
});

describe('encoded tricks and traversal', () => {
  const tricks = [
    'ctx://resources/shared/../../user/bob/memories/b1.md',
    'ctx://resources/shared/%2e%2e/x',
    'ctx://resources/shared%2f..%2fuser',
    'ctx://resources/shared/\u0000.md',
    'ctx://resources\\shared\\open.md',
    'ctx://user/memories/a1.md',
    'ctx://queue/x',
    'CTX://resources/shared/open.md',
    'ctx:///resources',
  ];
  for (const uri of tricks)
    it(`refuses ${JSON.stringify(uri)} on every route`, async () => {
      for (const res of [
        r.link({ from_uri: uri, to_uris: 'ctx://resources/shared/other.md' }, r.alice),
        r.link({ from_uri: 'ctx://resources/shared/other.md', to_uris: [uri] }, r.alice),
        r.list(uri, r.alice),
        r.unlink({ from_uri: uri, to_uri: 'ctx://resources/shared/other.md' }, r.alice),
        r.graph({ space_uris: [uri], output_uri: 'ctx://resources/g3.html' }, r.alice),
        r.graph({ space_uris: ['ctx://resources/shared'], output_uri: uri }, r.alice),
      ]) {
        const out = await res;
        // A literal ".." segment is a denied access; every other trick is a malformed URI.
        if (uri.includes('/../')) expect(out.json().error.code).toBe('PERMISSION_DENIED');
        else {
          expect(out.status).toBe(400);
          expect(['INVALID_URI', 'INVALID_ARGUMENT']).toContain(out.json().error.code);
        }
      }
      expect(await r.t.app.vfs.stat('acme', 'resources/g3.html')).toBeNull();
    });
});
