//! Stored routines in `information_schema` (ROUTINES, PARAMETERS) and in
//! SHOW PROCEDURE / FUNCTION STATUS and SHOW CREATE PROCEDURE / FUNCTION.

use crate::session::ctx::SessionCtx;
use basalt_common::{Row, Value};
use basalt_storage::RoutineDef;
use std::sync::Arc;

fn s(v: impl Into<String>) -> Value {
    Value::Bytes(v.into().into_bytes())
}

fn datetime(text: &str) -> Value {
    crate::value::parse_datetime(text.as_bytes()).map_or(Value::Null, Value::DateTime)
}

/// The routines the session may see.
pub fn visible(cx: &SessionCtx) -> Vec<Arc<RoutineDef>> {
    cx.engine
        .storage
        .all_routines()
        .into_iter()
        .filter(|r| cx.privs.sees_db(&r.schema))
        .collect()
}

pub fn definer(r: &RoutineDef) -> String {
    format!("{}@{}", r.definer_user, r.definer_host)
}

/// The rows of `information_schema.ROUTINES`.
pub fn routines(cx: &SessionCtx) -> Vec<Row> {
    visible(cx)
        .iter()
        .map(|r| {
            let mut row = vec![s(&r.name), s("def"), s(&r.schema), s(&r.name), s(&r.kind)];
            row.extend(return_type(cx, r));
            row.extend([
                s("SQL"),
                s(&r.body),
                Value::Null,
                Value::Null,
                s("SQL"),
                s(if r.deterministic { "YES" } else { "NO" }),
                s(&r.data_access),
                Value::Null,
                s(&r.security),
                datetime(&r.created),
                datetime(&r.modified),
                s(&r.sql_mode),
                s(&r.comment),
                s(definer(r)),
                s(&r.character_set_client),
                s(&r.collation_connection),
                s(&r.database_collation),
            ]);
            row
        })
        .collect()
}

/// DATA_TYPE ... DTD_IDENTIFIER of a function's RETURNS (empty and NULLs for
/// a procedure).
fn return_type(cx: &SessionCtx, r: &RoutineDef) -> Vec<Value> {
    let coll = basalt_common::Collation::from_name(&r.database_collation)
        .unwrap_or(basalt_common::Collation::Utf8mb4GeneralCi);
    match crate::sp::slot_def(&r.name, &r.returns, coll, cx) {
        Ok(def) if r.kind == "FUNCTION" => {
            let dt = &def.col.data_type;
            let mut row = super::tables::type_facts(dt).to_vec();
            row.push(s(dt.sql_name()));
            row
        }
        _ => {
            let mut row = vec![s("")];
            row.extend(std::iter::repeat_n(Value::Null, 8));
            row
        }
    }
}

/// The rows of `information_schema.PARAMETERS`.
pub fn parameters(cx: &SessionCtx) -> Vec<Row> {
    let mut out = Vec::new();
    for r in visible(cx) {
        let Ok(params) = crate::sp::parse_params(&r.params, r.kind == "FUNCTION") else {
            continue;
        };
        if r.kind == "FUNCTION" {
            // Position 0: the RETURNS type.
            let ret = return_type(cx, &r);
            let mut row = vec![
                s("def"),
                s(&r.schema),
                s(&r.name),
                Value::Int(0),
                Value::Null,
                Value::Null,
                ret[0].clone(),
            ];
            row.extend(std::iter::repeat_n(Value::Null, 7));
            row.push(ret[8].clone());
            row.push(s(&r.kind));
            out.push(row);
        }
        for (i, p) in params.iter().enumerate() {
            let base = p
                .type_text
                .split(|c: char| c == '(' || c.is_whitespace())
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            let mut row = vec![
                s("def"),
                s(&r.schema),
                s(&r.name),
                Value::Int(i as i64 + 1),
                s(p.mode.name()),
                s(&p.name),
                s(base),
            ];
            row.extend(std::iter::repeat_n(Value::Null, 7));
            row.push(s(p.type_text.to_ascii_lowercase()));
            row.push(s(&r.kind));
            out.push(row);
        }
    }
    out
}

/// The rows of SHOW PROCEDURE / FUNCTION STATUS.
pub fn status_rows(cx: &SessionCtx, kind: &str) -> Vec<Row> {
    visible(cx)
        .iter()
        .filter(|r| r.kind == kind)
        .map(|r| {
            vec![
                s(&r.schema),
                s(&r.name),
                s(&r.kind),
                s(definer(r)),
                datetime(&r.modified),
                datetime(&r.created),
                s(&r.security),
                s(&r.comment),
                s(&r.character_set_client),
                s(&r.collation_connection),
                s(&r.database_collation),
            ]
        })
        .collect()
}

/// The statement SHOW CREATE PROCEDURE prints: MariaDB's form, from the
/// parts as they were written.
pub fn create_statement(r: &RoutineDef) -> String {
    let q = |n: &str| format!("`{}`", n.replace('`', "``"));
    let mut out = format!(
        "CREATE DEFINER={}@{} {} {}({})",
        q(&r.definer_user),
        q(&r.definer_host),
        r.kind,
        q(&r.name),
        r.params
    );
    if !r.returns.is_empty() {
        out.push_str(&format!(" RETURNS {}", r.returns));
    }
    if r.deterministic {
        out.push_str("\n    DETERMINISTIC");
    }
    if r.data_access != "CONTAINS SQL" {
        out.push_str(&format!("\n    {}", r.data_access));
    }
    if r.security != "DEFINER" {
        out.push_str(&format!("\n    SQL SECURITY {}", r.security));
    }
    if !r.comment.is_empty() {
        out.push_str(&format!(
            "\n    COMMENT '{}'",
            r.comment.replace('\'', "''")
        ));
    }
    out.push('\n');
    out.push_str(&r.body);
    out
}
