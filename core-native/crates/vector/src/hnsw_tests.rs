//! The pure-Rust graph against exact search (recall, filters, visit budget), its file section
//! (round trip, damage), and a graph file written by the other build being refused, not misread.
use crate::hnsw::HnswIndex;
use crate::kernels::dot;
use crate::tests::{build, random_vectors, small_hnsw_cfg};
use crate::{load, save, Error, Kind};

fn exact_top(v: &[f32], d: usize, q: &[f32], k: usize, allow: impl Fn(i64) -> bool) -> Vec<i64> {
    let mut all: Vec<(f32, i64)> = v.chunks(d).enumerate().map(|(i, x)| (dot(q, x), i as i64)).filter(|x| allow(x.1)).collect();
    all.sort_by(|a, b| b.0.total_cmp(&a.0));
    all.into_iter().take(k).map(|x| x.1).collect()
}

fn recall(g: &HnswIndex, v: &[f32], d: usize, ef: usize, allow: &dyn Fn(i64) -> bool) -> f64 {
    let (mut found, mut total) = (0, 0);
    for qi in (0..v.len() / d).step_by(37).take(80) {
        let q = &v[qi * d..(qi + 1) * d];
        let got = g.hnsw_search_one(q, 10, ef, Some(allow), 0).unwrap();
        assert!(got.windows(2).all(|w| w[0].0 >= w[1].0), "best first");
        assert!(got.iter().all(|(_, l)| allow(*l)), "only admitted labels");
        let truth = exact_top(v, d, q, 10, allow);
        found += got.iter().filter(|(_, l)| truth.contains(l)).count();
        total += truth.len();
    }
    found as f64 / total as f64
}

#[test]
fn graph_built_one_by_one_and_in_parallel_batches_matches_exact_search() {
    let d = 32;
    let v = random_vectors(6000, d, 5);
    let mut g = HnswIndex::new_hnsw(d, 16, 64, 128).unwrap();
    // Small adds (one node at a time), then one large add on 4 threads (batched past 2048 nodes).
    for chunk in v[..1000 * d].chunks(13 * d) {
        g.add(chunk, 1).unwrap();
    }
    g.add(&v[1000 * d..], 4).unwrap();
    assert_eq!(g.len(), 6000);
    assert_eq!(g.vectors(), &v[..], "vectors kept in label order");
    let self_hit = (0..6000).step_by(101).all(|i| g.hnsw_search_one(&v[i * d..(i + 1) * d], 1, 64, None, 0).unwrap()[0].1 == i as i64);
    assert!(self_hit, "a stored vector is its own nearest neighbour");
    let r = recall(&g, &v, d, 128, &|_| true);
    assert!(r > 0.95, "recall@10 {r}");
    // A filter admitting a third of the labels: the walk goes through the others.
    let r = recall(&g, &v, d, 128, &|l| l % 3 == 0);
    assert!(r > 0.9, "filtered recall@10 {r}");
    // A visit budget stops the walk early but still returns admitted, ordered results.
    let q = &v[..d];
    let few = g.hnsw_search_one(q, 10, 128, None, 30).unwrap();
    assert!(!few.is_empty() && few.len() <= 10);
    assert!(g.hnsw_search_one(q, 0, 10, None, 0).is_err());
    assert!(g.hnsw_search_one(&q[..5], 3, 10, None, 0).is_err());
    assert!(g.add(&q[..5], 1).is_err());
    // FAISS's shape: k per query, -1 past the end; a bitmap filter.
    let (s, l) = g.search(&v[..2 * d], 3, Some(&[0b0000_0100u8][..]), 1).unwrap();
    assert_eq!(l, vec![2, -1, -1, 2, -1, -1]);
    assert_eq!(s[0], dot(&v[..d], &v[2 * d..3 * d]));
}

#[test]
fn graph_section_round_trips_and_damage_is_an_error() {
    let d = 8;
    let v = random_vectors(700, d, 9);
    let mut g = HnswIndex::new_hnsw(d, 8, 40, 50).unwrap();
    g.add(&v, 1).unwrap();
    let mut bytes = Vec::new();
    g.write_to(&mut bytes).unwrap();
    let h = HnswIndex::read_from(&mut bytes.as_slice()).unwrap();
    assert_eq!((h.len(), h.dim(), h.ef_search()), (700, 8, 50));
    let q = &v[40 * d..41 * d];
    assert_eq!(g.hnsw_search_one(q, 5, 50, None, 0).unwrap(), h.hnsw_search_one(q, 5, 50, None, 0).unwrap());
    let mut h = h;
    h.add(&random_vectors(10, d, 10), 1).unwrap();
    assert_eq!(h.len(), 710);
    // Truncated anywhere, a bad magic, a link past the end: errors, not panics.
    for cut in [0, 7, 20, 64, 64 + 700 * d * 4 + 3, bytes.len() - 1] {
        assert!(matches!(HnswIndex::read_from(&mut &bytes[..cut]), Err(Error::Corrupt(_))), "cut at {cut}");
    }
    let mut bad = bytes.clone();
    bad[0] = b'X';
    assert!(HnswIndex::read_from(&mut bad.as_slice()).is_err());
    let links = 8 + 7 * 8 + 700 * d * 4 + 700;
    let mut bad = bytes.clone();
    bad[links..links + 4].copy_from_slice(&5000u32.to_le_bytes());
    assert!(matches!(HnswIndex::read_from(&mut bad.as_slice()), Err(Error::Corrupt(_))));
    let empty = HnswIndex::new_hnsw(d, 8, 40, 50).unwrap();
    let mut b = Vec::new();
    empty.write_to(&mut b).unwrap();
    let e = HnswIndex::read_from(&mut b.as_slice()).unwrap();
    assert!(e.is_empty() && e.hnsw_search_one(q, 3, 10, None, 0).unwrap().is_empty());
}

/// A saved HNSW index names its graph in the kind byte (1 FAISS, 2 pure Rust): a file whose graph
/// the running build cannot read is `Incompatible` (the store rebuilds it from RocksDB), while a
/// flat file loads in either build.
#[test]
fn a_graph_written_by_the_other_build_is_refused_and_flat_files_load() {
    let dir = std::env::temp_dir().join(format!("ctxv-kind-{}", std::process::id()));
    let (idx, _) = build(1500, 16, 2, small_hnsw_cfg());
    assert_eq!(idx.kind(), Kind::Hnsw);
    let path = dir.join("g.idx");
    save(&idx, &path).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let own = bytes[16];
    assert_eq!(own, if cfg!(feature = "faiss") { 1 } else { 2 });
    assert_eq!(load(&path).unwrap().len(), 1500);
    bytes[16] = 3 - own;
    std::fs::write(&path, &bytes).unwrap();
    match load(&path) {
        Err(Error::Incompatible(m)) => assert!(m.contains("cannot read"), "{m}"),
        Err(e) => panic!("expected Incompatible, got {e}"),
        Ok(_) => panic!("expected Incompatible, got an index"),
    }
    let (flat, _) = build(50, 16, 1, small_hnsw_cfg());
    save(&flat, &path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap()[16], 0);
    assert_eq!(load(&path).unwrap().kind(), Kind::Flat);
    let _ = std::fs::remove_dir_all(&dir);
}
