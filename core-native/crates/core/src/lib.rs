//! Pure-Rust kernels of ctx. Nothing here knows about Node: the `napi` crate wraps these
//! functions, and they are tested with `cargo test -p ctx-core`.
pub mod hash;
pub mod embed;
pub mod grep;
pub mod json;
pub mod text;
