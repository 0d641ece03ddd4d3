//! DESCRIBE, EXPLAIN / ANALYZE of a statement, and ANALYZE TABLE.
//!
//! EXPLAIN describes the plan Basalt made ([`tree`] numbers and names its query
//! blocks) as MariaDB's traditional table ([`table`]) or JSON document
//! ([`json`]); EXTENDED adds the `filtered` column and leaves Note 1003 with the
//! query as Basalt read it (and Note 1276 for each outer reference of a
//! correlated subquery). ANALYZE runs the statement first, with a tracker that
//! counts what each join level read, and shows that beside the estimates.

mod cond;
mod json;
mod partitions;
mod table;
mod tree;

use super::table::{column_cols, column_rows};
use super::{result, R};
use crate::exec::analyze::Tracker;
use crate::front::native::{ExplainFormat, ExplainOpts};
use crate::plan::{InsertSource, Plan, SelectPlan, SubPlan};
use crate::result::{s, text_col_nn, QueryResult};
use crate::session::Session;
use basalt_common::{ColumnMeta, MySqlError, Value};
use sqlparser::ast::{ObjectName, Statement};
use std::collections::HashMap;
use std::time::Duration;
use tree::{Builder, Node};

/// `DESCRIBE t` / `EXPLAIN t`: the table's columns.
pub fn describe(session: &mut Session, name: &ObjectName) -> R<QueryResult> {
    let (db, t) = crate::bind::ddl::qualified(name, &session.cx)?;
    let storage = session.cx.engine.storage.clone();
    if let Some(v) = storage
        .view(&db, &t)
        .filter(|_| !session.cx.temp.contains(&db, &t))
    {
        let cols = crate::bind::view::view_columns(&storage, &session.cx, &v)?;
        let def = crate::infoschema::columns_def(&db, &t, cols);
        let (cols, _) = column_cols(false);
        return result(cols, column_rows(&def, false));
    }
    let table = match session.cx.table(&db, &t) {
        Some(table) => table,
        None => crate::seq_engine::open(&db, &t, basalt_common::Collation::Binary)
            .unwrap_or_else(|| Err(MySqlError::no_such_table(&db, &t)))?,
    };
    let (cols, _) = column_cols(false);
    result(cols, column_rows(&table.def(), false))
}

/// The response to EXPLAIN / ANALYZE of `stmt`, planned as `plan` (ANALYZE: and
/// run, with `tracker` holding what it did; `planning` is how long planning took).
pub fn describe_plan(
    session: &mut Session,
    plan: &Plan,
    stmt: &Statement,
    opts: ExplainOpts,
    tracker: Option<&Tracker>,
    planning: Duration,
) -> R<QueryResult> {
    let (root, subs, insert) = match plan {
        Plan::Select(p) => (Some(p), &p.subs[..], None),
        Plan::Modify(m) => (Some(&m.scan), &m.subs[..], None),
        Plan::Insert(i) => match &i.source {
            InsertSource::Select(p) => (Some(p.as_ref()), &i.subs[..], None),
            InsertSource::Values(_) => (None, &i.subs[..], Some(i.table.alias.clone())),
        },
    };
    let Some(root) = root else {
        return insert_only(&insert.unwrap_or_default(), opts);
    };
    let b = Builder::new(root, subs, tracker);
    let node = b.root(root);
    if opts.extended {
        notes(session, &b, root, subs, stmt);
    }
    match opts.format {
        ExplainFormat::Traditional => {
            let cols = table::Columns {
                filtered: opts.extended,
                partitions: opts.partitions,
                analyze: opts.analyze,
            };
            let mut rows = Vec::new();
            table::rows(&node, cols, &mut rows);
            result(table::columns(cols), rows)
        }
        ExplainFormat::Json => {
            let modify = match plan {
                Plan::Modify(m) if m.multi.is_none() => Some(m.delete),
                _ => None,
            };
            let doc = match (modify, &node) {
                (Some(delete), Node::Block(blk)) if blk.tables.len() == 1 => {
                    json::modify_document(blk, delete, opts.analyze.then_some(planning))
                }
                _ => json::document(&node, opts.analyze.then_some(planning)),
            };
            json_result(&json::render(&doc), opts.analyze)
        }
    }
}

/// EXPLAIN of INSERT ... VALUES: one row naming the table.
fn insert_only(table: &str, opts: ExplainOpts) -> R<QueryResult> {
    if opts.format == ExplainFormat::Json {
        let doc = json::insert_document(table);
        return json_result(&json::render(&doc), opts.analyze);
    }
    let cols = table::Columns {
        filtered: opts.extended,
        partitions: opts.partitions,
        analyze: opts.analyze,
    };
    let columns = table::columns(cols);
    let mut row = vec![Value::Int(1), s("INSERT"), s(table)];
    row.resize(columns.len(), Value::Null);
    let type_at = if opts.partitions { 4 } else { 3 };
    row[type_at] = s("ALL");
    result(columns, vec![row])
}

/// The one-column result of FORMAT=JSON (`EXPLAIN` or `ANALYZE`).
fn json_result(text: &str, analyze: bool) -> R<QueryResult> {
    let name = if analyze { "ANALYZE" } else { "EXPLAIN" };
    let mut col: ColumnMeta = text_col_nn(name, 0);
    col.length = (text.len() as u32).saturating_mul(4);
    result(vec![col], vec![vec![s(text)]])
}

/// EXPLAIN EXTENDED's notes: 1276 for each outer column a correlated subquery
/// reads, then 1003 with the statement as Basalt read it, each query block
/// numbered when there are several.
fn notes(
    session: &mut Session,
    b: &Builder,
    root: &SelectPlan,
    subs: &[SubPlan],
    stmt: &Statement,
) {
    for s in subs.iter().filter(|s| !s.outer.is_empty()) {
        let parent = subs
            .iter()
            .map(|x| &x.plan)
            .chain(std::iter::once(root))
            .find(|p| p.pos == s.parent);
        let Some(parent) = parent else { continue };
        for o in &s.outer {
            if let crate::expr::Expr::Column(c) = o {
                let name = tree::column_name(parent, *c, true);
                session.cx.note(
                    1276,
                    format!(
                        "Field or reference '{name}' of SELECT #{} was resolved in SELECT #{}",
                        b.id(s.plan.pos),
                        b.id(s.parent)
                    ),
                );
            }
        }
    }
    if let Some(text) = read_query(session, b, root, stmt) {
        session.cx.note(1003, text);
    }
}

/// The SELECT as MariaDB prints a query it has read: every name qualified by
/// its database and table, select items named; `None` for statements the
/// printer does not cover (WITH, data changes).
fn read_query(
    session: &Session,
    b: &Builder,
    root: &SelectPlan,
    stmt: &Statement,
) -> Option<String> {
    let Statement::Query(q) = stmt else {
        return None;
    };
    let db = session.cx.db.clone().unwrap_or_default();
    let storage = session.cx.engine.storage.clone();
    let names = root.columns.iter().map(|c| c.name.clone()).collect();
    let mut p = crate::bind::view_print::ViewPrinter::new(&storage, &db, true, names);
    p.as_read = true;
    if b.multi {
        let numbers: HashMap<(u64, u64), u64> = b
            .positions()
            .iter()
            .filter(|(text, _, _)| *text == 0)
            .map(|&(t, line, col)| ((line, col), b.id((t, line, col))))
            .collect();
        p.select_numbers = Some(numbers);
    }
    p.print(q).ok()
}

pub fn analyze(session: &mut Session, name: Option<&ObjectName>) -> R<QueryResult> {
    let name = name.ok_or_else(|| MySqlError::parse_error("", 1))?;
    let (db, t) = crate::bind::ddl::qualified(name, &session.cx)?;
    let exists = session.cx.engine.storage.table(&db, &t).is_some();
    let row = if exists {
        vec![s(format!("{db}.{t}")), s("analyze"), s("status"), s("OK")]
    } else {
        vec![
            s(format!("{db}.{t}")),
            s("analyze"),
            s("Error"),
            s(format!("Table '{db}.{t}' doesn't exist")),
        ]
    };
    let cols = vec![
        text_col_nn("Table", 129),
        text_col_nn("Op", 10),
        text_col_nn("Msg_type", 10),
        text_col_nn("Msg_text", 1024),
    ];
    result(cols, vec![row])
}
