/**
 * Directory records compete with leaves only when their text is informative (docs/retrieval.md,
 * "Directory records"): through the app, with the extractive summarizer (no LLM configured).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, setup, uris, wait, write, type Ctx } from './helpers.js';

const FIND = '/api/v1/search/find';
let c: Ctx;

beforeAll(async () => {
  c = await setup();
  // garden/ gets only the extractive listing of its children's names and first sentences.
  await write(c.t, c.admin, 'ctx://resources/garden/tomatoes.md', '# Tomatoes\n\nTomato plants need staking and deep watering twice a week.');
  await write(c.t, c.admin, 'ctx://resources/garden/roses.md', '# Roses\n\nPrune roses in early spring, just above an outward-facing bud.');
  // orchard/ has a description its author gave at mkdir.
  const mk = await post(c.t, c.admin, '/api/v1/fs/mkdir', { uri: 'ctx://resources/orchard', description: 'Orchard care notes: winter pruning of apple and pear trees, and when to thin the fruit.' });
  expect(mk.status).toBe(200);
  await write(c.t, c.admin, 'ctx://resources/orchard/apples.md', '# Apples\n\nCodling moth traps go up in May.');
  await wait(c.t);
}, 60_000);
afterAll(() => c.t.close());

const hits = (result: any) => [...result.memories, ...result.resources, ...result.skills].sort((a: any, b: any) => b.score - a.score);

describe('directory records', () => {
  it('a directory whose text only lists its children never outranks (or crowds out) the matching leaves', async () => {
    const r = await post(c.t, c.admin, FIND, { query: 'garden tomatoes roses', include_provenance: true });
    expect(r.status).toBe(200);
    const got = uris(r.body.result);
    expect(got).toEqual(expect.arrayContaining(['ctx://resources/garden/tomatoes.md', 'ctx://resources/garden/roses.md']));
    expect(got).not.toContain('ctx://resources/garden');
    expect(got).not.toContain('ctx://resources');
    // Nor is it a navigation point.
    expect(r.body.result.provenance.expanded.map((e: any) => e.uri)).not.toContain('ctx://resources/garden');
  });

  it('asked for directories (level 0/1), the listing is returned', async () => {
    const r = await post(c.t, c.admin, FIND, { query: 'garden tomatoes roses', level: '0,1' });
    expect(uris(r.body.result)).toContain('ctx://resources/garden');
    const both = await post(c.t, c.admin, FIND, { query: 'garden tomatoes roses', filter: { $or: [{ level: 2 }, { level: 0 }] } });
    expect(uris(both.body.result)).toEqual(expect.arrayContaining(['ctx://resources/garden', 'ctx://resources/garden/tomatoes.md']));
  });

  it('a directory with a description written by its author competes: its L0 is a hit', async () => {
    const r = await post(c.t, c.admin, FIND, { query: 'winter pruning of apple and pear trees', include_provenance: true });
    const ranked = hits(r.body.result);
    const dir = ranked.find((m: any) => m.uri === 'ctx://resources/orchard');
    expect(dir).toBeDefined();
    expect(dir.level).toBe(0);
    expect(dir.is_leaf).toBe(false);
    expect(dir.abstract).toContain('winter pruning');
    expect(ranked[0].uri).toBe('ctx://resources/orchard');
  });

  it('an overview the author edits turns the listing into a description (and back is not automatic)', async () => {
    await write(c.t, c.admin, 'ctx://resources/garden/.overview.md', 'Kitchen garden plan: vegetables along the south fence, roses by the gate, compost in the corner.');
    await wait(c.t);
    const r = await post(c.t, c.admin, FIND, { query: 'kitchen garden plan south fence compost' });
    const dir = hits(r.body.result).find((m: any) => m.uri === 'ctx://resources/garden');
    expect(dir).toBeDefined();
    expect(dir.level).toBe(1);
    // A new child refreshes the directory: the author's overview stays, and so does the hit.
    await write(c.t, c.admin, 'ctx://resources/garden/beans.md', 'Runner beans climb the south fence.');
    await wait(c.t);
    const again = await post(c.t, c.admin, FIND, { query: 'kitchen garden plan south fence compost' });
    expect(uris(again.body.result)).toContain('ctx://resources/garden');
  });
});

describe('directory records with an LLM that fails', () => {
  it('the extractive text it falls back to is labelled so, and stays a listing', async () => {
    // The fake answers no chat completions (404): every summary falls back.
    const { startFakeOpenAi } = await import('../models/fake-openai.js');
    const f = await startFakeOpenAi();
    const d = await setup({ config: { llm: { baseUrl: f.url, model: 'fake-1' } } });
    try {
      await write(d.t, d.admin, 'ctx://resources/pantry/flour.md', '# Flour\n\nRye and spelt flour live in the pantry, in airtight tins.');
      await wait(d.t);
      const side = (await d.t.app.vfs.readFile('acme', 'resources/pantry/.abstract.md')).toString('utf8');
      expect(side).toContain('"generator":"ctx-extractive-v1"');
      expect(side).not.toContain('fake-1');
      const r = await post(d.t, d.admin, FIND, { query: 'pantry flour' });
      expect(uris(r.body.result)).toContain('ctx://resources/pantry/flour.md');
      expect(uris(r.body.result)).not.toContain('ctx://resources/pantry');
    } finally {
      await d.t.close();
      await f.close();
    }
  });
});
