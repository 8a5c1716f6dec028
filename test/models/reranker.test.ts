import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createReranker } from '../../runtime/models/reranker.js';
import { startFakeOpenAi, type FakeServer } from './fake-openai.js';

let srv: FakeServer;
beforeEach(async () => {
  srv = await startFakeOpenAi();
});
afterEach(() => srv.close());

const docs = ['rotate the database password', 'quarterly budget review', 'password reset by email', 'database backups nightly'];

describe('reranker', () => {
  it('is off without a base URL', () => {
    expect(createReranker({})).toBeNull();
  });

  it('speaks POST /rerank and returns indices best first with scores in [0,1]', async () => {
    const r = createReranker({ baseUrl: srv.url + '/', model: 'fake-rerank', apiKey: 'k' })!;
    const out = await r.rerank('database password', docs);
    expect(srv.received[0]).toMatchObject({ path: '/v1/rerank', auth: 'Bearer k', body: { model: 'fake-rerank', query: 'database password', documents: docs, top_n: 4 } });
    expect(out.map((x) => x.index)).toEqual([0, 3, 2, 1]);
    expect(out.every((x) => x.score >= 0 && x.score <= 1)).toBe(true);
    expect(await r.rerank('database password', docs, { topN: 2 })).toHaveLength(2);
    expect(await r.rerank('q', [])).toEqual([]);
  });

  it('splits long lists into requests and merges them by score; logits become probabilities', async () => {
    srv.logits = true;
    const r = createReranker({ baseUrl: srv.url, model: 'm', batchSize: 3 })!;
    const out = await r.rerank('database password', docs);
    expect(srv.received.map((x) => x.body.documents!.length)).toEqual([3, 1]);
    expect(out.map((x) => x.index)).toEqual([0, 3, 2, 1]);
    expect(out.every((x) => x.score > 0 && x.score < 1)).toBe(true);
  });

  it('retries transient failures and rejects malformed answers', async () => {
    const r = createReranker({ baseUrl: srv.url, model: 'm', sleep: async () => {} })!;
    srv.plan = [{ status: 503 }];
    expect((await r.rerank('database', docs)).length).toBe(4);
    expect(srv.received).toHaveLength(2);
    srv.plan = [{ json: { results: [{ index: 9, relevance_score: 0.5 }] } }];
    await expect(r.rerank('database', docs)).rejects.toThrow(/malformed results\[0\]/);
    srv.plan = [{ json: { nothing: true } }];
    await expect(r.rerank('database', docs)).rejects.toThrow(/no results array/);
  });
});
