/** HTTP routes of the retrieval plugin (spec Part 3 "Retrieval"): find and search here; grep, glob, consistency and observers in their own modules. */
import { CtxError, invalidArgument } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import type { Llm } from 'ctx/plugin';
import type { PluginHost } from 'ctx/plugin';
import { s, TAG_PATTERN } from 'ctx/plugin';
import { splitHeader } from 'ctx/plugin';
import { QueryEmbeddingCache } from './query-embedding-cache.js';
import { hierarchicalFind, prepareFind, loadCandidates, loadSlimCandidates, matchReason, queryTermMatcher, round4, type Candidate, type Hit, type Provenance } from './find.js';
import { buildScope, requireQuery, type ScopeInput } from './query.js';
import { planQueries } from './plan.js';
import { legacyIdentity } from './legacy.js';
import { categoryOf, placement } from './space.js';
import type { RecordDoc, RecordStore } from './store.js';
import type { SlimRecord } from './slim-records.js';
import { resultObject } from 'ctx/plugin';
import { OpStats } from './op-stats.js';
import { registerGrepGlobRoutes } from './grep-glob-routes.js';
import { registerConsistencyRoute } from './consistency-route.js';
import { registerObservers } from './observers.js';

const targetSchema = s.union<string | string[]>([s.string(), s.array(s.string(), { max: 64 })], 'a URI string or an array of URI strings');
const CONTEXT_TYPES = ['resource', 'memory', 'skill'];
const TIME_PATTERN = String.raw`^\s*(\d+(\.\d+)?\s*[smhdwSMHDW]|\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([zZ]|[+-]\d{2}:?\d{2})?)?)\s*$`;
const findShape = {
  query: s.string({ max: 8192 }).optional(),
  image_url: s.string({ max: 16 * 1024 * 1024 }).annotate({ pattern: '^(data:image/[^;]+;base64,|https?://|ctx://)' }).optional(),
  target_uri: targetSchema.optional(),
  context_type: s
    .union<string | string[]>([s.string().annotate({ enum: CONTEXT_TYPES }), s.array(s.string().annotate({ enum: CONTEXT_TYPES }), { min: 1, max: 3 })], 'a context type or an array of them')
    .optional(),
  tags: s.array(s.string({ max: 512 }).annotate({ pattern: TAG_PATTERN }), { max: 64 }).optional(),
  // No lower bound: 0 or less asks for nothing and gets an empty result (limitOf), as the reference
  // answers it; clients written for it send `limit: 0` to probe a scope.
  limit: s.int({ max: 1000 }).optional(),
  node_limit: s.int({ max: 1000 }).optional(),
  score_threshold: s.number({ min: 0, max: 1 }).optional(),
  filter: s.record(s.any()).optional(),
  // A relative time, a day or an ISO 8601 date-time (query.ts parseTime).
  since: s.string({ max: 64 }).annotate({ pattern: TIME_PATTERN }).optional(),
  until: s.string({ max: 64 }).annotate({ pattern: TIME_PATTERN }).optional(),
  time_field: s.enum(['updated_at', 'created_at'] as const).optional(),
  level: s.union<string | number>([s.string({ max: 16 }).annotate({ pattern: '^ *[012] *(, *[012] *){0,2}$' }), s.int({ min: 0, max: 2 })], 'levels such as "0", "2" or "0,1,2"').optional(),
  include_provenance: s.bool().optional(),
  read_content: s.bool().optional(),
  // Legacy 0.3.x fields (legacy.ts): agent_id is the actor peer in legacy mode; peer_id is refused.
  agent_id: s.string({ max: 128 }).optional().describe('legacy 0.3.x agent_id: the actor peer, and unmigrated ctx://agent data searched too'),
  peer_id: s.any().annotate({ not: {} }).optional().describe('not supported: 400; set the peer view with X-Ctx-Actor-Peer'),
};
// Either a text query or an image: the handler answers 400 with neither.
// (inside allOf: generators such as openapi-typescript then intersect it with the properties).
const QUERY_OR_IMAGE = { allOf: [{ anyOf: [{ required: ['query'], properties: { query: { type: 'string', minLength: 1 } } }, { required: ['image_url'], properties: { image_url: { type: 'string', minLength: 1 } } }] }] };
const findSchema = s.object(findShape).annotate(QUERY_OR_IMAGE);
const searchSchema = s.object({
  ...findShape,
  session_id: s.string({ min: 1, max: 128 }).optional(),
  mode: s.enum(['auto', 'fast', 'deep', 'context'] as const).optional(),
}).annotate(QUERY_OR_IMAGE);
// Spec Part 3 "Search result".
const matchedContext = resultObject({
  uri: s.string(),
  context_type: s.enum(['resource', 'memory', 'skill'] as const),
  level: s.int({ min: 0, max: 2 }),
  abstract: s.string(),
  overview: s.string().nullable().optional(),
  category: s.string().optional(),
  score: s.number(),
  match_reason: s.string(),
  content: s.string().optional().describe('with read_content'),
});
const searchResult = resultObject({
  memories: s.array(matchedContext),
  resources: s.array(matchedContext),
  skills: s.array(matchedContext),
  total: s.int(),
  query_plan: resultObject({ expanded_queries: s.array(s.string()) }).optional().describe('search only'),
  provenance: s.any().optional().describe('with include_provenance'),
});
const searchErrors = ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND', 'UNIMPLEMENTED', 'UNAVAILABLE'] as const;
type FindBody = ReturnType<typeof findSchema.parse>;

/** One hit as `POST /api/v1/search/find` lists it (spec Part 3 "Search result"). */
export interface FindHit {
  uri: string;
  context_type: 'resource' | 'memory' | 'skill';
  level: number;
  abstract: string;
  overview?: string | null;
  score: number;
  match_reason: string;
}
export interface FindResult {
  memories: FindHit[];
  resources: FindHit[];
  skills: FindHit[];
  total: number;
}
/** `host.use('find')`: the find route for an identity, without HTTP (same body fields). */
export interface FindService {
  find(identity: Identity, body: { query: string; limit?: number; target_uri?: string | string[]; context_type?: string | string[]; score_threshold?: number }): Promise<FindResult>;
}

declare module 'ctx/plugin' {
  interface Services {
    find: FindService;
  }
}
type SearchBody = ReturnType<typeof searchSchema.parse>;



export interface RerankerLike {
  info: { model: string };
  rerank(query: string, documents: string[], opts?: { topN?: number; signal?: AbortSignal }): Promise<Array<{ index: number; score: number }>>;
}

/** Weight of the reranker's relevance in the final score (the rest is the retrieval score). */
export const RERANK_WEIGHT = 0.7;

export function registerRoutes(host: PluginHost, store: RecordStore, llm: Llm | null, reranker: RerankerLike | null = null, queryVectors = new QueryEmbeddingCache(0)): void {
  const ops = { find: new OpStats(), search: new OpStats(), grep: new OpStats(), glob: new OpStats() };
  const describeEmbedder = () => `${store.embedder.info.provider}/${store.embedder.info.model}`;

  // Namespace and per-entry rules, from the host: with no rules installed nothing is readable.
  const readable = (identity: Identity, uri: string): Promise<boolean> => host.access.canReadPath(identity, uri.slice('ctx://'.length));

  /**
   * Ranked hits → the spec's grouped result. Records are read a window at a time, as far down the
   * ranking as it takes to fill `limit`: one entry per node (a directory's L0 and L1 records
   * collapse into its best match, the first met in score order), unreadable ones skipped.
   */
  async function present(identity: Identity, ranked: Array<Hit | Candidate>, body: FindBody, query: string, limit: number, mark: (label: string) => void = () => {}) {
    const threshold = body.score_threshold ?? 0;
    const out = { memories: [] as unknown[], resources: [] as unknown[], skills: [] as unknown[], total: 0 };
    const chosen: Array<Candidate<RecordDoc | SlimRecord>> = [];
    const seen = new Set<string>();
    const window = limit + 4;
    for (let i = 0; i < ranked.length && chosen.length < limit; i += window) {
      const slice = ranked.slice(i, i + window).filter((h) => h.score >= threshold);
      if (!slice.length) break; // ranked by score: nothing further passes the threshold
      const fresh = (await loadSlimCandidates(store, identity.accountId, slice)).filter((c) => !seen.has(c.doc.attrs.uri) && seen.add(c.doc.attrs.uri));
      mark('records.read');
      // One access check for the window (the rules walk each path's ancestors once, together).
      const ok = fresh.length ? await host.access.readablePaths(identity, fresh.map((c) => c.doc.attrs.uri.slice('ctx://'.length))) : [];
      fresh.forEach((c, j) => ok[j] && chosen.length < limit && chosen.push(c));
    }
    mark('records.access');
    const otherIds = chosen.map((c) => (c.doc.kind === 'dir' ? store.id(identity.accountId, c.doc.path, c.doc.level === 0 ? 1 : 0) : ''));
    const others = await store.slimMany(identity.accountId, otherIds.filter(Boolean));
    let oi = 0;
    const dirDocs = otherIds.map((id) => (id ? others[oi++] : undefined));
    mark('records.dirs');
    const sharedTerms = queryTermMatcher(query);
    for (const [i, c] of chosen.entries()) {
      const d = c.doc;
      const place = placement(d.path);
      const other = dirDocs[i];
      const item: Record<string, unknown> = {
        uri: d.attrs.uri,
        context_type: d.attrs.contextType,
        level: d.level,
        abstract: d.abstract,
        overview: d.kind === 'dir' ? (d.overview || other?.overview || null) : null,
        category: place ? categoryOf(place) : '',
        score: round4(c.score),
        match_reason: matchReason(c, query, sharedTerms),
        is_leaf: d.kind === 'file',
        relations: [],
      };
      if (body.read_content && d.kind === 'file') {
        try {
          item.content = splitHeader((await host.vfsFor(identity).readFile(d.attrs.uri)).toString('utf8')).body;
        } catch {
          // a failed read leaves the hit unchanged (spec)
        }
      }
      const group = d.attrs.contextType === 'memory' ? out.memories : d.attrs.contextType === 'skill' ? out.skills : out.resources;
      group.push(item);
    }
    out.total = out.memories.length + out.resources.length + out.skills.length;
    return out;
  }

  const limitOf = (b: FindBody) => Math.max(0, b.node_limit ?? b.limit ?? 10);

  /** Finds and searches between their start and their ranking (find.ts: where a search is finished). */
  let running = 0;
  /** `expanded`: the queries are a plan's, each hit names the one it matched (matchReason). */
  async function runFind(identity: Identity, body: FindBody, queries: string[], mark: (label: string) => void = () => {}, expanded = false) {
    running++;
    try {
      return await rankFind(identity, body, queries, mark, expanded);
    } finally {
      running--;
    }
  }

  async function rankFind(identity: Identity, body: FindBody, queries: string[], mark: (label: string) => void, expanded: boolean) {
    // Asked first: a remote embedder's round trip runs while the scope is resolved.
    const vecsP = queryVectors.embed(store.embedder, queries);
    vecsP.catch(() => {}); // awaited below; a scope error must not leave it unhandled
    // A remote embedder's request is on its socket by now (runtime/models/http-post.ts writes in
    // the caller's tick): the scope and the preparation below run while the embedder works.
    const scope = buildScope(body as ScopeInput, identity);
    const limit = limitOf(body);
    // A zero limit still searches (scope and provenance stay real); `present` then keeps nothing.
    // The vector-free half of each search runs in the core while the embedding is in flight.
    const prepared = queries.map((q) => prepareFind(store, q, scope, Math.max(1, limit)));
    mark('scope');
    const vecs = await vecsP;
    mark('embedding');
    const runs = await Promise.all(queries.map((q, i) => hierarchicalFind(store, vecs[i]!, q, scope, Math.max(1, limit), prepared[i], running === 1 && queries.length === 1)));
    let candidates: Array<Hit | Candidate>;
    // The caller's own query alone (find): the core's ranking as it is (best first, ties to the
    // lower record); the merge below would copy every hit to name the query it matched.
    if (runs.length === 1 && !expanded) candidates = runs[0]!.hits;
    else {
      const merged = new Map<string, Hit>();
      runs.forEach((r, i) => {
        for (const h of r.hits) {
          const prev = merged.get(h.id);
          if (!prev || h.score > prev.score) merged.set(h.id, { ...h, query: queries[i] });
        }
      });
      candidates = [...merged.values()].sort((a, b) => b.score - a.score);
    }
    mark('search');
    let reranked = false;
    if (reranker && candidates.length > 1) {
      // The reranker reads each candidate's content (L1 overview for directories, the embedded
      // L2 text for files); on failure the retrieval order stands.
      const head = await loadCandidates(store, identity.accountId, candidates.slice(0, Math.max(limit * 2, 20)));
      const rest = candidates.slice(Math.max(limit * 2, 20));
      candidates = [...head, ...rest];
      try {
        const scores = await reranker.rerank(queries[0]!, head.map((c) => (c.doc.kind === 'dir' ? c.doc.overview || c.doc.abstract : c.doc.text)));
        for (const r of scores) {
          const c = head[r.index];
          if (c) c.rerank = r.score;
        }
        for (const c of head) if (c.rerank !== undefined) c.score = RERANK_WEIGHT * c.rerank + (1 - RERANK_WEIGHT) * c.score;
        candidates = [...head.sort((a, b) => b.score - a.score), ...rest];
        reranked = true;
      } catch (err) {
        host.log.warn('reranker failed; keeping the retrieval order', { error: err });
      }
    }
    return { candidates, provenance: runs.map((r) => r.provenance), scope, limit, reranked };
  }

  host.route({
    method: 'POST',
    path: '/api/v1/search/find',
    summary: 'finds stored contexts by vector similarity (hierarchical, filtered by scope, type, tags and time)',
    response: searchResult,
    errors: [...searchErrors],
    body: findSchema,
    async handler(ctx) {
      const t0 = performance.now();
      const body = ctx.body;
      const identity = legacyIdentity(ctx.identity, body);
      requireQuery(body.query, body.image_url, store.embedder.supportsImages, describeEmbedder());
      const query = body.query!.trim();
      const r = await runFind(identity, body, [query], (l) => ctx.mark(l));
      const result: Record<string, unknown> = await present(identity, r.candidates, body, query, r.limit, (l) => ctx.mark(l));
      ctx.mark('present');
      if (body.include_provenance) result.provenance = { ...provenanceOut(r.provenance[0]!, r.scope.targets), reranked: r.reranked };
      ops.find.record(performance.now() - t0, result.total as number, r.provenance[0]!.rounds);
      return result;
    },
  });

  // The find route's logic for other plugins (the bot's relevant_memories): same scope, ranking
  // and access filtering as POST /api/v1/search/find for the same identity.
  host.provide('find', {
    async find(caller, req) {
      const body = findSchema.parse(req, 'body', 'json');
      const identity = legacyIdentity(caller, body);
      const query = (body.query ?? '').trim();
      if (!query) return { memories: [], resources: [], skills: [], total: 0 };
      const r = await runFind(identity, body, [query]);
      return (await present(identity, r.candidates, body, query, r.limit)) as FindResult;
    },
  });

  host.route({
    method: 'POST',
    path: '/api/v1/search/search',
    summary: 'find with session context and query planning (expanded queries)',
    response: searchResult,
    errors: [...searchErrors],
    body: searchSchema,
    async handler(ctx) {
      const t0 = performance.now();
      const body = ctx.body as SearchBody;
      const identity = legacyIdentity(ctx.identity, body);
      if (body.read_content && body.mode === 'context') throw invalidArgument('read_content is not supported in search mode context', { field: 'read_content' });
      requireQuery(body.query, body.image_url, store.embedder.supportsImages, describeEmbedder());
      const query = body.query!.trim();
      const session = body.session_id ? await sessionText(host, ctx.identity, body.session_id) : [];
      const plan = await planQueries(query, session, body.mode === 'fast' ? null : llm, ctx.signal);
      const r = await runFind(identity, body, plan.expanded_queries, undefined, true);
      const result: Record<string, unknown> = await present(identity, r.candidates, body, query, r.limit);
      result.query_plan = { expanded_queries: plan.expanded_queries, ...(body.include_provenance ? { planner: plan.planner, intent: plan.intent, session_messages_used: session.length } : {}) };
      if (body.include_provenance) result.provenance = r.provenance.map((p, i) => ({ query: plan.expanded_queries[i], ...provenanceOut(p, r.scope.targets) }));
      ops.search.record(performance.now() - t0, result.total as number, r.provenance.reduce((n, p) => n + p.rounds, 0));
      return result;
    },
  });

  registerGrepGlobRoutes(host, ops, readable);
  registerConsistencyRoute(host, store);
  registerObservers(host, store, ops);
}

function provenanceOut(p: Provenance, targets: string[]) {
  return { targets, ...p };
}


interface SessionsService {
  recentText?(identity: Identity, sessionId: string, n: number): Promise<string[] | null>;
}

/** The last messages of a session, as text (the sessions plugin when loaded, else its stored files). */
async function sessionText(host: PluginHost, identity: Identity, sessionId: string): Promise<string[]> {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$/.test(sessionId)) throw invalidArgument('session_id is not a valid id', { field: 'session_id' });
  const svc = host.optional<SessionsService>('sessions');
  if (svc?.recentText) {
    // A session that does not exist (yet) has no messages to inform the plan: the search runs
    // without them, as the reference treats an unknown session as a fresh, empty one.
    return (await svc.recentText(identity, sessionId, 6)) ?? [];
  }
  const vfs = host.vfsFor(identity);
  const dir = `ctx://user/${identity.userId}/sessions/${sessionId}`;
  const node = await vfs.stat(dir);
  if (!node) return [];
  const texts: string[] = [];
  for (const e of await vfs.list(dir)) {
    if (e.kind !== 'file' || !/messages.*\.jsonl$/.test(e.name)) continue;
    const lines = (await vfs.readFile(e.uri)).toString('utf8').trim().split('\n').slice(-6);
    for (const line of lines) {
      try {
        const m = JSON.parse(line) as { parts?: Array<{ type?: string; text?: string }>; content?: string };
        const t = m.parts?.filter((p) => p.type === 'text' && p.text).map((p) => p.text).join(' ') ?? m.content;
        if (t) texts.push(t);
      } catch {
        // a torn line is skipped
      }
    }
  }
  return texts.slice(-6);
}

export { CtxError };
