use ctx_core::hash;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{fail, guard, Code, Job, Result};

const IO: Code = Code("IO");

fn io_error(path: &str, e: std::io::Error) -> napi::Error<Code> {
    fail(IO, format!("{path}: {e}"))
}

/// SHA-256 hex digests of many buffers in one call.
#[napi]
pub fn sha256_many(buffers: Vec<Buffer>) -> Result<Vec<String>> {
    guard(|| Ok(hash::sha256_many_hex(&slices(&buffers))))
}

/// Plain slices are `Sync` (napi's `Buffer` is not), so the core may hash them on several threads.
fn slices(buffers: &[Buffer]) -> Vec<&[u8]> {
    buffers.iter().map(|b| b.as_ref()).collect()
}

/// Same as `sha256Many`, on the libuv thread pool. The buffers must not be mutated until the
/// promise settles (they are read in place, not copied).
#[napi(ts_return_type = "Promise<string[]>")]
pub fn sha256_many_async(buffers: Vec<Buffer>) -> AsyncTask<Job<Vec<String>, Vec<String>>> {
    Job::new(move || Ok(hash::sha256_many_hex(&slices(&buffers))), |v| v)
}

#[napi(object)]
pub struct FileDigest {
    /// Lower-case hex.
    pub sha256: String,
    pub size: f64,
}

fn digests(v: Vec<(String, u64)>) -> Vec<FileDigest> {
    v.into_iter().map(|(sha256, size)| FileDigest { sha256, size: size as f64 }).collect()
}

/// Streams one file through SHA-256 on the calling thread. Errors: `IO`.
#[napi]
pub fn sha256_file(path: String) -> Result<FileDigest> {
    guard(|| {
        let (sha256, size) = hash::sha256_file(std::path::Path::new(&path)).map_err(|e| io_error(&path, e))?;
        Ok(FileDigest { sha256, size: size as f64 })
    })
}

/// Streams files through SHA-256 off the JS thread, several at a time (`threads` defaults to the
/// number of cores); order is preserved. Rejects with `IO` for the first unreadable file.
#[napi(ts_return_type = "Promise<FileDigest[]>")]
pub fn sha256_files_async(paths: Vec<String>, threads: Option<u32>) -> AsyncTask<Job<Vec<(String, u64)>, Vec<FileDigest>>> {
    let threads = threads.map(|t| t as usize).unwrap_or_else(hash::available_threads);
    Job::new(
        move || {
            let results = hash::sha256_files(&paths, threads);
            let mut out = Vec::with_capacity(results.len());
            for (path, r) in paths.iter().zip(results) {
                out.push(r.map_err(|e| io_error(path, e))?);
            }
            Ok(out)
        },
        digests,
    )
}
