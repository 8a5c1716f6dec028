//! Code outlines (ctx-outline): one file on the calling thread, or many off the JS thread.
use ctx_outline::{Language, Outline, OutlineError, Symbol};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{guard, invalid, Job, Result};

#[napi(object)]
pub struct CodeSymbol {
    /// `class`, `interface`, `type`, `enum`, `struct`, `trait`, `impl`, `module`, `function`,
    /// `method`, `constructor`, `property`, `field`, `variable`, `const` or `macro`.
    pub kind: String,
    pub name: String,
    /// 1-based, inclusive.
    pub start_line: u32,
    pub end_line: u32,
    /// The declaration's first source line, trimmed (at most 200 characters).
    pub signature: String,
    pub children: Vec<CodeSymbol>,
}

#[napi(object)]
pub struct CodeOutline {
    /// `typescript`, `tsx`, `javascript`, `python`, `go`, `rust`, `java`, `c` or `cpp`.
    pub language: String,
    pub line_count: u32,
    pub symbols: Vec<CodeSymbol>,
    /// The source has syntax errors; the symbols are those still recognised.
    pub has_errors: bool,
}

#[napi(object)]
pub struct CodeOutlineInput {
    pub source: String,
    /// A language name (`outlineLanguages()`); when omitted, chosen from `path`'s extension.
    pub language: Option<String>,
    pub path: Option<String>,
}

/// One file of a bulk call: its outline, or why there is none.
#[napi(object)]
pub struct CodeOutlineResult {
    pub outline: Option<CodeOutline>,
    pub error: Option<String>,
}

fn symbol(s: Symbol) -> CodeSymbol {
    CodeSymbol {
        kind: s.kind.to_string(),
        name: s.name,
        start_line: s.start_line,
        end_line: s.end_line,
        signature: s.signature,
        children: s.children.into_iter().map(symbol).collect(),
    }
}

fn to_js(o: Outline) -> CodeOutline {
    CodeOutline { language: o.language.name().to_string(), line_count: o.line_count, symbols: o.symbols.into_iter().map(symbol).collect(), has_errors: o.has_errors }
}

fn language(name: &str) -> Result<Language> {
    Language::from_name(name).ok_or_else(|| invalid(format!("unsupported language {name:?}")))
}

/// The names `outlineCode` accepts (aliases such as `ts` or `py` work too).
#[napi]
pub fn outline_languages() -> Vec<String> {
    Language::ALL.iter().map(|l| l.name().to_string()).collect()
}

/// The outline language of a file by its extension, or null when none applies.
#[napi]
pub fn outline_language_of(path: String) -> Option<String> {
    Language::from_path(&path).map(|l| l.name().to_string())
}

/// The outline of one source on the calling thread (a 5,000-line file takes a few ms).
/// Throws `INVALID_ARGUMENT` for an unknown language or a source over the size limit.
#[napi]
pub fn outline_code(source: String, language_name: String) -> Result<CodeOutline> {
    guard(|| {
        let lang = language(&language_name)?;
        ctx_outline::outline(&source, lang).map(to_js).map_err(invalid)
    })
}

type Bulk = Vec<std::result::Result<Outline, String>>;

fn finish_bulk(items: Bulk) -> Vec<CodeOutlineResult> {
    items
        .into_iter()
        .map(|r| match r {
            Ok(o) => CodeOutlineResult { outline: Some(to_js(o)), error: None },
            Err(e) => CodeOutlineResult { outline: None, error: Some(e) },
        })
        .collect()
}

/// Outlines of many sources on the libuv pool (spread over up to `threads` threads, default the
/// core count), in input order. A file without a usable language, too large or unparsable gets an
/// `error` instead of an `outline`; the call itself only fails on a bug.
#[napi(ts_return_type = "Promise<Array<CodeOutlineResult>>")]
pub fn outline_code_bulk(inputs: Vec<CodeOutlineInput>, threads: Option<u32>) -> AsyncTask<Job<Bulk, Vec<CodeOutlineResult>>> {
    let threads = threads.map_or_else(ctx_core_threads, |t| t.max(1) as usize);
    Job::new(
        move || {
            let mut out: Bulk = (0..inputs.len()).map(|_| Err(String::new())).collect();
            let mut work: Vec<(String, Language)> = Vec::with_capacity(inputs.len());
            let mut slots = Vec::with_capacity(inputs.len());
            for (i, input) in inputs.into_iter().enumerate() {
                let lang = match (&input.language, &input.path) {
                    (Some(name), _) => Language::from_name(name).ok_or_else(|| format!("unsupported language {name:?}")),
                    (None, Some(path)) => Language::from_path(path).ok_or_else(|| format!("no outline language for {path}")),
                    (None, None) => Err("neither a language nor a path".to_string()),
                };
                match lang {
                    Ok(l) => {
                        work.push((input.source, l));
                        slots.push(i);
                    }
                    Err(e) => out[i] = Err(e),
                }
            }
            for (slot, r) in slots.into_iter().zip(ctx_outline::outline_many(&work, threads)) {
                out[slot] = r.map_err(|e: OutlineError| e.to_string());
            }
            Ok(out)
        },
        finish_bulk,
    )
}

fn ctx_core_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(ctx_core::hash::available_threads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_languages_are_invalid_arguments() {
        let e = outline_code("x".into(), "cobol".into()).err().expect("refused");
        assert_eq!(e.status, crate::error::INVALID_ARGUMENT);
    }

    #[test]
    fn outlines_convert_with_their_nesting() {
        let o = outline_code("class A:\n    def f(self):\n        pass\n".into(), "py".into()).unwrap();
        assert_eq!(o.language, "python");
        assert_eq!(o.symbols[0].children[0].name, "f");
        assert_eq!(o.symbols[0].children[0].kind, "method");
        assert_eq!(outline_language_of("a/b.go".into()).as_deref(), Some("go"));
        assert_eq!(outline_language_of("a/b.txt".into()), None);
    }
}
