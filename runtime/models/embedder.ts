/**
 * Embedders: `local` (default; core-native's lexical embedder, offline and deterministic),
 * `neural` (all-MiniLM-L6-v2 run in core-native from the model files `npm run setup` installs) and
 * `openai` (any OpenAI-compatible `POST {baseUrl}/embeddings`: OpenAI, Ollama, vLLM, llama.cpp,
 * TEI; the base URL includes `/v1`). Both return L2-normalized Float32Arrays, so inner product
 * is cosine similarity everywhere downstream.
 *
 * `info` is what the vector index stores as its embedding metadata; any change of provider,
 * model, dimension or parameters means existing vectors are not comparable and must be
 * re-embedded (the retrieval plugin compares it at start).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CtxConfig } from '../config.js';
import { localEmbed, nativeErrorCode, NeuralEmbedder as NativeNeuralEmbedder, type LocalEmbedParams } from '../native.js';
import { ModelCallMetrics } from '../metrics/model-metrics.js';
import { stamp, stamping } from './wire-stamps.js';
import { RemoteModelError, ResilientEndpoint, type EndpointStats, type ResilienceOptions } from './resilient-http.js';

export type EmbedKind = 'document' | 'query';

export interface EmbedderInfo {
  provider: 'local' | 'neural' | 'openai';
  model: string;
  dim: number;
  inputMode: 'text';
  params: Record<string, unknown>;
}

export interface Embedder {
  readonly info: EmbedderInfo;
  /** Neither provider embeds images: `image_url` queries get a clear 400 upstream. */
  readonly supportsImages: boolean;
  /**
   * Answers over the network (a round trip of milliseconds): a find lets the request leave before
   * its own synchronous work and overlaps that work with the wait. Absent means in-process.
   */
  readonly remote?: boolean;
  /** One unit-norm vector per text, in order. Empty texts give zero vectors (score 0). */
  embed(texts: string[], kind: EmbedKind, signal?: AbortSignal): Promise<Float32Array[]>;
  /** Verifies the provider answers with vectors of `info.dim` dimensions (at start). */
  check(): Promise<void>;
  stats(): EmbedderStats;
}

export interface EmbedderStats {
  texts: number;
  batches: number;
  endpoint?: EndpointStats;
}

export interface EmbedderConfig extends ResilienceOptions {
  provider: 'local' | 'neural' | 'openai';
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  dim?: number;
  /** openai: texts per request (default 64). */
  batchSize?: number;
  /** openai: characters per request, summed over its texts (default 200,000 ≈ 50k tokens). */
  batchChars?: number;
  /** openai: longer texts are cut to this many characters (default 30,000 ≈ 8k tokens). */
  maxTextChars?: number;
  /** openai: prefixes some models expect (e5: `query: ` / `passage: `); part of `info.params`. */
  queryPrefix?: string;
  documentPrefix?: string;
  /** openai: skip the start-up dimension probe (tests of the probe itself). */
  skipCheck?: boolean;
  /** local: tuning overrides (see runtime/native.ts). */
  local?: LocalEmbedParams;
  /** neural: the model directory (default: models/all-minilm-l6-v2 in the install). */
  modelDir?: string;
  /** neural: tokens per text (default 256) and texts per forward pass (default 32). */
  maxTokens?: number;
  neuralBatchSize?: number;
}

/** Embedding config problems found at start (dimension mismatch, missing URL or model). */
export class EmbedderConfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EmbedderConfigError';
  }
}

export async function createEmbedder(config: CtxConfig['embedding'] | EmbedderConfig): Promise<Embedder> {
  const c = config as EmbedderConfig;
  if (c.provider === 'openai') {
    const e = new OpenAiEmbedder(c);
    if (!c.skipCheck) await e.check();
    return timed(e);
  }
  if (c.provider === 'neural') return timed(new NeuralEmbedder(c));
  if (c.provider !== undefined && c.provider !== 'local') throw new EmbedderConfigError(`unknown embedding provider ${JSON.stringify(c.provider)}`);
  return timed(new LocalEmbedder(c.dim ?? 384, c.local));
}

/** Counts and times every `embed` call (ctx_model_calls_total, ctx_model_call_duration_seconds). */
function timed<E extends Embedder>(e: E): E {
  const m = new ModelCallMetrics('embedding', e.info.provider, e.info.model);
  const embed = e.embed.bind(e);
  e.embed = (texts, kind, signal) => m.time(() => embed(texts, kind, signal));
  return e;
}

/** Below this many characters per call the thread hop of the async path costs more than it saves. */
const LOCAL_SYNC_CHARS = 8 * 1024;

export class LocalEmbedder implements Embedder {
  readonly info: EmbedderInfo;
  readonly supportsImages = false;
  readonly remote = false;
  private readonly counters = { texts: 0, batches: 0 };

  constructor(
    readonly dim: number,
    private readonly params?: LocalEmbedParams,
  ) {
    // Validates dim and params now (throws INVALID_ARGUMENT), not at the first write.
    const { version, dim: d, ...p } = localEmbed.info(dim, params);
    this.info = { provider: 'local', model: `ctx-lexical-v${version}`, dim: d, inputMode: 'text', params: p };
  }

  async embed(texts: string[], _kind: EmbedKind, signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    this.counters.texts += texts.length;
    this.counters.batches++;
    let chars = 0;
    for (const t of texts) chars += t.length;
    const m = chars <= LOCAL_SYNC_CHARS ? localEmbed.embed(texts, this.dim, this.params) : await localEmbed.embedAsync(texts, this.dim, this.params);
    // Own buffers per vector: callers keep them (records, caches) independently of the batch.
    const out = new Array<Float32Array>(texts.length);
    for (let i = 0; i < texts.length; i++) out[i] = m.slice(i * this.dim, (i + 1) * this.dim);
    return out;
  }

  async check(): Promise<void> {
    const [v] = await this.embed(['dimension check'], 'query');
    if (v!.length !== this.dim) throw new EmbedderConfigError(`local embedder returned ${v!.length} dimensions, expected ${this.dim}`);
  }

  stats(): EmbedderStats {
    return { ...this.counters };
  }
}

/** models/all-minilm-l6-v2 under the package root (found from this file, in runtime/ or dist/). */
export function defaultNeuralModelDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'scripts', 'setup-model.sh'))) break;
    const up = path.dirname(dir);
    if (up === dir) {
      dir = process.cwd();
      break;
    }
    dir = up;
  }
  return path.join(dir, 'models', 'all-minilm-l6-v2');
}

/**
 * `neural`: a sentence-embedding transformer in core-native. The model's identity (name and
 * weights digest), dimension, token limit and pooling are `info`, so switching model files or
 * limits re-embeds instead of mixing vectors.
 */
export class NeuralEmbedder implements Embedder {
  readonly info: EmbedderInfo;
  readonly supportsImages = false;
  readonly remote = false;
  readonly dim: number;
  private readonly native: NativeNeuralEmbedder;
  private readonly counters = { texts: 0, batches: 0 };

  constructor(c: Pick<EmbedderConfig, 'modelDir' | 'dim' | 'maxTokens' | 'neuralBatchSize'>) {
    const dir = path.resolve(c.modelDir ?? defaultNeuralModelDir());
    try {
      this.native = new NativeNeuralEmbedder(dir, { maxTokens: c.maxTokens, batchSize: c.neuralBatchSize });
    } catch (err) {
      const code = nativeErrorCode(err);
      if (code === 'EMBEDDING_MODEL_MISSING' || code === 'EMBEDDING_MODEL_INVALID' || code === 'INVALID_ARGUMENT') {
        throw new EmbedderConfigError(`CTX_EMBEDDING_PROVIDER=neural: ${(err as Error).message}`, { cause: err });
      }
      throw err;
    }
    const n = this.native.info();
    if (c.dim !== undefined && c.dim !== n.dim) {
      throw new EmbedderConfigError(`CTX_EMBEDDING_PROVIDER=neural: the model in ${dir} has ${n.dim} dimensions but CTX_EMBEDDING_DIM=${c.dim}; unset CTX_EMBEDDING_DIM or set it to ${n.dim}`);
    }
    this.dim = n.dim;
    this.info = {
      provider: 'neural',
      model: n.model,
      dim: n.dim,
      inputMode: 'text',
      params: { weightsSha256: n.weightsSha256, maxTokens: n.maxTokens, pooling: n.pooling, normalized: n.normalized, version: n.version },
    };
  }

  async embed(texts: string[], _kind: EmbedKind, signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    this.counters.texts += texts.length;
    const out = new Array<Float32Array>(texts.length);
    // Empty texts keep the contract of every provider (zero vector, score 0) instead of the
    // model's embedding of "[CLS] [SEP]", which would match everything a little.
    const todo: string[] = [];
    const at: number[] = [];
    for (let i = 0; i < texts.length; i++) {
      if (texts[i]!.trim() === '') out[i] = new Float32Array(this.dim);
      else {
        todo.push(texts[i]!);
        at.push(i);
      }
    }
    if (todo.length > 0) {
      this.counters.batches++;
      const m = await this.native.embed(todo);
      for (let j = 0; j < at.length; j++) out[at[j]!] = m.slice(j * this.dim, (j + 1) * this.dim);
    }
    return out;
  }

  async check(): Promise<void> {
    const [v] = await this.embed(['dimension check'], 'query');
    if (v!.length !== this.dim) throw new EmbedderConfigError(`neural embedder returned ${v!.length} dimensions, expected ${this.dim}`);
  }

  stats(): EmbedderStats {
    return { ...this.counters };
  }
}

interface OpenAiResponse {
  data?: Array<{ embedding?: unknown; index?: unknown }>;
}

export class OpenAiEmbedder implements Embedder {
  readonly supportsImages = false;
  readonly remote = true;
  readonly info: EmbedderInfo;
  private readonly endpoint: ResilientEndpoint;
  private readonly model: string;
  private readonly batchSize: number;
  private readonly batchChars: number;
  private readonly maxTextChars: number;
  private checked: Promise<void> | null = null;
  /** check() succeeded: embed() then reaches the socket in the caller's own tick (no await first). */
  private ready = false;
  private readonly counters = { texts: 0, batches: 0 };
  /**
   * Asked of the server: `base64` (OpenAI's API: each vector's little-endian float32 bytes) is
   * decoded straight into the Float32Array, where a list of floats is ~4x the bytes on the wire
   * and a JSON number parse per component. A server that answers a list anyway is read as one;
   * one that rejects the field (4xx) before ever accepting it gets `float` from then on (the
   * start-up probe normally settles this: one extra request in the embedder's life at most).
   */
  private format: 'base64' | 'float' = 'base64';
  private formatSettled = false;

  /** A real private field: it holds the API key, and plugins hold this embedder (`host.models`). */
  readonly #c: EmbedderConfig;

  constructor(c: EmbedderConfig) {
    this.#c = c;
    if (!c.baseUrl) throw new EmbedderConfigError('CTX_EMBEDDING_PROVIDER=openai needs CTX_EMBEDDING_BASE_URL (including /v1, e.g. https://api.openai.com/v1)');
    if (!c.model) throw new EmbedderConfigError('CTX_EMBEDDING_PROVIDER=openai needs CTX_EMBEDDING_MODEL');
    if (c.dim !== undefined && (!Number.isInteger(c.dim) || c.dim < 1)) throw new EmbedderConfigError(`CTX_EMBEDDING_DIM must be a positive integer, got ${c.dim}`);
    const base = c.baseUrl.replace(/\/+$/, '');
    this.model = c.model;
    this.batchSize = Math.max(1, c.batchSize ?? 64);
    this.batchChars = Math.max(1, c.batchChars ?? 200_000);
    this.maxTextChars = Math.max(1, c.maxTextChars ?? 30_000);
    this.endpoint = new ResilientEndpoint('embedding provider', base, c.apiKey, c);
    const params: Record<string, unknown> = { baseUrl: base };
    if (c.queryPrefix) params.queryPrefix = c.queryPrefix;
    if (c.documentPrefix) params.documentPrefix = c.documentPrefix;
    if (c.maxTextChars) params.maxTextChars = this.maxTextChars;
    // dim 0 until check() learns it when CTX_EMBEDDING_DIM is not set.
    this.info = { provider: 'openai', model: this.model, dim: c.dim ?? 0, inputMode: 'text', params };
  }

  /**
   * Embeds one probe text and compares its dimension with CTX_EMBEDDING_DIM (or adopts it when
   * unset). A mismatch is a configuration error: vectors of the wrong size cannot enter the index.
   */
  check(): Promise<void> {
    this.checked ??= (async () => {
      let v: Float32Array | undefined;
      try {
        [v] = await this.request(['dimension check'], undefined, undefined);
      } catch (err) {
        this.checked = null; // a later call may try again once the endpoint is back
        throw err;
      }
      const got = v!.length;
      if (this.#c.dim !== undefined && got !== this.#c.dim) {
        throw new EmbedderConfigError(
          `embedding model ${this.model} at ${this.info.params.baseUrl} returns ${got}-dimensional vectors but CTX_EMBEDDING_DIM=${this.#c.dim}; set CTX_EMBEDDING_DIM=${got} (existing vectors are then re-embedded) or choose a model with ${this.#c.dim} dimensions`,
        );
      }
      (this.info as { dim: number }).dim = got;
      this.ready = true;
    })();
    return this.checked;
  }

  async embed(texts: string[], kind: EmbedKind, signal?: AbortSignal): Promise<Float32Array[]> {
    if (stamping) stamp('embed.call');
    // Not `await this.check()` once it passed: that await alone let the caller's next synchronous
    // work (a find's scope and search preparation) run before the request was even built.
    if (!this.ready) await this.check();
    const prefix = (kind === 'query' ? this.#c.queryPrefix : this.#c.documentPrefix) ?? '';
    const out = new Array<Float32Array>(texts.length);
    // Empty texts are answered locally: several servers reject an empty input with a 400.
    const todo: number[] = [];
    for (let i = 0; i < texts.length; i++) {
      if (texts[i]!.trim() === '') out[i] = new Float32Array(this.info.dim);
      else todo.push(i);
    }
    // Greedy batches bounded by count and total characters; they run concurrently, the
    // endpoint's semaphore bounds how many are in flight.
    const batches: number[][] = [];
    let cur: number[] = [];
    let chars = 0;
    for (const i of todo) {
      const len = Math.min(texts[i]!.length, this.maxTextChars) + prefix.length;
      if (cur.length > 0 && (cur.length >= this.batchSize || chars + len > this.batchChars)) {
        batches.push(cur);
        cur = [];
        chars = 0;
      }
      cur.push(i);
      chars += len;
    }
    if (cur.length > 0) batches.push(cur);
    const ac = new AbortController();
    const sig = signal ? AbortSignal.any([signal, ac.signal]) : ac.signal;
    try {
      await Promise.all(
        batches.map(async (b) => {
          const vecs = await this.request(b.map((i) => prefix + texts[i]!.slice(0, this.maxTextChars)), sig, this.info.dim);
          b.forEach((i, j) => (out[i] = vecs[j]!));
        }),
      );
    } catch (err) {
      ac.abort(); // one batch failed for good: stop the others instead of finishing their retries
      throw err;
    }
    this.counters.texts += texts.length;
    return out;
  }

  /** `want`: the dimension every vector must have (undefined while probing it). */
  private async request(input: string[], signal: AbortSignal | undefined, want: number | undefined): Promise<Float32Array[]> {
    this.counters.batches++;
    let json: OpenAiResponse;
    try {
      json = (await this.endpoint.postJson('/embeddings', { model: this.model, input, encoding_format: this.format }, signal)) as OpenAiResponse;
    } catch (err) {
      // Servers that implement only the float list (older Ollama, some proxies) refuse the field.
      if (this.formatSettled || !(err instanceof RemoteModelError) || !BASE64_REFUSED.has(err.status ?? 0)) throw err;
      json = (await this.endpoint.postJson('/embeddings', { model: this.model, input, encoding_format: 'float' }, signal)) as OpenAiResponse;
      this.format = 'float';
    }
    this.formatSettled = true;
    if (!json || !Array.isArray(json.data) || json.data.length !== input.length) {
      throw new RemoteModelError(`embedding provider answered ${Array.isArray(json?.data) ? json.data.length : 'no'} vectors for ${input.length} inputs`, 200);
    }
    const data: NonNullable<OpenAiResponse['data']> = json.data;
    const out = new Array<Float32Array>(input.length);
    for (let k = 0; k < data.length; k++) {
      const item = data[k]!;
      // Servers may answer out of order; `index` says which input each vector belongs to.
      const idx = typeof item.index === 'number' ? item.index : k;
      const e = item.embedding;
      const v = typeof e === 'string' ? fromBase64(e) : Array.isArray(e) && e.length > 0 ? Float32Array.from(e as number[]) : undefined;
      if (!Number.isInteger(idx) || idx < 0 || idx >= input.length || out[idx] || !v || v.length === 0) {
        throw new RemoteModelError(`embedding provider answered a malformed data[${k}] (index ${String(item.index)})`, 200);
      }
      if (want !== undefined && v.length !== want) {
        throw new RemoteModelError(`embedding provider answered a ${v.length}-dimensional vector, expected ${want}`, 200);
      }
      out[idx] = normalized(v);
    }
    if (stamping) stamp('embed.vector');
    return out;
  }

  stats(): EmbedderStats {
    return { ...this.counters, endpoint: this.endpoint.stats() };
  }
}

/** The statuses with which a server may refuse `encoding_format: "base64"`. */
const BASE64_REFUSED = new Set([400, 415, 422]);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A base64 vector (little-endian float32s); undefined when it is not whole floats. */
function fromBase64(s: string): Float32Array | undefined {
  const b = Buffer.from(s, 'base64');
  if (b.length === 0 || b.length % 4 !== 0) return undefined;
  const v = new Float32Array(b.length / 4);
  if (LITTLE_ENDIAN) new Uint8Array(v.buffer).set(b);
  else for (let i = 0; i < v.length; i++) v[i] = b.readFloatLE(i * 4);
  return v;
}

/** L2-normalizes in place (OpenAI's vectors already are; many self-hosted models' are not). */
function normalized(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i]!)) throw new RemoteModelError('embedding provider answered a non-finite value', 200);
    n += v[i]! * v[i]!;
  }
  if (n > 0) {
    const inv = 1 / Math.sqrt(n);
    for (let i = 0; i < v.length; i++) v[i]! *= inv;
  }
  return v;
}
