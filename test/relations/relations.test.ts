/**
 * Relations routes over the real pipeline and RocksDB: link (string or array), list, unlink,
 * build_graph output, where relations are stored, how they follow a moved or removed source, and
 * every error path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relApp, type RelApp } from './helpers.js';

let r: RelApp;
const expectCode = async (res: Promise<{ status: number; json(): any }>, status: number, code: string) => {
  const out = await res;
  expect(out.status).toBe(status);
  expect(out.json().error.code).toBe(code);
};

beforeAll(async () => {
  r = await relApp();
  await r.put('acme', 'resources/docs/a.md', '# A');
  await r.put('acme', 'resources/docs/b.md', '# B');
  await r.put('acme', 'resources/docs/sub/c.md', '# C');
  await r.put('acme', 'resources/other/d.md', '# D');
  await r.put('acme', 'user/alice/memories/m1.md', 'memory one');
  await r.put('acme', 'user/alice/memories/m2.md', 'memory two');
});
afterAll(() => r.t.close());

describe('link, list, unlink', () => {
  it('links a file to one URI given as a string', async () => {
    const res = await r.link({ from_uri: 'ctx://resources/docs/a.md', to_uris: 'ctx://resources/docs/b.md', reason: 'see also' }, r.alice);
    expect(res.status).toBe(200);
    expect(res.json().result).toEqual({ from: 'ctx://resources/docs/a.md', to: ['ctx://resources/docs/b.md'] });
    const l = await r.list('ctx://resources/docs/a.md', r.alice);
    expect(l.status).toBe(200);
    expect(l.json().result).toEqual([{ uri: 'ctx://resources/docs/b.md', reason: 'see also' }]);
  });

  it('links a directory to several URIs (array, duplicates folded, canonical spelling, default reason)', async () => {
    const res = await r.link({ from_uri: 'ctx://resources/docs/', to_uris: ['ctx://resources/other', 'ctx://resources/other/', 'ctx://resources/other/d.md', 'ctx://~/memories/m1.md'] }, r.alice);
    expect(res.status).toBe(200);
    expect(res.json().result).toEqual({ from: 'ctx://resources/docs', to: ['ctx://resources/other', 'ctx://resources/other/d.md', 'ctx://user/alice/memories/m1.md'] });
    const l = (await r.list('ctx://resources/docs', r.alice)).json().result;
    expect(l).toEqual([
      { uri: 'ctx://resources/other', reason: '' },
      { uri: 'ctx://resources/other/d.md', reason: '' },
      { uri: 'ctx://user/alice/memories/m1.md', reason: '' },
    ]);
    // The directory's and its child file's relations share one sidecar but stay apart.
    expect((await r.list('ctx://resources/docs/a.md', r.alice)).json().result).toHaveLength(1);
    expect((await r.list('ctx://resources/docs/b.md', r.alice)).json().result).toEqual([]);
  });

  it('linking again replaces the reason without duplicating', async () => {
    await r.link({ from_uri: 'ctx://resources/docs/a.md', to_uris: ['ctx://resources/docs/b.md'], reason: 'updated' }, r.alice);
    expect((await r.list('ctx://resources/docs/a.md', r.alice)).json().result).toEqual([{ uri: 'ctx://resources/docs/b.md', reason: 'updated' }]);
  });

  it('stores relations in the .relations.json sidecar, which content/write refuses', async () => {
    const raw = JSON.parse((await r.t.app.vfs.readFile('acme', 'resources/docs/.relations.json')).toString('utf8'));
    expect(raw.format).toBe(1);
    expect(raw.relations.map((x: { source: string; uri: string }) => `${x.source}->${x.uri}`).sort()).toEqual([
      '->ctx://resources/other',
      '->ctx://resources/other/d.md',
      '->ctx://user/alice/memories/m1.md',
      'a.md->ctx://resources/docs/b.md',
    ]);
    const w = await r.t.req({ method: 'POST', url: '/api/v1/content/write', headers: r.alice, body: { uri: 'ctx://resources/docs/.relations.json', content: '{}' } });
    expect(w.status).toBe(400);
  });

  it('unlink removes one relation; a missing relation is NOT_FOUND', async () => {
    const u = await r.unlink({ from_uri: 'ctx://resources/docs', to_uri: 'ctx://resources/other/' }, r.alice);
    expect(u.status).toBe(200);
    expect(u.json().result).toEqual({ from: 'ctx://resources/docs', to: 'ctx://resources/other' });
    expect((await r.list('ctx://resources/docs', r.alice)).json().result.map((x: { uri: string }) => x.uri)).toEqual(['ctx://resources/other/d.md', 'ctx://user/alice/memories/m1.md']);
    const again = await r.unlink({ from_uri: 'ctx://resources/docs', to_uri: 'ctx://resources/other' }, r.alice);
    expect(again.status).toBe(404);
    expect(again.json().error.code).toBe('NOT_FOUND');
  });

  it('unlinking the last relation removes the sidecar', async () => {
    await r.put('acme', 'resources/solo/x.md');
    await r.link({ from_uri: 'ctx://resources/solo/x.md', to_uris: 'ctx://resources/docs/b.md' }, r.alice);
    expect(await r.t.app.vfs.stat('acme', 'resources/solo/.relations.json')).not.toBeNull();
    await r.unlink({ from_uri: 'ctx://resources/solo/x.md', to_uri: 'ctx://resources/docs/b.md' }, r.alice);
    expect(await r.t.app.vfs.stat('acme', 'resources/solo/.relations.json')).toBeNull();
  });

  it('a dangling relation (target removed) is listed and can still be unlinked', async () => {
    await r.put('acme', 'resources/tmp/gone.md');
    await r.link({ from_uri: 'ctx://resources/docs/b.md', to_uris: 'ctx://resources/tmp/gone.md' }, r.alice);
    await r.t.app.vfs.rm('acme', 'resources/tmp/gone.md');
    expect((await r.list('ctx://resources/docs/b.md', r.alice)).json().result).toEqual([{ uri: 'ctx://resources/tmp/gone.md', reason: '' }]);
    expect((await r.unlink({ from_uri: 'ctx://resources/docs/b.md', to_uri: 'ctx://resources/tmp/gone.md' }, r.alice)).status).toBe(200);
  });

  it('relations survive a restart', async () => {
    await r.t.restart();
    expect((await r.list('ctx://resources/docs/a.md', r.alice)).json().result).toEqual([{ uri: 'ctx://resources/docs/b.md', reason: 'updated' }]);
  });

  it('concurrent links on one sidecar lose nothing', async () => {
    await r.put('acme', 'resources/many/src.md');
    const targets = Array.from({ length: 20 }, (_, i) => `resources/many/t${i}.md`);
    for (const p of targets) await r.put('acme', p);
    const res = await Promise.all(targets.map((p, i) => r.link({ from_uri: 'ctx://resources/many/src.md', to_uris: `ctx://${p}`, reason: `r${i}` }, r.alice)));
    expect(res.every((x) => x.status === 200)).toBe(true);
    const l = (await r.list('ctx://resources/many/src.md', r.alice)).json().result;
    expect(l).toHaveLength(20);
  });
});

describe('roles and races', () => {
  it('the account root takes relations from ADMIN only; an unwritten scope root works as a source', async () => {
    await expectCode(r.link({ from_uri: 'ctx://', to_uris: 'ctx://resources/docs/a.md' }, r.alice), 403, 'PERMISSION_DENIED');
    expect((await r.link({ from_uri: 'ctx://', to_uris: 'ctx://resources/docs/a.md' }, r.admin)).status).toBe(200);
    expect((await r.list('ctx://', r.alice)).json().result).toEqual([{ uri: 'ctx://resources/docs/a.md', reason: '' }]);
    expect((await r.link({ from_uri: 'ctx://~/memories', to_uris: 'ctx://resources/docs/a.md' }, r.alice)).status).toBe(200);
    expect((await r.list('ctx://user/alice/memories', r.admin)).json().result).toHaveLength(1);
  });

  it('a link racing the removal of its source directory never re-creates it', async () => {
    for (let i = 0; i < 8; i++) {
      const dir = `resources/race${i}`;
      await r.put('acme', `${dir}/f.md`);
      const [link, rm] = await Promise.all([
        r.link({ from_uri: `ctx://${dir}`, to_uris: 'ctx://resources/docs/a.md' }, r.alice),
        r.t.req({ method: 'DELETE', url: `/api/v1/fs?uri=ctx://${dir}&recursive=true`, headers: r.alice }),
      ]);
      expect(rm.status).toBe(200);
      expect([200, 404]).toContain(link.status);
      expect(await r.t.app.vfs.stat('acme', dir)).toBeNull();
      expect(await r.t.app.vfs.stat('acme', `${dir}/.relations.json`)).toBeNull();
    }
  });
});

describe('relations follow their source', () => {
  it('a moved directory keeps its relations; the old path has none', async () => {
    await r.put('acme', 'resources/mvdir/inner.md');
    await r.link({ from_uri: 'ctx://resources/mvdir', to_uris: 'ctx://resources/docs/a.md', reason: 'dir rel' }, r.alice);
    await r.link({ from_uri: 'ctx://resources/mvdir/inner.md', to_uris: 'ctx://resources/docs/b.md', reason: 'file rel' }, r.alice);
    const mv = await r.t.req({ method: 'POST', url: '/api/v1/fs/mv', headers: r.alice, body: { from_uri: 'ctx://resources/mvdir', to_uri: 'ctx://resources/moved' } });
    expect(mv.status).toBe(200);
    expect((await r.list('ctx://resources/moved', r.alice)).json().result).toEqual([{ uri: 'ctx://resources/docs/a.md', reason: 'dir rel' }]);
    expect((await r.list('ctx://resources/moved/inner.md', r.alice)).json().result).toEqual([{ uri: 'ctx://resources/docs/b.md', reason: 'file rel' }]);
    expect((await r.list('ctx://resources/mvdir', r.alice)).status).toBe(404);
  });

  it('a moved file takes its relations to its new directory', async () => {
    await r.put('acme', 'resources/mvfile/f.md');
    await r.put('acme', 'resources/mvfile/keep.md');
    await r.link({ from_uri: 'ctx://resources/mvfile/f.md', to_uris: 'ctx://resources/docs/a.md', reason: 'travels' }, r.alice);
    await r.link({ from_uri: 'ctx://resources/mvfile/keep.md', to_uris: 'ctx://resources/docs/a.md', reason: 'stays' }, r.alice);
    const mv = await r.t.req({ method: 'POST', url: '/api/v1/fs/mv', headers: r.alice, body: { from_uri: 'ctx://resources/mvfile/f.md', to_uri: 'ctx://resources/elsewhere/g.md' } });
    expect(mv.status).toBe(200);
    const moved = await r.listUntil('ctx://resources/elsewhere/g.md', r.alice, (x) => x.length === 1);
    expect(moved).toEqual([{ uri: 'ctx://resources/docs/a.md', reason: 'travels' }]);
    expect((await r.list('ctx://resources/mvfile/keep.md', r.alice)).json().result).toEqual([{ uri: 'ctx://resources/docs/a.md', reason: 'stays' }]);
    const old = JSON.parse((await r.t.app.vfs.readFile('acme', 'resources/mvfile/.relations.json')).toString('utf8'));
    expect(old.relations.map((x: { source: string }) => x.source)).toEqual(['keep.md']);
  });

  it('a file renamed within its directory keeps its relations; the directory’s own stay put', async () => {
    await r.put('acme', 'resources/ren/old.md');
    await r.link({ from_uri: 'ctx://resources/ren', to_uris: 'ctx://resources/docs/b.md', reason: 'dir' }, r.alice);
    await r.link({ from_uri: 'ctx://resources/ren/old.md', to_uris: 'ctx://resources/docs/a.md', reason: 'file' }, r.alice);
    const mv = await r.t.req({ method: 'POST', url: '/api/v1/fs/mv', headers: r.alice, body: { from_uri: 'ctx://resources/ren/old.md', to_uri: 'ctx://resources/ren/new.md' } });
    expect(mv.status).toBe(200);
    expect(await r.listUntil('ctx://resources/ren/new.md', r.alice, (x) => x.length === 1)).toEqual([{ uri: 'ctx://resources/docs/a.md', reason: 'file' }]);
    expect((await r.list('ctx://resources/ren', r.alice)).json().result).toEqual([{ uri: 'ctx://resources/docs/b.md', reason: 'dir' }]);
    const raw = JSON.parse((await r.t.app.vfs.readFile('acme', 'resources/ren/.relations.json')).toString('utf8'));
    expect(raw.relations.map((x: { source: string }) => x.source).sort()).toEqual(['', 'new.md']);
  });

  it('a removed file loses its relations, and a new file at its path does not inherit them', async () => {
    await r.put('acme', 'resources/rmfile/f.md');
    await r.link({ from_uri: 'ctx://resources/rmfile/f.md', to_uris: 'ctx://resources/docs/a.md' }, r.alice);
    const rm = await r.t.req({ method: 'DELETE', url: '/api/v1/fs?uri=ctx://resources/rmfile/f.md', headers: r.alice });
    expect(rm.status).toBe(200);
    await r.put('acme', 'resources/rmfile/f.md', 'new file');
    expect((await r.list('ctx://resources/rmfile/f.md', r.alice)).json().result).toEqual([]);
  });

  it('a removed directory takes its sidecar with it', async () => {
    await r.put('acme', 'resources/rmdir/f.md');
    await r.link({ from_uri: 'ctx://resources/rmdir', to_uris: 'ctx://resources/docs/a.md' }, r.alice);
    await r.t.req({ method: 'DELETE', url: '/api/v1/fs?uri=ctx://resources/rmdir&recursive=true', headers: r.alice });
    expect(await r.t.app.vfs.stat('acme', 'resources/rmdir/.relations.json')).toBeNull();
    await r.put('acme', 'resources/rmdir/f.md');
    expect((await r.list('ctx://resources/rmdir', r.alice)).json().result).toEqual([]);
  });
});

describe('build_graph', () => {
  it('writes a self-contained HTML graph of the merged spaces to output_uri', async () => {
    await r.link({ from_uri: 'ctx://~/memories/m1.md', to_uris: ['ctx://~/memories/m2.md', 'ctx://resources/docs/a.md'], reason: 'why <b>not</b>' }, r.alice);
    const res = await r.graph({ space_uris: ['ctx://~/memories', 'ctx://resources/docs'], output_uri: 'ctx://resources/graphs/rel.html' }, r.alice);
    expect(res.status).toBe(200);
    expect(res.json().result).toEqual({ graph_uri: 'ctx://resources/graphs/rel.html' });
    const html = (await r.t.app.vfs.readFile('acme', 'resources/graphs/rel.html')).toString('utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    // Nothing fetched from anywhere: no src/href attributes, no URLs, a CSP forbidding it all.
    expect(html).not.toMatch(/\s(src|href)=/i);
    // (the SVG namespace name is an identifier, never fetched)
    expect(html.replaceAll("'http://www.w3.org/2000/svg'", '')).not.toMatch(/https?:\/\//);
    expect(html).toContain("default-src 'none'");
    // Stored text cannot close the data block.
    expect(html).not.toContain('<b>not</b>');
    const data = JSON.parse(html.match(/<script type="application\/json" id="ctx-graph-data">([\s\S]*?)<\/script>/)![1]!);
    const uris = data.nodes.map((n: { uri: string }) => n.uri).sort();
    expect(uris).toEqual(['ctx://resources/docs', 'ctx://resources/docs/a.md', 'ctx://resources/docs/b.md', 'ctx://resources/other/d.md', 'ctx://user/alice/memories', 'ctx://user/alice/memories/m1.md', 'ctx://user/alice/memories/m2.md']);
    // docs -> d.md, docs -> m1, a -> b, memories -> a, m1 -> m2, m1 -> a (the account root's relation is outside both spaces)
    expect(data.edges).toHaveLength(6);
    expect(data.edges.find((e: { reason: string }) => e.reason === 'why <b>not</b>')).toBeTruthy();
    expect(data.spaces).toEqual(['ctx://user/alice/memories', 'ctx://resources/docs']);
  });

  it('an empty space gives a graph with no nodes; the output is replaced on a second build', async () => {
    await r.put('acme', 'resources/empty/x.md');
    const res = await r.graph({ space_uris: ['ctx://resources/empty'], output_uri: 'ctx://resources/graphs/rel.html' }, r.alice);
    expect(res.status).toBe(200);
    const html = (await r.t.app.vfs.readFile('acme', 'resources/graphs/rel.html')).toString('utf8');
    const data = JSON.parse(html.match(/id="ctx-graph-data">([\s\S]*?)<\/script>/)![1]!);
    expect(data.nodes).toEqual([]);
  });

  it('rejects bad spaces and outputs with the spec codes', async () => {
    const cases: Array<[unknown, number, string, string?]> = [
      [{ space_uris: [], output_uri: 'ctx://resources/g.html' }, 400, 'INVALID_ARGUMENT', 'space_uris'],
      [{ space_uris: 'ctx://resources', output_uri: 'ctx://resources/g.html' }, 400, 'INVALID_ARGUMENT', 'space_uris'],
      [{ space_uris: ['ctx://resources'] }, 400, 'INVALID_ARGUMENT', 'output_uri'],
      [{ space_uris: ['ctx://resources'], output_uri: 'ctx://resources/g.html', x: 1 }, 400, 'INVALID_ARGUMENT', 'x'],
      [{ space_uris: ['ctx://resources/nope'], output_uri: 'ctx://resources/g.html' }, 404, 'NOT_FOUND'],
      [{ space_uris: ['ctx://resources/docs/a.md'], output_uri: 'ctx://resources/g.html' }, 400, 'INVALID_ARGUMENT', 'space_uris[0]'],
      [{ space_uris: ['ctx://resources'], output_uri: 'ctx://resources/docs' }, 400, 'INVALID_ARGUMENT'],
      [{ space_uris: ['ctx://resources'], output_uri: 'ctx://resources' }, 400, 'INVALID_ARGUMENT', 'output_uri'],
      [{ space_uris: ['ctx://resources'], output_uri: 'ctx://resources/docs/.relations.json' }, 400, 'INVALID_ARGUMENT', 'output_uri'],
      [{ space_uris: ['ctx://resources'], output_uri: 'ctx://resources/docs/.relations.json/g.html' }, 400, 'INVALID_ARGUMENT', 'output_uri'],
      [{ space_uris: ['ctx://resources'], output_uri: 'ctx://resources/gone/.abstract.md/g.html' }, 400, 'INVALID_ARGUMENT', 'output_uri'],
      [{ space_uris: ['ctx://resources'], output_uri: 'ctx://~/memories/graph.html' }, 400, 'INVALID_ARGUMENT', 'output_uri'],
      [{ space_uris: ['ctx://temp/x'], output_uri: 'ctx://resources/g.html' }, 400, 'INVALID_URI'],
      [{ space_uris: ['ctx://resources'], output_uri: 'ctx://resources/../x.html' }, 403, 'PERMISSION_DENIED', 'output_uri'],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await r.graph(body, r.alice);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.json().error.code, JSON.stringify(body)).toBe(code);
      if (field) expect(res.json().error.details.field, JSON.stringify(body)).toBe(field);
    }
    expect(await r.t.app.vfs.stat('acme', 'resources/gone')).toBeNull();
  });
});

describe('link and unlink errors', () => {
  const cases: Array<[string, unknown, number, string, string?]> = [
    ['missing from_uri', { to_uris: 'ctx://resources/docs/a.md' }, 400, 'INVALID_ARGUMENT', 'from_uri'],
    ['missing to_uris', { from_uri: 'ctx://resources/docs/a.md' }, 400, 'INVALID_ARGUMENT', 'to_uris'],
    ['empty to_uris', { from_uri: 'ctx://resources/docs/a.md', to_uris: [] }, 400, 'INVALID_ARGUMENT', 'to_uris'],
    ['to_uris number', { from_uri: 'ctx://resources/docs/a.md', to_uris: 5 }, 400, 'INVALID_ARGUMENT', 'to_uris'],
    ['to_uris item number', { from_uri: 'ctx://resources/docs/a.md', to_uris: ['ctx://resources/docs/b.md', 7] }, 400, 'INVALID_ARGUMENT', 'to_uris[1]'],
    ['too many targets', { from_uri: 'ctx://resources/docs/a.md', to_uris: Array.from({ length: 257 }, (_, i) => `ctx://resources/t${i}`) }, 400, 'INVALID_ARGUMENT', 'to_uris'],
    ['reason not a string', { from_uri: 'ctx://resources/docs/a.md', to_uris: 'ctx://resources/docs/b.md', reason: 1 }, 400, 'INVALID_ARGUMENT', 'reason'],
    ['reason too long', { from_uri: 'ctx://resources/docs/a.md', to_uris: 'ctx://resources/docs/b.md', reason: 'x'.repeat(4097) }, 400, 'INVALID_ARGUMENT', 'reason'],
    ['unknown field', { from_uri: 'ctx://resources/docs/a.md', to_uris: 'ctx://resources/docs/b.md', weight: 3 }, 400, 'INVALID_ARGUMENT', 'weight'],
    ['missing source', { from_uri: 'ctx://resources/docs/nope.md', to_uris: 'ctx://resources/docs/b.md' }, 404, 'NOT_FOUND', 'from_uri'],
    ['missing target', { from_uri: 'ctx://resources/docs/a.md', to_uris: ['ctx://resources/docs/b.md', 'ctx://resources/docs/nope.md'] }, 404, 'NOT_FOUND', 'to_uris'],
    ['self link', { from_uri: 'ctx://resources/docs/a.md', to_uris: 'ctx://resources/docs/a.md' }, 400, 'INVALID_ARGUMENT', 'to_uris[0]'],
    ['sidecar source', { from_uri: 'ctx://resources/docs/.relations.json', to_uris: 'ctx://resources/docs/b.md' }, 400, 'INVALID_ARGUMENT', 'from_uri'],
    ['sidecar target', { from_uri: 'ctx://resources/docs/a.md', to_uris: 'ctx://resources/docs/.abstract.md' }, 400, 'INVALID_ARGUMENT', 'to_uris[0]'],
    ['internal scope', { from_uri: 'ctx://temp/a', to_uris: 'ctx://resources/docs/b.md' }, 400, 'INVALID_URI'],
    ['not a ctx uri', { from_uri: 'http://example.com/a', to_uris: 'ctx://resources/docs/b.md' }, 400, 'INVALID_URI'],
    ['traversal', { from_uri: 'ctx://resources/docs/../../user/bob', to_uris: 'ctx://resources/docs/b.md' }, 403, 'PERMISSION_DENIED', 'from_uri'],
    ['encoded traversal', { from_uri: 'ctx://resources/docs/%2e%2e/x', to_uris: 'ctx://resources/docs/b.md' }, 400, 'INVALID_URI'],
    ['legacy namespace is read-only', { from_uri: 'ctx://agent/a1/memories/x.md', to_uris: 'ctx://resources/docs/b.md' }, 403, 'PERMISSION_DENIED'],
  ];
  for (const [name, body, status, code, field] of cases)
    it(`link: ${name}`, async () => {
      const res = await r.link(body, r.alice);
      expect(res.status).toBe(status);
      expect(res.json().error.code).toBe(code);
      if (field) expect(res.json().error.details.field).toBe(field);
    });

  it('a failed link writes nothing', async () => {
    const before = (await r.list('ctx://resources/docs/a.md', r.alice)).json().result;
    await r.link({ from_uri: 'ctx://resources/docs/a.md', to_uris: ['ctx://resources/other/d.md', 'ctx://resources/docs/nope.md'] }, r.alice);
    expect((await r.list('ctx://resources/docs/a.md', r.alice)).json().result).toEqual(before);
  });

  it('malformed JSON and oversized bodies', async () => {
    const bad = await r.t.req({ method: 'POST', url: '/api/v1/relations/link', headers: { ...r.alice, 'content-type': 'application/json' }, body: '{"from_uri": ' });
    expect(bad.status).toBe(400);
    expect(bad.json().error.code).toBe('INVALID_ARGUMENT');
    const big = await r.link({ from_uri: 'ctx://resources/docs/a.md', to_uris: 'ctx://resources/docs/b.md', reason: 'x'.repeat(32 * 1024 * 1024) }, r.alice);
    expect(big.status).toBe(413);
  });

  it('unlink errors', async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ from_uri: 'ctx://resources/docs/a.md' }, 400, 'INVALID_ARGUMENT'],
      [{ to_uri: 'ctx://resources/docs/b.md' }, 400, 'INVALID_ARGUMENT'],
      [{ from_uri: 'ctx://resources/docs/a.md', to_uri: ['ctx://resources/docs/b.md'] }, 400, 'INVALID_ARGUMENT'],
      [{ from_uri: 'ctx://resources/docs/a.md', to_uri: 'ctx://resources/docs/b.md', x: 1 }, 400, 'INVALID_ARGUMENT'],
      [{ from_uri: 'ctx://resources/docs/nope.md', to_uri: 'ctx://resources/docs/b.md' }, 404, 'NOT_FOUND'],
      [{ from_uri: 'ctx://resources/docs/a.md', to_uri: 'ctx://resources/other/d.md' }, 404, 'NOT_FOUND'],
      [{ from_uri: 'ctx://resources/docs/a.md', to_uri: 'ctx://queue/x' }, 400, 'INVALID_URI'],
    ];
    for (const [body, status, code] of cases) {
      const res = await r.unlink(body, r.alice);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.json().error.code, JSON.stringify(body)).toBe(code);
    }
  });

  it('list errors', async () => {
    expect((await r.t.req({ url: '/api/v1/relations', headers: r.alice })).status).toBe(400);
    expect((await r.list('ctx://resources/docs/nope.md', r.alice)).status).toBe(404);
    // An unknown query parameter is ignored, not an error.
    expect((await r.t.req({ url: '/api/v1/relations?uri=ctx://resources/docs/a.md&x=1', headers: r.alice })).status).toBe(200);
    expect((await r.list('ctx://temp/x', r.alice)).json().error.code).toBe('INVALID_URI');
    expect((await r.list('ctx://resources/docs/a.md', {})).status).toBe(401);
  });
});
