/**
 * The fs plugin with the real indexer (retrieval plugin) loaded: stat `count` and
 * `extra_fields=count` come from its `vector-index` service, and a moved tree is counted at its new
 * place once the indexer has processed the `mv` event. Waits on queue idleness, not on time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { qs } from './helpers.js';

let t: TestApp;
let alice: Record<string, string>;
const stat = async (uri: string) => (await t.req({ url: `/api/v1/fs/stat?${qs({ uri })}`, headers: alice })).json().result;

beforeAll(async () => {
  t = await startTestApp();
  alice = (await t.account('acme', ['alice'])).users.alice!;
});
afterAll(() => t.close());

describe('fs with the retrieval plugin', () => {
  it('directory count is the vector index estimate, before and after mv', async () => {
    for (const name of ['a', 'b', 'c'])
      expect((await t.req({ method: 'POST', url: '/api/v1/content/write', headers: alice, body: { uri: `ctx://resources/docs/${name}.md`, content: `${name} is a letter of the alphabet` } })).status).toBe(200);
    expect(await t.app.queues.waitIdle(30_000)).toBe(true);
    const before = await stat('ctx://resources/docs');
    expect(before.count).toBeGreaterThanOrEqual(3);
    const listed = (await t.req({ url: `/api/v1/fs/ls?${qs({ uri: 'ctx://resources', extra_fields: 'count' })}`, headers: alice })).json().result;
    expect(listed[0]).toMatchObject({ name: 'docs', count: before.count });
    expect((await t.req({ method: 'POST', url: '/api/v1/fs/mv', headers: alice, body: { from_uri: 'ctx://resources/docs', to_uri: 'ctx://resources/moved' } })).status).toBe(200);
    expect(await t.app.queues.waitIdle(30_000)).toBe(true);
    expect((await stat('ctx://resources/moved')).count).toBeGreaterThanOrEqual(3);
  });
});

describe('mkdir and the indexer', () => {
  it("queues the new directory's L0 summary: after the queues settle, find returns the directory by its description", async () => {
    const mk = await t.req({ method: 'POST', url: '/api/v1/fs/mkdir', headers: alice, body: { uri: 'ctx://resources/plans', description: 'Quarterly budget planning for the municipal aquarium' } });
    expect(mk.status).toBe(200);
    const waited = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: t.root, body: { timeout: 30 } });
    expect(waited.status).toBe(200);
    const find = await t.req({ method: 'POST', url: '/api/v1/search/find', headers: alice, body: { query: 'aquarium budget planning', level: 0 } });
    expect(find.status).toBe(200);
    const hit = find.json().result.resources.find((r: { uri: string }) => r.uri === 'ctx://resources/plans');
    expect(hit).toMatchObject({ uri: 'ctx://resources/plans', level: 0 });
    // The description is the author's L0: processing vectorizes it and keeps it.
    expect((await t.req({ url: `/api/v1/content/abstract?${qs({ uri: 'ctx://resources/plans' })}`, headers: alice })).json().result).toBe('Quarterly budget planning for the municipal aquarium');
    const consistency = await t.req({ method: 'POST', url: '/api/v1/system/consistency', headers: alice, body: { uri: 'ctx://resources/plans' } });
    expect(consistency.json().result).toMatchObject({ ok: true, missing_record_count: 0 });
  });
});

describe('count and access: denied subtrees', () => {
  let admin: Record<string, string>;
  let bob: Record<string, string>;
  let carol: Record<string, string>;
  const statAs = async (uri: string, h: Record<string, string>) => (await t.req({ url: `/api/v1/fs/stat?${qs({ uri })}`, headers: h })).json().result;
  const lsCount = async (uri: string, name: string, h: Record<string, string>) =>
    (await t.req({ url: `/api/v1/fs/ls?${qs({ uri, extra_fields: 'count' })}`, headers: h })).json().result.find((e: { name: string }) => e.name === name).count;
  const write = (uri: string, h = admin) => t.req({ method: 'POST', url: '/api/v1/content/write', headers: h, body: { uri, content: `text of ${uri}` } });
  const access = (uri: string, readers: string[] | null) => t.req({ method: 'POST', url: '/api/v1/fs/access', headers: admin, body: { uri, readers } });

  beforeAll(async () => {
    const initech = await t.account('initech', ['bob', 'carol']);
    admin = initech.admin;
    bob = initech.users.bob!;
    carol = initech.users.carol!;
    for (const p of ['open.md', 'secret/plan.md', 'secret/inner/deep.md', 'secret/inner/deeper.md', 'secret/inner/more/x.md']) expect((await write(`ctx://resources/team/${p}`)).status).toBe(200);
    expect((await access('ctx://resources/team/secret', ['bob'])).status).toBe(200);
    expect(await t.app.queues.waitIdle(30_000)).toBe(true);
  });

  it("an ancestor's count leaves out what lies inside a subtree the caller may not read", async () => {
    const full = (await statAs('ctx://resources/team', admin)).count;
    const inside = (await statAs('ctx://resources/team/secret', admin)).count;
    expect(inside).toBeGreaterThanOrEqual(5); // plan.md, inner, deep.md, deeper.md, more, x.md
    expect(full).toBeGreaterThan(inside);
    expect((await statAs('ctx://resources/team', bob)).count).toBe(full);
    expect((await statAs('ctx://resources/team', carol)).count).toBe(full - inside);
    expect(await lsCount('ctx://resources', 'team', carol)).toBe(full - inside);
    expect(await lsCount('ctx://resources', 'team', bob)).toBe(full);
    // The scope root above it too.
    const root = (await statAs('ctx://resources', admin)).count;
    expect((await statAs('ctx://resources', carol)).count).toBe(root - inside);
  });

  it('nested restrictions subtract the outermost subtree the caller cannot read', async () => {
    expect((await access('ctx://resources/team/secret/inner', [])).status).toBe(200);
    const full = (await statAs('ctx://resources/team', admin)).count;
    const secret = (await statAs('ctx://resources/team/secret', admin)).count;
    const inner = (await statAs('ctx://resources/team/secret/inner', admin)).count;
    expect((await statAs('ctx://resources/team', carol)).count).toBe(full - secret);
    expect((await statAs('ctx://resources/team', bob)).count).toBe(full - inner);
    expect((await statAs('ctx://resources/team/secret', bob)).count).toBe(secret - inner);
    expect((await access('ctx://resources/team/secret/inner', null)).status).toBe(200);
    expect((await statAs('ctx://resources/team', bob)).count).toBe(full);
  });

  it('the restriction follows a move and survives a restart', async () => {
    expect((await t.req({ method: 'POST', url: '/api/v1/fs/mv', headers: admin, body: { from_uri: 'ctx://resources/team/secret', to_uri: 'ctx://resources/team/hidden' } })).status).toBe(200);
    expect(await t.app.queues.waitIdle(30_000)).toBe(true);
    const check = async () => {
      const full = (await statAs('ctx://resources/team', admin)).count;
      const inside = (await statAs('ctx://resources/team/hidden', admin)).count;
      expect(inside).toBeGreaterThanOrEqual(5);
      expect((await statAs('ctx://resources/team', carol)).count).toBe(full - inside);
    };
    await check();
    await t.restart();
    await check();
  });

  it('a reader list stored without the access route (older data) is found by a one-time walk', async () => {
    const other = await t.account('umbrella', ['dave']);
    for (const p of ['pub.md', 'vault/a.md', 'vault/b.md']) expect((await write(`ctx://resources/lab/${p}`, other.admin)).status).toBe(200);
    await t.app.vfs.setMeta('umbrella', 'resources/lab/vault', { meta: { read_access: { users: [] } } });
    expect(await t.app.queues.waitIdle(30_000)).toBe(true);
    const full = (await statAs('ctx://resources/lab', other.admin)).count;
    const inside = (await statAs('ctx://resources/lab/vault', other.admin)).count;
    expect(inside).toBeGreaterThanOrEqual(2);
    expect((await statAs('ctx://resources/lab', other.users.dave!)).count).toBe(full - inside);
  });
});

describe("count never includes other users' spaces", () => {
  it("a USER's count of ctx:// and ctx://user covers shared resources and their own space only; an ADMIN's covers all", async () => {
    const acct = await t.account('hooli', ['ann', 'ben']);
    const ann = acct.users.ann!;
    const ben = acct.users.ben!;
    const write = async (h: Record<string, string>, uri: string) =>
      expect((await t.req({ method: 'POST', url: '/api/v1/content/write', headers: h, body: { uri, content: `note at ${uri}` } })).status).toBe(200);
    await write(ann, 'ctx://user/ann/memories/m1.md');
    for (const n of ['b1', 'b2', 'b3', 'b4']) await write(ben, `ctx://user/ben/memories/${n}.md`);
    expect(await t.app.queues.waitIdle(30_000)).toBe(true);
    const count = async (h: Record<string, string>, uri: string) => (await t.req({ url: `/api/v1/fs/stat?${qs({ uri })}`, headers: h })).json().result.count as number;
    const annUser = await count(ann, 'ctx://user');
    const benUser = await count(ben, 'ctx://user');
    const adminUser = await count(acct.admin, 'ctx://user');
    // Ben has four more files than Ann; neither sees the other's.
    expect(benUser - annUser).toBe(3);
    expect(adminUser).toBeGreaterThanOrEqual(annUser + benUser - 1);
    expect(await count(ann, 'ctx://')).toBeLessThan(await count(acct.admin, 'ctx://'));
    expect(await count(ann, 'ctx://user/ann/memories')).toBe(1);
  });
});
