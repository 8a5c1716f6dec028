import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEMANTIC_QUEUE } from '../../plugins/semantic/indexing-contract.js';
import { post, setup, wait, write, type Ctx } from './helpers.js';

let c: Ctx;
beforeAll(async () => {
  c = await setup();
});
afterAll(async () => {
  await c.t.close();
});

const readSidecar = async (uri: string, which: 'abstract' | 'overview') => {
  const r = await c.t.req({ method: 'GET', url: `/api/v1/content/${which}?uri=${encodeURIComponent(uri)}`, headers: c.admin });
  expect(r.status).toBe(200);
  return r.json().result as string;
};

describe('semantic processing', () => {
  it('writes L0/L1 for the directories above a written file, with extractive text', async () => {
    await write(c.t, c.admin, 'ctx://resources/guides/deploy/rollout.md', '# Rolling deployments\n\nShift traffic gradually between versions. Watch error rates before each step.\n');
    await write(c.t, c.admin, 'ctx://resources/guides/deploy/rollback.md', '# Rollback\n\nRevert to the previous release when health checks fail.');
    const w = await wait(c.t);
    expect(w.Semantic.error_count).toBe(0);
    const abs = await readSidecar('ctx://resources/guides/deploy', 'abstract');
    expect(abs).toContain('2 files');
    expect(abs).toContain('Rolling deployments');
    const ov = await readSidecar('ctx://resources/guides/deploy', 'overview');
    expect(ov).toContain('rollout.md (md,');
    expect(ov).toContain('Shift traffic gradually between versions.');
    expect(ov).toContain('Revert to the previous release');
    // Bottom-up: the parent lists the subdirectory with its abstract.
    const parent = await readSidecar('ctx://resources/guides', 'overview');
    expect(parent).toMatch(/deploy\/ \(directory, 2 entries\)/);
  });

  it('a batch of 256 writes refreshes their directory once, and sidecar writes do not loop', async () => {
    const mk = await c.t.req({ method: 'POST', url: '/api/v1/fs/mkdir', headers: c.admin, body: { uri: 'ctx://resources/burst' } });
    expect(mk.status, mk.text).toBe(200);
    await wait(c.t);
    const before = (await c.t.req({ method: 'GET', url: '/api/v1/observer/retrieval', headers: c.t.root })).json().result.status as string;
    const refreshesBefore = Number(/\n\s*\d+\s+(\d+)/.exec(before.split('\n\n')[1]!)![1]);
    const operations = Array.from({ length: 256 }, (_, i) => ({ uri: `ctx://resources/burst/f${i}.md`, content: `# Note ${i}\n\nBody number ${i}.`, mode: "upsert" }));
    const r = await c.t.req({ method: 'POST', url: '/api/v1/content/batch-write', headers: c.admin, body: { root_uri: 'ctx://resources/burst', operations, wait: false } });
    expect(r.status, r.text).toBe(200);
    await wait(c.t);
    const after = (await c.t.req({ method: 'GET', url: '/api/v1/observer/retrieval', headers: c.t.root })).json().result.status as string;
    const refreshesAfter = Number(/\n\s*\d+\s+(\d+)/.exec(after.split('\n\n')[1]!)![1]);
    // burst/ once, then resources/ once (bottom-up).
    expect(refreshesAfter - refreshesBefore).toBe(2);
    expect(c.t.app.queues.stats()[SEMANTIC_QUEUE]!.pending).toBe(0);
    expect(await readSidecar('ctx://resources/burst', 'abstract')).toContain('256 files');
  });

  it('an edited sidecar is re-embedded from the edit (one vectors_only refresh of that directory); mkdir indexes the new directory', async () => {
    const mk = await c.t.req({ method: 'POST', url: '/api/v1/fs/mkdir', headers: c.admin, body: { uri: 'ctx://resources/edited', description: 'Ledger of lighthouse keepers' } });
    expect(mk.status, mk.text).toBe(200);
    await wait(c.t);
    let f = await post(c.t, c.admin, '/api/v1/search/find', { query: 'lighthouse keepers', target_uri: 'ctx://resources' });
    expect(f.body.result.resources.map((m: any) => m.uri)).toContain('ctx://resources/edited');
    const w = await c.t.req({ method: 'POST', url: '/api/v1/content/write', headers: c.admin, body: { uri: 'ctx://resources/edited/.abstract.md', content: 'Almanac of tidal observatories', wait: true } });
    expect(w.status, w.text).toBe(200);
    expect(w.json().result).toMatchObject({ semantic_status: 'complete', vector_status: 'complete' });
    expect(w.json().result.queue_status.Semantic.processed).toBeGreaterThanOrEqual(1);
    f = await post(c.t, c.admin, '/api/v1/search/find', { query: 'tidal observatories almanac', target_uri: 'ctx://resources' });
    const hit = f.body.result.resources.find((m: any) => m.uri === 'ctx://resources/edited');
    expect(hit, JSON.stringify(f.body.result)).toBeDefined();
    expect(hit.abstract).toContain('tidal observatories');
  });

  it('rm removes records and refreshes the parent; mv moves records', async () => {
    await write(c.t, c.admin, 'ctx://resources/tmp/a/x.md', 'alpha platypus document');
    await wait(c.t);
    let f = await post(c.t, c.admin, '/api/v1/search/find', { query: 'platypus', target_uri: 'ctx://resources/tmp' });
    expect(f.body.result.resources.map((m: any) => m.uri)).toContain('ctx://resources/tmp/a/x.md');
    const mv = await c.t.req({ method: 'POST', url: '/api/v1/fs/mv', headers: c.admin, body: { from_uri: 'ctx://resources/tmp/a', to_uri: 'ctx://resources/tmp/b' } });
    expect(mv.status, mv.text).toBe(200);
    await wait(c.t);
    f = await post(c.t, c.admin, '/api/v1/search/find', { query: 'platypus', target_uri: 'ctx://resources/tmp' });
    const got = f.body.result.resources.map((m: any) => m.uri);
    expect(got).toContain('ctx://resources/tmp/b/x.md');
    expect(got).not.toContain('ctx://resources/tmp/a/x.md');
    const rm = await c.t.req({ method: 'DELETE', url: '/api/v1/fs?uri=ctx://resources/tmp/b&recursive=true', headers: c.admin });
    expect(rm.status, rm.text).toBe(200);
    await wait(c.t);
    f = await post(c.t, c.admin, '/api/v1/search/find', { query: 'platypus', target_uri: 'ctx://resources' });
    expect(f.body.result.resources.map((m: any) => m.uri).filter((u: string) => u.startsWith('ctx://resources/tmp/b'))).toEqual([]);
    expect(await readSidecar('ctx://resources/tmp', 'overview')).toContain('This directory is empty.');
  });

  it('racing rm and rewrite end in the state of the file system, whatever order the messages run', async () => {
    const svc = c.t.app.service<{ countUnder(who: { accountId: string; userId: string; role: 'ADMIN' }, p: string): Promise<number> }>('vector-index');
    const acme = { accountId: 'acme', userId: 'admin', role: 'ADMIN' } as const;
    for (let round = 0; round < 3; round++) {
      await write(c.t, c.admin, 'ctx://resources/race/a/f.md', `round ${round} kangaroo`);
      const rm = await c.t.req({ method: 'DELETE', url: '/api/v1/fs?uri=ctx://resources/race/a&recursive=true', headers: c.admin });
      expect(rm.status).toBe(200);
      if (round % 2 === 0) await write(c.t, c.admin, 'ctx://resources/race/a/f.md', `again ${round} kangaroo`);
      await wait(c.t);
      const exists = round % 2 === 0;
      // a/ holds f.md; race/ holds a/ and a/f.md — or nothing.
      expect(await svc.countUnder(acme, 'resources/race/a')).toBe(exists ? 1 : 0);
      expect(await svc.countUnder(acme, 'resources/race')).toBe(exists ? 2 : 0);
      const f = await post(c.t, c.admin, '/api/v1/search/find', { query: 'kangaroo', target_uri: 'ctx://resources/race', level: 2 });
      expect(f.body.result.resources.map((m: any) => m.uri)).toEqual(exists ? ['ctx://resources/race/a/f.md'] : []);
      if (exists) expect(f.body.result.resources[0].abstract).toContain(`again ${round}`);
    }
  });
});
