//! Line-oriented regex search over many buffers in one call (the `search/grep` route).
//!
//! Rust's `regex` crate runs in time linear in the input (finite automata, no backtracking), so
//! a hostile pattern such as `(a+)+$` cannot stall the server the way it stalls a backtracking
//! engine like JS `RegExp`.
//!
//! Each buffer is searched as a whole rather than line by line: the regex engine's literal
//! prefilters (memchr/Teddy) then skip non-matching text at memory speed and the per-line call
//! overhead disappears. A hit is mapped to its line and confirmed with a match on that line
//! alone, because grep semantics are per line while a pattern like `a\sb` could match across a
//! newline in the whole buffer. The search resumes at the next line, so each line is reported
//! at most once and no line is skipped (the leftmost match in the buffer never starts after
//! the first matching line).
use regex::bytes::{Regex, RegexBuilder};
use std::sync::{Arc, Mutex};

#[derive(Clone, Copy, Debug)]
pub struct GrepOptions {
    pub case_insensitive: bool,
    /// Stop after this many matching lines in total (the result says it was truncated).
    pub max_matches: usize,
    /// At most this many matching lines per buffer (0: no per-buffer bound).
    pub max_per_buffer: usize,
    /// Longer lines are cut to this many characters in `text` (minified files, data blobs).
    pub max_line_chars: usize,
}

impl Default for GrepOptions {
    fn default() -> Self {
        GrepOptions { case_insensitive: false, max_matches: 1000, max_per_buffer: 0, max_line_chars: 1000 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrepMatch {
    /// Index of the buffer in the input.
    pub index: usize,
    /// 1-based line number.
    pub line: usize,
    /// The line without its terminator (lossy UTF-8, cut to `max_line_chars`).
    pub text: String,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct GrepResult {
    pub matches: Vec<GrepMatch>,
    /// True when `max_matches` stopped the search early.
    pub truncated: bool,
}

#[derive(Debug)]
pub struct InvalidRegex(pub String);

impl std::fmt::Display for InvalidRegex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Compiled-program size cap: far above any pattern a person or an agent writes, low enough that
/// `a{1000}{1000}` is refused instead of allocating gigabytes.
const SIZE_LIMIT: usize = 8 << 20;

pub fn compile(pattern: &str, case_insensitive: bool) -> Result<Regex, InvalidRegex> {
    RegexBuilder::new(pattern)
        .case_insensitive(case_insensitive)
        // `^`/`$` anchor at line boundaries, as in grep, since buffers are searched whole.
        .multi_line(true)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| InvalidRegex(first_line_summary(&e.to_string())))
}

/// Recently compiled patterns. A grep request calls in once per batch of files with the same
/// pattern, and compiling can cost more than searching (a Unicode `\w` class alone is ~2 ms);
/// sharing one `Regex` also shares its pool of lazy-DFA caches, which stay warm between calls.
const CACHE_SIZE: usize = 32;
static CACHE: Mutex<Vec<(String, bool, Arc<Regex>)>> = Mutex::new(Vec::new());

/// `compile` through a small most-recently-used cache. Invalid patterns are not cached.
pub fn compile_cached(pattern: &str, case_insensitive: bool) -> Result<Arc<Regex>, InvalidRegex> {
    {
        let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = cache.iter().position(|(p, ci, _)| p == pattern && *ci == case_insensitive) {
            let hit = cache.remove(i);
            let re = hit.2.clone();
            cache.push(hit);
            return Ok(re);
        }
    }
    // Compile outside the lock: a slow pattern must not block other greps.
    let re = Arc::new(compile(pattern, case_insensitive)?);
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    if cache.len() >= CACHE_SIZE {
        cache.remove(0);
    }
    cache.push((pattern.to_string(), case_insensitive, re.clone()));
    Ok(re)
}

/// regex's messages are multi-line ASCII art pointing at the error; keep them as they are but
/// make sure the message is not enormous for an enormous pattern.
fn first_line_summary(msg: &str) -> String {
    if msg.len() <= 2000 {
        msg.to_string()
    } else {
        let mut end = 2000;
        while !msg.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &msg[..end])
    }
}

fn line_text(line: &[u8], max_chars: usize) -> String {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let s = String::from_utf8_lossy(line);
    match s.char_indices().nth(max_chars) {
        Some((i, _)) => s[..i].to_string(),
        None => s.into_owned(),
    }
}

/// Matching lines of one buffer, at most `limit` of them (0: unbounded).
fn grep_one(re: &Regex, buf: &[u8], index: usize, limit: usize, max_line_chars: usize, out: &mut Vec<GrepMatch>) {
    let mut pos = 0usize; // search resumes here (always a line start)
    let mut line_no = 1usize; // line number of `counted`
    let mut counted = 0usize; // newlines before this offset are counted in line_no
    let mut found = 0usize;
    while pos <= buf.len() {
        let Some(m) = re.find_at(buf, pos) else { break };
        let start = match memchr::memrchr(b'\n', &buf[..m.start()]) {
            Some(i) => i + 1,
            None => 0,
        };
        let end = memchr::memchr(b'\n', &buf[m.start()..]).map_or(buf.len(), |i| m.start() + i);
        // An empty match at the very end of a newline-terminated buffer is not a line.
        if start == buf.len() && start > 0 {
            break;
        }
        let line = &buf[start..end];
        let confirmed = m.end() <= end || re.is_match(line);
        if confirmed {
            line_no += memchr::memchr_iter(b'\n', &buf[counted..start]).count();
            counted = start;
            out.push(GrepMatch { index, line: line_no, text: line_text(line, max_line_chars) });
            found += 1;
            if limit > 0 && found >= limit {
                return;
            }
        }
        pos = end + 1;
    }
}

/// Greps every buffer, in order. Buffers are independent: matches never span two of them.
pub fn grep<T: AsRef<[u8]>>(pattern: &str, buffers: &[T], opts: &GrepOptions) -> Result<GrepResult, InvalidRegex> {
    let re = compile_cached(pattern, opts.case_insensitive)?;
    Ok(grep_compiled(&re, buffers, opts))
}

pub fn grep_compiled<T: AsRef<[u8]>>(re: &Regex, buffers: &[T], opts: &GrepOptions) -> GrepResult {
    let mut res = GrepResult::default();
    let max = opts.max_matches;
    if max == 0 {
        res.truncated = !buffers.is_empty();
        return res;
    }
    for (i, b) in buffers.iter().enumerate() {
        let room = max - res.matches.len();
        // One more than the room, to know whether the bound cut anything.
        let limit = if opts.max_per_buffer > 0 { opts.max_per_buffer.min(room + 1) } else { room + 1 };
        grep_one(re, b.as_ref(), i, limit, opts.max_line_chars, &mut res.matches);
        if res.matches.len() > max {
            res.matches.truncate(max);
            res.truncated = true;
            break;
        }
    }
    res
}

/// Same as `grep` on up to `threads` threads over contiguous ranges of buffers (balanced by
/// bytes); the result is identical to the single-threaded one.
pub fn grep_parallel<T: AsRef<[u8]> + Sync>(
    pattern: &str,
    buffers: &[T],
    opts: &GrepOptions,
    threads: usize,
) -> Result<GrepResult, InvalidRegex> {
    let re = compile_cached(pattern, opts.case_insensitive)?;
    let re: &Regex = &re;
    let total: usize = buffers.iter().map(|b| b.as_ref().len()).sum();
    let threads = threads.min(crate::hash::available_threads()).max(1).min(buffers.len().max(1));
    if threads < 2 || total < 1 << 20 {
        return Ok(grep_compiled(re, buffers, opts));
    }
    let per_thread = total.div_ceil(threads);
    let mut ranges = Vec::with_capacity(threads);
    let (mut start, mut acc) = (0usize, 0usize);
    for (i, b) in buffers.iter().enumerate() {
        acc += b.as_ref().len();
        if acc >= per_thread && ranges.len() + 1 < threads {
            ranges.push(start..i + 1);
            start = i + 1;
            acc = 0;
        }
    }
    ranges.push(start..buffers.len());
    // Each range is bounded by max_matches on its own; merging in order and cutting gives the
    // same first `max_matches` lines as a sequential scan. `Regex` is Sync and shares its
    // compiled program; each thread gets its own search cache from the pool inside.
    let parts: Vec<GrepResult> = std::thread::scope(|scope| {
        let handles: Vec<_> = ranges
            .iter()
            .map(|r| {
                let r = r.clone();
                scope.spawn(move || {
                    let mut part = grep_compiled(re, &buffers[r.clone()], opts);
                    part.matches.iter_mut().for_each(|m| m.index += r.start);
                    part
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("grep thread panicked")).collect()
    });
    let mut res = GrepResult::default();
    for part in parts {
        let room = opts.max_matches - res.matches.len();
        if part.matches.len() > room || (part.truncated && part.matches.len() == room) {
            res.matches.extend(part.matches.into_iter().take(room));
            res.truncated = true;
            break;
        }
        res.matches.extend(part.matches);
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(r: &GrepResult) -> Vec<(usize, usize, &str)> {
        r.matches.iter().map(|m| (m.index, m.line, m.text.as_str())).collect()
    }

    #[test]
    fn finds_lines_across_buffers() {
        let bufs = ["alpha\nbeta\ngamma beta\n", "no match here", "beta"];
        let r = grep("beta", &bufs, &GrepOptions::default()).unwrap();
        assert_eq!(lines(&r), [(0, 2, "beta"), (0, 3, "gamma beta"), (2, 1, "beta")]);
        assert!(!r.truncated);
    }

    #[test]
    fn one_entry_per_line_and_crlf_stripped() {
        let r = grep("o", &["foo boo\r\nxo\r\n"], &GrepOptions::default()).unwrap();
        assert_eq!(lines(&r), [(0, 1, "foo boo"), (0, 2, "xo")]);
    }

    #[test]
    fn case_insensitive_and_unicode() {
        let bufs = ["Error: disk full\nerror: retry\nERRÖR"];
        let r = grep("error", &bufs, &GrepOptions::default()).unwrap();
        assert_eq!(r.matches.len(), 1);
        let r = grep("error", &bufs, &GrepOptions { case_insensitive: true, ..Default::default() }).unwrap();
        assert_eq!(r.matches.len(), 2);
        let r = grep("errör", &bufs, &GrepOptions { case_insensitive: true, ..Default::default() }).unwrap();
        assert_eq!(lines(&r), [(0, 3, "ERRÖR")]);
    }

    #[test]
    fn anchors_are_per_line() {
        let r = grep("^b", &["a\nb1\nab\nb2"], &GrepOptions::default()).unwrap();
        assert_eq!(lines(&r), [(0, 2, "b1"), (0, 4, "b2")]);
        let r = grep("x$", &["ax\nxa\nbx"], &GrepOptions::default()).unwrap();
        assert_eq!(lines(&r), [(0, 1, "ax"), (0, 3, "bx")]);
    }

    #[test]
    fn matches_never_span_lines() {
        // `a\sb` matches "a\nb" in the whole buffer, but no single line has it.
        let r = grep(r"a\sb", &["xa\nbx\na b"], &GrepOptions::default()).unwrap();
        assert_eq!(lines(&r), [(0, 3, "a b")]);
        // A cross-line candidate must not hide a real match later on the same line.
        let r = grep(r"x\s*y|z", &["x  z\ny"], &GrepOptions::default()).unwrap();
        assert_eq!(lines(&r), [(0, 1, "x  z")]);
    }

    #[test]
    fn bounds_and_truncation() {
        let buf = "hit\n".repeat(10);
        let r = grep("hit", &[buf.as_str(), buf.as_str()], &GrepOptions { max_matches: 15, ..Default::default() }).unwrap();
        assert_eq!(r.matches.len(), 15);
        assert!(r.truncated);
        assert_eq!(r.matches[14].index, 1);
        let r = grep("hit", &[buf.as_str()], &GrepOptions { max_matches: 10, ..Default::default() }).unwrap();
        assert_eq!(r.matches.len(), 10);
        assert!(!r.truncated, "exactly max_matches is not truncation");
        let r = grep("hit", &[buf.as_str(), buf.as_str()], &GrepOptions { max_per_buffer: 2, ..Default::default() }).unwrap();
        assert_eq!(lines(&r), [(0, 1, "hit"), (0, 2, "hit"), (1, 1, "hit"), (1, 2, "hit")]);
        let long = "y".repeat(5000);
        let r = grep("y", &[long.as_str()], &GrepOptions { max_line_chars: 10, ..Default::default() }).unwrap();
        assert_eq!(r.matches[0].text, "yyyyyyyyyy");
    }

    #[test]
    fn empty_pattern_and_empty_lines() {
        let r = grep("", &["a\n\nb\n"], &GrepOptions::default()).unwrap();
        assert_eq!(lines(&r), [(0, 1, "a"), (0, 2, ""), (0, 3, "b")]);
        let r = grep("^$", &["a\n\nb"], &GrepOptions::default()).unwrap();
        assert_eq!(lines(&r), [(0, 2, "")]);
        let r = grep("x", &[""], &GrepOptions::default()).unwrap();
        assert!(r.matches.is_empty());
    }

    #[test]
    fn invalid_and_oversized_patterns_are_errors() {
        assert!(grep("(unclosed", &["x"], &GrepOptions::default()).is_err());
        assert!(grep("a{1000}{1000}", &["x"], &GrepOptions::default()).is_err());
        // Backreferences and lookaround do not exist in a linear-time engine.
        assert!(grep(r"(a)\1", &["aa"], &GrepOptions::default()).is_err());
    }

    #[test]
    fn cached_patterns_keep_case_sensitivity_apart() {
        let bufs = ["Alpha", "alpha"];
        for _ in 0..2 {
            assert_eq!(grep("alpha", &bufs, &GrepOptions::default()).unwrap().matches.len(), 1);
            let ci = GrepOptions { case_insensitive: true, ..Default::default() };
            assert_eq!(grep("alpha", &bufs, &ci).unwrap().matches.len(), 2);
        }
        for i in 0..(CACHE_SIZE * 2) {
            assert!(grep(&format!("x{i}"), &bufs, &GrepOptions::default()).unwrap().matches.is_empty());
        }
        assert!(CACHE.lock().unwrap().len() <= CACHE_SIZE);
        assert!(grep("(bad", &bufs, &GrepOptions::default()).is_err());
        assert!(grep("(bad", &bufs, &GrepOptions::default()).is_err());
    }

    #[test]
    fn pathological_pattern_is_linear() {
        // Exponential for a backtracking engine; a blink here.
        let s = format!("{}!", "a".repeat(100_000));
        let r = grep("(a+)+$", &[s.as_str()], &GrepOptions::default()).unwrap();
        assert!(r.matches.is_empty());
    }

    #[test]
    fn invalid_utf8_is_searched_lossily() {
        let buf: &[u8] = b"ok\n\xff\xfe needle\n";
        let r = grep("needle", &[buf], &GrepOptions::default()).unwrap();
        assert_eq!(r.matches[0].line, 2);
        assert!(r.matches[0].text.ends_with(" needle"));
    }

    #[test]
    fn parallel_equals_sequential() {
        let bufs: Vec<String> = (0..400)
            .map(|i| (0..100).map(|l| format!("file {i} line {l} padding-padding {}\n", if (i * l) % 17 == 0 { "needle" } else { "hay" })).collect())
            .collect();
        for max in [5, 100, 100_000] {
            let o = GrepOptions { max_matches: max, ..Default::default() };
            let a = grep("needle", &bufs, &o).unwrap();
            let b = grep_parallel("needle", &bufs, &o, 4).unwrap();
            assert_eq!(a, b, "max {max}");
        }
    }
}
