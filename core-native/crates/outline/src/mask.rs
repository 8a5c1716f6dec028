//! Body masking for TypeScript and JavaScript: the contents of every brace block that cannot hold
//! outline symbols (function and method bodies, object and type literals, statement blocks) are
//! replaced by spaces before parsing. Newlines stay, and every other byte becomes one space, so
//! lines and byte offsets are unchanged and symbols still come from the original text. The parser
//! then reads whitespace where most of a file's tokens were: parsing was the whole cost of an
//! outline (a 5,000-line file is mostly bodies).
//!
//! Blocks kept are those of classes, interfaces, namespaces and modules (`declare global` too),
//! whose members are symbols. The scan is a small lexer (strings, comments, template literals with
//! nested expressions, regular expression literals by the usual previous-token rule). It can be
//! wrong on unusual input; the caller parses the original whenever the masked text has a syntax
//! error or the scan did not balance, so a mistake costs time, not a wrong outline in practice.

const CONTAINER_WORDS: [&[u8]; 5] = [b"class", b"interface", b"namespace", b"module", b"global"];

/// Words after which a `/` starts a regular expression (they end no expression).
const REGEX_AFTER_WORDS: [&[u8]; 14] =
    [b"return", b"typeof", b"case", b"do", b"else", b"in", b"of", b"new", b"delete", b"void", b"throw", b"yield", b"await", b"instanceof"];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev {
    Start,
    /// An identifier, number, string, template, regex or `)` `]` `}`: a `/` after it divides.
    Value,
    /// An operator, other punctuation or a keyword: a `/` after it starts a regex.
    Operator,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tok {
    Punct(u8),
    Word(usize, usize),
    Literal,
    Eof,
}

struct Lexer<'a> {
    b: &'a [u8],
    i: usize,
    prev: Prev,
    /// The last punctuation byte or 0 after any other token.
    last_punct: u8,
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

impl<'a> Lexer<'a> {
    fn skip_trivia(&mut self) {
        let b = self.b;
        while self.i < b.len() {
            match b[self.i] {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => self.i += 1,
                b'/' if b.get(self.i + 1) == Some(&b'/') => {
                    while self.i < b.len() && b[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                b'/' if b.get(self.i + 1) == Some(&b'*') => {
                    self.i += 2;
                    while self.i < b.len() && !(b[self.i] == b'*' && b.get(self.i + 1) == Some(&b'/')) {
                        self.i += 1;
                    }
                    self.i = (self.i + 2).min(b.len());
                }
                _ => return,
            }
        }
    }

    /// A quoted string from its opening quote; an unterminated one ends at the line's end.
    fn string(&mut self, q: u8) {
        let b = self.b;
        self.i += 1;
        while self.i < b.len() {
            match b[self.i] {
                b'\\' => self.i += 2,
                b'\n' => return,
                c if c == q => {
                    self.i += 1;
                    return;
                }
                _ => self.i += 1,
            }
        }
    }

    /// A template literal from its backtick, `${...}` expressions lexed as code. False when unbalanced.
    fn template(&mut self) -> bool {
        let b = self.b;
        self.i += 1;
        while self.i < b.len() {
            match b[self.i] {
                b'\\' => self.i += 2,
                b'`' => {
                    self.i += 1;
                    return true;
                }
                b'$' if b.get(self.i + 1) == Some(&b'{') => {
                    self.i += 2;
                    self.prev = Prev::Operator;
                    // skip_block leaves the lexer just past the expression's closing brace.
                    if self.skip_block().is_none() {
                        return false;
                    }
                }
                _ => self.i += 1,
            }
        }
        false
    }

    fn regex(&mut self) {
        let b = self.b;
        self.i += 1;
        let mut class = false;
        while self.i < b.len() {
            match b[self.i] {
                b'\\' => self.i += 2,
                b'\n' => return,
                b'[' => {
                    class = true;
                    self.i += 1;
                }
                b']' => {
                    class = false;
                    self.i += 1;
                }
                b'/' if !class => {
                    self.i += 1;
                    while self.i < b.len() && is_word(b[self.i]) {
                        self.i += 1;
                    }
                    return;
                }
                _ => self.i += 1,
            }
        }
    }

    /// The next token; `None` when a template literal did not balance.
    fn next(&mut self) -> Option<Tok> {
        self.skip_trivia();
        let b = self.b;
        let Some(&c) = b.get(self.i) else { return Some(Tok::Eof) };
        let tok = match c {
            b'\'' | b'"' => {
                self.string(c);
                Tok::Literal
            }
            b'`' => {
                if !self.template() {
                    return None;
                }
                Tok::Literal
            }
            b'/' if self.prev != Prev::Value => {
                self.regex();
                Tok::Literal
            }
            c if is_word(c) => {
                let s = self.i;
                while self.i < b.len() && is_word(b[self.i]) {
                    self.i += 1;
                }
                Tok::Word(s, self.i)
            }
            _ => {
                self.i += 1;
                Tok::Punct(c)
            }
        };
        self.prev = match tok {
            Tok::Word(s, e) if REGEX_AFTER_WORDS.contains(&&b[s..e]) => Prev::Operator,
            Tok::Word(..) | Tok::Literal => Prev::Value,
            Tok::Punct(b')' | b']' | b'}') => Prev::Value,
            Tok::Punct(_) => Prev::Operator,
            Tok::Eof => self.prev,
        };
        self.last_punct = if let Tok::Punct(p) = tok { p } else { 0 };
        Some(tok)
    }

    /// From just after a `{`: the index of its matching `}` (the lexer stops on it), or None.
    fn skip_block(&mut self) -> Option<usize> {
        let mut depth = 1usize;
        loop {
            match self.next()? {
                Tok::Eof => return None,
                Tok::Punct(b'{') => depth += 1,
                Tok::Punct(b'}') => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(self.i - 1);
                    }
                }
                _ => {}
            }
        }
    }
}

/// The byte intervals of non-container block contents (each between a `{` and its `}`), in
/// order; None when there are none or the scan did not balance (the caller parses the original).
pub(crate) fn body_intervals(src: &[u8]) -> Option<Vec<(usize, usize)>> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut lx = Lexer { b: src, i: 0, prev: Prev::Start, last_punct: 0 };
    // Per open container: the bracket depth outside it. `header` is set when the statement being
    // read so far names a container keyword, so its `{` opens a body whose members are symbols.
    let mut containers: Vec<usize> = Vec::new();
    let mut brackets = 0usize;
    let mut header = false;
    let mut before_brace = 0u8;
    loop {
        let tok = lx.next()?;
        match tok {
            Tok::Eof => break,
            Tok::Word(s, e) => {
                if brackets == 0 && CONTAINER_WORDS.contains(&&src[s..e]) {
                    header = true;
                }
            }
            Tok::Punct(b'(' | b'[') => brackets += 1,
            Tok::Punct(b')' | b']') => brackets = brackets.saturating_sub(1),
            Tok::Punct(b';') if brackets == 0 => header = false,
            Tok::Punct(b'{') => {
                // `<{`, `:{`, `={`, `({`... open a type or value literal, never a container body.
                let is_body = header && brackets == 0 && !matches!(before_brace, b'<' | b',' | b':' | b'=' | b'|' | b'&' | b'(' | b'?');
                if is_body {
                    containers.push(brackets);
                    brackets = 0;
                    header = false;
                } else {
                    let start = lx.i;
                    let end = lx.skip_block()?;
                    if end > start {
                        out.push((start, end));
                    }
                    // What follows a block (`} catch`, `}, {`) cannot be a regex start either way.
                    lx.prev = Prev::Value;
                    // `header` stays: `class A extends mixin({...}) {` still reaches its body.
                }
            }
            Tok::Punct(b'}') => {
                brackets = containers.pop().unwrap_or(0);
                header = false;
            }
            _ => {}
        }
        before_brace = lx.last_punct;
    }
    (!out.is_empty()).then_some(out)
}

/// Tree-sitter ranges covering everything but `skip`: the parser never reads the skipped bytes
/// (no copy of the source, no whitespace to lex), and positions stay those of the whole file.
pub(crate) fn included_ranges(src: &[u8], skip: &[(usize, usize)]) -> Vec<tree_sitter::Range> {
    let mut line_starts = vec![0usize];
    line_starts.extend(memchr_iter(src).map(|i| i + 1));
    let point = |byte: usize| {
        let row = line_starts.partition_point(|&s| s <= byte) - 1;
        tree_sitter::Point { row, column: byte - line_starts[row] }
    };
    let mut ranges = Vec::with_capacity(skip.len() + 1);
    let mut from = 0usize;
    for &(s, e) in skip.iter().chain(std::iter::once(&(src.len(), src.len()))) {
        if s > from {
            ranges.push(tree_sitter::Range { start_byte: from, end_byte: s, start_point: point(from), end_point: point(s) });
        }
        from = e;
    }
    ranges
}

fn memchr_iter(b: &[u8]) -> impl Iterator<Item = usize> + '_ {
    b.iter().enumerate().filter(|(_, &c)| c == b'\n').map(|(i, _)| i)
}

/// The source with the intervals blanked (newlines kept): what the parser sees, for tests.
#[cfg(test)]
pub(crate) fn mask_bodies(src: &[u8]) -> Option<Vec<u8>> {
    let iv = body_intervals(src)?;
    let mut buf = src.to_vec();
    for (s, e) in iv {
        for c in &mut buf[s..e] {
            if *c != b'\n' && *c != b'\r' {
                *c = b' ';
            }
        }
    }
    Some(buf)
}

#[cfg(test)]
mod tests {
    use super::mask_bodies;

    fn masked(src: &str) -> String {
        String::from_utf8(mask_bodies(src.as_bytes()).unwrap_or_else(|| src.as_bytes().to_vec())).unwrap()
    }

    #[test]
    fn blanks_bodies_and_keeps_containers_lines_and_offsets() {
        let src = "class A extends B<{ x: 1 }> {\n  m() { return '}' + `${ {a: 1}.a }`; }\n}\nfunction f() {\n  const r = /}/g;\n  return r;\n}\n";
        let out = masked(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(out.starts_with("class A extends B<{      }> {\n  m() {"), "{out}");
        assert!(out.contains("function f() {\n"));
        assert!(!out.contains("return"), "{out}");
    }

    #[test]
    fn namespaces_modules_and_class_expressions_stay() {
        let out = masked("namespace N { export function g() { x(); } }\ndeclare module 'm' { function h(): void; }\nconst C = class { k() { y(); } };\n");
        assert!(out.contains("export function g() {"));
        assert!(out.contains("function h(): void;"));
        assert!(out.contains("const C = class { k() {"));
        assert!(!out.contains("x();") && !out.contains("y();"));
    }

    #[test]
    fn unbalanced_input_is_not_masked() {
        assert!(mask_bodies(b"function f() { if (x) {").is_none());
        assert!(mask_bodies(b"const t = `${ a ").is_none());
    }
}
