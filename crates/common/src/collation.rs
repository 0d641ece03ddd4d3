//! Character sets and collations: how strings compare, and the sort keys indexes store.
//!
//! Basalt stores every character column as UTF-8 bytes (utf8mb4; latin1, ascii and
//! utf8mb3 columns hold their characters' UTF-8; what each set accepts and how client
//! bytes convert is in [`crate::charset`]). Comparison follows the column's collation:
//! - `*_bin` / `binary`: byte order (PAD SPACE for the non-binary `_bin` collations);
//! - `*_general_ci`: each character mapped to its simple uppercase form, characters
//!   outside the Basic Multilingual Plane weigh as U+FFFD, trailing spaces ignored (PAD
//!   SPACE), as MariaDB's `utf8mb4_general_ci` does.
//!
//! Invariant: `compare(a, b) == sort_key(a).cmp(&sort_key(b))` for every collation, so
//! an index ordered by sort keys agrees with the comparisons the executor makes.

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Charset {
    Binary,
    Utf8mb4,
    Utf8mb3,
    Latin1,
    Ascii,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Collation {
    Binary,
    Utf8mb4GeneralCi,
    Utf8mb4Bin,
    Utf8mb4UnicodeCi,
    Utf8mb3GeneralCi,
    Utf8mb3Bin,
    Latin1SwedishCi,
    Latin1Bin,
    AsciiGeneralCi,
}

impl Charset {
    pub fn name(self) -> &'static str {
        match self {
            Charset::Binary => "binary",
            Charset::Utf8mb4 => "utf8mb4",
            Charset::Utf8mb3 => "utf8mb3",
            Charset::Latin1 => "latin1",
            Charset::Ascii => "ascii",
        }
    }

    pub fn from_name(name: &str) -> Option<Charset> {
        Some(match name.to_ascii_lowercase().as_str() {
            "binary" => Charset::Binary,
            "utf8mb4" => Charset::Utf8mb4,
            "utf8" | "utf8mb3" => Charset::Utf8mb3,
            "latin1" => Charset::Latin1,
            "ascii" => Charset::Ascii,
            _ => return None,
        })
    }

    pub fn default_collation(self) -> Collation {
        match self {
            Charset::Binary => Collation::Binary,
            Charset::Utf8mb4 => Collation::Utf8mb4GeneralCi,
            Charset::Utf8mb3 => Collation::Utf8mb3GeneralCi,
            Charset::Latin1 => Collation::Latin1SwedishCi,
            Charset::Ascii => Collation::AsciiGeneralCi,
        }
    }

    /// Bytes per character at most (for column length reporting).
    pub fn max_len(self) -> u32 {
        match self {
            Charset::Binary | Charset::Latin1 | Charset::Ascii => 1,
            Charset::Utf8mb3 => 3,
            Charset::Utf8mb4 => 4,
        }
    }
}

const ALL: [Collation; 9] = [
    Collation::Binary,
    Collation::Utf8mb4GeneralCi,
    Collation::Utf8mb4Bin,
    Collation::Utf8mb4UnicodeCi,
    Collation::Utf8mb3GeneralCi,
    Collation::Utf8mb3Bin,
    Collation::Latin1SwedishCi,
    Collation::Latin1Bin,
    Collation::AsciiGeneralCi,
];

impl Collation {
    pub fn all() -> &'static [Collation] {
        &ALL
    }

    /// The collation id sent in column definitions and the handshake.
    pub fn id(self) -> u16 {
        match self {
            Collation::Binary => 63,
            Collation::Utf8mb4GeneralCi => 45,
            Collation::Utf8mb4Bin => 46,
            Collation::Utf8mb4UnicodeCi => 224,
            Collation::Utf8mb3GeneralCi => 33,
            Collation::Utf8mb3Bin => 83,
            Collation::Latin1SwedishCi => 8,
            Collation::Latin1Bin => 47,
            Collation::AsciiGeneralCi => 11,
        }
    }

    pub fn from_id(id: u16) -> Option<Collation> {
        ALL.iter().copied().find(|c| c.id() == id)
    }

    pub fn name(self) -> &'static str {
        match self {
            Collation::Binary => "binary",
            Collation::Utf8mb4GeneralCi => "utf8mb4_general_ci",
            Collation::Utf8mb4Bin => "utf8mb4_bin",
            Collation::Utf8mb4UnicodeCi => "utf8mb4_unicode_ci",
            Collation::Utf8mb3GeneralCi => "utf8mb3_general_ci",
            Collation::Utf8mb3Bin => "utf8mb3_bin",
            Collation::Latin1SwedishCi => "latin1_swedish_ci",
            Collation::Latin1Bin => "latin1_bin",
            Collation::AsciiGeneralCi => "ascii_general_ci",
        }
    }

    pub fn from_name(name: &str) -> Option<Collation> {
        let lower = name.to_ascii_lowercase();
        let lower = lower.replace("utf8_", "utf8mb3_");
        ALL.iter().copied().find(|c| c.name() == lower)
    }

    pub fn charset(self) -> Charset {
        match self {
            Collation::Binary => Charset::Binary,
            Collation::Utf8mb4GeneralCi | Collation::Utf8mb4Bin | Collation::Utf8mb4UnicodeCi => {
                Charset::Utf8mb4
            }
            Collation::Utf8mb3GeneralCi | Collation::Utf8mb3Bin => Charset::Utf8mb3,
            Collation::Latin1SwedishCi | Collation::Latin1Bin => Charset::Latin1,
            Collation::AsciiGeneralCi => Charset::Ascii,
        }
    }

    pub fn is_binary(self) -> bool {
        self == Collation::Binary
    }

    fn case_insensitive(self) -> bool {
        matches!(
            self,
            Collation::Utf8mb4GeneralCi
                | Collation::Utf8mb4UnicodeCi
                | Collation::Utf8mb3GeneralCi
                | Collation::Latin1SwedishCi
                | Collation::AsciiGeneralCi
        )
    }

    /// Compares two strings under this collation.
    pub fn compare(self, a: &[u8], b: &[u8]) -> Ordering {
        if self.is_binary() {
            return a.cmp(b);
        }
        if !self.case_insensitive() {
            return trim_pad(a).cmp(trim_pad(b));
        }
        let (ta, tb) = (trim_pad(a), trim_pad(b));
        if ta.is_ascii() && tb.is_ascii() {
            // An ASCII character weighs as its upper case (see `weight`).
            return ta
                .iter()
                .map(u8::to_ascii_uppercase)
                .cmp(tb.iter().map(u8::to_ascii_uppercase));
        }
        let mut x = weights(a);
        let mut y = weights(b);
        loop {
            match (x.next(), y.next()) {
                (None, None) => return Ordering::Equal,
                (None, Some(_)) => return Ordering::Less,
                (Some(_), None) => return Ordering::Greater,
                (Some(p), Some(q)) if p != q => return p.cmp(&q),
                _ => {}
            }
        }
    }

    /// Appends a byte string whose byte order equals this collation's order.
    /// The key is not self-delimiting; callers escape it (see the key encoding).
    pub fn sort_key(self, s: &[u8], out: &mut Vec<u8>) {
        if self.is_binary() {
            out.extend_from_slice(s);
        } else if !self.case_insensitive() {
            out.extend_from_slice(trim_pad(s));
        } else if s.is_ascii() {
            // The weight of an ASCII character is its upper case (see `weight`).
            let t = trim_pad(s);
            let start = out.len();
            out.resize(start + 3 * t.len(), 0);
            for (w, &c) in out[start..].chunks_exact_mut(3).zip(t) {
                w[2] = c.to_ascii_uppercase();
            }
        } else {
            for w in weights(s) {
                out.extend_from_slice(&w.to_be_bytes()[1..]);
            }
        }
    }
}

fn trim_pad(s: &[u8]) -> &[u8] {
    let end = s.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1);
    &s[..end]
}

/// Case-folded weights of a UTF-8 string, trailing spaces removed. Invalid UTF-8
/// bytes weigh as themselves above every character.
fn weights(s: &[u8]) -> impl Iterator<Item = u32> + '_ {
    let s = trim_pad(s);
    let text = String::from_utf8_lossy(s);
    let folded: Vec<u32> = text.chars().map(weight).collect();
    folded.into_iter()
}

fn weight(c: char) -> u32 {
    if (c as u32) > 0xFFFF {
        return 0xFFFD;
    }
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) if (u as u32) <= 0xFFFF => u as u32,
        _ => c as u32,
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

    proptest::proptest! {
        #[test]
        fn sort_key_agrees_with_compare(a in "[a-zA-Z Ää]{0,8}", b in "[a-zA-Z Ää]{0,8}") {
            for c in Collation::all() {
                let (mut ka, mut kb) = (Vec::new(), Vec::new());
                c.sort_key(a.as_bytes(), &mut ka);
                c.sort_key(b.as_bytes(), &mut kb);
                proptest::prop_assert_eq!(ka.cmp(&kb), c.compare(a.as_bytes(), b.as_bytes()));
            }
        }
    }
}
