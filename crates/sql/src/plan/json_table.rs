//! A bound `JSON_TABLE(doc, path COLUMNS (...)) AS alias`: what the executor
//! needs to turn one document into rows (`exec::json_table`).
//!
//! The table's columns are numbered in declaration order, depth first (a NESTED
//! PATH's columns where the clause stands), which is also their order in the
//! table's row. Paths are parsed when the statement is bound; the document is
//! an expression over the tables to the JSON_TABLE's left (and outer queries),
//! evaluated for each row of those tables (a lateral reference), so the join
//! order keeps the JSON_TABLE after them (`deps`) and never hashes it.

use crate::expr::func::json_tree::Path;
use crate::expr::Expr;
use basalt_common::Value;

/// What a column gives when its path finds nothing (ON EMPTY) or finds what the
/// column cannot hold (ON ERROR).
#[derive(Clone, Debug, PartialEq)]
pub enum OnResponse {
    Null,
    Error,
    /// The DEFAULT literal, stored like a found value.
    Default(Value),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ColumnKind {
    /// `name FOR ORDINALITY`: the row's number within its path, from 1.
    Ordinality,
    /// `name type PATH p [.. ON EMPTY] [.. ON ERROR]`; `json`: a JSON column,
    /// which takes arrays and objects as their text.
    Path {
        path: Path,
        on_empty: OnResponse,
        on_error: OnResponse,
        json: bool,
    },
    /// `name type EXISTS PATH p`: 1 when the path finds something, else 0.
    Exists(Path),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Position in the table's row (and its definition).
    pub index: usize,
    pub kind: ColumnKind,
}

/// The row path and columns of one level: the table itself or a NESTED PATH.
#[derive(Clone, Debug, PartialEq)]
pub struct Scope {
    pub path: Path,
    pub columns: Vec<Column>,
    pub nested: Vec<Scope>,
}

#[derive(Clone, Debug)]
pub struct JsonTableFn {
    pub doc: Expr,
    pub alias: String,
    pub root: Scope,
    /// Number of columns (the row width).
    pub width: usize,
}
