//! The `local` embedder: a lexical dense embedding that needs no model files and no network.
//!
//! Three feature groups are hashed into one `dim`-sized vector ("feature hashing"):
//! - words: stemmed tokens from `text::for_each_token` (identifier parts and compounds included),
//!   stop words skipped;
//! - word bigrams: consecutive non-stop-word tokens (stop words are skipped, not boundaries, so
//!   "index of the file" and "index file" share `index file`); identifier compounds are left out
//!   of the sequence because they repeat their own parts;
//! - character n-grams (`<word>` with boundary marks, n in `char_min..=char_max`, 3..=4) of the
//!   unstemmed words: they carry morphology and spelling variants that stemming misses
//!   (`tokenizer`/`tokenization`, typos, compounds such as `filesystem` vs `file system`).
//!
//! Each feature's weight is sublinear in its count (`1 + ln tf`), each group is scaled to unit
//! norm and then by its group weight, and the result is L2-normalized. Scaling groups separately
//! keeps the balance between them independent of text length (a 1 KB text has ~20× more
//! n-grams than words), so the inner product of two embeddings is close to the weighted mean
//! of the three groups' cosines. Each feature goes to bucket `h % dim` with sign from an
//! independent hash bit (signed hashing), so collisions cancel in expectation instead of
//! accumulating a positive bias.
//!
//! Everything is a pure function of the text and `EmbedParams`: the same input gives the same
//! bits on every machine and run. `EMBED_VERSION` changes whenever the function changes, and is
//! part of the embedder metadata stored with an index, so vectors of two versions never mix.
use crate::text::{for_each_token, stem, TokenKind};

/// Bump when any change would alter an embedding (stored with the index metadata).
pub const EMBED_VERSION: u32 = 2;
pub const DEFAULT_DIM: usize = 384;
pub const MAX_DIM: usize = 8192;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmbedParams {
    pub dim: usize,
    pub word_weight: f32,
    pub bigram_weight: f32,
    pub char_weight: f32,
    pub char_min: usize,
    pub char_max: usize,
    /// Only the first `max_chars` characters are embedded: lexical signal saturates long before
    /// that, and it bounds the cost of a pathological input.
    pub max_chars: usize,
}

impl Default for EmbedParams {
    fn default() -> Self {
        EmbedParams {
            dim: DEFAULT_DIM,
            // Tuned on bench/retrieval-quality (bench/RESULTS.md): at 384 dimensions the
            // character n-grams carry most of the signal and word/bigram features mostly add
            // collision noise, but a little of them keeps exact identifiers and phrases ahead.
            word_weight: 0.2,
            bigram_weight: 0.1,
            char_weight: 1.0,
            char_min: 3,
            char_max: 4,
            max_chars: 32 * 1024,
        }
    }
}

impl EmbedParams {
    pub fn with_dim(dim: usize) -> Self {
        EmbedParams { dim, ..Default::default() }
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.dim == 0 || self.dim > MAX_DIM {
            return Err(format!("dim must be in 1..={MAX_DIM}, got {}", self.dim));
        }
        if self.char_min == 0 || self.char_min > self.char_max || self.char_max > 16 {
            return Err(format!("char n-gram range {}..={} is invalid", self.char_min, self.char_max));
        }
        for (name, w) in [("word", self.word_weight), ("bigram", self.bigram_weight), ("char", self.char_weight)] {
            if !(w.is_finite() && w >= 0.0) {
                return Err(format!("{name} weight must be a finite non-negative number"));
            }
        }
        Ok(())
    }
}

// English function words: they are in nearly every text, so as features they only add noise
// to the cosine (what IDF would remove with corpus statistics, which a stateless embedder lacks).
// Negations and words that carry meaning in technical text (`not`, `no`, `new`, `error`) stay.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "before", "being", "both", "but", "by", "can", "could", "did", "do", "does", "doing",
    "each", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his",
    "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "of", "off",
    "on", "once", "only", "or", "other", "our", "ours", "out", "over", "own", "same", "she", "should", "so",
    "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those",
    "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where",
    "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours",
];

/// Membership by 64-bit hash in a sorted table built once: a token costs one short hash and an
/// integer binary search instead of up to seven string comparisons.
fn is_stop_word(t: &str) -> bool {
    static HASHES: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    if t.len() > 8 {
        return false;
    }
    let table = HASHES.get_or_init(|| {
        let mut v: Vec<u64> = STOP_WORDS.iter().map(|w| hash_bytes(SEED_STOP, &[w.as_bytes()])).collect();
        v.sort_unstable();
        v
    });
    table.binary_search(&hash_bytes(SEED_STOP, &[t.as_bytes()])).is_ok()
}

// Seeds separate the groups' hash spaces, so the word `abc` and the trigram `abc` are different
// features.
const SEED_WORD: u64 = 0x9E37_79B9_7F4A_7C15;
const SEED_BIGRAM: u64 = 0xC2B2_AE3D_27D4_EB4F;
const SEED_CHAR: u64 = 0x1656_67B1_9E37_79F9;
const SEED_STOP: u64 = 0x27D4_EB2F_1656_67C5;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01B3;

#[inline]
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

/// SplitMix64 finalizer: FNV alone is fast on short keys but its low bits (the bucket) and high
/// bit (the sign) are poorly mixed.
#[inline]
fn finish(mut h: u64) -> u64 {
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 31)
}

/// FNV-1a over the parts (joined by a separator byte no UTF-8 text contains), then `finish`.
#[inline]
fn hash_bytes(seed: u64, parts: &[&[u8]]) -> u64 {
    let mut h = FNV_OFFSET ^ seed;
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            h ^= 0xFF;
            h = h.wrapping_mul(FNV_PRIME);
        }
        h = fnv(h, p);
    }
    finish(h)
}

/// Feature counts of one text, per group: an open-addressing table keyed by the 64-bit feature
/// hash (a hash collision between two distinct features at 64 bits is negligible). `used` lists
/// the occupied slots, so clearing and scattering touch only those, not the whole table (which
/// keeps the size of the largest text seen by this thread).
struct Counts {
    keys: Vec<u64>,
    vals: Vec<u32>,
    used: Vec<u32>,
}

impl Counts {
    fn new() -> Self {
        Counts { keys: vec![0; 64], vals: vec![0; 64], used: Vec::with_capacity(32) }
    }

    fn clear(&mut self) {
        for &i in &self.used {
            self.keys[i as usize] = 0;
            self.vals[i as usize] = 0;
        }
        self.used.clear();
    }

    #[inline]
    fn add(&mut self, key: u64) {
        let key = key | 1; // 0 marks an empty slot
        if (self.used.len() + 1) * 2 > self.keys.len() {
            self.grow();
        }
        let mask = self.keys.len() - 1;
        let mut i = (key as usize) & mask;
        loop {
            let k = self.keys[i];
            if k == key {
                self.vals[i] += 1;
                return;
            }
            if k == 0 {
                self.keys[i] = key;
                self.vals[i] = 1;
                self.used.push(i as u32);
                return;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let cap = self.keys.len() * 2;
        let old_keys = std::mem::replace(&mut self.keys, vec![0; cap]);
        let old_vals = std::mem::replace(&mut self.vals, vec![0; cap]);
        let mask = cap - 1;
        for u in self.used.iter_mut() {
            let (k, v) = (old_keys[*u as usize], old_vals[*u as usize]);
            let mut i = (k as usize) & mask;
            while self.keys[i] != 0 {
                i = (i + 1) & mask;
            }
            self.keys[i] = k;
            self.vals[i] = v;
            *u = i as u32;
        }
    }

    /// Adds the group into `out` scaled to norm `weight` (before collisions).
    fn scatter(&self, weight: f32, out: &mut [f32]) {
        if self.used.is_empty() || weight == 0.0 {
            return;
        }
        let norm2: f32 = self.used.iter().map(|&i| tf(self.vals[i as usize]).powi(2)).sum();
        let scale = weight / norm2.sqrt();
        let dim = out.len() as u64;
        // Slot order is deterministic (insertion order of the text's features), and so is the
        // floating-point summation order.
        for &i in &self.used {
            let (k, c) = (self.keys[i as usize], self.vals[i as usize]);
            // Bucket from bits 1..33 mapped onto 0..dim by multiply-shift (Lemire's fast range:
            // no division), sign from the top bit: independent parts of a well-mixed hash.
            let bucket = ((((k >> 1) & 0xFFFF_FFFF) * dim) >> 32) as usize;
            let w = tf(c) * scale;
            out[bucket] += if k >> 63 == 0 { w } else { -w };
        }
    }
}

/// Sublinear term frequency `1 + ln(count)`; counts are small integers, so the common ones come
/// from a table instead of a logarithm per feature.
#[inline]
fn tf(c: u32) -> f32 {
    const TABLE: [f32; 9] = [0.0, 1.0, 1.693_147_2, 2.098_612_3, 2.386_294_4, 2.609_438, 2.791_759_5, 2.945_910_2, 3.079_441_5];
    if (c as usize) < TABLE.len() {
        TABLE[c as usize]
    } else {
        1.0 + (c as f32).ln()
    }
}

/// Reusable per-thread state so a batch allocates once.
pub struct Embedder {
    params: EmbedParams,
    words: Counts,
    bigrams: Counts,
    chars: Counts,
    buf: Vec<u8>,
}

impl Embedder {
    pub fn new(params: EmbedParams) -> Result<Self, String> {
        params.validate()?;
        Ok(Embedder { params, words: Counts::new(), bigrams: Counts::new(), chars: Counts::new(), buf: Vec::new() })
    }

    pub fn params(&self) -> &EmbedParams {
        &self.params
    }

    /// Writes the embedding of `text` into `out` (`out.len() == dim`). An empty or all-stop-word
    /// text gives the zero vector, whose inner product with anything is 0.
    pub fn embed_into(&mut self, text: &str, out: &mut [f32]) {
        assert_eq!(out.len(), self.params.dim);
        out.iter_mut().for_each(|x| *x = 0.0);
        self.words.clear();
        self.bigrams.clear();
        self.chars.clear();
        let p = self.params;
        let text = truncate_chars(text, p.max_chars);
        let (words, bigrams, chars, buf) = (&mut self.words, &mut self.bigrams, &mut self.chars, &mut self.buf);
        let mut has_prev = false;
        let mut prev_stem = String::new();
        for_each_token(text, |tok, kind| {
            if is_stop_word(tok) {
                return;
            }
            let st = stem(tok);
            words.add(hash_bytes(SEED_WORD, &[st.as_bytes()]));
            if kind == TokenKind::Compound {
                return;
            }
            if has_prev {
                bigrams.add(hash_bytes(SEED_BIGRAM, &[prev_stem.as_bytes(), st.as_bytes()]));
            }
            has_prev = true;
            prev_stem.clear();
            prev_stem.push_str(&st);
            if p.char_weight > 0.0 {
                add_char_ngrams(tok, p.char_min, p.char_max, buf, chars);
            }
        });
        words.scatter(p.word_weight, out);
        bigrams.scatter(p.bigram_weight, out);
        chars.scatter(p.char_weight, out);
        let norm: f32 = out.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            let inv = 1.0 / norm;
            out.iter_mut().for_each(|x| *x *= inv);
        }
    }

    pub fn embed(&mut self, text: &str) -> Vec<f32> {
        let mut out = vec![0.0; self.params.dim];
        self.embed_into(text, &mut out);
        out
    }
}

fn truncate_chars(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    match text.char_indices().nth(max) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// Character n-grams of `<tok>`, counted by UTF-8 character, not byte. Single characters
/// (CJK tokens) give only `<c>`-style grams, which is what we want: the bigram group carries
/// their sequence.
fn add_char_ngrams(tok: &str, min: usize, max: usize, buf: &mut Vec<u8>, out: &mut Counts) {
    buf.clear();
    buf.push(b'<');
    buf.extend_from_slice(tok.as_bytes());
    buf.push(b'>');
    // Byte offsets of character starts, plus the end.
    let mut starts: [usize; 80] = [0; 80];
    let mut n = 0;
    for (i, b) in buf.iter().enumerate() {
        if (b & 0xC0) != 0x80 {
            if n == starts.len() {
                return; // longer than any token tokenize emits; nothing sensible to add
            }
            starts[n] = i;
            n += 1;
        }
    }
    let len = buf.len();
    // FNV is incremental, so the grams starting at one character share one running hash: each
    // start hashes its bytes once, emitting a feature at every length in min..=max. Same values as
    // hashing each gram separately.
    for st in 0..n {
        let mut h = FNV_OFFSET ^ SEED_CHAR;
        for g in 1..=max.min(n - st) {
            let (a, b) = (starts[st + g - 1], if st + g < n { starts[st + g] } else { len });
            h = fnv(h, &buf[a..b]);
            if g >= min {
                out.add(finish(h));
            }
        }
    }
}

/// Embeds many texts into one row-major buffer (`texts.len() * dim`), on up to `threads`
/// threads. Order is preserved.
pub fn embed_batch<T: AsRef<str> + Sync>(texts: &[T], params: EmbedParams, threads: usize) -> Result<Vec<f32>, String> {
    params.validate()?;
    let dim = params.dim;
    let mut out = vec![0.0f32; texts.len() * dim];
    // Below ~64 KB of text a thread costs more than it saves.
    let total: usize = texts.iter().map(|t| t.as_ref().len()).sum();
    let threads = if total < 64 * 1024 { 1 } else { threads.min(crate::hash::available_threads()).max(1).min(texts.len().max(1)) };
    if threads == 1 {
        let mut e = Embedder::new(params)?;
        for (t, row) in texts.iter().zip(out.chunks_mut(dim)) {
            e.embed_into(t.as_ref(), row);
        }
        return Ok(out);
    }
    let per = texts.len().div_ceil(threads);
    std::thread::scope(|scope| {
        for (tchunk, ochunk) in texts.chunks(per).zip(out.chunks_mut(per * dim)) {
            scope.spawn(move || {
                let mut e = Embedder::new(params).expect("validated");
                for (t, row) in tchunk.iter().zip(ochunk.chunks_mut(dim)) {
                    e.embed_into(t.as_ref(), row);
                }
            });
        }
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emb(t: &str) -> Vec<f32> {
        Embedder::new(EmbedParams::default()).unwrap().embed(t)
    }

    fn dot(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    const GOLDEN: [i32; 8] = [1245, -2755, 3065, 5912, 960, -3157, -3281, -4985];

    #[test]
    fn tf_table_matches_the_formula() {
        for c in 1..20u32 {
            assert!((tf(c) - (1.0 + (c as f32).ln())).abs() < 1e-6, "{c}");
        }
    }

    #[test]
    fn stop_words_are_recognized_and_nothing_else() {
        for w in STOP_WORDS {
            assert!(is_stop_word(w), "{w}");
        }
        for w in ["index", "not", "no", "error", "new", "thee", "an_", "", "becausee"] {
            assert!(!is_stop_word(w), "{w}");
        }
    }

    #[test]
    fn unit_norm_and_deterministic() {
        let a = emb("The vector index persists its files under the data directory.");
        assert_eq!(a.len(), DEFAULT_DIM);
        let n: f32 = dot(&a, &a);
        assert!((n - 1.0).abs() < 1e-5, "norm² {n}");
        assert_eq!(a, emb("The vector index persists its files under the data directory."));
        let sum: f64 = a.iter().map(|x| *x as f64).sum();
        assert!(a.iter().any(|x| *x != 0.0) && sum.is_finite());
    }

    #[test]
    fn golden_vector() {
        // Fixed values: if this fails, the function changed and EMBED_VERSION must be bumped
        // (stored vectors would otherwise silently mix with incomparable new ones).
        let v = Embedder::new(EmbedParams::with_dim(8)).unwrap().embed("Rotate the API keys every 90 days");
        let got: Vec<i32> = v.iter().map(|x| (x * 10_000.0).round() as i32).collect();
        assert_eq!(got, GOLDEN);
    }

    #[test]
    fn empty_and_stop_word_texts_are_zero() {
        assert!(emb("").iter().all(|x| *x == 0.0));
        assert!(emb("the of and").iter().all(|x| *x == 0.0));
        // Punctuation-only has no tokens either.
        assert!(emb("--- ... !!!").iter().all(|x| *x == 0.0));
    }

    #[test]
    fn case_accents_and_inflection_do_not_matter_much() {
        let a = emb("Indexing files in the cache");
        let b = emb("indexed FILE caches");
        assert!(dot(&a, &b) > 0.6, "{}", dot(&a, &b));
        assert!((dot(&emb("café crème"), &emb("CAFE CREME")) - 1.0).abs() < 1e-5);
    }

    #[test]
    fn related_texts_score_above_unrelated_ones() {
        let q = emb("how do I rotate the database credentials");
        let rel = emb("Rotating database credentials: generate a new password, update the secret, restart the pods.");
        let unrel = emb("The quarterly marketing budget was approved by the finance team on Tuesday.");
        assert!(dot(&q, &rel) > dot(&q, &unrel) + 0.2, "{} vs {}", dot(&q, &rel), dot(&q, &unrel));
        let code = emb("fn parse_http_response(buf: &[u8]) -> Result<Response>");
        assert!(dot(&emb("parseHttpResponse"), &code) > dot(&emb("database password rotation"), &code));
    }

    #[test]
    fn batch_matches_single_and_threads_do_not_change_bits() {
        let texts: Vec<String> = (0..200).map(|i| format!("document {i} about topic {} with words {}", i % 7, "lorem ipsum ".repeat(i % 50))).collect();
        let one = embed_batch(&texts, EmbedParams::default(), 1).unwrap();
        let many = embed_batch(&texts, EmbedParams::default(), 4).unwrap();
        assert_eq!(one, many);
        assert_eq!(&one[5 * DEFAULT_DIM..6 * DEFAULT_DIM], emb(&texts[5]).as_slice());
    }

    #[test]
    fn dim_and_params_are_validated() {
        assert!(embed_batch(&["x"], EmbedParams::with_dim(0), 1).is_err());
        assert!(embed_batch(&["x"], EmbedParams::with_dim(MAX_DIM + 1), 1).is_err());
        let p = EmbedParams { char_min: 4, char_max: 3, ..Default::default() };
        assert!(p.validate().is_err());
        let v = embed_batch(&["hello world"], EmbedParams::with_dim(16), 1).unwrap();
        assert_eq!(v.len(), 16);
    }

    #[test]
    fn long_and_non_latin_texts() {
        let long = "word ".repeat(100_000);
        let v = emb(&long);
        assert!((dot(&v, &v) - 1.0).abs() < 1e-4);
        let a = emb("東京タワーの高さ");
        let b = emb("東京タワー");
        let c = emb("大阪城の歴史");
        assert!(dot(&a, &b) > dot(&a, &c));
    }
}
