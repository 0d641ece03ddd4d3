//! CAST / CONVERT, with MariaDB's warnings for values that do not convert cleanly.

use super::{EvalCtx, R};
use crate::ty::{Class, ExprType};
use crate::value::{
    num_to_datetime, parse_date, parse_datetime, parse_time, to_bytes, to_num, Num,
};
use basalt_common::charset;
use basalt_common::error::code;
use basalt_common::{Charset, Collation, DateTime, Decimal, Time, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastTarget {
    Signed,
    Unsigned,
    /// CHAR(n) with a collation; BINARY(n) is `Collation::Binary`.
    Char(Option<u32>, Collation),
    /// CHAR(n) of an 8-bit or wide set's collation from a binary string: the bytes
    /// read as that set's characters (strings are held as UTF-8, binary strings as
    /// bytes).
    FromBinary(Option<u32>, Collation),
    /// BINARY(n) of a string of an 8-bit or wide set: its bytes in that set.
    CharsetBytes(Option<u32>, Charset),
    Decimal(u8, u8),
    Double,
    Date,
    DateTime(u8),
    Time(u8),
    /// A binary string as the big-endian number a BIT compares with.
    BitNumber,
    /// UUID or INET6.
    Fixed(basalt_common::fixedbin::FixedBin),
    /// A DATETIME / TIMESTAMP / TIME value's text with exactly this many
    /// fractional digits (its type's), as MariaDB converts one to a string.
    TemporalText(u8),
}

impl CastTarget {
    /// Result type of `CAST(x AS target)` given the argument's type.
    pub fn result_type(&self, arg: &ExprType) -> ExprType {
        let t = match self {
            CastTarget::Signed => ExprType::int_p(arg.precision().clamp(1, 20)),
            CastTarget::Unsigned => ExprType::uint_p(arg.precision().clamp(1, 20)),
            CastTarget::Char(n, coll) | CastTarget::FromBinary(n, coll) => {
                // To bytes, a string's length is its octets (MariaDB's max_length).
                let octets = match arg.class {
                    Class::String if coll.is_binary() => arg.collation.charset().max_len(),
                    _ => 1,
                };
                let len = n.unwrap_or(arg.len.saturating_mul(octets).max(1));
                let mut t = ExprType::string(len, *coll);
                t.decimals = 0;
                t
            }
            CastTarget::CharsetBytes(n, cs) => {
                let octets = arg.len.saturating_mul(cs.max_len()).max(1);
                let mut t = ExprType::string(n.unwrap_or(octets), Collation::Binary);
                t.decimals = 0;
                t
            }
            CastTarget::Decimal(p, s) => ExprType::decimal(*p as u32, *s),
            CastTarget::Double => ExprType::double(),
            CastTarget::Date => ExprType::date(),
            CastTarget::DateTime(f) => ExprType::datetime(*f),
            CastTarget::Time(f) => ExprType::time(*f),
            CastTarget::Fixed(k) => ExprType::fixed(*k),
            CastTarget::BitNumber => ExprType::uint_p(20),
            CastTarget::TemporalText(_) => ExprType::string(arg.len.max(1), Collation::Utf8mb4Bin),
        };
        t.nullable(
            arg.nullable
                || matches!(
                    self,
                    CastTarget::Date
                        | CastTarget::DateTime(_)
                        | CastTarget::Time(_)
                        | CastTarget::Char(..)
                        | CastTarget::FromBinary(..)
                        | CastTarget::CharsetBytes(..)
                        | CastTarget::Fixed(_)
                ),
        )
    }
}

fn text_of(v: &Value) -> String {
    String::from_utf8_lossy(&to_bytes(v)).into_owned()
}

pub fn cast(v: Value, target: &CastTarget, ctx: &mut EvalCtx) -> R {
    if v.is_null() {
        return Ok(Value::Null);
    }
    match target {
        CastTarget::Signed | CastTarget::Unsigned => {
            to_integer(v, *target == CastTarget::Unsigned, ctx)
        }
        CastTarget::Char(len, coll) => {
            let mut b = to_bytes(&v);
            if !coll.is_binary() {
                b = convert_chars(b, coll.charset(), ctx);
            }
            if let Some(n) = len {
                truncate_chars(&mut b, *n as usize, coll.is_binary(), ctx, &v);
                if coll.is_binary() {
                    // BINARY(n) pads with 0x00 bytes, as MariaDB's.
                    b.resize(*n as usize, 0);
                }
            }
            Ok(Value::Bytes(b))
        }
        CastTarget::FromBinary(len, coll) => {
            let raw = to_bytes(&v);
            let mut b = charset::to_internal(&raw, coll.charset()).into_owned();
            if let Some(n) = len {
                truncate_chars(&mut b, *n as usize, false, ctx, &v);
            }
            Ok(Value::Bytes(b))
        }
        CastTarget::CharsetBytes(len, cs) => {
            let mut b = charset::from_internal(&to_bytes(&v), *cs).into_owned();
            if let Some(n) = len {
                truncate_chars(&mut b, *n as usize, true, ctx, &v);
                b.resize(*n as usize, 0);
            }
            Ok(Value::Bytes(b))
        }
        CastTarget::Decimal(p, s) => Ok(Value::Decimal(to_decimal_clamped(&v, *p, *s, ctx))),
        CastTarget::Double => {
            let (n, clean) = to_num(&v);
            if !clean {
                ctx.truncated_double(&v);
            }
            Ok(Value::Double(n.to_f64()))
        }
        CastTarget::Date => Ok(to_datetime(&v, ctx).map_or(Value::Null, |d| Value::Date(d.date))),
        CastTarget::DateTime(fsp) => Ok(to_datetime(&v, ctx).map_or(Value::Null, |d| {
            Value::DateTime(crate::value::temporal::truncate_fsp(d, *fsp))
        })),
        CastTarget::Time(_) => Ok(to_time(&v, ctx).map_or(Value::Null, Value::Time)),
        CastTarget::Fixed(k) => Ok(to_fixed(&v, *k, ctx)),
        CastTarget::TemporalText(fsp) => Ok(Value::Bytes(match &v {
            Value::DateTime(dt) => dt.display(*fsp).to_string().into_bytes(),
            Value::Time(t) => t.display(*fsp).to_string().into_bytes(),
            other => to_bytes(other),
        })),
        CastTarget::BitNumber => Ok(match &v {
            Value::Bytes(b) => Value::UInt(
                b.iter()
                    .fold(0u64, |acc, x| acc.wrapping_shl(8) | *x as u64),
            ),
            other => other.clone(),
        }),
    }
}

/// `CAST(x AS UUID|INET6)`: a text form, or 16 bytes of the binary form; anything
/// else is NULL with warning 1292.
fn to_fixed(v: &Value, k: basalt_common::fixedbin::FixedBin, ctx: &mut EvalCtx) -> Value {
    use basalt_common::fixedbin;
    let b = to_bytes(v);
    if let Some(s) = fixedbin::canonical(k.is_inet6(), &b) {
        return Value::Bytes(s.into_bytes());
    }
    if let (Value::Bytes(_), Ok(raw)) = (v, <[u8; 16]>::try_from(&b[..])) {
        return Value::Bytes(fixedbin::format(k.is_inet6(), &raw).into_bytes());
    }
    ctx.warn(
        code::ER_TRUNCATED_WRONG_VALUE,
        format!("Incorrect {} value: '{}'", k.name(), text_of(v)),
    );
    Value::Null
}

/// A string converted into character set `cs` (CONVERT ... USING, CAST AS CHAR):
/// bytes that are no characters become `?` with MariaDB's warning 1300, and
/// characters `cs` lacks become `?` with 1977.
fn convert_chars(b: Vec<u8>, cs: Charset, ctx: &mut EvalCtx) -> Vec<u8> {
    let Some(bad) = charset::first_invalid(&b, cs) else {
        return b;
    };
    match charset::utf8_char_len(&b[bad..], true) {
        None => ctx.warn(
            code::ER_INVALID_CHARACTER_STRING,
            format!(
                "Invalid {} character string: '{}'",
                cs.name(),
                charset::printable(&b, bad)
            ),
        ),
        Some(n) => {
            let hex: String = b[bad..bad + n].iter().map(|x| format!("{x:02X}")).collect();
            ctx.warn(
                code::ER_CANNOT_CONVERT_CHARACTER,
                format!(
                    "Cannot convert 'utf8mb4' character 0x{hex} to '{}'",
                    cs.name()
                ),
            );
        }
    }
    charset::fix_into(&b, cs).into_owned()
}

/// CHAR(n) keeps `n` characters, BINARY(n) (`binary`) `n` bytes.
fn truncate_chars(b: &mut Vec<u8>, n: usize, binary: bool, ctx: &mut EvalCtx, orig: &Value) {
    let (len, name) = if binary {
        (b.len(), "BINARY")
    } else {
        (charset::char_count(b), "CHAR")
    };
    if len > n {
        b.truncate(if binary { n } else { charset::prefix_len(b, n) });
        ctx.warn(
            code::ER_TRUNCATED_WRONG_VALUE,
            format!("Truncated incorrect {name}({n}) value: '{}'", text_of(orig)),
        );
    }
}

/// `v` as a signed integer the way `val_int()` reads it (warning 1292 for a
/// string that is not wholly a number).
pub fn val_int(v: &Value, ctx: &mut EvalCtx) -> i64 {
    match to_integer(v.clone(), false, ctx) {
        Ok(Value::Int(i)) => i,
        Ok(Value::UInt(u)) => u as i64,
        _ => 0,
    }
}

fn to_integer(v: Value, unsigned: bool, ctx: &mut EvalCtx) -> R {
    let n = match &v {
        Value::Bytes(b) => {
            let (n, clean) = int_prefix(b);
            if !clean {
                ctx.warn(
                    code::ER_TRUNCATED_WRONG_VALUE,
                    format!("Truncated incorrect INTEGER value: '{}'", text_of(&v)),
                );
            }
            n
        }
        other => to_num(other).0,
    };
    let wide = match n {
        Num::Dbl(d) => {
            let r = d.round();
            if r >= 1.8446744073709552e19 {
                u64::MAX as i128
            } else if r <= -9.223372036854776e18 {
                i64::MIN as i128
            } else {
                r as i128
            }
        }
        other => other.to_i128().unwrap_or(0),
    };
    Ok(if unsigned {
        Value::UInt(wide as u64)
    } else if wide > i64::MAX as i128 {
        Value::Int(wide as u64 as i64)
    } else {
        Value::Int(wide as i64)
    })
}

/// Integer prefix of a string (`'12.7'` is 12, as CAST(.. AS SIGNED) reads it).
fn int_prefix(b: &[u8]) -> (Num, bool) {
    let s = String::from_utf8_lossy(b);
    let t = s.trim_start();
    let digits_end = t
        .char_indices()
        .find(|(i, c)| !(c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+'))))
        .map_or(t.len(), |(i, _)| i);
    let head = &t[..digits_end];
    let clean = t[digits_end..].trim().is_empty() && !head.is_empty();
    if let Ok(i) = head.parse::<i64>() {
        return (Num::Int(i), clean);
    }
    if let Ok(u) = head.trim_start_matches('+').parse::<u64>() {
        return (Num::UInt(u), clean);
    }
    (Num::Int(0), false)
}

/// DECIMAL(p, s) conversion: rounds to `s`, clamps to the largest value that fits.
pub fn to_decimal_clamped(v: &Value, p: u8, s: u8, ctx: &mut EvalCtx) -> Decimal {
    let (n, clean) = to_num(v);
    if !clean {
        ctx.warn(
            code::ER_TRUNCATED_WRONG_VALUE,
            format!("Truncated incorrect DECIMAL value: '{}'", text_of(v)),
        );
    }
    let d = n.to_decimal();
    match d.rescale(s) {
        Some(r) if r.fits(p, s) => r,
        _ => {
            let max = 10i128.pow(p as u32) - 1;
            let m = if d.mantissa < 0 { -max } else { max };
            Decimal::new(m, s)
        }
    }
}

fn bad_datetime(v: &Value, ctx: &mut EvalCtx) {
    ctx.warn(
        code::ER_TRUNCATED_WRONG_VALUE,
        format!("Incorrect datetime value: '{}'", text_of(v)),
    );
}

pub fn to_datetime(v: &Value, ctx: &mut EvalCtx) -> Option<DateTime> {
    let r = match v {
        Value::DateTime(d) => Some(*d),
        Value::Date(d) => Some(DateTime::from_date(*d)),
        Value::Time(t) => {
            let today = ctx.cx.local(ctx.cx.stmt_time).date;
            let base = DateTime::from_date(today);
            crate::value::temporal::add_interval(
                base,
                t.total_micros(),
                crate::value::temporal::Unit::Microsecond,
            )
        }
        Value::Bytes(b) => parse_datetime(b).or_else(|| parse_date(b).map(DateTime::from_date)),
        other => to_num(other).0.to_i64().and_then(num_to_datetime),
    };
    if r.is_none() {
        bad_datetime(v, ctx);
    }
    r
}

/// `v` as a calendar date-time for the functions that need a real day (week day,
/// day number, date arithmetic): None (MariaDB's NULL) for the zero date and for
/// a date with a zero month or day, with 1292 when the value was text to convert
/// or `always_warn` (date arithmetic warns for stored values too).
pub fn to_calendar(v: &Value, ctx: &mut EvalCtx, always_warn: bool) -> Option<DateTime> {
    let dt = to_datetime(v, ctx)?;
    if dt.date.month != 0 && dt.date.day != 0 {
        return Some(dt);
    }
    if always_warn || matches!(v, Value::Bytes(_)) {
        bad_datetime(v, ctx);
    }
    None
}

pub fn to_time(v: &Value, ctx: &mut EvalCtx) -> Option<Time> {
    let r = match v {
        Value::Time(t) => Some(*t),
        Value::DateTime(d) => Some(Time {
            negative: false,
            hours: d.hour as u16,
            minute: d.minute,
            second: d.second,
            micro: d.micro,
        }),
        Value::Date(_) => Some(Time::default()),
        Value::Bytes(b) => parse_time(b),
        other => {
            let n = to_num(other).0.to_i64()?;
            Time::parse(&n.to_string())
        }
    };
    if r.is_none() {
        ctx.warn(
            code::ER_TRUNCATED_WRONG_VALUE,
            format!("Incorrect time value: '{}'", text_of(v)),
        );
    }
    r
}
