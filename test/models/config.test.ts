import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../runtime/config.js';

const base = { CTX_AUTH_MODE: 'dev' };
const load = (env: Record<string, string>) => loadConfig({ ...base, ...env });

describe('embedding and rerank configuration', () => {
  it('defaults to the local embedder and no reranker', () => {
    const c = load({});
    expect(c.embedding).toEqual({ provider: 'local' });
    expect(c.rerank).toEqual({});
  });

  it('reads every CTX_EMBEDDING_* and CTX_RERANK_* key', () => {
    const c = load({
      CTX_EMBEDDING_PROVIDER: 'openai',
      CTX_EMBEDDING_BASE_URL: 'http://127.0.0.1:11434/v1',
      CTX_EMBEDDING_MODEL: 'nomic-embed-text',
      CTX_EMBEDDING_API_KEY: 'sk-x',
      CTX_EMBEDDING_DIM: '768',
      CTX_RERANK_BASE_URL: 'https://api.jina.ai/v1',
      CTX_RERANK_MODEL: 'jina-reranker-v2',
      CTX_RERANK_API_KEY: 'jk',
    });
    expect(c.embedding).toEqual({ provider: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text', apiKey: 'sk-x', dim: 768 });
    expect(c.rerank).toEqual({ baseUrl: 'https://api.jina.ai/v1', model: 'jina-reranker-v2', apiKey: 'jk' });
  });

  it('refuses incomplete or impossible settings at start', () => {
    expect(() => load({ CTX_EMBEDDING_PROVIDER: 'cohere' })).toThrow(/local, neural or openai/);
    expect(() => load({ CTX_EMBEDDING_PROVIDER: 'openai', CTX_EMBEDDING_MODEL: 'm' })).toThrow(/CTX_EMBEDDING_BASE_URL/);
    expect(() => load({ CTX_EMBEDDING_PROVIDER: 'openai', CTX_EMBEDDING_BASE_URL: 'http://x/v1' })).toThrow(/CTX_EMBEDDING_MODEL/);
    expect(() => load({ CTX_EMBEDDING_DIM: '0' })).toThrow(/between 1 and 8192/);
    expect(() => load({ CTX_EMBEDDING_DIM: '12.5' })).toThrow(/non-negative integer/);
    expect(() => load({ CTX_RERANK_MODEL: 'm' })).toThrow(/CTX_RERANK_BASE_URL/);
  });
});
