import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, setup, uris, wait, write, type Ctx } from './helpers.js';

let c: Ctx;
let globex: { admin: Record<string, string>; carol: Record<string, string> };
const FIND = '/api/v1/search/find';

beforeAll(async () => {
  c = await setup();
  const { t, admin, alice, bob } = c;
  await write(t, admin, 'ctx://resources/kb/databases/postgres-vacuum.md', '# Vacuuming Postgres\n\nAutovacuum reclaims dead tuples. Tune autovacuum_vacuum_scale_factor for large tables.');
  await write(t, admin, 'ctx://resources/kb/databases/redis-eviction.md', '# Redis eviction\n\nThe maxmemory policy allkeys-lru evicts least recently used keys.', { tags: ['team=cache'] });
  await write(t, admin, 'ctx://resources/kb/frontend/react-hooks.md', '# React hooks\n\nuseEffect runs after render; useMemo caches computed values.');
  await write(t, alice, 'ctx://user/alice/memories/preferences/editor.md', 'Alice prefers the vim editor with a dark solarized theme.');
  await write(t, bob, 'ctx://user/bob/memories/preferences/editor.md', 'Bob prefers the emacs editor with a solarized theme and org mode.');
  await write(t, alice, 'ctx://user/alice/skills/deploy-app/SKILL.md', '---\nname: deploy-app\ndescription: Deploy the app with a rolling rollout\n---\n# Deploy app\n\nRun the rollout script.');
  await write(t, alice, 'ctx://user/alice/peers/p1/memories/notes.md', 'Peer p1 remembers the solarized palette hex codes.');
  await write(t, alice, 'ctx://user/alice/peers/p2/memories/notes.md', 'Peer p2 remembers the solarized terminal setup.');
  await wait(t);
  const other = await t.account('globex', ['carol']);
  globex = { admin: other.admin, carol: other.users.carol! };
  await write(t, other.admin, 'ctx://resources/kb/postgres-secret.md', 'Globex secret: autovacuum tuning for postgres tables at globex.');
  await write(t, other.users.carol!, 'ctx://user/alice/memories/x.md', 'should fail').catch(() => {});
  // Same words as acme's memories, so only the account boundary keeps them apart.
  await write(t, other.users.carol!, 'ctx://user/carol/memories/preferences/globex-carol.md', 'Carol at Globex prefers the vim editor with a dark solarized theme too.');
  await wait(t);
});
afterAll(async () => {
  await c.t.close();
});

describe('find', () => {
  it('write → wait → find returns it, grouped, with every MatchedContext field', async () => {
    const r = await post(c.t, c.alice, FIND, { query: 'postgres autovacuum dead tuples' });
    expect(r.status).toBe(200);
    const res = r.body.result;
    expect(res.resources[0].uri).toBe('ctx://resources/kb/databases/postgres-vacuum.md');
    const m = res.resources[0];
    expect(Object.keys(m).sort()).toEqual(['abstract', 'category', 'context_type', 'is_leaf', 'level', 'match_reason', 'overview', 'relations', 'score', 'uri'].sort());
    expect(m).toMatchObject({ context_type: 'resource', level: 2, is_leaf: true, overview: null });
    expect(m.abstract).toContain('Vacuuming Postgres');
    expect(m.score).toBeGreaterThan(0);
    expect(m.score).toBeLessThanOrEqual(1);
    expect(m.match_reason).toMatch(/L2 content similarity .*shared terms: .*autovacuum/);
    expect(res.total).toBe(res.memories.length + res.resources.length + res.skills.length);
    for (const x of [...res.memories, ...res.resources, ...res.skills]) expect(x.score).toBeGreaterThanOrEqual(0);
  });

  it('directories with a real description are hits too (L0/L1 with abstract and overview) and provenance shows expansions', async () => {
    // The extractive text of kb/databases only lists its children: no hit (docs/retrieval.md,
    // "Directory records"); an author-written abstract makes it one.
    let r = await post(c.t, c.admin, FIND, { query: 'databases', target_uri: 'ctx://resources/kb', limit: 5 });
    expect(r.body.result.resources.find((m: any) => m.uri === 'ctx://resources/kb/databases')).toBeUndefined();
    await write(c.t, c.admin, 'ctx://resources/kb/databases/.abstract.md', 'Databases: how we run Postgres vacuuming and Redis eviction.');
    await wait(c.t);
    r = await post(c.t, c.admin, FIND, { query: 'databases', target_uri: 'ctx://resources/kb', include_provenance: true, limit: 5 });
    const dir = r.body.result.resources.find((m: any) => m.uri === 'ctx://resources/kb/databases');
    expect(dir).toBeDefined();
    expect(dir.level).toBe(0);
    expect(dir.abstract).toContain('how we run Postgres');
    expect(dir.overview).toContain('postgres-vacuum.md');
    expect(dir.is_leaf).toBe(false);
    const p = r.body.result.provenance;
    expect(p.targets).toEqual(['ctx://resources/kb']);
    expect(p.expanded.length).toBeGreaterThan(0);
    expect(p.expanded[0]).toMatchObject({ uri: expect.stringMatching(/^ctx:\/\/resources\/kb/), score: expect.any(Number) });
    expect(['stable', 'max_expansions', 'frontier_exhausted', 'frontier_below_topk']).toContain(p.stop_reason);
  });

  it('context_type, level, tags, limit/node_limit, score_threshold, read_content', async () => {
    let r = await post(c.t, c.alice, FIND, { query: 'solarized editor theme', context_type: 'memory' });
    expect(r.body.result.resources).toEqual([]);
    expect(uris(r.body.result)).toContain('ctx://user/alice/memories/preferences/editor.md');
    expect(r.body.result.memories.find((m: any) => m.uri.endsWith('preferences/editor.md')).category).toBe('preferences');
    r = await post(c.t, c.alice, FIND, { query: 'deploy rollout', context_type: ['skill'], level: '2' });
    expect(uris(r.body.result)).toEqual(['ctx://user/alice/skills/deploy-app/SKILL.md']);
    expect(r.body.result.skills[0].category).toBe('deploy-app');
    r = await post(c.t, c.admin, FIND, { query: 'eviction', tags: ['team=cache'] });
    expect(uris(r.body.result)).toEqual(['ctx://resources/kb/databases/redis-eviction.md']);
    r = await post(c.t, c.admin, FIND, { query: 'eviction', tags: ['team=cache', 'x=y'] });
    expect(r.body.result.total).toBe(0);
    r = await post(c.t, c.admin, FIND, { query: 'kb', limit: 10, node_limit: 2 });
    expect(r.body.result.total).toBe(2);
    // A threshold between the scores keeps exactly the hits at or above it (the best lexical match
    // may score 1: with the lexical embedder a document holding every query word ranks by BM25 alone).
    r = await post(c.t, c.admin, FIND, { query: 'postgres autovacuum' });
    const scores: number[] = [...r.body.result.memories, ...r.body.result.resources, ...r.body.result.skills].map((h: any) => h.score);
    const cut = (Math.max(...scores) + Math.min(...scores)) / 2;
    expect(Math.max(...scores)).toBeGreaterThan(Math.min(...scores));
    r = await post(c.t, c.admin, FIND, { query: 'postgres autovacuum', score_threshold: cut });
    expect(r.body.result.total).toBe(scores.filter((s) => s >= cut).length);
    expect(r.body.result.total).toBeLessThan(scores.length);
    r = await post(c.t, c.admin, FIND, { query: 'react hooks useEffect', read_content: true, limit: 1, level: 2 });
    expect(r.body.result.resources[0].content).toContain('useMemo caches computed values.');
  });

  it('tags follow the write side\'s rule; an empty value (k=) is a valid tag and matches exactly', async () => {
    await write(c.t, c.admin, 'ctx://resources/kb/flags/draft.md', 'Draft notes about the narwhal migration.', { tags: ['draft=', 'team=sea'] });
    await wait(c.t);
    let r = await post(c.t, c.admin, FIND, { query: 'narwhal migration', tags: ['draft='] });
    expect(r.status).toBe(200);
    expect(uris(r.body.result)).toEqual(['ctx://resources/kb/flags/draft.md']);
    r = await post(c.t, c.admin, FIND, { query: 'narwhal migration', tags: ['draft=yes'] });
    expect(r.body.result.total).toBe(0);
    r = await post(c.t, c.admin, FIND, { query: 'narwhal migration', filter: { tags: { $all: ['draft=', 'team=sea'] } } });
    expect(uris(r.body.result)).toEqual(['ctx://resources/kb/flags/draft.md']);
    // Everything a write refuses, find refuses too (400 naming the entry), instead of matching nothing.
    for (const bad of ['k\u0001=v', 'k=v ', ' k=v', '=v', 'k', 'k=v\u007f', 'k=v\n']) {
      const w = await c.t.req({ method: 'POST', url: '/api/v1/content/write', headers: c.admin, body: { uri: 'ctx://resources/kb/flags/x.md', content: 'x', tags: [bad] } });
      expect(w.status, `write ${JSON.stringify(bad)}`).toBe(400);
      const f = await post(c.t, c.admin, FIND, { query: 'x', tags: ['ok=1', bad] });
      expect(f.status, `find ${JSON.stringify(bad)}`).toBe(400);
      expect(f.body.error!.details?.field).toBe('tags[1]');
      const g = await post(c.t, c.admin, FIND, { query: 'x', filter: { tags: bad } });
      expect(g.status, `filter ${JSON.stringify(bad)}`).toBe(400);
      expect(g.body.error!.details?.at).toBe('$.tags.$eq');
    }
  });

  it('since/until with time_field, relative and absolute', async () => {
    let r = await post(c.t, c.admin, FIND, { query: 'postgres', since: '1h' });
    expect(r.body.result.total).toBeGreaterThan(0);
    r = await post(c.t, c.admin, FIND, { query: 'postgres', until: '2001-01-01', time_field: 'created_at' });
    expect(r.body.result.total).toBe(0);
    r = await post(c.t, c.admin, FIND, { query: 'postgres', since: '2001-01-01T00:00:00', until: '2999-01-01T00:00:00+02:00' });
    expect(r.body.result.total).toBeGreaterThan(0);
  });

  it('filter language: $or, $in, uri $prefix/$not_prefix, time operators', async () => {
    let r = await post(c.t, c.admin, FIND, { query: 'database', filter: { level: 2, uri: { $prefix: 'ctx://resources/kb/databases' } } });
    expect(uris(r.body.result).sort()).toEqual(['ctx://resources/kb/databases/postgres-vacuum.md', 'ctx://resources/kb/databases/redis-eviction.md']);
    r = await post(c.t, c.admin, FIND, {
      query: 'react redis',
      filter: { level: 2, $or: [{ tags: 'team=cache' }, { uri: { $prefix: 'ctx://resources/kb/frontend' } }] },
    });
    expect(uris(r.body.result).sort()).toEqual(['ctx://resources/kb/databases/redis-eviction.md', 'ctx://resources/kb/frontend/react-hooks.md']);
    r = await post(c.t, c.admin, FIND, { query: 'postgres', filter: { level: { $in: [2] }, uri: { $not_prefix: 'ctx://resources/kb/databases' }, updated_at: { $gte: '1d' } } });
    expect(uris(r.body.result)).not.toContain('ctx://resources/kb/databases/postgres-vacuum.md');
  });

  it("the reference's filter forms: {type: ...} and its operator tree give the same hits as ctx's grammar", async () => {
    const q = { query: 'solarized editor postgres', limit: 20 };
    const same = async (reference: unknown, ours: unknown) => {
      const a = await post(c.t, c.alice, FIND, { ...q, filter: reference });
      const b = await post(c.t, c.alice, FIND, { ...q, filter: ours });
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      expect(uris(a.body.result).sort()).toEqual(uris(b.body.result).sort());
      return uris(a.body.result);
    };
    const memories = await same({ type: 'memory' }, { context_type: 'memory' });
    expect(memories.length).toBeGreaterThan(0);
    expect(memories.every((u) => u.includes('/memories/'))).toBe(true);
    const resources = await same({ type: 'resource' }, { context_type: 'resource' });
    expect(resources).toContain('ctx://resources/kb/databases/postgres-vacuum.md');
    await same({ op: 'must', field: 'context_type', conds: ['memory', 'skill'] }, { context_type: { $in: ['memory', 'skill'] } });
    await same({ op: 'must_not', field: 'context_type', conds: ['memory'] }, { context_type: { $in: ['resource', 'skill'] } });
    await same(
      { op: 'and', conds: [{ op: 'must', field: 'level', conds: [2] }, { op: 'time_range', field: 'updated_at', gte: '2001-01-01T00:00:00' }] },
      { level: 2, updated_at: { $gte: '2001-01-01T00:00:00' } },
    );
    await same({ op: 'or', conds: [{ type: 'skill' }, { op: 'must', field: 'uri', conds: ['ctx://resources/kb/frontend'] }] }, { $or: [{ context_type: 'skill' }, { uri: { $prefix: 'ctx://resources/kb/frontend' } }] });
    for (const bad of [{ op: 'xor', conds: [] }, { op: 'must', field: 'level' }, { type: 'memory', context_type: 'memory' }, { op: 'time_range', field: 'updated_at' }, { type: 'nothing' }]) {
      const r = await post(c.t, c.alice, FIND, { ...q, filter: bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'filter' } });
    }
  });

  it('home alias target and peer view header', async () => {
    let r = await post(c.t, c.alice, FIND, { query: 'solarized', target_uri: 'ctx://~/memories' });
    const all = uris(r.body.result);
    expect(all).toContain('ctx://user/alice/memories/preferences/editor.md');
    expect(all.every((u) => u.startsWith('ctx://user/alice/memories'))).toBe(true);
    r = await post(c.t, { ...c.alice, 'x-ctx-actor-peer': 'p1' }, FIND, { query: 'solarized palette terminal', target_uri: 'ctx://~/peers' });
    const peers = uris(r.body.result);
    expect(peers.some((u) => u.includes('/peers/p1/'))).toBe(true);
    expect(peers.some((u) => u.includes('/peers/p2/'))).toBe(false);
  });
});

describe('spec rows: target arrays, level lists, time_field, read_content failure, telemetry, peer view, image_url', () => {
  it('target_uri as an array: hits come from every listed prefix and nowhere else', async () => {
    const r = await post(c.t, c.alice, FIND, { query: 'react hooks editor solarized theme', target_uri: ['ctx://resources/kb/frontend', 'ctx://~/memories/preferences'], limit: 50 });
    expect(r.status).toBe(200);
    const got = uris(r.body.result);
    expect(got).toEqual(expect.arrayContaining(['ctx://resources/kb/frontend/react-hooks.md', 'ctx://user/alice/memories/preferences/editor.md']));
    expect(got.every((u) => u.startsWith('ctx://resources/kb/frontend') || u.startsWith('ctx://user/alice/memories/preferences')), got.join(' ')).toBe(true);
    const p = await post(c.t, c.alice, FIND, { query: 'react', target_uri: ['ctx://resources/kb/frontend', 'ctx://~/memories'], include_provenance: true });
    expect(p.body.result.provenance.targets).toEqual(['ctx://resources/kb/frontend', 'ctx://user/alice/memories']);
  });

  it('level "0,1,2" returns files and directories (listings too: directories were asked for); "0,1" only directories; no level leaves listings out', async () => {
    const body = { query: 'databases postgres redis', target_uri: 'ctx://resources/kb', limit: 20 };
    const all = await post(c.t, c.admin, FIND, { ...body, level: '0,1,2' });
    expect(all.status).toBe(200);
    const levels = all.body.result.resources.map((m: any) => m.level);
    expect(levels).toContain(2);
    expect(levels.some((l: number) => l === 0 || l === 1)).toBe(true);
    const unrestricted = uris((await post(c.t, c.admin, FIND, body)).body.result);
    expect(uris(all.body.result)).toEqual(expect.arrayContaining(unrestricted));
    expect(uris(all.body.result)).toContain('ctx://resources/kb/frontend');
    expect(unrestricted).not.toContain('ctx://resources/kb/frontend');
    expect(unrestricted.filter((u) => u.endsWith('.md')).sort()).toEqual(uris(all.body.result).filter((u) => u.endsWith('.md')).sort());
    const dirs = await post(c.t, c.admin, FIND, { ...body, level: '0, 1' });
    expect(dirs.body.result.total).toBeGreaterThan(0);
    expect(dirs.body.result.resources.every((m: any) => m.level !== 2 && m.is_leaf === false)).toBe(true);
  });

  it('time_field tells created_at from updated_at (a file rewritten after `since`)', async () => {
    const uri = 'ctx://resources/kb/timed/lemur.md';
    await write(c.t, c.admin, uri, 'Ring-tailed lemurs sunbathe in the morning.');
    await wait(c.t);
    await new Promise((r) => setTimeout(r, 30));
    const between = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 30));
    await write(c.t, c.admin, uri, 'Ring-tailed lemurs sunbathe in the morning and forage at dusk.');
    await wait(c.t);
    const q = { query: 'ring-tailed lemurs sunbathe', level: 2, target_uri: 'ctx://resources/kb/timed', since: between };
    expect(uris((await post(c.t, c.admin, FIND, { ...q, time_field: 'updated_at' })).body.result)).toEqual([uri]);
    expect(uris((await post(c.t, c.admin, FIND, q)).body.result)).toEqual([uri]);
    expect((await post(c.t, c.admin, FIND, { ...q, time_field: 'created_at' })).body.result.total).toBe(0);
    const { since: _s, ...noSince } = q;
    expect(uris((await post(c.t, c.admin, FIND, { ...noSince, until: between, time_field: 'created_at' })).body.result)).toEqual([uri]);
    expect((await post(c.t, c.admin, FIND, { ...noSince, until: between, time_field: 'updated_at' })).body.result.total).toBe(0);
  });

  it('read_content: a hit whose read fails is returned unchanged, the others get content', async () => {
    await write(c.t, c.admin, 'ctx://resources/kb/vanishing/okapi.md', 'The okapi is a forest giraffe with striped legs.');
    await write(c.t, c.admin, 'ctx://resources/kb/vanishing/okapi-diet.md', 'The okapi eats leaves, buds and fungi in the forest.');
    await wait(c.t);
    // The node disappears from the VFS behind the indexer's back (its record stays), as when a
    // file is removed between retrieval and the read. The restart drops the VFS's metadata cache,
    // which only ever sees changes made through the VFS.
    await c.t.app.kv.sub('vfs').del('m\x00acme\x00resources/kb/vanishing\x00okapi.md');
    await c.t.restart();
    const r = await post(c.t, c.admin, FIND, { query: 'okapi forest', level: 2, target_uri: 'ctx://resources/kb/vanishing', read_content: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const byUri = Object.fromEntries(r.body.result.resources.map((m: any) => [m.uri, m]));
    const gone = byUri['ctx://resources/kb/vanishing/okapi.md'];
    expect(gone).toBeDefined();
    expect(gone).not.toHaveProperty('content');
    expect(Object.keys(gone).sort()).toEqual(['abstract', 'category', 'context_type', 'is_leaf', 'level', 'match_reason', 'overview', 'relations', 'score', 'uri'].sort());
    expect(gone.abstract).toContain('okapi');
    expect(byUri['ctx://resources/kb/vanishing/okapi-diet.md'].content).toBe('The okapi eats leaves, buds and fungi in the forest.');
  });

  it('telemetry on find: true and {summary: true}; a bad telemetry value is 400', async () => {
    let r = await c.t.req({ method: 'POST', url: FIND, headers: c.alice, body: { query: 'postgres', telemetry: true } });
    expect(r.status).toBe(200);
    expect(r.json().telemetry).toEqual({ operation_id: expect.any(String) });
    expect(r.json().result.total).toBeGreaterThan(0);
    r = await c.t.req({ method: 'POST', url: FIND, headers: c.alice, body: { query: 'postgres', telemetry: { summary: true } } });
    expect(r.json().telemetry).toMatchObject({ operation_id: expect.any(String), summary: { duration_ms: expect.any(Number) } });
    r = await c.t.req({ method: 'POST', url: FIND, headers: c.alice, body: { query: 'postgres' } });
    expect(r.json().telemetry).toBeUndefined();
    r = await c.t.req({ method: 'POST', url: FIND, headers: c.alice, body: { query: 'postgres', telemetry: 'yes' } });
    expect(r.status).toBe(400);
  });

  it('X-Ctx-Actor-Peer without a target keeps the other data and only that peer (find, search, grep, glob)', async () => {
    const p1 = { ...c.alice, 'x-ctx-actor-peer': 'p1' };
    const f = uris((await post(c.t, p1, FIND, { query: 'solarized palette terminal editor theme', limit: 50 })).body.result);
    expect(f).toContain('ctx://user/alice/peers/p1/memories/notes.md');
    expect(f).toContain('ctx://user/alice/memories/preferences/editor.md');
    expect(f.filter((u) => u.includes('/peers/p2'))).toEqual([]);
    const s = uris((await post(c.t, p1, '/api/v1/search/search', { query: 'solarized terminal setup', limit: 50 })).body.result);
    expect(s).toContain('ctx://user/alice/peers/p1/memories/notes.md');
    expect(s.filter((u) => u.includes('/peers/p2'))).toEqual([]);
    const g = await post(c.t, p1, '/api/v1/search/grep', { uri: 'ctx://user/alice', pattern: 'solarized', level_limit: 10 });
    const gu = g.body.result.matches.map((m: any) => m.uri);
    expect(gu).toEqual(expect.arrayContaining(['ctx://user/alice/peers/p1/memories/notes.md', 'ctx://user/alice/memories/preferences/editor.md']));
    expect(gu.filter((u: string) => u.includes('/peers/p2'))).toEqual([]);
    const gl = await post(c.t, p1, '/api/v1/search/glob', { pattern: '**/*.md', uri: 'ctx://user/alice' });
    expect(gl.body.result.matches).toEqual(expect.arrayContaining(['ctx://user/alice/peers/p1/memories/notes.md', 'ctx://user/alice/memories/preferences/editor.md']));
    expect(gl.body.result.matches.filter((u: string) => u.includes('/peers/p2'))).toEqual([]);
    // Without the header both peers are there.
    const all = await post(c.t, c.alice, '/api/v1/search/glob', { pattern: '**/notes.md', uri: 'ctx://user/alice' });
    expect(all.body.result.matches.sort()).toEqual(['ctx://user/alice/peers/p1/memories/notes.md', 'ctx://user/alice/peers/p2/memories/notes.md']);
  });

  it('image_url together with query is still an image query: 400 on a text-only embedder (find and search)', async () => {
    for (const url of [FIND, '/api/v1/search/search']) {
      const r = await post(c.t, c.alice, url, { query: 'a cat', image_url: 'data:image/png;base64,AAAA' });
      expect(r.status, url).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'image_url' } });
      expect(r.body.error!.message).toMatch(/text-only/);
    }
  });
});

describe('isolation', () => {
  it('another user never sees private memories, with or without filters', async () => {
    for (const body of [
      { query: 'vim editor dark solarized theme' },
      { query: 'vim editor', context_type: 'memory' },
      { query: 'vim', filter: { uri: { $prefix: 'ctx://user' } } },
      { query: 'vim', target_uri: 'ctx://' },
      { query: 'vim', target_uri: 'ctx://user' },
    ]) {
      const r = await post(c.t, c.bob, FIND, body);
      expect(r.status, JSON.stringify(body)).toBe(200);
      expect(uris(r.body.result).filter((u) => u.includes('/user/alice')), JSON.stringify(body)).toEqual([]);
    }
    const r = await post(c.t, c.bob, FIND, { query: 'vim', target_uri: 'ctx://user/alice/memories' });
    expect(r.status).toBe(403);
    expect(r.body.error!.code).toBe('PERMISSION_DENIED');
    const f = await post(c.t, c.bob, FIND, { query: 'vim', filter: { uri: { $prefix: 'ctx://user/alice' } } });
    expect(f.status).toBe(403);
  });

  it('entries under an access: denied rule are omitted for non-readers (find, grep, glob)', async () => {
    await write(c.t, c.admin, 'ctx://resources/vault/plan.md', 'Quarterly wombat acquisition plan.');
    const acl = await c.t.req({ method: 'POST', url: '/api/v1/fs/access', headers: c.admin, body: { uri: 'ctx://resources/vault', readers: ['bob'] } });
    expect(acl.status, acl.text).toBe(200);
    await wait(c.t);
    const q = { query: 'wombat acquisition plan', target_uri: 'ctx://resources' };
    expect(uris((await post(c.t, c.bob, FIND, q)).body.result)).toContain('ctx://resources/vault/plan.md');
    const hidden = uris((await post(c.t, c.alice, FIND, q)).body.result);
    expect(hidden.filter((u) => u.startsWith('ctx://resources/vault'))).toEqual([]);
    const g = await post(c.t, c.alice, '/api/v1/search/grep', { uri: 'ctx://resources', pattern: 'wombat' });
    expect(g.body.result.matches).toEqual([]);
    const gl = await post(c.t, c.alice, '/api/v1/search/glob', { pattern: '**/plan.md', uri: 'ctx://resources' });
    expect(gl.body.result.matches).toEqual([]);
  });

  it('hits beyond the first window of records read fill the limit when the best ones are unreadable', async () => {
    // Records are read a window (limit + 4) at a time: eight better hits alice may not read push the
    // readable ones into the second and third windows.
    for (let i = 0; i < 8; i++) await write(c.t, c.admin, `ctx://resources/narwhals/n${i}.md`, `Narwhal ledger ${i}: narwhal ledger narwhal ledger tusk count.`);
    for (let i = 0; i < 3; i++) await write(c.t, c.admin, `ctx://resources/open-ledgers/l${i}.md`, `Ledger ${i} mentions a narwhal once among shipping notes and harbour fees.`);
    const acl = await c.t.req({ method: 'POST', url: '/api/v1/fs/access', headers: c.admin, body: { uri: 'ctx://resources/narwhals', readers: ['bob'] } });
    expect(acl.status, acl.text).toBe(200);
    await wait(c.t);
    const q = { query: 'narwhal ledger', target_uri: 'ctx://resources', limit: 2 };
    const seen = uris((await post(c.t, c.bob, FIND, { ...q, limit: 20 })).body.result);
    expect(seen.filter((u) => u.startsWith('ctx://resources/narwhals/')).length).toBe(8);
    const got = uris((await post(c.t, c.alice, FIND, q)).body.result);
    expect(got).toHaveLength(2);
    for (const u of got) expect(u.startsWith('ctx://resources/open-ledgers/')).toBe(true);
  });

  it('another account is never returned, even to its ROOT-less admin with the same paths', async () => {
    const r = await post(c.t, c.admin, FIND, { query: 'globex secret autovacuum postgres', limit: 50 });
    expect(JSON.stringify(r.body.result)).not.toContain('globex');
    const g = await c.t.req({ method: 'POST', url: FIND, headers: c.t.root, body: { query: 'globex secret' } });
    expect(g.status).toBe(200);
  });
});

describe('isolation across accounts and users (find, search, grep, glob)', () => {
  const Q = 'globex secret autovacuum postgres vim editor dark solarized theme carol alice';
  /** Every retrieval operation a caller can run over everything it may read. */
  async function everything(h: Record<string, string>) {
    const out: Array<[string, any]> = [];
    const run = async (name: string, url: string, body: unknown) => {
      const r = await post(c.t, h, url, body);
      expect(r.status, `${name}: ${JSON.stringify(r.body)}`).toBe(200);
      // The plan echoes the query (which names both accounts); only the hits are data.
      const { query_plan: _plan, ...hits } = r.body.result;
      out.push([name, hits]);
    };
    await run('find', FIND, { query: Q, limit: 100 });
    await run('find target ctx://', FIND, { query: Q, limit: 100, target_uri: 'ctx://' });
    await run('find filter level+prefix', FIND, { query: Q, limit: 100, filter: { level: 2, uri: { $prefix: 'ctx://user' } } });
    await run('find filter $or', FIND, { query: Q, limit: 100, filter: { $or: [{ context_type: 'memory' }, { uri: { $prefix: 'ctx://resources' } }] } });
    await run('find memories since', FIND, { query: Q, limit: 100, context_type: 'memory', since: '1d' });
    await run('search', '/api/v1/search/search', { query: Q, limit: 100 });
    await run('grep', '/api/v1/search/grep', { uri: 'ctx://', pattern: 'globex|postgres|vim|solarized|emacs|palette', case_insensitive: true, level_limit: 10 });
    await run('glob', '/api/v1/search/glob', { pattern: '**/*.md' });
    return out;
  }
  const ACME = ['vacuuming postgres', 'postgres-vacuum', 'redis-eviction', 'react-hooks', 'emacs', 'alice', 'bob', 'palette', 'deploy-app'];
  const GLOBEX = ['globex', 'carol', 'postgres-secret'];
  const leaks = (result: unknown, marks: string[]) => marks.filter((m) => JSON.stringify(result).toLowerCase().includes(m));

  it('an account never returns another account\'s data, in both directions, filtered or not', async () => {
    const sides: Array<[string, Record<string, string>, string[], string[]]> = [
      ['acme admin', c.admin, GLOBEX, ['vacuuming postgres', 'alice', 'bob']],
      ['acme user alice', c.alice, GLOBEX, ['vacuuming postgres', 'alice']],
      ['ROOT as acme', { ...c.t.root, 'x-ctx-account': 'acme' }, GLOBEX, ['vacuuming postgres', 'alice', 'bob']],
      ['globex admin', globex.admin, ACME, ['globex', 'carol']],
      ['globex user carol', globex.carol, ACME, ['globex', 'carol']],
      ['ROOT as globex', { ...c.t.root, 'x-ctx-account': 'globex' }, ACME, ['globex', 'carol']],
    ];
    for (const [who, h, foreign, own] of sides) {
      const results = await everything(h);
      for (const [op, result] of results) expect(leaks(result, foreign), `${who} ${op}`).toEqual([]);
      // Not vacuous: the same requests do return the caller's own account.
      const seen = results.map(([, r]) => JSON.stringify(r).toLowerCase()).join(' ');
      for (const m of own) expect(seen, `${who} sees its own ${m}`).toContain(m);
    }
  });

  it('a USER never sees another user\'s memories through find, search, grep or glob', async () => {
    for (const [who, h, other] of [
      ['bob', c.bob, '/user/alice'],
      ['alice', c.alice, '/user/bob'],
    ] as const) {
      for (const [op, result] of await everything(h)) {
        const text = JSON.stringify(result);
        expect(text.includes(other), `${who} ${op}`).toBe(false);
      }
    }
  });

  it('ROOT with X-Ctx-Account and an empty target sees every user of that account (and only that account)', async () => {
    const root = { ...c.t.root, 'x-ctx-account': 'acme' };
    const r = await post(c.t, root, FIND, { query: 'editor solarized theme', context_type: 'memory', limit: 50 });
    expect(r.status).toBe(200);
    const got = uris(r.body.result);
    expect(got).toEqual(expect.arrayContaining(['ctx://user/alice/memories/preferences/editor.md', 'ctx://user/bob/memories/preferences/editor.md']));
    expect(got.some((u) => u.includes('/peers/p1/'))).toBe(true);
    expect(got.some((u) => u.includes('carol'))).toBe(false);
    const g = await post(c.t, { ...c.t.root, 'x-ctx-account': 'globex' }, FIND, { query: 'editor solarized theme', context_type: 'memory', limit: 50 });
    const gu = uris(g.body.result);
    expect(gu).toContain('ctx://user/carol/memories/preferences/globex-carol.md');
    expect(gu.every((u) => u.startsWith('ctx://user/carol/'))).toBe(true);
  });
});

describe('find errors', () => {
  const bad: Array<[string, unknown, number, string]> = [
    ['missing query', {}, 400, 'INVALID_ARGUMENT'],
    ['empty query', { query: '  ' }, 400, 'INVALID_ARGUMENT'],
    ['wrong type', { query: 5 }, 400, 'INVALID_ARGUMENT'],
    ['unknown field', { query: 'x', bogus: 1 }, 400, 'INVALID_ARGUMENT'],
    ['image on text embedder', { image_url: 'data:image/png;base64,AAAA' }, 400, 'INVALID_ARGUMENT'],
    ['bad image url', { image_url: 'ftp://x' }, 400, 'INVALID_ARGUMENT'],
    ['bad context type', { query: 'x', context_type: 'session' }, 400, 'INVALID_ARGUMENT'],
    ['bad tag', { query: 'x', tags: ['novalue'] }, 400, 'INVALID_ARGUMENT'],
    ['bad level', { query: 'x', level: '3' }, 400, 'INVALID_ARGUMENT'],
    ['bad since', { query: 'x', since: 'yesterday' }, 400, 'INVALID_ARGUMENT'],
    ['bad date', { query: 'x', since: '2024-02-30' }, 400, 'INVALID_ARGUMENT'],
    ['since after until', { query: 'x', since: '2024-02-02', until: '2024-01-01' }, 400, 'INVALID_ARGUMENT'],
    ['bad time_field', { query: 'x', time_field: 'mtime' }, 400, 'INVALID_ARGUMENT'],
    ['limit over the maximum', { query: 'x', limit: 1001 }, 400, 'INVALID_ARGUMENT'],
    ['threshold > 1', { query: 'x', score_threshold: 2 }, 400, 'INVALID_ARGUMENT'],
    ['filter unknown field', { query: 'x', filter: { color: 'red' } }, 400, 'INVALID_ARGUMENT'],
    ['filter unknown op', { query: 'x', filter: { level: { $regex: 'x' } } }, 400, 'INVALID_ARGUMENT'],
    ['filter not object', { query: 'x', filter: [1] }, 400, 'INVALID_ARGUMENT'],
    ['filter empty $or', { query: 'x', filter: { $or: [] } }, 400, 'INVALID_ARGUMENT'],
    ['filter bad time', { query: 'x', filter: { updated_at: { $gte: 'soon' } } }, 400, 'INVALID_ARGUMENT'],
    ['internal scope target', { query: 'x', target_uri: 'ctx://temp/x' }, 400, 'INVALID_URI'],
    ['traversal target', { query: 'x', target_uri: 'ctx://resources/../user/alice' }, 403, 'PERMISSION_DENIED'],
    ['user-id-less target', { query: 'x', target_uri: 'ctx://user/memories' }, 400, 'INVALID_URI'],
    ['target array with bad entry', { query: 'x', target_uri: ['ctx://resources', 7] }, 400, 'INVALID_ARGUMENT'],
  ];
  it.each(bad)('%s → %i %s', async (_name, body, status, code) => {
    const r = await post(c.t, c.alice, FIND, body);
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.body.error!.code).toBe(code);
  });

  it.each([
    ['since', { since: '2024-02-30T00:00:00' }, 'since'],
    ['until', { until: '2024-01-01T24:00' }, 'until'],
    ['until', { until: '2023-02-29 12:00:00Z' }, 'until'],
    ['since', { since: '2024-13-01T00:00:00' }, 'since'],
    ['since', { since: '2024-01-01T23:60:00' }, 'since'],
    ['since', { since: '2024-01-01T12:00:61+02:00' }, 'since'],
    ['filter', { filter: { created_at: { $gte: '2024-04-31T08:00:00' } } }, 'filter.created_at.$gte'],
  ])('impossible ISO date-time in %s → 400 naming the field', async (_name, extra, field) => {
    const r = await post(c.t, c.alice, FIND, { query: 'x', ...extra });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error!.code).toBe('INVALID_ARGUMENT');
    expect(r.body.error!.message).toContain(field);
    expect(r.body.error!.message).toMatch(/not a real date-time/);
  });

  it('real edge date-times are accepted (leap day, 23:59:59.999, offsets)', async () => {
    for (const since of ['2024-02-29T00:00:00', '2024-02-29T23:59:59.999Z', '2000-02-29 12:00+0530', '2024-12-31T23:59:59-12:00']) {
      const r = await post(c.t, c.alice, FIND, { query: 'x', since });
      expect(r.status, since).toBe(200);
    }
  });

  it('malformed JSON, oversized body and missing credentials', async () => {
    const m = await c.t.req({ method: 'POST', url: FIND, headers: { ...c.alice, 'content-type': 'application/json' }, body: '{"query":' });
    expect(m.status).toBe(400);
    const big = await c.t.req({ method: 'POST', url: FIND, headers: c.alice, body: { query: 'x'.repeat(9000) } });
    expect(big.status).toBe(400);
    const anon = await c.t.req({ method: 'POST', url: FIND, body: { query: 'x' } });
    expect(anon.status).toBe(401);
  });
});
