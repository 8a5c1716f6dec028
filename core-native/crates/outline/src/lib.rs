//! Code outlines: the symbols of a source file (kind, name, 1-based line range, first line of the
//! declaration, nesting) from the tree-sitter grammars of TypeScript/TSX, JavaScript, Python, Go,
//! Rust, Java, C and C++.
//!
//! An outline is the file's structure, not an index of every identifier: top-level declarations
//! and the members of classes, interfaces, traits, impls, namespaces and modules. Function bodies
//! are not entered (a local helper is an implementation detail, and skipping bodies keeps the walk
//! a small fraction of the parse); TypeScript and JavaScript bodies are not even parsed (`mask.rs`).
//! Parsers are reused per thread and language, so a call costs the parse plus that walk.
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};

use tree_sitter::{Node, Parser, Tree};

mod languages;
mod mask;
pub use languages::Language;

/// Larger sources are refused: a multi-megabyte file is generated or minified code whose outline
/// helps nobody, and its parse would hold a worker for a long time.
pub const MAX_SOURCE_BYTES: usize = 8 * 1024 * 1024;

/// Signatures are one source line, cut to this many characters (minified lines are huge).
pub const MAX_SIGNATURE_CHARS: usize = 200;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// `class`, `interface`, `type`, `enum`, `struct`, `trait`, `impl`, `module`, `function`,
    /// `method`, `constructor`, `property`, `field`, `variable`, `const` or `macro`.
    pub kind: &'static str,
    pub name: String,
    /// 1-based, inclusive.
    pub start_line: u32,
    pub end_line: u32,
    /// The declaration's first line, trimmed (decorators and attributes excluded).
    pub signature: String,
    pub children: Vec<Symbol>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outline {
    pub language: Language,
    /// Lines of the source (a trailing newline does not start another line; empty source is 0).
    pub line_count: u32,
    pub symbols: Vec<Symbol>,
    /// The grammar hit syntax errors; the symbols are what could still be recognised. (TypeScript
    /// and JavaScript bodies are not parsed, so an error inside a function body is not seen.)
    pub has_errors: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutlineError {
    TooLarge { bytes: usize },
    ParseFailed,
}

impl std::fmt::Display for OutlineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutlineError::TooLarge { bytes } => write!(f, "source of {bytes} bytes is over the outline limit of {MAX_SOURCE_BYTES} bytes"),
            OutlineError::ParseFailed => write!(f, "the parser gave up on this source"),
        }
    }
}

impl std::error::Error for OutlineError {}

pub fn line_count(source: &str) -> u32 {
    if source.is_empty() {
        return 0;
    }
    let newlines = memchr_count(source.as_bytes());
    (if source.ends_with('\n') { newlines } else { newlines + 1 }) as u32
}

fn memchr_count(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c == b'\n').count()
}

thread_local! {
    // One parser per language and thread: setting a language is cheap but not free, and a parser
    // keeps its allocations between parses.
    static PARSERS: RefCell<Vec<(Language, Parser)>> = const { RefCell::new(Vec::new()) };
}

fn parse(source: &[u8], lang: Language) -> Option<Tree> {
    parse_ranges(source, lang, &[])
}

/// Parses only `ranges` of the source (all of it when empty).
fn parse_ranges(source: &[u8], lang: Language, ranges: &[tree_sitter::Range]) -> Option<Tree> {
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let i = match parsers.iter().position(|(l, _)| *l == lang) {
            Some(i) => i,
            None => {
                let mut p = Parser::new();
                p.set_language(&lang.grammar()).ok()?;
                parsers.push((lang, p));
                parsers.len() - 1
            }
        };
        let parser = &mut parsers[i].1;
        if !ranges.is_empty() && parser.set_included_ranges(ranges).is_err() {
            return None;
        }
        let tree = parser.parse(source, None);
        if tree.is_none() {
            // A failed parse can leave the parser mid-way; the next call must start clean.
            parser.reset();
        }
        if !ranges.is_empty() {
            // Back to whole documents for the next call (an empty list means everything).
            let _ = parser.set_included_ranges(&[]);
        }
        tree
    })
}

/// The outline of one source file.
pub fn outline(source: &str, lang: Language) -> Result<Outline, OutlineError> {
    outline_with(source, lang, true)
}

/// JSX text (`<p>it's</p>`) is not code the body scan can read; such files are parsed whole.
fn looks_like_jsx(b: &[u8]) -> bool {
    b.windows(2).any(|w| w == b"</" || w == b"/>")
}

pub(crate) fn outline_with(source: &str, lang: Language, mask: bool) -> Result<Outline, OutlineError> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(OutlineError::TooLarge { bytes: source.len() });
    }
    let bytes = source.as_bytes();
    let bodies = match lang {
        Language::TypeScript if mask => mask::body_intervals(bytes),
        Language::JavaScript if mask && !looks_like_jsx(bytes) => mask::body_intervals(bytes),
        _ => None,
    };
    // A syntax error with bodies left out may be the scan's mistake: the whole parse decides then.
    let tree = match bodies.and_then(|b| parse_ranges(bytes, lang, &mask::included_ranges(bytes, &b))).filter(|t| !t.root_node().has_error()) {
        Some(t) => t,
        None => parse(bytes, lang).ok_or(OutlineError::ParseFailed)?,
    };
    let root = tree.root_node();
    let walker = languages::Walker { src: source.as_bytes(), lang };
    let mut symbols = Vec::new();
    walker.collect(root, languages::Scope::Module, &mut symbols);
    Ok(Outline { language: lang, line_count: line_count(source), symbols, has_errors: root.has_error() })
}

/// Outlines of many sources on up to `threads` threads (at least one; the calling thread when
/// one), in input order.
pub fn outline_many<S: AsRef<str> + Sync>(inputs: &[(S, Language)], threads: usize) -> Vec<Result<Outline, OutlineError>> {
    let n = inputs.len();
    // One under WebAssembly, where a thread is a Worker the calling thread must not block on.
    let threads = if cfg!(target_arch = "wasm32") { 1 } else { threads.max(1).min(n.max(1)) };
    if threads <= 1 {
        return inputs.iter().map(|(s, l)| outline(s.as_ref(), *l)).collect();
    }
    // Work is handed out one file at a time: file sizes vary too much for fixed chunks.
    let next = AtomicUsize::new(0);
    let mut parts: Vec<Vec<(usize, Result<Outline, OutlineError>)>> = Vec::with_capacity(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break;
                        }
                        let (s, l) = &inputs[i];
                        done.push((i, outline(s.as_ref(), *l)));
                    }
                    done
                })
            })
            .collect();
        for h in handles {
            match h.join() {
                Ok(part) => parts.push(part),
                // Re-raise on this thread so the caller's panic guard reports it.
                Err(p) => std::panic::resume_unwind(p),
            }
        }
    });
    let mut out: Vec<Option<Result<Outline, OutlineError>>> = (0..n).map(|_| None).collect();
    for (i, r) in parts.into_iter().flatten() {
        out[i] = Some(r);
    }
    out.into_iter().map(|r| r.unwrap_or(Err(OutlineError::ParseFailed))).collect()
}

/// First line of `node`'s text, trimmed and cut to `MAX_SIGNATURE_CHARS` characters.
pub(crate) fn first_line(src: &[u8], node: Node) -> String {
    let start = node.start_byte().min(src.len());
    let end = node.end_byte().min(src.len());
    let bytes = &src[start..end];
    let line_end = bytes.iter().position(|&c| c == b'\n').unwrap_or(bytes.len());
    let line = String::from_utf8_lossy(&bytes[..line_end]);
    let line = line.trim();
    match line.char_indices().nth(MAX_SIGNATURE_CHARS) {
        Some((cut, _)) => line[..cut].trim_end().to_string(),
        None => line.to_string(),
    }
}

/// 1-based inclusive line range; a node ending at column 0 (after its own newline) ends on the line before.
pub(crate) fn lines_of(node: Node) -> (u32, u32) {
    let s = node.start_position();
    let e = node.end_position();
    let end_row = if e.column == 0 && e.row > s.row { e.row - 1 } else { e.row };
    (s.row as u32 + 1, end_row as u32 + 1)
}

#[cfg(test)]
mod tests;
