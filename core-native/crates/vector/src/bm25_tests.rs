//! The fast BM25 paths against their plain definitions on random data: the unfiltered walk, the
//! dense-candidate `bm25_all`, `sparse_top` over a score array and the MaxScore `top_k` must give
//! the very scores (to the bit) and the very records of an exhaustive scoring.
use roaring::RoaringBitmap;

use crate::bm25::{tokenize, Bm25, QueryStats, B, DEAD, K1};
use crate::search::sparse_top;
use crate::tests::Rng;
use crate::{ContextType, RecordAttrs, VectorIndex};

/// A Zipf-like vocabulary: a few words in most documents (the case the fast paths are for), a long
/// tail of rare ones.
fn random_text(rng: &mut Rng, words: usize) -> String {
    let len = 5 + (rng.next() % 60) as usize;
    (0..len)
        .map(|_| {
            let u = rng.unit();
            format!("w{}", ((u * u * u) * words as f32) as usize)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `n` records of account 0, with another account's (1) documents among them: its postings are
/// in the lists the fast paths walk.
fn random_bm25(n: usize, seed: u64) -> Bm25 {
    let mut rng = Rng::new(seed);
    let mut b = Bm25::default();
    for r in 0..n as u32 {
        b.add(r, 0, &random_text(&mut rng, 400));
        if r % 3 == 0 {
            b.add(n as u32 + r / 3, 1, &random_text(&mut rng, 400));
        }
    }
    // Replaced texts leave dead documents behind (not yet compacted).
    for r in (0..n as u32).step_by(7) {
        let doc = (0..b.doc_rec.len()).find(|&d| b.doc_rec[d] == r).unwrap() as u32;
        b.kill(doc);
        b.add(r, 0, &random_text(&mut rng, 400));
    }
    b
}

/// Records of `random_bm25`: account 0's are `0..n`, account 1's `n..all(n)`.
fn all(n: usize) -> usize {
    n + n / 3 + 1
}

fn random_query(rng: &mut Rng) -> String {
    let n = 1 + rng.next() % 5;
    (0..n).map(|_| format!("w{}", { let u = rng.unit(); ((u * u) * 420.0) as usize })).collect::<Vec<_>>().join(" ")
}

/// Every record with its exhaustive score (the definition: each posting scored and summed in term order).
fn exhaustive(b: &Bm25, qs: &QueryStats, n: usize, allow: &dyn Fn(u32) -> bool) -> Vec<f32> {
    let mut acc = vec![0f32; n];
    b.accumulate(qs, allow, &mut acc);
    acc
}

#[test]
fn the_unfiltered_walk_scores_every_live_document_exactly() {
    let n = 3000;
    let b = random_bm25(n, 1);
    let mut rng = Rng::new(2);
    for _ in 0..50 {
        let qt = b.stats(&b.query_terms(&random_query(&mut rng)), 0);
        let mut fast = vec![0f32; all(n)];
        b.accumulate_all(&qt, &mut fast[..]);
        let slow = exhaustive(&b, &qt, all(n), &|r| (r as usize) < n);
        assert!(fast[..n].iter().zip(&slow).all(|(a, b)| a.to_bits() == b.to_bits()));
    }
}

#[test]
fn max_score_top_k_is_the_exhaustive_top_k() {
    let n = 4000;
    let b = random_bm25(n, 3);
    let mut rng = Rng::new(4);
    for i in 0..60 {
        let qt = b.stats(&b.query_terms(&random_query(&mut rng)), 0);
        let k = [1, 5, 10, 40, 200][i % 5];
        // Half the queries filtered to a random subset, half to all of the account.
        let keep: Vec<bool> = (0..n).map(|r| i % 2 == 0 || (r * 2654435761) % 3 != 0).collect();
        let allow = |r: u32| (r as usize) < n && keep[r as usize];
        let mut got = b.top_k(&qt, k, &allow, n);
        let all = exhaustive(&b, &qt, n, &allow);
        let mut want: Vec<(u32, f32)> = all.iter().enumerate().filter(|(_, s)| **s > 0.0).map(|(r, s)| (r as u32, *s)).collect();
        want.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        got.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        assert_eq!(got.len(), want.len().min(k));
        // The same scores in the same order; records may differ only among exact ties at the cut.
        for (g, w) in got.iter().zip(&want) {
            assert!((g.1 - w.1).abs() <= 1e-5 * w.1.max(1.0), "query {i}: {g:?} vs {w:?}");
        }
        for g in &got {
            // Every path sums the terms in the statistics' order: the very same bits.
            assert_eq!(all[g.0 as usize].to_bits(), g.1.to_bits(), "query {i}: {g:?} is not its exhaustive score");
        }
    }
}

/// The plain definition of `sparse_top`: iterate the candidates in order through a `TopK`.
fn sparse_reference(scores: &[f32], cand: &RoaringBitmap, k: usize) -> (Vec<(f32, u32)>, f32) {
    let mut top = crate::search::TopK::new(k);
    let mut max_b = 0f32;
    for r in cand.iter() {
        let b = scores[r as usize];
        if b > 0.0 {
            max_b = max_b.max(b);
            top.push(b, r);
        }
    }
    (top.into_sorted(), max_b)
}

#[test]
fn sparse_top_matches_iterating_the_candidates_ties_included() {
    let mut rng = Rng::new(5);
    for i in 0..40 {
        let n = 500 + (rng.next() % 5000) as usize;
        // Few distinct values so ties at the cut are common; a third of the records score 0.
        let scores: Vec<f32> = (0..n).map(|_| if rng.next() % 3 == 0 { 0.0 } else { (rng.next() % 20) as f32 * 0.25 }).collect();
        let share = [1, 2, 3, 10, 50][i % 5];
        let cand: RoaringBitmap = (0..n as u32).filter(|r| (r.wrapping_mul(2654435761) >> 7) % share == 0).collect();
        for k in [1, 10, 80, 10_000] {
            assert_eq!(sparse_top(&scores, &cand, k), sparse_reference(&scores, &cand, k), "n {n}, share 1/{share}, k {k}");
        }
    }
    assert_eq!(sparse_top(&[], &RoaringBitmap::new(), 5), (vec![], 0.0));
}

fn attrs(account: &str, i: usize) -> RecordAttrs {
    RecordAttrs {
        account: account.into(),
        owner_space: String::new(),
        uri: format!("ctx://resources/d{}/f{i}.md", i % 7),
        parent_uri: format!("ctx://resources/d{}", i % 7),
        context_type: ContextType::Resource,
        level: 2,
        tags: vec![],
        created_at: 0,
        updated_at: 0,
        peer: None,
    }
}

#[test]
fn bm25_all_over_most_records_equals_the_filtered_walk() {
    let n = 2000;
    let mut idx = VectorIndex::new(4).unwrap();
    let ids: Vec<String> = (0..n).map(|i| format!("{:032x}", i + 1)).collect();
    let id_refs: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
    // Two accounts: a scope of one is a minority of the records, of the other nearly all.
    let at: Vec<RecordAttrs> = (0..n).map(|i| attrs(if i % 10 == 0 { "b" } else { "a" }, i)).collect();
    let vecs: Vec<f32> = (0..n * 4).map(|i| ((i * 37) % 11) as f32 + 1.0).collect();
    idx.upsert(&id_refs, &vecs, &at).unwrap();
    let mut rng = Rng::new(6);
    let texts: Vec<String> = (0..n).map(|_| random_text(&mut rng, 300)).collect();
    let text_refs: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
    idx.upsert_text(&id_refs, &text_refs).unwrap();
    // Some records lose their text (dead documents, records without a document).
    let gone: Vec<&str> = id_refs.iter().step_by(13).copied().collect();
    idx.upsert_text(&gone, &vec![""; gone.len()]).unwrap();
    let scopes = [("a", idx.candidates(&crate::Filter::account("a"))), ("b", idx.candidates(&crate::Filter::account("b")))];
    for _ in 0..30 {
        let q = random_query(&mut rng);
        for (acct, cand) in &scopes {
            let qt = idx.query_stats(&q, acct);
            let got = idx.bm25_all(&qt, cand);
            let want = exhaustive(&idx.bm25, &qt, idx.recs.len(), &|r| cand.contains(r));
            assert!(got.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "scope of {} records", cand.len());
        }
    }
}

/// The per-account statistics recounted from the postings of the live documents: (documents,
/// total length, df per term) per account.
type Recount = std::collections::BTreeMap<u32, (u64, u64, std::collections::BTreeMap<u32, u32>)>;

fn recount(b: &Bm25) -> Recount {
    let mut out = Recount::new();
    for (d, &r) in b.doc_rec.iter().enumerate() {
        if r != DEAD {
            let e = out.entry(b.doc_acct[d]).or_default();
            e.0 += 1;
            e.1 += b.doc_len[d] as u64;
        }
    }
    for (t, p) in b.postings.iter().enumerate() {
        for &(d, _) in p {
            if b.doc_rec[d as usize] != DEAD {
                *out.get_mut(&b.doc_acct[d as usize]).unwrap().2.entry(t as u32).or_insert(0) += 1;
            }
        }
    }
    out
}

fn kept(b: &Bm25) -> Recount {
    b.accounts.iter().map(|(a, s)| (*a, (s.docs, s.len, s.df.iter().map(|(t, n)| (*t, *n)).collect()))).collect()
}

#[test]
fn kill_compact_and_moves_keep_each_accounts_statistics_exact() {
    let n = 3000;
    let mut b = random_bm25(n, 21);
    assert_eq!(kept(&b), recount(&b));
    assert_eq!(b.accounts.len(), 2);
    // Kill a third of each account's documents, move some to a third account.
    let docs = b.doc_rec.len() as u32;
    for d in (0..docs).step_by(3) {
        b.kill(d);
    }
    assert_eq!(kept(&b), recount(&b));
    for d in (1..docs).step_by(5) {
        b.set_account(d, 7);
    }
    assert_eq!(kept(&b), recount(&b));
    assert!(b.accounts.contains_key(&7));
    b.compact();
    assert_eq!(b.dead_postings, 0);
    assert_eq!(kept(&b), recount(&b));
    // The per-document term lists survive compaction: killing after it still comes out right.
    for d in (2..docs).step_by(4) {
        b.kill(d);
    }
    assert_eq!(kept(&b), recount(&b));
    // Killing every document of an account leaves no statistics behind.
    for d in 0..docs {
        if b.doc_acct[d as usize] == 7 {
            b.kill(d);
        }
    }
    assert!(!b.accounts.contains_key(&7));
    assert_eq!(kept(&b), recount(&b));
    // Statistics rebuilt from nothing but the postings and the documents' accounts (a load).
    let acct: Vec<u32> = b.doc_acct.clone();
    let doc_of: std::collections::HashMap<u32, usize> = b.doc_rec.iter().enumerate().filter(|(_, r)| **r != DEAD).map(|(d, r)| (*r, d)).collect();
    let want = kept(&b);
    let terms = b.doc_terms.clone();
    let old_end = b.doc_term_end.clone();
    b.rebuild_accounts(|r| acct[doc_of[&r]]);
    assert_eq!(kept(&b), want);
    let end = b.doc_term_end.clone();
    for (d, &r) in b.doc_rec.iter().enumerate() {
        if r != DEAD {
            let mut x = terms[if d == 0 { 0 } else { old_end[d - 1] as usize }..old_end[d] as usize].to_vec();
            let mut y = b.doc_terms[if d == 0 { 0 } else { end[d - 1] as usize }..end[d] as usize].to_vec();
            x.sort_unstable();
            y.sort_unstable();
            assert_eq!(x, y, "document {d}");
        }
    }
}

/// BM25 of one account's live texts from scratch: its own documents, df, N and average length.
fn reference(texts: &[String], query: &str) -> Vec<f32> {
    let docs: Vec<Vec<String>> = texts.iter().map(|t| tokenize(t)).collect();
    let n = docs.len() as f32;
    let avgdl = (docs.iter().map(|d| d.len()).sum::<usize>() as f32 / n).max(1.0);
    let mut q = tokenize(query);
    q.sort_unstable();
    q.dedup();
    docs.iter()
        .map(|d| {
            q.iter()
                .map(|w| {
                    let df = docs.iter().filter(|x| x.contains(w)).count() as f32;
                    let tf = d.iter().filter(|x| *x == w).count() as f32;
                    if tf == 0.0 {
                        return 0.0;
                    }
                    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * d.len() as f32 / avgdl))
                })
                .sum()
        })
        .collect()
}

fn index_of(accounts: &[(&str, usize)], seed: u64) -> (VectorIndex, Vec<(String, String)>) {
    let mut idx = VectorIndex::new(4).unwrap();
    let mut rng = Rng::new(seed);
    let mut rows = Vec::new();
    for (acct, count) in accounts {
        for i in 0..*count {
            rows.push((format!("{:016x}{:016x}", acct.len() as u64 * 1_000_003 + acct.as_bytes()[0] as u64, i + 1), acct.to_string(), random_text(&mut rng, 300)));
        }
    }
    add_rows(&mut idx, &rows);
    (idx, rows.into_iter().map(|(id, _, t)| (id, t)).collect())
}

fn add_rows(idx: &mut VectorIndex, rows: &[(String, String, String)]) {
    let ids: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    let at: Vec<RecordAttrs> = rows.iter().enumerate().map(|(i, r)| attrs(&r.1, i)).collect();
    let vecs: Vec<f32> = (0..rows.len() * 4).map(|i| ((i * 37) % 11) as f32 + 1.0).collect();
    idx.upsert(&ids, &vecs, &at).unwrap();
    let texts: Vec<&str> = rows.iter().map(|r| r.2.as_str()).collect();
    idx.upsert_text(&ids, &texts).unwrap();
}

#[test]
fn an_accounts_scores_are_those_of_a_bm25_over_its_documents_alone() {
    let (mut idx, rows) = index_of(&[("a", 300), ("b", 900)], 31);
    // Churn in both accounts: replaced and removed texts.
    let mut rng = Rng::new(32);
    let mut live: std::collections::HashMap<String, String> = rows.iter().cloned().collect();
    for (id, _) in rows.iter().step_by(9) {
        let t = random_text(&mut rng, 300);
        idx.upsert_text(&[id], &[&t]).unwrap();
        live.insert(id.clone(), t);
    }
    for (id, _) in rows.iter().skip(4).step_by(11) {
        idx.remove(&[id]).unwrap();
        live.remove(id);
    }
    for acct in ["a", "b"] {
        let cand = idx.candidates(&crate::Filter::account(acct));
        let recs: Vec<u32> = cand.iter().collect();
        let texts: Vec<String> = recs.iter().map(|&r| live[&crate::format_id(idx.recs[r as usize].as_ref().unwrap().id)].clone()).collect();
        for _ in 0..20 {
            let q = random_query(&mut rng);
            let want = reference(&texts, &q);
            let got = idx.bm25_all(&idx.query_stats(&q, acct), &cand);
            for (i, &r) in recs.iter().enumerate() {
                let g = got[r as usize];
                assert!((g - want[i]).abs() <= 1e-5 * want[i].max(1.0), "{acct} {q:?}: {g} vs {}", want[i]);
            }
        }
    }
}

#[test]
fn top_k_in_account_is_top_k_over_the_accounts_records() {
    let (mut idx, rows) = index_of(&[("a", 200), ("b", 700)], 41);
    let mut rng = Rng::new(42);
    for (id, _) in rows.iter().step_by(7) {
        idx.upsert_text(&[id], &[&random_text(&mut rng, 300)]).unwrap();
    }
    for (id, _) in rows.iter().skip(3).step_by(13) {
        idx.remove(&[id]).unwrap();
    }
    for acct in ["a", "b"] {
        let cand = idx.candidates(&crate::Filter::account(acct));
        let a = idx.strings.get(acct).unwrap();
        for _ in 0..30 {
            let qs = idx.query_stats(&random_query(&mut rng), acct);
            let bits = |v: Vec<(u32, f32)>| v.into_iter().map(|(r, s)| (r, s.to_bits())).collect::<Vec<_>>();
            let want = top_sig(bits(idx.bm25.top_k(&qs, 10, |r| cand.contains(r), cand.len() as usize)));
            assert_eq!(top_sig(bits(idx.bm25.top_k_in_account(&qs, 10, a, cand.len() as usize))), want, "{acct}");
        }
    }
}

/// A top-k list up to ties at the cut (which of equal-scored records makes it is arbitrary):
/// records tied with the lowest score are anonymous.
fn top_sig(v: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    let low = v.iter().map(|x| f32::from_bits(x.1)).fold(f32::INFINITY, f32::min);
    let mut v: Vec<(u32, u32)> = v.into_iter().map(|(r, s)| (if f32::from_bits(s) == low { u32::MAX } else { r }, s)).collect();
    v.sort_unstable();
    v
}

/// Everything an account's searches compute from BM25, for a few queries.
fn snapshot(idx: &VectorIndex, acct: &str, queries: &[String]) -> Vec<Vec<(u32, u32)>> {
    let cand = idx.candidates(&crate::Filter::account(acct));
    let f = crate::Filter::account(acct);
    let mut out = Vec::new();
    for q in queries {
        let qs = idx.query_stats(q, acct);
        let bits = |v: Vec<(u32, f32)>| {
            let mut v: Vec<(u32, u32)> = v.into_iter().map(|(r, s)| (r, s.to_bits())).collect();
            v.sort_unstable();
            v
        };
        let allow = |r: u32| cand.contains(r);
        out.push(bits(idx.bm25.search_terms(&qs, &allow, usize::MAX)));
        let mut docs: Vec<u32> = cand.iter().map(|r| idx.recs[r as usize].as_ref().unwrap().doc).filter(|d| *d != crate::NONE).collect();
        docs.sort_unstable();
        out.push(bits(idx.bm25.score_docs(&qs, &docs)));
        out.push(top_sig(bits(idx.bm25.top_k(&qs, 10, &allow, cand.len() as usize))));
        let mut acc = vec![0f32; idx.recs.len()];
        idx.bm25.accumulate_all(&qs, &mut acc);
        out.push(bits(cand.iter().map(|r| (r, acc[r as usize])).collect()));
        out.push(bits(cand.iter().map(|r| (r, idx.bm25_all(&qs, &cand)[r as usize])).collect()));
        out.push(top_sig(idx.search_text(q, 10, &f).unwrap().into_iter().map(|(id, s)| (idx.by_id[&crate::parse_id(&id).unwrap()], s.to_bits())).collect()));
        let h = idx.hybrid_search(&[1.0, 2.0, 3.0, 4.0], q, 10, &f, Default::default()).unwrap();
        out.push(top_sig(h.into_iter().map(|(id, s)| (idx.by_id[&crate::parse_id(&id).unwrap()], s.to_bits())).collect()));
        out.push(vec![(0, idx.query_idf_mass(q, idx.strings.get(acct).unwrap()).to_bits())]);
    }
    out
}

#[test]
fn another_accounts_documents_leave_an_accounts_scores_bit_identical() {
    let (mut idx, _) = index_of(&[("a", 400)], 41);
    let mut rng = Rng::new(42);
    let mut queries: Vec<String> = (0..15).map(|_| random_query(&mut rng)).collect();
    queries.push("w1 w2 w3 newword".into());
    let before = snapshot(&idx, "a", &queries);
    // Account b: many documents holding the queries' words (and words a has never seen).
    let rows: Vec<(String, String, String)> = (0..1500)
        .map(|i| (format!("{:032x}", 0xb000_0000u64 + i), "b".to_string(), format!("w1 w2 w3 w5 newword {} {}", random_text(&mut rng, 60), queries[i as usize % queries.len()])))
        .collect();
    add_rows(&mut idx, &rows);
    assert_eq!(snapshot(&idx, "a", &queries), before);
    // And b's churn: removals, compaction.
    let gone: Vec<&str> = rows.iter().step_by(2).map(|r| r.0.as_str()).collect();
    idx.remove(&gone).unwrap();
    idx.bm25.compact();
    assert_eq!(snapshot(&idx, "a", &queries), before);
    // Sanity: b's words do move b's own scores, and a word only b has scores nothing in a.
    assert!(idx.search_text("newword", 10, &crate::Filter::account("a")).unwrap().is_empty());
    assert!(!idx.search_text("newword", 10, &crate::Filter::account("b")).unwrap().is_empty());
}

#[test]
fn save_and_load_give_identical_per_account_scores() {
    let (mut idx, rows) = index_of(&[("a", 500), ("b", 700)], 51);
    let mut rng = Rng::new(52);
    for (id, _) in rows.iter().step_by(6) {
        idx.upsert_text(&[id], &[&random_text(&mut rng, 300)]).unwrap();
    }
    let gone: Vec<&str> = rows.iter().skip(1).step_by(10).map(|r| r.0.as_str()).collect();
    idx.remove(&gone).unwrap();
    let queries: Vec<String> = (0..12).map(|_| random_query(&mut rng)).collect();
    let dir = std::env::temp_dir().join(format!("ctxv-bm25acct-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("idx.bin");
    crate::persist::save(&idx, &path).unwrap();
    let back = crate::persist::load(&path).unwrap();
    assert_eq!(kept(&back.bm25), kept(&idx.bm25));
    for acct in ["a", "b"] {
        let (x, y) = (snapshot(&back, acct, &queries), snapshot(&idx, acct, &queries));
        for (i, (p, q)) in x.iter().zip(&y).enumerate() {
            assert_eq!(p, q, "account {acct}, item {i}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
