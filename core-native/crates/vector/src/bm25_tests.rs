//! The fast BM25 paths against their plain definitions on random data: the unfiltered walk, the
//! dense-candidate `bm25_all`, `sparse_top` over a score array and the MaxScore `top_k` must give
//! the very scores (to the bit) and the very records of an exhaustive scoring.
use roaring::RoaringBitmap;

use crate::bm25::Bm25;
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

fn random_bm25(n: usize, seed: u64) -> Bm25 {
    let mut rng = Rng::new(seed);
    let mut b = Bm25::default();
    for r in 0..n as u32 {
        b.add(r, &random_text(&mut rng, 400));
    }
    // Replaced texts leave dead documents behind (not yet compacted).
    for r in (0..n as u32).step_by(7) {
        let doc = (0..b.doc_rec.len()).find(|&d| b.doc_rec[d] == r).unwrap() as u32;
        b.kill(doc);
        b.add(r, &random_text(&mut rng, 400));
    }
    b
}

fn random_query(rng: &mut Rng) -> String {
    let n = 1 + rng.next() % 5;
    (0..n).map(|_| format!("w{}", { let u = rng.unit(); ((u * u) * 420.0) as usize })).collect::<Vec<_>>().join(" ")
}

/// Every record with its exhaustive score (the definition: each posting scored and summed in term order).
fn exhaustive(b: &Bm25, qterms: &[u32], n: usize, allow: &dyn Fn(u32) -> bool) -> Vec<f32> {
    let mut acc = vec![0f32; n];
    b.accumulate(qterms, allow, &mut acc);
    acc
}

#[test]
fn the_unfiltered_walk_scores_every_live_document_exactly() {
    let n = 3000;
    let b = random_bm25(n, 1);
    let mut rng = Rng::new(2);
    for _ in 0..50 {
        let qt = b.query_terms(&random_query(&mut rng));
        let mut fast = vec![0f32; n];
        b.accumulate_all(&qt, &mut fast);
        let slow = exhaustive(&b, &qt, n, &|_| true);
        assert!(fast.iter().zip(&slow).all(|(a, b)| a.to_bits() == b.to_bits()));
    }
}

#[test]
fn max_score_top_k_is_the_exhaustive_top_k() {
    let n = 4000;
    let b = random_bm25(n, 3);
    let mut rng = Rng::new(4);
    for i in 0..60 {
        let qt = b.query_terms(&random_query(&mut rng));
        let k = [1, 5, 10, 40, 200][i % 5];
        // Half the queries filtered to a random subset, half to everything.
        let keep: Vec<bool> = (0..n).map(|r| i % 2 == 0 || (r * 2654435761) % 3 != 0).collect();
        let allow = |r: u32| keep[r as usize];
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
            assert!((all[g.0 as usize] - g.1).abs() <= 1e-5 * g.1.max(1.0), "query {i}: {g:?} is not its exhaustive score");
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
    // Two accounts: a scope of one is a minority of the records, both together nearly all.
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
    let scopes = [idx.candidates(&crate::Filter::account("a")), idx.candidates(&crate::Filter::account("b")), (0..n as u32).collect::<RoaringBitmap>()];
    for _ in 0..30 {
        let qt = idx.bm25.query_terms(&random_query(&mut rng));
        for cand in &scopes {
            let got = idx.bm25_all(&qt, cand);
            let want = exhaustive(&idx.bm25, &qt, idx.recs.len(), &|r| cand.contains(r));
            assert!(got.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "scope of {} records", cand.len());
        }
    }
}
