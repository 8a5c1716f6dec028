//! Single-thread throughput of the local embedder on 2,000 × 1 KB texts from the retrieval
//! quality corpus, without Node in the way: `cargo run --release --example embed_perf -p ctx-core`.
use ctx_core::embed::{embed_batch, EmbedParams};
fn main() {
    let corpus = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../bench/retrieval-quality/corpus.txt")).unwrap();
    let paras: Vec<&str> = corpus.lines().filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('@')).collect();
    let mut seed: u32 = 7;
    let mut texts = Vec::new();
    for _ in 0..2000 {
        let mut t = String::new();
        while t.len() < 1024 { seed = seed.wrapping_mul(1103515245).wrapping_add(12345); t.push_str(paras[(seed as usize >> 8) % paras.len()]); t.push(' '); }
        let mut end = 1024; while !t.is_char_boundary(end) { end -= 1; }
        texts.push(t[..end].to_string());
    }
    let p = EmbedParams::default();
    let _ = embed_batch(&texts, p, 1).unwrap();
    let t0 = std::time::Instant::now();
    let mut cs = 0f64;
    for _ in 0..5 { let v = embed_batch(&texts, p, 1).unwrap(); cs += v.iter().map(|x| *x as f64).sum::<f64>(); }
    let el = t0.elapsed().as_secs_f64() / 5.0;
    println!("{:.1} us/text, {:.0} texts/s (1 thread) checksum {cs:.3}", el * 1e6 / 2000.0, 2000.0 / el);
}
