//! ucs2, utf16, utf16le and utf32: the sets whose characters take two or four bytes
//! at least, decoded into and encoded from the internal UTF-8.
//!
//! MariaDB's rules: ucs2 holds one 16-bit unit per character, the surrogate code
//! points included; utf16 / utf16le hold the whole code space through surrogate
//! pairs, and a lone surrogate is not a character; utf32 holds every code point up
//! to U+10FFFF, surrogates included. Bytes that do not fill a whole character at
//! the front are padded with zeros on the left (`_ucs2 x'61'` is U+0061, MariaDB's
//! `String::copy_aligned`).

use crate::collation::Charset;

/// The byte that stands for a unit that is no character in the internal form: it
/// starts no well-formed UTF-8 character, so converting it anywhere reports it.
const BAD: u8 = 0xFF;

fn push_cp(out: &mut Vec<u8>, cp: u32) {
    // Surrogate code points are written as MariaDB's utf8 writes them (3 bytes).
    match char::from_u32(cp) {
        Some(c) => out.extend_from_slice(c.encode_utf8(&mut [0u8; 4]).as_bytes()),
        None if (0xD800..=0xDFFF).contains(&cp) => out.extend_from_slice(&[
            0xE0 | (cp >> 12) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]),
        None => out.push(BAD),
    }
}

/// One character of `cs` at the start of `b` (whole units): its code point and
/// length, or `None` when the bytes there are no character.
pub(super) fn decode_one(b: &[u8], cs: Charset) -> Option<(u32, usize)> {
    let unit = |i: usize| -> Option<u32> {
        let x = b.get(i..i + 2)?;
        Some(match cs {
            Charset::Utf16le => u16::from_le_bytes([x[0], x[1]]),
            _ => u16::from_be_bytes([x[0], x[1]]),
        } as u32)
    };
    match cs {
        Charset::Ucs2 => unit(0).map(|u| (u, 2)),
        Charset::Utf32 => {
            let x = b.get(..4)?;
            let cp = u32::from_be_bytes([x[0], x[1], x[2], x[3]]);
            (cp <= 0x10FFFF).then_some((cp, 4))
        }
        _ => {
            let hi = unit(0)?;
            match hi {
                0xD800..=0xDBFF => {
                    let lo = unit(2).filter(|lo| (0xDC00..=0xDFFF).contains(lo))?;
                    Some((0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00), 4))
                }
                0xDC00..=0xDFFF => None,
                _ => Some((hi, 2)),
            }
        }
    }
}

/// The internal form of text in wide set `cs`: each character as UTF-8, each unit
/// that is no character as one [`BAD`] byte.
pub(super) fn to_internal(b: &[u8], cs: Charset) -> Vec<u8> {
    let unit = cs.min_len() as usize;
    let b = super::aligned(b, cs);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match decode_one(&b[i..], cs) {
            Some((cp, n)) => {
                push_cp(&mut out, cp);
                i += n;
            }
            None => {
                out.push(BAD);
                i += unit;
            }
        }
    }
    out
}

/// Length of the longest prefix of `b` made of whole characters of wide set `cs`.
pub(super) fn well_formed_len(b: &[u8], cs: Charset) -> usize {
    let mut i = 0;
    while let Some((_, n)) = decode_one(&b[i..], cs) {
        i += n;
    }
    i
}

/// Length of the longest prefix of `b` that ends on a character boundary of wide
/// set `cs` (whole units, and no UTF-16 high surrogate waiting for its pair):
/// where a stream in `cs` can be cut.
pub(super) fn whole_prefix(b: &[u8], cs: Charset) -> usize {
    let unit = cs.min_len() as usize;
    let n = b.len() - b.len() % unit;
    let last_high = |n: usize| {
        n >= 2 && {
            let u = match cs {
                Charset::Utf16le => u16::from_le_bytes([b[n - 2], b[n - 1]]),
                _ => u16::from_be_bytes([b[n - 2], b[n - 1]]),
            };
            (0xD800..0xDC00).contains(&u)
        }
    };
    if matches!(cs, Charset::Utf16 | Charset::Utf16le) && last_high(n) {
        n - 2
    } else {
        n
    }
}

/// Code point `cp` encoded in wide set `cs` (`?` when `cs` lacks it).
pub(super) fn encode(cp: u32, cs: Charset, out: &mut Vec<u8>) {
    let cp = if super::has_char(cs, cp) {
        cp
    } else {
        b'?' as u32
    };
    match cs {
        Charset::Utf32 => out.extend_from_slice(&cp.to_be_bytes()),
        Charset::Ucs2 => out.extend_from_slice(&(cp as u16).to_be_bytes()),
        _ => {
            let mut units = [0u16; 2];
            let n = if cp > 0xFFFF {
                let v = cp - 0x10000;
                units = [0xD800 | (v >> 10) as u16, 0xDC00 | (v & 0x3FF) as u16];
                2
            } else {
                units[0] = cp as u16;
                1
            };
            for u in &units[..n] {
                if cs == Charset::Utf16le {
                    out.extend_from_slice(&u.to_le_bytes());
                } else {
                    out.extend_from_slice(&u.to_be_bytes());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_is_mariadbs() {
        assert_eq!(to_internal(b"\x61", Charset::Ucs2), b"a", "left-padded");
        assert_eq!(
            to_internal(b"\x00\x61\x00\xe9", Charset::Ucs2),
            "aé".as_bytes()
        );
        assert_eq!(to_internal(b"\xD8\x00", Charset::Ucs2), b"\xED\xA0\x80");
        assert_eq!(
            to_internal(b"\xD8\x3D\xDE\x00", Charset::Utf16),
            "😀".as_bytes()
        );
        assert_eq!(to_internal(b"\xD8\x00", Charset::Utf16), [BAD]);
        assert_eq!(to_internal(b"a\x00", Charset::Utf16le), b"a");
        assert_eq!(to_internal(b"\x00\x11\x00\x00", Charset::Utf32), [BAD]);
        assert_eq!(well_formed_len(b"\x00a\xD8\x00", Charset::Utf16), 2);
        assert_eq!(whole_prefix(b"\x00a\xD8\x3D\xDE", Charset::Utf16), 2);
        assert_eq!(whole_prefix(b"a\x00\x3D\xD8", Charset::Utf16le), 2);
        assert_eq!(whole_prefix(b"\x00\x00\x00a\x00", Charset::Utf32), 4);
    }

    #[test]
    fn encoding_is_mariadbs() {
        let enc = |cp, cs| {
            let mut v = Vec::new();
            encode(cp, cs, &mut v);
            v
        };
        assert_eq!(enc(0x1F600, Charset::Utf16), b"\xD8\x3D\xDE\x00");
        assert_eq!(enc(0x1F600, Charset::Utf16le), b"\x3D\xD8\x00\xDE");
        assert_eq!(enc(0x1F600, Charset::Ucs2), b"\x00\x3F");
        assert_eq!(enc(0x61, Charset::Utf32), b"\x00\x00\x00\x61");
    }
}
