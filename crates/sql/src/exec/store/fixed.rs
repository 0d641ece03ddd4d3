//! Storing into BIT, UUID and INET6 columns.

use super::{Target, R};
use crate::session::ctx::{Level, SessionCtx};
use crate::value::to_num;
use basalt_common::error::code;
use basalt_common::fixedbin::{self, FixedBin};
use basalt_common::{MySqlError, Value};

/// BIT(width): a string is its bytes read big-endian (as `b'101'` and `x'05'` are),
/// a number its integer value. Too wide a value is 1406 in strict mode, else 1264
/// and all ones (MariaDB's `Field_bit::store`).
pub fn store_bit(v: Value, width: u8, t: &Target, cx: &mut SessionCtx) -> R {
    let max = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let n = match &v {
        Value::Bytes(b) | Value::Enum(_, b) => {
            let b: &[u8] = &b[b.iter().take_while(|x| **x == 0).count()..];
            if b.len() > 8 {
                None
            } else {
                Some(b.iter().fold(0u64, |acc, x| (acc << 8) | *x as u64))
            }
        }
        Value::UInt(u) => Some(*u),
        Value::Int(i) => Some(*i as u64),
        other => {
            let d = to_num(other).0.to_f64().round();
            if d < 0.0 {
                Some(d as i64 as u64)
            } else if d >= 18_446_744_073_709_551_616.0 {
                None
            } else {
                Some(d as u64)
            }
        }
    };
    match n {
        Some(n) if n <= max => Ok(Value::UInt(n)),
        _ if t.strict => Err(MySqlError::data_too_long(&t.col.name, t.row)),
        _ => {
            let e = MySqlError::out_of_range(&t.col.name, t.row);
            cx.warn(Level::Warning, e.code, e.message);
            Ok(Value::UInt(max))
        }
    }
}

/// UUID / INET6: the canonical text of an accepted text form; anything else is
/// 1292 `Incorrect uuid value` in strict mode, else that warning and NULL.
pub fn store_fixed(v: Value, kind: FixedBin, t: &Target, cx: &mut SessionCtx) -> R {
    let bytes = crate::value::to_bytes(&v);
    match fixedbin::canonical(kind.is_inet6(), &bytes) {
        Some(s) => Ok(Value::Bytes(s.into_bytes())),
        None => t.incorrect(
            cx,
            kind.name(),
            &v,
            code::ER_TRUNCATED_WRONG_VALUE,
            Value::Null,
        ),
    }
}
