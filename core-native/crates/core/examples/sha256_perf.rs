//! One-thread SHA-256 throughput over 512 × 64 KiB (the buffers of bench/core-wasm.bench.ts),
//! without Node in the way. With the CPU's SHA extensions where sha2 finds them:
//! `cargo run --release --example sha256_perf -p ctx-core`; with sha2's portable code, the code
//! the wasm build runs: add `--features sha2/force-soft`.
use ctx_core::hash::sha256_hex;
fn main() {
    let bufs: Vec<Vec<u8>> = (0..512).map(|i| vec![i as u8; 64 * 1024]).collect();
    let mut times = Vec::new();
    let mut check = 0usize;
    for _ in 0..5 {
        let t = std::time::Instant::now();
        for b in &bufs {
            check += sha256_hex(b).len();
        }
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(|a, b| a.total_cmp(b));
    println!("{:.0} MB/s (1 thread, median of 5; {check} hex digits)", 32.0 / 1.048576 / times[2]);
}
