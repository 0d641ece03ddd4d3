//! Prepared statements (COM_STMT_* and SQL PREPARE / EXECUTE).
//!
//! SELECT / INSERT / UPDATE / DELETE are parsed and planned once; executions bind
//! the parameter values to the plan's `Expr::Param`s. The plan is rebuilt when the
//! schema version changed since it was made. Other statements keep their text and,
//! when they have parameters, are re-run with the values substituted as literals.
//!
//! A `?` in the select list takes the type of the value bound to it, as in MariaDB
//! (`SELECT ? + 1` with an integer is a BIGINT, not a DOUBLE): such a statement is
//! bound again at each execution with the values typing its `?`s.

use super::{Out, Session};
use crate::front::lexer::{lex, TokKind};
use crate::front::native::Native;
use crate::front::transcode::TextCharsets;
use crate::front::Front;
use crate::plan::Plan;
use crate::result::{PreparedInfo, QueryResult};
use basalt_common::value::format_double;
use basalt_common::{Charset, Collation, ColumnMeta, MySqlError, Value};
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

const MAX_PREPARED: usize = 16382;

pub struct Prepared {
    text: String,
    /// `text` was transcoded from the client's bytes (its literal markers are
    /// literals, see [`crate::front::transcode`]).
    transcoded: bool,
    plan: Option<Arc<Plan>>,
    schema_version: u64,
    /// The character sets the plan was made under: string parameters take the
    /// connection's at each execution, result columns the results set's.
    charsets: Charsets,
    params: usize,
    /// A `?` in the select list: each execution types the plan with the values.
    retype: bool,
    /// The `Com_*` counter each execution counts in.
    com: Option<crate::stats::Stat>,
    /// The statement's digest id.
    pub(super) digest: u32,
}

/// `character_set_client`/`_connection`, `collation_connection` and
/// `character_set_results`.
type Charsets = (TextCharsets, Collation, Option<Charset>);

/// What one execution of a prepared statement needs from it.
struct Execution {
    text: String,
    plan: Option<Arc<Plan>>,
    expected: usize,
    retype: bool,
    com: Option<crate::stats::Stat>,
    /// The plan must be made again (schema or character sets changed).
    stale: bool,
    transcoded: bool,
}

pub(super) fn param_count(text: &str) -> usize {
    lex(text)
        .tokens
        .iter()
        .filter(|t| t.kind == TokKind::Param)
        .count()
}

impl Session {
    /// COM_STMT_PREPARE of the statement bytes as the client sent them (read in
    /// `character_set_client`, as COM_QUERY text is).
    pub fn prepare_bytes(&mut self, sql: &[u8]) -> R<PreparedInfo> {
        let text = self.decode_text(sql, None)?;
        let transcoded = matches!(text, std::borrow::Cow::Owned(_));
        let text = text.into_owned();
        self.with_transcoded(transcoded, |s| s.prepare(&text))
    }

    fn charsets(&self) -> Charsets {
        let cx = &self.cx;
        (
            cx.text_charsets,
            cx.connection_collation,
            cx.results_charset,
        )
    }

    /// Runs `f` with the statement text marked as transcoded or not.
    pub(super) fn with_transcoded<T>(&mut self, on: bool, f: impl FnOnce(&mut Self) -> T) -> T {
        let before = std::mem::replace(&mut self.cx.transcoded, on);
        let out = f(self);
        self.cx.transcoded = before;
        out
    }

    /// COM_STMT_PREPARE of UTF-8 text.
    pub fn prepare(&mut self, sql: &str) -> R<PreparedInfo> {
        self.prepare_with(sql, crate::stack::base::COM_PREPARE)
    }

    /// Prepares `sql`; `stack_extra` is what the way it came in (COM_STMT_PREPARE
    /// or SQL PREPARE) adds to its virtual stack.
    pub(super) fn prepare_with(&mut self, sql: &str, stack_extra: u32) -> R<PreparedInfo> {
        crate::stack::for_text(sql.len(), || self.prepare_text(sql, stack_extra))
    }

    fn prepare_text(&mut self, sql: &str, stack_extra: u32) -> R<PreparedInfo> {
        let pieces = crate::front::split(sql);
        let text = match pieces.as_slice() {
            [] => return Err(MySqlError::empty_query()),
            [one] => one.text.to_string(),
            [_, second, ..] => {
                let off = second.text.as_ptr() as usize - sql.as_ptr() as usize;
                return Err(crate::front::parse::near_offset(sql, off));
            }
        };
        // max_prepared_stmt_count bounds this connection's statements, COM_STMT_PREPARE
        // and SQL PREPARE alike; read at each prepare so SET GLOBAL applies at once.
        let limit = match self.cx.engine.global_variable("max_prepared_stmt_count") {
            Some(Value::UInt(n)) => n,
            Some(Value::Int(n)) => n.max(0) as u64,
            _ => MAX_PREPARED as u64,
        };
        if self.prepared.len() as u64 >= limit {
            return Err(MySqlError::max_prepared_stmt_count_reached(limit));
        }
        let params = param_count(&text);
        let (plan, columns, retype) = self.plan_prepared(&text, None, stack_extra)?;
        let id = self.next_stmt_id;
        self.next_stmt_id = self.next_stmt_id.wrapping_add(1).max(1);
        let version = self.plan_version();
        let com = crate::stats::com::classify(&text);
        let digest = self
            .cx
            .engine
            .stats
            .digests
            .registry
            .id_of(self.cx.db.as_deref(), &text);
        self.prepared.insert(
            id,
            Prepared {
                digest,
                text,
                transcoded: self.cx.transcoded,
                plan,
                schema_version: version,
                charsets: self.charsets(),
                params,
                retype,
                com,
            },
        );
        let param_meta = (0..params).map(|_| ColumnMeta::text("?", 0)).collect();
        Ok(PreparedInfo {
            id,
            params: param_meta,
            columns,
        })
    }

    /// Plans a prepared statement's text (typing its `?`s with `values` when given);
    /// also tells whether a `?` stands in the select list.
    fn plan_prepared(
        &mut self,
        text: &str,
        values: Option<&[Value]>,
        stack_extra: u32,
    ) -> R<(Option<Arc<Plan>>, Vec<ColumnMeta>, bool)> {
        crate::stack::for_text(text.len(), || {
            self.plan_prepared_text(text, values, stack_extra)
        })
    }

    fn plan_prepared_text(
        &mut self,
        text: &str,
        values: Option<&[Value]>,
        stack_extra: u32,
    ) -> R<(Option<Arc<Plan>>, Vec<ColumnMeta>, bool)> {
        self.raw = text.to_string();
        let rewritten = match crate::front::analyze_with(text, self.lit_opts())? {
            Front::Native(
                Native::Prepare { .. }
                | Native::Execute { .. }
                | Native::ExecuteImmediate { .. }
                | Native::Deallocate { .. },
            ) => return Err(MySqlError::unsupported_ps()),
            Front::Native(_) => return Ok((None, Vec::new(), false)),
            Front::Cached(s) => s.original(),
            Front::Bulk(b) => b.original(),
            Front::Parse(t) => t,
        };
        let stmt = self.parse(&rewritten)?;
        match self.plan_statement_with(&stmt, &rewritten, true, values, stack_extra)? {
            (Some(plan), retype) => {
                let cols = plan.result_columns().to_vec();
                Ok((Some(Arc::new(plan)), cols, retype))
            }
            (None, _) => Ok((None, Vec::new(), false)),
        }
    }

    /// COM_STMT_EXECUTE with decoded parameter values, its rows collected in memory
    /// (the server streams them with [`Session::execute_prepared_into`]).
    pub fn execute_prepared(&mut self, id: u32, params: &[Value]) -> R<QueryResult> {
        let mut out = crate::result::Collected::default();
        self.execute_prepared_into(id, params, &mut out);
        out.results
            .pop()
            .unwrap_or_else(|| Err(MySqlError::internal("no response")))
    }

    pub(super) fn execute_prepared_inner(
        &mut self,
        id: u32,
        params: &[Value],
        command: &str,
        out: &mut Out<'_>,
    ) -> R<QueryResult> {
        if self.cx.privs.limits.counts_statements() {
            let text = self.prepared.get(&id).map(|p| p.text.clone());
            self.count_statement(text.as_deref().unwrap_or(""))?;
        }
        // A write that met a table an ALTER TABLE replaced (1412) is planned again
        // and rerun in autocommit mode, as for text statements (see `run_statement`).
        let mut attempts = 0;
        loop {
            let r = self.execute_prepared_once(id, params, command, out);
            match &r {
                Err(e) if e.code == 1412 && attempts < 3 && self.replanable() => attempts += 1,
                _ => return r,
            }
        }
    }

    fn execute_prepared_once(
        &mut self,
        id: u32,
        params: &[Value],
        command: &str,
        out: &mut Out<'_>,
    ) -> R<QueryResult> {
        let run = {
            let p = self
                .prepared
                .get(&id)
                .ok_or_else(|| MySqlError::unknown_stmt_handler(&id.to_string(), command))?;
            Execution {
                text: p.text.clone(),
                plan: p.plan.clone(),
                expected: p.params,
                retype: p.retype,
                com: p.com,
                stale: p.schema_version != self.plan_version() || p.charsets != self.charsets(),
                transcoded: p.transcoded,
            }
        };
        if run.transcoded == self.cx.transcoded {
            return self.execute_prepared_run(id, params, command, run, out);
        }
        let transcoded = run.transcoded;
        self.with_transcoded(transcoded, |s| {
            s.execute_prepared_run(id, params, command, run, out)
        })
    }

    fn execute_prepared_run(
        &mut self,
        id: u32,
        params: &[Value],
        command: &str,
        run: Execution,
        out: &mut Out<'_>,
    ) -> R<QueryResult> {
        let Execution {
            text,
            plan,
            expected,
            retype,
            stale,
            com,
            ..
        } = run;
        if params.len() != expected {
            return Err(MySqlError::wrong_arguments(command));
        }
        self.cx.clear_warnings();
        self.cx.stmt_time = self.cx.clock();
        let plan = if retype && plan.is_some() {
            self.plan_prepared(&text, Some(params), crate::stack::base::COM_PREPARE)?
                .0
        } else if stale && plan.is_some() {
            let (fresh, _, _) = self.plan_prepared(&text, None, crate::stack::base::COM_PREPARE)?;
            let version = self.plan_version();
            let charsets = self.charsets();
            if let Some(p) = self.prepared.get_mut(&id) {
                p.plan = fresh.clone();
                p.schema_version = version;
                p.charsets = charsets;
            }
            fresh
        } else {
            plan
        };
        let r = match plan {
            Some(p) => {
                if let Some(c) = com {
                    self.cx.stats.counters.bump(c);
                }
                self.cx.stats.counters.bump(crate::stats::Stat::Queries);
                // ANNOTATE_ROWS shows the statement with its values, as MariaDB's.
                if !matches!(*p, Plan::Select(_)) && self.logs_to_binlog() {
                    self.raw = substitute(&text, params);
                }
                self.run_plan(&p, params, out)
            }
            None if params.is_empty() => self.run_statement(&text, out),
            None if com == Some(crate::stats::Stat::ComCallProcedure) => {
                self.call_markers = Some(super::call_markers::CallMarkers {
                    values: params.to_vec(),
                    using: self.execute_using.clone(),
                    wire: command != "EXECUTE",
                });
                let r = self.run_statement(&text, out);
                self.call_markers = None;
                r
            }
            None => self.run_statement(&substitute(&text, params), out),
        };
        if let Err(e) = &r {
            self.cx.list_error(e);
        }
        r
    }

    /// COM_STMT_CLOSE / DEALLOCATE PREPARE.
    /// The SQL text of prepared statement `id` (for the process list).
    /// The `Com_*` counter executions of statement `id` count in.
    pub(super) fn prepared_com(&self, id: u32) -> Option<crate::stats::Stat> {
        self.prepared.get(&id).and_then(|p| p.com)
    }

    pub fn prepared_text(&self, id: u32) -> Option<&str> {
        self.prepared.get(&id).map(|p| p.text.as_str())
    }

    /// The text of statement `id` with its parameters written in as literals (what
    /// the general log shows for an Execute).
    pub fn expanded_text(&self, id: u32, params: &[Value]) -> Option<String> {
        let p = self.prepared.get(&id)?;
        Some(if params.is_empty() {
            p.text.clone()
        } else {
            substitute(&p.text, params)
        })
    }

    /// A prepared statement's text (with its `?` markers) and digest id.
    pub(super) fn prepared_digest(&self, id: u32) -> Option<(&str, u32)> {
        self.prepared.get(&id).map(|p| (p.text.as_str(), p.digest))
    }

    pub fn close_prepared(&mut self, id: u32) {
        self.prepared.remove(&id);
    }
}

/// The text with each `?` replaced by the SQL literal of its value.
pub(super) fn substitute(text: &str, params: &[Value]) -> String {
    let lexed = lex(text);
    let mut out = String::with_capacity(text.len() + 16 * params.len());
    let mut pos = 0;
    for (i, t) in lexed
        .tokens
        .iter()
        .filter(|t| t.kind == TokKind::Param)
        .enumerate()
    {
        out.push_str(&text[pos..t.start]);
        out.push_str(&literal(params.get(i).unwrap_or(&Value::Null)));
        pos = t.end;
    }
    out.push_str(&text[pos..]);
    out
}

fn literal(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Double(d) => format_double(*d),
        Value::Decimal(d) => d.to_string(),
        Value::Bytes(b) => {
            let mut s = String::from("X'");
            for x in b {
                s.push_str(&format!("{x:02x}"));
            }
            s.push('\'');
            s
        }
        other => format!("'{}'", other.display_lossy()),
    }
}
