//! SET in a stored function's or trigger's body: user variables, and
//! session system variables as MariaDB allows them there (autocommit is 1445
//! at CREATE; an unknown variable 1193). SET GLOBAL there is 1235: the
//! global settings with effects beyond the value (the event scheduler, the
//! logs, the binary log) belong to the session that runs the statement.

use super::stored_fn::FnBinder;
use crate::expr::Expr;
use crate::front::native::{SetItem, SetTarget};
use crate::sp::function::{BExpr, FInstr, SetTo};
use crate::sp::{Code, SpScope};
use crate::sysvars;
use basalt_common::{MySqlError, Value};
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

impl FnBinder<'_> {
    /// `SET target = value, ...`.
    pub(super) fn set_items(&mut self, items: Vec<SetItem>, scope: &Arc<SpScope>) -> R<FInstr> {
        let mut out = Vec::with_capacity(items.len());
        for it in items {
            let SetTarget::Sys {
                name,
                global,
                scoped,
            } = it.target
            else {
                let SetTarget::User(n) = it.target else {
                    unreachable!("a SET target is a user or a system variable")
                };
                let value = Code {
                    text: it.value,
                    scope: scope.clone(),
                };
                let (e, fsp) = self.expr_typed(&value)?;
                out.push((SetTo::User(n, fsp), e));
                continue;
            };
            let def = system_variable(&name, global, scoped)?;
            if global {
                return Err(MySqlError::not_supported(
                    "SET GLOBAL in a stored function or trigger",
                ));
            }
            let (value, default) = if it.bare_word {
                bare_word(&it.value)
            } else {
                let code = Code {
                    text: it.value,
                    scope: scope.clone(),
                };
                (self.expr(&code)?, false)
            };
            out.push((SetTo::Sys { def, default }, value));
        }
        Ok(FInstr::Set(out))
    }
}

/// The variable SET names, with MariaDB's scope checks.
fn system_variable(name: &str, global: bool, scoped: bool) -> R<&'static sysvars::VarDef> {
    let def = sysvars::lookup(name).ok_or_else(|| MySqlError::unknown_system_variable(name))?;
    crate::session::check_scope(def, global, scoped)?;
    Ok(sysvars::lookup(sysvars::canonical(def.name)).unwrap_or(def))
}

/// A bare word's value (`ON`, `latin1`, `NULL`); DEFAULT's is the global one.
fn bare_word(word: &str) -> (BExpr, bool) {
    let v = match word.to_ascii_uppercase().as_str() {
        "DEFAULT" => return (BExpr::Plain(Expr::Const(Value::Null)), true),
        "NULL" => Value::Null,
        "TRUE" => Value::Int(1),
        "FALSE" => Value::Int(0),
        _ => Value::str(word),
    };
    (BExpr::Plain(Expr::Const(v)), false)
}

/// At CREATE: every system variable a SET names exists (1193).
pub fn check_set(items: &[SetItem]) -> R<()> {
    for it in items {
        if let SetTarget::Sys { name, .. } = &it.target {
            sysvars::lookup(name).ok_or_else(|| MySqlError::unknown_system_variable(name))?;
        }
    }
    Ok(())
}
