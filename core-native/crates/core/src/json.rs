//! JSON string literals straight from UTF-8 bytes, so a large file can be put into a JSON
//! response without decoding it into a JavaScript string and encoding it back.

/// `"..."` of `src` exactly as JavaScript's `JSON.stringify(text)` writes it for the decoded text
/// (`\"`, `\\`, `\b \f \n \r \t`, other controls as lowercase `\u00xx`, everything else verbatim),
/// or `None` when `src` is not valid UTF-8 (the caller then decodes with replacement characters).
pub fn quote_utf8(src: &[u8]) -> Option<Vec<u8>> {
    std::str::from_utf8(src).ok()?;
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = Vec::with_capacity(src.len() + src.len() / 16 + 2);
    out.push(b'"');
    let mut run = 0;
    for (i, &b) in src.iter().enumerate() {
        let short = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            0x08 => b'b',
            0x0c => b'f',
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            0x00..=0x1f => 0,
            _ => continue,
        };
        out.extend_from_slice(&src[run..i]);
        run = i + 1;
        if short != 0 {
            out.extend_from_slice(&[b'\\', short]);
        } else {
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]);
        }
    }
    out.extend_from_slice(&src[run..]);
    out.push(b'"');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::quote_utf8;

    #[test]
    fn escapes_like_json_stringify() {
        let q = |s: &str| String::from_utf8(quote_utf8(s.as_bytes()).unwrap()).unwrap();
        assert_eq!(q(""), "\"\"");
        assert_eq!(q("plain é 😀 \u{2028}"), "\"plain é 😀 \u{2028}\"");
        assert_eq!(q("a\"b\\c\nd\re\tf\u{8}g\u{c}h"), r#""a\"b\\c\nd\re\tf\bg\fh""#);
        assert_eq!(q("\u{0}\u{1}\u{1f}\u{7f}"), "\"\\u0000\\u0001\\u001f\u{7f}\"");
    }

    #[test]
    fn refuses_invalid_utf8() {
        assert!(quote_utf8(&[0x61, 0xff, 0x62]).is_none());
        assert!(quote_utf8(&[0xed, 0xa0, 0x80]).is_none()); // an encoded surrogate
    }
}
