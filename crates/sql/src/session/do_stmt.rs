//! `DO expr [, expr ...]`: evaluates the expressions as a SELECT list would and
//! returns OK without a result set (mariadb-dump writes `DO SETVAL(...)` to
//! restore a sequence). Errors and warnings are the SELECT's.

use super::respond::Out;
use super::Session;
use crate::result::{Ending, QueryResult, ResultSink};
use basalt_common::{ColumnMeta, MySqlError, Row};
use std::sync::Arc;

/// A sink that drops the rows.
struct Discard;

impl ResultSink for Discard {
    fn columns(&mut self, _: &Arc<[ColumnMeta]>, _: u16) {}
    fn row(&mut self, _: &mut Row) -> Result<(), MySqlError> {
        Ok(())
    }
    fn end(&mut self, _: Ending<'_>, _: u16) {}
}

impl Session {
    pub(super) fn do_statement(&mut self, exprs: &str) -> Result<QueryResult, MySqlError> {
        let text = format!("SELECT {exprs}");
        let mut sink = Discard;
        self.run_counted(&text, &mut Out::new(&mut sink))?;
        Ok(QueryResult::ok(0))
    }
}
