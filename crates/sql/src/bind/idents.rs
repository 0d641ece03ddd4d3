//! Binding of names in expressions: stored program variables, columns (plain
//! and qualified), user variables (`@x`), system variables (`@@x`) and the
//! niladic functions written without parentheses (`CURRENT_USER`, ...).

use super::expr::{literal_type, syntax, Bound};
use super::from::derived_type;
use super::typing::column_flags;
use super::{Binder, Scope};
use crate::expr::{Expr, Func};
use crate::sysvars::{self, Kind, Scope as VarScope};
use crate::ty::{ExprType, Origin};
use basalt_common::{Collation, MySqlError, Value};
use sqlparser::ast;

type R<T> = Result<T, MySqlError>;

impl Binder<'_> {
    pub(super) fn identifier(&mut self, id: &ast::Ident, scope: &Scope) -> R<Bound> {
        let name = &id.value;
        // A stored program's variable takes precedence over a column.
        if let Some((slot, mut t)) = self.local(name) {
            // A variable is described as a column of no table, as MariaDB's
            // Item_splocal is.
            t.origin = Some(Origin {
                schema: String::new(),
                table: String::new(),
                org_table: String::new(),
                org_name: name.clone(),
            });
            return Ok((Expr::Local(slot), t));
        }
        if id.quote_style.is_none() {
            if let Some(rest) = name.strip_prefix("@@") {
                return self.sysvar(None, rest);
            }
            if let Some(rest) = name.strip_prefix('@') {
                return Ok(self.user_var(rest));
            }
            self.check_not_row(name)?;
            let lower = name.to_ascii_lowercase();
            if let Some(f) = niladic(&lower) {
                return Ok((
                    Expr::Func(f, vec![]),
                    crate::expr::func::result_type(f, &[]),
                ));
            }
        }
        self.column(None, name, scope)
    }

    pub(super) fn compound(&mut self, ids: &[ast::Ident], scope: &Scope) -> R<Bound> {
        if let [first, name] = ids {
            let f = first.value.to_ascii_lowercase();
            if let Some(sc) = f.strip_prefix("@@") {
                return self.sysvar(Some(sc), &name.value);
            }
            if let Some(row) = self.trigger_row(&f, &name.value)? {
                return Ok(row);
            }
            if let Some(field) = self.row_field(&first.value, &name.value) {
                return field;
            }
        }
        let (qual, name) = match ids {
            [t, c] => (vec![t.value.clone()], &c.value),
            [d, t, c] => (vec![d.value.clone(), t.value.clone()], &c.value),
            _ => {
                return Err(syntax(
                    &ids.iter()
                        .map(|i| i.value.as_str())
                        .collect::<Vec<_>>()
                        .join("."),
                ))
            }
        };
        self.column(Some(&qual), name, scope)
    }

    pub(super) fn user_var(&mut self, name: &str) -> Bound {
        let name = name
            .trim_matches(|c| c == '`' || c == '\'' || c == '"')
            .to_ascii_lowercase();
        if self.in_projection {
            self.reusable = false;
        }
        let v = self.cx.user_vars.get(&name).cloned().unwrap_or(Value::Null);
        let mut t = literal_type(&v, self.cx.connection_collation).nullable(true);
        if matches!(v, Value::Int(_) | Value::UInt(_)) {
            // An integer variable is a BIGINT (MariaDB's MAX_BIGINT_WIDTH).
            (t.len, t.column_type) = (20, Some(basalt_common::ColumnType::LongLong));
        }
        (Expr::UserVar(name), t)
    }

    pub(super) fn sysvar(&mut self, scope_kw: Option<&str>, name: &str) -> R<Bound> {
        let def = sysvars::lookup(name).ok_or_else(|| MySqlError::unknown_system_variable(name))?;
        let global = match scope_kw {
            Some("global") => true,
            Some("session") | Some("local") => false,
            None => false,
            Some(other) => {
                return Err(MySqlError::unknown_system_variable(&format!(
                    "{other}.{name}"
                )))
            }
        };
        if global && def.scope == VarScope::Session {
            return Err(MySqlError::new(
                1238,
                "HY000",
                format!("Variable '{}' is a SESSION variable", def.name),
            ));
        }
        if scope_kw.is_some() && !global && def.scope == VarScope::Global {
            return Err(MySqlError::new(
                1238,
                "HY000",
                format!("Variable '{}' is a GLOBAL variable", def.name),
            ));
        }
        if self.in_projection {
            self.reusable = false;
        }
        let v = self.cx.sysvar(def, global);
        let t = match (def.kind, &v) {
            (Kind::Bool, _) => ExprType::bigint(),
            (Kind::UInt, _) | (Kind::Dynamic, Value::UInt(_)) => ExprType::bigint().unsigned(),
            (Kind::Int, _) | (Kind::Dynamic, _) => ExprType::bigint(),
            (Kind::Double, _) => {
                // MariaDB: DOUBLE(21,6), so `0.2` reads back as `0.200000`.
                let mut d = ExprType::double();
                d.len = 21;
                d.decimals = 6;
                d
            }
            _ => literal_type(&v, Collation::Utf8mb3GeneralCi),
        };
        let mut t = t.nullable(true);
        if def.kind == Kind::Bool {
            t.len = 1;
            t.column_type = Some(basalt_common::ColumnType::LongLong);
        }
        if matches!(def.kind, Kind::UInt | Kind::Int | Kind::Dynamic) {
            t.column_type = Some(basalt_common::ColumnType::LongLong);
        }
        Ok((Expr::SysVar { def, global }, t))
    }

    /// Resolves a column reference.
    pub fn column(&mut self, qual: Option<&[String]>, name: &str, scope: &Scope) -> R<Bound> {
        if qual.is_none() {
            if let Some((_, pos, t)) = scope
                .named
                .iter()
                .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
            {
                return Ok((Expr::Column(*pos), t.clone()));
            }
            let alias = scope
                .aliases
                .iter()
                .find(|(n, _, _)| n.eq_ignore_ascii_case(name));
            if let (Some((_, e, t)), true) = (alias, scope.alias_first) {
                return Ok((e.clone(), t.clone()));
            }
        }
        let mut found = None;
        if qual.is_none() {
            for g in &scope.coalesced {
                let (t, c) = g.source;
                let st = &scope.tables[t];
                if st.def.columns[c].name.eq_ignore_ascii_case(name) {
                    if found.is_some() {
                        return Err(MySqlError::ambiguous_field(name, self.clause.name()));
                    }
                    found = Some((st, c));
                }
            }
        }
        for (ti, st) in scope.tables.iter().enumerate() {
            let table_ok = match qual {
                None => true,
                Some([t]) => st.alias == *t,
                Some([d, t]) => st.alias == *t && st.db == *d,
                Some(_) => false,
            };
            if !table_ok {
                continue;
            }
            if let Some(ci) = st.def.column_index(name) {
                if qual.is_none() && is_coalesced(scope, ti, ci) {
                    continue;
                }
                if found.is_some() {
                    return Err(MySqlError::ambiguous_field(name, self.clause.name()));
                }
                found = Some((st, ci));
            }
        }
        let Some((st, ci)) = found else {
            if let Some(r) = self.outer_column(qual, name)? {
                return Ok(r);
            }
            if qual.is_none() {
                if let Some((_, e, t)) = scope
                    .aliases
                    .iter()
                    .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
                {
                    return Ok((e.clone(), t.clone()));
                }
            }
            let full = match qual {
                Some(q) => format!("{}.{}", q.join("."), name),
                None => name.to_string(),
            };
            return Err(MySqlError::bad_field(&full, self.clause.name()));
        };
        if let Some(v) = &st.view {
            let (e, t) = &v[ci];
            let mut t = t.clone();
            t.nullable = t.nullable || st.nullable;
            if let Some(o) = &mut t.origin {
                o.table = st.alias.clone();
            }
            return Ok((e.clone(), t));
        }
        let col = &st.def.columns[ci];
        let mut t = match &st.types {
            Some(types) => derived_type(&types[ci]),
            None => ExprType::of_column(col),
        };
        t.nullable = t.nullable || st.nullable;
        t.origin = Some(Origin {
            schema: st.db.clone(),
            table: st.alias.clone(),
            org_table: st.def.name.clone(),
            org_name: col.name.clone(),
        });
        if st.types.is_none() {
            t.col_flags = column_flags(&st.def, ci);
        }
        let e = Expr::Column(st.offset + ci);
        if matches!(col.data_type, basalt_common::DataType::Timestamp { .. }) {
            // Stored in UTC, seen in the session's time zone.
            return Ok((Expr::Func(Func::TimestampLocal, vec![e]), t));
        }
        Ok((e, t))
    }
}

fn niladic(name: &str) -> Option<Func> {
    Some(match name {
        "current_user" => Func::CurrentUser,
        "current_role" => Func::CurrentRole,
        "current_date" => Func::CurDate,
        "current_time" => Func::CurTime,
        "current_timestamp" | "localtime" | "localtimestamp" => Func::Now,
        "utc_date" => Func::UtcDate,
        "utc_timestamp" => Func::UtcTimestamp,
        "utc_time" => Func::UtcTime,
        _ => return None,
    })
}

/// Whether column `ci` of scope table `ti` is joined into a USING/NATURAL column
/// (an unqualified name then means that column instead).
fn is_coalesced(scope: &Scope, ti: usize, ci: usize) -> bool {
    scope
        .coalesced
        .iter()
        .any(|g| g.members.contains(&(ti, ci)))
}
