//! Character sets and collations: how strings compare, and the sort keys indexes store.
//!
//! Basalt stores every character column as UTF-8 bytes (utf8mb4; the columns of every
//! other set hold their characters' UTF-8; what each set accepts and how client
//! bytes convert is in [`crate::charset`]). The sets and collations, with MariaDB's
//! names, ids and defaults, are generated into `collation::catalog`
//! (`scripts/gen-charset-tables.py`). Comparison follows the column's collation,
//! with MariaDB 10.11's weights (generated tables next to this file, see
//! `scripts/gen-collation-tables.py`), the same for every set of a collation's kind
//! (`ucs2_general_ci` weighs as `utf8mb4_general_ci`):
//! - `binary`: byte order, nothing padded;
//! - `*_bin`: code point order (latin1: latin1 byte order);
//! - `*_general_ci`: MariaDB's `my_unicase_default` sort weights (case and accents
//!   folded: `'é' = 'E'`, `'ß' = 's'`), characters outside the Basic Multilingual Plane
//!   weigh 0xFFFD;
//! - `*_unicode_ci` / `*_unicode_520_ci`: UCA 4.0.0 / 5.2.0 primary weights, with
//!   expansions (`'ß' = 'ss'`) and ignorable characters;
//! - latin1 `_ci`/`_cs`: the character's latin1 (Windows-1252) byte through MariaDB's
//!   sort order table; the other 8-bit sets' collations likewise, with their bytes
//!   and tables (`charset::eight`);
//! - `*_general_mysql500_ci`: the general weights, but `ß` weighs itself.
//!
//! PAD SPACE collations compare as if the shorter string went on with spaces
//! (`'a' = 'a '`, `'a\t' < 'a'`); the `_nopad_` ones do not.
//!
//! Invariant: `compare(a, b) == sort_key(a).cmp(&sort_key(b))` for every collation, so
//! an index ordered by sort keys agrees with the comparisons the executor makes (the
//! key encoding and its proof are in [`weights`]).

#[rustfmt::skip]
mod catalog;
#[rustfmt::skip]
mod eight_orders;
#[rustfmt::skip]
mod general;
#[rustfmt::skip]
mod latin1;
#[rustfmt::skip]
mod uca400;
#[rustfmt::skip]
mod uca520;
mod weights;

pub use catalog::{Charset, Collation};
use catalog::{ALL, INFO};
use std::cmp::Ordering;
use weights::KeyWriter;

impl Charset {
    fn set(self) -> &'static catalog::SetInfo {
        &catalog::SETS[self as usize]
    }

    /// Every character set Basalt has, in `SHOW CHARACTER SET`'s order.
    pub fn all() -> &'static [Charset] {
        &catalog::ALL_SETS
    }

    pub fn name(self) -> &'static str {
        self.set().name
    }

    /// `SHOW CHARACTER SET`'s Description.
    pub fn description(self) -> &'static str {
        self.set().description
    }

    /// By name, case-insensitively; `utf8` is `utf8mb3`.
    pub fn from_name(name: &str) -> Option<Charset> {
        let lower = name.to_ascii_lowercase();
        let lower = if lower == "utf8" { "utf8mb3" } else { &lower };
        catalog::ALL_SETS
            .iter()
            .copied()
            .find(|c| c.name() == lower)
    }

    pub fn default_collation(self) -> Collation {
        self.set().default
    }

    /// Bytes per character at most (for column length reporting).
    pub fn max_len(self) -> u32 {
        self.set().maxlen as u32
    }

    /// Bytes per character at least (2 for ucs2 and the UTF-16 sets, 4 for utf32).
    pub fn min_len(self) -> u32 {
        self.set().minlen as u32
    }

    /// True for the sets whose characters take more than one byte each at least:
    /// no client can send text in them (`SET NAMES ucs2` is an error).
    pub fn is_wide(self) -> bool {
        self.min_len() > 1
    }

    /// True when ASCII text is the same bytes in this set (all but the wide sets
    /// and swe7, whose `[`, `@`, ... bytes are Swedish letters).
    pub fn ascii_compatible(self) -> bool {
        !self.is_wide() && self != Charset::Swe7
    }

    /// The row of an 8-bit set (latin1 included) in `charset::eight::SETS`.
    pub(crate) fn eight_bit(self) -> Option<usize> {
        self.set().eight.map(usize::from)
    }

    /// True when the set's bytes are the internal UTF-8 bytes of its strings
    /// (utf8mb4, utf8mb3, ascii, binary): no conversion either way.
    pub fn is_internal_bytes(self) -> bool {
        matches!(
            self,
            Charset::Binary | Charset::Utf8mb4 | Charset::Utf8mb3 | Charset::Ascii
        )
    }
}

/// Which latin1 sort order table (the generated [`latin1`] tables; `Bin` is the byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum L1 {
    Swedish,
    German1,
    GeneralCi,
    GeneralCs,
    Bin,
}

/// How a collation weighs characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The bytes themselves, never padded.
    Binary,
    /// The UTF-8 bytes (code point order).
    Bin,
    General,
    Uca400,
    Uca520,
    Latin1(L1),
    /// An 8-bit set's byte (row `set` of `charset::eight::SETS`) through sort
    /// order `order` of [`eight_orders::ORDERS`], or the byte itself ([`BIN`]).
    Eight {
        set: u8,
        order: u8,
    },
    /// `*_general_mysql500_ci`: the general weights of MariaDB 5.0, where `ß`
    /// weighs itself rather than `S`.
    General500,
}

/// [`Kind::Eight`]'s order of the `_bin` collations: the byte is the weight.
const BIN: u8 = 0xFF;

/// One collation's row of `SHOW COLLATION` and how it compares.
struct Info {
    name: &'static str,
    id: u16,
    charset: Charset,
    sortlen: u8,
    kind: Kind,
    pad: bool,
}

const fn info(
    name: &'static str,
    id: u16,
    charset: Charset,
    sortlen: u8,
    kind: Kind,
    pad: bool,
) -> Info {
    Info {
        name,
        id,
        charset,
        sortlen,
        kind,
        pad,
    }
}

impl Collation {
    /// Every collation Basalt has (in no particular order).
    pub fn all() -> &'static [Collation] {
        &ALL
    }

    fn info(self) -> &'static Info {
        &INFO[self as usize]
    }

    /// The collation id sent in column definitions and the handshake.
    pub fn id(self) -> u16 {
        self.info().id
    }

    pub fn from_id(id: u16) -> Option<Collation> {
        ALL.iter().copied().find(|c| c.id() == id)
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// By name, case-insensitively; `utf8_` names are the `utf8mb3_` ones.
    pub fn from_name(name: &str) -> Option<Collation> {
        let lower = name.to_ascii_lowercase();
        let lower = match lower.strip_prefix("utf8_") {
            Some(rest) => format!("utf8mb3_{rest}"),
            None => lower,
        };
        ALL.iter().copied().find(|c| c.name() == lower)
    }

    pub fn charset(self) -> Charset {
        self.info().charset
    }

    /// `SHOW COLLATION`'s Default column.
    pub fn is_default(self) -> bool {
        self.charset().default_collation() == self
    }

    /// `SHOW COLLATION`'s Sortlen column.
    pub fn sortlen(self) -> u8 {
        self.info().sortlen
    }

    /// PAD SPACE (trailing spaces do not count) rather than NO PAD.
    pub fn pad_space(self) -> bool {
        self.info().pad
    }

    pub fn is_binary(self) -> bool {
        self == Collation::Binary
    }

    /// The weight of a space under this collation.
    fn space(self) -> u32 {
        match self.info().kind {
            Kind::Binary | Kind::Bin | Kind::General | Kind::General500 => 0x20,
            Kind::Uca400 => 0x0209,
            Kind::Uca520 => 0x020A,
            Kind::Latin1(_) | Kind::Eight { .. } => {
                let mut w = 0;
                weights::for_each_weight(self.info().kind, b" ", |x| w = x);
                w
            }
        }
    }

    /// Bytes per weight in sort keys.
    fn key_width(self) -> usize {
        match self.info().kind {
            Kind::Binary | Kind::Bin | Kind::Latin1(_) | Kind::Eight { .. } => 1,
            Kind::General | Kind::General500 | Kind::Uca400 | Kind::Uca520 => 2,
        }
    }

    /// Compares two strings under this collation.
    pub fn compare(self, a: &[u8], b: &[u8]) -> Ordering {
        // The default collations on ASCII first, before any table look-up.
        if matches!(
            self,
            Collation::Utf8mb4GeneralCi | Collation::Utf8mb3GeneralCi
        ) && a.is_ascii()
            && b.is_ascii()
        {
            return compare_ascii_upper(a, b, true);
        }
        let Info { kind, pad, .. } = *self.info();
        match kind {
            Kind::Binary => a.cmp(b),
            Kind::Bin => compare_iters(
                a.iter().map(|&c| c as u32),
                b.iter().map(|&c| c as u32),
                pad,
                0x20,
            ),
            // An ASCII character weighs as its upper case under general_ci.
            Kind::General if a.is_ascii() && b.is_ascii() => compare_ascii_upper(a, b, pad),
            _ => {
                let (x, y) = (weights::weights(kind, a), weights::weights(kind, b));
                weights::compare_weights(&x, &y, pad, self.space())
            }
        }
    }

    /// Appends a byte string whose byte order equals this collation's order.
    /// The key is not self-delimiting; callers escape it (see the key encoding).
    pub fn sort_key(self, s: &[u8], out: &mut Vec<u8>) {
        let Info { kind, pad, .. } = *self.info();
        match kind {
            Kind::Binary => out.extend_from_slice(s),
            Kind::Bin => {
                let mut w = KeyWriter::new(out, 1, pad, 0x20);
                s.iter().for_each(|&c| w.push(c as u32));
                w.finish();
            }
            // ASCII weighs as its upper case. Without interior spaces (the usual
            // case) the key is each weight as 2 bytes, then the end mark `S, 1`
            // (what `KeyWriter` writes, trailing spaces dropped).
            Kind::General if s.is_ascii() => {
                let t = if pad { trim_spaces(s) } else { s };
                if pad && t.contains(&b' ') {
                    let mut w = KeyWriter::new(out, 2, pad, 0x20);
                    t.iter().for_each(|c| w.push(c.to_ascii_uppercase() as u32));
                    w.finish();
                    return;
                }
                let start = out.len();
                let end = if pad { 3 } else { 0 };
                out.resize(start + 2 * t.len() + end, 0);
                for (w, &c) in out[start..].chunks_exact_mut(2).zip(t) {
                    w[1] = c.to_ascii_uppercase();
                }
                if pad {
                    let n = out.len();
                    out[n - 2] = 0x20;
                    out[n - 1] = weights::SIGN_END;
                }
            }
            _ => {
                let mut w = KeyWriter::new(out, self.key_width(), pad, self.space());
                weights::for_each_weight(kind, s, |x| w.push(x));
                w.finish();
            }
        }
    }

    /// A key for one character such that two characters are equal for LIKE (which
    /// MariaDB matches character by character) exactly when their keys are: the
    /// character's weights (its code point for `_bin`; under UCA 4.0.0 characters
    /// outside the BMP, which all weigh 0xFFFD, match only themselves, as in MariaDB).
    pub fn like_key(self, cp: u32) -> u64 {
        const CODE: u64 = 1 << 60;
        const HASH: u64 = 2 << 60;
        let kind = self.info().kind;
        match kind {
            Kind::Binary | Kind::Bin => return CODE | cp as u64,
            Kind::Uca400 if cp > 0xFFFF => return CODE | cp as u64,
            // One weight per character: the same key as the general case below.
            Kind::General if cp < 0x80 => return 1 << 16 | (cp as u8).to_ascii_uppercase() as u64,
            Kind::General => return 1 << 16 | weights::general_weight(cp) as u64,
            Kind::General500 => return 1 << 16 | weights::general500_weight(cp) as u64,
            Kind::Eight { .. } => return 1 << 16 | weights::eight_weight(kind, cp) as u64,
            _ => {}
        }
        let mut buf = [0u8; 4];
        let text = char::from_u32(cp).map_or(&b"?"[..], |c| c.encode_utf8(&mut buf).as_bytes());
        let ws = weights::weights(kind, text);
        if ws.len() <= 3 {
            ws.iter()
                .fold(ws.len() as u64, |k, &w| (k << 16) | w as u64)
        } else {
            // FNV-1a over the weights: more than three weights is rare (ligatures).
            HASH | ws.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &w| {
                (h ^ w as u64).wrapping_mul(0x100_0000_01b3)
            }) >> 4
        }
    }

    /// WEIGHT_STRING(s [AS CHAR(n)]) as MariaDB returns it: each weight in the width of
    /// MariaDB's `strnxfrm` (1 byte for latin1 and binary, 3 for utf8mb4_bin, else 2),
    /// trailing spaces kept. With `nweights` the result holds exactly that many weights
    /// (characters, for the one-weight-per-character collations), cut or padded with the
    /// space's weight (PAD SPACE) or with zeros (NO PAD; 0x0200 for the UCA ones).
    pub fn weight_string(self, s: &[u8], nweights: Option<usize>) -> Vec<u8> {
        let Info {
            kind, pad, charset, ..
        } = *self.info();
        let mut ws = match kind {
            Kind::Binary => s.iter().map(|&c| c as u32).collect(),
            Kind::Bin => {
                let (mut v, mut i) = (Vec::new(), 0);
                while i < s.len() {
                    v.push(weights::next_char(s, &mut i));
                }
                v
            }
            _ => weights::weights(kind, s),
        };
        if let Some(n) = nweights {
            // The 8-bit sets' strnxfrm pads with the byte 0x20, whatever the
            // space weighs (latin7's weighs 0x30).
            let filler = if pad && matches!(kind, Kind::Eight { .. }) {
                0x20
            } else if pad {
                self.space()
            } else if matches!(kind, Kind::Uca400 | Kind::Uca520) {
                0x0200
            } else {
                0
            };
            ws.resize(n, filler);
        }
        let mut out = Vec::with_capacity(ws.len() * 2);
        for w in ws {
            weights::weight_bytes(kind, charset, w, &mut out);
        }
        out
    }
}

/// [`compare_iters`] over ASCII weighed as its upper case, in one pass.
#[inline]
fn compare_ascii_upper(a: &[u8], b: &[u8], pad: bool) -> Ordering {
    let (a, b) = if pad {
        (trim_spaces(a), trim_spaces(b))
    } else {
        (a, b)
    };
    for (x, y) in a.iter().zip(b) {
        if x != y {
            let (x, y) = (x.to_ascii_uppercase(), y.to_ascii_uppercase());
            if x != y {
                return x.cmp(&y);
            }
        }
    }
    let n = a.len().min(b.len());
    match a.len().cmp(&b.len()) {
        Ordering::Equal => Ordering::Equal,
        o if !pad => o,
        // The longer one goes on past the padding: its first non-space decides.
        Ordering::Greater => first_non_space(&a[n..]).cmp(&b' '),
        Ordering::Less => b' '.cmp(&first_non_space(&b[n..])),
    }
}

/// The first byte that is not a space, upper-cased (there is one: the caller
/// trimmed trailing spaces).
fn first_non_space(s: &[u8]) -> u8 {
    s.iter()
        .find(|&&c| c != b' ')
        .map_or(b' ', u8::to_ascii_uppercase)
}

fn trim_spaces(s: &[u8]) -> &[u8] {
    let end = s.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1);
    &s[..end]
}

/// Compares two weight streams; under `pad` the shorter goes on with `space` weights.
#[inline]
fn compare_iters(
    mut x: impl Iterator<Item = u32>,
    mut y: impl Iterator<Item = u32>,
    pad: bool,
    space: u32,
) -> Ordering {
    loop {
        match (x.next(), y.next()) {
            (Some(p), Some(q)) if p == q => {}
            (Some(p), Some(q)) => return p.cmp(&q),
            (None, None) => return Ordering::Equal,
            (None, Some(_)) if !pad => return Ordering::Less,
            (Some(_), None) if !pad => return Ordering::Greater,
            (None, Some(q)) => {
                return std::iter::once(q)
                    .chain(y)
                    .find(|&w| w != space)
                    .map_or(Ordering::Equal, |w| space.cmp(&w))
            }
            (Some(p), None) => {
                return std::iter::once(p)
                    .chain(x)
                    .find(|&w| w != space)
                    .map_or(Ordering::Equal, |w| w.cmp(&space))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_ci_ignores_case_and_trailing_space() {
        let c = Collation::Utf8mb4GeneralCi;
        assert_eq!(c.compare(b"abc", b"ABC "), Ordering::Equal);
        assert_eq!(c.compare(b"abc", b"abd"), Ordering::Less);
        assert_eq!(c.compare(b"ab", b"abc"), Ordering::Less);
        let (mut k1, mut k2) = (Vec::new(), Vec::new());
        c.sort_key(b"Hello", &mut k1);
        c.sort_key(b"hELLO  ", &mut k2);
        assert_eq!(k1, k2);
    }

    #[test]
    fn binary_is_byte_order() {
        let c = Collation::Binary;
        assert_eq!(c.compare(b"a", b"A"), Ordering::Greater);
        assert_eq!(c.compare(b"a ", b"a"), Ordering::Greater);
    }

    #[test]
    fn names_and_ids_round_trip() {
        for c in Collation::all() {
            assert_eq!(Collation::from_id(c.id()), Some(*c));
            assert_eq!(Collation::from_name(c.name()), Some(*c));
        }
        assert_eq!(
            Collation::from_name("utf8_general_ci"),
            Some(Collation::Utf8mb3GeneralCi)
        );
    }

    fn eq(c: Collation, a: &str, b: &str) -> bool {
        c.compare(a.as_bytes(), b.as_bytes()) == Ordering::Equal
    }

    #[test]
    fn accents_fold_as_mariadb() {
        use Collation::*;
        for c in [
            Utf8mb4GeneralCi,
            Utf8mb3GeneralCi,
            Utf8mb4UnicodeCi,
            Utf8mb4Unicode520Ci,
        ] {
            assert!(eq(c, "José", "jose"), "{c:?}");
            assert!(eq(c, "é", "E"), "{c:?}");
            assert!(!eq(c, "a", "b"), "{c:?}");
        }
        assert!(eq(Utf8mb4GeneralCi, "ß", "s"));
        assert!(eq(Utf8mb4UnicodeCi, "ß", "ss"));
        assert!(!eq(Utf8mb4UnicodeCi, "ß", "s"));
        assert!(eq(Utf8mb4Unicode520Ci, "straße", "STRASSE"));
        // Swedish: 'ä' sorts after 'z', 'ü' = 'y'.
        assert_eq!(
            Latin1SwedishCi.compare("ä".as_bytes(), b"z"),
            Ordering::Greater
        );
        assert!(eq(Latin1SwedishCi, "ü", "y"));
        assert!(eq(Latin1German1Ci, "ä", "a"));
        assert!(!eq(Latin1GeneralCs, "a", "A"));
        assert!(eq(Latin1GeneralCi, "a", "A"));
        // latin1_bin is latin1 byte order: '€' (0x80) before 'ÿ' (0xFF).
        assert_eq!(
            Latin1Bin.compare("€".as_bytes(), "ÿ".as_bytes()),
            Ordering::Less
        );
        // Outside the BMP general_ci and unicode_ci see one weight, 0xFFFD.
        assert!(eq(Utf8mb4GeneralCi, "😀", "😁"));
        assert!(!eq(Utf8mb4Unicode520Ci, "😀", "😁"));
    }

    #[test]
    fn pad_space_and_no_pad() {
        use Collation::*;
        for c in [
            Utf8mb4GeneralCi,
            Utf8mb4Bin,
            Utf8mb4UnicodeCi,
            Latin1SwedishCi,
            Latin1Bin,
        ] {
            assert!(eq(c, "a", "a  "), "{c:?}");
            // TAB weighs less than the space the shorter string is padded with.
            assert_eq!(c.compare(b"a\t", b"a"), Ordering::Less, "{c:?}");
            assert_eq!(c.compare(b"a \t", b"a"), Ordering::Less, "{c:?}");
        }
        for c in [
            Utf8mb4GeneralNopadCi,
            Utf8mb4NopadBin,
            Utf8mb4UnicodeNopadCi,
            Latin1NopadBin,
        ] {
            assert_eq!(c.compare(b"a", b"a "), Ordering::Less, "{c:?}");
            assert_eq!(c.compare(b"a\t", b"a"), Ordering::Greater, "{c:?}");
        }
        let long = format!("a{}b", " ".repeat(300));
        let c = Utf8mb4GeneralCi;
        let key = |s: &str| {
            let mut k = Vec::new();
            c.sort_key(s.as_bytes(), &mut k);
            k
        };
        assert_eq!(
            key(&long).cmp(&key("a b")),
            c.compare(long.as_bytes(), b"a b")
        );
        assert_eq!(
            key(&long).cmp(&key("a\t")),
            c.compare(long.as_bytes(), b"a\t")
        );
    }

    proptest::proptest! {
        /// The ASCII fast paths write the keys the general path writes.
        #[test]
        fn ascii_fast_path_is_the_general_path(a in "[a-zA-Z \\t_~]{0,12}") {
            for c in [Collation::Utf8mb4GeneralCi, Collation::Utf8mb4GeneralNopadCi] {
                let (mut fast, mut slow) = (Vec::new(), Vec::new());
                c.sort_key(a.as_bytes(), &mut fast);
                let mut w = KeyWriter::new(&mut slow, 2, c.pad_space(), 0x20);
                weights::for_each_weight(Kind::General, a.as_bytes(), |x| w.push(x));
                w.finish();
                proptest::prop_assert_eq!(fast, slow);
            }
        }
    }

    /// LIKE's per-character equality, as MariaDB 10.11 answered it.
    #[test]
    fn like_keys_are_mariadbs() {
        use Collation::*;
        let same = |c: Collation, a: char, b: char| c.like_key(a as u32) == c.like_key(b as u32);
        assert!(same(Utf8mb4GeneralCi, 'é', 'e'));
        assert!(same(Utf8mb4GeneralCi, 'ß', 's'));
        assert!(same(Utf8mb4GeneralCi, 'a', 'A'));
        assert!(same(Utf8mb4GeneralCi, '😀', '😁'));
        assert!(!same(Utf8mb4UnicodeCi, '😀', '😁'));
        assert!(same(Utf8mb4Unicode520Ci, 'ä', 'a'));
        assert!(same(Latin1SwedishCi, 'ü', 'y'));
        assert!(!same(Utf8mb4Bin, 'a', 'A'));
        assert!(!same(Utf8mb4UnicodeCi, 'ß', 's'));
    }

    /// Bytes MariaDB 10.11 returned for these WEIGHT_STRING calls.
    #[test]
    fn weight_string_is_mariadbs() {
        use Collation::*;
        let hex = |c: Collation, s: &str, n: Option<usize>| -> String {
            c.weight_string(s.as_bytes(), n)
                .iter()
                .map(|b| format!("{b:02X}"))
                .collect()
        };
        assert_eq!(hex(Utf8mb4GeneralCi, "a ", None), "00410020");
        assert_eq!(hex(Utf8mb4GeneralCi, "aé😀", None), "00410045FFFD");
        assert_eq!(hex(Utf8mb4UnicodeCi, "aß ", None), "0E330FEA0FEA0209");
        assert_eq!(hex(Utf8mb4UnicodeCi, "a😀", None), "0E33FFFD");
        assert_eq!(hex(Utf8mb4Unicode520Ci, "a😀", None), "120FFBC3F600");
        assert_eq!(hex(Latin1SwedishCi, "aÃ© ", None), "4141A920");
        assert_eq!(hex(Utf8mb4GeneralCi, "ab", Some(4)), "0041004200200020");
        assert_eq!(hex(Utf8mb4UnicodeCi, "ab", Some(4)), "0E330E4A02090209");
        assert_eq!(
            hex(Utf8mb4GeneralNopadCi, "ab", Some(4)),
            "0041004200000000"
        );
        assert_eq!(
            hex(Utf8mb4UnicodeNopadCi, "ab", Some(4)),
            "0E330E4A02000200"
        );
        assert_eq!(hex(Utf8mb4Unicode520Ci, "a", Some(3)), "120F020A020A");
        assert_eq!(hex(Utf8mb4UnicodeCi, "ßx", Some(1)), "0FEA");
        assert_eq!(hex(Utf8mb4Bin, "ab ", None), "000061000062000020");
        assert_eq!(hex(Utf8mb4Bin, "a", Some(3)), "000061000020000020");
        assert_eq!(hex(Utf8mb4NopadBin, "a", Some(3)), "000061000000000000");
        assert_eq!(hex(Utf8mb3Bin, "ab", None), "00610062");
        assert_eq!(hex(Utf8mb3NopadBin, "a", Some(3)), "006100000000");
        assert_eq!(hex(Latin1Bin, "ab ", None), "616220");
        assert_eq!(hex(Latin1NopadBin, "a", Some(3)), "610000");
        assert_eq!(hex(Latin1SwedishNopadCi, "a", Some(3)), "410000");
        assert_eq!(hex(AsciiBin, "ab", None), "6162");
        assert_eq!(hex(AsciiGeneralNopadCi, "a", Some(3)), "410000");
        assert_eq!(hex(Binary, "ab", Some(3)), "616200");
        assert_eq!(hex(Latin1German1Ci, "€é", None), "8045");
        assert_eq!(hex(Latin1GeneralCs, "€é", None), "C060");
        assert_eq!(hex(Utf8mb4UnicodeCi, "\u{AD}", Some(2)), "02200209");
        assert_eq!(hex(Ucs2Bin, "ab", None), "00610062");
        assert_eq!(hex(Utf16Bin, "a😀", None), "00006101F600");
        assert_eq!(hex(Utf16GeneralCi, "a😀", None), "0041FFFD");
        assert_eq!(hex(Utf32UnicodeCi, "a😀", None), "0E33FFFD");
        assert_eq!(hex(Ucs2Unicode520Ci, "aé", None), "120F126B");
        assert_eq!(hex(Ucs2GeneralMysql500Ci, "ßs", None), "00DF0053");
        assert_eq!(hex(Cp1251Bin, "aé", None), "613F");
        assert_eq!(hex(Latin7GeneralCi, "a ", None), "8630");
        assert_eq!(hex(Latin7GeneralCi, "a", Some(3)), "862020");
    }

    #[test]
    fn show_collation_rows() {
        let c = Collation::from_name("utf8_unicode_520_nopad_ci").expect("alias");
        assert_eq!(
            (c.id(), c.charset(), c.sortlen()),
            (1238, Charset::Utf8mb3, 8)
        );
        assert!(Collation::Latin1SwedishCi.is_default());
        assert!(!Collation::Latin1SwedishNopadCi.is_default());
        assert_eq!(Collation::from_id(1107), Some(Collation::Utf8mb3NopadBin));
    }

    proptest::proptest! {
        #[test]
        fn sort_key_agrees_with_compare(
            a in "[a-zA-Z \t Ää éEeßsS\u{AD}\u{300}€ÿ😀😁\u{1F600}\u{FFFD}\u{4E00}]{0,10}",
            b in "[a-zA-Z \t Ää éEeßsS\u{AD}\u{300}€ÿ😀😁\u{1F600}\u{FFFD}\u{4E00}]{0,10}",
        ) {
            for c in Collation::all() {
                let (mut ka, mut kb) = (Vec::new(), Vec::new());
                c.sort_key(a.as_bytes(), &mut ka);
                c.sort_key(b.as_bytes(), &mut kb);
                proptest::prop_assert_eq!(ka.cmp(&kb), c.compare(a.as_bytes(), b.as_bytes()), "{:?}", c);
                proptest::prop_assert_eq!(
                    c.compare(a.as_bytes(), b.as_bytes()),
                    c.compare(b.as_bytes(), a.as_bytes()).reverse()
                );
            }
        }
    }
}
