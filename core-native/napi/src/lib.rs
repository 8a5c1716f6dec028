//! N-API surface of ctx. Each module wraps one area of the plain-Rust crates; keep logic out of
//! here. Names are camelCased by napi-derive (`hash_many` → `hashMany`). Errors carry a stable
//! `code` string in their message prefix (`CODE: message`) that `runtime/native.ts` parses.
mod hash;
mod json;
mod text;
mod vector;
