//! String functions. Strings are UTF-8; positions and lengths count characters
//! except LENGTH(), which counts bytes.

use super::{Func, TrimSide};
use crate::expr::{EvalCtx, R};
use crate::value::{to_bytes, to_num};
use basalt_common::{Collation, Value};

fn text(v: &Value) -> String {
    String::from_utf8_lossy(&to_bytes(v)).into_owned()
}

fn int_arg(v: &Value) -> i64 {
    to_num(v).0.to_i64().unwrap_or(i64::MAX)
}

pub fn eval(f: Func, vals: Vec<Value>, ctx: &mut EvalCtx) -> R {
    use Func::*;
    match f {
        Uuid => Ok(Value::str(&uuid(ctx))),
        Concat => {
            if vals.iter().any(Value::is_null) {
                return Ok(Value::Null);
            }
            let parts: Vec<Vec<u8>> = vals.iter().map(to_bytes).collect();
            let len = parts.iter().map(|p| p.len() as u64).sum();
            if over_packet(ctx, "concat", len) {
                return Ok(Value::Null);
            }
            Ok(Value::Bytes(parts.concat()))
        }
        ConcatWs => {
            if vals[0].is_null() {
                return Ok(Value::Null);
            }
            let sep = to_bytes(&vals[0]);
            let parts: Vec<Vec<u8>> = vals[1..]
                .iter()
                .filter(|v| !v.is_null())
                .map(to_bytes)
                .collect();
            let seps = (parts.len().saturating_sub(1) * sep.len()) as u64;
            let len = parts.iter().map(|p| p.len() as u64).sum::<u64>() + seps;
            if over_packet(ctx, "concat_ws", len) {
                return Ok(Value::Null);
            }
            Ok(Value::Bytes(parts.join(sep.as_slice())))
        }
        // QUOTE(NULL) is the word NULL; FIELD(NULL, ...) is 0.
        Quote if vals[0].is_null() => Ok(Value::str("NULL")),
        Field if vals[0].is_null() => Ok(Value::Int(0)),
        // ELT(n, ...) is NULL only when n or the chosen string is.
        Elt if !vals[0].is_null() => {
            let n = int_arg(&vals[0]);
            Ok(if n >= 1 && (n as usize) < vals.len() {
                match &vals[n as usize] {
                    Value::Null => Value::Null,
                    v => Value::Bytes(to_bytes(v)),
                }
            } else {
                Value::Null
            })
        }
        _ if vals.iter().any(Value::is_null) => Ok(Value::Null),
        Length => Ok(Value::Int(to_bytes(&vals[0]).len() as i64)),
        CharLength => Ok(Value::Int(text(&vals[0]).chars().count() as i64)),
        Upper => Ok(Value::str(&text(&vals[0]).to_uppercase())),
        Lower => Ok(Value::str(&text(&vals[0]).to_lowercase())),
        Substring => Ok(Value::str(&substring(
            &text(&vals[0]),
            int_arg(&vals[1]),
            vals.get(2).map(int_arg),
        ))),
        Trim(side) => {
            let pad = vals.get(1).map_or_else(|| " ".to_string(), text);
            Ok(Value::str(&trim(&text(&vals[0]), &pad, side)))
        }
        Replace => {
            let from = text(&vals[1]);
            let s = text(&vals[0]);
            if from.is_empty() {
                return Ok(Value::str(&s));
            }
            let to = text(&vals[2]);
            if to.len() > from.len() {
                let grows = (to.len() - from.len()) as u64;
                let len = s.len() as u64 + s.matches(from.as_str()).count() as u64 * grows;
                if over_packet(ctx, "replace", len) {
                    return Ok(Value::Null);
                }
            }
            Ok(Value::str(&s.replace(&from, &to)))
        }
        Left => {
            let n = int_arg(&vals[1]).max(0) as usize;
            Ok(Value::str(
                &text(&vals[0]).chars().take(n).collect::<String>(),
            ))
        }
        Right => {
            let s: Vec<char> = text(&vals[0]).chars().collect();
            let n = (int_arg(&vals[1]).max(0) as usize).min(s.len());
            Ok(Value::str(&s[s.len() - n..].iter().collect::<String>()))
        }
        Repeat => {
            let s = text(&vals[0]);
            let n = int_arg(&vals[1]).max(0) as u64;
            if over_packet(ctx, "repeat", n.saturating_mul(s.len() as u64)) {
                return Ok(Value::Null);
            }
            Ok(Value::str(&s.repeat(n as usize)))
        }
        Reverse => Ok(Value::str(
            &text(&vals[0]).chars().rev().collect::<String>(),
        )),
        Lpad | Rpad => Ok(pad(
            &text(&vals[0]),
            int_arg(&vals[1]),
            &vals.get(2).map_or_else(|| " ".to_string(), text),
            f == Lpad,
            ctx,
        )),
        Locate => {
            let start = vals.get(2).map_or(1, int_arg);
            Ok(Value::Int(locate(&text(&vals[0]), &text(&vals[1]), start)))
        }
        Instr => Ok(Value::Int(locate(&text(&vals[1]), &text(&vals[0]), 1))),
        Space => {
            let n = int_arg(&vals[0]).max(0) as u64;
            Ok(if over_packet(ctx, "space", n) {
                Value::Null
            } else {
                Value::str(&" ".repeat(n as usize))
            })
        }
        Ascii => Ok(Value::Int(
            to_bytes(&vals[0]).first().copied().unwrap_or(0) as i64
        )),
        Hex => Ok(Value::str(&hex(&vals[0]))),
        Md5 => Ok(Value::str(&hex_bytes(&md5::compute(&to_bytes(&vals[0]))))),
        Sha1 => {
            use sha1::Digest;
            Ok(Value::str(&hex_bytes(&sha1::Sha1::digest(to_bytes(
                &vals[0],
            )))))
        }
        Sha2 => {
            let v = sha2(&to_bytes(&vals[0]), int_arg(&vals[1]));
            if v.is_null() {
                ctx.warn(
                    1583,
                    "Incorrect parameters in the call to native function 'sha2'",
                );
            }
            Ok(v)
        }
        // CRC32(par, s) continues the checksum `par` over s (MariaDB 10.8).
        Crc32 if vals.len() == 2 => Ok(Value::Int(crc32_from(
            int_arg(&vals[0]) as u32,
            &to_bytes(&vals[1]),
        ) as i64)),
        Crc32 => Ok(Value::Int(crc32(&to_bytes(&vals[0])) as i64)),
        Strcmp => {
            let o = Collation::Utf8mb4GeneralCi.compare(&to_bytes(&vals[0]), &to_bytes(&vals[1]));
            Ok(Value::Int(o as i64))
        }
        LikeLow | LikeHigh => Ok(like_bound(&vals, f == LikeHigh)),
        SubstringIndex => Ok(Value::str(&substring_index(
            &text(&vals[0]),
            &text(&vals[1]),
            int_arg(&vals[2]),
        ))),
        FindInSetMember => Ok(Value::Int(find_set_member(&vals[0], &vals[1]))),
        FindInSet => {
            let needle = text(&vals[0]);
            let hay = text(&vals[1]);
            if hay.is_empty() {
                return Ok(Value::Int(0));
            }
            let pos = hay.split(',').position(|x| x.eq_ignore_ascii_case(&needle));
            Ok(Value::Int(pos.map_or(0, |p| p as i64 + 1)))
        }
        Elt => {
            let n = int_arg(&vals[0]);
            Ok(if n >= 1 && (n as usize) < vals.len() {
                Value::Bytes(to_bytes(&vals[n as usize]))
            } else {
                Value::Null
            })
        }
        Format => {
            let d = int_arg(&vals[1]).clamp(0, 30) as usize;
            let en_us = format_number(crate::value::to_f64(&vals[0]), d);
            let Some(locale) = vals.get(2) else {
                return Ok(Value::str(&en_us));
            };
            let name = text(locale);
            let (s, unknown) = super::locale::localize(&en_us, &name);
            if unknown {
                ctx.warn(1649, format!("Unknown locale: '{name}'"));
            }
            Ok(Value::str(&s))
        }
        Quote => Ok(Value::str(&format!(
            "'{}'",
            text(&vals[0]).replace('\\', "\\\\").replace('\'', "\\'")
        ))),
        Bin => Ok(Value::str(&format!("{:b}", int_arg(&vals[0]) as u64))),
        Oct => Ok(Value::str(&format!("{:o}", int_arg(&vals[0]) as u64))),
        Field => {
            let pos = vals[1..].iter().position(|v| {
                crate::value::compare::equal(&vals[0], v, Collation::Utf8mb4GeneralCi) == Some(true)
            });
            Ok(Value::Int(pos.map_or(0, |p| p as i64 + 1)))
        }
        _ => Ok(Value::Null),
    }
}

/// The key range of `LIKE pattern`: strings from the pattern's literal prefix up
/// to that prefix followed by the highest characters.
fn like_bound(vals: &[Value], high: bool) -> Value {
    let pattern = to_bytes(&vals[0]);
    let esc = vals
        .get(1)
        .map_or(Some(b'\\'), |e| to_bytes(e).first().copied());
    let mut prefix = Vec::new();
    let mut i = 0;
    while i < pattern.len() {
        let c = pattern[i];
        if Some(c) == esc && i + 1 < pattern.len() {
            prefix.push(pattern[i + 1]);
            i += 2;
            continue;
        }
        if c == b'%' || c == b'_' {
            break;
        }
        prefix.push(c);
        i += 1;
    }
    if high {
        for _ in 0..4 {
            prefix.extend_from_slice("\u{FFFF}".as_bytes());
        }
    }
    Value::Bytes(prefix)
}

/// SUBSTRING_INDEX(s, delim, count).
fn substring_index(s: &str, delim: &str, count: i64) -> String {
    if delim.is_empty() || count == 0 {
        return String::new();
    }
    let parts: Vec<&str> = s.split(delim).collect();
    let n = count.unsigned_abs() as usize;
    if n >= parts.len() {
        return s.to_string();
    }
    if count > 0 {
        parts[..n].join(delim)
    } else {
        parts[parts.len() - n..].join(delim)
    }
}

/// FORMAT(x, d): rounded to `d` decimals with thousands separators.
fn format_number(x: f64, d: usize) -> String {
    let text = basalt_common::Decimal::from_f64(x.abs())
        .and_then(|v| v.rescale(d as u8))
        .map_or_else(|| format!("{:.*}", d, x.abs()), |v| v.to_string());
    let (int, frac) = match text.split_once('.') {
        Some((i, f)) => (i.to_string(), Some(f.to_string())),
        None => (text.clone(), None),
    };
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if x < 0.0 && text.chars().any(|c| c.is_ascii_digit() && c != '0') {
        "-"
    } else {
        ""
    };
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// A version-1-style UUID from the clock and the session's random state.
fn uuid(ctx: &mut EvalCtx) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let t = now.as_nanos() as u64 / 100 + 0x01B2_1DD2_1381_4000;
    let r = (ctx.cx.next_rand() * u64::MAX as f64) as u64;
    format!(
        "{:08x}-{:04x}-1{:03x}-{:04x}-{:012x}",
        t as u32,
        (t >> 32) as u16,
        (t >> 48) as u16 & 0xfff,
        (r >> 48) as u16 & 0x3fff | 0x8000,
        r & 0xffff_ffff_ffff
    )
}

/// SUBSTRING(s, pos[, len]) with MySQL's 1-based and negative positions.
pub fn substring(s: &str, pos: i64, len: Option<i64>) -> String {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len() as i64;
    let start = if pos > 0 {
        pos - 1
    } else if pos < 0 {
        n + pos
    } else {
        return String::new();
    };
    if start < 0 || start >= n {
        return String::new();
    }
    let end = match len {
        Some(l) if l <= 0 => return String::new(),
        Some(l) => (start.saturating_add(l)).min(n),
        None => n,
    };
    chars[start as usize..end as usize].iter().collect()
}

fn trim(s: &str, pad: &str, side: TrimSide) -> String {
    if pad.is_empty() {
        return s.to_string();
    }
    let mut t = s;
    if side != TrimSide::Trailing {
        while let Some(rest) = t.strip_prefix(pad) {
            t = rest;
        }
    }
    if side != TrimSide::Leading {
        while let Some(rest) = t.strip_suffix(pad) {
            t = rest;
        }
    }
    t.to_string()
}

/// The smallest `max_allowed_packet` there can be: shorter results need no look-up.
const MIN_PACKET: u64 = 1024;

/// A string function must not build a result longer than the session's
/// `max_allowed_packet`: MariaDB returns NULL with warning 1301 instead. Checked on
/// the computed length, before allocating.
pub(super) fn over_packet(ctx: &mut EvalCtx, func: &str, len: u64) -> bool {
    if len <= MIN_PACKET {
        return false;
    }
    let max = ctx.cx.var_u64("max_allowed_packet");
    if max == 0 || len <= max {
        return false;
    }
    ctx.warn(
        basalt_common::error::code::ER_WARN_ALLOWED_PACKET_OVERFLOWED,
        format!("Result of {func}() was larger than max_allowed_packet ({max}) - truncated"),
    );
    true
}

fn pad(s: &str, len: i64, padding: &str, left: bool, ctx: &mut EvalCtx) -> Value {
    if len < 0 {
        return Value::Null;
    }
    let chars: Vec<char> = s.chars().collect();
    if chars.len() as u64 >= len as u64 {
        return Value::str(&chars[..len as usize].iter().collect::<String>());
    }
    if padding.is_empty() {
        return Value::Null;
    }
    // Bytes of the result: the string, whole copies of the padding, and a prefix.
    let fill_chars = len as u64 - chars.len() as u64;
    let pad_chars = padding.chars().count() as u64;
    let rest: usize = padding
        .chars()
        .take((fill_chars % pad_chars) as usize)
        .map(char::len_utf8)
        .sum();
    let bytes = s.len() as u64 + fill_chars / pad_chars * padding.len() as u64 + rest as u64;
    let name = if left { "lpad" } else { "rpad" };
    if over_packet(ctx, name, bytes) {
        return Value::Null;
    }
    let fill: String = padding.chars().cycle().take(fill_chars as usize).collect();
    Value::str(&if left { fill + s } else { format!("{s}{fill}") })
}

fn locate(needle: &str, hay: &str, start: i64) -> i64 {
    if start < 1 {
        return 0;
    }
    let h: Vec<char> = hay.chars().collect();
    let n: Vec<char> = needle.chars().collect();
    let from = (start - 1) as usize;
    if n.is_empty() {
        return if from <= h.len() { start } else { 0 };
    }
    let fold = |c: &char| c.to_lowercase().next().unwrap_or(*c);
    (from..h.len().saturating_sub(n.len() - 1))
        .find(|&i| h[i..i + n.len()].iter().map(fold).eq(n.iter().map(fold)))
        .map_or(0, |i| i as i64 + 1)
}

fn hex(v: &Value) -> String {
    match v {
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) => {
            let n = to_num(v).0.to_i128().unwrap_or(0);
            format!("{:X}", n as u64)
        }
        other => to_bytes(other).iter().map(|b| format!("{b:02X}")).collect(),
    }
}

fn hex_bytes(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn sha2(data: &[u8], bits: i64) -> Value {
    use sha2::Digest;
    let h = match bits {
        0 | 256 => hex_bytes(&sha2::Sha256::digest(data)),
        224 => hex_bytes(&sha2::Sha224::digest(data)),
        384 => hex_bytes(&sha2::Sha384::digest(data)),
        512 => hex_bytes(&sha2::Sha512::digest(data)),
        _ => return Value::Null,
    };
    Value::str(&h)
}

fn crc32(data: &[u8]) -> u32 {
    crc32_from(0, data)
}

/// CRC-32 (ISO-HDLC) of `data` continuing from the checksum `prev`.
fn crc32_from(prev: u32, data: &[u8]) -> u32 {
    let mut crc = !prev;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

/// MD5 (RFC 1321), small enough to keep here rather than add a dependency.
pub(crate) mod md5 {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5,
        9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10,
        15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ];

    pub fn compute(input: &[u8]) -> [u8; 16] {
        let k: Vec<u32> = (0..64)
            .map(|i| ((i as f64 + 1.0).sin().abs() * 4_294_967_296.0) as u32)
            .collect();
        let mut msg = input.to_vec();
        let bit_len = (input.len() as u64).wrapping_mul(8);
        msg.push(0x80);
        while msg.len() % 64 != 56 {
            msg.push(0);
        }
        msg.extend_from_slice(&bit_len.to_le_bytes());
        let mut h: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
        for chunk in msg.chunks(64) {
            let m: Vec<u32> = chunk
                .chunks(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect();
            let (mut a, mut b, mut c, mut d) = (h[0], h[1], h[2], h[3]);
            for i in 0..64 {
                let (f, g) = match i / 16 {
                    0 => ((b & c) | (!b & d), i),
                    1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                    2 => (b ^ c ^ d, (3 * i + 5) % 16),
                    _ => (c ^ (b | !d), (7 * i) % 16),
                };
                let f2 = f.wrapping_add(a).wrapping_add(k[i]).wrapping_add(m[g]);
                a = d;
                d = c;
                c = b;
                b = b.wrapping_add(f2.rotate_left(S[i]));
            }
            h[0] = h[0].wrapping_add(a);
            h[1] = h[1].wrapping_add(b);
            h[2] = h[2].wrapping_add(c);
            h[3] = h[3].wrapping_add(d);
        }
        let mut out = [0u8; 16];
        for (i, v) in h.iter().enumerate() {
            out[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        out
    }
}

/// FIND_IN_SET of a constant in a SET column's value: the declaration position of
/// the member named, when present. The k-th member of the value's text is the k-th
/// bit set in its bitmask (members are listed in declaration order).
fn find_set_member(needle: &Value, hay: &Value) -> i64 {
    let needle = text(needle);
    let (mask, hay) = match hay {
        Value::Enum(mask, b) => (*mask, String::from_utf8_lossy(b).into_owned()),
        other => (0, text(other)),
    };
    if hay.is_empty() {
        return 0;
    }
    let Some(p) = hay.split(',').position(|x| x.eq_ignore_ascii_case(&needle)) else {
        return 0;
    };
    if mask == 0 {
        return p as i64 + 1;
    }
    (0..64)
        .filter(|b| mask & (1u64 << b) != 0)
        .nth(p)
        .map_or(0, |b| b as i64 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substrings() {
        assert_eq!(substring("hello", 2, None), "ello");
        assert_eq!(substring("hello", -3, Some(2)), "ll");
        assert_eq!(substring("hello", 0, None), "");
        assert_eq!(substring("hello", 2, Some(100)), "ello");
        assert_eq!(substring_index("a.b.c", ".", 2), "a.b");
        assert_eq!(substring_index("a.b.c", ".", -2), "b.c");
        assert_eq!(format_number(1234567.891, 2), "1,234,567.89");
        assert_eq!(format_number(-1234.5, 0), "-1,235");
    }

    #[test]
    fn digests() {
        assert_eq!(
            hex_bytes(&md5::compute(b"a")),
            "0cc175b9c0f1b6a831c399e269772661"
        );
        assert_eq!(
            hex_bytes(&md5::compute(b"")),
            "d41d8cd98f00b204e9800998ecf8427e"
        );
        assert_eq!(crc32(b"MySQL"), 3_259_397_556);
    }

    #[test]
    fn locate_and_trim() {
        assert_eq!(locate("bar", "foobarbar", 1), 4);
        assert_eq!(locate("bar", "foobarbar", 5), 7);
        assert_eq!(locate("x", "foo", 1), 0);
        assert_eq!(trim("xxaxx", "x", TrimSide::Leading), "axx");
        assert_eq!(trim("  a  ", " ", TrimSide::Both), "a");
    }
}
