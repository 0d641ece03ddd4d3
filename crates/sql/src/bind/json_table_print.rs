//! A JSON_TABLE's COLUMNS clause as MariaDB prints it in a view's definition:
//! `` `o` FOR ORDINALITY``, `` `a` varchar(10) PATH '$.a' DEFAULT 'x' ON EMPTY``,
//! `` `b`  JSON  PATH '$.b'`` (MariaDB's blanks), `` `e` int(11) EXISTS PATH
//! '$.c'``, `NESTED PATH '$.n[*]' COLUMNS (...)`. Responses are printed as
//! written (none when none was); a numeric DEFAULT stays bare.

use basalt_common::{Collation, MySqlError};
use sqlparser::ast::{
    DataType as D, JsonTableColumn, JsonTableColumnErrorHandling as Handling, Value, ValueWithSpan,
};

type R<T> = Result<T, MySqlError>;

/// The columns' text, and their names in row order.
pub fn columns(cols: &[JsonTableColumn], names: &mut Vec<String>) -> R<String> {
    let mut parts = Vec::with_capacity(cols.len());
    for c in cols {
        parts.push(match c {
            JsonTableColumn::ForOrdinality(n) => {
                names.push(n.value.clone());
                format!("{} FOR ORDINALITY", q(&n.value))
            }
            JsonTableColumn::Nested(n) => {
                let inner = columns(&n.columns, names)?;
                format!("NESTED PATH {} COLUMNS ({inner})", literal(&n.path))
            }
            JsonTableColumn::Named(n) => {
                names.push(n.name.value.clone());
                let ty = match &n.r#type {
                    D::JSON => " JSON ".to_string(),
                    other => super::column_type::data_type(
                        other,
                        Collation::Utf8mb4GeneralCi,
                        &n.name.value,
                    )?
                    .sql_name(),
                };
                let mut s = format!("{} {ty}", q(&n.name.value));
                if n.exists {
                    s.push_str(" EXISTS");
                }
                s.push_str(&format!(" PATH {}", literal(&n.path)));
                if let Some(h) = &n.on_empty {
                    s.push_str(&format!(" {} ON EMPTY", response(h)));
                }
                if let Some(h) = &n.on_error {
                    s.push_str(&format!(" {} ON ERROR", response(h)));
                }
                s
            }
        });
    }
    Ok(parts.join(", "))
}

fn response(h: &Handling) -> String {
    match h {
        Handling::Null => "NULL".into(),
        Handling::Error => "ERROR".into(),
        Handling::Default(v) => format!("DEFAULT {}", literal(v)),
    }
}

/// A literal of the clause: strings quoted with MariaDB's escapes, numbers bare.
pub fn literal(v: &ValueWithSpan) -> String {
    match &v.value {
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
            let mut out = String::with_capacity(s.len() + 2);
            out.push('\'');
            for ch in s.chars() {
                match ch {
                    '\'' => out.push_str("\\'"),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\0' => out.push_str("\\0"),
                    c => out.push(c),
                }
            }
            out.push('\'');
            out
        }
        other => other.to_string(),
    }
}

fn q(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}
