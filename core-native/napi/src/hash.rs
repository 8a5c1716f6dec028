use ctx_core::hash;
use napi::bindgen_prelude::*;
use napi::{Env, Task};
use napi_derive::napi;

fn io_error(path: &str, e: std::io::Error) -> Error {
    Error::new(Status::GenericFailure, format!("IO: {path}: {e}"))
}

/// SHA-256 hex digests of many buffers in one call.
#[napi]
pub fn sha256_many(buffers: Vec<Buffer>) -> Vec<String> {
    hash::sha256_many_hex(&slices(&buffers))
}

/// Plain slices are `Sync` (napi's `Buffer` is not), so the core may hash them on several threads.
fn slices(buffers: &[Buffer]) -> Vec<&[u8]> {
    buffers.iter().map(|b| b.as_ref()).collect()
}

pub struct Sha256ManyTask(Vec<Buffer>);

impl Task for Sha256ManyTask {
    type Output = Vec<String>;
    type JsValue = Vec<String>;
    fn compute(&mut self) -> Result<Self::Output> {
        Ok(hash::sha256_many_hex(&slices(&self.0)))
    }
    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output)
    }
}

/// Same as `sha256Many`, on the libuv thread pool. The buffers must not be mutated until the
/// promise settles (they are read in place, not copied).
#[napi(ts_return_type = "Promise<string[]>")]
pub fn sha256_many_async(buffers: Vec<Buffer>) -> AsyncTask<Sha256ManyTask> {
    AsyncTask::new(Sha256ManyTask(buffers))
}

#[napi(object)]
pub struct FileDigest {
    pub sha256: String,
    pub size: f64,
}

/// Streams one file through SHA-256 on the calling thread.
#[napi]
pub fn sha256_file(path: String) -> Result<FileDigest> {
    let (sha256, size) = hash::sha256_file(std::path::Path::new(&path)).map_err(|e| io_error(&path, e))?;
    Ok(FileDigest { sha256, size: size as f64 })
}

pub struct Sha256FilesTask {
    paths: Vec<String>,
    threads: usize,
}

impl Task for Sha256FilesTask {
    type Output = Vec<(String, u64)>;
    type JsValue = Vec<FileDigest>;
    fn compute(&mut self) -> Result<Self::Output> {
        let results = hash::sha256_files(&self.paths, self.threads);
        let mut out = Vec::with_capacity(results.len());
        for (path, r) in self.paths.iter().zip(results) {
            out.push(r.map_err(|e| io_error(path, e))?);
        }
        Ok(out)
    }
    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output.into_iter().map(|(sha256, size)| FileDigest { sha256, size: size as f64 }).collect())
    }
}

/// Streams files through SHA-256 off the JS thread, several at a time (`threads` defaults to the
/// number of cores). Rejects with the first unreadable file.
#[napi(ts_return_type = "Promise<FileDigest[]>")]
pub fn sha256_files_async(paths: Vec<String>, threads: Option<u32>) -> AsyncTask<Sha256FilesTask> {
    let threads = threads.map(|t| t as usize).unwrap_or_else(hash::available_threads);
    AsyncTask::new(Sha256FilesTask { paths, threads })
}
