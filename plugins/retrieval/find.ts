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
import type { Hit, VectorFilter } from './backends.js';
import { tokenize } from './backends.js';
import type { RecordDoc, RecordStore } from './store.js';

export const PARAMS = {
  ALPHA: 0.7,
  MAX_EXPANSIONS: 6,
  STABLE_ROUNDS: 2,
  GLOBAL_K_MIN: 20,
  NAV_K: 8,
};

export interface Candidate {
  doc: RecordDoc;
  /** Final score in [0,1]. */
  score: number;
  /** Raw similarity in [0,1]. */
  raw: number;
  via?: { uri: string; score: number };
  query?: string;
  /** Relevance from the reranker, when one is configured. */
  rerank?: number;
}

export interface Provenance {
  global_hits: number;
  navigation_hits: number;
  expanded: Array<{ uri: string; score: number; child_hits: number; round: number }>;
  rounds: number;
  stop_reason: 'stable' | 'max_expansions' | 'frontier_exhausted' | 'frontier_below_topk' | 'no_hits';
  params: typeof PARAMS;
}

const clamp01 = (x: number) => (x < 0 ? 0 : x > 1 ? 1 : x);

/** A filter as a string independent of key order and of keys set to undefined. */
function canonical(f: VectorFilter): string {
  const o = f as unknown as Record<string, unknown>;
  return JSON.stringify(
    Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => [k, o[k]]),
  );
}

function withPrefix(f: VectorFilter, prefix: string): VectorFilter | null {
  if (!f.uriPrefixes) return { ...f, uriPrefixes: [prefix] };
  const keep = f.uriPrefixes.filter((p) => prefix === p || prefix.startsWith(p + '/') || p === 'ctx://');
  if (keep.length) return { ...f, uriPrefixes: [prefix] };
  const deeper = f.uriPrefixes.filter((p) => p.startsWith(prefix + '/'));
  return deeper.length ? { ...f, uriPrefixes: deeper } : null;
}

export async function hierarchicalFind(
  store: RecordStore,
  vec: Float32Array,
  text: string,
  scope: { navs: VectorFilter[]; filters: VectorFilter[] },
  limit: number,
): Promise<{ candidates: Candidate[]; provenance: Provenance }> {
  const account = scope.filters[0]?.account ?? scope.navs[0]!.account;
  const globalK = Math.max(limit * 2, PARAMS.GLOBAL_K_MIN);
  const provenance: Provenance = { global_hits: 0, navigation_hits: 0, expanded: [], rounds: 0, stop_reason: 'no_hits', params: PARAMS };
  if (!scope.filters.length) return { candidates: [], provenance };
  if (store.index.hierarchicalSearchAsync && text) return nativeFind(store, vec, text, scope, limit, account, provenance);

  const searchAll = async (filters: VectorFilter[], k: number): Promise<Hit[]> => {
    const lists = await Promise.all(filters.map((f) => store.search(vec, text, k, f)));
    const best = new Map<string, number>();
    for (const l of lists) for (const h of l) best.set(h.id, Math.max(best.get(h.id) ?? -Infinity, h.score));
    return [...best].map(([id, score]) => ({ id, score }));
  };

  const navFilters = scope.navs.map((f) => ({ ...f, levels: [0, 1] }));
  // Without conditions beyond access and target, one subtree search per expansion serves both as
  // child candidates and as subdirectories to navigate (saves a search per round).
  const plain = (f: VectorFilter) => canonical({ ...f, contextTypes: undefined, levels: undefined });
  const sameScope =
    scope.filters.length === scope.navs.length &&
    scope.filters.every((f, i) => !f.levels && (!f.contextTypes || f.contextTypes.length === 3) && plain(f) === plain(scope.navs[i]!));
  const [globalHits, navHits] = await Promise.all([searchAll(scope.filters, globalK), searchAll(navFilters, globalK)]);
  provenance.global_hits = globalHits.length;
  provenance.navigation_hits = navHits.length;

  const docs = new Map<string, RecordDoc>();
  const load = async (hits: Hit[]) => {
    const missing = [...new Set(hits.map((h) => h.id).filter((id) => !docs.has(id)))];
    if (!missing.length) return;
    const got = await store.getMany(account, missing);
    got.forEach((d, i) => d && docs.set(missing[i]!, d));
  };
  await load([...globalHits, ...navHits]);

  const cands = new Map<string, Candidate>();
  const offer = (h: Hit, via?: { uri: string; score: number }) => {
    const doc = docs.get(h.id);
    if (!doc) return;
    const raw = clamp01(h.score);
    const score = via ? Math.max(raw, PARAMS.ALPHA * raw + (1 - PARAMS.ALPHA) * via.score) : raw;
    const prev = cands.get(h.id);
    if (!prev || score > prev.score) cands.set(h.id, { doc, score, raw, via: score > raw ? via : undefined });
  };
  for (const h of globalHits) offer(h);

  // Frontier: directory uri → best score (L0 or L1 record).
  const frontier = new Map<string, number>();
  const expanded = new Set<string>();
  const push = (uri: string, score: number) => {
    if (!expanded.has(uri) && score > (frontier.get(uri) ?? -1)) frontier.set(uri, score);
  };
  for (const h of navHits) {
    const d = docs.get(h.id);
    if (d) push(d.attrs.uri, clamp01(h.score));
  }

  const topKey = () =>
    [...cands.values()]
      .sort((a, b) => b.score - a.score)
      .slice(0, limit)
      .map((c) => c.doc.id)
      .join(',');
  const kth = () => {
    const s = [...cands.values()].map((c) => c.score).sort((a, b) => b - a);
    return s.length >= limit ? s[limit - 1]! : 0;
  };
  let last = topKey();
  let stable = 0;
  provenance.stop_reason = frontier.size ? 'max_expansions' : cands.size ? 'frontier_exhausted' : 'no_hits';
  for (let round = 1; round <= PARAMS.MAX_EXPANSIONS; round++) {
    if (!frontier.size) {
      provenance.stop_reason = 'frontier_exhausted';
      break;
    }
    const [uri, dirScore] = [...frontier].sort((a, b) => b[1] - a[1])[0]!;
    frontier.delete(uri);
    expanded.add(uri);
    // A directory scoring below the current k-th result cannot lift a child above it by much.
    if (cands.size >= limit && dirScore < kth() * 0.5) {
      provenance.stop_reason = 'frontier_below_topk';
      break;
    }
    const childFilters = scope.filters.map((f) => withPrefix(f, uri)).filter((f): f is VectorFilter => f !== null);
    const navChild = navFilters.map((f) => withPrefix(f, uri)).filter((f): f is VectorFilter => f !== null);
    let childHits: Hit[];
    let subdirs: Hit[];
    if (sameScope) {
      childHits = childFilters.length ? await searchAll(childFilters, limit + PARAMS.NAV_K) : [];
      await load(childHits);
      subdirs = childHits.filter((h) => docs.get(h.id)?.kind === 'dir');
    } else {
      [childHits, subdirs] = await Promise.all([
        childFilters.length ? searchAll(childFilters, limit) : Promise.resolve([]),
        navChild.length ? searchAll(navChild, PARAMS.NAV_K) : Promise.resolve([]),
      ]);
      await load([...childHits, ...subdirs]);
    }
    const via = { uri, score: dirScore };
    for (const h of childHits) offer(h, via);
    for (const h of subdirs) {
      const d = docs.get(h.id);
      if (d && d.attrs.uri !== uri) push(d.attrs.uri, Math.max(clamp01(h.score), PARAMS.ALPHA * clamp01(h.score) + (1 - PARAMS.ALPHA) * dirScore));
    }
    provenance.expanded.push({ uri, score: round4(dirScore), child_hits: childHits.length, round });
    provenance.rounds = round;
    const key = topKey();
    stable = key === last ? stable + 1 : 0;
    last = key;
    if (stable >= PARAMS.STABLE_ROUNDS) {
      provenance.stop_reason = 'stable';
      break;
    }
  }
  return { candidates: [...cands.values()].sort((a, b) => b.score - a.score), provenance };
}

/**
 * The same algorithm in the core, in one call off the JS thread (the loop below cost ~8 N-API round
 * trips per find). Differences: the scope's filters are OR'ed into one candidate set before
 * scoring, so BM25 is normalized once over the whole scope instead of per `$or` branch.
 */
async function nativeFind(
  store: RecordStore,
  vec: Float32Array,
  text: string,
  scope: { navs: VectorFilter[]; filters: VectorFilter[] },
  limit: number,
  account: string,
  provenance: Provenance,
): Promise<{ candidates: Candidate[]; provenance: Provenance }> {
  const r = await store.index.hierarchicalSearchAsync!(vec, text, limit, scope.filters, scope.navs, {
    propagation: PARAMS.ALPHA,
    maxExpansions: PARAMS.MAX_EXPANSIONS,
    stableRounds: PARAMS.STABLE_ROUNDS,
    globalKMin: PARAMS.GLOBAL_K_MIN,
    navK: PARAMS.NAV_K,
  });
  // Only the head can reach the results: present() keeps `limit` of them after collapsing a
  // directory's L0/L1 and skipping unreadable ones, and the reranker reads max(2·limit, 20). Loading
  // every scored record (~100 per find) missed the record cache on large collections.
  const head = r.hits.slice(0, Math.max(4 * limit, 40));
  const docs = await store.getMany(
    account,
    head.map((h) => h.id),
  );
  const candidates: Candidate[] = [];
  head.forEach((h, i) => {
    const doc = docs[i];
    if (doc) candidates.push({ doc, score: h.score, raw: h.raw, via: h.viaUri ? { uri: h.viaUri, score: h.viaScore ?? 0 } : undefined });
  });
  provenance.global_hits = r.globalHits;
  provenance.navigation_hits = r.navigationHits;
  provenance.expanded = r.expanded.map((e) => ({ uri: e.uri, score: round4(e.score), child_hits: e.childHits, round: e.round }));
  provenance.rounds = r.rounds;
  provenance.stop_reason = r.stopReason as Provenance['stop_reason'];
  return { candidates, provenance };
}

export const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

const LEVEL_TEXT = ['L0 abstract', 'L1 overview', 'L2 content'];

const WORD_CHAR = /[\p{L}\p{N}\uD800-\uDFFF]/u;
function isWordChar(s: string, i: number): boolean {
  if (i < 0 || i >= s.length) return false;
  const c = s.charCodeAt(i);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
  return WORD_CHAR.test(s[i]!);
}

/**
 * Which of the query's terms a text contains as whole words: `indexOf` per term on the lowercased
 * text with a boundary check. Tokenizing every hit's whole text (1 KB+) to intersect term sets cost
 * ~25 µs per hit, and one Unicode-class regex with lookbehind was slower still.
 */
export function queryTermMatcher(query: string): (text: string) => string[] {
  const terms = [...new Set(tokenize(query))];
  if (!terms.length) return () => [];
  return (text) => {
    const lower = text.toLowerCase();
    return terms.filter((t) => {
      for (let i = lower.indexOf(t); i >= 0; i = lower.indexOf(t, i + 1)) if (!isWordChar(lower, i - 1) && !isWordChar(lower, i + t.length)) return true;
      return false;
    });
  };
}

/** Why a hit matched: which level's text, how similar, which query terms it contains, how it was reached. */
export function matchReason(c: Candidate, query: string, sharedTerms: (text: string) => string[] = queryTermMatcher(query)): string {
  const shared = sharedTerms(`${c.doc.attrs.uri} ${c.doc.text}`);
  const parts = [`${LEVEL_TEXT[c.doc.level]} similarity ${c.raw.toFixed(2)}`];
  parts.push(shared.length ? `shared terms: ${shared.slice(0, 8).join(', ')}` : 'no shared terms (semantic neighbour)');
  if (c.via) parts.push(`boosted through ${c.via.uri} (${c.via.score.toFixed(2)})`);
  if (c.query && c.query !== query) parts.push(`matched expanded query "${c.query}"`);
  if (c.rerank !== undefined) parts.push(`reranked ${c.rerank.toFixed(2)}`);
  return parts.join('; ');
}
