//! The plan of a multi-table UPDATE or DELETE: a join (the statement's FROM part
//! with its WHERE, planned as a SELECT) and what to change in each target table.
//!
//! Invariants: every target names a base table of the join (never a derived
//! table or a temptable view); an UPDATE target has at least one assignment,
//! each an expression over the whole joined row; a table may be a target under
//! several aliases (a self-join), each its own target.

use crate::bind::check::Checks;
use crate::expr::Expr;

#[derive(Clone, Debug)]
pub struct MultiDml {
    /// In the order MariaDB applies them: the order the statement names them.
    pub targets: Vec<DmlTarget>,
}

#[derive(Clone, Debug)]
pub struct DmlTarget {
    /// Index into the join's [`crate::plan::SelectPlan::tables`].
    pub table: usize,
    /// UPDATE: (column of the table, value over the joined row); empty for DELETE.
    pub set: Vec<(usize, Expr)>,
    /// The table's CHECK constraints (UPDATE), over its own row.
    pub checks: Checks,
}
