//! BM25 sparse index over the same records as the vectors. Documents are numbered separately from
//! records: replacing a record's text appends a new document and marks the old one dead, so posting
//! lists stay append-only (no search through a million-entry list on update); `compact` drops dead
//! postings once they are a quarter of the total.
use std::collections::HashMap;

use rustc_hash::FxHashMap;

pub const DEAD: u32 = u32::MAX;
pub const K1: f32 = 1.2;
pub const B: f32 = 0.75;

/// ctx's tokenizer (Unicode words, identifier parts) followed by its conservative English stem:
/// measured on bench/retrieval-quality, stemming raised BM25 recall@10 from 0.845 to 0.873.
pub fn tokenize(text: &str) -> Vec<String> {
    ctx_core::text::tokenize(text).into_iter().map(|t| ctx_core::text::stem(&t).into_owned()).collect()
}

/// One account's share of the index: BM25's statistics are per account, exactly as if each
/// account had an index of its own, so one tenant's documents never move another's ranking.
#[derive(Default)]
pub(crate) struct AccountStats {
    pub(crate) docs: u64,
    pub(crate) len: u64,
    /// Per term: the account's live documents holding it (absent = 0).
    pub(crate) df: HashMap<u32, u32>,
}

/// What scoring one query in one account needs, looked up once per query: the terms the account
/// has, each with its idf, in the order every path sums them (rarest first, then term number), so
/// the same document gets the same score, to the bit, whichever path scores it.
#[derive(Default, Clone, Debug)]
pub struct QueryStats {
    pub(crate) terms: Vec<(u32, f32)>,
    pub(crate) avgdl: f32,
}

impl QueryStats {
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// The idf of a term in `df` of `n` documents; a term no document has (df 0) gets the largest,
/// still finite.
#[inline]
pub(crate) fn idf(n: f32, df: f32) -> f32 {
    (1.0 + (n - df + 0.5).max(0.0) / (df + 0.5)).ln()
}

#[derive(Default)]
pub struct Bm25 {
    pub(crate) terms: HashMap<Box<str>, u32>,
    pub(crate) term_names: Vec<Box<str>>,
    /// Per term: (document, term frequency), documents ascending.
    pub(crate) postings: Vec<Vec<(u32, u32)>>,
    /// Per document: its record, or DEAD.
    pub(crate) doc_rec: Vec<u32>,
    pub(crate) doc_len: Vec<u32>,
    /// Per document: its account (the index's interned account string).
    pub(crate) doc_acct: Vec<u32>,
    /// Per document: its distinct terms, `doc_terms[end[d-1]..end[d]]` (`doc_term_end`), so that
    /// killing it takes it out of its account's document frequencies (emptied by `compact` once dead).
    pub(crate) doc_terms: Vec<u32>,
    pub(crate) doc_term_end: Vec<u64>,
    pub(crate) accounts: HashMap<u32, AccountStats>,
    pub(crate) live_docs: u64,
    pub(crate) live_len: u64,
    pub(crate) dead_postings: u64,
    pub(crate) total_postings: u64,
}

impl Bm25 {
    /// Indexes `text` for record `rec` of `account`; returns the new document number.
    pub fn add(&mut self, rec: u32, account: u32, text: &str) -> u32 {
        let doc = self.doc_rec.len() as u32;
        let toks = tokenize(text);
        let mut tf: HashMap<&str, u32> = HashMap::new();
        for t in &toks {
            *tf.entry(t.as_str()).or_insert(0) += 1;
        }
        let acct = self.accounts.entry(account).or_default();
        for (t, n) in tf {
            let tid = match self.terms.get(t) {
                Some(&id) => id,
                None => {
                    let id = self.term_names.len() as u32;
                    self.terms.insert(t.into(), id);
                    self.term_names.push(t.into());
                    self.postings.push(Vec::new());
                    id
                }
            };
            self.postings[tid as usize].push((doc, n));
            self.doc_terms.push(tid);
            *acct.df.entry(tid).or_insert(0) += 1;
            self.total_postings += 1;
        }
        acct.docs += 1;
        acct.len += toks.len() as u64;
        self.doc_rec.push(rec);
        self.doc_len.push(toks.len() as u32);
        self.doc_acct.push(account);
        self.doc_term_end.push(self.doc_terms.len() as u64);
        self.live_docs += 1;
        self.live_len += toks.len() as u64;
        doc
    }

    fn doc_term_range(&self, d: usize) -> std::ops::Range<usize> {
        let start = if d == 0 { 0 } else { self.doc_term_end[d - 1] as usize };
        start..self.doc_term_end[d] as usize
    }

    /// Takes a live document's counts out of (`into` false) or into (true) its account's statistics.
    fn count_doc(&mut self, d: usize, into: bool) {
        let range = self.doc_term_range(d);
        let acct = self.accounts.entry(self.doc_acct[d]).or_default();
        let dl = self.doc_len[d] as u64;
        if into {
            acct.docs += 1;
            acct.len += dl;
        } else {
            acct.docs -= 1;
            acct.len -= dl;
        }
        for &t in &self.doc_terms[range] {
            if into {
                *acct.df.entry(t).or_insert(0) += 1;
            } else if let Some(n) = acct.df.get_mut(&t) {
                *n -= 1;
                if *n == 0 {
                    acct.df.remove(&t);
                }
            }
        }
        if acct.docs == 0 {
            self.accounts.remove(&self.doc_acct[d]);
        }
    }

    /// Moves a live document to another account (its record's attributes changed).
    pub fn set_account(&mut self, doc: u32, account: u32) {
        let d = doc as usize;
        if d >= self.doc_rec.len() || self.doc_rec[d] == DEAD || self.doc_acct[d] == account {
            return;
        }
        self.count_doc(d, false);
        self.doc_acct[d] = account;
        self.count_doc(d, true);
    }

    /// Marks a document dead (its postings are skipped, then dropped by `compact`).
    pub fn kill(&mut self, doc: u32) {
        let d = doc as usize;
        if d >= self.doc_rec.len() || self.doc_rec[d] == DEAD {
            return;
        }
        self.count_doc(d, false);
        self.doc_rec[d] = DEAD;
        self.live_docs -= 1;
        self.live_len -= self.doc_len[d] as u64;
        self.dead_postings += self.doc_term_range(d).len() as u64;
        if self.dead_postings * 4 > self.total_postings && self.total_postings > 10_000 {
            self.compact();
        }
    }

    pub fn compact(&mut self) {
        let doc_rec = &self.doc_rec;
        let mut total = 0u64;
        for p in &mut self.postings {
            p.retain(|(d, _)| doc_rec[*d as usize] != DEAD);
            p.shrink_to_fit();
            total += p.len() as u64;
        }
        self.total_postings = total;
        self.dead_postings = 0;
        // Dead documents' term lists go too (their ranges become empty).
        let mut kept = Vec::with_capacity(total as usize);
        let mut start = 0usize;
        for d in 0..self.doc_rec.len() {
            let end = self.doc_term_end[d] as usize;
            if self.doc_rec[d] != DEAD {
                kept.extend_from_slice(&self.doc_terms[start..end]);
            }
            start = end;
            self.doc_term_end[d] = kept.len() as u64;
        }
        self.doc_terms = kept;
    }

    /// Rebuilds the per-account statistics and per-document terms from the postings and each live
    /// document's account (a loaded index: the file keeps neither).
    pub(crate) fn rebuild_accounts(&mut self, account_of_rec: impl Fn(u32) -> u32) {
        let n = self.doc_rec.len();
        self.doc_acct = self.doc_rec.iter().map(|&r| if r == DEAD { DEAD } else { account_of_rec(r) }).collect();
        self.accounts.clear();
        let mut count = vec![0u64; n];
        let mut dead = 0u64;
        for (t, p) in self.postings.iter().enumerate() {
            for &(d, _) in p {
                let d = d as usize;
                if self.doc_rec[d] == DEAD {
                    dead += 1;
                    continue;
                }
                count[d] += 1;
                *self.accounts.entry(self.doc_acct[d]).or_default().df.entry(t as u32).or_insert(0) += 1;
            }
        }
        self.dead_postings = dead;
        let mut end = 0u64;
        self.doc_term_end = count
            .iter()
            .map(|c| {
                end += c;
                end
            })
            .collect();
        // Terms in term order per document (postings are walked term by term).
        let mut fill: Vec<u64> = (0..n).map(|d| if d == 0 { 0 } else { self.doc_term_end[d - 1] }).collect();
        self.doc_terms = vec![0; end as usize];
        for (t, p) in self.postings.iter().enumerate() {
            for &(d, _) in p {
                let d = d as usize;
                if self.doc_rec[d] != DEAD {
                    self.doc_terms[fill[d] as usize] = t as u32;
                    fill[d] += 1;
                }
            }
        }
        for d in 0..n {
            if self.doc_rec[d] != DEAD {
                let a = self.accounts.entry(self.doc_acct[d]).or_default();
                a.docs += 1;
                a.len += self.doc_len[d] as u64;
            }
        }
    }

    /// The statistics of `qterms` (from `query_terms`) in `account`: terms the account has none
    /// of are left out (they score none of its documents).
    pub fn stats(&self, qterms: &[u32], account: u32) -> QueryStats {
        let Some(a) = self.accounts.get(&account).filter(|a| a.docs > 0) else {
            return QueryStats::default();
        };
        let n = a.docs as f32;
        let mut terms: Vec<(u32, u32)> = qterms.iter().filter_map(|&t| a.df.get(&t).map(|&df| (df, t))).collect();
        terms.sort_unstable();
        terms.dedup();
        QueryStats {
            terms: terms.into_iter().map(|(df, t)| (t, idf(n, df as f32))).collect(),
            avgdl: (a.len as f32 / n).max(1.0),
        }
    }

    /// Σ idf over distinct words in `account`, words it lacks at df 0 (see `query_idf_mass`).
    pub fn idf_mass(&self, words: &[String], account: u32) -> f32 {
        let a = self.accounts.get(&account);
        let n = a.map_or(0, |a| a.docs) as f32;
        words
            .iter()
            .map(|w| {
                let df = self.terms.get(w.as_str()).and_then(|t| a.and_then(|a| a.df.get(t))).copied().unwrap_or(0);
                idf(n, df as f32)
            })
            .sum()
    }

    /// The query's known terms (tokenized and stemmed like the documents), without repeats.
    pub fn query_terms(&self, query: &str) -> Vec<u32> {
        let mut q: Vec<u32> = tokenize(query).iter().filter_map(|t| self.terms.get(t.as_str()).copied()).collect();
        q.sort_unstable();
        q.dedup();
        q
    }

    /// Postings a walk over these terms would visit.
    pub fn postings_len(&self, qs: &QueryStats) -> usize {
        qs.terms.iter().map(|t| self.postings[t.0 as usize].len()).sum()
    }

    #[inline]
    fn term_score(&self, idf: f32, tf: u32, doc: u32, avgdl: f32) -> f32 {
        let dl = self.doc_len[doc as usize] as f32;
        let tf = tf as f32;
        idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * dl / avgdl))
    }

    /// Scores every live document of `account` matching a query term and admitted by `allow(rec)`.
    /// Returns (record, score); unordered.
    pub fn search(&self, query: &str, account: u32, allow: impl Fn(u32) -> bool) -> Vec<(u32, f32)> {
        let qs = self.stats(&self.query_terms(query), account);
        self.search_terms(&qs, allow, usize::MAX)
    }

    /// `search` with the statistics already looked up: walks each term's whole posting list.
    /// `max_matches` bounds how many documents `allow` can admit (the accumulator is a dense array
    /// over every document only when that many could match; a subtree filter keeps it small).
    /// `allow` admits only documents of the account the statistics are for.
    pub fn search_terms(&self, qs: &QueryStats, allow: impl Fn(u32) -> bool, max_matches: usize) -> Vec<(u32, f32)> {
        self.search_terms_by(qs, |_, rec| allow(rec), max_matches)
    }

    /// `search_terms` with `allow(document, record)`.
    fn search_terms_by(&self, qs: &QueryStats, allow: impl Fn(u32, u32) -> bool, max_matches: usize) -> Vec<(u32, f32)> {
        if qs.terms.is_empty() {
            return Vec::new();
        }
        let touched = self.postings_len(qs);
        if touched.min(max_matches) > self.doc_rec.len() / 16 {
            let mut acc = vec![0f32; self.doc_rec.len()];
            self.walk(qs, allow, |doc, _, s| acc[doc as usize] += s);
            acc.iter().enumerate().filter(|(_, s)| **s > 0.0).map(|(d, s)| (self.doc_rec[d], *s)).collect()
        } else {
            let mut acc: FxHashMap<u32, f32> = FxHashMap::default();
            self.walk(qs, allow, |doc, _, s| *acc.entry(doc).or_insert(0.0) += s);
            acc.into_iter().map(|(d, s)| (self.doc_rec[d as usize], s)).collect()
        }
    }

    /// Calls `f(doc, record, term score)` for every posting of the terms whose live document
    /// `allow(doc, record)` admits.
    fn walk(&self, qs: &QueryStats, allow: impl Fn(u32, u32) -> bool, mut f: impl FnMut(u32, u32, f32)) {
        let avgdl = qs.avgdl;
        for &(t, idf) in &qs.terms {
            for &(doc, tf) in &self.postings[t as usize] {
                let rec = self.doc_rec[doc as usize];
                if rec != DEAD && allow(doc, rec) {
                    f(doc, rec, self.term_score(idf, tf, doc, avgdl));
                }
            }
        }
    }

    /// Scores only the given live documents (of the statistics' account), by binary search in
    /// each term's postings (they are in document order): far cheaper than `search_terms` when a
    /// filter admits a few hundred documents and the query has common terms with long posting
    /// lists. Same scores.
    pub fn score_docs(&self, qs: &QueryStats, docs: &[u32]) -> Vec<(u32, f32)> {
        if qs.terms.is_empty() || docs.is_empty() {
            return Vec::new();
        }
        let mut acc = vec![0f32; docs.len()];
        for &(t, idf) in &qs.terms {
            let plist = &self.postings[t as usize];
            for (i, &doc) in docs.iter().enumerate() {
                if let Ok(at) = plist.binary_search_by_key(&doc, |p| p.0) {
                    acc[i] += self.term_score(idf, plist[at].1, doc, qs.avgdl);
                }
            }
        }
        docs.iter()
            .zip(acc)
            .filter(|(d, s)| *s > 0.0 && self.doc_rec[**d as usize] != DEAD)
            .map(|(d, s)| (self.doc_rec[*d as usize], s))
            .collect()
    }

    /// The `k` best documents `allow` admits (record, score; unordered) — the same documents and
    /// scores as taking the top `k` of `search_terms` — without walking the postings of the common
    /// terms when they cannot change the result (MaxScore): terms are walked rarest first (in the
    /// account: highest idf first); once `k` documents already score at least the most the
    /// unwalked terms could add up to (each term's score is below `idf·(K1+1)`, the account's
    /// idf), no unseen document can enter, and the documents seen get the remaining terms by
    /// binary search. Synthetic and real corpora have terms in most documents: at 100k documents
    /// their walk cost milliseconds per query.
    pub fn top_k(&self, qs: &QueryStats, k: usize, allow: impl Fn(u32) -> bool, max_matches: usize) -> Vec<(u32, f32)> {
        self.top_k_by(qs, k, |_, rec| allow(rec), max_matches)
    }

    /// `top_k` over every live document of `account`: the document's own account decides, so
    /// the caller needs no set of the account's records (building one, a bitset from the roaring
    /// bitmap, cost a fifth of a query at 10k records under wasm). Same documents and scores.
    pub fn top_k_in_account(&self, qs: &QueryStats, k: usize, account: u32, max_matches: usize) -> Vec<(u32, f32)> {
        self.top_k_by(qs, k, |doc, _| self.doc_acct[doc as usize] == account, max_matches)
    }

    fn top_k_by(&self, qs: &QueryStats, k: usize, allow: impl Fn(u32, u32) -> bool, max_matches: usize) -> Vec<(u32, f32)> {
        if qs.terms.is_empty() || k == 0 {
            return Vec::new();
        }
        let terms = &qs.terms;
        let keep_top = |mut v: Vec<(u32, f32)>| {
            if v.len() > k {
                v.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
                v.truncate(k);
            }
            v
        };
        let shortest = terms.iter().map(|t| self.postings[t.0 as usize].len()).min().unwrap_or(0);
        if shortest.min(max_matches) > self.doc_rec.len() / 16 {
            // Even the rarest term is in a large share of the documents: nothing to prune, and a
            // dense accumulator beats a map.
            return keep_top(self.search_terms_by(qs, allow, max_matches));
        }
        // rest[i]: the most terms i.. can add to a document.
        let mut rest = vec![0f32; terms.len() + 1];
        for i in (0..terms.len()).rev() {
            rest[i] = rest[i + 1] + terms[i].1 * (K1 + 1.0);
        }
        // Fx, not SipHash: the keys are the index's own document numbers, never chosen by a
        // client, and this map takes an insert or update per posting walked (a third of a
        // query's time under wasm with SipHash).
        let mut acc: FxHashMap<u32, f32> = FxHashMap::default();
        let mut walked = terms.len();
        for (i, &(t, idf)) in terms.iter().enumerate() {
            for &(doc, tf) in &self.postings[t as usize] {
                let rec = self.doc_rec[doc as usize];
                if rec == DEAD || !allow(doc, rec) {
                    continue;
                }
                *acc.entry(doc).or_insert(0.0) += self.term_score(idf, tf, doc, qs.avgdl);
            }
            if i + 1 < terms.len() && acc.len() >= k {
                let mut partial: Vec<f32> = acc.values().copied().collect();
                partial.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
                if partial[k - 1] >= rest[i + 1] {
                    walked = i + 1;
                    break;
                }
            }
        }
        let mut scored: Vec<(u32, f32)> = acc.into_iter().collect();
        if walked < terms.len() {
            for &(t, idf) in &terms[walked..] {
                let plist = &self.postings[t as usize];
                for (doc, s) in scored.iter_mut() {
                    if let Ok(at) = plist.binary_search_by_key(doc, |p| p.0) {
                        *s += self.term_score(idf, plist[at].1, *doc, qs.avgdl);
                    }
                }
            }
        }
        let scored = scored.into_iter().map(|(d, s)| (self.doc_rec[d as usize], s)).collect();
        keep_top(scored)
    }

    /// Adds the BM25 score of every admitted live document to `acc[record]` (one walk of the
    /// terms' postings; `acc` is indexed by record number).
    pub fn accumulate(&self, qs: &QueryStats, allow: impl Fn(u32) -> bool, acc: &mut [f32]) {
        self.walk(qs, |_, rec| allow(rec), |_, rec, s| acc[rec as usize] += s);
    }

    /// `accumulate` admitting every live document: no filter call per posting. When the filter
    /// would admit most records anyway, walking everything and clearing the few others is cheaper
    /// (the common terms of a query have postings in most documents: ~140,000 per query at 100k).
    /// Same scores, summed in the same term order. Documents of other accounts get scores by
    /// this account's statistics: the caller clears every record outside its candidates.
    pub fn accumulate_all(&self, qs: &QueryStats, acc: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            unsafe { self.accumulate_all_avx2(qs, acc) };
            return;
        }
        for &(t, idf) in &qs.terms {
            self.accumulate_postings(&self.postings[t as usize], idf, qs.avgdl, acc);
        }
    }

    /// One term's share of `accumulate_all`, a posting at a time.
    fn accumulate_postings(&self, postings: &[(u32, u32)], idf: f32, avgdl: f32, acc: &mut [f32]) {
        for &(doc, tf) in postings {
            let rec = self.doc_rec[doc as usize];
            if rec != DEAD {
                // The very expression of every other path, so scores agree to the bit.
                acc[rec as usize] += self.term_score(idf, tf, doc, avgdl);
            }
        }
    }

    /// `accumulate_all` scoring 8 postings per step: the two divisions of `term_score` were most of
    /// its cost (a quarter of all CPU of a find at 100k files, where a query's common terms have
    /// ~140,000 postings). The lanes compute `term_score`'s very operations in its order (IEEE
    /// single precision, no fused multiply-add), so every score is the scalar one to the bit;
    /// the sums run in the same posting order.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn accumulate_all_avx2(&self, qs: &QueryStats, acc: &mut [f32]) {
        use std::arch::x86_64::*;
        let avgdl = _mm256_set1_ps(qs.avgdl);
        let k1_plus_1 = _mm256_set1_ps(K1 + 1.0);
        let one_minus_b = _mm256_set1_ps(1.0 - B);
        let (k1, b) = (_mm256_set1_ps(K1), _mm256_set1_ps(B));
        // (doc, tf) pairs → docs in the low half, tfs in the high half.
        let split = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
        let doc_len = self.doc_len.as_ptr() as *const i32;
        let mut scores = [0f32; 8];
        let mut docs = [0u32; 8];
        for &(t, idf) in &qs.terms {
            let postings = &self.postings[t as usize][..];
            let idf_v = _mm256_set1_ps(idf);
            let whole = postings.len() / 8 * 8;
            for chunk in postings[..whole].chunks_exact(8) {
                let p = chunk.as_ptr() as *const __m256i;
                let lo = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(p), split);
                let hi = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(p.add(1)), split);
                let doc = _mm256_permute2x128_si256(lo, hi, 0x20);
                // Term frequencies and lengths are far below 2^24: exact in f32, signed or not.
                let tf = _mm256_cvtepi32_ps(_mm256_permute2x128_si256(lo, hi, 0x31));
                let dl = _mm256_cvtepi32_ps(_mm256_i32gather_epi32::<4>(doc_len, doc));
                let num = _mm256_mul_ps(_mm256_mul_ps(idf_v, tf), k1_plus_1);
                let norm = _mm256_add_ps(one_minus_b, _mm256_div_ps(_mm256_mul_ps(b, dl), avgdl));
                let score = _mm256_div_ps(num, _mm256_add_ps(tf, _mm256_mul_ps(k1, norm)));
                _mm256_storeu_ps(scores.as_mut_ptr(), score);
                _mm256_storeu_si256(docs.as_mut_ptr() as *mut __m256i, doc);
                for i in 0..8 {
                    let rec = self.doc_rec[docs[i] as usize];
                    if rec != DEAD {
                        acc[rec as usize] += scores[i];
                    }
                }
            }
            self.accumulate_postings(&postings[whole..], idf, qs.avgdl, acc);
        }
    }

    pub fn bytes(&self) -> usize {
        self.postings.iter().map(|p| p.capacity() * 8 + 24).sum::<usize>()
            + self.doc_rec.capacity() * 12
            + self.doc_terms.capacity() * 4
            + self.doc_term_end.capacity() * 8
            + self.accounts.values().map(|a| a.df.capacity() * 12 + 64).sum::<usize>()
            + self.term_names.iter().map(|t| t.len() * 2 + 48).sum::<usize>()
    }
}

#[cfg(test)]
#[path = "bm25_tests.rs"]
mod tests;
