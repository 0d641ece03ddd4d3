//! GET DIAGNOSTICS: reads the diagnostics area (the statement's warnings,
//! notes and errors, which it leaves as they are) into variables. A condition
//! number outside the list is not an error of the statement: it adds error
//! 1758 to the list and assigns nothing, as MariaDB does.

use super::ctx::{Level, SessionCtx};
use super::Session;
use crate::front::native::diagnostics::{DiagTarget, GetDiagnostics};
use crate::result::QueryResult;
use basalt_common::{MySqlError, Value};

type R<T> = Result<T, MySqlError>;

fn s(v: &str) -> Value {
    Value::Bytes(v.as_bytes().to_vec())
}

impl Session {
    pub(super) fn get_diagnostics(&mut self, g: GetDiagnostics) -> R<QueryResult> {
        for (t, _) in &g.items {
            if let DiagTarget::Local(name) = t {
                self.local_slot(name)?;
            }
        }
        let n = match &g.condition {
            Some(text) => Some(self.condition_number(text)?),
            None => None,
        };
        let items: Vec<&str> = g.items.iter().map(|(_, item)| item.as_str()).collect();
        let Some(values) = read_items(&mut self.cx, n, &items) else {
            return Ok(self.ok_with_warnings());
        };
        for ((target, _), v) in g.items.into_iter().zip(values) {
            match target {
                DiagTarget::User(name) => {
                    self.cx.user_vars.insert(name, v);
                }
                DiagTarget::Local(name) => {
                    let slot = self.local_slot(&name)?;
                    self.sp_assign(slot, v)?;
                }
            }
        }
        Ok(self.ok_with_warnings())
    }

    /// CONDITION n: a number, a user variable or a local variable (a value
    /// that is no number is no condition).
    fn condition_number(&mut self, text: &str) -> R<i64> {
        let v = if let Some(name) = text.strip_prefix('@') {
            let name = name
                .trim_matches(|c| c == '`' || c == '\'' || c == '"')
                .to_ascii_lowercase();
            self.cx.user_vars.get(&name).cloned().unwrap_or(Value::Null)
        } else if text.starts_with(|c: char| c.is_ascii_digit()) {
            return Ok(text.parse().unwrap_or(0));
        } else {
            let slot = self.local_slot(text)?;
            self.cx
                .sp
                .as_ref()
                .map_or(Value::Null, |f| f.values[slot].clone())
        };
        Ok(condition_number(v))
    }
}

/// A CONDITION number's value as a number (a value that is no number is no
/// condition).
pub(crate) fn condition_number(v: Value) -> i64 {
    match v {
        Value::Int(i) => i,
        Value::UInt(u) => i64::try_from(u).unwrap_or(0),
        _ => crate::value::to_num(&v).0.to_i128().map_or(0, |i| i as i64),
    }
}

/// The values of GET DIAGNOSTICS `items`: the statement's (NUMBER,
/// ROW_COUNT), or condition `n`'s. `None` for a number outside the list,
/// after adding error 1758 to it (to the list as it stands).
pub(crate) fn read_items(
    cx: &mut SessionCtx,
    n: Option<i64>,
    items: &[&str],
) -> Option<Vec<Value>> {
    let Some(n) = n else {
        return Some(
            items
                .iter()
                .map(|item| match *item {
                    "NUMBER" => Value::Int(cx.warnings.len() as i64),
                    _ => Value::Int(cx.row_count),
                })
                .collect(),
        );
    };
    let Some(w) = n
        .checked_sub(1)
        .and_then(|i| usize::try_from(i).ok())
        .and_then(|i| cx.warnings.get(i))
        .cloned()
    else {
        cx.kept_warnings = false;
        cx.warn_state(Level::Error, 1758, "35000", "Invalid condition number");
        return None;
    };
    Some(
        items
            .iter()
            .map(|item| match *item {
                "RETURNED_SQLSTATE" => s(w.state),
                "MESSAGE_TEXT" => s(&w.message),
                "MYSQL_ERRNO" => Value::Int(i64::from(w.code)),
                _ => s(""),
            })
            .collect(),
    )
}
