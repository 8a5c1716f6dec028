//! Dense search: the query planner (exact scan of the filtered candidates, 8-bit first pass, or a
//! filtered HNSW walk), batches of queries, and FAISS's own search as a benchmark baseline.
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use roaring::RoaringBitmap;

use crate::Graph;
use crate::{format_id, kernels, Error, Filter, Plan, Result, SearchOpts, VectorIndex, Vectors, NONE};

#[derive(PartialEq)]
struct Scored(f32, u32);
impl Eq for Scored {}
impl PartialOrd for Scored {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Scored {
    // Reversed on the score so BinaryHeap is a min-heap of the current top-k; ties by record.
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then(self.1.cmp(&o.1))
    }
}

/// Keeps the k best (score, item) pairs.
pub(crate) struct TopK {
    k: usize,
    heap: BinaryHeap<Scored>,
}
impl TopK {
    pub(crate) fn new(k: usize) -> Self {
        TopK { k, heap: BinaryHeap::with_capacity(k + 1) }
    }
    #[inline]
    pub(crate) fn threshold(&self) -> f32 {
        if self.heap.len() < self.k {
            f32::NEG_INFINITY
        } else {
            self.heap.peek().map(|s| s.0).unwrap_or(f32::NEG_INFINITY)
        }
    }
    #[inline]
    pub(crate) fn push(&mut self, s: f32, r: u32) {
        if self.heap.len() < self.k {
            self.heap.push(Scored(s, r));
        } else if s > self.threshold() {
            self.heap.pop();
            self.heap.push(Scored(s, r));
        }
    }
    pub(crate) fn into_sorted(self) -> Vec<(f32, u32)> {
        let mut v: Vec<(f32, u32)> = self.heap.into_iter().map(|s| (s.0, s.1)).collect();
        v.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        v
    }
}

/// The `k` best positive scores of `scores` (indexed by record) among the records of `cand`, best
/// first, and the best of them all (0 when none is positive): the sparse half of a hybrid search
/// over precomputed BM25. A candidate set covering a large share of the records is answered by one
/// pass over the score array with a membership test only for the scores that could enter, instead
/// of iterating the bitmap (an iterator step and a random read per record: ~0.5 ms at 100k). Both
/// ways visit records in ascending order and apply the same comparisons: identical results, ties
/// included.
/// The largest value of a short slice, 0 for none; independent lanes so it vectorizes.
#[inline]
fn chunk_max(xs: &[f32]) -> f32 {
    let mut m = [0f32; 8];
    for (i, &x) in xs.iter().enumerate() {
        let l = i & 7;
        m[l] = if x > m[l] { x } else { m[l] };
    }
    m.iter().fold(0f32, |a, &b| if b > a { b } else { a })
}

pub(crate) fn sparse_top(scores: &[f32], cand: &RoaringBitmap, k: usize) -> (Vec<(f32, u32)>, f32) {
    let mut top = TopK::new(k);
    let mut max_b = 0f32;
    if cand.len() as usize * 4 > scores.len() {
        // A record matters only above bar = max(0, the k-th best so far): once the top is full its
        // k-th score is at most max_b. Chunks of 16 whose largest score is not above the bar are
        // skipped after one vectorized max; the others are checked one by one as before, in index
        // order, so the result (ties included) is the one-by-one pass's. The per-element pass was
        // ~20% of all CPU of a find at 100k files.
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            unsafe { sparse_pass_avx2(scores, cand, &mut top, &mut max_b) };
            return (top.into_sorted(), max_b);
        }
        const CHUNK: usize = 16;
        for (c, chunk) in scores.chunks(CHUNK).enumerate() {
            let bar = top.threshold().max(0.0);
            if chunk_max(chunk) <= bar {
                continue;
            }
            for (i, &b) in chunk.iter().enumerate() {
                let r = c * CHUNK + i;
                if b > 0.0 && (b > max_b || b > top.threshold()) && cand.contains(r as u32) {
                    max_b = max_b.max(b);
                    if b > top.threshold() {
                        top.push(b, r as u32);
                    }
                }
            }
        }
    } else {
        for r in cand.iter() {
            let b = scores.get(r as usize).copied().unwrap_or(0.0);
            if b > 0.0 {
                max_b = max_b.max(b);
                if b > top.threshold() {
                    top.push(b, r);
                }
            }
        }
    }
    (top.into_sorted(), max_b)
}

/// The chunked pass of `sparse_top` with one comparison of 16 scores against the bar and a bit mask
/// of those above it, where the portable pass takes a scalar maximum per chunk (LLVM does not
/// vectorize it: ~10% of all CPU of a find at 100k files). A score at or below the bar at the
/// chunk's start cannot pass the per-element check (the bar only rises, and while the top is full
/// it is at most `max_b`), so visiting only the masked ones, in index order, with the same checks,
/// gives the portable pass's result, ties included.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sparse_pass_avx2(scores: &[f32], cand: &RoaringBitmap, top: &mut TopK, max_b: &mut f32) {
    use std::arch::x86_64::*;
    let visit = |r: usize, top: &mut TopK, max_b: &mut f32| {
        let b = scores[r];
        if b > 0.0 && (b > *max_b || b > top.threshold()) && cand.contains(r as u32) {
            *max_b = max_b.max(b);
            if b > top.threshold() {
                top.push(b, r as u32);
            }
        }
    };
    let whole = scores.len() / 16 * 16;
    let mut at = 0;
    while at < whole {
        let bar = _mm256_set1_ps(top.threshold().max(0.0));
        let p = scores.as_ptr().add(at);
        let lo = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(_mm256_loadu_ps(p), bar)) as u32;
        let hi = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(_mm256_loadu_ps(p.add(8)), bar)) as u32;
        let mut mask = lo | hi << 8;
        while mask != 0 {
            visit(at + mask.trailing_zeros() as usize, top, max_b);
            mask &= mask - 1;
        }
        at += 16;
    }
    for r in whole..scores.len() {
        visit(r, top, max_b);
    }
}

impl VectorIndex {
    pub(crate) fn check_query(&self, q: &[f32], k: usize) -> Result<()> {
        if q.len() != self.dim {
            return Err(Error::InvalidArgument(format!("query has {} floats, index dimension is {}", q.len(), self.dim)));
        }
        if k == 0 || k > 10_000 {
            return Err(Error::InvalidArgument(format!("k must be in 1..=10000, got {k}")));
        }
        if q.iter().any(|x| !x.is_finite()) {
            return Err(Error::InvalidArgument("query has a non-finite component".into()));
        }
        Ok(())
    }

    /// Exact float32 scores of every candidate.
    pub(crate) fn scan_exact(&self, q: &[f32], k: usize, cand: &RoaringBitmap) -> Result<Vec<(f32, u32)>> {
        let mut top = TopK::new(k);
        for r in cand.iter() {
            top.push(kernels::dot(q, self.vector(self.rec(r)?.slot)), r);
        }
        Ok(top.into_sorted())
    }

    /// 8-bit first pass over the candidates, then float32 re-scoring of a pool of the best.
    pub(crate) fn scan_quantized(&self, q: &[f32], k: usize, cand: &RoaringBitmap) -> Result<Vec<(f32, u32)>> {
        let d = self.dim;
        // Re-scored in float32: the best max(4k, k+64) by the 8-bit score. A smaller pool (k +
        // max(k/2, 64): 144 at k = 80, ~0.03 ms less per 2,000-file find) gave the same results on
        // random and local-embedder vectors, but a cluster of near-duplicates wider than the margin
        // (their 8-bit scores within the ~1e-3 error of each other) would lose true top-k members
        // that this pool keeps.
        let pool = (k * 4).max(k + 64);
        // The query is quantized too: integer dot products (`dot_i8`) are ~2.5x cheaper than
        // converting every code to floats, and the float32 re-scoring below makes the scores exact.
        let mut q8 = vec![0i8; d];
        let qscale = kernels::quantize(q, &mut q8);
        // Every approximate score, then one selection of the pool: a heap of `pool` entries fed
        // in record order replaced its minimum ~pool·ln(n/pool) times (a tenth of a 2,000-record
        // find's search). The same pool as the heap's: best approximate score, ties to the lower record.
        let mut approx: Vec<(f32, u32)> = Vec::with_capacity(cand.len() as usize);
        for r in cand.iter() {
            let s = self.rec(r)?.slot as usize;
            let a = kernels::dot_i8(&q8, &self.codes[s * d..(s + 1) * d]) as f32 * qscale * self.scales[s];
            // (The heap's `>` kept a NaN out; `total_cmp` would rank it first.)
            if !a.is_nan() {
                approx.push((a, r));
            }
        }
        if approx.len() > pool {
            approx.select_nth_unstable_by(pool - 1, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            approx.truncate(pool);
        }
        // Re-scored in record order, so an exact tie at the k-th place keeps the lower record, as
        // the exact scan does.
        approx.sort_unstable_by_key(|x| x.1);
        let mut exact = TopK::new(k);
        for &(_, r) in &approx {
            exact.push(kernels::dot(q, self.vector(self.rec(r)?.slot)), r);
        }
        Ok(exact.into_sorted())
    }

    pub(crate) fn search_cand(&self, q: &[f32], k: usize, cand: &RoaringBitmap, opts: SearchOpts) -> Result<(Vec<(f32, u32)>, Plan)> {
        let n = cand.len() as usize;
        if n == 0 {
            return Ok((Vec::new(), Plan::Empty));
        }
        let selective = n <= self.cfg.exact_max_candidates
            || (n as f64) < self.cfg.exact_max_selectivity * self.live as f64;
        let hnsw = match &self.vectors {
            Vectors::Hnsw(h) if !opts.exact && !selective => h,
            _ => {
                if opts.exact || n <= 4 * k + 256 {
                    return Ok((self.scan_exact(q, k, cand)?, Plan::Exact));
                }
                return Ok((self.scan_quantized(q, k, cand)?, Plan::ExactQuantized));
            }
        };
        let everything = n == self.live;
        let slot_rec = &self.slot_rec;
        let allow = |label: i64| -> bool {
            let r = slot_rec[label as usize];
            r != NONE && (everything || cand.contains(r))
        };
        let ef = opts.ef.unwrap_or(self.cfg.ef_search).max(k);
        let res = hnsw.hnsw_search_one(q, k, ef, Some(&allow), 0)?;
        let hits: Vec<(f32, u32)> = res.into_iter().map(|(s, l)| (s, slot_rec[l as usize])).collect();
        if hits.len() < k.min(n) {
            // The walk can end early on a sparse filter; the exact scan is the safety net.
            return Ok((self.scan_quantized(q, k, cand)?, Plan::GraphThenExact));
        }
        Ok((hits, Plan::Graph))
    }

    /// Top-k records by inner product among those admitted by `f`.
    pub fn search(&self, q: &[f32], k: usize, f: &Filter, opts: SearchOpts) -> Result<Vec<(String, f32)>> {
        Ok(self.search_plan(q, k, f, opts)?.0)
    }

    pub fn search_plan(&self, q: &[f32], k: usize, f: &Filter, opts: SearchOpts) -> Result<(Vec<(String, f32)>, Plan)> {
        self.check_query(q, k)?;
        let cand = self.candidates(f);
        let (hits, plan) = self.search_cand(q, k, &cand, opts)?;
        Ok((self.named(hits)?, plan))
    }

    /// Several queries sharing one filter, on up to `threads` threads.
    pub fn search_many(&self, qs: &[f32], n: usize, k: usize, f: &Filter, opts: SearchOpts, threads: usize) -> Result<Vec<Vec<(String, f32)>>> {
        if qs.len() != n * self.dim {
            return Err(Error::InvalidArgument(format!("expected {n} x {} floats, got {}", self.dim, qs.len())));
        }
        for i in 0..n {
            self.check_query(&qs[i * self.dim..(i + 1) * self.dim], k)?;
        }
        let cand = self.candidates(f);
        let threads = threads.min(crate::max_threads()).clamp(1, n.max(1));
        let chunk = n.div_ceil(threads).max(1);
        let d = self.dim;
        let results: Vec<Result<Vec<Vec<(String, f32)>>>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .step_by(chunk)
                .map(|start| {
                    let cand = &cand;
                    s.spawn(move || {
                        (start..(start + chunk).min(n))
                            .map(|i| {
                                let (h, _) = self.search_cand(&qs[i * d..(i + 1) * d], k, cand, opts)?;
                                self.named(h)
                            })
                            .collect::<Result<Vec<_>>>()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(Error::Internal("a search thread panicked".into())))).collect()
        });
        let mut out = Vec::with_capacity(n);
        for r in results {
            out.extend(r?);
        }
        Ok(out)
    }

    pub(crate) fn named(&self, hits: Vec<(f32, u32)>) -> Result<Vec<(String, f32)>> {
        hits.into_iter().map(|(s, r)| Ok((format_id(self.rec(r)?.id), s))).collect()
    }

    /// FAISS's own HNSW search (one thread, no filter, tombstones dropped afterwards): the
    /// baseline our traversal is measured against.
    pub fn faiss_search(&mut self, q: &[f32], k: usize, ef: usize) -> Result<Vec<(String, f32)>> {
        self.check_query(q, k)?;
        let Vectors::Hnsw(h) = &mut self.vectors else {
            return Err(Error::InvalidArgument("not an HNSW index".into()));
        };
        h.set_ef_search(ef.max(k))?;
        let (scores, labels) = h.search(q, k, None, 1)?;
        let hits = scores
            .into_iter()
            .zip(labels)
            .filter(|(_, l)| *l >= 0 && self.slot_rec[*l as usize] != NONE)
            .map(|(s, l)| (s, self.slot_rec[l as usize]))
            .collect();
        self.named(hits)
    }

    /// Exposes the raw FAISS index for benchmarks (FAISS's own search as a baseline).
    pub fn faiss(&self) -> Option<&Graph> {
        match &self.vectors {
            Vectors::Hnsw(h) => Some(h),
            _ => None,
        }
    }
}
