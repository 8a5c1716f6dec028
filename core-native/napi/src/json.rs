use ctx_core::json;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{guard, invalid, Result};

/// Byte length of the JSON string literal of UTF-8 bytes (as `JSON.stringify(buf.toString())`
/// writes it), or -1 when the bytes are not valid UTF-8.
#[napi]
pub fn json_quoted_len(src: Buffer) -> Result<i64> {
    guard(|| Ok(json::quoted_len(src.as_ref()).map_or(-1, |n| n as i64)))
}

/// Writes that literal into `dst` at `offset` (so a response envelope is built with one
/// allocation and no intermediate copy); returns the bytes written. `src` must be valid UTF-8 and
/// `dst` must have room (check with `jsonQuotedLen`), else `INVALID_ARGUMENT`.
#[napi]
pub fn json_quote_into(src: Buffer, mut dst: Buffer, offset: u32) -> Result<u32> {
    guard(|| {
        let src = src.as_ref();
        let need = json::quoted_len(src).ok_or_else(|| invalid("source is not valid UTF-8"))?;
        let start = offset as usize;
        let out: &mut [u8] = dst.as_mut();
        if start > out.len() || out.len() - start < need {
            return Err(invalid(format!("destination has {} bytes after offset {start}, {need} needed", out.len().saturating_sub(start))));
        }
        Ok(json::quote_into(src, &mut out[start..start + need]) as u32)
    })
}

/// The JSON string literal of UTF-8 bytes as a new buffer (`INVALID_ARGUMENT` for invalid UTF-8).
/// What the wasm build uses for `jsonQuoteInto`: a wasm module sees a copy of a JS buffer in its
/// own memory, so a write into it never reaches the caller; the literal comes back instead.
#[napi]
pub fn json_quote(src: Buffer) -> Result<Buffer> {
    guard(|| {
        let src = src.as_ref();
        let need = json::quoted_len(src).ok_or_else(|| invalid("source is not valid UTF-8"))?;
        let mut out = vec![0u8; need];
        json::quote_into(src, &mut out);
        Ok(out.into())
    })
}
