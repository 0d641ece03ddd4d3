//! A prepared CALL's `?` markers. A marker that is a whole argument is the
//! argument itself, as MariaDB's `Item_param` is: its value goes in for an IN
//! or INOUT parameter, and an OUT or INOUT parameter's value comes back
//!
//! - over the binary protocol (COM_STMT_EXECUTE), as one more result set
//!   after the procedure's own: one row of the OUT values, its columns named
//!   after the parameters and typed as declared, the metadata and the end
//!   flagged SERVER_PS_OUT_PARAMS | SERVER_MORE_RESULTS_EXISTS (only for a
//!   client with CLIENT_PS_MULTI_RESULTS; others get nothing back), which
//!   Connector/J's CallableStatement reads;
//! - through SQL `EXECUTE ... USING @v`, into the user variable given for the
//!   marker (a literal in USING for an OUT marker is 1414, as in MariaDB).
//!
//! A marker inside a larger argument (`CALL p(? + 1)`) is its value as a
//! literal, the argument an expression.

use super::call::CallArg;
use super::{Out, Session};
use crate::result::QueryResult;
use basalt_common::{ColumnMeta, Value};
use std::sync::Arc;

/// SERVER_PS_OUT_PARAMS.
const PS_OUT_PARAMS: u16 = 0x1000;

/// The marker values of the CALL being executed.
pub(super) struct CallMarkers {
    pub values: Vec<Value>,
    /// The USING argument of each marker for SQL EXECUTE: the user variable's
    /// name, `None` for a literal. Empty for the binary protocol.
    pub using: Vec<Option<String>>,
    /// COM_STMT_EXECUTE (the OUT values go back as a result set).
    pub wire: bool,
}

/// Where the OUT value of a marker argument goes.
pub(super) enum MarkerOut {
    /// The OUT-parameter result set of COM_STMT_EXECUTE.
    Wire,
    /// A user variable named in EXECUTE ... USING.
    Var(String),
    /// A literal in USING: not a variable (1414 for an OUT parameter).
    Literal,
}

impl CallMarkers {
    /// The CALL's arguments with the markers resolved.
    pub fn args(&self, args: &[String]) -> Vec<CallArg> {
        let mut next = 0;
        args.iter()
            .map(|a| {
                let n = super::prepared::param_count(a);
                let from = next.min(self.values.len());
                next += n;
                let to = next.min(self.values.len());
                if n == 1 && a.trim() == "?" {
                    let out = match (self.wire, self.using.get(from)) {
                        (true, _) => MarkerOut::Wire,
                        (false, Some(Some(v))) => MarkerOut::Var(v.clone()),
                        (false, _) => MarkerOut::Literal,
                    };
                    let v = self.values.get(from).cloned().unwrap_or(Value::Null);
                    CallArg::Marker(v, out)
                } else if n == 0 {
                    CallArg::Text(a.clone())
                } else {
                    CallArg::Text(super::prepared::substitute(a, &self.values[from..to]))
                }
            })
            .collect()
    }
}

impl Session {
    /// Sends the OUT-parameter result set of a prepared CALL: `outs` are the
    /// columns (the routine's parameters) and their values.
    pub(super) fn send_out_params(&mut self, outs: Vec<(ColumnMeta, Value)>, out: &mut Out<'_>) {
        if outs.is_empty() || !self.ps_multi_results {
            return;
        }
        let (columns, row): (Vec<_>, Vec<_>) = outs.into_iter().unzip();
        let columns: Arc<[ColumnMeta]> = columns.into();
        let more = std::mem::replace(&mut self.more_results, true);
        self.extra_status |= PS_OUT_PARAMS;
        let rows = QueryResult::Rows {
            columns,
            rows: vec![row],
        };
        self.respond(Ok(rows), &mut out.nested());
        self.extra_status &= !PS_OUT_PARAMS;
        self.more_results = more;
    }
}
