//! Storing into ENUM and SET columns, as MariaDB's `Field_enum::store` and
//! `Field_set::store` do.
//!
//! - Text is looked up among the members under the column's collation (trailing
//!   spaces ignored); text naming no member that reads wholly as a number is taken
//!   as that number (a position, a bitmask).
//! - A number is the position / bitmask itself; a DOUBLE or DECIMAL is first cut
//!   to its integer part.
//! - An ENUM value that names no member, or a position out of 1..=members, is the
//!   '' error value (0); a SET keeps the members it could read. Either is 1265
//!   "Data truncated": an error in strict mode, a warning otherwise.
//! - The '' error value of another ENUM column copies as 0 without a warning.

use super::{Target, R};
use crate::session::ctx::SessionCtx;
use crate::value::{to_bytes, to_num};
use basalt_common::enumset::{self, set_full_mask};
use basalt_common::{Collation, DataType, Value};

/// Converts `v` (not NULL) for an ENUM column of `values`.
pub(super) fn store_enum(
    v: Value,
    values: &[String],
    coll: Collation,
    t: &Target,
    cx: &mut SessionCtx,
) -> R {
    let ty = &t.col.data_type;
    let count = values.len() as u64;
    let n = match &v {
        Value::Enum(0, _) => return Ok(enumset::value_of(ty, 0)),
        Value::Bytes(_)
        | Value::Enum(..)
        | Value::Date(_)
        | Value::DateTime(_)
        | Value::Time(_) => {
            let text = to_bytes(&v);
            let text = trim_end_spaces(&text);
            match enumset::enum_position(values, coll, text) {
                Some(p) => Some(p),
                None => whole_number(text),
            }
        }
        other => integer_part(other),
    };
    match n {
        Some(n) if n >= 1 && n <= count => Ok(enumset::value_of(ty, n)),
        _ => t.truncated(cx, enumset::value_of(ty, 0)),
    }
}

/// Converts `v` (not NULL) for a SET column of `values`.
pub(super) fn store_set(
    v: Value,
    values: &[String],
    coll: Collation,
    t: &Target,
    cx: &mut SessionCtx,
) -> R {
    let ty = &t.col.data_type;
    let full = set_full_mask(values.len());
    match &v {
        Value::Enum(0, _) => Ok(enumset::value_of(ty, 0)),
        Value::Bytes(_)
        | Value::Enum(..)
        | Value::Date(_)
        | Value::DateTime(_)
        | Value::Time(_) => {
            let text = to_bytes(&v);
            let text = trim_end_spaces(&text);
            let (mask, clean) = set_mask_strict(values, coll, text);
            if mask == 0 && !text.is_empty() {
                // Text that names no member may be a bitmask written as digits.
                return match whole_number(text) {
                    Some(n) if text.len() < 22 && n <= full => Ok(enumset::value_of(ty, n)),
                    _ => t.truncated(cx, enumset::value_of(ty, 0)),
                };
            }
            if clean {
                Ok(enumset::value_of(ty, mask))
            } else {
                t.truncated(cx, enumset::value_of(ty, mask))
            }
        }
        other => match integer_part(other) {
            Some(n) if n <= full => Ok(enumset::value_of(ty, n)),
            Some(n) => t.truncated(cx, enumset::value_of(ty, n & full)),
            None => t.truncated(cx, enumset::value_of(ty, 0)),
        },
    }
}

/// The members `text` lists: a part matches a member under `coll`, except that
/// only the last part may carry trailing spaces (MariaDB strips them from the
/// whole value, not from each part).
fn set_mask_strict(values: &[String], coll: Collation, text: &[u8]) -> (u64, bool) {
    let mut mask = 0u64;
    let mut clean = true;
    if text.is_empty() {
        return (0, true);
    }
    for part in text.split(|&b| b == b',') {
        let found = if part.last() == Some(&b' ') {
            None
        } else {
            enumset::enum_position(values, coll, part)
        };
        match found {
            Some(p) => mask |= 1 << (p - 1),
            None => clean = false,
        }
    }
    (mask, clean)
}

fn trim_end_spaces(b: &[u8]) -> &[u8] {
    let end = b.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1);
    &b[..end]
}

/// Text that is wholly an unsigned decimal number (MariaDB's `strntoul` with the
/// end at the end of the text).
fn whole_number(text: &[u8]) -> Option<u64> {
    if text.is_empty() || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// The integer part of a number (toward zero); `None` when negative.
fn integer_part(v: &Value) -> Option<u64> {
    let n = to_num(v).0;
    let f = match n {
        crate::value::Num::Int(i) => return u64::try_from(i).ok(),
        crate::value::Num::UInt(u) => return Some(u),
        other => other.to_f64().trunc(),
    };
    (0.0..1.8e19).contains(&f).then_some(f as u64)
}

/// The value an ENUM column NOT NULL without a DEFAULT clause takes when a row
/// leaves it out: its first member (MariaDB, also in strict mode).
pub(crate) fn first_member(ty: &DataType) -> Option<Value> {
    match ty {
        DataType::Enum { values, .. } if !values.is_empty() => Some(enumset::value_of(ty, 1)),
        _ => None,
    }
}
