//! Weight streams, comparison and sort keys of the table-driven collations.
//!
//! A collation maps a string to a stream of weights (MariaDB's primary-level weights:
//! see the generated tables next to this file) and compares two strings by their
//! streams. Under PAD SPACE a string compares as if followed by endless space weights
//! (MariaDB's `strnncollsp`): `'a\t' < 'a'` because TAB weighs less than a space;
//! under NO PAD a proper prefix sorts first.
//!
//! Sort keys: every weight becomes a fixed-width big-endian token (1, 2 or 3 bytes).
//! Under PAD SPACE the space weight S cannot be written as itself, since whether a
//! run of spaces sorts above or below the end of the string depends on what follows
//! the run. So a maximal run of k tokens S followed by weight w becomes
//! `S, sign, count(k)` then w, where sign is 0 if w < S and 2 if w > S, and count is
//! k (order-preserving) when w < S and its complement when w > S; trailing runs are
//! dropped and the key ends with `S, 1`. The proof that byte order of these keys is
//! the padded comparison, case by case on the first block where two strings differ:
//! equal runs then w != v: the sign bytes or w/v decide as w/v do; runs of different
//! length k < j: position k decides the strings by w against S, and the keys by the
//! sign (w's against v's) or, equal signs, by the count, oriented by that sign; one
//! string ending: `S, 1` sits between the two signs, and against a bare w the first
//! token already differs.

use super::eight_orders::ORDERS;
use super::{general, latin1, uca400, uca520, Charset, Kind, L1};
use std::cmp::Ordering;

const SIGN_DOWN: u8 = 0;
pub(super) const SIGN_END: u8 = 1;
const SIGN_UP: u8 = 2;

/// Decodes the UTF-8 character at `s[*i]`, advancing `i`; an ill-formed byte reads as
/// U+FFFD and advances by one.
#[inline]
pub(super) fn next_char(s: &[u8], i: &mut usize) -> u32 {
    let b0 = s[*i];
    if b0 < 0x80 {
        *i += 1;
        return b0 as u32;
    }
    let cont = |k: usize| {
        s.get(*i + k)
            .filter(|b| (0x80..0xC0).contains(*b))
            .map(|b| (b & 0x3F) as u32)
    };
    let (len, init) = match b0 {
        0xC2..=0xDF => (2, (b0 & 0x1F) as u32),
        0xE0..=0xEF => (3, (b0 & 0x0F) as u32),
        0xF0..=0xF4 => (4, (b0 & 0x07) as u32),
        _ => (0, 0),
    };
    let mut cp = init;
    for k in 1..len {
        match cont(k) {
            Some(c) => cp = (cp << 6) | c,
            None => {
                *i += 1;
                return 0xFFFD;
            }
        }
    }
    let ok = match len {
        2 => true,
        3 => cp >= 0x800 && !(0xD800..=0xDFFF).contains(&cp),
        4 => (0x10000..=0x10FFFF).contains(&cp),
        _ => false,
    };
    if !ok {
        *i += 1;
        return 0xFFFD;
    }
    *i += len;
    cp
}

pub(super) fn general_weight(cp: u32) -> u16 {
    if cp > 0xFFFF {
        return 0xFFFD;
    }
    match general::PAGE_INDEX[(cp >> 8) as usize] {
        0xFF => cp as u16,
        row => general::PAGES[row as usize][(cp & 0xFF) as usize],
    }
}

/// The weight of `cp` under `*_general_mysql500_ci`: the general weight, but for
/// `ß`, which MariaDB 5.0's table left weighing itself.
pub(super) fn general500_weight(cp: u32) -> u16 {
    if cp == 0xDF {
        0xDF
    } else {
        general_weight(cp)
    }
}

/// The weight of `cp` under an 8-bit collation (`kind` is a [`Kind::Eight`]): its
/// byte in the set (`?` for a character the set lacks) through the sort order.
#[inline]
pub(super) fn eight_weight(kind: Kind, cp: u32) -> u8 {
    let Kind::Eight { set, order } = kind else {
        return b'?';
    };
    let b = crate::charset::eight_byte(set as usize, cp).unwrap_or(b'?');
    if order == super::BIN {
        b
    } else {
        ORDERS[order as usize][b as usize]
    }
}

/// MariaDB's implicit weights for a character its UCA table does not list.
fn implicit(cp: u32) -> [u16; 2] {
    let base = match cp {
        0x3400..=0x4DB5 => 0xFB80,
        0x4E00..=0x9FA5 => 0xFB40,
        _ => 0xFBC0,
    };
    [base + (cp >> 15) as u16, ((cp & 0x7FFF) | 0x8000) as u16]
}

/// The weights of one character from a generated UCA table, or its implicit weights.
macro_rules! uca_lookup {
    ($t:ident, $cp:expr, $buf:expr) => {{
        let cp = $cp;
        match $t::PAGE_INDEX
            .get((cp >> 8) as usize)
            .copied()
            .unwrap_or(0xFFFF)
        {
            0xFFFF => {
                *$buf = implicit(cp);
                &$buf[..]
            }
            row => {
                let row = row as usize;
                let base = $t::BASES[row] as usize;
                let o = 257 * row + (cp & 0xFF) as usize;
                let (from, to) = ($t::OFFSETS[o] as usize, $t::OFFSETS[o + 1] as usize);
                &$t::WEIGHTS[base + from..base + to]
            }
        }
    }};
}

fn latin1_table(t: L1) -> Option<&'static [u8; 256]> {
    match t {
        L1::Swedish => Some(&latin1::SWEDISH_CI),
        L1::German1 => Some(&latin1::GERMAN1_CI),
        L1::GeneralCi => Some(&latin1::GENERAL_CI),
        L1::GeneralCs => Some(&latin1::GENERAL_CS),
        L1::Bin => None,
    }
}

/// Calls `f` with every weight of `s` under `kind`, in order.
#[inline]
pub(super) fn for_each_weight(kind: Kind, s: &[u8], mut f: impl FnMut(u32)) {
    match kind {
        Kind::Binary | Kind::Bin => s.iter().for_each(|&b| f(b as u32)),
        Kind::General => {
            let mut i = 0;
            while i < s.len() {
                f(general_weight(next_char(s, &mut i)) as u32);
            }
        }
        Kind::Latin1(t) => {
            let table = latin1_table(t);
            let mut i = 0;
            while i < s.len() {
                let cp = next_char(s, &mut i);
                let b = crate::charset::latin1_byte(cp).unwrap_or(b'?');
                f(table.map_or(b, |t| t[b as usize]) as u32);
            }
        }
        Kind::General500 => {
            let mut i = 0;
            while i < s.len() {
                f(general500_weight(next_char(s, &mut i)) as u32);
            }
        }
        Kind::Eight { .. } => {
            let mut i = 0;
            while i < s.len() {
                f(eight_weight(kind, next_char(s, &mut i)) as u32);
            }
        }
        Kind::Uca400 => {
            let mut i = 0;
            let mut buf = [0u16; 2];
            while i < s.len() {
                let cp = next_char(s, &mut i);
                if cp > 0xFFFF {
                    f(0xFFFD);
                    continue;
                }
                uca_lookup!(uca400, cp, &mut buf)
                    .iter()
                    .for_each(|&w| f(w as u32));
            }
        }
        Kind::Uca520 => {
            let mut i = 0;
            let mut buf = [0u16; 2];
            while i < s.len() {
                let cp = next_char(s, &mut i);
                uca_lookup!(uca520, cp, &mut buf)
                    .iter()
                    .for_each(|&w| f(w as u32));
            }
        }
    }
}

pub(super) fn weights(kind: Kind, s: &[u8]) -> Vec<u32> {
    let mut v = Vec::with_capacity(s.len());
    for_each_weight(kind, s, |w| v.push(w));
    v
}

/// Compares two weight sequences; under `pad` the shorter one continues with `space`.
#[inline]
pub(super) fn compare_weights(a: &[u32], b: &[u32], pad: bool, space: u32) -> Ordering {
    let n = a.len().min(b.len());
    if let Some(i) = (0..n).find(|&i| a[i] != b[i]) {
        return a[i].cmp(&b[i]);
    }
    if !pad {
        return a.len().cmp(&b.len());
    }
    let tail = |rest: &[u32]| rest.iter().find(|&&w| w != space).map(|w| w.cmp(&space));
    match a.len().cmp(&b.len()) {
        Ordering::Equal => Ordering::Equal,
        Ordering::Greater => tail(&a[n..]).unwrap_or(Ordering::Equal),
        Ordering::Less => tail(&b[n..]).map_or(Ordering::Equal, Ordering::reverse),
    }
}

/// Writes the sort key of a weight stream (see the module doc).
pub(super) struct KeyWriter<'a> {
    out: &'a mut Vec<u8>,
    width: usize,
    pad: bool,
    space: u32,
    run: u32,
}

impl<'a> KeyWriter<'a> {
    #[inline]
    pub(super) fn new(out: &'a mut Vec<u8>, width: usize, pad: bool, space: u32) -> Self {
        KeyWriter {
            out,
            width,
            pad,
            space,
            run: 0,
        }
    }

    #[inline]
    fn token(&mut self, w: u32) {
        let bytes = w.to_be_bytes();
        self.out.extend_from_slice(&bytes[4 - self.width..]);
    }

    #[inline]
    pub(super) fn push(&mut self, w: u32) {
        if !self.pad {
            return self.token(w);
        }
        if w == self.space {
            self.run += 1;
            return;
        }
        if self.run > 0 {
            let up = w > self.space;
            self.token(self.space);
            self.out.push(if up { SIGN_UP } else { SIGN_DOWN });
            let mut count = [0u8; 5];
            let n = if self.run < 0xFF {
                count[0] = self.run as u8;
                1
            } else {
                count[0] = 0xFF;
                count[1..].copy_from_slice(&self.run.to_be_bytes());
                5
            };
            for c in &mut count[..n] {
                if up {
                    *c = !*c;
                }
            }
            self.out.extend_from_slice(&count[..n]);
            self.run = 0;
        }
        self.token(w);
    }

    #[inline]
    pub(super) fn finish(self) {
        if self.pad {
            let space = self.space;
            let width = self.width;
            self.out
                .extend_from_slice(&space.to_be_bytes()[4 - width..]);
            self.out.push(SIGN_END);
        }
    }
}

/// WEIGHT_STRING's bytes for one weight (MariaDB's strnxfrm output widths).
pub(super) fn weight_bytes(kind: Kind, charset: Charset, w: u32, out: &mut Vec<u8>) {
    let width = match (kind, charset) {
        (Kind::Binary | Kind::Latin1(_) | Kind::Eight { .. }, _) | (_, Charset::Ascii) => 1,
        (Kind::Bin, Charset::Utf8mb4 | Charset::Utf16 | Charset::Utf16le | Charset::Utf32) => 3,
        _ => 2,
    };
    out.extend_from_slice(&w.to_be_bytes()[4 - width..]);
}
