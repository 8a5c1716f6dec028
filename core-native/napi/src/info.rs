use napi_derive::napi;

/// Which build of the core this is; `GET /api/v1/system/status` reports it.
#[napi(object)]
pub struct CoreInfo {
    /// `native` (the platform addon) or `wasm` (wasm32-wasip1-threads, loaded through
    /// @napi-rs/wasm-runtime).
    #[napi(ts_type = "'native' | 'wasm'")]
    pub kind: String,
    /// The ctx-native crate version.
    pub version: String,
    /// `faiss` when the HNSW graph is FAISS's, `rust` when it is the pure-Rust one.
    #[napi(ts_type = "'faiss' | 'rust'")]
    pub graph: String,
}

#[napi]
pub fn core_info() -> CoreInfo {
    CoreInfo {
        kind: if cfg!(target_arch = "wasm32") { "wasm" } else { "native" }.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        graph: if cfg!(feature = "faiss") { "faiss" } else { "rust" }.into(),
    }
}

/// Panics on purpose with `message`: the fault that tests the recovery from a panic. Natively
/// `guard` turns it into an `INTERNAL` error; under wasm, where a panic aborts, it traps the
/// instance and runtime/native.ts replaces the instance. ctx itself never calls it.
#[napi]
pub fn debug_panic(message: String) -> crate::error::Result<()> {
    crate::error::guard(|| panic!("{message}"))
}

/// Same, in async work: on the libuv pool natively, on a wasi worker thread under wasm.
#[napi(ts_return_type = "Promise<void>")]
pub fn debug_panic_async(message: String) -> napi::bindgen_prelude::AsyncTask<crate::error::Job<(), ()>> {
    crate::error::Job::new(move || panic!("{message}"), |()| ())
}
