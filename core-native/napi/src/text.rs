//! Text kernels: tokenizer, the local embedder and grep. Embeddings come back as one row-major
//! `Float32Array` (n × dim): one allocation and one JS object per batch instead of n arrays.
use ctx_core::embed::{self, EmbedParams};
use ctx_core::grep::{self, GrepOptions};
use ctx_core::text;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{fail, guard, invalid, Code, Job, Result};

/// `std::thread::available_parallelism` reads cgroup files on every call (~90 µs here), which
/// dominated embedding a single query; the core count does not change while we run.
fn available_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(ctx_core::hash::available_threads)
}

/// Tunables of the local embedder; omitted fields take the defaults (`embedLocalInfo()`).
#[napi(object)]
#[derive(Default)]
pub struct LocalEmbedParams {
    pub word_weight: Option<f64>,
    pub bigram_weight: Option<f64>,
    pub char_weight: Option<f64>,
    pub char_min: Option<u32>,
    pub char_max: Option<u32>,
    pub max_chars: Option<u32>,
}

#[napi(object)]
pub struct LocalEmbedInfo {
    /// Algorithm version: stored with an index so vectors of different versions never mix.
    pub version: u32,
    pub dim: u32,
    pub word_weight: f64,
    pub bigram_weight: f64,
    pub char_weight: f64,
    pub char_min: u32,
    pub char_max: u32,
    pub max_chars: u32,
}

fn params(dim: Option<u32>, p: Option<LocalEmbedParams>) -> Result<EmbedParams> {
    let d = EmbedParams::default();
    let p = p.unwrap_or_default();
    let out = EmbedParams {
        dim: dim.map_or(d.dim, |x| x as usize),
        word_weight: p.word_weight.map_or(d.word_weight, |x| x as f32),
        bigram_weight: p.bigram_weight.map_or(d.bigram_weight, |x| x as f32),
        char_weight: p.char_weight.map_or(d.char_weight, |x| x as f32),
        char_min: p.char_min.map_or(d.char_min, |x| x as usize),
        char_max: p.char_max.map_or(d.char_max, |x| x as usize),
        max_chars: p.max_chars.map_or(d.max_chars, |x| x as usize),
    };
    out.validate().map_err(invalid)?;
    Ok(out)
}

/// The effective parameters for `dim` and overrides (defaults when both are omitted).
#[napi]
pub fn embed_local_info(dim: Option<u32>, overrides: Option<LocalEmbedParams>) -> Result<LocalEmbedInfo> {
    guard(|| {
    let p = params(dim, overrides)?;
    Ok(LocalEmbedInfo {
        version: embed::EMBED_VERSION,
        dim: p.dim as u32,
        word_weight: round6(p.word_weight),
        bigram_weight: round6(p.bigram_weight),
        char_weight: round6(p.char_weight),
        char_min: p.char_min as u32,
        char_max: p.char_max as u32,
        max_chars: p.max_chars as u32,
    })
    })
}

/// Embeds `texts` on the calling thread (plus helper threads for large batches).
#[napi]
pub fn embed_local(texts: Vec<String>, dim: Option<u32>, overrides: Option<LocalEmbedParams>) -> Result<Float32Array> {
    guard(|| {
        let p = params(dim, overrides)?;
        let v = embed::embed_batch(&texts, p, available_threads()).map_err(invalid)?;
        Ok(Float32Array::new(v))
    })
}

/// Same as `embedLocal`, off the JS thread (libuv pool).
#[napi(ts_return_type = "Promise<Float32Array>")]
pub fn embed_local_async(texts: Vec<String>, dim: Option<u32>, overrides: Option<LocalEmbedParams>) -> Result<AsyncTask<Job<Vec<f32>, Float32Array>>> {
    let p = guard(|| params(dim, overrides))?;
    Ok(Job::new(move || embed::embed_batch(&texts, p, available_threads()).map_err(invalid), Float32Array::new))
}

/// The tokens BM25 and the embedder see (lowercased words, identifier parts and compounds).
#[napi]
pub fn tokenize(text: String) -> Result<Vec<String>> {
    guard(|| Ok(text::tokenize(&text)))
}

/// `tokenize` followed by the light English stemmer the embedder applies.
#[napi]
pub fn tokenize_stemmed(text: String) -> Result<Vec<String>> {
    guard(|| Ok(text::tokenize(&text).iter().map(|t| text::stem(t).into_owned()).collect()))
}

#[napi]
pub fn normalize_text(text: String) -> Result<String> {
    guard(|| Ok(text::normalize(&text)))
}

#[napi(object)]
#[derive(Default)]
pub struct GrepOpts {
    pub case_insensitive: Option<bool>,
    /// Matching lines in total (default 1000).
    pub max_matches: Option<u32>,
    /// Matching lines per buffer (default: no bound).
    pub max_per_buffer: Option<u32>,
    /// Cut reported lines to this many characters (default 1000).
    pub max_line_chars: Option<u32>,
}

/// Columnar matches: one typed array per field and the line texts joined by `\n` (a matched line
/// never contains one). Creating one JS object per match through N-API costs ~3 µs, so a grep with
/// 60k matching lines spent most of its time there; runtime/native-text.ts builds the objects in
/// JavaScript instead, where they are cheap.
#[napi(object)]
pub struct GrepColumns {
    pub index: Uint32Array,
    pub line: Uint32Array,
    pub text: String,
    /// True when `maxMatches` cut the search short.
    pub truncated: bool,
}

fn grep_opts(o: Option<GrepOpts>) -> GrepOptions {
    let d = GrepOptions::default();
    let o = o.unwrap_or_default();
    GrepOptions {
        case_insensitive: o.case_insensitive.unwrap_or(false),
        max_matches: o.max_matches.map_or(d.max_matches, |x| x as usize),
        max_per_buffer: o.max_per_buffer.map_or(0, |x| x as usize),
        max_line_chars: o.max_line_chars.map_or(d.max_line_chars, |x| x as usize),
    }
}

fn to_js(r: grep::GrepResult) -> GrepColumns {
    let n = r.matches.len();
    let mut index = Vec::with_capacity(n);
    let mut line = Vec::with_capacity(n);
    let mut text = String::with_capacity(r.matches.iter().map(|m| m.text.len() + 1).sum());
    for (i, m) in r.matches.into_iter().enumerate() {
        index.push(m.index as u32);
        line.push(m.line as u32);
        if i > 0 {
            text.push('\n');
        }
        text.push_str(&m.text);
    }
    GrepColumns { index: Uint32Array::new(index), line: Uint32Array::new(line), text, truncated: r.truncated }
}

fn regex_error(e: grep::InvalidRegex) -> napi::Error<Code> {
    fail(Code("INVALID_REGEX"), e)
}

/// Line matches of `pattern` in every buffer, on the calling thread. An invalid pattern throws
/// `INVALID_REGEX`.
///
/// Takes the buffers as borrowed slices: napi's `Buffer` creates (and later deletes) a reference
/// per buffer, about 1 µs each, which dominated calls over thousands of small files. Borrowing is
/// sound because nothing runs JavaScript before this function returns.
#[napi]
pub fn grep(pattern: String, buffers: Vec<BufferSlice>, options: Option<GrepOpts>) -> Result<GrepColumns> {
    guard(|| {
        let slices: Vec<&[u8]> = buffers.iter().map(|b| &b[..]).collect();
        grep::grep(&pattern, &slices, &grep_opts(options)).map(to_js).map_err(regex_error)
    })
}

/// Same as `grep`, off the JS thread, splitting large inputs over the cores; an invalid pattern
/// rejects with `INVALID_REGEX`. Buffers must not be mutated until the promise settles.
#[napi(ts_return_type = "Promise<GrepColumns>")]
pub fn grep_async(pattern: String, buffers: Vec<Buffer>, options: Option<GrepOpts>) -> AsyncTask<Job<grep::GrepResult, GrepColumns>> {
    let opts = grep_opts(options);
    Job::new(
        move || {
            let slices: Vec<&[u8]> = buffers.iter().map(|b| b.as_ref()).collect();
            grep::grep_parallel(&pattern, &slices, &opts, available_threads()).map_err(regex_error)
        },
        to_js,
    )
}

/// f32 parameters reported as the decimal they were written as (0.6, not 0.6000000238).
fn round6(x: f32) -> f64 {
    (x as f64 * 1e6).round() / 1e6
}
