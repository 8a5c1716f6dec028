//! JSON string literals straight from UTF-8 bytes, so a large file can be put into a JSON
//! response without decoding it into a JavaScript string and encoding it back.

/// `"..."` of `src` exactly as JavaScript's `JSON.stringify(text)` writes it for the decoded text
/// (`\"`, `\\`, `\b \f \n \r \t`, other controls as lowercase `\u00xx`, everything else verbatim),
/// or `None` when `src` is not valid UTF-8 (the caller then decodes with replacement characters).
pub fn quote_utf8(src: &[u8]) -> Option<Vec<u8>> {
    let len = quoted_len(src)?;
    let mut out = vec![0u8; len];
    quote_into(src, &mut out);
    Some(out)
}

/// Length of the quoted form, or `None` when `src` is not valid UTF-8.
pub fn quoted_len(src: &[u8]) -> Option<usize> {
    std::str::from_utf8(src).ok()?;
    let mut len = src.len() + 2;
    scan(src, |_, b| len += if short_escape(b) != 0 { 1 } else { 5 });
    Some(len)
}

/// Writes the quoted form of (valid UTF-8) `src` at the start of `out`, which must hold at least
/// `quoted_len(src)` bytes, so callers can place it inside a larger buffer without another copy.
/// Returns the number of bytes written.
pub fn quote_into(src: &[u8], out: &mut [u8]) -> usize {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out[0] = b'"';
    let mut o = 1;
    let mut run = 0;
    scan(src, |i, b| {
        let plain = i - run;
        out[o..o + plain].copy_from_slice(&src[run..i]);
        o += plain;
        run = i + 1;
        let short = short_escape(b);
        if short != 0 {
            out[o] = b'\\';
            out[o + 1] = short;
            o += 2;
        } else {
            out[o..o + 6].copy_from_slice(&[b'\\', b'u', b'0', b'0', HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]);
            o += 6;
        }
    });
    let plain = src.len() - run;
    out[o..o + plain].copy_from_slice(&src[run..]);
    o += plain;
    out[o] = b'"';
    o + 1
}

/// Calls `f(index, byte)` for every byte that needs escaping, in order: 16 bytes per step with
/// SSE2 (part of the x86-64 baseline), else 8 per step with SWAR arithmetic.
#[inline]
fn scan(src: &[u8], mut f: impl FnMut(usize, u8)) {
    let mut base = 0;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let mut chunks = src.chunks_exact(16);
        // SAFETY: SSE2 is always available on x86_64; `loadu` reads exactly the 16 bytes of the
        // chunk and has no alignment requirement.
        unsafe {
            let max_control = _mm_set1_epi8(0x1f);
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            for chunk in &mut chunks {
                let v = _mm_loadu_si128(chunk.as_ptr() as *const __m128i);
                // Unsigned v <= 0x1f: max(v, 0x1f) == 0x1f.
                let control = _mm_cmpeq_epi8(_mm_max_epu8(v, max_control), max_control);
                let special = _mm_or_si128(control, _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
                let mut mask = _mm_movemask_epi8(special) as u32;
                while mask != 0 {
                    let i = base + mask.trailing_zeros() as usize;
                    f(i, src[i]);
                    mask &= mask - 1;
                }
                base += 16;
            }
        }
    }
    let rest = &src[base..];
    let mut chunks = rest.chunks_exact(8);
    for chunk in &mut chunks {
        let mut mask = escape_mask(u64::from_le_bytes(chunk.try_into().unwrap()));
        while mask != 0 {
            let i = base + (mask.trailing_zeros() / 8) as usize;
            f(i, src[i]);
            mask &= mask - 1;
        }
        base += 8;
    }
    for (j, &b) in chunks.remainder().iter().enumerate() {
        if b < 0x20 || b == b'"' || b == b'\\' {
            f(base + j, b);
        }
    }
}

/// 0x80 in exactly the bytes of `w` that are below 0x20, `"` or `\\` (exact SWAR tests: the
/// additions never carry across bytes because the high bit is masked off first).
#[inline]
fn escape_mask(w: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let is_zero = |x: u64| !(((x & LOW7) + LOW7) | x | LOW7);
    let below_space = !(((w & LOW7) + ONES * (0x80 - 0x20)) | w) & HIGH;
    below_space | is_zero(w ^ (ONES * b'"' as u64)) | is_zero(w ^ (ONES * b'\\' as u64))
}

/// The letter of a two-character escape, or 0 for the `\u00xx` form.
#[inline]
fn short_escape(b: u8) -> u8 {
    match b {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::{escape_mask, quote_utf8};

    #[test]
    fn swar_mask_is_exact() {
        for b in 0..=255u8 {
            for pos in 0..8 {
                let mut bytes = [b'a'; 8];
                bytes[pos] = b;
                let want = if b < 0x20 || b == b'"' || b == b'\\' { 0x80u64 << (pos * 8) } else { 0 };
                assert_eq!(escape_mask(u64::from_le_bytes(bytes)), want, "byte {b:#x} at {pos}");
            }
        }
    }

    #[test]
    fn escapes_like_json_stringify() {
        let q = |s: &str| String::from_utf8(quote_utf8(s.as_bytes()).unwrap()).unwrap();
        assert_eq!(q(""), "\"\"");
        assert_eq!(q("plain é 😀 \u{2028}"), "\"plain é 😀 \u{2028}\"");
        assert_eq!(q("a\"b\\c\nd\re\tf\u{8}g\u{c}h"), r#""a\"b\\c\nd\re\tf\bg\fh""#);
        assert_eq!(q("\u{0}\u{1}\u{1f}\u{7f}"), "\"\\u0000\\u0001\\u001f\u{7f}\"");
        let long = "0123456789abcdef\"ü\\x\u{1}y\nz".repeat(50);
        let expected: String = format!("\"{}\"", long.replace('\\', "\\\\").replace('"', "\\\"").replace('\u{1}', "\\u0001").replace('\n', "\\n"));
        assert_eq!(q(&long), expected);
    }

    #[test]
    fn refuses_invalid_utf8() {
        assert!(quote_utf8(&[0x61, 0xff, 0x62]).is_none());
        assert!(quote_utf8(&[0xed, 0xa0, 0x80]).is_none()); // an encoded surrogate
    }
}
