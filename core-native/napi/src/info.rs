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
