//! Byte-level character-set rules: which byte strings are well formed in each
//! character set Basalt lists, and the conversions between a client's character set
//! and the internal representation.
//!
//! Internal representation: a string of a non-binary character set is held as UTF-8
//! (latin1, ascii, the other 8-bit sets and ucs2 / utf16 / utf16le / utf32 strings
//! too: their characters are a subset of Unicode); a binary string is held as its
//! bytes. Functions of a string's bytes (HEX, LENGTH, CAST AS BINARY, the binary
//! log's row images) see [`from_internal`]'s encoding in the string's own set. A string that came from a client with bytes
//! that are not valid in its character set keeps those bytes unchanged, so that the
//! conversion into a column can report them (MySQL's 1366) instead of having
//! replaced them silently.
//!
//! Well-formedness follows MariaDB's decoders, not Rust's: `utf8mb4` accepts the
//! encoded surrogates U+D800..U+DFFF (MariaDB stores them), rejects overlong forms
//! and code points above U+10FFFF; `utf8mb3` is the same without 4-byte sequences.
//! `latin1` is MariaDB's: Windows-1252, with the five bytes that code page leaves
//! undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) mapped to the C1 controls of the same
//! value, so every byte is a character. The other 8-bit sets map their bytes
//! through MariaDB's tables (generated in `charset::eight`; a byte the table leaves
//! unmapped is no character). The wide sets follow `charset::wide`'s rules.
//!
//! Invariant: for every charset `cs` and internal string `s`,
//! `first_invalid(s, cs) == None` exactly when [`fix_into`] returns `s` unchanged.

#[rustfmt::skip]
pub(crate) mod eight;
mod wide;

use crate::collation::Charset;
use std::borrow::Cow;

/// The characters of latin1 bytes 0x80..=0x9F (the rest is Unicode's Latin-1).
const LATIN1_HIGH: [u16; 32] = [
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
    0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
];

/// The character of one latin1 byte.
pub fn latin1_char(b: u8) -> char {
    let cp = match b {
        0x80..=0x9F => LATIN1_HIGH[(b - 0x80) as usize] as u32,
        _ => b as u32,
    };
    char::from_u32(cp).expect("the latin1 table holds only scalar values")
}

/// The latin1 byte of a character, if latin1 has it.
pub fn latin1_byte(cp: u32) -> Option<u8> {
    match cp {
        0..=0x7F | 0xA0..=0xFF => Some(cp as u8),
        _ => LATIN1_HIGH
            .iter()
            .position(|&c| c as u32 == cp)
            .map(|i| 0x80 + i as u8),
    }
}

/// The byte of `cp` in 8-bit set row `set` of [`eight::SETS`], if the set has it.
#[inline]
pub(crate) fn eight_byte(set: usize, cp: u32) -> Option<u8> {
    let t = &eight::SETS[set];
    if cp < 0x80 && t.to_uni[cp as usize] as u32 == cp {
        return Some(cp as u8);
    }
    let cp = u16::try_from(cp).ok()?;
    let rev = from_uni(set);
    rev.binary_search_by_key(&cp, |&(c, _)| c)
        .ok()
        .map(|i| rev[i].1)
}

/// 8-bit set row `set`'s (code point, byte) pairs sorted by code point (the first
/// byte of a code point two bytes map to), built from its table on first use.
fn from_uni(set: usize) -> &'static [(u16, u8)] {
    static REV: [std::sync::OnceLock<Vec<(u16, u8)>>; eight::SETS.len()] =
        [const { std::sync::OnceLock::new() }; eight::SETS.len()];
    REV[set].get_or_init(|| {
        let mut v: Vec<(u16, u8)> = (0..=255u8)
            .map(|b| (eight::SETS[set].to_uni[b as usize], b))
            .filter(|&(cp, b)| cp != 0 || b == 0)
            .collect();
        // Stable: of two bytes with one code point, the lower stays first.
        v.sort_by_key(|&(cp, _)| cp);
        v.dedup_by_key(|&mut (cp, _)| cp);
        v
    })
}

/// The byte of `cp` in 8-bit set `cs` (latin1 or one of [`eight::SETS`]).
fn byte_of(cs: Charset, cp: u32) -> Option<u8> {
    match cs {
        Charset::Latin1 => latin1_byte(cp),
        _ => eight_byte(cs.eight_bit()?, cp),
    }
}

/// The character of byte `b` of 8-bit set `cs`, if it is one.
fn char_of(cs: Charset, b: u8) -> Option<char> {
    if cs == Charset::Latin1 {
        return Some(latin1_char(b));
    }
    let cp = eight::SETS[cs.eight_bit()?].to_uni[b as usize];
    (cp != 0 || b == 0).then(|| char::from_u32(cp as u32))?
}

/// Length of the longest prefix of `b`, a stream of text in wide set `cs`, that
/// ends between two characters (all of `b` for a set that is not wide).
pub fn whole_prefix(b: &[u8], cs: Charset) -> usize {
    if cs.is_wide() {
        wide::whole_prefix(b, cs)
    } else {
        b.len()
    }
}

/// `b` with zeros in front up to a whole number of characters of `cs` (MariaDB's
/// alignment of a binary string read in ucs2, utf16 or utf32; other sets as is).
pub fn aligned(b: &[u8], cs: Charset) -> Cow<'_, [u8]> {
    let unit = cs.min_len() as usize;
    match b.len() % unit {
        0 => Cow::Borrowed(b),
        r => {
            let mut v = vec![0u8; unit - r];
            v.extend_from_slice(b);
            Cow::Owned(v)
        }
    }
}

fn cont(b: Option<&u8>) -> bool {
    b.is_some_and(|&c| c & 0xC0 == 0x80)
}

/// Length of the UTF-8 character at the start of `b` by MariaDB's rules (see the
/// module docs), or `None` when no well-formed character starts there.
pub fn utf8_char_len(b: &[u8], mb4: bool) -> Option<usize> {
    let c = *b.first()?;
    match c {
        0x00..=0x7F => Some(1),
        0xC2..=0xDF if cont(b.get(1)) => Some(2),
        0xE0..=0xEF if cont(b.get(1)) && cont(b.get(2)) && (c >= 0xE1 || b[1] >= 0xA0) => Some(3),
        0xF0..=0xF4
            if mb4
                && cont(b.get(1))
                && cont(b.get(2))
                && cont(b.get(3))
                && (c >= 0xF1 || b[1] >= 0x90)
                && (c <= 0xF3 || b[1] <= 0x8F) =>
        {
            Some(4)
        }
        _ => None,
    }
}

/// The code point of a well-formed UTF-8 character of length `n` at the start of `b`.
fn code_point(b: &[u8], n: usize) -> u32 {
    match n {
        1 => b[0] as u32,
        2 => ((b[0] as u32 & 0x1F) << 6) | (b[1] as u32 & 0x3F),
        3 => ((b[0] as u32 & 0x0F) << 12) | ((b[1] as u32 & 0x3F) << 6) | (b[2] as u32 & 0x3F),
        _ => {
            ((b[0] as u32 & 0x07) << 18)
                | ((b[1] as u32 & 0x3F) << 12)
                | ((b[2] as u32 & 0x3F) << 6)
                | (b[3] as u32 & 0x3F)
        }
    }
}

/// One step over an internal string: a character of `len` bytes, or one byte that
/// starts no well-formed character (`cp == None`).
struct Step {
    len: usize,
    cp: Option<u32>,
}

fn step(b: &[u8]) -> Step {
    match utf8_char_len(b, true) {
        Some(n) => Step {
            len: n,
            cp: Some(code_point(b, n)),
        },
        None => Step { len: 1, cp: None },
    }
}

/// True when `cs` can hold the character `cp`.
pub fn has_char(cs: Charset, cp: u32) -> bool {
    match cs {
        Charset::Binary | Charset::Utf8mb4 | Charset::Utf32 => true,
        Charset::Utf8mb3 | Charset::Ucs2 => cp <= 0xFFFF,
        Charset::Utf16 | Charset::Utf16le => !(0xD800..=0xDFFF).contains(&cp),
        Charset::Ascii => cp < 0x80,
        _ => byte_of(cs, cp).is_some(),
    }
}

/// Byte offset of the first byte of internal string `s` that is not a well-formed
/// character `target` can hold (`None`: `s` converts cleanly into `target`).
pub fn first_invalid(s: &[u8], target: Charset) -> Option<usize> {
    if target == Charset::Binary || s.is_ascii() {
        return None;
    }
    if target == Charset::Utf8mb4 && std::str::from_utf8(s).is_ok() {
        return None;
    }
    let mut i = 0;
    while i < s.len() {
        let st = step(&s[i..]);
        match st.cp {
            Some(cp) if has_char(target, cp) => i += st.len,
            _ => return Some(i),
        }
    }
    None
}

/// `s` converted into `target` as MariaDB stores it after a conversion problem:
/// every byte that starts no well-formed character and every character `target`
/// lacks becomes `?`.
pub fn fix_into(s: &[u8], target: Charset) -> Cow<'_, [u8]> {
    let Some(start) = first_invalid(s, target) else {
        return Cow::Borrowed(s);
    };
    let mut out = Vec::with_capacity(s.len());
    out.extend_from_slice(&s[..start]);
    let mut i = start;
    while i < s.len() {
        let st = step(&s[i..]);
        match st.cp {
            Some(cp) if has_char(target, cp) => out.extend_from_slice(&s[i..i + st.len]),
            _ => out.push(b'?'),
        }
        i += st.len;
    }
    Cow::Owned(out)
}

/// The internal form of `b`, text in character set `cs` as a client sent it (or
/// as a binary string read in `cs`): 8-bit and wide sets are re-encoded as UTF-8,
/// the others are kept byte for byte (including bytes that are not well formed,
/// see the module docs). A byte of an 8-bit set that is no character, and a unit
/// of a wide set that is none, stay bytes that start no UTF-8 character.
pub fn to_internal(b: &[u8], cs: Charset) -> Cow<'_, [u8]> {
    if cs.is_internal_bytes() || cs.ascii_compatible() && b.is_ascii() {
        return Cow::Borrowed(b);
    }
    if cs.is_wide() {
        return Cow::Owned(wide::to_internal(b, cs));
    }
    let mut out = Vec::with_capacity(b.len() + b.len() / 2);
    for &c in b {
        match char_of(cs, c) {
            Some(ch) if ch.is_ascii() => out.push(ch as u8),
            Some(ch) => out.extend_from_slice(ch.encode_utf8(&mut [0u8; 4]).as_bytes()),
            None => out.push(0xFF),
        }
    }
    Cow::Owned(out)
}

/// True when `b`, text in `cs` as a client sent it, is well formed in `cs` (every
/// byte is, in an 8-bit set).
pub fn is_well_formed(b: &[u8], cs: Charset) -> bool {
    match cs {
        Charset::Ascii => b.is_ascii(),
        Charset::Utf8mb4 | Charset::Utf8mb3 => {
            let fast = std::str::from_utf8(b).is_ok()
                && (cs == Charset::Utf8mb4 || !b.iter().any(|&c| c >= 0xF0));
            fast || well_formed_len(b, cs) == b.len()
        }
        c if c.is_wide() => wide::well_formed_len(b, cs) == b.len(),
        _ => true,
    }
}

/// Length of the longest prefix of `b` (text in `cs`) made of whole well-formed
/// characters.
pub fn well_formed_len(b: &[u8], cs: Charset) -> usize {
    match cs {
        Charset::Ascii => b.iter().position(|c| !c.is_ascii()).unwrap_or(b.len()),
        Charset::Utf8mb4 | Charset::Utf8mb3 => {
            let mut i = 0;
            while i < b.len() {
                match utf8_char_len(&b[i..], cs == Charset::Utf8mb4) {
                    Some(n) => i += n,
                    None => break,
                }
            }
            i
        }
        c if c.is_wide() => wide::well_formed_len(b, cs),
        _ => b.len(),
    }
}

/// Internal string `s` encoded for a client whose results character set is `cs`
/// (`character_set_results`): characters `cs` lacks, and bytes that are not well
/// formed, become `?`.
pub fn from_internal(s: &[u8], cs: Charset) -> Cow<'_, [u8]> {
    match cs {
        Charset::Binary | Charset::Utf8mb4 => Cow::Borrowed(s),
        Charset::Utf8mb3 | Charset::Ascii => fix_into(s, cs),
        _ if cs.ascii_compatible() && s.is_ascii() => Cow::Borrowed(s),
        _ => {
            let mut out = Vec::with_capacity(s.len() * cs.min_len() as usize);
            let mut i = 0;
            while i < s.len() {
                let st = step(&s[i..]);
                if cs.is_wide() {
                    wide::encode(st.cp.unwrap_or(b'?' as u32), cs, &mut out);
                } else {
                    out.push(st.cp.and_then(|cp| byte_of(cs, cp)).unwrap_or(b'?'));
                }
                i += st.len;
            }
            Cow::Owned(out)
        }
    }
}

/// MariaDB's `convert_to_printable` with a limit of six bytes: the bytes of `s`
/// from `from`, printable ASCII as is and others as `\xHH`, with `...` when bytes
/// remain (the text quoted by 1366 "Incorrect string value" and 1300).
pub fn printable(s: &[u8], from: usize) -> String {
    let rest = s.get(from..).unwrap_or_default();
    let mut out = String::new();
    for &c in rest.iter().take(6) {
        if (0x20..=0x7F).contains(&c) {
            out.push(c as char);
        } else {
            out.push_str(&format!("\\x{c:02X}"));
        }
    }
    if rest.len() > 6 {
        out.push_str("...");
    }
    out
}

/// Number of characters of internal string `s` (a byte that starts no well-formed
/// character counts as one).
pub fn char_count(s: &[u8]) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    let mut n = 0;
    let mut i = 0;
    while i < s.len() {
        i += step(&s[i..]).len;
        n += 1;
    }
    n
}

/// Byte length of the first `n` characters of internal string `s` (all of it when
/// it has fewer).
pub fn prefix_len(s: &[u8], n: usize) -> usize {
    if s.is_ascii() {
        return n.min(s.len());
    }
    let mut i = 0;
    for _ in 0..n {
        if i >= s.len() {
            break;
        }
        i += step(&s[i..]).len;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_round_trips_every_byte() {
        for b in 0..=255u8 {
            let c = latin1_char(b);
            assert_eq!(latin1_byte(c as u32), Some(b), "byte {b:#x}");
            let one = [b];
            let internal = to_internal(&one, Charset::Latin1);
            assert_eq!(from_internal(&internal, Charset::Latin1).as_ref(), &[b]);
            assert_eq!(first_invalid(&internal, Charset::Latin1), None);
        }
        assert_eq!(latin1_char(0x80), '€');
        assert_eq!(latin1_char(0x81), '\u{81}');
        assert_eq!(latin1_byte(0x1F600), None);
    }

    #[test]
    fn eight_bit_sets_round_trip_their_characters() {
        for set in 0..eight::SETS.len() {
            for b in 0..=255u8 {
                let cp = eight::SETS[set].to_uni[b as usize] as u32;
                if cp != 0 || b == 0 {
                    let back = eight_byte(set, cp).expect("a mapped byte converts back");
                    assert_eq!(eight::SETS[set].to_uni[back as usize] as u32, cp);
                }
            }
        }
        assert_eq!(eight_byte(19, 0x0416), Some(0xC6), "cp1251 Ж");
        assert_eq!(eight_byte(19, 0xE9), None, "cp1251 has no é");
    }

    #[test]
    fn utf8_rules_are_mariadbs() {
        assert_eq!(utf8_char_len("é".as_bytes(), true), Some(2));
        assert_eq!(
            utf8_char_len(b"\xed\xa0\x80", true),
            Some(3),
            "surrogates pass"
        );
        assert_eq!(utf8_char_len(b"\xc0\x80", true), None, "overlong");
        assert_eq!(utf8_char_len(b"\xe0\x80\x80", true), None, "overlong");
        assert_eq!(
            utf8_char_len(b"\xf4\x90\x80\x80", true),
            None,
            "above U+10FFFF"
        );
        assert_eq!(utf8_char_len("😀".as_bytes(), true), Some(4));
        assert_eq!(utf8_char_len("😀".as_bytes(), false), None);
        assert_eq!(utf8_char_len(b"\xe2\x82", true), None, "truncated");
        assert!(is_well_formed("a😀".as_bytes(), Charset::Utf8mb4));
        assert!(!is_well_formed("a😀".as_bytes(), Charset::Utf8mb3));
        assert!(!is_well_formed(b"a\xff", Charset::Utf8mb4));
        assert!(is_well_formed(b"a\xff", Charset::Binary));
        assert!(!is_well_formed(b"a\xe9", Charset::Ascii));
    }

    #[test]
    fn fixing_replaces_each_bad_byte_and_missing_character() {
        let f = |s: &[u8], cs| fix_into(s, cs).into_owned();
        assert_eq!(f(b"a\xff\xfex", Charset::Utf8mb4), b"a??x");
        assert_eq!(f(b"\xe2\x82x", Charset::Utf8mb4), b"??x");
        assert_eq!(f(b"\xed\xa0\x80x", Charset::Utf8mb4), b"\xed\xa0\x80x");
        assert_eq!(f("€😀z".as_bytes(), Charset::Latin1), "€?z".as_bytes());
        assert_eq!(f("aéb".as_bytes(), Charset::Ascii), b"a?b");
        assert_eq!(f("a😀b".as_bytes(), Charset::Utf8mb3), b"a?b");
        assert_eq!(f(b"\xff", Charset::Binary), b"\xff");
        assert_eq!(first_invalid(b"ab\xc3", Charset::Utf8mb4), Some(2));
        assert_eq!(first_invalid("€😀z".as_bytes(), Charset::Latin1), Some(3));
    }

    #[test]
    fn printable_is_convert_to_printable() {
        assert_eq!(printable(b"a\xff\xfexyzzzzzzz", 1), "\\xFF\\xFExyzz...");
        assert_eq!(printable(b"ab\xc3", 2), "\\xC3");
        assert_eq!(printable("a😀b".as_bytes(), 1), "\\xF0\\x9F\\x98\\x80b");
    }

    #[test]
    fn results_encoding() {
        assert_eq!(
            from_internal("é€😀".as_bytes(), Charset::Latin1).as_ref(),
            b"\xe9\x80?"
        );
        assert_eq!(
            from_internal("é😀".as_bytes(), Charset::Utf8mb3).as_ref(),
            "é?".as_bytes()
        );
        assert_eq!(char_count("aé😀".as_bytes()), 3);
        assert_eq!(prefix_len("aé😀".as_bytes(), 2), 3);
        assert_eq!(char_count(b"a\xff"), 2);
    }
}
