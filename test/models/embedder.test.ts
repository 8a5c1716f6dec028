import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isCtxError } from '../../runtime/errors.js';
import { createEmbedder, EmbedderConfigError, LocalEmbedder, OpenAiEmbedder, type EmbedderConfig } from '../../runtime/models/embedder.js';
import { RemoteModelError } from '../../runtime/models/resilient-http.js';
import { fakeVector, startFakeOpenAi, type FakeServer } from './fake-openai.js';

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

let srv: FakeServer;
let sleeps: number[];
let clock: number;

/** Backoff sleeps are recorded, not waited; the breaker reads a clock the test moves. */
function config(over: Partial<EmbedderConfig> = {}): EmbedderConfig {
  return {
    provider: 'openai',
    baseUrl: srv.url,
    model: 'fake-embed',
    apiKey: 'sk-test',
    dim: srv.dim,
    sleep: async (ms) => void sleeps.push(ms),
    now: () => clock,
    ...over,
  };
}

beforeEach(async () => {
  srv = await startFakeOpenAi(8);
  sleeps = [];
  clock = 1_000_000;
});
afterEach(() => srv.close());

describe('openai embedder', () => {
  it('checks the dimension at start and sends the real protocol', async () => {
    const e = await createEmbedder(config());
    expect(e.info).toMatchObject({ provider: 'openai', model: 'fake-embed', dim: 8, inputMode: 'text' });
    expect(e.supportsImages).toBe(false);
    expect(srv.received).toHaveLength(1); // the probe
    expect(srv.received[0]).toMatchObject({ path: '/v1/embeddings', auth: 'Bearer sk-test', body: { model: 'fake-embed', input: ['dimension check'] } });
  });

  it('adopts the dimension when CTX_EMBEDDING_DIM is unset', async () => {
    const e = await createEmbedder(config({ dim: undefined }));
    expect(e.info.dim).toBe(8);
  });

  it('refuses a dimension mismatch at start with a clear error', async () => {
    const err = await createEmbedder(config({ dim: 768 })).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedderConfigError);
    expect((err as Error).message).toMatch(/returns 8-dimensional vectors but CTX_EMBEDDING_DIM=768/);
    expect((err as Error).message).toMatch(/CTX_EMBEDDING_DIM=8/);
  });

  it('refuses a missing base URL or model', async () => {
    await expect(createEmbedder({ provider: 'openai', model: 'm' })).rejects.toThrow(/CTX_EMBEDDING_BASE_URL/);
    await expect(createEmbedder({ provider: 'openai', baseUrl: srv.url })).rejects.toThrow(/CTX_EMBEDDING_MODEL/);
  });

  it('batches by count, keeps order through `index`, normalizes, answers empty texts locally', async () => {
    const e = await createEmbedder(config({ batchSize: 64 }));
    srv.received.length = 0;
    srv.shuffle = true;
    const texts = Array.from({ length: 150 }, (_, i) => `text number ${i}`);
    texts[10] = '';
    const vecs = await e.embed(texts, 'document');
    expect(srv.received.map((r) => r.body.input!.length)).toEqual([64, 64, 21]);
    expect(srv.received.flatMap((r) => r.body.input)).not.toContain('');
    expect(vecs).toHaveLength(150);
    expect(Array.from(vecs[10]!)).toEqual(new Array(8).fill(0));
    for (const i of [0, 63, 64, 149]) {
      const want = fakeVector(texts[i]!, 8);
      const n = Math.sqrt(want.reduce((s, x) => s + x * x, 0));
      expect(norm(vecs[i]!)).toBeCloseTo(1, 5);
      vecs[i]!.forEach((x, j) => expect(x).toBeCloseTo(want[j]! / n, 5));
    }
    expect(e.stats()).toMatchObject({ texts: 150 });
  });

  it('batches by characters too, and cuts overlong texts', async () => {
    const e = await createEmbedder(config({ batchChars: 1000, maxTextChars: 400 }));
    srv.received.length = 0;
    await e.embed(['a'.repeat(600), 'b'.repeat(300), 'c'.repeat(300), 'd'.repeat(300)], 'document');
    expect(srv.received.map((r) => r.body.input!.map((t) => t.length))).toEqual([[400, 300, 300], [300]]);
  });

  it('runs batches concurrently up to the bound', async () => {
    const e = await createEmbedder(config({ batchSize: 2, concurrency: 3 }));
    srv.gate = 3; // the server answers only once 3 requests are in flight at once
    await e.embed(['a', 'b', 'c', 'd', 'e', 'f'], 'document');
    expect(srv.maxInFlight).toBe(3);
    srv.gate = 0;
    srv.maxInFlight = 0;
    const one = await createEmbedder(config({ batchSize: 1, concurrency: 1 }));
    await one.embed(['a', 'b', 'c', 'd'], 'document');
    expect(srv.maxInFlight).toBe(1);
  });

  it('shares the concurrency bound between concurrent callers', async () => {
    const e = await createEmbedder(config({ batchSize: 1, concurrency: 2 }));
    srv.maxInFlight = 0;
    srv.gate = 2; // answers only once two requests are in flight: proves they overlap
    await Promise.all([e.embed(['a', 'b', 'c'], 'document'), e.embed(['d', 'e', 'f'], 'document'), e.embed(['g', 'h'], 'query')]);
    expect(srv.maxInFlight).toBe(2);
    expect(srv.received.length).toBe(1 + 8);
  });

  it('treats a rejected API key as the endpoint being unusable: no retry, counts for the breaker', async () => {
    const e = await createEmbedder(config({ retries: 3, breakerThreshold: 2 }));
    srv.received.length = 0;
    srv.plan = [{ status: 401 }, { status: 403 }];
    await expect(e.embed(['x'], 'query')).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/HTTP 401/) });
    await expect(e.embed(['y'], 'query')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(srv.received).toHaveLength(2);
    expect(sleeps).toHaveLength(0);
    expect(e.stats().endpoint!.breaker).toBe('open');
  });

  it('adds query/document prefixes', async () => {
    const e = await createEmbedder(config({ queryPrefix: 'query: ', documentPrefix: 'passage: ' }));
    srv.received.length = 0;
    await e.embed(['x'], 'query');
    await e.embed(['y'], 'document');
    expect(srv.received.map((r) => r.body.input![0])).toEqual(['query: x', 'passage: y']);
    expect(e.info.params).toMatchObject({ queryPrefix: 'query: ', documentPrefix: 'passage: ' });
  });

  it('retries 429 and 5xx with growing backoff, honouring Retry-After', async () => {
    const e = await createEmbedder(config({ backoffMs: 100, retries: 4 }));
    srv.received.length = 0;
    srv.plan = [{ status: 429, headers: { 'retry-after': '2' } }, { status: 503 }, { status: 502 }];
    const [v] = await e.embed(['hello'], 'query');
    expect(norm(v!)).toBeCloseTo(1, 5);
    expect(srv.received).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
    expect(sleeps[0]).toBeGreaterThanOrEqual(2000); // Retry-After: 2 is a floor
    expect(sleeps[1]).toBeLessThanOrEqual(200); // full jitter under 100·2¹
    expect(sleeps[2]).toBeLessThanOrEqual(400);
    expect(e.stats().endpoint).toMatchObject({ retries: 3, breaker: 'closed' });
  });

  it('gives up after the retries with UNAVAILABLE', async () => {
    const e = await createEmbedder(config({ retries: 2, breakerThreshold: 100 }));
    srv.received.length = 0;
    srv.plan = Array.from({ length: 5 }, () => ({ status: 500 }));
    const err = await e.embed(['x'], 'query').catch((x: unknown) => x);
    expect(isCtxError(err) && err.code).toBe('UNAVAILABLE');
    expect((err as Error).message).toMatch(/HTTP 500/);
    expect(srv.received).toHaveLength(3);
  });

  it('does not retry a request the server rejects (400), nor count it against the endpoint', async () => {
    const e = await createEmbedder(config({ breakerThreshold: 1 }));
    srv.received.length = 0;
    srv.plan = [{ status: 400, body: '{"error":{"message":"too long"}}' }];
    const err = await e.embed(['x'], 'document').catch((x: unknown) => x);
    expect(err).toBeInstanceOf(RemoteModelError);
    expect((err as RemoteModelError).status).toBe(400);
    expect(srv.received).toHaveLength(1);
    expect(e.stats().endpoint!.breaker).toBe('closed');
  });

  it('opens the breaker after repeated failures, fails fast, and recovers through half-open', async () => {
    const e = await createEmbedder(config({ retries: 0, breakerThreshold: 3, breakerCooldownMs: 10_000 }));
    srv.received.length = 0;
    srv.plan = Array.from({ length: 3 }, () => ({ status: 503 }));
    for (let i = 0; i < 3; i++) await expect(e.embed([`x${i}`], 'query')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(e.stats().endpoint).toMatchObject({ breaker: 'open', breakerOpens: 1 });
    // Open: rejected without touching the server.
    const fast = await e.embed(['y'], 'query').catch((x: unknown) => x);
    expect(fast).toMatchObject({ code: 'UNAVAILABLE', details: { breaker: 'open' } });
    expect((fast as Error).message).toMatch(/circuit breaker open/);
    expect(srv.received).toHaveLength(3);
    // Cooldown over: one probe goes through; it fails, so the breaker opens again.
    clock += 10_000;
    expect(e.stats().endpoint!.breaker).toBe('half-open');
    srv.plan = [{ status: 500 }];
    await expect(e.embed(['probe'], 'query')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(e.stats().endpoint).toMatchObject({ breaker: 'open', breakerOpens: 2 });
    await expect(e.embed(['still'], 'query')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(srv.received).toHaveLength(4);
    // Next cooldown: the probe succeeds and the breaker closes.
    clock += 10_000;
    const [v] = await e.embed(['probe 2'], 'query');
    expect(norm(v!)).toBeCloseTo(1, 5);
    expect(e.stats().endpoint!.breaker).toBe('closed');
    await e.embed(['a', 'b'], 'document');
    expect(srv.received).toHaveLength(6);
  });

  it('lets only one probe through while half-open', async () => {
    const e = await createEmbedder(config({ retries: 0, breakerThreshold: 1, breakerCooldownMs: 1000, batchSize: 1, concurrency: 4 }));
    srv.plan = [{ status: 500 }];
    await expect(e.embed(['x'], 'query')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    clock += 1000;
    srv.received.length = 0;
    // Two batches at once: the first is the probe, the second is refused while it is out.
    const err = await e.embed(['a', 'b'], 'document').catch((x: unknown) => x);
    expect(err).toMatchObject({ code: 'UNAVAILABLE' });
    expect(srv.received.length).toBeLessThanOrEqual(1);
  });

  it('rejects malformed answers', async () => {
    const e = await createEmbedder(config());
    srv.plan = [{ json: { data: [{ embedding: [1, 2], index: 0 }] } }];
    await expect(e.embed(['x'], 'query')).rejects.toThrow(/2-dimensional vector, expected 8/);
    srv.plan = [{ json: { data: [] } }];
    await expect(e.embed(['x'], 'query')).rejects.toThrow(/0 vectors for 1 inputs/);
    srv.plan = [{ json: { data: [{ embedding: new Array(8).fill(1), index: 5 }] } }];
    await expect(e.embed(['x'], 'query')).rejects.toThrow(/malformed data\[0\]/);
    srv.plan = [{ status: 200, body: 'not json' }];
    await expect(e.embed(['x'], 'query')).rejects.toThrow(/not JSON/);
  });

  it('asks for base64 vectors and decodes them; reads float lists from a server that ignores the field', async () => {
    const e = await createEmbedder(config());
    expect(srv.received[0]!.body.encoding_format).toBe('base64');
    const [v] = await e.embed(['hello'], 'query');
    const want = fakeVector('hello', 8);
    const n = Math.sqrt(want.reduce((s, x) => s + x * x, 0));
    want.forEach((x, i) => expect(v![i]).toBeCloseTo(x / n, 6));
    srv.base64 = 'ignore';
    const [w] = await e.embed(['hello'], 'query');
    expect([...w!]).toEqual([...v!]);
    expect(srv.received.at(-1)!.body.encoding_format).toBe('base64');
    // base64 that is not whole float32s, or a vector of the wrong size, is a malformed answer.
    srv.plan = [{ json: { data: [{ embedding: 'AAAAAA==', index: 0 }] } }];
    await expect(e.embed(['x'], 'query')).rejects.toThrow(/1-dimensional vector, expected 8/);
    srv.plan = [{ json: { data: [{ embedding: 'AAA', index: 0 }] } }];
    await expect(e.embed(['x'], 'query')).rejects.toThrow(/malformed data\[0\]/);
    srv.plan = [{ json: { data: [{ embedding: Buffer.from(new Float32Array([1, NaN, 0, 0, 0, 0, 0, 0]).buffer).toString('base64'), index: 0 }] } }];
    await expect(e.embed(['x'], 'query')).rejects.toThrow(/non-finite/);
  });

  it('falls back to float lists for good when the server refuses base64 before ever accepting it', async () => {
    srv.base64 = 'refuse';
    const e = await createEmbedder(config());
    expect(srv.received.map((r) => r.body.encoding_format)).toEqual(['base64', 'float']);
    expect(e.info.dim).toBe(8);
    srv.received.length = 0;
    const [v] = await e.embed(['hello'], 'document');
    expect(norm(v!)).toBeCloseTo(1, 5);
    expect(srv.received.map((r) => r.body.encoding_format)).toEqual(['float']);
    // Once a format worked, a 400 is the request's fault: no second try in another format.
    srv.plan = [{ status: 400 }];
    await expect(e.embed(['x'], 'query')).rejects.toMatchObject({ status: 400 });
    expect(srv.received).toHaveLength(2);
  });

  it('is remote: a find lets its request leave before its own work', async () => {
    const e = await createEmbedder(config());
    expect(e.remote).toBe(true);
    expect(new LocalEmbedder(8).remote).toBe(false);
  });

  it('stops on abort', async () => {
    const e = await createEmbedder(config());
    const ac = new AbortController();
    ac.abort(new Error('caller gave up'));
    await expect(e.embed(['x'], 'query', ac.signal)).rejects.toThrow(/caller gave up/);
  });

  it('reports a dead endpoint at start as UNAVAILABLE and can check again later', async () => {
    await srv.close();
    const e = new OpenAiEmbedder(config({ retries: 0, skipCheck: true }));
    await expect(e.check()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    srv = await startFakeOpenAi(8);
    const e2 = new OpenAiEmbedder(config({ retries: 0, skipCheck: true }));
    await e2.check();
    expect(e2.info.dim).toBe(8);
  });
});

describe('local embedder', () => {
  it('is the default, native and deterministic', async () => {
    const e = await createEmbedder({ provider: 'local' });
    expect(e).toBeInstanceOf(LocalEmbedder);
    expect(e.info).toMatchObject({ provider: 'local', model: 'ctx-lexical-v2', dim: 384, inputMode: 'text' });
    expect(e.info.params).toMatchObject({ charMin: 3, charMax: 4 });
    expect(e.supportsImages).toBe(false);
    await e.check();
    const long = 'retrieval engines rank documents by similarity. '.repeat(400); // async path
    const [a, b, c] = await e.embed(['Hello world', long, 'hello WORLD'], 'document');
    expect(a).toHaveLength(384);
    expect(norm(b!)).toBeCloseTo(1, 5);
    expect(Array.from(a!)).toEqual(Array.from(c!));
    const [again] = await e.embed([long], 'query');
    expect(Array.from(again!)).toEqual(Array.from(b!));
  });

  it('takes its dimension from config and rejects a bad one', async () => {
    const e = await createEmbedder({ provider: 'local', dim: 256 });
    expect(e.info.dim).toBe(256);
    await expect(createEmbedder({ provider: 'local', dim: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
