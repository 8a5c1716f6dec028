//! BM25 over the records' text and its fusion with dense scores (hybrid search).
use std::collections::HashMap;

use roaring::RoaringBitmap;

use crate::bm25::{tokenize, QueryStats};
use crate::search::TopK;
use crate::{kernels, parse_id, Error, Filter, Plan, Result, SearchOpts, VectorIndex, NONE};

/// Dense weight of the fusion when the caller gives no range: `DENSE_WEIGHT.1` when no document
/// matches the query's words, down to `DENSE_WEIGHT.0` when one matches all of them (see
/// `adaptive_alpha`). The index's own default, a middle ground; retrieval always passes the
/// running embedder's range (`denseWeight` in plugins/retrieval/store.ts: 0..0.2 for the lexical
/// embedder, whose dense score is a weaker view of the same words, 0.8..0.95 for a transformer).
pub const DENSE_WEIGHT: (f32, f32) = (0.3, 0.7);

/// How a hybrid search weighs the dense score against BM25.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DenseWeight {
    Fixed(f32),
    /// From `.1` (no document has the query's words) down to `.0` (one has them all).
    Adaptive(f32, f32),
}

impl Default for DenseWeight {
    fn default() -> Self {
        DenseWeight::Adaptive(DENSE_WEIGHT.0, DENSE_WEIGHT.1)
    }
}

impl VectorIndex {
    /// Sets the searchable text of existing records (empty text removes it).
    pub fn upsert_text(&mut self, ids: &[&str], texts: &[&str]) -> Result<()> {
        if ids.len() != texts.len() {
            return Err(Error::InvalidArgument(format!("{} ids but {} texts", ids.len(), texts.len())));
        }
        let mut recs = Vec::with_capacity(ids.len());
        for id in ids {
            let id128 = parse_id(id)?;
            match self.by_id.get(&id128) {
                Some(&r) => recs.push(r),
                None => return Err(Error::InvalidArgument(format!("unknown record id {id}: upsert its vector and attributes first"))),
            }
        }
        for (r, t) in recs.into_iter().zip(texts) {
            let old = self.rec(r)?.doc;
            if old != NONE {
                self.bm25.kill(old);
            }
            let account = self.rec(r)?.account;
            let doc = if t.is_empty() { NONE } else { self.bm25.add(r, account, t) };
            self.rec_mut(r)?.doc = doc;
        }
        Ok(())
    }

    /// The query's statistics in the account named `account` (none when the index has no such
    /// account: then no candidate either).
    pub(crate) fn query_stats(&self, text: &str, account: &str) -> QueryStats {
        match self.strings.get(account) {
            Some(a) => self.bm25.stats(&self.bm25.query_terms(text), a),
            None => QueryStats::default(),
        }
    }

    /// The `k` best BM25 records among the candidates (score, record; unordered); `qs` is for the
    /// candidates' account.
    pub(crate) fn text_top(&self, qs: &QueryStats, k: usize, cand: &RoaringBitmap) -> Vec<(f32, u32)> {
        if qs.is_empty() || cand.is_empty() {
            return Vec::new();
        }
        // Walking the postings costs their length; scoring the candidates one by one costs a
        // binary search per term and candidate. A subtree of a few hundred records in a large
        // account is the common case of the second.
        let per_candidate = cand.len() as usize * qs.terms.len() * 12;
        let top = if per_candidate < self.bm25.postings_len(qs) {
            let mut docs: Vec<u32> = cand.iter().filter_map(|r| self.recs[r as usize].as_ref().map(|x| x.doc)).filter(|d| *d != NONE).collect();
            docs.sort_unstable();
            let mut v = self.bm25.score_docs(qs, &docs);
            if v.len() > k {
                v.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
                v.truncate(k);
            }
            v
        } else if let Some(account) = self.whole_account(cand) {
            self.bm25.top_k_in_account(qs, k, account, cand.len() as usize)
        } else if cand.len() > 4096 {
            // A posting walk asks about tens of thousands of records: a plain bitset answers in a
            // nanosecond where the roaring lookup costs tens.
            let mut bits = vec![0u64; self.recs.len() / 64 + 1];
            for r in cand.iter() {
                bits[r as usize >> 6] |= 1 << (r & 63);
            }
            self.bm25.top_k(qs, k, &|r| bits.get(r as usize >> 6).is_some_and(|w| w & (1u64 << (r & 63)) != 0), cand.len() as usize)
        } else {
            self.bm25.top_k(qs, k, &|r| cand.contains(r), cand.len() as usize)
        };
        top.into_iter().map(|(r, s)| (s, r)).collect()
    }

    /// The account when `cand` is all of its records (a filter on the account alone), else None.
    fn whole_account(&self, cand: &RoaringBitmap) -> Option<u32> {
        let account = self.recs.get(cand.min()? as usize)?.as_ref()?.account;
        // The candidates are a subset of the account's records: the same count is the same set.
        (self.by_account.get(&account)?.len() == cand.len()).then_some(account)
    }

    pub fn search_text(&self, query: &str, k: usize, f: &Filter) -> Result<Vec<(String, f32)>> {
        if k == 0 || k > 10_000 {
            return Err(Error::InvalidArgument(format!("k must be in 1..=10000, got {k}")));
        }
        let cand = self.candidates(f);
        let mut top = TopK::new(k);
        for (s, r) in self.text_top(&self.query_stats(query, &f.account), k, &cand) {
            top.push(s, r);
        }
        self.named(top.into_sorted())
    }

    /// Hybrid ranking: `alpha * max(0, cosine) + (1 - alpha) * bm25 / max_bm25`, where max_bm25 is
    /// the best BM25 score among the filtered records for this query. Both terms lie in [0, 1], so
    /// the fused score does too. The pool is the union of the top dense and top BM25 records
    /// (4k each); every pool member gets both scores computed exactly. `DenseWeight::Adaptive`
    /// weighs the two per query by how well the words match (`adaptive_alpha`).
    pub fn hybrid_search(&self, q: &[f32], text: &str, k: usize, f: &Filter, alpha: DenseWeight) -> Result<Vec<(String, f32)>> {
        self.check_query(q, k)?;
        check_alpha(alpha)?;
        let Some(account) = self.strings.get(&f.account) else {
            return Ok(Vec::new());
        };
        let cand = self.candidates(f);
        let qs = self.bm25.stats(&self.bm25.query_terms(text), account);
        let top = self.hybrid_cand(q, &qs, text, account, k, &cand, alpha)?;
        self.named(top)
    }

    /// Σ idf over the query's distinct words in `account` (its own statistics, as its BM25
    /// scores), words it lacks at the idf of a term no document has: about what a document
    /// matching each word once, at average length, scores in BM25.
    pub(crate) fn query_idf_mass(&self, text: &str, account: u32) -> f32 {
        let mut words = tokenize(text);
        words.sort_unstable();
        words.dedup();
        self.bm25.idf_mass(&words, account)
    }

    /// The dense weight for one query: a linear fusion with a fixed weight let the weaker signal
    /// drag the stronger one down whenever their quality differed (a lexical embedder on
    /// conversations). The lexical confidence `max_bm25 / idf mass` (≈1 when some document holds
    /// every query word, near 0 for a paraphrase whose words appear nowhere) moves the weight from
    /// `DENSE_WEIGHT.1` towards `DENSE_WEIGHT.0`.
    pub fn adaptive_alpha(&self, text: &str, account: u32, max_bm25: f32, w: DenseWeight) -> f32 {
        let (lo, hi) = match w {
            DenseWeight::Fixed(a) => return a,
            DenseWeight::Adaptive(lo, hi) => (lo, hi),
        };
        let mass = self.query_idf_mass(text, account);
        let conf = if mass > 0.0 { (max_bm25 / mass).clamp(0.0, 1.0) } else { 0.0 };
        hi - (hi - lo) * conf
    }

    /// BM25 of every record of `cand`, by record number (0 where no term matches): one walk that
    /// serves every search of a hierarchical find, whose subtrees are subsets of its scope.
    pub(crate) fn bm25_all(&self, qs: &QueryStats, cand: &RoaringBitmap) -> Vec<f32> {
        let mut acc = vec![0f32; self.recs.len()];
        if qs.is_empty() || cand.is_empty() {
            return acc;
        }
        if cand.len() as usize * 2 > self.recs.len() {
            // Most records are admitted: walk without a filter, then clear the few others.
            self.bm25.accumulate_all(qs, &mut acc);
            let mut others = RoaringBitmap::new();
            others.insert_range(0..self.recs.len() as u32);
            others -= cand;
            for r in others.iter() {
                acc[r as usize] = 0.0;
            }
            return acc;
        }
        let mut bits = vec![0u64; self.recs.len() / 64 + 1];
        for r in cand.iter() {
            bits[r as usize >> 6] |= 1 << (r & 63);
        }
        self.bm25.accumulate(qs, &|r| bits.get(r as usize >> 6).is_some_and(|w| w & (1u64 << (r & 63)) != 0), &mut acc);
        acc
    }

    /// `hybrid_cand` with the BM25 scores already computed (`bm25_all` over a superset of `cand`).
    pub(crate) fn hybrid_pre(&self, q: &[f32], k: usize, cand: &RoaringBitmap, bm: &[f32], alpha: f32) -> Result<Vec<(f32, u32)>> {
        // (The hierarchical search resolves an adaptive weight once per find, over its whole scope.)
        if cand.is_empty() {
            return Ok(Vec::new());
        }
        let pool_k = (k * 4).max(40);
        let (sparse, max_b) = crate::search::sparse_top(bm, cand, pool_k);
        // With no dense weight (the lexical embedder's range ends at 0 when some record holds every
        // query word) the fused score is BM25's alone: once k records have a positive one, a dense
        // neighbour outside the BM25 top pool_k cannot reach the top k (short of a tie with 3k
        // others), so the graph walk, a third of a find's CPU at 100k files, is skipped.
        let (dense, plan) = if alpha > 0.0 || sparse.len() < k { self.search_cand(q, pool_k, cand, SearchOpts::default())? } else { (Vec::new(), Plan::Empty) };
        // The scans' scores are the float32 inner product `fuse` would compute again (the graph
        // walk's are not guaranteed to be): the dense half of the pool is not read twice.
        let exact = matches!(plan, Plan::Exact | Plan::ExactQuantized | Plan::GraphThenExact);
        let mut pool: Vec<(u32, Option<f32>)> = dense.iter().map(|&(s, r)| (r, exact.then_some(s))).chain(sparse.into_iter().map(|x| (x.1, None))).collect();
        // By record, a known score first, so `dedup` keeps it.
        pool.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.is_some().cmp(&a.1.is_some())));
        pool.dedup_by_key(|x| x.0);
        self.fuse(q, k, pool, alpha, max_b, |r| bm[r as usize])
    }

    /// The hybrid score of every pool member, exact: `alpha · clamp(cosine) + (1 − alpha) ·
    /// bm25 / max_b`; the best `k`.
    /// A pool member's known inner product is used as is.
    pub(crate) fn fuse(&self, q: &[f32], k: usize, pool: Vec<(u32, Option<f32>)>, alpha: f32, max_b: f32, bm25: impl Fn(u32) -> f32) -> Result<Vec<(f32, u32)>> {
        let mut top = TopK::new(k);
        for (r, known) in pool {
            let dn = match known {
                Some(d) => d,
                None => kernels::dot(q, self.vector(self.rec(r)?.slot)),
            }
            .clamp(0.0, 1.0);
            let bn = if max_b > 0.0 { bm25(r) / max_b } else { 0.0 };
            top.push((alpha * dn + (1.0 - alpha) * bn).clamp(0.0, 1.0), r);
        }
        Ok(top.into_sorted())
    }

    /// `hybrid_search` over a candidate bitmap with the query terms already looked up.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn hybrid_cand(&self, q: &[f32], qs: &QueryStats, text: &str, account: u32, k: usize, cand: &RoaringBitmap, alpha: DenseWeight) -> Result<Vec<(f32, u32)>> {
        if cand.is_empty() {
            return Ok(Vec::new());
        }
        let pool_k = (k * 4).max(40);
        // The best pool_k BM25 records (their maximum is the best of all the candidates); the
        // dense pool members outside them get their BM25 score computed directly.
        let sparse = self.text_top(qs, pool_k, cand);
        let max_b = sparse.iter().fold(0f32, |m, (s, _)| m.max(*s));
        let alpha = self.adaptive_alpha(text, account, max_b, alpha);
        // No dense weight: as in `hybrid_pre`, the dense search cannot change the top k.
        let dense = if alpha > 0.0 || sparse.len() < k { self.search_cand(q, pool_k, cand, SearchOpts::default())?.0 } else { Vec::new() };
        let bm: HashMap<u32, f32> = sparse.iter().map(|(s, r)| (*r, *s)).collect();
        let mut pool: Vec<u32> = dense.iter().map(|x| x.1).chain(sparse.iter().map(|x| x.1)).collect();
        pool.sort_unstable();
        pool.dedup();
        let mut missing: Vec<(u32, u32)> = pool
            .iter()
            .filter(|r| !bm.contains_key(r))
            .filter_map(|&r| self.recs[r as usize].as_ref().map(|x| (x.doc, r)))
            .filter(|(d, _)| *d != NONE)
            .collect();
        missing.sort_unstable();
        let docs: Vec<u32> = missing.iter().map(|x| x.0).collect();
        let extra: HashMap<u32, f32> = if max_b > 0.0 { self.bm25.score_docs(qs, &docs).into_iter().collect() } else { HashMap::new() };
        self.fuse(q, k, pool.into_iter().map(|r| (r, None)).collect(), alpha, max_b, |r| bm.get(&r).or_else(|| extra.get(&r)).copied().unwrap_or(0.0))
    }
}

pub(crate) fn check_alpha(alpha: DenseWeight) -> Result<()> {
    let ok = |a: f32| (0.0..=1.0).contains(&a);
    match alpha {
        DenseWeight::Fixed(a) if !ok(a) => Err(Error::InvalidArgument(format!("alpha must be in [0, 1], got {a}"))),
        DenseWeight::Adaptive(lo, hi) if !ok(lo) || !ok(hi) || lo > hi => Err(Error::InvalidArgument(format!("the adaptive dense weight range must satisfy 0 <= min <= max <= 1, got {lo}..{hi}"))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod fusion_tests {
    use super::DenseWeight::{Adaptive, Fixed};
    use crate::{ContextType, Filter, RecordAttrs, VectorIndex};

    fn rec(i: usize, tags: &[&str]) -> (String, RecordAttrs) {
        let uri = format!("ctx://resources/d/{i}.md");
        let a = RecordAttrs {
            account: "a".into(),
            owner_space: String::new(),
            uri,
            parent_uri: "ctx://resources/d".into(),
            context_type: ContextType::Resource,
            level: 2,
            tags: tags.iter().map(|t| t.to_string()).collect(),
            created_at: 0,
            updated_at: 0,
            peer: None,
        };
        (format!("{:032x}", i + 1), a)
    }

    /// Three documents in 2-d: 0 holds the query's words, 1 points where the query vector does, 2 neither.
    fn index() -> VectorIndex {
        let mut idx = VectorIndex::new(2).unwrap();
        let recs: Vec<(String, RecordAttrs)> = (0..3).map(|i| rec(i, if i == 2 { &["k=v"] } else { &[] })).collect();
        let ids: Vec<&str> = recs.iter().map(|r| r.0.as_str()).collect();
        let attrs: Vec<RecordAttrs> = recs.iter().map(|r| r.1.clone()).collect();
        idx.upsert(&ids, &[0.0, 1.0, 1.0, 0.0, 0.6, 0.8], &attrs).unwrap();
        idx.upsert_text(&ids, &["postgres failover runbook", "a note about lunch", "weekly planning"]).unwrap();
        idx
    }

    #[test]
    fn the_dense_weight_follows_how_well_the_words_match() {
        let idx = index();
        let a = idx.strings.get("a").unwrap();
        let mass = idx.query_idf_mass("postgres failover", a);
        assert!(mass > 0.0);
        // Nothing matches: all dense; a document scoring the whole idf mass: mostly lexical.
        let d = super::DenseWeight::default();
        assert!((idx.adaptive_alpha("postgres failover", a, 0.0, d) - super::DENSE_WEIGHT.1).abs() < 1e-6);
        assert!((idx.adaptive_alpha("postgres failover", a, mass, d) - super::DENSE_WEIGHT.0).abs() < 1e-6);
        assert!((idx.adaptive_alpha("postgres failover", a, 10.0 * mass, d) - super::DENSE_WEIGHT.0).abs() < 1e-6);
        let mid = idx.adaptive_alpha("postgres failover", a, mass / 2.0, d);
        assert!(mid > super::DENSE_WEIGHT.0 && mid < super::DENSE_WEIGHT.1);
        // The caller's range (a stronger embedder) and a fixed weight.
        assert!((idx.adaptive_alpha("postgres failover", a, mass, Adaptive(0.7, 0.95)) - 0.7).abs() < 1e-6);
        assert!((idx.adaptive_alpha("postgres failover", a, 0.0, Adaptive(0.7, 0.95)) - 0.95).abs() < 1e-6);
        assert_eq!(idx.adaptive_alpha("postgres failover", a, 0.0, Fixed(0.4)), 0.4);
        // Words no document has add idf mass: the same best score is less convincing.
        assert!(idx.query_idf_mass("postgres failover zebra", a) > mass);
        assert_eq!(idx.query_idf_mass("", a), 0.0);
    }

    #[test]
    fn adaptive_fusion_keeps_the_lexical_match_first_and_a_fixed_alpha_still_applies() {
        let idx = index();
        let q = [1.0, 0.0]; // dense points at document 1
        let f = Filter::account("a");
        let adaptive = idx.hybrid_search(&q, "postgres failover", 3, &f, Default::default()).unwrap();
        assert_eq!(adaptive[0].0, format!("{:032x}", 1), "a full lexical match outranks a dense neighbour");
        assert!(adaptive.iter().all(|h| (0.0..=1.0).contains(&h.1)));
        let dense_only = idx.hybrid_search(&q, "postgres failover", 3, &f, Fixed(1.0)).unwrap();
        assert_eq!(dense_only[0].0, format!("{:032x}", 2));
        // No word matches anywhere: the ranking is the dense one.
        let para = idx.hybrid_search(&q, "zebra giraffe", 3, &f, Default::default()).unwrap();
        assert_eq!(para[0].0, format!("{:032x}", 2));
        assert!(idx.hybrid_search(&q, "x", 3, &f, Fixed(1.5)).is_err());
        assert!(idx.hybrid_search(&q, "x", 3, &f, Fixed(-0.1)).is_err());
        assert!(idx.hybrid_search(&q, "x", 3, &f, Adaptive(0.8, 0.5)).is_err());
        assert!(idx.hybrid_search(&q, "x", 3, &f, Adaptive(0.5, 1.2)).is_err());
    }

    #[test]
    fn exclude_tags_leaves_tagged_records_out() {
        let idx = index();
        let mut f = Filter::account("a");
        f.exclude_tags = vec!["k=v".into()];
        let all = idx.candidates(&Filter::account("a"));
        let some = idx.candidates(&f);
        assert_eq!(all.len(), 3);
        assert_eq!(some.len(), 2);
        // An unknown tag excludes nothing.
        f.exclude_tags = vec!["nope=1".into()];
        assert_eq!(idx.candidates(&f).len(), 3);
    }
}
