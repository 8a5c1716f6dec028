/**
 * The query-embedding cache (issue 27): a repeated find text skips the embedder, through the real
 * pipeline and a real OpenAI-compatible embedder on loopback; bounded, per embedder, off at 0, and
 * a failed call is not remembered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeServer } from '../models/fake-openai.js';
import type { VectorStoreService } from '../../plugins/retrieval/index.js';
import { QueryEmbeddingCache } from '../../plugins/retrieval/query-embedding-cache.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { post, setup, wait, write, type Ctx } from './helpers.js';

let srv: FakeServer;
beforeAll(async () => {
  srv = await startFakeOpenAi(8);
});
afterAll(() => srv.close());

const embedding = () => ({ provider: 'openai' as const, baseUrl: srv.url, model: 'fake-embed', dim: 8 });
/** Embedding requests the fake received for exactly this one query text. */
const asked = (q: string) => srv.received.filter((r) => r.path === '/v1/embeddings' && r.body.input?.length === 1 && r.body.input[0] === q).length;

describe('through find', () => {
  let d: Ctx;
  beforeAll(async () => {
    d = await setup({ config: { embedding: embedding() } });
    await write(d.t, d.alice, 'ctx://resources/kitchen/bread.md', '# Bread\n\nSourdough needs a lively starter and a long, cool rise.');
    await wait(d.t);
  });
  afterAll(() => d.t.close());

  it('answers a repeated query without the embedder, with the same result', async () => {
    const body = { query: 'sourdough starter rise', limit: 5 };
    const first = await post(d.t, d.alice, '/api/v1/search/find', body);
    expect(first.status).toBe(200);
    expect(first.body.result.resources[0].uri).toBe('ctx://resources/kitchen/bread.md');
    const second = await post(d.t, d.alice, '/api/v1/search/find', body);
    expect(second.body.result).toEqual(first.body.result);
    expect(asked('sourdough starter rise')).toBe(1);
    // Another text is another entry; the user does not matter (the vector is the text's).
    await post(d.t, d.bob, '/api/v1/search/find', { query: 'cool rise' });
    await post(d.t, d.alice, '/api/v1/search/find', { query: 'cool rise' });
    expect(asked('cool rise')).toBe(1);
  });

  it('a failed embedder call fails the find and is not remembered', async () => {
    srv.plan.push({ status: 400, body: JSON.stringify({ error: { message: 'scripted refusal' } }) });
    const failed = await post(d.t, d.alice, '/api/v1/search/find', { query: 'lively starter' });
    expect(failed.status).toBeGreaterThanOrEqual(400);
    expect(failed.body.status).toBe('error');
    const ok = await post(d.t, d.alice, '/api/v1/search/find', { query: 'lively starter' });
    expect(ok.status).toBe(200);
    expect(asked('lively starter')).toBe(2);
  });

  it('bad input still gets the error envelope before any embedding', async () => {
    const before = srv.received.length;
    const r = await post(d.t, d.alice, '/api/v1/search/find', { query: 'x', limit: 'many' });
    expect(r.status).toBe(400);
    expect(r.body.error?.code).toBe('INVALID_ARGUMENT');
    expect(srv.received.length).toBe(before);
  });
});

describe('configuration', () => {
  it('size 0 turns it off: every find asks the embedder', async () => {
    const d = await setup({ config: { embedding: embedding(), pluginSections: { retrieval: { queryEmbeddingCache: 0 } } } });
    try {
      for (let i = 0; i < 3; i++) expect((await post(d.t, d.alice, '/api/v1/search/find', { query: 'uncached rye' })).status).toBe(200);
      expect(asked('uncached rye')).toBe(3);
    } finally {
      await d.t.close();
    }
  });

  it('a negative size refuses to start, naming the plugin', async () => {
    await expect(startTestApp({ config: { pluginSections: { retrieval: { queryEmbeddingCache: -1 } } } })).rejects.toThrow(/plugin retrieval/);
  });
});

describe('the cache itself (the local embedder)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('is bounded, least recently used out, and emptied when the embedder changes', async () => {
    const real = t.app.service<VectorStoreService>('vector-store').embedder;
    let calls = 0;
    const counted = { ...real, info: real.info, supportsImages: real.supportsImages, embed: (texts: string[], mode: 'query' | 'document') => (calls++, real.embed(texts, mode)) };
    const cache = new QueryEmbeddingCache(2);
    const [a] = await cache.embed(counted, ['alpha']);
    expect(Array.from(a!)).toEqual(Array.from((await real.embed(['alpha'], 'query'))[0]!));
    await cache.embed(counted, ['beta']);
    await cache.embed(counted, ['alpha']); // alpha is now the most recent
    await cache.embed(counted, ['gamma']); // evicts beta
    expect(cache.size).toBe(2);
    calls = 0;
    await cache.embed(counted, ['alpha', 'gamma']);
    expect(calls).toBe(0);
    await cache.embed(counted, ['beta']);
    expect(calls).toBe(1);
    // Same texts under another model: nothing carried over.
    const other = { ...counted, info: { ...real.info, model: 'another-model' } };
    calls = 0;
    await cache.embed(other, ['alpha']);
    expect(calls).toBe(1);
    expect(cache.size).toBe(1);
  });

  it('identical texts in flight together share one call', async () => {
    const real = t.app.service<VectorStoreService>('vector-store').embedder;
    let calls = 0;
    const counted = { info: real.info, supportsImages: real.supportsImages, embed: (texts: string[], mode: 'query' | 'document') => (calls++, real.embed(texts, mode)) };
    const cache = new QueryEmbeddingCache(8);
    const [x, y] = await Promise.all([cache.embed(counted, ['delta']), cache.embed(counted, ['delta'])]);
    expect(calls).toBe(1);
    expect(x![0]).toBe(y![0]);
  });
});
