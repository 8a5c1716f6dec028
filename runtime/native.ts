/**
 * core-native, the Rust core: the only module that loads it, and the one every caller imports.
 * Its types are the ones `@napi-rs/cli` generates from the Rust declarations
 * (`core-native/index.d.cts`, built by `npm run build:native`), so they cannot drift from the
 * addon. The core is required: importing this module fails, with a message naming the command
 * that builds it, when the addon does not load.
 *
 * Errors thrown or rejected by the core carry a stable `code` property (`INVALID_ARGUMENT`,
 * `INVALID_REGEX`, `IO`, `INTERNAL`, `VECTOR_INDEX_*`); a panic in the core is an `INTERNAL` error,
 * never a crash. Vectors cross the boundary as one `Float32Array` per batch, bytes as `Buffer`s.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Core from '#core-native';
import { JsonResult } from './http/reply.js';
import { WasmCore } from './native-wasm-trap.js';

export type {
  CoreInfo,
  FileDigest,
  GrepColumns,
  HierarchicalParams,
  HierarchicalResult,
  Hit,
  LocalEmbedInfo,
  LocalEmbedParams,
  RecordAttrs,
  SearchOptions,
  StoredRecord,
  VectorFilter,
  VectorIndexOptions,
  VectorIndexStats,
} from '#core-native';
export type { GrepOpts as GrepOptions } from '#core-native';

export type CoreKind = 'native' | 'wasm';

/**
 * Loads the core: the native addon when it loads, else the WebAssembly build of the same crates
 * (scripts/build-wasm.sh, through @napi-rs/wasm-runtime). `CTX_CORE=native|wasm` forces one; a
 * forced core that does not load is a start-up error naming the command that builds it.
 */
function load(fresh = false): typeof Core {
  const want = (process.env.CTX_CORE ?? '').trim();
  if (want !== '' && want !== 'native' && want !== 'wasm') {
    throw new Error(`CTX_CORE must be "native" or "wasm" (or unset: native when it loads, else wasm), got "${want}"`);
  }
  // The generated loader (core-native/index.cjs) reads NAPI_RS_FORCE_WASI once, while it loads:
  // 'error' means the wasm build and nothing else; unset means native first, wasm as fallback.
  const saved = process.env.NAPI_RS_FORCE_WASI;
  if (want === 'wasm') process.env.NAPI_RS_FORCE_WASI = 'error';
  else delete process.env.NAPI_RS_FORCE_WASI;
  let core: typeof Core;
  try {
    // `#core-native` (package.json `imports`) resolves from the package root, so the same line
    // works from runtime/ under tsx and vitest and from dist/runtime/ after the build.
    const require = createRequire(import.meta.url);
    if (fresh) {
      // A new wasm instance (after a trap): the loader and the wasi module it requires evaluate
      // again, instantiating the module anew.
      const loader = require.resolve('#core-native');
      delete require.cache[loader];
      delete require.cache[join(dirname(loader), 'ctx-native.wasi.cjs')];
    }
    core = require('#core-native') as typeof Core;
  } catch (err) {
    const detail = err instanceof Error ? err.message.split('\n')[0] : String(err);
    const build = want === 'wasm' ? '`npm run build:wasm`' : '`npm run build:native` (or `npm run build:wasm` for the portable core)';
    throw new Error(`core-native (the Rust core${want ? `, CTX_CORE=${want}` : ''}) did not load: run ${build}, or \`npm run setup\`. ${detail}`, { cause: err });
  } finally {
    if (saved === undefined) delete process.env.NAPI_RS_FORCE_WASI;
    else process.env.NAPI_RS_FORCE_WASI = saved;
  }
  if (want === 'native' && core.coreInfo().kind !== 'native') {
    throw new Error('CTX_CORE=native but the native core did not load (the wasm build did): run `npm run build:native`, or unset CTX_CORE to run on the wasm build');
  }
  return core;
}

let core = load();

/** Which build of the core runs (`native` or `wasm`), its version and its HNSW graph. */
export const coreInfo: Core.CoreInfo = core.coreInfo();
const wasmCore = coreInfo.kind === 'wasm';
// Under wasm a panic traps the instance: calls go through wrappers that replace it
// (runtime/native-wasm-trap.ts). The native core needs none: a panic there is an INTERNAL error.
const wasmTraps = wasmCore
  ? new WasmCore(
      core,
      () => load(true),
      (fresh) => {
        core = fresh;
        for (const l of restartListeners) l();
      },
    )
  : undefined;
if (wasmTraps) core = wasmTraps.core;
const restartListeners: Array<() => void> = [];

/** How many times a trap replaced the wasm core's instance (always 0 natively). */
export const coreRestarts = (): number => wasmTraps?.restartCount ?? 0;

/**
 * Calls `listener` after a trap replaced the wasm core's instance (never natively): objects made
 * before (vector indexes, neural embedders) are dead from then on and their owners reload them.
 */
export function onCoreRestart(listener: () => void): void {
  restartListeners.push(listener);
}

/**
 * Panics inside the core on purpose (`async`: in async work): the fault the recovery from a panic
 * is tested with. Natively it is an `INTERNAL` error; under wasm a trap, after which the instance
 * is replaced and the error is `INTERNAL` too. ctx never calls it.
 */
export const debugPanic = (message: string, async = false): Promise<void> | void => (async ? core.debugPanicAsync(message) : core.debugPanic(message));

/** The `code` property of an error thrown by the core (undefined for any other error). */
export function nativeErrorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

// ---- hashing --------------------------------------------------------------------------------

export const hash = {
  /** Hex SHA-256 of each buffer, on the calling thread (fast for small inputs). */
  sha256Many: (buffers: Buffer[]): string[] => core.sha256Many(buffers),
  /** Same, on the libuv pool; do not mutate the buffers until it settles. */
  sha256ManyAsync: (buffers: Buffer[]): Promise<string[]> => core.sha256ManyAsync(buffers),
  /** Throws `IO` for an unreadable file. */
  sha256File: (path: string): Core.FileDigest => core.sha256File(path),
  /** Streams the files off the JS thread, several at once; order is preserved. */
  sha256Files: (paths: string[], threads?: number): Promise<Core.FileDigest[]> => core.sha256FilesAsync(paths, threads),
};

// ---- JSON string literals -------------------------------------------------------------------

/** Byte length of the JSON string literal of UTF-8 bytes, or -1 when they are not valid UTF-8. */
export const jsonQuotedLen = (src: Buffer): number => core.jsonQuotedLen(src);

/**
 * Writes that literal into `dst` at `offset` and returns its length; throws `INVALID_ARGUMENT`
 * for invalid UTF-8 or a destination without room (it never writes past the end).
 */
export const jsonQuoteInto = (src: Buffer, dst: Buffer, offset: number): number => {
  if (!wasmCore) return core.jsonQuoteInto(src, dst, offset);
  // The wasm core writes into its own copy of `dst`: it hands the literal back and it is copied
  // here, with the native export's checks (room after `offset`) and codes.
  const lit = core.jsonQuote(src);
  if (offset > dst.length || dst.length - offset < lit.length) {
    throw Object.assign(new Error(`destination has ${Math.max(0, dst.length - offset)} bytes after offset ${offset}, ${lit.length} needed`), { code: 'INVALID_ARGUMENT' });
  }
  return lit.copy(dst, offset);
};

/**
 * A `result` equal to `bytes.toString('utf8')` as a JSON string, written by the core straight
 * into the response buffer: no decode to a JS string, `JSON.stringify` and encode back
 * (bench/content.bench.ts). Invalid UTF-8 is decoded with replacement characters in JavaScript,
 * exactly as `toString` does.
 */
export function jsonStringResult(bytes: Buffer): JsonResult {
  const len = core.jsonQuotedLen(bytes);
  if (len < 0) return JsonResult.of(Buffer.from(JSON.stringify(bytes.toString('utf8'))));
  return new JsonResult((head, tail) => {
    const out = Buffer.allocUnsafe(head.length + len + tail.length);
    head.copy(out, 0);
    jsonQuoteInto(bytes, out, head.length);
    tail.copy(out, head.length + len);
    return out;
  });
}

// ---- vector index ---------------------------------------------------------------------------

/**
 * FAISS-backed vector index with in-core filtering, BM25 and hybrid search (docs/vector-index.md).
 * `new VectorIndex(opts)` or `await VectorIndex.loadAsync(path)`; methods are documented in the
 * generated typings.
 */
export const VectorIndex: typeof Core.VectorIndex = wasmTraps ? wasmTraps.facade('VectorIndex') : core.VectorIndex;
export type VectorIndex = Core.VectorIndex;

export type ContextType = Core.RecordAttrs['contextType'];
export type SearchPlan = Core.SearchExplained['plan'];

/** True when a load error means "rebuild the index from RocksDB" rather than a fatal problem. */
export function needsRebuild(err: unknown): boolean {
  const code = nativeErrorCode(err);
  return code === 'VECTOR_INDEX_CORRUPT' || code === 'VECTOR_INDEX_INCOMPATIBLE' || code === 'VECTOR_INDEX_NOT_FOUND';
}

// ---- text kernels: tokenizer, local embedder, grep --------------------------------------------

export const textKernels = {
  tokenize: (s: string): string[] => core.tokenize(s),
  /** Tokens after the light English stemmer (what the embedder's word features use). */
  tokenizeStemmed: (s: string): string[] => core.tokenizeStemmed(s),
  normalize: (s: string): string => core.normalizeText(s),
};

/** The `local` embedder (docs/embedders.md); embeddings come back as one row-major n × dim matrix. */
export const localEmbed = {
  /** Effective parameters (and algorithm version) for a dimension and overrides. */
  info: (dim?: number, params?: Core.LocalEmbedParams): Core.LocalEmbedInfo => core.embedLocalInfo(dim, params),
  /**
   * On the calling thread; fine for a query or a handful of short texts (tens of µs each).
   * Batches of documents should use `embedAsync`.
   */
  embed: (texts: string[], dim?: number, params?: Core.LocalEmbedParams): Float32Array => core.embedLocal(texts, dim, params),
  /** On the libuv pool (several threads for large batches). */
  embedAsync: (texts: string[], dim?: number, params?: Core.LocalEmbedParams): Promise<Float32Array> => core.embedLocalAsync(texts, dim, params),
};

/**
 * The `neural` embedder (ctx-embed-neural: all-MiniLM-L6-v2 on the CPU). `new NeuralEmbedder(dir)`
 * loads the model (throws `EMBEDDING_MODEL_MISSING` naming the absent file); `embed` runs on the
 * core's own worker thread, which merges concurrent calls into shared batches.
 */
export const NeuralEmbedder: typeof Core.NeuralEmbedder = wasmTraps ? wasmTraps.facade('NeuralEmbedder') : core.NeuralEmbedder;
export type NeuralEmbedder = Core.NeuralEmbedder;
export type { NeuralEmbedderInfo, NeuralEmbedderOptions } from '#core-native';

/** Per-row views into a row-major n × dim matrix (no copy). */
export function rows(matrix: Float32Array, dim: number): Float32Array[] {
  const n = matrix.length / dim;
  const out = new Array<Float32Array>(n);
  for (let i = 0; i < n; i++) out[i] = matrix.subarray(i * dim, (i + 1) * dim);
  return out;
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

/** The core answers in columns (one N-API object per match would cost more than the search). */
function fromColumns(c: Core.GrepColumns): GrepOutput {
  const n = c.index.length;
  const texts = n === 0 ? [] : c.text.split('\n');
  const matches = new Array<GrepLine>(n);
  for (let i = 0; i < n; i++) matches[i] = { index: c.index[i]!, line: c.line[i]!, text: texts[i]! };
  return { matches, truncated: c.truncated };
}

/** Below this many bytes in total, `grep.searchAsync` scans on the calling thread. */
export const SYNC_GREP_BYTES = 256 * 1024;

const toBuffer = (b: Buffer | string): Buffer => (typeof b === 'string' ? Buffer.from(b, 'utf8') : b);

/**
 * Line matches of a pattern (Rust `regex`: linear time, no backreferences or lookaround) in many
 * buffers. A pattern it rejects throws an error with `code: 'INVALID_REGEX'`.
 */
export const grep = {
  /**
   * On the calling thread. Faster than `searchAsync` whenever the buffers are already in memory
   * and total a few MB (no thread hop, no per-buffer reference); use the async form to keep the
   * event loop free during long scans.
   */
  search(pattern: string, buffers: Array<Buffer | string>, options?: Core.GrepOpts): GrepOutput {
    return fromColumns(core.grep(pattern, buffers.map(toBuffer), options));
  },
  /**
   * Off the JS thread, large inputs split over the cores; same result as `search`. Inputs under
   * `SYNC_GREP_BYTES` run on the calling thread instead: scanning them takes less time (well under
   * a millisecond) than the thread hop and the per-buffer references of the async binding.
   */
  async searchAsync(pattern: string, buffers: Array<Buffer | string>, options?: Core.GrepOpts): Promise<GrepOutput> {
    const bufs = buffers.map(toBuffer);
    let total = 0;
    for (const b of bufs) total += b.length;
    if (total <= SYNC_GREP_BYTES) return grep.search(pattern, bufs, options);
    return fromColumns(await core.grepAsync(pattern, bufs, options));
  },
};

// ---- code outlines (tree-sitter) --------------------------------------------------------------

export type { CodeOutline, CodeOutlineResult, CodeSymbol } from '#core-native';

export interface CodeOutlineInput {
  source: string;
  /** A language name or alias; when omitted, chosen from `path`'s extension. */
  language?: string;
  path?: string;
}

/** The languages outlines support (`typescript`, `tsx`, `javascript`, `python`, `go`, `rust`, `java`, `c`, `cpp`). */
export const outlineLanguages = (): string[] => core.outlineLanguages();

/** The outline language of a file name or path by its extension, or null when none applies. */
export const outlineLanguageOf = (path: string): string | null => core.outlineLanguageOf(path) ?? null;

/**
 * The outline of one source on the calling thread: symbols with kind, name, 1-based line range,
 * first-line signature and children. `languageOrPath` is a language name or alias (`ts`, `py`) or
 * a file name/path whose extension decides. Throws `INVALID_ARGUMENT` when neither names a
 * supported language, or the source is over the core's size limit (8 MiB).
 */
export function outlineCode(source: string, languageOrPath: string): Core.CodeOutline {
  // Language names never contain a dot; paths are recognised by their extension.
  return core.outlineCode(source, outlineLanguageOf(languageOrPath) ?? languageOrPath);
}

/**
 * Outlines of many sources off the JS thread, in input order; a file the core cannot outline
 * gets `error` instead of `outline` (the promise only rejects on a bug).
 */
export const outlineCodeBulk = (inputs: CodeOutlineInput[], threads?: number): Promise<Core.CodeOutlineResult[]> =>
  // An addon built before its typings named the promise's type (`Promise<unknown>`) is the same function.
  core.outlineCodeBulk(inputs, threads) as Promise<Core.CodeOutlineResult[]>;
