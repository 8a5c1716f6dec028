//! BM25 over the records' text and its fusion with dense scores (hybrid search).
use std::collections::HashMap;

use roaring::RoaringBitmap;

use crate::search::TopK;
use crate::{kernels, parse_id, Error, Filter, Result, SearchOpts, VectorIndex, NONE};

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
            let doc = if t.is_empty() { NONE } else { self.bm25.add(r, t) };
            self.rec_mut(r)?.doc = doc;
        }
        Ok(())
    }

    /// The `k` best BM25 records among the candidates (score, record; unordered).
    pub(crate) fn text_top(&self, qterms: &[u32], k: usize, cand: &RoaringBitmap) -> Vec<(f32, u32)> {
        if qterms.is_empty() || cand.is_empty() {
            return Vec::new();
        }
        // Walking the postings costs their length; scoring the candidates one by one costs a
        // binary search per term and candidate. A subtree of a few hundred records in a large
        // account is the common case of the second.
        let per_candidate = cand.len() as usize * qterms.len() * 12;
        let top = if per_candidate < self.bm25.postings_len(qterms) {
            let mut docs: Vec<u32> = cand.iter().filter_map(|r| self.recs[r as usize].as_ref().map(|x| x.doc)).filter(|d| *d != NONE).collect();
            docs.sort_unstable();
            let mut v = self.bm25.score_docs(qterms, &docs);
            if v.len() > k {
                v.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
                v.truncate(k);
            }
            v
        } else if cand.len() > 4096 {
            // A posting walk asks about tens of thousands of records: a plain bitset answers in a
            // nanosecond where the roaring lookup costs tens.
            let mut bits = vec![0u64; self.recs.len() / 64 + 1];
            for r in cand.iter() {
                bits[r as usize >> 6] |= 1 << (r & 63);
            }
            self.bm25.top_k(qterms, k, &|r| bits.get(r as usize >> 6).is_some_and(|w| w & (1 << (r & 63)) != 0), cand.len() as usize)
        } else {
            self.bm25.top_k(qterms, k, &|r| cand.contains(r), cand.len() as usize)
        };
        top.into_iter().map(|(r, s)| (s, r)).collect()
    }

    pub fn search_text(&self, query: &str, k: usize, f: &Filter) -> Result<Vec<(String, f32)>> {
        if k == 0 || k > 10_000 {
            return Err(Error::InvalidArgument(format!("k must be in 1..=10000, got {k}")));
        }
        let cand = self.candidates(f);
        let mut top = TopK::new(k);
        for (s, r) in self.text_top(&self.bm25.query_terms(query), k, &cand) {
            top.push(s, r);
        }
        self.named(top.into_sorted())
    }

    /// Hybrid ranking: `alpha * max(0, cosine) + (1 - alpha) * bm25 / max_bm25`, where max_bm25 is
    /// the best BM25 score among the filtered records for this query. Both terms lie in [0, 1], so
    /// the fused score does too. The pool is the union of the top dense and top BM25 records
    /// (4k each); every pool member gets both scores computed exactly.
    pub fn hybrid_search(&self, q: &[f32], text: &str, k: usize, f: &Filter, alpha: f32) -> Result<Vec<(String, f32)>> {
        self.check_query(q, k)?;
        if !(0.0..=1.0).contains(&alpha) {
            return Err(Error::InvalidArgument(format!("alpha must be in [0, 1], got {alpha}")));
        }
        let cand = self.candidates(f);
        let qterms = self.bm25.query_terms(text);
        let top = self.hybrid_cand(q, &qterms, k, &cand, alpha)?;
        self.named(top)
    }

    /// BM25 of every record of `cand`, by record number (0 where no term matches): one walk that
    /// serves every search of a hierarchical find, whose subtrees are subsets of its scope.
    pub(crate) fn bm25_all(&self, qterms: &[u32], cand: &RoaringBitmap) -> Vec<f32> {
        let mut acc = vec![0f32; self.recs.len()];
        if qterms.is_empty() || cand.is_empty() {
            return acc;
        }
        let mut bits = vec![0u64; self.recs.len() / 64 + 1];
        for r in cand.iter() {
            bits[r as usize >> 6] |= 1 << (r & 63);
        }
        self.bm25.accumulate(qterms, &|r| bits.get(r as usize >> 6).is_some_and(|w| w & (1 << (r & 63)) != 0), &mut acc);
        acc
    }

    /// `hybrid_cand` with the BM25 scores already computed (`bm25_all` over a superset of `cand`).
    pub(crate) fn hybrid_pre(&self, q: &[f32], k: usize, cand: &RoaringBitmap, bm: &[f32], alpha: f32) -> Result<Vec<(f32, u32)>> {
        if cand.is_empty() {
            return Ok(Vec::new());
        }
        let pool_k = (k * 4).max(40);
        let (dense, _) = self.search_cand(q, pool_k, cand, SearchOpts::default())?;
        let mut sparse = TopK::new(pool_k);
        let mut max_b = 0f32;
        for r in cand.iter() {
            let b = bm[r as usize];
            if b > 0.0 {
                max_b = max_b.max(b);
                if b > sparse.threshold() {
                    sparse.push(b, r);
                }
            }
        }
        let mut pool: Vec<u32> = dense.iter().map(|x| x.1).chain(sparse.into_sorted().into_iter().map(|x| x.1)).collect();
        pool.sort_unstable();
        pool.dedup();
        self.fuse(q, k, pool, alpha, max_b, |r| bm[r as usize])
    }

    /// The hybrid score of every pool member, exact: `alpha · clamp(cosine) + (1 − alpha) ·
    /// bm25 / max_b`; the best `k`.
    pub(crate) fn fuse(&self, q: &[f32], k: usize, pool: Vec<u32>, alpha: f32, max_b: f32, bm25: impl Fn(u32) -> f32) -> Result<Vec<(f32, u32)>> {
        let mut top = TopK::new(k);
        for r in pool {
            let dn = kernels::dot(q, self.vector(self.rec(r)?.slot)).clamp(0.0, 1.0);
            let bn = if max_b > 0.0 { bm25(r) / max_b } else { 0.0 };
            top.push((alpha * dn + (1.0 - alpha) * bn).clamp(0.0, 1.0), r);
        }
        Ok(top.into_sorted())
    }

    /// `hybrid_search` over a candidate bitmap with the query terms already looked up.
    pub(crate) fn hybrid_cand(&self, q: &[f32], qterms: &[u32], k: usize, cand: &RoaringBitmap, alpha: f32) -> Result<Vec<(f32, u32)>> {
        if cand.is_empty() {
            return Ok(Vec::new());
        }
        let pool_k = (k * 4).max(40);
        let (dense, _) = self.search_cand(q, pool_k, cand, SearchOpts::default())?;
        // The best pool_k BM25 records (their maximum is the best of all the candidates); the
        // dense pool members outside them get their BM25 score computed directly.
        let sparse = self.text_top(qterms, pool_k, cand);
        let max_b = sparse.iter().fold(0f32, |m, (s, _)| m.max(*s));
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
        let extra: HashMap<u32, f32> = if max_b > 0.0 { self.bm25.score_docs(qterms, &docs).into_iter().collect() } else { HashMap::new() };
        self.fuse(q, k, pool, alpha, max_b, |r| bm.get(&r).or_else(|| extra.get(&r)).copied().unwrap_or(0.0))
    }
}
