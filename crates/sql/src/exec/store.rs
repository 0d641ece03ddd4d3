//! Converting a value for storage in a column, with MariaDB's strict-mode errors
//! and non-strict warnings (1264 out of range, 1265 truncated, 1366 / 1292
//! incorrect value, 1406 data too long).

mod enums;
mod fixed;

pub(crate) use enums::first_member;

use crate::session::ctx::{Level, SessionCtx};
use crate::value::temporal::truncate_fsp;
use crate::value::{
    num_to_datetime, parse_date, parse_datetime, parse_time, to_bytes, to_num, Num,
};
use basalt_common::charset;
use basalt_common::error::code;
use basalt_common::fixedbin::FixedBin;
use basalt_common::value::format_double;
use basalt_common::{
    Charset, Collation, ColumnDef, DataType, Date, DateTime, Decimal, IntKind, MySqlError, Time,
    Value,
};

/// Where the value goes, for messages.
pub struct Target<'a> {
    pub db: &'a str,
    pub table: &'a str,
    pub col: &'a ColumnDef,
    pub row: u64,
    /// Strict mode applies (errors instead of warnings).
    pub strict: bool,
}

pub(crate) type R = Result<Value, MySqlError>;

fn text(v: &Value) -> String {
    String::from_utf8_lossy(&to_bytes(v)).into_owned()
}

impl Target<'_> {
    fn out_of_range(&self, cx: &mut SessionCtx, clamped: Value) -> R {
        let e = MySqlError::out_of_range(&self.col.name, self.row);
        self.problem(cx, e, clamped)
    }

    pub(crate) fn truncated(&self, cx: &mut SessionCtx, v: Value) -> R {
        let e = MySqlError::new(
            code::WARN_DATA_TRUNCATED,
            "01000",
            format!(
                "Data truncated for column '{}' at row {}",
                self.col.name, self.row
            ),
        );
        self.problem(cx, e, v)
    }

    fn note_truncated(&self, cx: &mut SessionCtx) {
        cx.warn(
            Level::Note,
            code::WARN_DATA_TRUNCATED,
            format!(
                "Data truncated for column '{}' at row {}",
                self.col.name, self.row
            ),
        );
    }

    fn incorrect(
        &self,
        cx: &mut SessionCtx,
        type_name: &str,
        v: &Value,
        errno: u16,
        fallback: Value,
    ) -> R {
        let e = MySqlError::new(
            errno,
            "22007",
            format!(
                "Incorrect {type_name} value: '{}' for column `{}`.`{}`.`{}` at row {}",
                text(v),
                self.db,
                self.table,
                self.col.name,
                self.row
            ),
        );
        self.problem(cx, e, fallback)
    }

    fn problem(&self, cx: &mut SessionCtx, e: MySqlError, fallback: Value) -> R {
        if self.strict {
            return Err(e);
        }
        cx.warn(Level::Warning, e.code, e.message);
        Ok(fallback)
    }
}

/// Converts `v` (not NULL) to the representation of `t.col`.
pub fn store(v: Value, t: &Target, cx: &mut SessionCtx) -> R {
    if v.is_null() {
        return Ok(Value::Null);
    }
    match &t.col.data_type {
        DataType::Int { kind, unsigned, .. } => store_int(v, *kind, *unsigned, t, cx),
        DataType::Year => store_year(v, t, cx),
        DataType::Decimal { precision, scale } => store_decimal(v, *precision, *scale, t, cx),
        DataType::Float | DataType::Double => {
            store_float(v, t.col.data_type == DataType::Float, t, cx)
        }
        DataType::Char { len, collation } | DataType::VarChar { len, collation } => {
            let is_char = matches!(t.col.data_type, DataType::Char { .. });
            store_string(v, *len as usize, *collation, is_char, t, cx)
        }
        DataType::Text { kind, collation } => store_lob(v, kind.max_len(), *collation, t, cx),
        DataType::Date => store_temporal(v, TemporalKind::Date, t, cx),
        DataType::DateTime { fsp } => store_temporal(v, TemporalKind::DateTime(*fsp), t, cx),
        DataType::Timestamp { fsp } => {
            let source = v.clone();
            let v = store_temporal(v, TemporalKind::Timestamp(*fsp), t, cx)?;
            if let (Value::DateTime(d), Some(z)) = (&v, &cx.zone) {
                if z.skips(d) {
                    // A local time the zone skips (MariaDB: 1292 in strict mode).
                    let fallback = Value::DateTime(z.to_utc_datetime(d));
                    return t.incorrect(cx, "datetime", &source, 1292, fallback);
                }
            }
            Ok(timestamp_to_utc(v, cx))
        }
        DataType::Time { fsp } => store_temporal(v, TemporalKind::Time(*fsp), t, cx),
        DataType::Enum { values, collation } => enums::store_enum(v, values, *collation, t, cx),
        DataType::Set { values, collation } => enums::store_set(v, values, *collation, t, cx),
        DataType::Bit { width } => fixed::store_bit(v, *width, t, cx),
        DataType::Uuid => fixed::store_fixed(v, FixedBin::Uuid, t, cx),
        DataType::Inet6 => fixed::store_fixed(v, FixedBin::Inet6, t, cx),
    }
}

/// A TIMESTAMP value as stored: a local time of the session's zone moved to UTC
/// (the zero value stays zero).
fn timestamp_to_utc(v: Value, cx: &SessionCtx) -> Value {
    match v {
        Value::DateTime(d) if d.date.year != 0 => Value::DateTime(cx.to_utc(d)),
        v => v,
    }
}

/// CURRENT_TIMESTAMP of the running statement as column `col` stores it: a
/// TIMESTAMP in UTC, a DATETIME in the session's time zone.
pub fn current_timestamp(col: &ColumnDef, cx: &SessionCtx) -> Value {
    let utc = cx.stmt_time;
    let t = if matches!(col.data_type, DataType::Timestamp { .. }) {
        utc
    } else {
        cx.local(utc)
    };
    Value::DateTime(truncate_fsp(t, col.data_type.fsp()))
}

fn store_int(v: Value, kind: IntKind, unsigned: bool, t: &Target, cx: &mut SessionCtx) -> R {
    let (lo, hi) = kind.range(unsigned);
    let make = |x: i128| {
        if unsigned {
            Value::UInt(x as u64)
        } else {
            Value::Int(x as i64)
        }
    };
    let (n, clean) = match &v {
        Value::Bytes(b) => {
            let (n, clean) = crate::value::str_to_num(b);
            if !clean && n == Num::Int(0) && crate::value::str_to_f64(b).0 == 0.0 {
                let s = String::from_utf8_lossy(b);
                if !s.trim().starts_with(['0', '+', '-', '.']) {
                    return t.incorrect(
                        cx,
                        "integer",
                        &v,
                        code::ER_TRUNCATED_WRONG_VALUE_FOR_FIELD,
                        make(0.clamp(lo, hi)),
                    );
                }
            }
            (n, clean)
        }
        other => to_num(other),
    };
    let wide = match n {
        Num::Dbl(d) if !d.is_finite() => return t.out_of_range(cx, make(hi)),
        Num::Dbl(d) if d.round() > hi as f64 => return t.out_of_range(cx, make(hi)),
        Num::Dbl(d) if d.round() < lo as f64 => return t.out_of_range(cx, make(lo)),
        other => other
            .to_i128()
            .unwrap_or(if matches!(other, Num::Dec(x) if x.mantissa < 0) {
                i128::MIN
            } else {
                i128::MAX
            }),
    };
    if wide > hi {
        return t.out_of_range(cx, make(hi));
    }
    if wide < lo {
        return t.out_of_range(cx, make(lo));
    }
    if !clean {
        return t.truncated(cx, make(wide));
    }
    Ok(make(wide))
}

fn store_year(v: Value, t: &Target, cx: &mut SessionCtx) -> R {
    let n = to_num(&v).0.to_i64().unwrap_or(-1);
    let y = match n {
        0 if matches!(v, Value::Bytes(_)) => 2000,
        0 => 0,
        1..=69 => 2000 + n,
        70..=99 => 1900 + n,
        1901..=2155 => n,
        _ => return t.out_of_range(cx, Value::Int(0)),
    };
    Ok(Value::Int(y))
}

fn store_decimal(v: Value, p: u8, s: u8, t: &Target, cx: &mut SessionCtx) -> R {
    let exact = match &v {
        Value::Bytes(b) => crate::value::str_to_decimal(b),
        _ => None,
    };
    let (n, clean) = exact.unwrap_or_else(|| to_num(&v));
    if !clean {
        let d = n.to_decimal().rescale(s).unwrap_or(Decimal::ZERO);
        if matches!(v, Value::Bytes(ref b) if crate::value::str_to_f64(b).0 == 0.0 && !String::from_utf8_lossy(b).trim().starts_with(['0', '.', '-', '+']))
        {
            return t.incorrect(
                cx,
                "decimal",
                &v,
                code::ER_TRUNCATED_WRONG_VALUE_FOR_FIELD,
                Value::Decimal(d),
            );
        }
        return t.truncated(cx, Value::Decimal(d));
    }
    let d = n.to_decimal();
    let max = 10i128.pow(p as u32) - 1;
    let clamp = |neg: bool| Value::Decimal(Decimal::new(if neg { -max } else { max }, s));
    match d.rescale(s) {
        Some(r) if r.mantissa.abs() <= max => {
            if r != d {
                t.note_truncated(cx);
            }
            Ok(Value::Decimal(r))
        }
        _ => t.out_of_range(cx, clamp(d.mantissa < 0)),
    }
}

fn store_float(v: Value, single: bool, t: &Target, cx: &mut SessionCtx) -> R {
    let (n, clean) = to_num(&v);
    // `+ 0.0`: a negative zero is stored as zero, as MariaDB stores it.
    let x = n.to_f64() + 0.0;
    let x = if single {
        if x.abs() > f32::MAX as f64 {
            return t.out_of_range(cx, Value::Double(f32::MAX as f64 * x.signum()));
        }
        (x as f32) as f64 + 0.0
    } else {
        x
    };
    if !clean {
        if let Value::Bytes(b) = &v {
            if crate::value::str_to_f64(b).0 == 0.0
                && !String::from_utf8_lossy(b)
                    .trim()
                    .starts_with(['0', '.', '-', '+'])
            {
                return t.incorrect(
                    cx,
                    "double",
                    &v,
                    code::ER_TRUNCATED_WRONG_VALUE_FOR_FIELD,
                    Value::Double(0.0),
                );
            }
        }
        return t.truncated(cx, Value::Double(x));
    }
    Ok(Value::Double(x))
}

fn string_of(v: &Value) -> Vec<u8> {
    match v {
        Value::Double(d) => format_double(*d).into_bytes(),
        other => to_bytes(other),
    }
}

fn store_string(
    v: Value,
    len: usize,
    collation: Collation,
    is_char: bool,
    t: &Target,
    cx: &mut SessionCtx,
) -> R {
    let mut b = string_of(&v);
    if collation.is_binary() {
        if b.len() > len {
            let trailing_zero = b[len..].iter().all(|&c| c == 0);
            b.truncate(len);
            if !trailing_zero {
                return too_long(t, cx, b);
            }
        }
        if is_char {
            b.resize(len, 0);
        }
        return Ok(Value::Bytes(b));
    }
    let cut = charset::prefix_len(&b, len);
    let mut b = fit_text(b, cut, collation.charset(), !is_char, t, cx)?;
    if is_char {
        let trimmed = b.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1);
        b.truncate(trimmed);
    }
    Ok(Value::Bytes(b))
}

/// Text for a column of character set `cs` that holds the first `cut` bytes of
/// `b`, as MariaDB's copy does: a byte in that part that is no character `cs`
/// holds is 1366 "Incorrect string value" (an error in strict mode; else a
/// warning, what does not convert becoming `?` and the rest cut silently); beyond
/// it, non-space text is "data too long" and trailing spaces are cut (with a note
/// when `note_spaces`).
fn fit_text(
    mut b: Vec<u8>,
    cut: usize,
    cs: Charset,
    note_spaces: bool,
    t: &Target,
    cx: &mut SessionCtx,
) -> Result<Vec<u8>, MySqlError> {
    if let Some(bad) = charset::first_invalid(&b, cs).filter(|&p| p < cut) {
        let e = MySqlError::truncated_wrong_value_for_field(
            "string",
            &charset::printable(&b, bad),
            t.db,
            t.table,
            &t.col.name,
            t.row,
        );
        if t.strict {
            return Err(e);
        }
        cx.warn(Level::Warning, e.code, e.message);
        return Ok(charset::fix_into(&b[..cut], cs).into_owned());
    }
    if b.len() > cut {
        let spaces = b[cut..].iter().all(|&c| c == b' ');
        b.truncate(cut);
        if !spaces {
            return too_long_bytes(t, cx, b);
        }
        if note_spaces {
            t.note_truncated(cx);
        }
    }
    Ok(b)
}

fn too_long(t: &Target, cx: &mut SessionCtx, cut: Vec<u8>) -> R {
    too_long_bytes(t, cx, cut).map(Value::Bytes)
}

/// 1406 in strict mode; else warning 1265 and the cut bytes.
fn too_long_bytes(t: &Target, cx: &mut SessionCtx, cut: Vec<u8>) -> Result<Vec<u8>, MySqlError> {
    if t.strict {
        return Err(MySqlError::data_too_long(&t.col.name, t.row));
    }
    match t.truncated(cx, Value::Bytes(cut))? {
        Value::Bytes(b) => Ok(b),
        _ => Ok(Vec::new()),
    }
}

fn store_lob(v: Value, max: u64, collation: Collation, t: &Target, cx: &mut SessionCtx) -> R {
    let mut b = string_of(&v);
    if !collation.is_binary() {
        let mut cut = b.len().min(max as usize);
        // A text column keeps whole characters.
        while cut < b.len() && cut > 0 && b[cut] & 0xC0 == 0x80 {
            cut -= 1;
        }
        return fit_text(b, cut, collation.charset(), true, t, cx).map(Value::Bytes);
    }
    if b.len() as u64 > max {
        b.truncate(max as usize);
        return too_long(t, cx, b);
    }
    Ok(Value::Bytes(b))
}

#[derive(Clone, Copy)]
enum TemporalKind {
    Date,
    DateTime(u8),
    /// A TIMESTAMP: a DATETIME that cannot have a zero month or day.
    Timestamp(u8),
    Time(u8),
}

fn store_temporal(v: Value, kind: TemporalKind, t: &Target, cx: &mut SessionCtx) -> R {
    let (name, zero) = match kind {
        TemporalKind::Date => ("date", Value::Date(Default::default())),
        TemporalKind::DateTime(_) | TemporalKind::Timestamp(_) => {
            ("datetime", Value::DateTime(DateTime::default()))
        }
        TemporalKind::Time(_) => ("time", Value::Time(Time::default())),
    };
    if let TemporalKind::Time(fsp) = kind {
        let parsed = match &v {
            Value::Time(x) => Some(*x),
            Value::DateTime(d) => Some(Time {
                negative: false,
                hours: d.hour as u16,
                minute: d.minute,
                second: d.second,
                micro: d.micro,
            }),
            Value::Bytes(b) => parse_time(b),
            other => Time::parse(&to_num(other).0.to_i64().unwrap_or(0).to_string()),
        };
        return match parsed {
            Some(mut x) => {
                let div = 10u32.pow(6 - fsp.min(6) as u32);
                x.micro = x.micro / div * div;
                Ok(Value::Time(x))
            }
            None => t.incorrect(cx, name, &v, code::ER_TRUNCATED_WRONG_VALUE, zero),
        };
    }
    let dt = match &v {
        Value::DateTime(d) => Some(*d),
        Value::Date(d) => Some(DateTime::from_date(*d)),
        Value::Bytes(b) => parse_datetime(b).or_else(|| parse_date(b).map(DateTime::from_date)),
        other => to_num(other).0.to_i64().and_then(num_to_datetime),
    };
    let timestamp = matches!(kind, TemporalKind::Timestamp(_));
    let Some(dt) = dt.filter(|d| {
        let d = d.date;
        d.is_zero() || d.is_valid() || (!timestamp && zero_in_date(d))
    }) else {
        return t.incorrect(cx, name, &v, code::ER_TRUNCATED_WRONG_VALUE, zero);
    };
    if zero_in_date(dt.date) && cx.mode.no_zero_in_date {
        // NO_ZERO_IN_DATE: an error in strict mode, else the zero date with 1265.
        if t.strict {
            return t.incorrect(cx, name, &v, code::ER_TRUNCATED_WRONG_VALUE, zero);
        }
        return t.truncated(cx, zero);
    }
    if dt.date.is_zero() && cx.mode.no_zero_date {
        // NO_ZERO_DATE: an error in strict mode, else stored with 1264.
        if t.strict {
            return t.incorrect(cx, name, &v, code::ER_TRUNCATED_WRONG_VALUE, zero);
        }
        cx.warn_err(&MySqlError::out_of_range(&t.col.name, t.row));
    }
    match kind {
        TemporalKind::Date => {
            if dt.hour != 0 || dt.minute != 0 || dt.second != 0 || dt.micro != 0 {
                t.note_truncated(cx);
            }
            Ok(Value::Date(dt.date))
        }
        TemporalKind::DateTime(fsp) | TemporalKind::Timestamp(fsp) => {
            Ok(Value::DateTime(round_fsp(dt, fsp)))
        }
        TemporalKind::Time(_) => Ok(zero),
    }
}

/// A date with a zero month or day (but not the zero date) that is otherwise in
/// range: MariaDB stores it unless `NO_ZERO_IN_DATE` is set.
fn zero_in_date(d: Date) -> bool {
    !d.is_zero() && (d.month == 0 || d.day == 0) && d.month <= 12 && d.day <= 31 && d.year <= 9999
}

fn round_fsp(dt: DateTime, fsp: u8) -> DateTime {
    truncate_fsp(dt, fsp)
}
