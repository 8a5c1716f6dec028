//! How the addon fails. Every error it throws or rejects with is a JS `Error` whose `code`
//! property is a stable string (`INVALID_ARGUMENT`, `INVALID_REGEX`, `IO`, `INTERNAL`, the
//! `VECTOR_INDEX_*` codes of ctx-vector) and whose message does not repeat it: callers branch on
//! `err.code`, never on the text. Every export runs its body under `guard`, so a bug in the core
//! (a panic) becomes an `INTERNAL` error instead of unwinding into N-API or a libuv worker, where
//! it would abort the whole server.
use std::fmt::Display;
use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::{JsError, ToNapiValue, TypeName};
use napi::{Env, Task};

/// The `code` of a thrown error (napi-rs writes an error's status string there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code(pub &'static str);

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.0
    }
}

pub const INVALID_ARGUMENT: Code = Code("INVALID_ARGUMENT");
pub const INTERNAL: Code = Code("INTERNAL");

/// Named `Result` on purpose: napi-derive recognises a result return type by that name and throws
/// its error with the error's own status (here our code) rather than napi's `GenericFailure`.
pub type Result<T> = std::result::Result<T, napi::Error<Code>>;

pub fn fail(code: Code, message: impl Display) -> napi::Error<Code> {
    napi::Error::new(code, message.to_string())
}

pub fn invalid(message: impl Display) -> napi::Error<Code> {
    fail(INVALID_ARGUMENT, message)
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "unknown panic payload".to_string())
}

/// Runs an export's body, turning a panic into an `INTERNAL` error.
pub fn guard<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(fail(INTERNAL, format!("core-native panicked: {}", panic_message(&*p)))))
}

type Work<T> = Box<dyn FnOnce() -> Result<T> + Send>;

/// Work for the libuv pool: `work` runs there (guarded), `finish` converts its output on the JS
/// thread. napi-rs's `Task` can only reject with its own status codes, so a failure travels as
/// (code, message) and becomes the coded JS error in `resolve`.
pub struct Job<T: Send + 'static, J> {
    work: Option<Work<T>>,
    finish: fn(T) -> J,
}

impl<T: Send + 'static, J> Job<T, J> {
    pub fn new(work: impl FnOnce() -> Result<T> + Send + 'static, finish: fn(T) -> J) -> napi::bindgen_prelude::AsyncTask<Self>
    where
        J: ToNapiValue + TypeName,
    {
        napi::bindgen_prelude::AsyncTask::new(Job { work: Some(Box::new(work)), finish })
    }
}

impl<T: Send + 'static, J: ToNapiValue + TypeName> Task for Job<T, J> {
    type Output = std::result::Result<T, (Code, String)>;
    type JsValue = J;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let work = self.work.take();
        let out = guard(|| match work {
            Some(w) => w(),
            None => Err(fail(INTERNAL, "async job computed twice")),
        });
        Ok(out.map_err(|e| (e.status, e.reason)))
    }

    fn resolve(&mut self, env: Env, out: Self::Output) -> napi::Result<J> {
        match out {
            Ok(v) => Ok((self.finish)(v)),
            // The rejection is the coded JS error itself, retained as a value: napi's
            // `From<Unknown>` keeps no reference under wasm (it rebuilds an error from the
            // message, with `GenericFailure` for the code), `from_unknown_without_coercion`
            // retains the value on both builds.
            Err((code, message)) => Err(napi::Error::from_unknown_without_coercion(JsError::from(fail(code, message)).into_unknown(env))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_in_an_export_becomes_an_internal_error() {
        let r: Result<()> = guard(|| panic!("index out of bounds"));
        let e = r.err().expect("the panic is caught");
        assert_eq!(e.status, INTERNAL);
        assert!(e.reason.contains("index out of bounds"), "{}", e.reason);
    }

    #[test]
    fn a_panic_in_async_work_becomes_an_internal_failure() {
        let mut job: Job<u32, u32> = Job { work: Some(Box::new(|| panic!("in the pool"))), finish: |v| v };
        match Task::compute(&mut job) {
            Ok(Err((code, message))) => {
                assert_eq!(code, INTERNAL);
                assert!(message.contains("in the pool"), "{message}");
            }
            _ => panic!("expected a coded failure"),
        }
    }

    #[test]
    fn an_error_keeps_its_code() {
        let mut job: Job<u32, u32> = Job { work: Some(Box::new(|| Err(fail(Code("VECTOR_INDEX_CORRUPT"), "bad checksum")))), finish: |v| v };
        assert!(matches!(Task::compute(&mut job), Ok(Err((Code("VECTOR_INDEX_CORRUPT"), m))) if m == "bad checksum"));
    }
}
