//! Times tokenization and the forward pass for a few batch shapes (development probe):
//!   cargo run --release -p ctx-embed-neural --example probe -- MODEL_DIR
use std::time::Instant;
use ctx_embed_neural::{Embedder, Options};

fn main() {
    let dir = std::env::args().nth(1).expect("model dir");
    let budget: usize = std::env::var("BUDGET").ok().and_then(|b| b.parse().ok()).unwrap_or(512);
    let e = Embedder::load(std::path::Path::new(&dir), Options { batch_tokens: budget, ..Options::default() }).unwrap();
    println!("batch_tokens {budget}");
    let base = "the quick brown fox jumps over the lazy dog while the database replicates its write ahead log to a standby server";
    for words in [48usize, 200] {
        let text: String = base.split(' ').cycle().take(words).collect::<Vec<_>>().join(" ");
        for batch in [1usize, 16, 64] {
            let texts: Vec<String> = (0..batch).map(|i| format!("{i} {text}")).collect();
            e.embed(&texts).unwrap();
            let t = Instant::now();
            let reps = (64 / batch).max(1);
            for _ in 0..reps { e.embed(&texts).unwrap(); }
            let s = t.elapsed().as_secs_f64();
            println!("words {words} batch {batch}: {:.1} texts/s", (reps * batch) as f64 / s);
        }
    }
}
