//! Text normalization and tokenization shared by BM25 (ctx-vector), the local embedder and the
//! retrieval quality benchmark. One tokenizer for indexing and querying is what makes lexical
//! scores comparable, so every consumer goes through `tokenize`/`for_each_token`.
//!
//! Rules (kept small and predictable; agents search notes, docs and code alike):
//! - Unicode compatibility folding (NFKD), combining marks dropped (`café` = `cafe`), lowercase.
//! - Words are runs of alphanumeric characters (Unicode `Alphabetic`/`Numeric`) and `_`.
//!   An apostrophe inside a word is dropped (`don't` → `dont`), a `.` between digits is kept
//!   (`3.14`, `1.2.3`).
//! - Code identifiers are split into parts at `_` and camelCase boundaries (`parseHTTPResponse`
//!   → `parse`, `http`, `response`) and the whole identifier is emitted too (`parsehttpresponse`),
//!   so a query for either the identifier or its words matches. Letter/digit runs stay together
//!   (`sha256`, `utf8`, `v2`).
//! - Scripts written without spaces (Han, Hiragana, Katakana, Thai…) give one token per
//!   character: no dictionary is available offline, and unigrams are what BM25 over CJK
//!   commonly falls back to.
//! - Tokens longer than `MAX_TOKEN_CHARS` are dropped (base64 blobs, minified code): they never
//!   match a query and would only bloat the postings.
use std::borrow::Cow;
use unicode_normalization::char::is_combining_mark;

pub const MAX_TOKEN_CHARS: usize = 64;

/// Role of a token inside its source word, for consumers that weight them differently (the
/// embedder builds bigrams over `Word`s and `Part`s only, never over `Compound`s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A plain word (no identifier structure), or a single CJK character.
    Word,
    /// One part of a split identifier.
    Part,
    /// The whole identifier, lowercased, separators removed.
    Compound,
}

/// Folds compatibility forms and accents and lowercases; whitespace runs become one space and
/// the ends are trimmed. Punctuation is kept: this is the text form used for character n-grams.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in folded_chars(text) {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        push_lower(&mut out, c);
    }
    out
}

/// Lowercased tokens of `text` in order of appearance (identifier parts, then the identifier).
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, |t, _| out.push(t.to_owned()));
    out
}

fn push_lower(out: &mut String, c: char) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
    } else {
        out.extend(c.to_lowercase());
    }
}

/// Characters of scripts written without word separators: each becomes its own token.
fn is_unsegmented(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF     // Hiragana, Katakana
        | 0x3400..=0x4DBF   // CJK extension A
        | 0x4E00..=0x9FFF   // CJK unified ideographs
        | 0xF900..=0xFAFF   // CJK compatibility ideographs
        | 0x20000..=0x2FFFF // CJK extensions B..
        | 0x0E00..=0x0E7F   // Thai
        | 0x0E80..=0x0EFF   // Lao
        | 0x1000..=0x109F   // Myanmar
        | 0x1780..=0x17FF   // Khmer
    )
}

fn is_word_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Calls `f` with every token and its kind, without allocating per token. The word scanner works
/// on the folded character stream, so offsets are not reported (nothing needs them yet).
pub fn for_each_token(text: &str, mut f: impl FnMut(&str, TokenKind)) {
    // ASCII is its own NFKD form with no combining marks: skip the (comparatively slow)
    // decomposition iterator for the common case.
    if text.is_ascii() {
        scan(text.chars(), &mut f);
    } else {
        scan(folded_chars(text), &mut f);
    }
}

/// NFKD with combining marks dropped, decomposing only non-ASCII characters. Full NFKD also
/// reorders runs of combining marks canonically; since every mark is dropped, the order does not
/// matter and per-character decomposition gives the same stream, several times faster on
/// mostly-ASCII text with a few accents or symbols.
fn folded_chars(text: &str) -> impl Iterator<Item = char> + '_ {
    let mut pending: Vec<char> = Vec::new();
    let mut pos = 0usize;
    let mut chars = text.chars();
    std::iter::from_fn(move || loop {
        if pos < pending.len() {
            pos += 1;
            return Some(pending[pos - 1]);
        }
        let c = chars.next()?;
        if c.is_ascii() {
            return Some(c);
        }
        pending.clear();
        pos = 0;
        unicode_normalization::char::decompose_compatible(c, |d| {
            if !is_combining_mark(d) {
                pending.push(d)
            }
        });
    })
}

fn scan(chars: impl Iterator<Item = char>, f: &mut impl FnMut(&str, TokenKind)) {
    // Folded (NFKD minus marks) but original-case characters of the current word: case is
    // needed to find camelCase boundaries.
    let mut word: Vec<char> = Vec::with_capacity(32);
    let mut scratch = String::with_capacity(64);
    let mut chars = chars.peekable();
    while let Some(c) = chars.next() {
        if is_unsegmented(c) {
            emit_word(&word, &mut scratch, f);
            word.clear();
            scratch.clear();
            push_lower(&mut scratch, c);
            f(&scratch, TokenKind::Word);
            continue;
        }
        if is_word_char(c) {
            word.push(c);
            continue;
        }
        let next = chars.peek().copied();
        let prev = word.last().copied();
        match (c, prev, next) {
            // `don't`, `user’s`: the apostrophe is not a boundary.
            ('\'' | '\u{2019}', Some(p), Some(n)) if p.is_alphabetic() && n.is_alphabetic() && !is_unsegmented(n) => {
                continue
            }
            // `3.14`, `1.2.3`: a dot between digits is part of the number.
            ('.', Some(p), Some(n)) if p.is_ascii_digit() && n.is_ascii_digit() && number_tail(&word) => {
                word.push('.');
                continue;
            }
            _ => {}
        }
        emit_word(&word, &mut scratch, f);
        word.clear();
    }
    emit_word(&word, &mut scratch, f);
}

/// True when the word so far is a number (digits and dots), so `v1.2` splits but `1.2` does not.
fn number_tail(word: &[char]) -> bool {
    word.iter().all(|c| c.is_ascii_digit() || *c == '.')
}

/// Splits one scanned word into identifier parts and emits them (plus the compound when there
/// are several parts).
fn emit_word(word: &[char], scratch: &mut String, f: &mut impl FnMut(&str, TokenKind)) {
    // Trim leading/trailing underscores (`__init__`, `_private`).
    let start = word.iter().position(|c| *c != '_');
    let Some(start) = start else { return };
    let end = word.iter().rposition(|c| *c != '_').unwrap() + 1;
    let word = &word[start..end];
    if word.len() > MAX_TOKEN_CHARS {
        return;
    }
    // Boundaries: `_`, lower→Upper (`userName`), Upper→Upper+lower (`HTTPServer`), digit→Upper
    // (`base64Encode`).
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let mut s = 0usize;
    for i in 0..word.len() {
        let c = word[i];
        if c == '_' {
            if i > s {
                parts.push((s, i));
            }
            s = i + 1;
            continue;
        }
        if i > s {
            let p = word[i - 1];
            let boundary = (c.is_uppercase() && (p.is_lowercase() || p.is_ascii_digit()))
                || (c.is_uppercase() && p.is_uppercase() && word.get(i + 1).is_some_and(|n| n.is_lowercase()));
            if boundary {
                parts.push((s, i));
                s = i;
            }
        }
    }
    if word.len() > s {
        parts.push((s, word.len()));
    }
    if parts.len() == 1 {
        scratch.clear();
        for &c in word {
            push_lower(scratch, c);
        }
        f(scratch, TokenKind::Word);
        return;
    }
    for &(a, b) in &parts {
        scratch.clear();
        for &c in &word[a..b] {
            push_lower(scratch, c);
        }
        f(scratch, TokenKind::Part);
    }
    scratch.clear();
    for &c in word.iter().filter(|c| **c != '_') {
        push_lower(scratch, c);
    }
    f(scratch, TokenKind::Compound);
}

/// Light English suffix stripping for matching inflected forms (`indexes`/`indexed`/`indexing`
/// → `index`, `queries` → `query`, `cached`/`caching`/`cache` → `cach`). Deliberately
/// conservative: only all-ASCII-lowercase words of four letters or more are touched and stems
/// stay at least three letters, so identifiers, numbers and short words are left alone. It is a
/// matching key, not a dictionary form; apply it to queries and documents alike.
pub fn stem(token: &str) -> Cow<'_, str> {
    let b = token.as_bytes();
    if b.len() <= 3 || !b.iter().all(|c| c.is_ascii_lowercase()) {
        return Cow::Borrowed(token);
    }
    if let Some(s) = token.strip_suffix("ies").or_else(|| token.strip_suffix("ied")) {
        if s.len() >= 3 {
            return Cow::Owned(format!("{s}y"));
        }
    }
    let mut s = token;
    let mut verbal = false;
    for suf in ["ations", "ation", "ings", "ing", "edly", "ed", "es", "ly", "s"] {
        let Some(rest) = token.strip_suffix(suf) else { continue };
        if rest.len() < 3 {
            continue;
        }
        s = match suf {
            // `class`, `process`, `status`, `analysis`: a final s after s/u/i is not a plural.
            "s" if rest.ends_with(['s', 'u', 'i']) => token,
            // `es` is a suffix only after sibilants (`indexes`, `matches`); `files` loses the s.
            "es" if !(rest.ends_with(['x', 'z']) || rest.ends_with("ch") || rest.ends_with("sh") || rest.ends_with("ss")) => {
                &token[..token.len() - 1]
            }
            _ => rest,
        };
        verbal = matches!(suf, "ings" | "ing" | "edly" | "ed");
        break;
    }
    // `running` → `run`, `stopped` → `stop`; not l/s/z, which double in the base form too
    // (`install`, `pass`).
    let sb = s.as_bytes();
    if verbal && sb.len() >= 4 {
        let (a, z) = (sb[sb.len() - 2], sb[sb.len() - 1]);
        if a == z && !matches!(z, b'a' | b'e' | b'i' | b'o' | b'u' | b'l' | b's' | b'z') {
            s = &s[..s.len() - 1];
        }
    }
    // A final e goes too, so `store`/`stored`/`storing` share `stor`.
    if s.len() > 3 && s.ends_with('e') && !s.ends_with("ee") {
        s = &s[..s.len() - 1];
    }
    Cow::Borrowed(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        tokenize(s)
    }

    #[test]
    fn normalize_folds_case_accents_width_and_space() {
        assert_eq!(normalize("  Café  Crème\tBRÛLÉE\n"), "cafe creme brulee");
        assert_eq!(normalize("ＡＢＣ１２３"), "abc123");
        assert_eq!(normalize("ﬁle"), "file");
        assert_eq!(normalize(""), "");
        assert_eq!(normalize("a,b;  c"), "a,b; c");
    }

    #[test]
    fn folding_equals_nfkd_without_marks() {
        use unicode_normalization::UnicodeNormalization;
        for s in ["Crème brûlée", "ﬁ ① ＡＢ ㎒ ǅ", "e\u{301}\u{323}x", "ệ Å Ω ñ", "東京 한국어 Ελληνικά", "plain"] {
            let want: String = s.nfkd().filter(|c| !is_combining_mark(*c)).collect();
            assert_eq!(folded_chars(s).collect::<String>(), want, "{s}");
        }
    }

    #[test]
    fn plain_words_lowercase_and_punctuation_splits() {
        assert_eq!(toks("Hello, World! How are you?"), ["hello", "world", "how", "are", "you"]);
        assert_eq!(toks("über-fast naïve résumé"), ["uber", "fast", "naive", "resume"]);
        assert_eq!(toks("Привет мир"), ["привет", "мир"]);
        assert!(toks("  ... --- ").is_empty());
    }

    #[test]
    fn identifiers_split_and_keep_compound() {
        assert_eq!(toks("snake_case"), ["snake", "case", "snakecase"]);
        assert_eq!(toks("getUserName"), ["get", "user", "name", "getusername"]);
        assert_eq!(toks("parseHTTPResponse"), ["parse", "http", "response", "parsehttpresponse"]);
        assert_eq!(toks("HTTPServer"), ["http", "server", "httpserver"]);
        assert_eq!(toks("__init__"), ["init"]);
        assert_eq!(toks("base64Encode sha256 utf8"), ["base64", "encode", "base64encode", "sha256", "utf8"]);
        assert_eq!(toks("MAX_TOKEN_CHARS"), ["max", "token", "chars", "maxtokenchars"]);
    }

    #[test]
    fn numbers_apostrophes_and_versions() {
        assert_eq!(toks("pi is 3.14, v1.2.3 and 1.2.3."), ["pi", "is", "3.14", "v1", "2.3", "and", "1.2.3"]);
        assert_eq!(toks("don't user’s"), ["dont", "users"]);
        assert_eq!(toks("'quoted'"), ["quoted"]);
        assert_eq!(toks("2026-11-22"), ["2026", "11", "22"]);
    }

    #[test]
    fn unsegmented_scripts_give_characters() {
        assert_eq!(toks("東京タワー"), ["東", "京", "タ", "ワ", "ー"]);
        assert_eq!(toks("abc漢字def"), ["abc", "漢", "字", "def"]);
    }

    #[test]
    fn overlong_tokens_are_dropped() {
        let blob = "a".repeat(MAX_TOKEN_CHARS + 1);
        assert_eq!(toks(&format!("x {blob} y")), ["x", "y"]);
        assert_eq!(toks(&"b".repeat(MAX_TOKEN_CHARS)).len(), 1);
    }

    #[test]
    fn token_kinds() {
        let mut kinds = Vec::new();
        for_each_token("fooBar baz", |t, k| kinds.push((t.to_owned(), k)));
        assert_eq!(
            kinds,
            [
                ("foo".into(), TokenKind::Part),
                ("bar".into(), TokenKind::Part),
                ("foobar".into(), TokenKind::Compound),
                ("baz".into(), TokenKind::Word)
            ]
        );
    }

    #[test]
    fn stemming_is_conservative() {
        let cases = [
            ("indexes", "index"), ("indexed", "index"), ("indexing", "index"), ("index", "index"),
            ("files", "fil"), ("file", "fil"), ("queries", "query"), ("query", "query"),
            ("cached", "cach"), ("caching", "cach"), ("cache", "cach"), ("running", "run"),
            ("stopped", "stop"), ("installed", "install"), ("install", "install"),
            ("class", "class"), ("status", "status"), ("analysis", "analysis"), ("bus", "bus"),
            ("sha256s", "sha256s"), ("matches", "match"), ("free", "free"), ("uses", "use"), ("this", "this"),
        ];
        for (word, want) in cases {
            assert_eq!(stem(word), want, "stem({word})");
        }
    }

}
