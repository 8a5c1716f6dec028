/**
 * Typed surface of core-native's text kernels (crate ctx-core: text.rs, embed.rs, grep.rs):
 * the tokenizer BM25 uses, the `local` embedder and grep.
 *
 * Embeddings cross the boundary as one row-major `Float32Array` per batch (n × dim); `rows()`
 * gives per-text views without copying. Errors carry `CODE: message` (see `nativeErrorCode`):
 * INVALID_ARGUMENT (bad dim or parameters), INVALID_REGEX (grep pattern).
 */
import { native, nativeErrorCode } from './native.js';

/** Local embedder tunables (defaults in `localEmbedInfo()`). */
export interface LocalEmbedParams {
  wordWeight?: number;
  bigramWeight?: number;
  charWeight?: number;
  charMin?: number;
  charMax?: number;
  maxChars?: number;
}

export interface LocalEmbedInfo extends Required<LocalEmbedParams> {
  /** Algorithm version; part of the index metadata so vectors of two versions never mix. */
  version: number;
  dim: number;
}

export interface GrepOptions {
  caseInsensitive?: boolean;
  /** Matching lines in total (default 1000); `truncated` says when it cut the search short. */
  maxMatches?: number;
  /** Matching lines per buffer (default unbounded). */
  maxPerBuffer?: number;
  /** Reported lines are cut to this many characters (default 1000). */
  maxLineChars?: number;
}

export interface GrepLine {
  /** Index of the buffer in the input. */
  index: number;
  /** 1-based. */
  line: number;
  text: string;
}

export interface GrepOutput {
  matches: GrepLine[];
  truncated: boolean;
}

/** The addon's columnar form (one typed array per field, texts joined by newlines). */
interface GrepColumns {
  index: Uint32Array;
  line: Uint32Array;
  text: string;
  truncated: boolean;
}

function fromColumns(c: GrepColumns): GrepOutput {
  const n = c.index.length;
  const texts = n === 0 ? [] : c.text.split('\n');
  const matches = new Array<GrepLine>(n);
  for (let i = 0; i < n; i++) matches[i] = { index: c.index[i]!, line: c.line[i]!, text: texts[i]! };
  return { matches, truncated: c.truncated };
}

interface TextAddon {
  embedLocal(texts: string[], dim?: number, params?: LocalEmbedParams): Float32Array;
  embedLocalAsync(texts: string[], dim?: number, params?: LocalEmbedParams): Promise<Float32Array>;
  embedLocalInfo(dim?: number, params?: LocalEmbedParams): LocalEmbedInfo;
  tokenize(text: string): string[];
  tokenizeStemmed(text: string): string[];
  normalizeText(text: string): string;
  grep(pattern: string, buffers: Buffer[], options?: GrepOptions): GrepColumns;
  grepAsync(pattern: string, buffers: Buffer[], options?: GrepOptions): Promise<GrepColumns>;
}

const FUNCTIONS = ['embedLocal', 'embedLocalAsync', 'embedLocalInfo', 'tokenize', 'tokenizeStemmed', 'normalizeText', 'grep', 'grepAsync'] as const;

let addon: TextAddon | undefined;

function text(): TextAddon {
  if (addon) return addon;
  const a = native() as unknown as Partial<TextAddon>;
  for (const fn of FUNCTIONS) {
    if (typeof a[fn] !== 'function') throw new Error(`core-native lacks ${fn}(): it is stale, run \`npm run build:native\``);
  }
  addon = a as TextAddon;
  return addon;
}

/** Error thrown by grep for a pattern the linear-time engine rejects (spec: 400 INVALID_ARGUMENT). */
export class InvalidRegexError extends Error {
  readonly code = 'INVALID_REGEX';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidRegexError';
  }
}

function mapError(err: unknown): never {
  const { code, message } = nativeErrorCode(err);
  if (code === 'INVALID_REGEX') throw new InvalidRegexError(message, { cause: err });
  throw err;
}

const toBuffer = (b: Buffer | string): Buffer => (typeof b === 'string' ? Buffer.from(b, 'utf8') : b);

export const textKernels = {
  tokenize: (s: string): string[] => text().tokenize(s),
  /** Tokens after the light English stemmer (what the embedder's word features use). */
  tokenizeStemmed: (s: string): string[] => text().tokenizeStemmed(s),
  normalize: (s: string): string => text().normalizeText(s),
};

export const localEmbed = {
  /** Effective parameters (and algorithm version) for a dimension and overrides. */
  info: (dim?: number, params?: LocalEmbedParams): LocalEmbedInfo => text().embedLocalInfo(dim, params),
  /**
   * On the calling thread; fine for a query or a handful of short texts (tens of µs each).
   * Batches of documents should use `embedAsync`.
   */
  embed: (texts: string[], dim?: number, params?: LocalEmbedParams): Float32Array => text().embedLocal(texts, dim, params),
  /** On the libuv pool (several threads for large batches). */
  embedAsync: (texts: string[], dim?: number, params?: LocalEmbedParams): Promise<Float32Array> =>
    text().embedLocalAsync(texts, dim, params),
};

/** Per-row views into a row-major n × dim matrix (no copy). */
export function rows(matrix: Float32Array, dim: number): Float32Array[] {
  const n = matrix.length / dim;
  const out = new Array<Float32Array>(n);
  for (let i = 0; i < n; i++) out[i] = matrix.subarray(i * dim, (i + 1) * dim);
  return out;
}

/** Below this many bytes in total, `grep.searchAsync` scans on the calling thread. */
export const SYNC_GREP_BYTES = 256 * 1024;

export const grep = {
  /**
   * Matching lines of every buffer on the calling thread. Faster than `searchAsync` whenever the
   * buffers are already in memory and total a few MB (no thread hop, no per-buffer reference);
   * use the async form to keep the event loop free during long scans. Throws InvalidRegexError.
   */
  search(pattern: string, buffers: Array<Buffer | string>, options?: GrepOptions): GrepOutput {
    try {
      return fromColumns(text().grep(pattern, buffers.map(toBuffer), options));
    } catch (err) {
      return mapError(err);
    }
  },
  /**
   * Off the JS thread, large inputs split over the cores; same result as `search`. Inputs under
   * `SYNC_GREP_BYTES` run on the calling thread instead: scanning them takes less time (well under
   * a millisecond) than the thread hop and the per-buffer references of the async binding.
   */
  async searchAsync(pattern: string, buffers: Array<Buffer | string>, options?: GrepOptions): Promise<GrepOutput> {
    const bufs = buffers.map(toBuffer);
    let total = 0;
    for (const b of bufs) total += b.length;
    if (total <= SYNC_GREP_BYTES) return grep.search(pattern, bufs, options);
    try {
      return fromColumns(await text().grepAsync(pattern, bufs, options));
    } catch (err) {
      return mapError(err);
    }
  },
};
