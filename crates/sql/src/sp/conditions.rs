//! Conditions in stored programs, shared by procedures (run by the session)
//! and functions (run inside a statement): which handler catches a condition,
//! and the error SIGNAL / RESIGNAL raises.

use super::{CondValue, HandlerDef};
use basalt_common::{MySqlError, Value};

type R<T> = Result<T, MySqlError>;

/// Conditions no handler may catch: the statement was stopped.
pub fn catchable(e: &MySqlError) -> bool {
    !matches!(e.code, 1317 | 1969 | 1436)
}

/// 1329, NOT FOUND: FETCH past the last row, SELECT ... INTO of no row.
pub fn no_data() -> MySqlError {
    MySqlError::new(
        1329,
        "02000",
        "No data - zero rows fetched, selected, or processed",
    )
}

/// The SQLSTATE a warning raises handlers with (NOT FOUND for 1329 / 1643).
pub fn warning_state(code: u16) -> &'static str {
    if matches!(code, 1329 | 1643) {
        "02000"
    } else {
        "01000"
    }
}

/// The innermost handler covering `pc` that matches the condition, the most
/// specific of its block.
pub fn find(
    handlers: &[HandlerDef],
    pc: usize,
    code: u16,
    state: &str,
    warning: bool,
) -> Option<usize> {
    let mut best: Option<(usize, usize, u8)> = None; // (handler, range length, specificity)
    for (i, h) in handlers.iter().enumerate() {
        if !(h.start..h.end).contains(&pc) {
            continue;
        }
        let Some(spec) = h
            .conds
            .iter()
            .filter_map(|v| v.matches(code, state, warning))
            .max()
        else {
            continue;
        };
        let len = h.end - h.start;
        let better = match best {
            None => true,
            Some((_, blen, bspec)) => len < blen || (len == blen && spec > bspec),
        };
        if better {
            best = Some((i, len, spec));
        }
    }
    best.map(|(i, _, _)| i)
}

/// The condition SIGNAL / RESIGNAL raises before its `SET` items: the named
/// SQLSTATE, or RESIGNAL's caught condition.
pub fn signal_base(
    resignal: bool,
    cond: Option<&CondValue>,
    caught: Option<&MySqlError>,
) -> R<MySqlError> {
    if resignal && caught.is_none() {
        return Err(MySqlError::new(
            1645,
            "0K000",
            "RESIGNAL when handler not active",
        ));
    }
    Ok(match (cond, caught) {
        (Some(CondValue::SqlState(s)), _) => {
            let state = intern_state(s);
            let (code, message) = match &s[..2] {
                "01" => (1642, "Unhandled user-defined warning condition"),
                "02" => (1643, "Unhandled user-defined not found condition"),
                _ => (1644, "Unhandled user-defined exception condition"),
            };
            MySqlError::new(code, state, message)
        }
        (_, Some(caught)) => caught.clone(),
        _ => return Err(MySqlError::internal("SIGNAL without a condition")),
    })
}

/// Applies one `SET item = value` of SIGNAL / RESIGNAL.
pub fn signal_item(e: &mut MySqlError, item: &str, v: Value) -> R<()> {
    match item {
        "MESSAGE_TEXT" => e.message = v.display_lossy(),
        "MYSQL_ERRNO" => {
            let n = crate::value::to_f64(&v);
            if !(1.0..=65535.0).contains(&n) || v.is_null() {
                return Err(MySqlError::new(
                    1231,
                    "42000",
                    format!(
                        "Variable 'MYSQL_ERRNO' can't be set to the value of '{}'",
                        v.display_lossy()
                    ),
                ));
            }
            e.code = n as u16;
        }
        // The other items only show in GET DIAGNOSTICS.
        _ => {}
    }
    Ok(())
}

/// SQLSTATEs of SIGNAL, kept for the process (errors carry `&'static str`
/// states); past 4096 distinct ones, new states are reported as `45000`.
fn intern_state(s: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static STATES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut set = STATES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(k) = set.get(s) {
        return k;
    }
    if set.len() >= 4096 {
        return "45000";
    }
    let k: &'static str = Box::leak(s.to_string().into_boxed_str());
    set.insert(k);
    k
}
