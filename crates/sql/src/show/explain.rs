//! DESCRIBE, EXPLAIN (MariaDB's traditional plan table) and ANALYZE TABLE.

use super::table::{column_cols, column_rows};
use super::{result, R};
use crate::plan::{Access, Plan, SelectPlan};
use crate::result::{int_col, opt_s, s, text_col, text_col_nn, QueryResult};
use crate::session::Session;
use basalt_common::{MySqlError, Value};
use sqlparser::ast::{ObjectName, Statement};

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
    let table = session
        .cx
        .table(&db, &t)
        .ok_or_else(|| MySqlError::no_such_table(&db, &t))?;
    let (cols, _) = column_cols(false);
    result(cols, column_rows(&table.def(), false))
}

fn plan_rows(p: &SelectPlan, select_type: &str) -> Vec<Vec<Value>> {
    if p.levels.is_empty() {
        let extra = if p.reads_tables { "" } else { "No tables used" };
        return vec![vec![
            Value::Int(1),
            s(select_type),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            s(extra),
        ]];
    }
    let sorted = !p.order.is_empty() || p.agg.as_ref().is_some_and(|a| !a.group_by.is_empty());
    p.levels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let t = &p.tables[l.table];
            let e = &l.explain;
            let mut extra = Vec::new();
            let secondary_lookup = matches!(&l.access, Access::Index { covering: false, index_id, .. } if *index_id != t.def.indexes[0].id);
            if e.access_type == "range" && secondary_lookup {
                extra.push("Using index condition");
            } else if e.using_where || l.post_filter.is_some() {
                extra.push("Using where");
            }
            if let Access::Index {
                covering: true,
                index_id,
                ..
            } = &l.access
            {
                if *index_id != t.def.indexes[0].id {
                    extra.push("Using index");
                }
            }
            if i == 0 && sorted {
                extra.push("Using filesort");
            }
            if l.hash.is_some() {
                extra.push("Using join buffer (flat, BNLH join)");
            }
            let possible = (!e.possible_keys.is_empty()).then(|| e.possible_keys.join(","));
            vec![
                Value::Int(1),
                s(select_type),
                s(&t.alias),
                s(e.access_type),
                opt_s(possible),
                opt_s(e.key.clone()),
                opt_s(e.key_len.map(|k| k.to_string())),
                opt_s(e.ref_.clone()),
                s(l.est_rows.to_string()),
                s(extra.join("; ")),
            ]
        })
        .collect()
}

pub fn explain(session: &mut Session, stmt: &Statement, text: &str) -> R<QueryResult> {
    let inner = text
        .trim_start()
        .split_once(char::is_whitespace)
        .map_or("", |(_, rest)| rest)
        .to_string();
    let plan = session
        .plan_for_explain(stmt, &inner)?
        .ok_or_else(|| MySqlError::not_supported("EXPLAIN of this statement"))?;
    let rows = match &plan {
        Plan::Select(p) => plan_rows(p, "SIMPLE"),
        Plan::Modify(m) => plan_rows(&m.scan, "SIMPLE"),
        Plan::Insert(i) => vec![vec![
            Value::Int(1),
            s("INSERT"),
            s(&i.table.alias),
            s("ALL"),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
        ]],
    };
    let cols = vec![
        int_col("id", 3, false),
        text_col_nn("select_type", 19),
        text_col("table", 64),
        text_col("type", 10),
        text_col("possible_keys", 4096),
        text_col("key", 64),
        text_col("key_len", 4096),
        text_col("ref", 2048),
        text_col("rows", 64),
        text_col("Extra", 255),
    ];
    result(cols, rows)
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
