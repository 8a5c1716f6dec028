/**
 * Hierarchical retrieval (docs/retrieval.md):
 * 1. global search over every record the request may see: leaves (L2) and directories (L0/L1);
 *    directories are also searched as navigation points, within access and target only;
 * 2. the best unexpanded directory is expanded with a search restricted to its subtree; child
 *    scores are propagated from the parent: final = max(s, ALPHA·s + (1−ALPHA)·parent);
 *    subdirectories found join the frontier with their propagated score;
 * 3. it stops when the top-k has not changed for STABLE_ROUNDS expansions, after MAX_EXPANSIONS,
 *    or when the frontier is empty or below the current k-th score.
 */
import type { VectorFilter } from 'ctx/plugin';
import { denseWeight, LISTING_TAG, type RecordDoc, type RecordStore } from './store.js';
import { queryTermMatcher } from './match-terms.js';
import type { SlimRecord } from './slim-records.js';

export const PARAMS = {
  ALPHA: 0.7,
  MAX_EXPANSIONS: 6,
  STABLE_ROUNDS: 2,
  GLOBAL_K_MIN: 20,
  NAV_K: 8,
};

/** A scored record as the core returns it, before its record is read. */
export interface Hit {
  id: string;
  /** Final score in [0,1]. */
  score: number;
  /** Raw similarity in [0,1]. */
  raw: number;
  via?: { uri: string; score: number };
  query?: string;
  /** Relevance from the reranker, when one is configured. */
  rerank?: number;
}

export interface Candidate<D extends RecordDoc | SlimRecord = RecordDoc> extends Hit {
  doc: D;
}

export interface Provenance {
  global_hits: number;
  navigation_hits: number;
  expanded: Array<{ uri: string; score: number; child_hits: number; round: number }>;
  rounds: number;
  stop_reason: 'stable' | 'max_expansions' | 'frontier_exhausted' | 'frontier_below_topk' | 'no_hits';
  params: typeof PARAMS;
}

type Index = RecordStore['index'];
type Prep = Awaited<ReturnType<Index['prepareHierarchicalAsync']>>;
type SearchResult = Awaited<ReturnType<Index['hierarchicalSearchAsync']>>;

/**
 * A prepared search over at most this many records (scope and navigation points) is finished on
 * the JS thread when it is the only find running: ~0.25 ms at 2,000 records, less than the libuv
 * pool's hop and wake-up costs a find on a loaded machine. Larger ones, and any while other finds
 * run (the JS thread is then their bottleneck, the pool's threads are not), go to the pool.
 */
const FINISH_ON_THREAD_MAX = 5_000;

/** The vector-free half of a find, started while its query embedding is in flight. */
export interface PreparedFind {
  text: string;
  scope: { navs: VectorFilter[]; filters: VectorFilter[] };
  limit: number;
  /** Undefined when the scope is empty (nothing to search). */
  prep?: Promise<Prep>;
}

function searchParams(store: RecordStore, text: string, limit: number) {
  return {
    propagation: PARAMS.ALPHA,
    maxExpansions: PARAMS.MAX_EXPANSIONS,
    stableRounds: PARAMS.STABLE_ROUNDS,
    globalKMin: PARAMS.GLOBAL_K_MIN,
    navK: PARAMS.NAV_K,
    // Only a head of the ranking can reach the results (present() keeps `limit` after collapsing
    // a directory's L0/L1 and skipping unreadable ones; the reranker reads max(2·limit, 20)): the
    // rest would cost an object each on this thread.
    maxHits: Math.max(4 * limit, 40),
    ...(text ? denseWeight(store.embedder.info.provider) : { alpha: 1 }),
  };
}

/**
 * Starts the part of a find that needs no query vector — the scope's bitmaps, BM25 over them and
 * the dense weight — in the core, off the JS thread, so it overlaps a remote embedder's round trip
 * (bench/RESULTS.md, issue 27 "find"). `hierarchicalFind` finishes it; the ranking is the one
 * call's (the core runs the whole search again if the index was written to in between).
 */
export function prepareFind(store: RecordStore, text: string, scope: { navs: VectorFilter[]; filters: VectorFilter[] }, limit: number): PreparedFind {
  const out: PreparedFind = { text, scope: withoutListings(scope), limit };
  // The lexical embedder answers in microseconds: nothing to overlap, and the preparation's own
  // hop to the pool would be one more per find (8 clients: 1,496 -> ~550 req/s with it).
  // While the index is still loading (store.open) there is nothing to prepare on: one call later.
  if (scope.filters.length && store.embedder.info.provider !== 'local' && store.loaded) {
    out.prep = store.index.prepareHierarchicalAsync(text, out.scope.filters, out.scope.navs, searchParams(store, text, limit));
    out.prep.catch(() => {}); // awaited in hierarchicalFind; a failed embedding must not leave it unhandled
  }
  return out;
}

/**
 * The whole search runs in the core (a loop here cost ~8 N-API round trips per find), in two calls
 * when prepared: the vector-free half while the embedding is in flight, the rest with the vector.
 * The scope's filters are OR'ed into one candidate set before scoring, so BM25 is normalized once
 * over the whole scope. Without query text the score is the dense one alone.
 */
export async function hierarchicalFind(
  store: RecordStore,
  vec: Float32Array,
  text: string,
  scope: { navs: VectorFilter[]; filters: VectorFilter[] },
  limit: number,
  prepared?: PreparedFind,
  /** No other find is running (FINISH_ON_THREAD_MAX). */
  alone = false,
): Promise<{ hits: Hit[]; provenance: Provenance }> {
  const provenance: Provenance = { global_hits: 0, navigation_hits: 0, expanded: [], rounds: 0, stop_reason: 'no_hits', params: PARAMS };
  if (!scope.filters.length) return { hits: [], provenance };
  // Right after start the index may still be loading (store.open): wait, never answer from it half-loaded.
  if (!store.loaded) await store.whenLoaded();
  let r: SearchResult;
  if (prepared?.prep) {
    const prep = await prepared.prep;
    const index = store.index;
    r = alone && prep.size <= FINISH_ON_THREAD_MAX ? index.hierarchicalSearchPrepared(prep, vec, limit) : await index.hierarchicalSearchPreparedAsync(prep, vec, limit);
  } else {
    const { filters, navs } = prepared?.scope ?? withoutListings(scope);
    r = await store.index.hierarchicalSearchAsync(vec, text, limit, filters, navs, searchParams(store, text, limit));
  }
  const hits: Hit[] = r.hits.map((h) => ({ id: h.id, score: h.score, raw: h.raw, via: h.viaUri ? { uri: h.viaUri, score: h.viaScore ?? 0 } : undefined }));
  provenance.global_hits = r.globalHits;
  provenance.navigation_hits = r.navigationHits;
  provenance.expanded = r.expanded.map((e) => ({ uri: e.uri, score: round4(e.score), child_hits: e.childHits, round: e.round }));
  provenance.rounds = r.rounds;
  provenance.stop_reason = r.stopReason;
  return { hits, provenance };
}

/**
 * The records of these hits, in order; hits whose record is gone (removed since the search) are
 * left out. Records are read only for the hits that are looked at: loading the whole head of 40
 * per find, where ~12 are read, was a third of the JS thread's work at 100k files (RocksDB reads,
 * JSON parses, garbage).
 */
export async function loadCandidates(store: RecordStore, account: string, hits: Array<Hit | Candidate>): Promise<Candidate[]> {
  const missing = hits.filter((h) => !('doc' in h && h.doc));
  const docs = missing.length ? await store.getMany(account, missing.map((h) => h.id)) : [];
  let j = 0;
  const out: Candidate[] = [];
  for (const h of hits) {
    if ('doc' in h && h.doc) out.push(h as Candidate);
    else {
      const doc = docs[j++];
      if (doc) out.push({ ...h, doc });
    }
  }
  return out;
}

/**
 * `loadCandidates` with what the answer reads of each record (slim-records.ts): from the slim
 * cache, RocksDB only for the records not in it. Hits that already carry a record keep it.
 */
export async function loadSlimCandidates(store: RecordStore, account: string, hits: Array<Hit | Candidate<RecordDoc | SlimRecord>>): Promise<Array<Candidate<RecordDoc | SlimRecord>>> {
  const missing = hits.filter((h) => !('doc' in h && h.doc));
  const docs = missing.length ? await store.slimMany(account, missing.map((h) => h.id)) : [];
  let j = 0;
  const out: Array<Candidate<RecordDoc | SlimRecord>> = [];
  for (const h of hits) {
    if ('doc' in h && h.doc) out.push(h);
    else {
      const doc = docs[j++];
      if (doc) out.push({ ...h, doc });
    }
  }
  return out;
}

/**
 * Directory records compete with leaves only when their text is informative (docs/retrieval.md,
 * "Directory records"): a record that only lists its children's names (`listing`) is neither a hit
 * nor a navigation point, unless the request asks for directories (a `level` naming 0 or 1, in the
 * field or in any `$or` branch of the filter). On the tuned set such records took 27% of find's
 * top-10 hits and lifted the children of whatever directory listed the query's words above better
 * leaves elsewhere.
 */
export function withoutListings(scope: { navs: VectorFilter[]; filters: VectorFilter[] }): { navs: VectorFilter[]; filters: VectorFilter[] } {
  if (scope.filters.some((f) => f.levels?.some((l) => l < 2))) return scope;
  const drop = (f: VectorFilter): VectorFilter => ({ ...f, excludeTags: [...(f.excludeTags ?? []), LISTING_TAG] });
  return { navs: scope.navs.map(drop), filters: scope.filters.map(drop) };
}

export const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

const LEVEL_TEXT = ['L0 abstract', 'L1 overview', 'L2 content'];

export { queryTermMatcher, words } from './match-terms.js';

/** Why a hit matched: which level's text, how similar, which query terms it contains, how it was reached. */
export function matchReason(c: Candidate<RecordDoc | SlimRecord>, query: string, sharedTerms: ReturnType<typeof queryTermMatcher> = queryTermMatcher(query)): string {
  const shared = sharedTerms('extra' in c.doc ? c.doc : `${c.doc.attrs.uri} ${c.doc.text}`);
  const parts = [`${LEVEL_TEXT[c.doc.level]} similarity ${c.raw.toFixed(2)}`];
  parts.push(shared.length ? `shared terms: ${shared.slice(0, 8).join(', ')}` : 'no shared terms (semantic neighbour)');
  if (c.via) parts.push(`boosted through ${c.via.uri} (${c.via.score.toFixed(2)})`);
  if (c.query && c.query !== query) parts.push(`matched expanded query "${c.query}"`);
  if (c.rerank !== undefined) parts.push(`reranked ${c.rerank.toFixed(2)}`);
  return parts.join('; ');
}
