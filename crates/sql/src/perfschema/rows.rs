//! Rows of performance_schema tables, set column by column by name: a
//! column not set is NULL when nullable, else 0 or the empty string.

use crate::session::ctx::SessionCtx;
use basalt_common::{DataType, DateTime, Row, TableDef, Value};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

pub(super) struct RowBuilder<'a> {
    def: &'a TableDef,
    row: Row,
}

impl<'a> RowBuilder<'a> {
    pub fn new(def: &'a TableDef) -> Self {
        let row = def
            .columns
            .iter()
            .map(|c| match (&c.data_type, c.nullable) {
                (_, true) => Value::Null,
                (DataType::Int { unsigned: true, .. }, _) => Value::UInt(0),
                (DataType::Int { .. }, _) => Value::Int(0),
                (DataType::Double, _) => Value::Double(0.0),
                (DataType::Enum { values, .. }, _) => enum_value(values, &values[0]),
                _ => Value::str(""),
            })
            .collect();
        RowBuilder { def, row }
    }

    fn at(&self, name: &str) -> Option<usize> {
        self.def.columns.iter().position(|c| c.name == name)
    }

    /// An unsigned count (or a signed one, by the column's type).
    pub fn n(&mut self, name: &str, v: u64) -> &mut Self {
        if let Some(i) = self.at(name) {
            self.row[i] = match self.def.columns[i].data_type {
                DataType::Int {
                    unsigned: false, ..
                } => Value::Int(v as i64),
                DataType::Double => Value::Double(v as f64),
                _ => Value::UInt(v),
            };
        }
        self
    }

    pub fn f(&mut self, name: &str, v: f64) -> &mut Self {
        if let Some(i) = self.at(name) {
            self.row[i] = Value::Double(v);
        }
        self
    }

    /// A string, or an ENUM member by its text.
    pub fn s(&mut self, name: &str, v: &str) -> &mut Self {
        if let Some(i) = self.at(name) {
            self.row[i] = match &self.def.columns[i].data_type {
                DataType::Enum { values, .. } => enum_value(values, v),
                _ => Value::str(v),
            };
        }
        self
    }

    pub fn opt(&mut self, name: &str, v: Option<&str>) -> &mut Self {
        match v {
            Some(v) => self.s(name, v),
            None => self,
        }
    }

    pub fn v(&mut self, name: &str, v: Value) -> &mut Self {
        if let Some(i) = self.at(name) {
            self.row[i] = v;
        }
        self
    }

    pub fn done(&mut self) -> Row {
        std::mem::take(&mut self.row)
    }
}

fn enum_value(values: &[String], v: &str) -> Value {
    match values.iter().position(|m| m.eq_ignore_ascii_case(v)) {
        Some(i) => Value::Enum(i as u64 + 1, values[i].clone().into_bytes()),
        None => Value::Null,
    }
}

/// Performance schema's timer: picoseconds since the server started.
pub(super) fn timer(cx: &SessionCtx, at: Instant) -> u64 {
    super::pico(at.saturating_duration_since(cx.engine.started).as_nanos() as u64)
}

/// A moment as a TIMESTAMP value in the session's time zone.
pub(super) fn timestamp(cx: &SessionCtx, at: Instant) -> Value {
    let now = Instant::now();
    let wall = SystemTime::now()
        .checked_sub(now.saturating_duration_since(at))
        .unwrap_or(UNIX_EPOCH);
    let d = wall.duration_since(UNIX_EPOCH).unwrap_or_default();
    Value::DateTime(cx.local(DateTime::from_unix_seconds(d.as_secs() as i64, 0)))
}

/// `YES` / `NO`.
pub(super) fn yes(b: bool) -> &'static str {
    if b {
        "YES"
    } else {
        "NO"
    }
}
