/**
 * The model clients the host hands every plugin (`host.models`), built from the configuration the
 * plugin never sees: the provider keys stay in the clients' closures, so `host.config` carries no
 * secret and a plugin still calls the operator's LLM, reranker and embedder.
 */
import type { CtxConfig } from '../config.js';
import { createEmbedder, type Embedder } from './embedder.js';
import { createLlm, type Llm, type LlmConfig } from './llm.js';
import { createReranker, type Reranker } from './reranker.js';

export interface HostModels {
  /** A client of the configured chat model (`llm.*`), or null when none is configured. */
  llm(opts?: Pick<LlmConfig, 'retries' | 'timeoutMs'>): Llm | null;
  /** A client of the configured reranker (`rerank.*`), or null when none is configured. */
  reranker(): Reranker | null;
  /** The configured embedder (`embedding.*`); a remote one's dimension is checked first. */
  embedder(): Promise<Embedder>;
}

export function hostModels(config: CtxConfig): HostModels {
  return {
    llm: (opts) => createLlm({ ...config.llm, ...opts }),
    reranker: () => createReranker(config.rerank),
    embedder: () => createEmbedder(config.embedding),
  };
}
