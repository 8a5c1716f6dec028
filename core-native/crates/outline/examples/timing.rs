//! Where an outline's time goes (parse vs symbol walk) on a TypeScript file:
//!   cargo run --release -p ctx-outline --example timing -- <file.ts> [runs]
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a TypeScript file");
    let runs: usize = args.next().map_or(100, |r| r.parse().expect("runs"));
    let src = std::fs::read_to_string(&path).expect("readable file");
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()).unwrap();
    let mut parse = Vec::with_capacity(runs);
    let mut full = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let tree = parser.parse(&src, None).unwrap();
        parse.push(t.elapsed().as_secs_f64() * 1e3);
        drop(tree);
        let t = Instant::now();
        let o = ctx_outline::outline(&src, ctx_outline::Language::TypeScript).unwrap();
        full.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(!o.symbols.is_empty());
    }
    parse.sort_by(|a, b| a.partial_cmp(b).unwrap());
    full.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("{} bytes: parse p50 {:.2} ms, outline (parse + walk) p50 {:.2} ms", src.len(), parse[runs / 2], full[runs / 2]);
}
