//! Runtime values of SQL expressions and table cells.
//!
//! A [`Value`] carries no column type; the SQL layer tracks types alongside values
//! (and conversion rules live there). Strings and blobs are bytes: UTF-8 for character
//! columns, arbitrary for binary ones.

use crate::datetime::{Date, DateTime, Time};
use crate::decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// A row of a table or a result set, indexed by column ordinal.
pub type Row = Vec<Value>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub enum Value {
    #[default]
    Null,
    Int(i64),
    UInt(u64),
    Double(f64),
    Decimal(Decimal),
    Bytes(Vec<u8>),
    Date(Date),
    /// DATETIME and TIMESTAMP.
    DateTime(DateTime),
    Time(Time),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn str(s: &str) -> Value {
        Value::Bytes(s.as_bytes().to_vec())
    }

    /// Text-protocol rendering (what a `SELECT` sends for this value), with
    /// `fsp` fractional digits for temporal values. `None` for NULL.
    pub fn to_text(&self, fsp: u8) -> Option<Vec<u8>> {
        let mut s = String::new();
        match self {
            Value::Null => return None,
            Value::Bytes(b) => return Some(b.clone()),
            Value::Int(v) => write!(s, "{v}").ok()?,
            Value::UInt(v) => write!(s, "{v}").ok()?,
            Value::Double(v) => s = format_double(*v),
            Value::Decimal(d) => write!(s, "{d}").ok()?,
            Value::Date(d) => write!(s, "{d}").ok()?,
            Value::DateTime(dt) => write!(s, "{}", dt.display(fsp)).ok()?,
            Value::Time(t) => write!(s, "{}", t.display(fsp)).ok()?,
        }
        Some(s.into_bytes())
    }

    /// Lossy display for messages (`Duplicate entry '...'`).
    pub fn display_lossy(&self) -> String {
        match self.to_text(6) {
            None => "NULL".into(),
            Some(b) => String::from_utf8_lossy(&b).into_owned(),
        }
    }
}

/// Formats a DOUBLE as MySQL prints it: the shortest text that reads back to the same
/// value, switching to exponent notation for very large or small magnitudes.
pub fn format_double(v: f64) -> String {
    format_float_generic(v, v.abs())
}

/// Formats a FLOAT (single precision) the same way, at single precision.
pub fn format_float(v: f32) -> String {
    format_float_generic(v, v.abs() as f64)
}

fn format_float_generic<T: std::fmt::Display + std::fmt::LowerExp>(v: T, abs: f64) -> String {
    if abs.is_nan() {
        return "NaN".into();
    }
    if abs.is_infinite() {
        return if format!("{v}").starts_with('-') {
            "-inf".into()
        } else {
            "inf".into()
        };
    }
    if abs != 0.0 && !(1e-4..1e15).contains(&abs) {
        // Rust prints `1e20`, `1.5e-5`; MySQL prints `1e20`, `1.5e-5` too.
        return format!("{v:e}");
    }
    let s = format!("{v}");
    if s == "-0" {
        "-0".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_rendering() {
        assert_eq!(Value::Int(-5).to_text(0), Some(b"-5".to_vec()));
        assert_eq!(Value::Null.to_text(0), None);
        assert_eq!(format_double(0.1), "0.1");
        assert_eq!(format_double(1e20), "1e20");
        assert_eq!(format_double(1.5e-5), "1.5e-5");
        assert_eq!(format_double(100.0), "100");
        assert_eq!(format_float(0.1f32), "0.1");
    }
}
