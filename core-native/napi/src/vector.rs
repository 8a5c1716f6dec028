//! `VectorIndex`: the ctx-vector index as a JS class. Sync methods run on the JS thread (they take
//! microseconds to a few milliseconds); the `*Async` variants run on the libuv pool and share the
//! index through a read/write lock, so searches proceed in parallel and writers wait for them.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use ctx_vector as cv;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{fail, guard, invalid, Code, Job, Result};

/// ctx-vector's error with its stable code (`INVALID_ARGUMENT`, `VECTOR_INDEX_*`).
fn err(e: cv::Error) -> napi::Error<Code> {
    fail(Code(e.code()), e)
}

#[napi(object)]
pub struct RecordAttrs {
    pub account: String,
    pub owner_space: String,
    pub uri: String,
    pub parent_uri: String,
    #[napi(ts_type = "'resource' | 'memory' | 'skill' | 'session'")]
    pub context_type: String,
    pub level: u32,
    pub tags: Vec<String>,
    pub created_at: f64,
    pub updated_at: f64,
    pub peer: Option<String>,
}

#[napi(object)]
pub struct VectorFilter {
    pub account: String,
    pub uri_prefixes: Option<Vec<String>>,
    pub owner_spaces: Option<Vec<String>>,
    pub context_types: Option<Vec<String>>,
    pub levels: Option<Vec<u32>>,
    pub tags: Option<Vec<String>>,
    #[napi(ts_type = "'createdAt' | 'updatedAt'")]
    pub time_field: Option<String>,
    pub since: Option<f64>,
    pub until: Option<f64>,
    pub peer: Option<String>,
    pub exclude_uri_prefixes: Option<Vec<String>>,
    /// Records carrying any of these tags are left out.
    pub exclude_tags: Option<Vec<String>>,
}

#[napi(object)]
pub struct Hit {
    pub id: String,
    pub score: f64,
}

#[napi(object)]
pub struct SearchOptions {
    pub ef: Option<u32>,
    pub exact: Option<bool>,
}

#[napi(object)]
pub struct HybridOptions {
    /// A fixed dense weight.
    pub alpha: Option<f64>,
    /// Without `alpha`: the adaptive dense weight's range (default 0.3..0.7, the local embedder's).
    pub alpha_min: Option<f64>,
    pub alpha_max: Option<f64>,
}

#[napi(object)]
pub struct VectorIndexOptions {
    pub dim: u32,
    pub metric: Option<String>,
    /// Live records above which the flat store becomes an HNSW graph.
    pub flat_threshold: Option<u32>,
    pub hnsw_m: Option<u32>,
    pub ef_construction: Option<u32>,
    pub ef_search: Option<u32>,
    pub exact_max_candidates: Option<u32>,
    pub exact_max_selectivity: Option<f64>,
    pub build_threads: Option<u32>,
}

#[napi(object)]
pub struct VectorIndexStats {
    pub size: u32,
    pub dim: u32,
    #[napi(ts_type = "'flat' | 'hnsw'")]
    pub kind: String,
    pub vector_bytes: f64,
    pub code_bytes: f64,
    pub graph_bytes: f64,
    pub attr_bytes: f64,
    pub text_bytes: f64,
    pub deleted: u32,
    pub text_docs: u32,
}

#[napi(object)]
pub struct StoredRecord {
    pub account: String,
    pub owner_space: String,
    pub uri: String,
    pub parent_uri: String,
    #[napi(ts_type = "'resource' | 'memory' | 'skill' | 'session'")]
    pub context_type: String,
    pub level: u32,
    pub tags: Vec<String>,
    pub created_at: f64,
    pub updated_at: f64,
    pub peer: Option<String>,
    pub vector: Option<Float32Array>,
}

fn to_attrs(a: RecordAttrs) -> Result<cv::RecordAttrs> {
    let ct = cv::ContextType::parse(&a.context_type)
        .ok_or_else(|| invalid(format!("contextType must be resource, memory, skill or session, got {:?}", a.context_type)))?;
    if a.level > 2 {
        return Err(invalid(format!("level must be 0, 1 or 2, got {}", a.level)));
    }
    Ok(cv::RecordAttrs {
        account: a.account,
        owner_space: a.owner_space,
        uri: a.uri,
        parent_uri: a.parent_uri,
        context_type: ct,
        level: a.level as u8,
        tags: a.tags,
        created_at: a.created_at as i64,
        updated_at: a.updated_at as i64,
        peer: a.peer,
    })
}

fn to_filter(f: VectorFilter) -> Result<cv::Filter> {
    if f.account.is_empty() {
        return Err(invalid("filter.account is required"));
    }
    let time_field = match f.time_field.as_deref() {
        None | Some("updatedAt") => cv::TimeField::UpdatedAt,
        Some("createdAt") => cv::TimeField::CreatedAt,
        Some(o) => return Err(invalid(format!("timeField must be createdAt or updatedAt, got {o:?}"))),
    };
    Ok(cv::Filter {
        account: f.account,
        uri_prefixes: f.uri_prefixes,
        owner_spaces: f.owner_spaces,
        context_types: f.context_types,
        levels: f.levels.map(|l| l.into_iter().map(|x| x.min(255) as u8).collect()),
        tags: f.tags.unwrap_or_default(),
        time_field,
        since: f.since.map(|x| x as i64),
        until: f.until.map(|x| x as i64),
        peer: f.peer,
        exclude_uri_prefixes: f.exclude_uri_prefixes.unwrap_or_default(),
        exclude_tags: f.exclude_tags.unwrap_or_default(),
    })
}

fn to_opts(o: Option<SearchOptions>) -> cv::SearchOpts {
    let o = o.unwrap_or(SearchOptions { ef: None, exact: None });
    cv::SearchOpts { ef: o.ef.map(|e| e as usize), exact: o.exact.unwrap_or(false) }
}

fn hits(v: Vec<(String, f32)>) -> Vec<Hit> {
    v.into_iter().map(|(id, s)| Hit { id, score: s as f64 }).collect()
}

/// The index and how many times it was taken for writing: a prepared search (`HierarchicalPrep`)
/// made at one count is valid while the count is the same.
struct Locked {
    index: RwLock<cv::VectorIndex>,
    writes: AtomicU64,
}

type Shared = Arc<Locked>;

fn read(s: &Shared) -> RwLockReadGuard<'_, cv::VectorIndex> {
    s.index.read().unwrap_or_else(|e| e.into_inner())
}

fn write(s: &Shared) -> RwLockWriteGuard<'_, cv::VectorIndex> {
    let g = s.index.write().unwrap_or_else(|e| e.into_inner());
    // Counted while held: a reader holding the read lock sees every write that came before it.
    s.writes.fetch_add(1, Ordering::Relaxed);
    g
}

#[napi]
pub struct VectorIndex {
    inner: Shared,
}

/// Parameters of `hierarchicalSearch` (docs/retrieval.md); every field has the plugin's default.
#[napi(object)]
pub struct HierarchicalParams {
    pub propagation: Option<f64>,
    pub max_expansions: Option<u32>,
    pub stable_rounds: Option<u32>,
    pub global_k_min: Option<u32>,
    pub nav_k: Option<u32>,
    pub alpha: Option<f64>,
    /// See `HybridOptions`.
    pub alpha_min: Option<f64>,
    pub alpha_max: Option<f64>,
    /// Return only the best this many hits (all by default): each hit crossing into JS is an
    /// object built on the JS thread, and find reads only the head of the ranking.
    pub max_hits: Option<u32>,
}

#[napi(object)]
pub struct HierarchicalHit {
    pub id: String,
    pub score: f64,
    pub raw: f64,
    pub via_uri: Option<String>,
    pub via_score: Option<f64>,
}

#[napi(object)]
pub struct HierarchicalExpansion {
    pub uri: String,
    pub score: f64,
    pub child_hits: u32,
    pub round: u32,
}

#[napi(object)]
pub struct HierarchicalResult {
    pub hits: Vec<HierarchicalHit>,
    pub global_hits: u32,
    pub navigation_hits: u32,
    pub expanded: Vec<HierarchicalExpansion>,
    pub rounds: u32,
    #[napi(ts_type = "'stable' | 'max_expansions' | 'frontier_exhausted' | 'frontier_below_topk' | 'no_hits'")]
    pub stop_reason: String,
}

fn dense_weight(alpha: Option<f64>, min: Option<f64>, max: Option<f64>) -> cv::DenseWeight {
    match alpha {
        Some(a) => cv::DenseWeight::Fixed(a as f32),
        None => cv::DenseWeight::Adaptive(min.map_or(cv::DENSE_WEIGHT.0, |x| x as f32), max.map_or(cv::DENSE_WEIGHT.1, |x| x as f32)),
    }
}

fn hybrid_weight(o: Option<HybridOptions>) -> cv::DenseWeight {
    o.map_or_else(cv::DenseWeight::default, |o| dense_weight(o.alpha, o.alpha_min, o.alpha_max))
}

fn to_hier_params(p: Option<HierarchicalParams>) -> cv::HierParams {
    let p = p.unwrap_or(HierarchicalParams { propagation: None, max_expansions: None, stable_rounds: None, global_k_min: None, nav_k: None, alpha: None, alpha_min: None, alpha_max: None, max_hits: None });
    cv::HierParams {
        propagation: p.propagation.unwrap_or(0.7) as f32,
        max_expansions: p.max_expansions.unwrap_or(6).min(64) as usize,
        stable_rounds: p.stable_rounds.unwrap_or(2) as usize,
        global_k_min: p.global_k_min.unwrap_or(20).min(10_000) as usize,
        nav_k: p.nav_k.unwrap_or(8).min(1_000) as usize,
        alpha: dense_weight(p.alpha, p.alpha_min, p.alpha_max),
    }
}

fn max_hits_of(p: &Option<HierarchicalParams>) -> usize {
    p.as_ref().and_then(|p| p.max_hits).map_or(usize::MAX, |n| n as usize)
}

/// Keeps the best `n` hits (they come best first).
fn head(mut r: cv::HierResult, n: usize) -> cv::HierResult {
    r.hits.truncate(n);
    r
}

fn hier_out(r: cv::HierResult) -> HierarchicalResult {
    HierarchicalResult {
        hits: r
            .hits
            .into_iter()
            .map(|h| {
                let (via_uri, via_score) = match h.via {
                    Some((u, s)) => (Some(u), Some(s as f64)),
                    None => (None, None),
                };
                HierarchicalHit { id: h.id, score: h.score as f64, raw: h.raw as f64, via_uri, via_score }
            })
            .collect(),
        global_hits: r.global_hits as u32,
        navigation_hits: r.navigation_hits as u32,
        expanded: r.expanded.into_iter().map(|e| HierarchicalExpansion { uri: e.uri, score: e.score as f64, child_hits: e.child_hits as u32, round: e.round as u32 }).collect(),
        rounds: r.rounds as u32,
        stop_reason: r.stop_reason.to_string(),
    }
}

fn config_from(o: &VectorIndexOptions) -> cv::Config {
    let mut c = cv::Config::default();
    if let Some(v) = o.flat_threshold {
        c.flat_threshold = v as usize;
    }
    if let Some(v) = o.hnsw_m {
        c.hnsw_m = v as usize;
    }
    if let Some(v) = o.ef_construction {
        c.ef_construction = v as usize;
    }
    if let Some(v) = o.ef_search {
        c.ef_search = v as usize;
    }
    if let Some(v) = o.exact_max_candidates {
        c.exact_max_candidates = v as usize;
    }
    if let Some(v) = o.exact_max_selectivity {
        c.exact_max_selectivity = v;
    }
    if let Some(v) = o.build_threads {
        c.build_threads = v as usize;
    }
    c
}

/// The compaction of `compactAsync`. The index is held exclusively only at the two ends (see
/// `compaction_begin` in ctx-vector): searches and upserts from the JS thread keep going while the
/// graph is built.
fn compact(shared: &Shared) -> cv::Result<()> {
    write(shared).compaction_begin()?;
    let snapshot = read(shared).compaction_snapshot();
    let built = snapshot.and_then(cv::compaction_build);
    // Catch up with the changes made during the build outside the exclusive section (a graph
    // insert costs ~1 ms: thousands of them under the lock would stall every search), until few
    // are left for the final exclusive step.
    let caught_up = built.and_then(|mut b| {
        for _ in 0..16 {
            let changes = write(shared).compaction_changes();
            let n = changes.len();
            b.apply(changes)?;
            if n < 64 {
                break;
            }
        }
        Ok(b)
    });
    let done = caught_up.and_then(|b| write(shared).compaction_finish(b));
    if done.is_err() {
        write(shared).compaction_abort();
    }
    done
}

fn filters(v: Vec<VectorFilter>) -> Result<Vec<cv::Filter>> {
    v.into_iter().map(to_filter).collect()
}

fn stored(a: cv::RecordAttrs, v: Vec<f32>, with_vector: bool) -> StoredRecord {
    StoredRecord {
        account: a.account,
        owner_space: a.owner_space,
        uri: a.uri,
        parent_uri: a.parent_uri,
        context_type: a.context_type.as_str().to_string(),
        level: a.level as u32,
        tags: a.tags,
        created_at: a.created_at as f64,
        updated_at: a.updated_at as f64,
        peer: a.peer,
        vector: if with_vector { Some(Float32Array::new(v)) } else { None },
    }
}

fn wrap(idx: cv::VectorIndex) -> VectorIndex {
    VectorIndex { inner: Arc::new(Locked { index: RwLock::new(idx), writes: AtomicU64::new(0) }) }
}

type HitsJob = AsyncTask<Job<Vec<(String, f32)>, Vec<Hit>>>;

/// One in-memory index (flat below `flatThreshold` records, HNSW above). Filters are evaluated
/// inside the core over per-account bitmaps, so a query never sees another account's records.
/// Methods without `Async` run on the calling thread; use the async ones for large batches,
/// saving, loading and compaction. Errors: `INVALID_ARGUMENT`, `VECTOR_INDEX_CORRUPT` /
/// `VECTOR_INDEX_INCOMPATIBLE` / `VECTOR_INDEX_NOT_FOUND` (rebuild from the source of truth),
/// `VECTOR_INDEX_IO`, `VECTOR_INDEX_FAISS`, `INTERNAL`.
#[napi]
impl VectorIndex {
    #[napi(constructor)]
    pub fn new(opts: VectorIndexOptions) -> Result<Self> {
        guard(|| {
            if let Some(m) = &opts.metric {
                if m != "ip" {
                    return Err(invalid(format!("metric must be 'ip' (vectors are L2-normalized), got {m:?}")));
                }
            }
            cv::VectorIndex::with_config(opts.dim as usize, config_from(&opts)).map(wrap).map_err(err)
        })
    }

    /// Changes tunables of a loaded index (thresholds, ef); the dimension is fixed.
    #[napi]
    pub fn configure(&self, opts: VectorIndexOptions) -> Result<()> {
        guard(|| {
            let mut g = write(&self.inner);
            if opts.dim as usize != g.dim() {
                return Err(invalid(format!("dim is {} and cannot change", g.dim())));
            }
            g.set_config(config_from(&opts));
            Ok(())
        })
    }

    /// Inserts or replaces by id, on this thread. Never builds the graph (a flat store that
    /// outgrows the threshold waits for `compactAsync`, see `needsCompaction`); inserts into an
    /// existing graph cost ~1 ms of CPU each, so batches belong in `upsertAsync`.
    #[napi]
    pub fn upsert(&self, ids: Vec<String>, vectors: Float32Array, attrs: Vec<RecordAttrs>) -> Result<()> {
        guard(|| {
            let attrs = attrs.into_iter().map(to_attrs).collect::<Result<Vec<_>>>()?;
            let ids: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
            write(&self.inner).upsert_deferred(&ids, &vectors, &attrs).map_err(err)
        })
    }

    /// `upsert` off the JS thread; unlike the sync `upsert` it also turns a flat store that grew
    /// past the threshold into a graph (the sync one leaves that to `compactAsync`, as it takes
    /// seconds). Inserts into a graph cost ~1 ms of CPU each: prefer this for batches.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn upsert_async(&self, ids: Vec<String>, vectors: Float32Array, attrs: Vec<RecordAttrs>) -> Result<AsyncTask<Job<(), ()>>> {
        let attrs = guard(|| attrs.into_iter().map(to_attrs).collect::<Result<Vec<_>>>())?;
        let (inner, v) = (self.inner.clone(), vectors.to_vec());
        Ok(Job::new(
            move || {
                let ids: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
                write(&inner).upsert(&ids, &v, &attrs).map_err(err)
            },
            |()| (),
        ))
    }

    #[napi]
    pub fn remove(&self, ids: Vec<String>) -> Result<u32> {
        guard(|| {
            let ids: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
            write(&self.inner).remove(&ids).map(|n| n as u32).map_err(err)
        })
    }

    #[napi]
    pub fn remove_where(&self, filter: VectorFilter) -> Result<u32> {
        guard(|| {
            let f = to_filter(filter)?;
            Ok(write(&self.inner).remove_where(&f) as u32)
        })
    }

    #[napi]
    pub fn search(&self, query: Float32Array, k: u32, filter: VectorFilter, opts: Option<SearchOptions>) -> Result<Vec<Hit>> {
        guard(|| {
            let f = to_filter(filter)?;
            read(&self.inner).search(&query, k as usize, &f, to_opts(opts)).map(hits).map_err(err)
        })
    }

    /// Like `search`, also returning how the query was answered
    /// (`exact`, `exact-quantized`, `graph`, `graph-then-exact`, `empty`).
    #[napi]
    pub fn search_explain(&self, query: Float32Array, k: u32, filter: VectorFilter, opts: Option<SearchOptions>) -> Result<SearchExplained> {
        guard(|| {
            let f = to_filter(filter)?;
            let (h, plan) = read(&self.inner).search_plan(&query, k as usize, &f, to_opts(opts)).map_err(err)?;
            let plan = match plan {
                cv::Plan::Empty => "empty",
                cv::Plan::Exact => "exact",
                cv::Plan::ExactQuantized => "exact-quantized",
                cv::Plan::Graph => "graph",
                cv::Plan::GraphThenExact => "graph-then-exact",
            };
            Ok(SearchExplained { hits: hits(h), plan: plan.to_string() })
        })
    }

    #[napi(ts_return_type = "Promise<Hit[]>")]
    pub fn search_async(&self, query: Float32Array, k: u32, filter: VectorFilter, opts: Option<SearchOptions>) -> Result<HitsJob> {
        let f = guard(|| to_filter(filter))?;
        let (inner, q, opts) = (self.inner.clone(), query.to_vec(), to_opts(opts));
        Ok(Job::new(move || read(&inner).search(&q, k as usize, &f, opts).map_err(err), hits))
    }

    /// `n` queries packed in one Float32Array (n × dim), one filter, off the JS thread on all cores.
    #[napi(ts_return_type = "Promise<Hit[][]>")]
    pub fn search_many(&self, queries: Float32Array, n: u32, k: u32, filter: VectorFilter, opts: Option<SearchOptions>) -> Result<AsyncTask<Job<Vec<Vec<(String, f32)>>, Vec<Vec<Hit>>>>> {
        let f = guard(|| to_filter(filter))?;
        let (inner, q, opts) = (self.inner.clone(), queries.to_vec(), to_opts(opts));
        Ok(Job::new(
            move || {
                let threads = ctx_vector::max_threads();
                read(&inner).search_many(&q, n as usize, k as usize, &f, opts, threads).map_err(err)
            },
            |out| out.into_iter().map(hits).collect(),
        ))
    }

    /// Benchmark baseline: FAISS's own HNSW search on one thread (no filter).
    #[napi]
    pub fn bench_faiss_search(&self, query: Float32Array, k: u32, ef: u32) -> Result<Vec<Hit>> {
        guard(|| write(&self.inner).faiss_search(&query, k as usize, ef as usize).map(hits).map_err(err))
    }

    /// The record's attributes and (unless `withVector` is false) its vector; null when absent.
    #[napi]
    pub fn get(&self, id: String, with_vector: Option<bool>) -> Result<Option<StoredRecord>> {
        guard(|| {
            let found = read(&self.inner).get(&id).map_err(err)?;
            Ok(found.map(|(a, v)| stored(a, v, with_vector.unwrap_or(true))))
        })
    }

    #[napi]
    pub fn count(&self, filter: VectorFilter) -> Result<u32> {
        guard(|| {
            let f = to_filter(filter)?;
            Ok(read(&self.inner).count(&f) as u32)
        })
    }

    #[napi]
    pub fn ids(&self, filter: VectorFilter, limit: Option<u32>) -> Result<Vec<String>> {
        guard(|| {
            let f = to_filter(filter)?;
            read(&self.inner).ids(&f, limit.map(|l| l as usize).unwrap_or(usize::MAX)).map_err(err)
        })
    }

    #[napi]
    pub fn stats(&self) -> Result<VectorIndexStats> {
        guard(|| {
            let s = read(&self.inner).stats();
            Ok(VectorIndexStats {
                size: s.size as u32,
                dim: s.dim as u32,
                kind: match s.kind {
                    cv::Kind::Flat => "flat",
                    cv::Kind::Hnsw => "hnsw",
                }
                .to_string(),
                vector_bytes: s.vector_bytes as f64,
                code_bytes: s.code_bytes as f64,
                graph_bytes: s.graph_bytes as f64,
                attr_bytes: s.attr_bytes as f64,
                text_bytes: s.text_bytes as f64,
                deleted: s.deleted as u32,
                text_docs: s.text_docs as u32,
            })
        })
    }

    /// True when tombstones are a quarter of the graph, or a flat store outgrew the threshold
    /// through sync upserts; then call `compactAsync`.
    #[napi]
    pub fn needs_compaction(&self) -> Result<bool> {
        guard(|| Ok(read(&self.inner).needs_compaction()))
    }

    /// Rebuilds the store without tombstones (seconds per 100k vectors). It holds the index only
    /// at its two short ends, so searches and upserts go on meanwhile; changes made during the
    /// build are carried over.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn compact_async(&self) -> AsyncTask<Job<(), ()>> {
        let inner = self.inner.clone();
        Job::new(move || compact(&inner).map_err(err), |()| ())
    }

    /// Atomic (temp file + fsync + rename), checksummed.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn save_async(&self, path: String) -> AsyncTask<Job<(), ()>> {
        let inner = self.inner.clone();
        Job::new(move || cv::save(&read(&inner), std::path::Path::new(&path)).map_err(err), |()| ())
    }

    /// Rejects with `VECTOR_INDEX_CORRUPT`, `_INCOMPATIBLE` or `_NOT_FOUND` when the index must be
    /// rebuilt from the source of truth.
    #[napi(ts_return_type = "Promise<VectorIndex>")]
    pub fn load_async(path: String) -> AsyncTask<Job<cv::VectorIndex, VectorIndex>> {
        Job::new(move || cv::load(std::path::Path::new(&path)).map_err(err), wrap)
    }

    #[napi]
    pub fn upsert_text(&self, ids: Vec<String>, texts: Vec<String>) -> Result<()> {
        guard(|| {
            let ids: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
            let texts: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
            write(&self.inner).upsert_text(&ids, &texts).map_err(err)
        })
    }

    #[napi]
    pub fn search_text(&self, query: String, k: u32, filter: VectorFilter) -> Result<Vec<Hit>> {
        guard(|| {
            let f = to_filter(filter)?;
            read(&self.inner).search_text(&query, k as usize, &f).map(hits).map_err(err)
        })
    }

    /// Fusion: `alpha * max(0, cosine) + (1 - alpha) * bm25 / maxBm25`, in [0, 1]; without `alpha`
    /// the dense weight adapts per query, from `alphaMax` (0.7) when no document has the query's
    /// words down to `alphaMin` (0.3) when one has them all.
    #[napi]
    pub fn hybrid_search(&self, query: Float32Array, text: String, k: u32, filter: VectorFilter, opts: Option<HybridOptions>) -> Result<Vec<Hit>> {
        guard(|| {
            let f = to_filter(filter)?;
            let alpha = hybrid_weight(opts);
            read(&self.inner).hybrid_search(&query, &text, k as usize, &f, alpha).map(hits).map_err(err)
        })
    }

    /// `hybridSearch` off the JS thread: worth its ~20 µs hop for searches over many candidates.
    #[napi(ts_return_type = "Promise<Hit[]>")]
    pub fn hybrid_search_async(&self, query: Float32Array, text: String, k: u32, filter: VectorFilter, opts: Option<HybridOptions>) -> Result<HitsJob> {
        let f = guard(|| to_filter(filter))?;
        let alpha = hybrid_weight(opts);
        let (inner, q) = (self.inner.clone(), query.to_vec());
        Ok(Job::new(move || read(&inner).hybrid_search(&q, &text, k as usize, &f, alpha).map_err(err), hits))
    }

    /// A whole hierarchical `find` in one call (docs/retrieval.md): global and navigation
    /// searches, then subtree expansions with score propagation until the top-k is stable
    /// (`filters` OR'ed into the scope, `navs` bounding navigation).
    #[napi]
    pub fn hierarchical_search(&self, query: Float32Array, text: String, limit: u32, filters: Vec<VectorFilter>, navs: Vec<VectorFilter>, params: Option<HierarchicalParams>) -> Result<HierarchicalResult> {
        guard(|| {
            let (filters, navs) = (self::filters(filters)?, self::filters(navs)?);
            let max_hits = max_hits_of(&params);
            read(&self.inner).hierarchical_search(&query, &text, limit as usize, &filters, &navs, &to_hier_params(params)).map(|r| hier_out(head(r, max_hits))).map_err(err)
        })
    }

    /// `hierarchicalSearch` on the libuv pool: one hop per find.
    #[napi(ts_return_type = "Promise<HierarchicalResult>")]
    pub fn hierarchical_search_async(&self, query: Float32Array, text: String, limit: u32, filters: Vec<VectorFilter>, navs: Vec<VectorFilter>, params: Option<HierarchicalParams>) -> Result<AsyncTask<Job<cv::HierResult, HierarchicalResult>>> {
        let (filters, navs) = guard(|| Ok((self::filters(filters)?, self::filters(navs)?)))?;
        let max_hits = max_hits_of(&params);
        let (inner, q, params) = (self.inner.clone(), query.to_vec(), to_hier_params(params));
        Ok(Job::new(move || read(&inner).hierarchical_search(&q, &text, limit as usize, &filters, &navs, &params).map(|r| head(r, max_hits)).map_err(err), hier_out))
    }

    /// The part of `hierarchicalSearch` that needs no query vector (scope, BM25 over it, the dense
    /// weight), to run while the query embedding is in flight; `hierarchicalSearchPrepared` then
    /// finishes it. The ranking is the one `hierarchicalSearch` gives with the same arguments.
    #[napi]
    pub fn prepare_hierarchical(&self, text: String, filters: Vec<VectorFilter>, navs: Vec<VectorFilter>, params: Option<HierarchicalParams>) -> Result<HierarchicalPrep> {
        guard(|| {
            let (filters, navs) = (self::filters(filters)?, self::filters(navs)?);
            let max_hits = max_hits_of(&params);
            let job = PrepJob { inner: self.inner.clone(), text, filters, navs, params: to_hier_params(params), max_hits };
            job.run().map(|p| HierarchicalPrep { p: Arc::new(p) }).map_err(err)
        })
    }

    /// `prepareHierarchical` on the libuv pool (BM25 over a large scope takes milliseconds).
    #[napi(ts_return_type = "Promise<HierarchicalPrep>")]
    pub fn prepare_hierarchical_async(&self, text: String, filters: Vec<VectorFilter>, navs: Vec<VectorFilter>, params: Option<HierarchicalParams>) -> Result<AsyncTask<Job<Prepared, HierarchicalPrep>>> {
        let (filters, navs) = guard(|| Ok((self::filters(filters)?, self::filters(navs)?)))?;
        let max_hits = max_hits_of(&params);
        let job = PrepJob { inner: self.inner.clone(), text, filters, navs, params: to_hier_params(params), max_hits };
        Ok(Job::new(move || job.run().map_err(err), |p| HierarchicalPrep { p: Arc::new(p) }))
    }

    /// Finishes a prepared `hierarchicalSearch` with the query vector, on this thread. When the
    /// index was written to since `prep` was made, the whole search runs again on the index as it
    /// is (same result as `hierarchicalSearch` now).
    #[napi]
    pub fn hierarchical_search_prepared(&self, prep: &HierarchicalPrep, query: Float32Array, limit: u32) -> Result<HierarchicalResult> {
        guard(|| {
            let p = prep.p.clone();
            finish(&self.inner, &p, &query, limit as usize).map(|r| hier_out(head(r, p.max_hits))).map_err(err)
        })
    }

    /// `hierarchicalSearchPrepared` on the libuv pool.
    #[napi(ts_return_type = "Promise<HierarchicalResult>")]
    pub fn hierarchical_search_prepared_async(&self, prep: &HierarchicalPrep, query: Float32Array, limit: u32) -> Result<AsyncTask<Job<cv::HierResult, HierarchicalResult>>> {
        let (inner, p, q) = (self.inner.clone(), prep.p.clone(), query.to_vec());
        Ok(Job::new(move || finish(&inner, &p, &q, limit as usize).map(|r| head(r, p.max_hits)).map_err(err), hier_out))
    }

    /// True while a `compactAsync` is building a new store in the background.
    #[napi]
    pub fn compacting(&self) -> Result<bool> {
        guard(|| Ok(read(&self.inner).compacting()))
    }
}

/// The inputs of a prepared hierarchical search, kept to run it again if the index changes.
struct PrepJob {
    inner: Shared,
    text: String,
    filters: Vec<cv::Filter>,
    navs: Vec<cv::Filter>,
    params: cv::HierParams,
    max_hits: usize,
}

pub struct Prepared {
    job: PrepJob,
    /// The index's write count when `prep` was made.
    writes: u64,
    prep: Option<cv::HierPrep>,
    max_hits: usize,
}

impl PrepJob {
    fn run(self) -> cv::Result<Prepared> {
        let (prep, writes) = {
            let g = read(&self.inner);
            let writes = self.inner.writes.load(Ordering::Relaxed);
            (g.hierarchical_prepare(&self.text, &self.filters, &self.navs, &self.params)?, writes)
        };
        let max_hits = self.max_hits;
        Ok(Prepared { job: self, writes, prep, max_hits })
    }
}

fn finish(inner: &Shared, p: &Prepared, q: &[f32], limit: usize) -> cv::Result<cv::HierResult> {
    let g = read(inner);
    let j = &p.job;
    // Made by another index (the store swapped its index since) or before a write: anew.
    if !Arc::ptr_eq(inner, &j.inner) || inner.writes.load(Ordering::Relaxed) != p.writes {
        return g.hierarchical_search(q, &j.text, limit, &j.filters, &j.navs, &j.params);
    }
    match &p.prep {
        Some(prep) => g.hierarchical_search_prepared(q, limit, prep, &j.params),
        // No account the index holds: what `hierarchicalSearch` answers, after its checks.
        None => g.hierarchical_search(q, &j.text, limit, &j.filters, &j.navs, &j.params),
    }
}

/// A `hierarchicalSearch` prepared without its query vector (`prepareHierarchical`).
#[napi]
pub struct HierarchicalPrep {
    p: Arc<Prepared>,
}

#[napi]
impl HierarchicalPrep {
    /// Records the search may score (scope and navigation points): small ones are cheaper to
    /// finish on the calling thread than to hand to the pool.
    #[napi(getter)]
    pub fn size(&self) -> f64 {
        self.p.prep.as_ref().map_or(0.0, |p| p.size() as f64)
    }
}

#[napi(object)]
pub struct SearchExplained {
    pub hits: Vec<Hit>,
    #[napi(ts_type = "'empty' | 'exact' | 'exact-quantized' | 'graph' | 'graph-then-exact'")]
    pub plan: String,
}
