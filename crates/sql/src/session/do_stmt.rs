//! `DO expr [, expr ...]`: evaluates the expressions as a SELECT list would and
//! returns OK without a result set (mariadb-dump writes `DO SETVAL(...)` to
//! restore a sequence). Warnings are the SELECT's; an error the evaluation
//! raises is listed and the statement still ends OK, as MariaDB's DO ("DO
//! always is OK"); an error before it (an unknown table or function) fails it.

use super::respond::Out;
use super::Session;
use crate::result::{Ending, QueryResult, ResultSink};
use basalt_common::{ColumnMeta, MySqlError, Row};
use std::sync::Arc;

/// A sink that drops the rows (and knows whether evaluation started).
struct Discard {
    started: bool,
}

impl ResultSink for Discard {
    fn columns(&mut self, _: &Arc<[ColumnMeta]>, _: u16) {
        self.started = true;
    }
    fn row(&mut self, _: &mut Row) -> Result<(), MySqlError> {
        Ok(())
    }
    fn end(&mut self, _: Ending<'_>, _: u16) {}
}

impl Session {
    pub(super) fn do_statement(&mut self, exprs: &str) -> Result<QueryResult, MySqlError> {
        let text = format!("SELECT {exprs}");
        let mut sink = Discard { started: false };
        match self.run_counted(&text, &mut Out::new(&mut sink)) {
            Err(e) if sink.started && e.code != MySqlError::query_interrupted().code => {
                self.cx.list_error_and_trailing(&e);
                Ok(QueryResult::ok(0))
            }
            r => r.map(|_| QueryResult::ok(0)),
        }
    }
}
