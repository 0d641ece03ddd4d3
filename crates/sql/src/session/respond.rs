//! Delivering a statement's response to the command's [`ResultSink`].
//!
//! A SELECT hands its rows to the sink while it runs ([`Out::row`] from the
//! executor's output callback); statements whose rows are computed whole (SHOW,
//! EXPLAIN, ...) return them in [`QueryResult::Rows`] and [`Session::respond`]
//! passes them on. Either way `respond` then ends the response with the status
//! flags and warning count as they stand after the statement (after an autocommit
//! commit), or with the statement's error.

use super::Session;
use crate::exec::mem;
use crate::result::{Ending, QueryResult, ResultSink};
use basalt_common::{ColumnMeta, MySqlError, Row, Value};
use std::sync::Arc;

/// The sink of the statement being run, and whether its result set began.
pub(crate) struct Out<'o> {
    sink: &'o mut dyn ResultSink,
    opened: bool,
    /// Rows sent so far (`Rows_sent`).
    sent: u64,
}

impl<'o> Out<'o> {
    pub fn new(sink: &'o mut dyn ResultSink) -> Self {
        Out {
            sink,
            opened: false,
            sent: 0,
        }
    }

    /// The statement's result set begins.
    pub fn columns(&mut self, columns: &Arc<[ColumnMeta]>, status: u16) {
        self.sink.columns(columns, status);
        self.opened = true;
    }

    /// An `Out` over the same sink for a statement run inside this one (the
    /// statements of a stored procedure).
    pub fn nested(&mut self) -> Out<'_> {
        Out::new(&mut *self.sink)
    }

    /// Whether the statement's result set began.
    pub fn opened(&self) -> bool {
        self.opened
    }

    /// Rows sent so far.
    pub fn sent(&self) -> u64 {
        self.sent
    }

    /// Bytes the sink has sent or holds.
    pub fn bytes(&self) -> u64 {
        self.sink.bytes_out()
    }

    pub fn row(&mut self, row: &mut Row) -> Result<(), MySqlError> {
        self.sent += 1;
        self.sink.row(row)
    }

    /// See [`ResultSink::local_infile`].
    pub fn local_infile(
        &mut self,
        name: &[u8],
        each: &mut dyn FnMut(&[u8]) -> Result<(), MySqlError>,
    ) -> Result<(), MySqlError> {
        self.sink.local_infile(name, each)
    }
}

/// A sink that drops whatever it is given (ANALYZE runs a statement only to
/// measure it).
pub(crate) struct Discard;

impl ResultSink for Discard {
    fn columns(&mut self, _: &Arc<[ColumnMeta]>, _: u16) {}
    fn row(&mut self, _: &mut Row) -> Result<(), MySqlError> {
        Ok(())
    }
    fn end(&mut self, _: Ending<'_>, _: u16) {}
}

/// A sink for statements that never return rows (CREATE TABLE ... SELECT runs its
/// INSERT through it).
pub(crate) struct NoRows;

impl ResultSink for NoRows {
    fn columns(&mut self, _: &Arc<[ColumnMeta]>, _: u16) {}
    fn row(&mut self, _: &mut Row) -> Result<(), MySqlError> {
        Err(MySqlError::internal("unexpected result row"))
    }
    fn end(&mut self, _: Ending<'_>, _: u16) {}
}

impl Session {
    /// Ends the response of the statement that produced `r` (see the module docs).
    pub(super) fn respond(&mut self, r: Result<QueryResult, MySqlError>, o: &mut Out<'_>) {
        self.last_affected = 0;
        self.last_error = match &r {
            Err(e) => Some((e.code, e.state, e.message.clone())),
            Ok(_) => None,
        };
        let r = match r {
            Ok(QueryResult::Rows { columns, rows }) => {
                if !o.opened {
                    let columns = self.in_results_charset(columns);
                    o.columns(&columns, self.status_flags());
                }
                rows.into_iter()
                    .try_for_each(|mut row| o.row(&mut row))
                    .map(|()| None)
            }
            Ok(QueryResult::Ok {
                affected_rows,
                last_insert_id,
                info,
                warnings,
            }) => {
                self.last_affected = affected_rows;
                Ok(Some((affected_rows, last_insert_id, info, warnings)))
            }
            Err(e) => Err(e),
        };
        // SHOW STATUS's own rows are not counted, as in MariaDB (a before and
        // after SHOW STATUS see only what ran between them).
        if matches!(r, Ok(None)) && self.running_com != Some(crate::stats::Stat::ComShowStatus) {
            let c = &self.cx.stats.counters;
            c.add(crate::stats::Stat::RowsSent, o.sent);
            if o.sent == 0 {
                c.bump(crate::stats::Stat::EmptyQueries);
            }
        }
        self.finish_changed_vars();
        let status = self.status_flags();
        let ending = match &r {
            Ok(None) => Ending::Rows {
                warnings: match self.showing_diagnostics {
                    true => 0,
                    false => self.warning_count(),
                },
            },
            Ok(Some((affected_rows, last_insert_id, info, warnings))) => Ending::Ok {
                affected_rows: *affected_rows,
                last_insert_id: *last_insert_id,
                info,
                warnings: *warnings,
            },
            Err(e) => Ending::Err(e),
        };
        if matches!(ending, Ending::Ok { .. }) && !self.tracked.is_empty() {
            let changes = std::mem::take(&mut self.tracked);
            o.sink.session_changes(&changes);
        }
        o.sink.end(ending, status);
    }

    /// The columns of a result computed whole (SHOW and the like), whose text
    /// columns are in the system character set (utf8mb3), described in
    /// `character_set_results` as MariaDB sends them: its collation, and the
    /// length in its bytes per character.
    fn in_results_charset(&self, columns: Arc<[ColumnMeta]>) -> Arc<[ColumnMeta]> {
        use basalt_common::Collation;
        let system = Collation::Utf8mb3GeneralCi;
        let Some(target) = self.cx.results_charset else {
            return columns;
        };
        if target == system.charset() || !columns.iter().any(|c| c.charset == system.id()) {
            return columns;
        }
        let per_char = system.charset().max_len();
        columns
            .iter()
            .map(|c| {
                let mut c = c.clone();
                if c.charset == system.id() {
                    c.charset = target.default_collation().id();
                    c.length = c.length / per_char * target.max_len();
                }
                c
            })
            .collect()
    }

    /// Parses one statement, first checking that its parse and plan fit in
    /// `max_session_mem_used` (errno 1290 otherwise): the parser cannot be
    /// stopped half-way, so an estimate from the text decides before it starts
    /// (see [`crate::exec::mem::statement_footprint`]).
    pub(super) fn parse(&self, text: &str) -> Result<sqlparser::ast::Statement, MySqlError> {
        if text.len() > mem::ESTIMATE_ABOVE {
            let limit = self.cx.max_mem_used;
            if mem::statement_footprint(text.as_bytes()) as u64 > limit {
                return Err(mem::exceeded(limit));
            }
        }
        crate::front::parse::parse_statement(text)
    }

    /// COM_STMT_EXECUTE with decoded parameter values; the response goes to `out`.
    pub fn execute_prepared_into(&mut self, id: u32, params: &[Value], out: &mut dyn ResultSink) {
        let mut o = Out::new(out);
        self.clear_interrupt();
        self.start_clock(&o);
        self.running_com = self.prepared_com(id);
        self.digest = None;
        let r =
            self.timed(|me| me.execute_prepared_inner(id, params, "mysqld_stmt_execute", &mut o));
        self.respond(r, &mut o);
        self.finish_statement(super::slow::Text::Prepared(id, params), &o);
    }
}
