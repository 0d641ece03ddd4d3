//! The SQL side of partitioned tables (`PARTITION BY ...`): the clause bound into
//! the catalog's [`PartitionSpec`] (`spec`), the router that places rows
//! (`route`, installed on the storage, which keeps a partitioned table as one
//! table whose keys lead with the partition id), SHOW CREATE TABLE's text
//! (`show`) and ALTER TABLE's partition operations (`alter`).

pub mod alter;
pub mod route;
pub mod show;
pub mod spec;

use crate::bind::print::{print, reparse_text};
use crate::expr::func::Func;
use crate::expr::{EvalCtx, Expr};
use crate::session::ctx::SessionCtx;
use crate::ty::{Class, ExprType};
use basalt_common::partition::PartitionSpec;
use basalt_common::{Collation, ColumnDef, DataType, MySqlError, TableDef, Value};
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// The expression `text` in MariaDB's printed form (`` year(`d`) ``).
pub fn printed(text: &str) -> R<String> {
    let ast = crate::front::parse::parse_expr(text)?;
    print(&ast, MySqlError::not_supported)
}

/// Binds a partitioning expression (printed form) over the table's row.
pub fn bind_expr(text: &str, def: &Arc<TableDef>, cx: &SessionCtx) -> R<(Expr, ExprType)> {
    let ast = crate::front::parse::parse_expr(&reparse_text(text))?;
    let storage = cx.engine.storage.clone();
    let mut b = crate::bind::Binder::new(&storage, cx, "", None);
    let scope = crate::bind::check::table_scope(&def.schema, def);
    b.expr_for_partition(&ast, &scope)
}

/// Evaluates a constant expression of VALUES; returns its value and class.
pub fn eval_const(text: &str, empty: &Arc<TableDef>, cx: &mut SessionCtx) -> R<(Value, Class)> {
    let (e, ty) = bind_expr(text, empty, cx)?;
    let mut ctx = EvalCtx::new(&[], cx);
    let v = e.eval(&[], &mut ctx)?;
    Ok((v, ty.class))
}

/// The collation a column's values compare by.
pub fn col_collation(c: &ColumnDef) -> Collation {
    match &c.data_type {
        DataType::Char { collation, .. }
        | DataType::VarChar { collation, .. }
        | DataType::Text { collation, .. } => *collation,
        _ => Collation::Binary,
    }
}

/// The functions MariaDB allows in a partitioning expression.
pub fn allowed_function(f: &Func) -> bool {
    use Func::*;
    if matches!(
        f,
        UnixTimestamp
            | Year
            | Month
            | DayOfMonth
            | Hour
            | Minute
            | Second
            | DayOfWeek
            | DayOfYear
            | DateDiff
            | ToDays
            | Weekday
            | Abs
            | Floor
            | Ceil
            | Mod
            | TimestampLocal
    ) {
        return true;
    }
    let name = format!("{f:?}");
    [
        "ToSeconds",
        "Quarter",
        "YearWeek",
        "Extract",
        "TimeToSec",
        "Microsecond",
    ]
    .iter()
    .any(|n| name.contains(n))
}

/// The ordinals of the columns the partitioning reads: the expression's, the
/// COLUMNS list, KEY's list or (KEY ()) the primary key's.
pub fn function_columns(spec: &PartitionSpec, def: &TableDef) -> Vec<usize> {
    if !spec.expr.is_empty() {
        let lx = crate::front::lexer::lex(&spec.expr);
        let mut out = Vec::new();
        for t in &lx.tokens {
            let txt = t.text(&spec.expr);
            let name = txt.trim_matches('`').replace("``", "`");
            if txt.starts_with('`') {
                if let Some(i) = def.column_index(&name) {
                    if !out.contains(&i) {
                        out.push(i);
                    }
                }
            }
        }
        return out;
    }
    if spec.columns.is_empty() {
        return def.primary().column_ordinals().collect();
    }
    spec.columns
        .iter()
        .filter_map(|n| def.column_index(n))
        .collect()
}

/// The partition clause of a CREATE TABLE statement's text, parsed.
pub fn clause_of_create(
    text: &str,
) -> R<Option<crate::front::native::partition_clause::PartitionClause>> {
    use crate::front::native::partition_clause::{create_partition_offset, parse_clause};
    match create_partition_offset(text) {
        Some(at) => parse_clause(&text[at..]).map(Some),
        None => Ok(None),
    }
}

/// `def` with the partitioning of CREATE TABLE statement `text`, if it has a
/// partition clause.
pub fn with_clause(mut def: TableDef, text: &str, cx: &mut SessionCtx) -> R<TableDef> {
    if let Some(c) = clause_of_create(text)? {
        def.partitioning = Some(spec::bind(&c, &def, cx)?);
    }
    Ok(def)
}
