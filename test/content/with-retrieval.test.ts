/** Content with the real indexer (the retrieval plugin consuming Semantic and Embedding). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let alice: Record<string, string>;
const post = (url: string, body: unknown) => t.req({ method: 'POST', url, headers: alice, body });

beforeAll(async () => {
  t = await startTestApp();
  alice = (await t.account('acme', ['alice'])).users.alice!;
});
afterAll(() => t.close());

describe('with the retrieval plugin', () => {
  it('is loaded and consumes the index queues', () => {
    expect(t.app.plugins).toContain('retrieval');
    expect(t.app.queues.hasConsumer('Semantic') && t.app.queues.hasConsumer('Embedding')).toBe(true);
  });

  it('write with wait returns once the file and its directories are indexed', async () => {
    const r = (await post('/api/v1/content/write', { uri: 'ctx://resources/guide/setup.md', content: '# Setup\nInstall the service, then start it.\n', wait: true })).json().result;
    expect(r).toMatchObject({ semantic_status: 'complete', vector_status: 'complete', content_updated: true });
    expect(r.queue_status.Semantic.processed).toBeGreaterThanOrEqual(1);
    expect(r.queue_status.Embedding.processed).toBeGreaterThanOrEqual(1);
    expect(r.queue_status.Semantic.pending + r.queue_status.Embedding.pending).toBe(0);
    const abstract = (await t.req({ url: `/api/v1/content/abstract?uri=${encodeURIComponent('ctx://resources/guide')}`, headers: alice })).json().result;
    expect(abstract.length).toBeGreaterThan(0);
    expect(abstract).not.toContain('<!-- ctx:');
  });

  it('batch-write waits by default; an edited abstract keeps the author text after its refresh', async () => {
    const r = (await post('/api/v1/content/batch-write', {
      root_uri: 'ctx://resources/guide',
      operations: Array.from({ length: 20 }, (_, i) => ({ uri: `ctx://resources/guide/p/${i}.md`, content: `page ${i} about topic ${i % 3}`, mode: 'upsert' })),
    })).json().result;
    expect(r.created).toHaveLength(20);
    expect(r).toMatchObject({ semantic_status: 'complete', vector_status: 'complete' });
    expect(r.queue_status.Semantic.processed).toBeGreaterThanOrEqual(20);
    const edit = (await post('/api/v1/content/write', { uri: 'ctx://resources/guide/p/.abstract.md', content: 'Hand-written pages summary.', wait: true })).json().result;
    expect(edit).toMatchObject({ content_updated: true, semantic_status: 'complete' });
    expect((await t.req({ url: `/api/v1/content/abstract?uri=${encodeURIComponent('ctx://resources/guide/p')}`, headers: alice })).json().result).toBe('Hand-written pages summary.');
  });

  it('reindex runs to completion as a task', async () => {
    const r = (await post('/api/v1/content/reindex', { uri: 'ctx://resources/guide', mode: 'vectors_only', recursive: true, wait: true })).json().result;
    expect(r).toMatchObject({ status: 'completed', semantic_status: 'complete', vector_status: 'complete' });
    expect(r.queue_status.Semantic.processed).toBeGreaterThanOrEqual(1);
  });
});

describe('set_tags and the search records', () => {
  const settle = async () => expect((await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: t.root, body: { timeout: 30 } })).status).toBe(200);
  const found = async (tags: string[]) =>
    (await post('/api/v1/search/find', { query: 'redis eviction maxmemory policy', tags, limit: 20 })).json().result.resources.map((r: { uri: string }) => r.uri);
  const FILE = 'ctx://resources/tagged/cache/redis.md';

  it('content/set_tags re-tags the file record: find by the new tag finds it, by the old one no longer', async () => {
    expect((await post('/api/v1/content/write', { uri: FILE, content: '# Redis eviction\nThe maxmemory policy allkeys-lru evicts least recently used keys.', tags: ['team=cache'] })).status).toBe(200);
    await settle();
    expect(await found(['team=cache'])).toContain(FILE);
    expect(await found(['team=db'])).not.toContain(FILE);
    const res = await post('/api/v1/content/set_tags', { uri: FILE, tags: ['team=db'] });
    expect(res.json().result).toMatchObject({ updated_uris: [FILE], success_count: 1 });
    await settle();
    expect(await found(['team=db'])).toContain(FILE);
    expect(await found(['team=cache'])).not.toContain(FILE);
  });

  it('recursive set_tags on a directory (fs route) reaches the records below it; append keeps the other keys', async () => {
    const res = await post('/api/v1/fs/attrs/set_tags', { uri: 'ctx://resources/tagged', tags: ['area=ops'], mode: 'append', recursive: true });
    expect(res.json().result.updated_uris).toContain(FILE);
    await settle();
    expect(await found(['area=ops', 'team=db'])).toContain(FILE);
    expect(await found(['area=dev'])).not.toContain(FILE);
  });
});
