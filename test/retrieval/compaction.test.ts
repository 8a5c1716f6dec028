/**
 * The retrieval plugin turns its flat store into an HNSW graph in the background once it outgrows
 * `vectorFlatThreshold` (the sync upserts on the JS thread never build the graph), keeps answering
 * meanwhile, and loads the graph again after a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, setup, untilReady, uris, wait, type Ctx } from './helpers.js';
import { pollUntil } from '../helpers/poll.js';

const TOPICS = ['volcano eruption lava basalt', 'sourdough starter flour hydration', 'kubernetes pod eviction memory', 'violin bow rosin horsehair', 'glacier moraine ice sheet'];

async function vectordb(c: Ctx): Promise<string> {
  const r = await c.t.req({ method: 'GET', url: '/api/v1/observer/vectordb', headers: c.admin });
  return r.json().result.status as string;
}

const until = (check: () => Promise<boolean>) => pollUntil(check, { what: 'the index to become HNSW', intervalMs: 50 });

describe('vector index compaction in the plugin', () => {
  let c: Ctx;
  beforeAll(async () => {
    c = await setup({ config: { vectorFlatThreshold: 40 } });
  });
  afterAll(async () => {
    await c.t.close();
  });

  it('starts flat, becomes a graph past the threshold without blocking writes or finds', async () => {
    expect((await post(c.t, c.admin, '/api/v1/fs/mkdir', { uri: 'ctx://resources/c' })).status).toBe(200);
    await wait(c.t);
    expect(await vectordb(c)).toMatch(/native \(flat\)/);
    const operations = Array.from({ length: 60 }, (_, i) => ({
      uri: `ctx://resources/c/t${i % 5}/note-${i}.md`,
      mode: 'upsert',
      content: `# Note ${i}\n\nA note about ${TOPICS[i % 5]} number ${i} with the marker word m${i}x.\n`,
    }));
    const w = await post(c.t, c.admin, '/api/v1/content/batch-write', { root_uri: 'ctx://resources/c', operations });
    expect(w.body.error).toBeUndefined();
    await wait(c.t);
    await until(async () => /native \(hnsw\)/.test(await vectordb(c)));
    // More writes after the conversion go into the graph.
    const more = await post(c.t, c.admin, '/api/v1/content/write', { uri: 'ctx://resources/c/late.md', content: 'A late note about the aurora borealis and solar wind, marker m999x.', mode: 'create' });
    expect(more.status).toBe(200);
    await wait(c.t);
    for (const [q, want] of [
      ['kubernetes pod eviction m17x', 'ctx://resources/c/t2/note-17.md'],
      ['aurora borealis solar wind', 'ctx://resources/c/late.md'],
    ] as const) {
      const f = await post(c.t, c.admin, '/api/v1/search/find', { query: q, target_uri: 'ctx://resources/c', limit: 5 });
      expect(f.status).toBe(200);
      expect(uris(f.body.result)).toContain(want);
    }
  });

  it('loads the graph after a restart and keeps isolation', async () => {
    await c.t.restart();
    await untilReady(c.t);
    expect(await vectordb(c)).toMatch(/native \(hnsw\)/);
    const f = await post(c.t, c.admin, '/api/v1/search/find', { query: 'sourdough flour hydration m21x', limit: 5 });
    expect(uris(f.body.result)).toContain('ctx://resources/c/t1/note-21.md');
    const other = await c.t.account('globex');
    const g = await post(c.t, other.admin, '/api/v1/search/find', { query: 'sourdough flour hydration m21x', limit: 5 });
    expect(g.status).toBe(200);
    expect(uris(g.body.result)).toEqual([]);
  });
});
