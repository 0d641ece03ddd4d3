//! `SET STATEMENT var = value [, ...] FOR statement`: session variables that hold
//! for one statement only, as in MariaDB.
//!
//! Order of checks, as MariaDB's parser and executor make them: every name must be
//! a known variable (1193) that SET STATEMENT may set (1971); a statement must
//! follow FOR (1064); then each value is evaluated and assigned with the rules of
//! `SET SESSION` (scope 1229/1238, value 1231/1232; a value reading a table is
//! 1970). The statement then runs with those values — under their
//! `max_statement_time` too — and afterwards every listed variable gets back the
//! value it had before, whether the statement succeeded or not, and even when the
//! statement itself assigned it. A SET STATEMENT nested after FOR replaces the
//! outer list (MariaDB keeps only the innermost one).

use super::{Out, Session};
use crate::front::lexer::lex;
use crate::front::native::{SetItem, SetTarget};
use crate::result::QueryResult;
use crate::sysvars::{self, VarDef};
use basalt_common::{MySqlError, Value};

type R<T> = Result<T, MySqlError>;

/// Variables MariaDB refuses in SET STATEMENT (errno 1971).
const NOT_SETTABLE: &[&str] = &[
    "autocommit",
    "character_set_client",
    "character_set_connection",
    "character_set_filesystem",
    "character_set_results",
    "collation_connection",
    "interactive_timeout",
    "profiling",
    "query_cache_type",
    "skip_replication",
    "sql_log_off",
    "transaction_isolation",
    "transaction_read_only",
    "tx_isolation",
    "wait_timeout",
];

/// A session variable's value before the statement (`None`: it had none).
type Saved = Vec<(&'static str, Option<Value>)>;

impl Session {
    pub(super) fn set_statement(
        &mut self,
        items: Vec<SetItem>,
        body: &str,
        out: &mut Out<'_>,
    ) -> R<QueryResult> {
        let defs = match check_names(&items, body) {
            Ok(d) => d,
            Err(e) => return Err(self.record(e)),
        };
        if starts_set_statement(body) {
            return self.run_statement(body, out);
        }
        let saved = self.save(&defs);
        let last_insert_id = self.cx.last_insert_id;
        if let Err(e) = self.assign_all(&items, &defs) {
            self.restore(saved, last_insert_id);
            return Err(self.record(e));
        }
        let r = self.run_statement(body, out);
        self.restore(saved, last_insert_id);
        r
    }

    /// Adds `e` to the statement's diagnostics (errors of the inner statement are
    /// recorded by the inner run).
    fn record(&mut self, e: MySqlError) -> MySqlError {
        self.cx
            .warn_state(super::ctx::Level::Error, e.code, e.state, e.message.clone());
        e
    }

    fn assign_all(&mut self, items: &[SetItem], defs: &[&'static VarDef]) -> R<()> {
        let mut values = Vec::with_capacity(items.len());
        for it in items {
            if reads_table(&it.value) {
                return Err(MySqlError::subqueries_not_supported("SET STATEMENT"));
            }
            values.push(self.set_value(it)?);
        }
        for (def, v) in defs.iter().zip(values) {
            match v {
                Some(v) => self.assign_sysvar(def.name, v, false)?,
                None => self.reset_sysvar(def.name, false)?,
            }
        }
        Ok(())
    }

    fn save(&self, defs: &[&'static VarDef]) -> Saved {
        let mut out: Saved = Vec::new();
        for def in defs {
            for name in touched(def.name) {
                if !out.iter().any(|(n, _)| *n == name) {
                    out.push((name, self.cx.vars.get(name).cloned()));
                }
            }
        }
        out
    }

    fn restore(&mut self, saved: Saved, last_insert_id: u64) {
        for (name, v) in saved {
            match v {
                Some(v) => self.cx.vars.insert(name, v),
                None => self.cx.vars.remove(name),
            };
        }
        self.cx.last_insert_id = last_insert_id;
        self.memo.clear();
        self.cx.refresh_derived();
    }
}

/// The definitions of the listed variables, and that a statement follows FOR.
fn check_names(items: &[SetItem], body: &str) -> R<Vec<&'static VarDef>> {
    let mut defs = Vec::with_capacity(items.len());
    for it in items {
        let name = match &it.target {
            SetTarget::Sys { name, .. } => name,
            SetTarget::User(n) => return Err(MySqlError::parse_error(&format!("@{n}"), 1)),
        };
        let def = sysvars::lookup(name).ok_or_else(|| MySqlError::unknown_system_variable(name))?;
        if NOT_SETTABLE.contains(&def.name) {
            return Err(MySqlError::set_statement_not_supported(def.name));
        }
        defs.push(def);
    }
    if body.trim().is_empty() {
        return Err(MySqlError::parse_error("", 1));
    }
    Ok(defs)
}

/// The session variables an assignment to `name` may change: the variable, its
/// other name, and the one `SET` keeps in step with it.
fn touched(name: &'static str) -> Vec<&'static str> {
    let mut out = vec![name];
    out.extend(sysvars::alias_of(name));
    match name {
        "character_set_server" => out.push("collation_server"),
        "collation_server" => out.push("character_set_server"),
        _ => {}
    }
    out
}

/// The value holds a subquery with a FROM clause.
fn reads_table(value: &str) -> bool {
    let toks = lex(value).tokens;
    toks.iter().any(|t| t.is_kw(value, "select")) && toks.iter().any(|t| t.is_kw(value, "from"))
}

fn starts_set_statement(body: &str) -> bool {
    let toks = lex(body).tokens;
    matches!(toks.as_slice(), [a, b, ..] if a.is_kw(body, "set") && b.is_kw(body, "statement"))
}
