/**
 * The `neural` embedder (all-MiniLM-L6-v2 in core-native) against reference vectors computed by
 * an independent numpy forward pass over the same weights (scripts/embed-reference.py →
 * test/fixtures/neural-embed-reference.json), and end to end: an app configured with it finds a
 * paraphrase that shares no word with the document. The model is installed by `npm run setup`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../runtime/config.js';
import { createEmbedder, defaultNeuralModelDir, EmbedderConfigError, NeuralEmbedder } from '../../runtime/models/embedder.js';
import { NeuralEmbedder as NativeNeuralEmbedder, textKernels } from '../../runtime/native.js';
import { post, setup, wait, type Ctx } from '../retrieval/helpers.js';
import { tempDir } from '../helpers/app.js';

interface Fixture {
  model: string;
  weights_sha256: string;
  max_tokens: number;
  sentences: Array<{ text: string; tokens: number; vector: number[] }>;
}
const fixture = JSON.parse(fs.readFileSync(path.join(__dirname, '../fixtures/neural-embed-reference.json'), 'utf8')) as Fixture;

function compare(got: Float32Array, want: number[]): { cosine: number; maxDiff: number } {
  let dot = 0;
  let maxDiff = 0;
  for (let i = 0; i < want.length; i++) {
    dot += got[i]! * want[i]!;
    maxDiff = Math.max(maxDiff, Math.abs(got[i]! - want[i]!));
  }
  return { cosine: dot, maxDiff };
}

describe('neural embedder vs the numpy reference', () => {
  it('the native model reproduces every reference vector, alone and batched (cosine >= 0.999, max abs diff <= 2e-3)', async () => {
    const native = new NativeNeuralEmbedder(defaultNeuralModelDir());
    const info = native.info();
    expect(info).toMatchObject({ model: fixture.model, weightsSha256: fixture.weights_sha256, dim: 384, maxTokens: fixture.max_tokens, pooling: 'mean', normalized: true });
    const batched = await native.embed(fixture.sentences.map((s) => s.text));
    expect(batched.length).toBe(fixture.sentences.length * 384);
    for (let i = 0; i < fixture.sentences.length; i++) {
      const want = fixture.sentences[i]!.vector;
      const b = compare(batched.subarray(i * 384, (i + 1) * 384), want);
      const alone = compare(await native.embed([fixture.sentences[i]!.text]), want);
      for (const r of [b, alone]) {
        expect(r.cosine, `sentence ${i}`).toBeGreaterThanOrEqual(0.999);
        expect(r.maxDiff, `sentence ${i}`).toBeLessThanOrEqual(2e-3);
      }
    }
  });

  it('the provider: unit vectors in order, empty texts as zero vectors, info feeds the embedding metadata', async () => {
    const e = await createEmbedder({ provider: 'neural' });
    expect(e.info).toMatchObject({ provider: 'neural', model: 'sentence-transformers/all-MiniLM-L6-v2', dim: 384, inputMode: 'text' });
    expect(e.info.params).toMatchObject({ weightsSha256: fixture.weights_sha256, maxTokens: 256, pooling: 'mean', normalized: true, version: 1 });
    const texts = [fixture.sentences[1]!.text, '  ', fixture.sentences[0]!.text];
    const out = await e.embed(texts, 'document');
    expect(out.map((v) => v.length)).toEqual([384, 384, 384]);
    expect(compare(out[0]!, fixture.sentences[1]!.vector).cosine).toBeGreaterThanOrEqual(0.999);
    expect(out[1]!.every((x) => x === 0)).toBe(true);
    expect(compare(out[2]!, fixture.sentences[0]!.vector).cosine).toBeGreaterThanOrEqual(0.999);
    // Concurrent callers share the worker (their requests are merged) and each gets its own rows.
    const many = await Promise.all(fixture.sentences.slice(0, 4).map((s) => e.embed([s.text], 'query')));
    many.forEach((v, i) => expect(compare(v[0]!, fixture.sentences[i]!.vector).cosine).toBeGreaterThanOrEqual(0.999));
  });

  it('absent weights: a configuration error naming the missing file; a wrong CTX_EMBEDDING_DIM is refused', async () => {
    const dir = tempDir('ctx-neural-missing-');
    try {
      const err = await createEmbedder({ provider: 'neural', modelDir: dir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EmbedderConfigError);
      expect((err as Error).message).toContain(path.join(dir, 'model.safetensors'));
      expect((err as Error).message).toContain('npm run setup');
      fs.copyFileSync(path.join(defaultNeuralModelDir(), 'model.safetensors'), path.join(dir, 'model.safetensors'));
      const err2 = await createEmbedder({ provider: 'neural', modelDir: dir }).catch((e: unknown) => e);
      expect((err2 as Error).message).toContain(path.join(dir, 'tokenizer.json'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(() => new NeuralEmbedder({ dim: 768 })).toThrow(/384 dimensions but CTX_EMBEDDING_DIM=768/);
  });

  it('config: CTX_EMBEDDING_PROVIDER=neural and CTX_EMBEDDING_MODEL_DIR are read and validated', () => {
    const c = loadConfig({ CTX_EMBEDDING_PROVIDER: 'neural', CTX_EMBEDDING_MODEL_DIR: '/opt/model', CTX_AUTH_MODE: 'dev' });
    expect(c.embedding).toMatchObject({ provider: 'neural', modelDir: '/opt/model' });
    expect(() => loadConfig({ CTX_EMBEDDING_PROVIDER: 'bert', CTX_AUTH_MODE: 'dev' })).toThrow(/local, neural or openai/);
  });
});

describe('neural provider end to end', () => {
  let c: Ctx;
  const docs: Record<string, string> = {
    'ctx://resources/notes/baking.md': 'Feed the sourdough starter the night before, then let the dough proof slowly in the fridge before it goes into a hot oven.',
    'ctx://resources/notes/brakes.md': 'Replace worn brake pads as soon as they squeal; inspect the rotors for grooves.',
    'ctx://resources/notes/invoice.md': 'The invoice is overdue: the client still owes the full amount billed in March.',
    'ctx://resources/notes/puppy.md': 'Our puppy gets kibble every morning and needs a walk twice daily.',
  };
  const queries: Array<[string, string]> = [
    ['how do I make bread at home', 'ctx://resources/notes/baking.md'],
    ['my automobile screeches when stopping', 'ctx://resources/notes/brakes.md'],
    ['customer has not settled payment', 'ctx://resources/notes/invoice.md'],
  ];

  beforeAll(async () => {
    c = await setup({ config: { embedding: { provider: 'neural' } } });
    const r = await c.t.req({
      method: 'POST',
      url: '/api/v1/content/batch-write',
      headers: c.admin,
      body: { root_uri: 'ctx://resources', operations: Object.entries(docs).map(([uri, content]) => ({ uri, content, mode: 'upsert' })) },
    });
    expect(r.status, r.text).toBe(200);
    await wait(c.t);
  }, 60_000);
  afterAll(async () => {
    await c?.t.close();
  });

  it('a paraphrase sharing no word with the document finds it first', async () => {
    for (const [query, want] of queries) {
      // The point of the test: no stemmed token in common, so only the model's semantics can match.
      const q = new Set(textKernels.tokenizeStemmed(query));
      expect(textKernels.tokenizeStemmed(docs[want]!).filter((t) => q.has(t)), query).toEqual([]);
      const r = await post(c.t, c.admin, '/api/v1/search/find', { query, target_uri: 'ctx://resources/notes', limit: 5 });
      expect(r.status).toBe(200);
      const leaves = (r.body.result.resources as Array<{ uri: string }>).map((m) => m.uri).filter((u) => u.endsWith('.md'));
      expect(leaves[0], query).toBe(want);
    }
  });

  it('the vector index records the neural embedder', async () => {
    const obs = (await c.t.req({ method: 'GET', url: '/api/v1/observer/vectordb', headers: c.t.root })).json().result.status as string;
    expect(obs).toContain('neural/sentence-transformers/all-MiniLM-L6-v2');
  });
});
