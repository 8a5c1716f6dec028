//! N-API surface of ctx. Each module wraps one area of the plain-Rust crates; keep logic out of
//! here. Names are camelCased by napi-derive (`hash_many` → `hashMany`) and `@napi-rs/cli`
//! generates `core-native/index.d.cts` from these declarations, which `runtime/native.ts` uses as
//! its types. Errors and panics: see `error.rs`.
mod error;
mod hash;
mod info;
mod json;
mod neural;
mod outline;
mod text;
mod vector;
