//! HNSW insertion cost and recall at the plugin's parameters (M 32, efConstruction 64, efSearch
//! 160), inserting in chunks of 16 on one thread as the retrieval store does after compaction:
//!   cargo run --release -p ctx-vector --example hnsw_insert [-- N]
//! Vectors: 384-d, 200 clusters (topic-like neighbourhoods); recall@10 against an exact scan.
use std::time::Instant;

use ctx_vector::ffi::{shim_dot, FaissIndex};

/// CPU seconds of this process (user + system), from /proc: wall time means little on a shared
/// machine.
fn cpu_s() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let f: Vec<&str> = s.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let t = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (t(11) + t(12)) / 100.0
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(30_000);
    let d = 384;
    let mut seed = 0x9E3779B97F4A7C15u64;
    let mut unit = move || {
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        ((seed.wrapping_mul(0x2545F4914F6CDD1D) >> 40) as f32 / (1u64 << 24) as f32) - 0.5
    };
    let centres: Vec<f32> = (0..200 * d).map(|_| unit()).collect();
    let mut gen = |count: usize| -> Vec<f32> {
        let mut out = vec![0f32; count * d];
        for (i, v) in out.chunks_mut(d).enumerate() {
            let c = (i * 7919) % 200;
            for j in 0..d {
                v[j] = centres[c * d + j] + 0.6 * unit();
            }
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
        }
        out
    };
    let xb = gen(n);
    let xq = gen(200);
    let mut idx = FaissIndex::new_hnsw(d, 32, 64, 160).unwrap();
    let (t0, c0) = (Instant::now(), cpu_s());
    for chunk in xb.chunks(16 * d) {
        idx.add(chunk, 1).unwrap();
    }
    let per = t0.elapsed().as_secs_f64() * 1e3 / n as f64;
    let cpu = (cpu_s() - c0) * 1e3 / n as f64;
    let mut hits = 0;
    let t1 = Instant::now();
    for q in xq.chunks(d) {
        let got = idx.hnsw_search_one(q, 10, 160, None, 0).unwrap();
        let mut exact: Vec<(f32, usize)> = xb.chunks(d).enumerate().map(|(i, v)| (shim_dot(q, v), i)).collect();
        exact.sort_by(|a, b| b.0.total_cmp(&a.0));
        let truth: Vec<i64> = exact[..10].iter().map(|x| x.1 as i64).collect();
        hits += got.iter().filter(|(_, l)| truth.contains(l)).count();
    }
    let _ = t1;
    println!("{n} inserts: CPU {cpu:.3} ms per vector (wall {per:.3}; 1 thread, chunks of 16); recall@10 at ef 160: {:.3}", hits as f64 / 2000.0);
}
