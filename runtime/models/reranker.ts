/**
 * Optional reranker over the Cohere/Jina-style API: `POST {baseUrl}/rerank` with
 * `{model, query, documents, top_n}` → `{results: [{index, relevance_score}]}` (Cohere, Jina,
 * Voyage, TEI, vLLM and llama.cpp's reranking server all speak it; the base URL includes `/v1`).
 * Configured by CTX_RERANK_BASE_URL / CTX_RERANK_MODEL / CTX_RERANK_API_KEY; unset = no reranker
 * (`createReranker` returns null and callers keep their fused scores).
 */
import type { CtxConfig } from '../config.js';
import { ModelCallMetrics } from '../metrics/model-metrics.js';
import { RemoteModelError, ResilientEndpoint, type EndpointStats, type ResilienceOptions } from './resilient-http.js';

export interface RerankResult {
  /** Index into the documents passed in. */
  index: number;
  /** Relevance in [0, 1], higher is better. */
  score: number;
}

export interface Reranker {
  readonly info: { provider: 'rerank'; model: string; baseUrl: string };
  /** Scores every document (or the best `topN`), best first. */
  rerank(query: string, documents: string[], opts?: { topN?: number; signal?: AbortSignal }): Promise<RerankResult[]>;
  stats(): EndpointStats;
}

export interface RerankerConfig extends ResilienceOptions {
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  /** Documents per request (default 100; larger lists are split and merged). */
  batchSize?: number;
  /** Documents are cut to this many characters (default 4,000: rerankers read ~512 tokens). */
  maxDocChars?: number;
}

export function createReranker(config: CtxConfig['rerank'] | RerankerConfig): Reranker | null {
  if (!config.baseUrl) return null;
  return new HttpReranker(config as RerankerConfig);
}

interface RerankResponse {
  results?: Array<{ index?: unknown; relevance_score?: unknown; score?: unknown }>;
}

export class HttpReranker implements Reranker {
  readonly info: Reranker['info'];
  private readonly endpoint: ResilientEndpoint;
  private readonly batchSize: number;
  private readonly maxDocChars: number;

  constructor(c: RerankerConfig) {
    const base = c.baseUrl!.replace(/\/+$/, '');
    this.info = { provider: 'rerank', model: c.model ?? 'default', baseUrl: base };
    this.endpoint = new ResilientEndpoint('reranker', base, c.apiKey, { timeoutMs: 15_000, retries: 2, ...c });
    this.batchSize = Math.max(1, c.batchSize ?? 100);
    this.maxDocChars = Math.max(1, c.maxDocChars ?? 4000);
    this.metrics = new ModelCallMetrics('rerank', 'http', this.info.model);
  }

  private readonly metrics: ModelCallMetrics;

  async rerank(query: string, documents: string[], opts: { topN?: number; signal?: AbortSignal } = {}): Promise<RerankResult[]> {
    if (documents.length === 0) return [];
    return this.metrics.time(() => this.rerankAll(query, documents, opts));
  }

  private async rerankAll(query: string, documents: string[], opts: { topN?: number; signal?: AbortSignal }): Promise<RerankResult[]> {
    const chunks: number[] = [];
    for (let i = 0; i < documents.length; i += this.batchSize) chunks.push(i);
    // Cross-encoder scores are per (query, document) pair, so scores from separate requests
    // are comparable and the chunks merge by score.
    const parts = await Promise.all(chunks.map((start) => this.call(query, documents.slice(start, start + this.batchSize), start, opts.signal)));
    const all = calibrate(parts.flat());
    all.sort((a, b) => b.score - a.score || a.index - b.index);
    return opts.topN !== undefined ? all.slice(0, Math.max(0, opts.topN)) : all;
  }

  private async call(query: string, docs: string[], offset: number, signal?: AbortSignal): Promise<RerankResult[]> {
    const body = {
      model: this.info.model,
      query,
      documents: docs.map((d) => d.slice(0, this.maxDocChars)),
      top_n: docs.length,
      return_documents: false,
    };
    const json = (await this.endpoint.postJson('/rerank', body, signal)) as RerankResponse;
    if (!json || !Array.isArray(json.results)) throw new RemoteModelError('reranker answer has no results array', 200);
    const seen = new Set<number>();
    return json.results.map((r, k) => {
      const score = typeof r.relevance_score === 'number' ? r.relevance_score : r.score;
      if (typeof r.index !== 'number' || !Number.isInteger(r.index) || r.index < 0 || r.index >= docs.length || seen.has(r.index) || typeof score !== 'number' || !Number.isFinite(score)) {
        throw new RemoteModelError(`reranker answered a malformed results[${k}]`, 200);
      }
      seen.add(r.index);
      return { index: offset + r.index, score };
    });
  }

  stats(): EndpointStats {
    return this.endpoint.stats();
  }
}

/**
 * Cohere and Jina return probabilities in [0, 1]; some self-hosted servers return raw logits.
 * Logits go through a sigmoid (monotonic, so the order is unchanged) to honour the [0, 1]
 * contract of search scores.
 */
function calibrate(results: RerankResult[]): RerankResult[] {
  if (results.every((r) => r.score >= 0 && r.score <= 1)) return results;
  return results.map((r) => ({ index: r.index, score: 1 / (1 + Math.exp(-r.score)) }));
}
