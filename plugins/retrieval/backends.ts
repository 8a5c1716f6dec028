/**
 * The vector index and the embedder the plugin runs on. The native ones (runtime/native-vector.ts:
 * FAISS in core-native; runtime/models/embedder.ts: local lexical embedder or an OpenAI-compatible
 * API) are used when those modules exist and load; otherwise the exact JavaScript implementations
 * below keep the plugin working (same contract, flat search, partitioned by account so a filtered
 * query never touches another tenant's vectors). Which one runs is logged and shown by the
 * `vectordb` observer.
 */
import fs from 'node:fs/promises';
import type { CtxConfig } from '../../runtime/sdk/index.js';
import type { Logger } from '../../runtime/sdk/index.js';

export interface RecordAttrs {
  account: string;
  ownerSpace: string;
  uri: string;
  parentUri: string;
  contextType: 'resource' | 'memory' | 'skill' | 'session';
  level: 0 | 1 | 2;
  tags: string[];
  createdAt: number;
  updatedAt: number;
  peer?: string;
}

export interface VectorFilter {
  account: string;
  uriPrefixes?: string[];
  ownerSpaces?: string[];
  contextTypes?: string[];
  levels?: number[];
  tags?: string[];
  timeField?: 'createdAt' | 'updatedAt';
  since?: number;
  until?: number;
  peer?: string;
  excludeUriPrefixes?: string[];
}

export interface Hit {
  id: string;
  score: number;
}

/** The subset of the native VectorIndex the plugin uses. */
export interface VectorBackend {
  upsert(ids: string[], vectors: Float32Array, attrs: RecordAttrs[]): void;
  remove(ids: string[]): number;
  removeWhere(filter: VectorFilter): number;
  searchAsync(query: Float32Array, k: number, filter: VectorFilter): Promise<Hit[]>;
  count(filter: VectorFilter): number;
  ids(filter: VectorFilter, limit?: number): string[];
  stats(): { size: number; dim: number; kind: string; vectorBytes: number; graphBytes: number; attrBytes: number };
  saveAsync(path: string): Promise<void>;
  upsertText?(ids: string[], texts: string[]): void;
  hybridSearch?(query: Float32Array, text: string, k: number, filter: VectorFilter, opts?: { alpha?: number }): Hit[];
  /** Graph inserts off the JS thread (the native index; ~1 ms of CPU per vector). */
  upsertAsync?(ids: string[], vectors: Float32Array, attrs: RecordAttrs[]): Promise<void>;
  needsCompaction?(): boolean;
  compactAsync?(): Promise<void>;
  /** The whole hierarchical find in the core (the native index); find.ts falls back to its own loop. */
  hierarchicalSearchAsync?(
    query: Float32Array,
    text: string,
    limit: number,
    filters: VectorFilter[],
    navs: VectorFilter[],
    params?: { propagation?: number; maxExpansions?: number; stableRounds?: number; globalKMin?: number; navK?: number },
  ): Promise<{
    hits: Array<{ id: string; score: number; raw: number; viaUri?: string | null; viaScore?: number | null }>;
    globalHits: number;
    navigationHits: number;
    expanded: Array<{ uri: string; score: number; childHits: number; round: number }>;
    rounds: number;
    stopReason: string;
  }>;
}

export interface EmbedderLike {
  info: { provider: string; model: string; dim: number; inputMode: string; params: Record<string, unknown> };
  supportsImages: boolean;
  embed(texts: string[], kind: 'document' | 'query', signal?: AbortSignal): Promise<Float32Array[]>;
  check?(): Promise<void>;
}

export interface Backends {
  embedder: EmbedderLike;
  createIndex(dim: number): VectorBackend;
  loadIndex(path: string): Promise<VectorBackend>;
  kind: 'native' | 'js';
}

/** Loads a module that may not exist yet (it is written by another part of the project). */
async function tryImport(spec: string): Promise<Record<string, unknown> | null> {
  try {
    return (await import(spec)) as Record<string, unknown>;
  } catch {
    return null;
  }
}

export async function loadBackends(config: CtxConfig, log: Logger): Promise<Backends> {
  let embedder: EmbedderLike | null = null;
  const em = await tryImport('../../runtime/models/embedder.js');
  if (em && typeof em.createEmbedder === 'function') {
    try {
      embedder = (await (em.createEmbedder as (c: unknown) => EmbedderLike | Promise<EmbedderLike>)(config.embedding)) ?? null;
      // A remote model's dimension is checked before the index is sized by it.
      if (embedder?.check && config.embedding.provider !== 'local') await embedder.check();
    } catch (err) {
      if (config.embedding.provider !== 'local') throw err;
      log.warn('embedder module failed; trying the native local embedder directly', { error: err });
    }
  }
  if (!embedder && config.embedding.provider === 'local') embedder = await nativeLocalEmbedder(config.embedding.dim ?? 384, log);
  if (!embedder) {
    if (config.embedding.provider !== 'local') throw new Error('CTX_EMBEDDING_PROVIDER=openai needs runtime/models/embedder.ts, which is not available');
    embedder = new JsLexicalEmbedder(config.embedding.dim ?? 384);
  }
  const nv = await tryImport('../../runtime/native-vector.js');
  const Native = nv?.VectorIndex as
    | {
        create(opts: { dim: number; metric?: 'ip'; flatThreshold?: number }): VectorBackend;
        loadAsync(path: string): Promise<VectorBackend & { configure(o: { dim: number; flatThreshold?: number }): void; stats(): { dim: number } }>;
      }
    | undefined;
  if (Native && typeof Native.create === 'function') {
    try {
      Native.create({ dim: 4, metric: 'ip' }).stats();
      const flatThreshold = config.vectorFlatThreshold;
      return {
        embedder,
        kind: 'native',
        createIndex: (dim) => Native.create({ dim, metric: 'ip', flatThreshold }),
        loadIndex: async (p) => {
          const idx = await Native.loadAsync(p);
          idx.configure({ dim: idx.stats().dim, flatThreshold });
          return idx;
        },
      };
    } catch (err) {
      log.warn('native vector index unavailable, using the JavaScript flat index', { error: err });
    }
  }
  return { embedder, kind: 'js', createIndex: (dim) => new JsFlatIndex(dim), loadIndex: (p) => JsFlatIndex.load(p) };
}

/** core-native's lexical embedder (runtime/native-text.ts), when built. */
async function nativeLocalEmbedder(dim: number, log: Logger): Promise<EmbedderLike | null> {
  const nt = await tryImport('../../runtime/native-text.js');
  const le = nt?.localEmbed as
    | { info(dim?: number): { version: number; dim: number } & Record<string, unknown>; embed(texts: string[], dim?: number): Float32Array; embedAsync(texts: string[], dim?: number): Promise<Float32Array> }
    | undefined;
  if (!le) return null;
  try {
    const { version, dim: d, ...params } = le.info(dim);
    return {
      info: { provider: 'local', model: `ctx-lexical-v${version}`, dim: d, inputMode: 'text', params },
      supportsImages: false,
      async embed(texts, kind) {
        // A query is cheaper on this thread than a thread-pool hop; documents go off the JS thread.
        const m = kind === 'query' && texts.length <= 4 ? le.embed(texts, d) : await le.embedAsync(texts, d);
        return texts.map((_, i) => m.subarray(i * d, (i + 1) * d));
      },
    };
  } catch (err) {
    log.warn('native local embedder unavailable, using the JavaScript lexical embedder', { error: err });
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// JavaScript fallbacks

function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * Lexical dense embedding: signed feature hashing of normalized words (weight 1), word bigrams
 * (0.7) and character trigrams inside words (0.35), sublinear term frequency, L2-normalized.
 * Deterministic, offline; paraphrases sharing stems and sub-words land close.
 */
export class JsLexicalEmbedder implements EmbedderLike {
  readonly supportsImages = false;
  readonly info;
  constructor(readonly dim: number) {
    this.info = { provider: 'local', model: 'ctx-lexical-js-v1', dim, inputMode: 'text', params: { words: 1, bigrams: 0.7, trigrams: 0.35 } };
  }
  embedOne(text: string): Float32Array {
    const words = tokenize(text);
    const feats = new Map<string, number>();
    const add = (f: string, w: number) => feats.set(f, (feats.get(f) ?? 0) + w);
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      add('w:' + w, 1);
      if (i + 1 < words.length) add('b:' + w + ' ' + words[i + 1], 0.7);
      const padded = `<${w}>`;
      if (padded.length > 4) for (let j = 0; j + 3 <= padded.length; j++) add('c:' + padded.slice(j, j + 3), 0.35);
    }
    const v = new Float32Array(this.dim);
    for (const [f, tf] of feats) {
      const h = fnv1a(f);
      const weight = (1 + Math.log(tf)) * (h & 0x80000000 ? -1 : 1);
      v[h % this.dim]! += weight;
    }
    let n = 0;
    for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
    if (n > 0) {
      const inv = 1 / Math.sqrt(n);
      for (let i = 0; i < v.length; i++) v[i]! *= inv;
    }
    return v;
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }
}

/** Lowercase, Unicode-aware word split. */
export function tokenize(text: string): string[] {
  return text.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
}

interface Slot {
  vec: Float32Array;
  attrs: RecordAttrs;
}

const startsWithPrefix = (uri: string, prefix: string) =>
  prefix === 'ctx://' || uri === prefix || (uri.startsWith(prefix) && uri.charCodeAt(prefix.length) === 0x2f);

export function matchesFilter(a: RecordAttrs, f: VectorFilter): boolean {
  if (a.account !== f.account) return false;
  if (f.uriPrefixes && !f.uriPrefixes.some((p) => startsWithPrefix(a.uri, p))) return false;
  if (f.excludeUriPrefixes?.some((p) => startsWithPrefix(a.uri, p))) return false;
  if (f.ownerSpaces && !f.ownerSpaces.includes(a.ownerSpace)) return false;
  if (f.contextTypes && !f.contextTypes.includes(a.contextType)) return false;
  if (f.levels && !f.levels.includes(a.level)) return false;
  if (f.tags && !f.tags.every((t) => a.tags.includes(t))) return false;
  if (f.since !== undefined || f.until !== undefined) {
    const t = f.timeField === 'createdAt' ? a.createdAt : a.updatedAt;
    if (f.since !== undefined && t < f.since) return false;
    if (f.until !== undefined && t > f.until) return false;
  }
  if (f.peer !== undefined && a.peer !== f.peer) return false;
  return true;
}

/** Ancestor URIs of a record URI, itself included: the subtrees it belongs to. */
function ancestorsOf(uri: string): string[] {
  const out = [uri];
  for (let i = uri.lastIndexOf('/'); i > 'ctx://'.length; i = uri.lastIndexOf('/', i - 1)) out.push(uri.slice(0, i));
  return out;
}

/**
 * Exact inner-product search over per-account partitions. Each partition also keeps the ids of
 * every subtree (by ancestor URI), so a search restricted to URI prefixes scores only the
 * records below them instead of scanning the account.
 */
export class JsFlatIndex implements VectorBackend {
  private readonly byAccount = new Map<string, Map<string, Slot>>();
  private readonly subtrees = new Map<string, Map<string, Set<string>>>();
  private readonly accountOf = new Map<string, string>();
  constructor(readonly dim: number) {}

  private link(account: string, id: string, uri: string, add: boolean): void {
    let m = this.subtrees.get(account);
    if (!m) this.subtrees.set(account, (m = new Map()));
    for (const a of ancestorsOf(uri)) {
      let set = m.get(a);
      if (add) {
        if (!set) m.set(a, (set = new Set()));
        set.add(id);
      } else if (set) {
        set.delete(id);
        if (!set.size) m.delete(a);
      }
    }
  }

  /** The slots a filter can match: the union of its prefixes' subtrees, or the whole account. */
  private *candidates(filter: VectorFilter): Iterable<[string, Slot]> {
    const part = this.byAccount.get(filter.account);
    if (!part) return;
    const prefixes = filter.uriPrefixes;
    if (!prefixes || prefixes.includes('ctx://')) {
      yield* part;
      return;
    }
    const m = this.subtrees.get(filter.account);
    const seen = new Set<string>();
    for (const p of prefixes)
      for (const id of m?.get(p) ?? []) {
        if (seen.has(id)) continue;
        seen.add(id);
        const slot = part.get(id);
        if (slot) yield [id, slot];
      }
  }

  upsert(ids: string[], vectors: Float32Array, attrs: RecordAttrs[]): void {
    if (vectors.length !== ids.length * this.dim) throw new Error(`upsert: expected ${ids.length * this.dim} floats, got ${vectors.length}`);
    ids.forEach((id, i) => {
      const a = attrs[i]!;
      const prev = this.accountOf.get(id);
      if (prev !== undefined) {
        const old = this.byAccount.get(prev)?.get(id);
        if (old) this.link(prev, id, old.attrs.uri, false);
        this.byAccount.get(prev)?.delete(id);
      }
      let part = this.byAccount.get(a.account);
      if (!part) this.byAccount.set(a.account, (part = new Map()));
      part.set(id, { vec: vectors.slice(i * this.dim, (i + 1) * this.dim), attrs: a });
      this.link(a.account, id, a.uri, true);
      this.accountOf.set(id, a.account);
    });
  }
  remove(ids: string[]): number {
    let n = 0;
    for (const id of ids) {
      const acc = this.accountOf.get(id);
      if (acc === undefined) continue;
      const old = this.byAccount.get(acc)?.get(id);
      if (old) this.link(acc, id, old.attrs.uri, false);
      this.byAccount.get(acc)?.delete(id);
      this.accountOf.delete(id);
      n++;
    }
    return n;
  }
  removeWhere(filter: VectorFilter): number {
    return this.remove(this.ids(filter));
  }
  async searchAsync(query: Float32Array, k: number, filter: VectorFilter): Promise<Hit[]> {
    if (k <= 0) return [];
    const top: Hit[] = [];
    let floor = -Infinity;
    for (const [id, slot] of this.candidates(filter)) {
      if (!matchesFilter(slot.attrs, filter)) continue;
      const v = slot.vec;
      let s = 0;
      for (let i = 0; i < v.length; i++) s += v[i]! * query[i]!;
      if (top.length >= k && s <= floor) continue;
      top.push({ id, score: s });
      if (top.length > k) {
        top.sort((a, b) => b.score - a.score);
        top.length = k;
        floor = top[k - 1]!.score;
      }
    }
    return top.sort((a, b) => b.score - a.score);
  }
  count(filter: VectorFilter): number {
    let n = 0;
    for (const [, slot] of this.candidates(filter)) if (matchesFilter(slot.attrs, filter)) n++;
    return n;
  }
  ids(filter: VectorFilter, limit = Infinity): string[] {
    const out: string[] = [];
    for (const [id, slot] of this.candidates(filter)) {
      if (out.length >= limit) break;
      if (matchesFilter(slot.attrs, filter)) out.push(id);
    }
    return out;
  }
  stats() {
    const size = this.accountOf.size;
    return { size, dim: this.dim, kind: 'flat-js', vectorBytes: size * this.dim * 4, graphBytes: 0, attrBytes: size * 200 };
  }
  /** Length-prefixed JSON of the attrs, then the vectors; written to a temp file and renamed. */
  async saveAsync(path: string): Promise<void> {
    const ids: string[] = [];
    const attrs: RecordAttrs[] = [];
    const vec = new Float32Array(this.accountOf.size * this.dim);
    for (const part of this.byAccount.values())
      for (const [id, slot] of part) {
        vec.set(slot.vec, ids.length * this.dim);
        ids.push(id);
        attrs.push(slot.attrs);
      }
    const head = Buffer.from(JSON.stringify({ dim: this.dim, ids, attrs }), 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32LE(head.length);
    const tmp = `${path}.tmp`;
    await fs.writeFile(tmp, Buffer.concat([len, head, Buffer.from(vec.buffer, vec.byteOffset, vec.byteLength)]));
    await fs.rename(tmp, path);
  }
  static async load(path: string): Promise<JsFlatIndex> {
    const buf = await fs.readFile(path);
    const n = buf.readUInt32LE(0);
    const head = JSON.parse(buf.subarray(4, 4 + n).toString('utf8')) as { dim: number; ids: string[]; attrs: RecordAttrs[] };
    const body = buf.subarray(4 + n);
    if (body.length !== head.ids.length * head.dim * 4) throw new Error(`vector file ${path} is truncated`);
    const vec = new Float32Array(body.length / 4);
    for (let i = 0; i < vec.length; i++) vec[i] = body.readFloatLE(i * 4);
    const index = new JsFlatIndex(head.dim);
    index.upsert(head.ids, vec, head.attrs);
    return index;
  }
}
