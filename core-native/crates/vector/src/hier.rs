//! Hierarchical retrieval inside the core (the algorithm of docs/retrieval.md, "Hierarchical
//! retrieval"): one call answers a whole `find` — a global search over the scope, a search over the
//! directories (L0/L1 records) as navigation points, then expansions of the best directory with a
//! search restricted to its subtree, child scores propagated from the parent, until the top-k is
//! stable. In JavaScript the same loop cost ~8 N-API round trips, the filter conversions and the
//! bookkeeping on the event loop; here the query is tokenized once and every subtree search is a
//! bitmap intersection with the scope.
use std::collections::{HashMap, HashSet};

use roaring::RoaringBitmap;

use crate::{Filter, Result, VectorIndex};

#[derive(Clone, Debug)]
pub struct HierParams {
    /// Weight of a hit's own score against its parent directory's: final = max(s, p·s + (1−p)·parent).
    pub propagation: f32,
    pub max_expansions: usize,
    /// Stop once the top-k has not changed for this many expansions.
    pub stable_rounds: usize,
    pub global_k_min: usize,
    /// Subdirectories taken from each expansion.
    pub nav_k: usize,
    /// Dense weight of the hybrid score (see `hybrid_search`); an adaptive one is resolved once
    /// per find over its whole scope, so every subtree search weighs the same way.
    pub alpha: crate::hybrid::DenseWeight,
}

pub struct HierHit {
    pub id: String,
    /// Final score in [0, 1].
    pub score: f32,
    /// The record's own hybrid score in [0, 1].
    pub raw: f32,
    /// The expanded directory that lifted the score, and that directory's score.
    pub via: Option<(String, f32)>,
}

pub struct Expansion {
    pub uri: String,
    pub score: f32,
    pub child_hits: usize,
    pub round: usize,
}

pub struct HierResult {
    pub hits: Vec<HierHit>,
    pub global_hits: usize,
    pub navigation_hits: usize,
    pub expanded: Vec<Expansion>,
    pub rounds: usize,
    pub stop_reason: &'static str,
}

#[derive(Clone, Copy)]
struct Cand {
    score: f32,
    raw: f32,
    /// (directory uri string id, directory score) when propagation lifted the score.
    via: Option<(u32, f32)>,
}

fn empty_result() -> HierResult {
    HierResult { hits: Vec::new(), global_hits: 0, navigation_hits: 0, expanded: Vec::new(), rounds: 0, stop_reason: "no_hits" }
}

fn clamp01(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

/// The part of a hierarchical find that needs no query vector (`hierarchical_prepare`): the scope
/// and navigation bitmaps, the BM25 score of every record in them and the dense weight. A caller
/// with a remote embedder computes it while the query embedding is in flight; it is valid while
/// the index is unchanged (the caller checks that: napi's `VectorIndex` counts its writes).
pub struct HierPrep {
    account: u32,
    scope: RoaringBitmap,
    nav: RoaringBitmap,
    bm: Vec<f32>,
    alpha: f32,
}

impl HierPrep {
    /// Records a search may score: the scope and the navigation points.
    pub fn size(&self) -> u64 {
        self.scope.union_len(&self.nav)
    }
}

fn check_params(p: &HierParams) -> Result<()> {
    crate::hybrid::check_alpha(p.alpha)?;
    if !(0.0..=1.0).contains(&p.propagation) {
        return Err(crate::Error::InvalidArgument(format!("propagation must be in [0, 1], got {}", p.propagation)));
    }
    Ok(())
}

impl VectorIndex {
    /// `filters` are OR'ed into the scope (every condition of the request); `navs` (access, target
    /// and peer view only) bound where navigation may go. Hits are every scored record, best first.
    pub fn hierarchical_search(&self, q: &[f32], text: &str, limit: usize, filters: &[Filter], navs: &[Filter], p: &HierParams) -> Result<HierResult> {
        self.check_query(q, limit)?;
        match self.hierarchical_prepare(text, filters, navs, p)? {
            Some(prep) => self.hierarchical_search_prepared(q, limit, &prep, p),
            None => Ok(empty_result()),
        }
    }

    /// The vector-free first half of `hierarchical_search`; None when no filter names an account
    /// the index holds (nothing can match).
    pub fn hierarchical_prepare(&self, text: &str, filters: &[Filter], navs: &[Filter], p: &HierParams) -> Result<Option<HierPrep>> {
        check_params(p)?;
        let Some(account) = filters.first().or(navs.first()).and_then(|f| self.strings.get(&f.account)) else {
            return Ok(None);
        };
        let mut scope = RoaringBitmap::new();
        for f in filters {
            scope |= self.candidates(f);
        }
        let mut nav = RoaringBitmap::new();
        for f in navs {
            let mut f = f.clone();
            f.levels = Some(vec![0, 1]);
            nav |= self.candidates(&f);
        }
        // BM25 once for the whole find, by the account's own statistics: every search below is
        // over a subset of scope ∪ nav.
        let qs = self.bm25.stats(&self.bm25.query_terms(text), account);
        let bm = self.bm25_all(&qs, &(&scope | &nav));
        let alpha = match p.alpha {
            crate::hybrid::DenseWeight::Fixed(a) => a,
            // bm is zero outside scope ∪ nav: a flat pass, cheaper than walking the bitmap.
            w => self.adaptive_alpha(text, account, bm.iter().fold(0f32, |m, &b| m.max(b)), w),
        };
        Ok(Some(HierPrep { account, scope, nav, bm, alpha }))
    }

    /// The second half of `hierarchical_search`, on a `prep` made by this index as it is now.
    pub fn hierarchical_search_prepared(&self, q: &[f32], limit: usize, prep: &HierPrep, p: &HierParams) -> Result<HierResult> {
        self.check_query(q, limit)?;
        check_params(p)?;
        if prep.bm.len() != self.recs.len() {
            return Err(crate::Error::InvalidArgument("the prepared search belongs to another state of the index".into()));
        }
        let mut out = empty_result();
        let (account, scope, nav, bm, alpha) = (prep.account, &prep.scope, &prep.nav, &prep.bm[..], prep.alpha);
        let global_k = (limit * 2).max(p.global_k_min);
        let global = self.hybrid_pre(q, global_k, scope, bm, alpha)?;
        let nav_hits = self.hybrid_pre(q, global_k, nav, bm, alpha)?;
        out.global_hits = global.len();
        out.navigation_hits = nav_hits.len();
        // When every navigation point is also a possible hit, one subtree search per expansion
        // serves as both its child candidates and its subdirectories.
        let same_scope = nav.is_subset(scope);

        let mut cands: HashMap<u32, Cand> = HashMap::new();
        let offer = |cands: &mut HashMap<u32, Cand>, s: f32, r: u32, via: Option<(u32, f32)>| {
            let raw = clamp01(s);
            let score = match via {
                Some((_, vs)) => raw.max(p.propagation * raw + (1.0 - p.propagation) * vs),
                None => raw,
            };
            let better = cands.get(&r).is_none_or(|c| score > c.score);
            if better {
                cands.insert(r, Cand { score, raw, via: if score > raw { via } else { None } });
            }
        };
        for &(s, r) in &global {
            offer(&mut cands, s, r, None);
        }
        let mut frontier: HashMap<u32, f32> = HashMap::new();
        let mut expanded: HashSet<u32> = HashSet::new();
        let push = |frontier: &mut HashMap<u32, f32>, expanded: &HashSet<u32>, uri: u32, s: f32| {
            if !expanded.contains(&uri) && frontier.get(&uri).is_none_or(|&x| s > x) {
                frontier.insert(uri, s);
            }
        };
        for &(s, r) in &nav_hits {
            push(&mut frontier, &expanded, self.rec(r)?.uri, clamp01(s));
        }
        let top_key = |cands: &HashMap<u32, Cand>| -> Vec<u32> {
            let mut v: Vec<(f32, u32)> = cands.iter().map(|(r, c)| (c.score, *r)).collect();
            v.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            v.truncate(limit);
            v.into_iter().map(|x| x.1).collect()
        };
        let kth = |cands: &HashMap<u32, Cand>| -> f32 {
            if cands.len() < limit {
                return 0.0;
            }
            let mut s: Vec<f32> = cands.values().map(|c| c.score).collect();
            s.select_nth_unstable_by(limit - 1, |a, b| b.total_cmp(a));
            s[limit - 1]
        };
        let mut last = top_key(&cands);
        let mut stable = 0;
        out.stop_reason = if !frontier.is_empty() { "max_expansions" } else if !cands.is_empty() { "frontier_exhausted" } else { "no_hits" };
        for round in 1..=p.max_expansions {
            // The best directory; ties go to the smaller uri so results are deterministic.
            let Some((&uri, &dir_score)) = frontier.iter().max_by(|a, b| a.1.total_cmp(b.1).then_with(|| self.strings.name(*b.0).cmp(self.strings.name(*a.0)))) else {
                out.stop_reason = "frontier_exhausted";
                break;
            };
            frontier.remove(&uri);
            expanded.insert(uri);
            // A directory scoring below half the current k-th result cannot lift a child above it.
            if cands.len() >= limit && dir_score < kth(&cands) * 0.5 {
                out.stop_reason = "frontier_below_topk";
                break;
            }
            let uri_str = self.strings.name(uri);
            let sub = self.prefix_bitmap(account, uri_str);
            let child_cand = scope & &sub;
            let (child, subdirs): (Vec<(f32, u32)>, Vec<(f32, u32)>) = if same_scope {
                let child = self.hybrid_pre(q, limit + p.nav_k, &child_cand, bm, alpha)?;
                let mut dirs = Vec::new();
                for &(s, r) in &child {
                    if self.rec(r)?.level < 2 {
                        dirs.push((s, r));
                    }
                }
                (child, dirs)
            } else {
                let child = self.hybrid_pre(q, limit, &child_cand, bm, alpha)?;
                let dirs = self.hybrid_pre(q, p.nav_k, &(nav & &sub), bm, alpha)?;
                (child, dirs)
            };
            for &(s, r) in &child {
                offer(&mut cands, s, r, Some((uri, dir_score)));
            }
            for &(s, r) in &subdirs {
                let d = self.rec(r)?.uri;
                if d != uri {
                    let s = clamp01(s);
                    push(&mut frontier, &expanded, d, s.max(p.propagation * s + (1.0 - p.propagation) * dir_score));
                }
            }
            out.expanded.push(Expansion { uri: uri_str.to_string(), score: dir_score, child_hits: child.len(), round });
            out.rounds = round;
            let key = top_key(&cands);
            stable = if key == last { stable + 1 } else { 0 };
            last = key;
            if stable >= p.stable_rounds {
                out.stop_reason = "stable";
                break;
            }
        }
        let mut ranked: Vec<(u32, Cand)> = cands.into_iter().collect();
        ranked.sort_unstable_by(|a, b| b.1.score.total_cmp(&a.1.score).then(a.0.cmp(&b.0)));
        out.hits = ranked
            .into_iter()
            .map(|(r, c)| {
                Ok(HierHit {
                    id: crate::format_id(self.rec(r)?.id),
                    score: c.score,
                    raw: c.raw,
                    via: c.via.map(|(u, s)| (self.strings.name(u).to_string(), s)),
                })
            })
            .collect::<Result<_>>()?;
        Ok(out)
    }
}
