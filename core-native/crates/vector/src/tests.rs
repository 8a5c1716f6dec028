use super::*;
use crate::filter::parent_of;

/// Deterministic pseudo-random generator (xorshift64*), so tests need no crate.
pub(crate) struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    pub fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    pub fn gauss(&mut self) -> f32 {
        let u = self.unit().max(1e-7);
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f32::consts::TAU * v).cos()
    }
}

fn normalized(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    v.iter_mut().for_each(|x| *x /= n);
}

pub(crate) fn random_vectors(n: usize, d: usize, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    let mut out = vec![0f32; n * d];
    for c in out.chunks_mut(d) {
        c.iter_mut().for_each(|x| *x = rng.gauss());
        normalized(c);
    }
    out
}

fn id(i: usize) -> String {
    format!("{:032x}", i as u128 * 0x1234567 + 7)
}

fn attrs(account: &str, uri: &str, level: u8) -> RecordAttrs {
    RecordAttrs {
        account: account.into(),
        owner_space: String::new(),
        uri: uri.into(),
        parent_uri: parent_of(uri).unwrap_or("ctx://").into(),
        context_type: ContextType::Resource,
        level,
        tags: vec![],
        created_at: 1000,
        updated_at: 2000,
        peer: None,
    }
}

fn brute(idx: &VectorIndex, q: &[f32], k: usize, f: &Filter) -> Vec<String> {
    let cand = idx.candidates(f);
    idx.named(idx.scan_exact(q, k, &cand).unwrap()).unwrap().into_iter().map(|x| x.0).collect()
}

pub(crate) fn build(n: usize, d: usize, accounts: usize, cfg: Config) -> (VectorIndex, Vec<f32>) {
    let mut idx = VectorIndex::with_config(d, cfg).unwrap();
    let v = random_vectors(n, d, 42);
    let ids: Vec<String> = (0..n).map(id).collect();
    let at: Vec<RecordAttrs> = (0..n)
        .map(|i| {
            let mut a = attrs(&format!("acct{}", i % accounts), &format!("ctx://resources/d{}/f{}.md", i % 10, i), 2);
            a.tags = vec![format!("t={}", i % 3)];
            a.owner_space = if i % 2 == 0 { String::new() } else { "user:alice".into() };
            a.created_at = i as i64;
            a.updated_at = i as i64;
            a
        })
        .collect();
    let idr: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
    idx.upsert(&idr, &v, &at).unwrap();
    (idx, v)
}

#[test]
fn ids_round_trip_and_are_validated() {
    assert_eq!(format_id(parse_id("000000000000000000000000000000aB").unwrap()), "000000000000000000000000000000ab");
    assert!(parse_id("xyz").is_err());
    assert!(parse_id("0000000000000000000000000000000g").is_err());
}

#[test]
fn flat_search_is_exact_and_filters_by_account() {
    let (idx, v) = build(500, 32, 2, Config::default());
    assert_eq!(idx.kind(), Kind::Flat);
    let f = Filter::account("acct0");
    for qi in [0usize, 3, 8] {
        let q = &v[qi * 32..(qi + 1) * 32];
        let hits = idx.search(q, 10, &f, SearchOpts::default()).unwrap();
        assert_eq!(hits.iter().map(|h| h.0.clone()).collect::<Vec<_>>(), brute(&idx, q, 10, &f));
        for (h, _) in &hits {
            let (a, _) = idx.get(h).unwrap().unwrap();
            assert_eq!(a.account, "acct0");
        }
        if qi % 2 == 0 {
            assert_eq!(hits[0].0, id(qi));
            assert!((hits[0].1 - 1.0).abs() < 1e-5);
        }
    }
    assert!(idx.search(&v[..32], 5, &Filter::account("nobody"), SearchOpts::default()).unwrap().is_empty());
}

#[test]
fn the_quantized_scan_returns_the_exact_scans_top_k() {
    // Its float32 re-scoring covers a pool of max(4k, k+64) by the 8-bit score, chosen by one
    // selection: on 3,000 records (the hierarchical find's global pass over a 2,000-file tree asks
    // for k = 80 of about that many), queries unlike any record get exactly the exact scan's top k.
    let d = 256;
    let (idx, _) = build(3000, d, 1, Config::default());
    let cand = idx.candidates(&Filter::account("acct0"));
    let queries = random_vectors(60, d, 7);
    for (qi, q) in queries.chunks(d).enumerate() {
        for k in [10, 80, 200] {
            let quantized = idx.scan_quantized(q, k, &cand).unwrap();
            let exact = idx.scan_exact(q, k, &cand).unwrap();
            assert_eq!(quantized, exact, "query {qi}, k {k}");
        }
    }
}

#[test]
fn filters_combine() {
    let (idx, _) = build(300, 8, 1, Config::default());
    let mut f = Filter::account("acct0");
    assert_eq!(idx.count(&f), 300);
    f.uri_prefixes = Some(vec!["ctx://resources/d3".into()]);
    assert_eq!(idx.count(&f), 30);
    f.uri_prefixes = Some(vec!["ctx://resources/d3/".into(), "ctx://resources/d4".into()]);
    assert_eq!(idx.count(&f), 60);
    f.uri_prefixes = Some(vec!["ctx://resources/d3/f3.md".into()]);
    assert_eq!(idx.ids(&f, 10).unwrap(), vec![id(3)]);
    f.uri_prefixes = Some(vec!["ctx://resources/d3/f3".into()]);
    assert_eq!(idx.count(&f), 0, "prefixes match whole path segments");
    f.uri_prefixes = Some(vec!["ctx://".into()]);
    assert_eq!(idx.count(&f), 300);
    f.uri_prefixes = None;
    f.exclude_uri_prefixes = vec!["ctx://resources/d0".into()];
    assert_eq!(idx.count(&f), 270);
    f.exclude_uri_prefixes.clear();
    f.tags = vec!["t=1".into()];
    assert_eq!(idx.count(&f), 100);
    f.tags = vec!["t=1".into(), "t=2".into()];
    assert_eq!(idx.count(&f), 0);
    f.tags = vec![];
    f.owner_spaces = Some(vec!["user:alice".into()]);
    assert_eq!(idx.count(&f), 150);
    f.owner_spaces = Some(vec!["user:alice".into(), "".into()]);
    assert_eq!(idx.count(&f), 300);
    f.owner_spaces = None;
    f.since = Some(100);
    f.until = Some(199);
    assert_eq!(idx.count(&f), 100);
    f.time_field = TimeField::CreatedAt;
    f.until = None;
    assert_eq!(idx.count(&f), 200);
    f.since = None;
    f.levels = Some(vec![0, 1]);
    assert_eq!(idx.count(&f), 0);
    f.levels = Some(vec![2]);
    f.context_types = Some(vec!["memory".into()]);
    assert_eq!(idx.count(&f), 0);
    f.context_types = Some(vec!["resource".into()]);
    assert_eq!(idx.count(&f), 300);
    f.peer = Some("p1".into());
    assert_eq!(idx.count(&f), 0);
}

#[test]
fn directory_records_match_their_own_prefix() {
    let mut idx = VectorIndex::new(4).unwrap();
    let v = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0];
    idx.upsert(&[&id(1), &id(2)], &v, &[attrs("a", "ctx://resources/docs", 0), attrs("a", "ctx://resources/docs/x.md", 2)]).unwrap();
    let mut f = Filter::account("a");
    f.uri_prefixes = Some(vec!["ctx://resources/docs".into()]);
    assert_eq!(idx.count(&f), 2);
    f.uri_prefixes = Some(vec!["ctx://resources/docs/x.md".into()]);
    assert_eq!(idx.ids(&f, 10).unwrap(), vec![id(2)]);
}

#[test]
fn update_and_remove() {
    let (mut idx, v) = build(200, 16, 1, Config::default());
    let f = Filter::account("acct0");
    // Move record 5 to a new vector and a new account.
    let target = &v[7 * 16..8 * 16];
    idx.upsert(&[&id(5)], target, &[attrs("acct0", "ctx://resources/new.md", 2)]).unwrap();
    let hits = idx.search(target, 2, &f, SearchOpts::default()).unwrap();
    let top: Vec<&str> = hits.iter().map(|h| h.0.as_str()).collect();
    assert!(top.contains(&id(5).as_str()) && top.contains(&id(7).as_str()));
    let mut p = Filter::account("acct0");
    p.uri_prefixes = Some(vec!["ctx://resources/d5".into()]);
    assert!(!idx.ids(&p, 100).unwrap().contains(&id(5)), "old attributes are unindexed");
    assert_eq!(idx.remove(&[&id(5), &id(7), &id(100_000)]).unwrap(), 2);
    assert_eq!(idx.len(), 198);
    let hits = idx.search(target, 5, &f, SearchOpts::default()).unwrap();
    assert!(hits.iter().all(|h| h.0 != id(5) && h.0 != id(7)));
    assert!(idx.get(&id(5)).unwrap().is_none());
    let mut g = Filter::account("acct0");
    g.tags = vec!["t=0".into()];
    let n = idx.count(&g);
    assert_eq!(idx.remove_where(&g), n as usize);
    assert_eq!(idx.count(&g), 0);
    assert_eq!(idx.len(), 198 - n as usize);
}

pub(crate) fn small_hnsw_cfg() -> Config {
    Config { flat_threshold: 1000, exact_max_candidates: 200, build_threads: 2, ..Config::default() }
}

#[test]
fn hnsw_recall_tombstones_and_compaction() {
    let d = 24;
    let (mut idx, v) = build(3000, d, 2, small_hnsw_cfg());
    assert_eq!(idx.kind(), Kind::Hnsw);
    let f = Filter::account("acct1");
    let mut found = 0;
    let mut total = 0;
    for qi in 0..40 {
        let q = &v[qi * d..(qi + 1) * d];
        let (hits, plan) = idx.search_plan(q, 10, &f, SearchOpts { ef: Some(128), exact: false }).unwrap();
        assert_eq!(plan, Plan::Graph);
        let truth = brute(&idx, q, 10, &f);
        found += hits.iter().filter(|h| truth.contains(&h.0)).count();
        total += 10;
        for (h, _) in &hits {
            assert_eq!(idx.get(h).unwrap().unwrap().0.account, "acct1");
        }
    }
    assert!(found as f64 / total as f64 > 0.9, "recall {found}/{total}");
    // Selective filter → exact scan of the candidates.
    let mut sel = Filter::account("acct1");
    sel.uri_prefixes = Some(vec!["ctx://resources/d1".into()]);
    sel.tags = vec!["t=0".into()];
    assert_eq!(idx.count(&sel), 100);
    let (hits, plan) = idx.search_plan(&v[..d], 10, &sel, SearchOpts::default()).unwrap();
    assert!(matches!(plan, Plan::Exact | Plan::ExactQuantized));
    assert_eq!(hits.iter().map(|h| h.0.clone()).collect::<Vec<_>>(), brute(&idx, &v[..d], 10, &sel));
    // Updates with a new vector tombstone the old slot.
    let ids: Vec<String> = (0..1000).map(id).collect();
    let idr: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
    let nv = random_vectors(1000, d, 7);
    let at: Vec<RecordAttrs> = (0..1000).map(|i| attrs(&format!("acct{}", i % 2), &format!("ctx://r/{i}"), 2)).collect();
    idx.upsert(&idr, &nv, &at).unwrap();
    assert_eq!(idx.stats().deleted, 1000);
    assert_eq!(idx.len(), 3000);
    let q = &nv[4 * d..5 * d];
    let hits = idx.search(q, 1, &Filter::account("acct0"), SearchOpts::default()).unwrap();
    assert_eq!(hits[0].0, id(4));
    idx.compact().unwrap();
    assert_eq!(idx.stats().deleted, 0);
    assert_eq!(idx.kind(), Kind::Hnsw);
    let hits = idx.search(q, 1, &Filter::account("acct0"), SearchOpts::default()).unwrap();
    assert_eq!(hits[0].0, id(4));
    assert_eq!(idx.count(&Filter::account("acct0")) + idx.count(&Filter::account("acct1")), 3000);
}

#[test]
fn bm25_and_hybrid() {
    let mut idx = VectorIndex::new(4).unwrap();
    let v = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    idx.upsert(
        &[&id(1), &id(2), &id(3)],
        &v,
        &[attrs("a", "ctx://resources/1", 2), attrs("a", "ctx://resources/2", 2), attrs("b", "ctx://resources/3", 2)],
    )
    .unwrap();
    idx.upsert_text(&[&id(1), &id(2), &id(3)], &["rust vector index", "the quick brown fox", "rust rust rust"]).unwrap();
    assert!(idx.upsert_text(&[&id(9)], &["x"]).is_err());
    let hits = idx.search_text("rust", 10, &Filter::account("a")).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].0, id(1));
    assert!(idx.search_text("fox", 10, &Filter::account("b")).unwrap().is_empty());
    idx.upsert_text(&[&id(1)], &["completely different"]).unwrap();
    assert!(idx.search_text("rust", 10, &Filter::account("a")).unwrap().is_empty());
    let h = idx.hybrid_search(&[0.0, 1.0, 0.0, 0.0], "different", 10, &Filter::account("a"), DenseWeight::Fixed(0.5)).unwrap();
    assert_eq!(h.len(), 2);
    assert!(h.iter().all(|x| (0.0..=1.0).contains(&x.1)));
    assert!((h[0].1 - 0.5).abs() < 1e-6 && (h[1].1 - 0.5).abs() < 1e-6);
    idx.remove(&[&id(1)]).unwrap();
    assert!(idx.search_text("different", 10, &Filter::account("a")).unwrap().is_empty());
}

#[test]
fn save_load_round_trip_and_corruption() {
    let dir = std::env::temp_dir().join(format!("ctxv-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (n, cfg) in [(300usize, Config::default()), (1500, small_hnsw_cfg())] {
        let d = 16;
        let (mut idx, v) = build(n, d, 3, cfg);
        idx.remove(&[&id(2)]).unwrap();
        let ids: Vec<String> = (0..n).filter(|i| *i != 2).map(id).collect();
        let idr: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
        let texts: Vec<String> = (0..ids.len()).map(|i| format!("doc number {i} about topic{}", i % 5)).collect();
        let tr: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
        idx.upsert_text(&idr, &tr).unwrap();
        let path = dir.join(format!("idx-{n}.bin"));
        save(&idx, &path).unwrap();
        let back = load(&path).unwrap();
        assert_eq!(back.len(), idx.len());
        assert_eq!(back.kind(), idx.kind());
        for acct in ["acct0", "acct1", "acct2"] {
            let f = Filter::account(acct);
            assert_eq!(back.count(&f), idx.count(&f));
            let q = &v[5 * d..6 * d];
            assert_eq!(back.search(q, 5, &f, SearchOpts::default()).unwrap(), idx.search(q, 5, &f, SearchOpts::default()).unwrap());
            assert_eq!(back.search_text("topic3", 5, &f).unwrap(), idx.search_text("topic3", 5, &f).unwrap());
        }
        assert_eq!(back.get(&id(7)).unwrap(), idx.get(&id(7)).unwrap());
        // Flip one byte in the middle → checksum error, not a crash.
        let mut bytes = std::fs::read(&path).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x40;
        std::fs::write(&path, &bytes).unwrap();
        let e = load(&path).err().unwrap();
        assert_eq!(e.code(), "VECTOR_INDEX_CORRUPT", "{e}");
        bytes.truncate(bytes.len() - 30);
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(load(&path).err().unwrap().code(), "VECTOR_INDEX_CORRUPT");
    }
    assert!(matches!(load(&dir.join("missing")), Err(Error::Io(_))));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn invalid_input_is_rejected_without_changes() {
    let mut idx = VectorIndex::new(4).unwrap();
    let a = attrs("a", "ctx://resources/x", 2);
    assert!(idx.upsert(&[&id(1)], &[1.0, 2.0], &[a.clone()]).is_err());
    assert!(idx.upsert(&[&id(1)], &[1.0, f32::NAN, 0.0, 0.0], &[a.clone()]).is_err());
    assert!(idx.upsert(&["nothex"], &[1.0, 0.0, 0.0, 0.0], &[a.clone()]).is_err());
    let mut bad = a.clone();
    bad.account = String::new();
    assert!(idx.upsert(&[&id(1)], &[1.0, 0.0, 0.0, 0.0], &[bad]).is_err());
    assert_eq!(idx.len(), 0);
    assert!(idx.search(&[1.0, 0.0], 1, &Filter::account("a"), SearchOpts::default()).is_err());
    assert!(idx.search(&[1.0, 0.0, 0.0, 0.0], 0, &Filter::account("a"), SearchOpts::default()).is_err());
}

/// Every live record is found exactly by its own vector, with the expected account.
fn assert_each_finds_itself(idx: &VectorIndex, vecs: &HashMap<String, (String, Vec<f32>)>) {
    for (i, (acct, v)) in vecs {
        let hits = idx.search(v, 1, &Filter::account(acct), SearchOpts { ef: Some(200), exact: true }).unwrap();
        assert_eq!(&hits[0].0, i, "record {i} must be its own nearest neighbour");
        assert!((hits[0].1 - 1.0).abs() < 1e-4);
    }
}

#[test]
fn background_compaction_keeps_changes_made_while_it_builds() {
    let d = 16;
    let cfg = Config { flat_threshold: 400, exact_max_candidates: 50, build_threads: 2, ..Config::default() };
    let mut idx = VectorIndex::with_config(d, cfg).unwrap();
    let v = random_vectors(600, d, 11);
    let mut live: HashMap<String, (String, Vec<f32>)> = HashMap::new();
    let ids: Vec<String> = (0..600).map(id).collect();
    let at: Vec<RecordAttrs> = (0..600).map(|i| attrs(&format!("acct{}", i % 2), &format!("ctx://resources/c/{i}"), 2)).collect();
    let idr: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
    // Deferred upserts keep the store flat past the threshold.
    idx.upsert_deferred(&idr, &v, &at).unwrap();
    for i in 0..600 {
        live.insert(id(i), (format!("acct{}", i % 2), v[i * d..(i + 1) * d].to_vec()));
    }
    assert_eq!(idx.kind(), Kind::Flat);
    assert!(idx.needs_compaction());

    idx.compaction_begin().unwrap();
    assert!(idx.compaction_begin().is_err(), "one compaction at a time");
    assert!(!idx.needs_compaction());
    let snap = idx.compaction_snapshot().unwrap();
    // Meanwhile: new records, new vectors for old ones, removals, an attribute-only update.
    let nv = random_vectors(60, d, 12);
    let new_ids: Vec<String> = (600..620).chain(0..20).chain(100..120).map(id).collect();
    let new_at: Vec<RecordAttrs> = (600..620).chain(0..20).chain(100..120).map(|i| attrs(&format!("acct{}", i % 2), &format!("ctx://resources/c/{i}"), 2)).collect();
    let nr: Vec<&str> = new_ids.iter().map(|s| s.as_str()).collect();
    idx.upsert_deferred(&nr, &nv, &new_at).unwrap();
    for (j, i) in (600..620).chain(0..20).chain(100..120).enumerate() {
        live.insert(id(i), (format!("acct{}", i % 2), nv[j * d..(j + 1) * d].to_vec()));
    }
    let gone: Vec<String> = (200..230).map(id).collect();
    let gr: Vec<&str> = gone.iter().map(|s| s.as_str()).collect();
    assert_eq!(idx.remove(&gr).unwrap(), 30);
    for g in &gone {
        live.remove(g);
    }
    let mut tagged = attrs("acct1", "ctx://resources/c/301", 2);
    tagged.tags = vec!["k=v".into()];
    idx.upsert_deferred(&[id(301).as_str()], &v[301 * d..302 * d], &[tagged]).unwrap();
    // Searches still answer from the old store while the new one is built.
    assert_each_finds_itself(&idx, &live);

    let mut built = compaction_build(snap).unwrap();
    // Catch-up outside the exclusive section: 20 new + 40 re-vectored records appended.
    let changes = idx.compaction_changes();
    assert_eq!(changes.len(), 20 + 40 + 30);
    built.apply(changes).unwrap();
    assert!(idx.compaction_changes().is_empty(), "taken once");
    // Changes after the catch-up: a caught-up record re-vectored, another removed, one more added.
    let more = random_vectors(2, d, 13);
    let a600 = attrs("acct0", "ctx://resources/c/600", 2);
    let a650 = attrs("acct0", "ctx://resources/c/650", 2);
    idx.upsert_deferred(&[id(600).as_str(), id(650).as_str()], &more, &[a600, a650]).unwrap();
    live.insert(id(600), ("acct0".into(), more[..d].to_vec()));
    live.insert(id(650), ("acct0".into(), more[d..].to_vec()));
    idx.remove(&[id(5).as_str()]).unwrap();
    live.remove(&id(5));
    idx.compaction_finish(built).unwrap();
    assert!(!idx.compacting());
    assert_eq!(idx.kind(), Kind::Hnsw);
    assert_eq!(idx.len(), live.len());
    // Tombstones: the snapshot rows of the 40 re-vectored and 30 removed records, and the
    // caught-up rows of 600 (re-vectored again) and 5 (removed).
    assert_eq!(idx.stats().deleted, 72);
    assert_each_finds_itself(&idx, &live);
    let mut f = Filter::account("acct1");
    f.tags = vec!["k=v".into()];
    assert_eq!(idx.count(&f), 1);
    for g in &gone {
        assert!(idx.get(g).unwrap().is_none());
    }
    // Later changes go on against the installed graph, and a plain compaction still works.
    idx.upsert(&[id(700).as_str()], &v[..d], &[attrs("acct0", "ctx://resources/c/700", 2)]).unwrap();
    live.insert(id(700), ("acct0".into(), v[..d].to_vec()));
    idx.compact().unwrap();
    assert_eq!(idx.stats().deleted, 0);
    assert_each_finds_itself(&idx, &live);
}

#[test]
fn aborted_background_compaction_leaves_the_index_as_it_was() {
    let d = 8;
    let (mut idx, v) = build(300, d, 1, Config { flat_threshold: 100, build_threads: 1, ..Config::default() });
    idx.compaction_begin().unwrap();
    idx.remove(&[id(3).as_str()]).unwrap();
    idx.compaction_abort();
    assert!(!idx.compacting());
    assert!(idx.get(&id(3)).unwrap().is_none());
    let hits = idx.search(&v[5 * d..6 * d], 1, &Filter::account("acct0"), SearchOpts { ef: None, exact: true }).unwrap();
    assert_eq!(hits[0].0, id(5));
}

/// `n` records of account "a" with random `d`-dim vectors (seed), spread over `dirs` directories
/// (`ctx://resources/d{i % dirs}/f{i}`), record i's text `text(i)`. Returns the index, the vectors and the ids.
fn text_index(idx: VectorIndex, n: usize, seed: u64, dirs: usize, text: impl Fn(usize) -> String) -> (VectorIndex, Vec<f32>, Vec<String>) {
    let mut idx = idx;
    let v = random_vectors(n, idx.dim, seed);
    let ids: Vec<String> = (0..n).map(id).collect();
    let idr: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
    let at: Vec<RecordAttrs> = (0..n).map(|i| attrs("a", &format!("ctx://resources/d{}/f{i}", i % dirs), 2)).collect();
    idx.upsert(&idr, &v, &at).unwrap();
    let texts: Vec<String> = (0..n).map(text).collect();
    let tr: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
    idx.upsert_text(&idr, &tr).unwrap();
    (idx, v, ids)
}

#[test]
fn bm25_candidate_scoring_matches_the_posting_walk() {
    let n = 3000;
    let (mut idx, _, ids) = text_index(VectorIndex::new(4).unwrap(), n, 5, 100, |i| format!("common words everywhere w{} w{} common", i % 7, i % 11));
    // Churn: a re-written text leaves a dead document behind.
    idx.upsert_text(&[ids[3].as_str()], &["w3 only now"]).unwrap();
    let mut f = Filter::account("a");
    f.uri_prefixes = Some(vec!["ctx://resources/d3".into()]);
    let cand = idx.candidates(&f);
    assert_eq!(cand.len(), 30);
    for q in ["common w3", "w5 w8 everywhere", "w3", "nothing"] {
        let qterms = idx.query_stats(q, "a");
        // The index picks the per-candidate path for 30 candidates against thousands of postings.
        assert!(cand.len() as usize * qterms.terms.len() * 12 < idx.bm25.postings_len(&qterms) || qterms.is_empty());
        let mut walked = idx.bm25.search_terms(&qterms, &|r| cand.contains(r), usize::MAX);
        let mut docs: Vec<u32> = cand.iter().map(|r| idx.recs[r as usize].as_ref().unwrap().doc).collect();
        docs.sort_unstable();
        let mut scored = idx.bm25.score_docs(&qterms, &docs);
        walked.sort_by_key(|x| x.0);
        scored.sort_by_key(|x| x.0);
        assert_eq!(walked.len(), scored.len(), "query {q}");
        for (a, b) in walked.iter().zip(&scored) {
            assert_eq!(a.0, b.0);
            assert!((a.1 - b.1).abs() < 1e-5, "query {q}: {} vs {}", a.1, b.1);
        }
        let top = idx.search_text(q, 5, &f).unwrap();
        assert!(top.iter().all(|(i, _)| idx.get(i).unwrap().unwrap().0.uri.starts_with("ctx://resources/d3/")));
    }
}

fn hier_params() -> HierParams {
    HierParams { propagation: 0.7, max_expansions: 6, stable_rounds: 2, global_k_min: 20, nav_k: 8, alpha: DenseWeight::Fixed(0.6) }
}

#[test]
fn hierarchical_search_expands_directories_and_stays_in_scope() {
    let d = 16;
    let mut idx = VectorIndex::new(d).unwrap();
    let mut rng_v = random_vectors(400, d, 21);
    // Two accounts with the same tree: 8 directories x 20 files, plus each directory's L0 record,
    // whose vector is the mean of its files (as an abstract summarizes its children).
    let mut ids = Vec::new();
    let mut at = Vec::new();
    let mut vs: Vec<f32> = Vec::new();
    for acct in ["a", "b"] {
        for dir in 0..8 {
            let mut mean = vec![0f32; d];
            for f in 0..20 {
                let i = ids.len();
                let v: Vec<f32> = rng_v[(i % 400) * d..(i % 400 + 1) * d].to_vec();
                mean.iter_mut().zip(&v).for_each(|(m, x)| *m += x);
                ids.push(format!("{:032x}", ids.len() + 1));
                at.push(attrs(acct, &format!("ctx://resources/d{dir}/f{f}.md"), 2));
                vs.extend_from_slice(&v);
            }
            normalized(&mut mean);
            ids.push(format!("{:032x}", ids.len() + 1));
            at.push(attrs(acct, &format!("ctx://resources/d{dir}"), 0));
            vs.extend_from_slice(&mean);
        }
    }
    let idr: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
    idx.upsert(&idr, &vs, &at).unwrap();
    let texts: Vec<String> = at.iter().map(|a| format!("note {}", a.uri.rsplit('/').next().unwrap())).collect();
    let tr: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
    idx.upsert_text(&idr, &tr).unwrap();
    rng_v.truncate(0);

    // Query: a file of account a's d3.
    let target = 3 * 21 + 5; // d3/f5 in account a
    let q = vs[target * d..(target + 1) * d].to_vec();
    let scope = Filter::account("a");
    let r = idx.hierarchical_search(&q, "note f5.md", 5, &[scope.clone()], &[scope.clone()], &hier_params()).unwrap();
    assert_eq!(r.hits[0].id, ids[target], "the file itself ranks first");
    assert!(r.hits.windows(2).all(|w| w[0].score >= w[1].score));
    assert!(r.hits.iter().all(|h| (0.0..=1.0).contains(&h.score) && h.score >= h.raw - 1e-6));
    assert!(r.global_hits > 0 && r.navigation_hits > 0);
    assert!(!r.expanded.is_empty() && r.rounds == r.expanded.len());
    assert!(["stable", "max_expansions", "frontier_exhausted", "frontier_below_topk"].contains(&r.stop_reason));
    for h in &r.hits {
        let (a, _) = idx.get(&h.id).unwrap().unwrap();
        assert_eq!(a.account, "a", "never another account");
        if let Some((via, s)) = &h.via {
            // A directory's own records are in its subtree: they can be lifted through it too.
            assert!(a.uri == *via || a.uri.starts_with(&format!("{via}/")), "lifted only through itself or an ancestor");
            assert!(h.score > h.raw && (0.0..=1.0).contains(s));
        }
    }
    // A target restricts both the hits and the directories expanded.
    let mut sub = Filter::account("a");
    sub.uri_prefixes = Some(vec!["ctx://resources/d6".into()]);
    let r = idx.hierarchical_search(&q, "note f5.md", 5, &[sub.clone()], &[sub], &hier_params()).unwrap();
    assert!(!r.hits.is_empty());
    for h in &r.hits {
        assert!(idx.get(&h.id).unwrap().unwrap().0.uri.starts_with("ctx://resources/d6"));
    }
    assert!(r.expanded.iter().all(|e| e.uri.starts_with("ctx://resources/d6")));
    // Leaves only (level 2) with navigation over the whole account: directories are expanded
    // but never returned.
    let mut leaves = Filter::account("b");
    leaves.levels = Some(vec![2]);
    let r = idx.hierarchical_search(&q, "note", 10, &[leaves], &[Filter::account("b")], &hier_params()).unwrap();
    assert_eq!(r.hits.len().min(10), 10);
    assert!(r.hits.iter().all(|h| idx.get(&h.id).unwrap().unwrap().0.level == 2));
    // An unknown account or an empty scope finds nothing.
    let none = idx.hierarchical_search(&q, "note", 5, &[Filter::account("zz")], &[Filter::account("zz")], &hier_params()).unwrap();
    assert!(none.hits.is_empty() && none.stop_reason == "no_hits");
    let bad = HierParams { alpha: DenseWeight::Fixed(1.5), ..hier_params() };
    assert!(idx.hierarchical_search(&q, "x", 5, &[scope.clone()], &[scope.clone()], &bad).is_err());
    assert!(idx.hierarchical_prepare("x", &[scope.clone()], &[scope.clone()], &bad).is_err());

    // Prepared before the vector is known, finished with it: the same result as one call.
    let adaptive = HierParams { alpha: DenseWeight::Adaptive(0.8, 0.95), ..hier_params() };
    for (i, text) in ["note f5.md", "note", "f12.md d3", "nothing matches"].into_iter().enumerate() {
        let q = vs[(i * 37) * d..(i * 37 + 1) * d].to_vec();
        for p in [hier_params(), adaptive.clone()] {
            let one = idx.hierarchical_search(&q, text, 5, &[scope.clone()], &[scope.clone()], &p).unwrap();
            let prep = idx.hierarchical_prepare(text, &[scope.clone()], &[scope.clone()], &p).unwrap().unwrap();
            assert_eq!(prep.size(), 168);
            let two = idx.hierarchical_search_prepared(&q, 5, &prep, &p).unwrap();
            let key = |r: &crate::HierResult| r.hits.iter().map(|h| (h.id.clone(), h.score.to_bits(), h.raw.to_bits(), h.via.clone().map(|v| (v.0, v.1.to_bits())))).collect::<Vec<_>>();
            assert_eq!(key(&one), key(&two), "{text}");
            assert_eq!((one.rounds, one.stop_reason, one.global_hits, one.navigation_hits), (two.rounds, two.stop_reason, two.global_hits, two.navigation_hits));
        }
    }
    assert!(idx.hierarchical_prepare("note", &[Filter::account("zz")], &[Filter::account("zz")], &hier_params()).unwrap().is_none());
    // A prepared search is refused by an index that has grown since (the caller then searches anew).
    let prep = idx.hierarchical_prepare("note", &[scope.clone()], &[scope.clone()], &hier_params()).unwrap().unwrap();
    let extra = format!("{:032x}", ids.len() + 1);
    idx.upsert(&[&extra], &q, &[attrs("a", "ctx://resources/d9/x.md", 2)]).unwrap();
    assert!(idx.hierarchical_search_prepared(&q, 5, &prep, &hier_params()).is_err());
}

#[test]
fn bm25_top_k_prunes_common_terms_without_changing_the_result() {
    // "everywhere" is in every document, "often" in half, rare words in a few, with varying tf
    // and lengths so scores differ.
    let (idx, _, _) = text_index(VectorIndex::new(4).unwrap(), 5000, 9, 20, |i| {
        let mut t = format!("everywhere {} r{} ", if i % 2 == 0 { "often often" } else { "" }, i % 97);
        for _ in 0..(i % 7) {
            t.push_str("filler ");
        }
        if i % 11 == 0 {
            t.push_str("everywhere ");
        }
        t
    });
    let everything = |_: u32| true;
    for q in ["everywhere often r5", "r5 r6 everywhere", "everywhere", "often everywhere", "r1 r2 r3 r4 often"] {
        let qterms = idx.query_stats(q, "a");
        for k in [1usize, 10, 80] {
            let mut full = idx.bm25.search_terms(&qterms, &everything, usize::MAX);
            full.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let kth = full[k.min(full.len()) - 1].1;
            let mut got = idx.bm25.top_k(&qterms, k, &everything, usize::MAX);
            got.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            assert_eq!(got.len(), k.min(full.len()), "{q} k={k}");
            // Same scores, and the same documents up to ties at the k-th score.
            for (g, f) in got.iter().zip(&full) {
                assert!((g.1 - f.1).abs() < 1e-4, "{q} k={k}: {} vs {}", g.1, f.1);
            }
            for (r, s) in &got {
                let exact = full.iter().find(|x| x.0 == *r).unwrap().1;
                assert!((exact - s).abs() < 1e-4 && *s >= kth - 1e-4);
            }
        }
        // Through the index, with a subtree filter (bitset and roaring paths, per-candidate path).
        for prefix in ["ctx://resources", "ctx://resources/d3"] {
            let mut f = Filter::account("a");
            f.uri_prefixes = Some(vec![prefix.into()]);
            let cand = idx.candidates(&f);
            let mut full = idx.bm25.search_terms(&qterms, &|r| cand.contains(r), usize::MAX);
            full.sort_by(|a, b| b.1.total_cmp(&a.1));
            let top = idx.search_text(q, 10, &f).unwrap();
            for (i, (_, s)) in top.iter().enumerate() {
                assert!((full[i].1 - s).abs() < 1e-4, "{q} {prefix}: rank {i}");
            }
        }
    }
}

/// With no dense weight the fused ranking is BM25's alone, whether or not the dense search runs;
/// when fewer than k records match any query word, the dense side still fills the rest (at score 0).
#[test]
fn a_zero_dense_weight_ranks_by_bm25_and_still_fills_from_the_dense_side() {
    let d = 8;
    let (idx, v, _) = text_index(VectorIndex::with_config(d, small_hnsw_cfg()).unwrap(), 3000, 5, 10, |i| {
        let mut t = format!("common {} ", if i % 3 == 0 { "third" } else { "other" });
        (0..i % 13).for_each(|_| t.push_str("pad "));
        if i % 1000 == 7 {
            t.push_str("scarce ");
        }
        t
    });
    let scope = Filter::account("a");
    let p = HierParams { alpha: DenseWeight::Fixed(0.0), ..hier_params() };
    let q = v[..d].to_vec();
    for text in ["third common", "common"] {
        let r = idx.hierarchical_search(&q, text, 10, &[scope.clone()], &[], &p).unwrap();
        let lexical = idx.search_text(text, 10, &scope).unwrap();
        let max = lexical[0].1;
        for (h, (lid, ls)) in r.hits.iter().zip(&lexical) {
            assert!((h.score - ls / max).abs() < 1e-6, "{text}: {} vs {}", h.score, ls / max);
            // Records tied on BM25 may come in either order; a different score may not.
            if h.id != *lid {
                assert!((idx.search_text(text, 3000, &scope).unwrap().iter().find(|x| x.0 == h.id).unwrap().1 - ls).abs() < 1e-6);
            }
        }
    }
    // Three records hold "scarce": they lead, and the dense neighbours still fill the top.
    let r = idx.hierarchical_search(&q, "scarce", 10, &[scope.clone()], &[], &p).unwrap();
    assert!(r.hits.len() >= 10, "{} hits", r.hits.len());
    let scarce: Vec<String> = [7, 1007, 2007].iter().map(|&i| id(i)).collect();
    assert!(r.hits[..3].iter().all(|h| scarce.contains(&h.id) && h.score > 0.0));
    assert!(r.hits[3..].iter().all(|h| h.score == 0.0));
}

/// Whether or not the dense search runs (it is skipped when no record outside the BM25 top can
/// reach the top k), the fused top k is that of the union of the dense and BM25 top `pool_k`, every
/// member scored `alpha · clamp(cos) + (1 − alpha) · bm25 / max_bm25`, at weights from 0 to 0.9.
#[test]
fn the_fused_top_k_is_the_pools_whether_or_not_the_dense_search_runs() {
    let (d, n) = (16, 2000);
    let (idx, v, ids) = text_index(VectorIndex::new(d).unwrap(), n, 77, 10, |i| {
        let mut t = String::from("common ");
        (0..i % 4).for_each(|_| t.push_str(if i % 3 == 0 { "alpha " } else { "pad " }));
        if i % 7 == 0 {
            t.push_str("beta beta ");
        }
        (0..i % 11).for_each(|_| t.push_str("filler "));
        t
    });
    let scope = Filter::account("a");
    let row = |s: &str| ids.iter().position(|x| x == s).unwrap();
    // The reference: the union of the exact dense top and the BM25 top, fused exhaustively.
    let pools = |q: &[f32], text: &str, alpha: f32, pool_k: usize| -> Vec<f32> {
        let bm: HashMap<String, f32> = idx.search_text(text, n, &scope).unwrap().into_iter().collect();
        let max_b = bm.values().fold(0f32, |m, &b| m.max(b));
        let mut pool: Vec<String> = idx.search_text(text, pool_k, &scope).unwrap().into_iter().map(|x| x.0).collect();
        pool.extend(brute(&idx, q, pool_k, &scope));
        pool.sort();
        pool.dedup();
        let mut fused: Vec<f32> = pool
            .iter()
            .map(|r| {
                let i = row(r);
                let dn = crate::kernels::dot(q, &v[i * d..(i + 1) * d]).clamp(0.0, 1.0);
                (alpha * dn + (1.0 - alpha) * bm.get(r).map_or(0.0, |b| b / max_b)).clamp(0.0, 1.0)
            })
            .collect();
        fused.sort_by(|a, b| b.total_cmp(a));
        fused
    };
    // Queries near records without the query words (1: no "alpha", no "beta"), so dense-only
    // records belong in the top k once the dense weight is large enough.
    for (target, text) in [(1usize, "alpha beta"), (2, "common alpha"), (4, "beta"), (3, "alpha")] {
        let q = v[target * d..(target + 1) * d].to_vec();
        for alpha in [0.0f32, 0.05, 0.15, 0.3, 0.6, 0.9] {
            // find: global k = max(2 · 10, 20), pools of 4k.
            let expected = pools(&q, text, alpha, 80);
            let p = HierParams { alpha: DenseWeight::Fixed(alpha), ..hier_params() };
            let got = idx.hierarchical_search(&q, text, 10, &[scope.clone()], &[], &p).unwrap();
            assert!(got.hits.len() >= 10);
            for (i, h) in got.hits.iter().take(10).enumerate() {
                assert!((h.score - expected[i]).abs() < 1e-6, "{text} alpha {alpha} rank {i}: {} vs {}", h.score, expected[i]);
            }
            let expected = pools(&q, text, alpha, 40);
            let flat = idx.hybrid_search(&q, text, 10, &scope, DenseWeight::Fixed(alpha)).unwrap();
            assert_eq!(flat.len(), 10);
            for (i, (_, s)) in flat.iter().enumerate() {
                assert!((s - expected[i]).abs() < 1e-6, "flat {text} alpha {alpha} rank {i}: {s} vs {}", expected[i]);
            }
        }
    }
}

/// Small adds to a graph go through the shim's incremental path (persistent per-vertex locks, SIMD
/// distances); large ones through FAISS's parallel add. A graph grown both ways, and again after a
/// save/load (which starts with no lock table), finds what an exact scan finds.
#[cfg(feature = "faiss")]
#[test]
fn small_graph_adds_build_the_same_quality_of_graph_as_faiss_add() {
    use crate::ffi::{shim_dot, FaissIndex};
    let d = 32;
    let v = random_vectors(4000, d, 11);
    let mut g = FaissIndex::new_hnsw(d, 16, 64, 128).unwrap();
    g.add(&v[..2000 * d], 1).unwrap(); // FAISS's add (more than the incremental limit)
    for chunk in v[2000 * d..3000 * d].chunks(16 * d) {
        g.add(chunk, 1).unwrap();
    }
    let mut bytes = Vec::new();
    g.write_to(&mut bytes).unwrap();
    let mut g = FaissIndex::read_from(&mut bytes.as_slice()).unwrap();
    for chunk in v[3000 * d..].chunks(7 * d) {
        g.add(chunk, 1).unwrap();
    }
    assert_eq!(g.len(), 4000);
    let (mut found, mut total) = (0, 0);
    for qi in (0..4000).step_by(50) {
        let q = &v[qi * d..(qi + 1) * d];
        let got = g.hnsw_search_one(q, 10, 128, None, 0).unwrap();
        assert_eq!(got[0].1, qi as i64, "a stored vector is its own nearest neighbour");
        let mut exact: Vec<(f32, i64)> = v.chunks(d).enumerate().map(|(i, x)| (shim_dot(q, x), i as i64)).collect();
        exact.sort_by(|a, b| b.0.total_cmp(&a.0));
        found += got.iter().filter(|(_, l)| exact[..10].iter().any(|e| e.1 == *l)).count();
        total += 10;
    }
    assert!(found as f64 / total as f64 > 0.95, "recall {found}/{total}");
}
