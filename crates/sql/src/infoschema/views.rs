//! Views in `information_schema` and SHOW: `VIEWS`, the `TABLES` rows of type
//! `VIEW` (NULL wherever MariaDB has nothing to say about a view, `VIEW` as the
//! comment), and the column definitions of each view, typed by binding its
//! query (a view whose query no longer binds has no columns, as in MariaDB,
//! which warns instead).

use crate::session::ctx::SessionCtx;
use basalt_common::{Row, TableDef, Value};
use basalt_storage::ViewDef;
use std::sync::Arc;

fn s(v: impl Into<String>) -> Value {
    Value::Bytes(v.into().into_bytes())
}

fn all_views(cx: &SessionCtx) -> Vec<Arc<ViewDef>> {
    let st = &cx.engine.storage;
    st.databases()
        .iter()
        .flat_map(|d| st.views(d))
        .filter(|v| cx.privs.sees_table(&v.schema, &v.name))
        .collect()
}

/// The rows of `information_schema.VIEWS`.
pub fn views(cx: &SessionCtx) -> Vec<Row> {
    all_views(cx)
        .iter()
        .map(|v| {
            vec![
                s("def"),
                s(&v.schema),
                s(&v.name),
                s(&v.definition),
                s(&v.check_option),
                s(if v.updatable { "YES" } else { "NO" }),
                s(format!("{}@{}", v.definer_user, v.definer_host)),
                s(&v.security),
                s(&v.character_set_client),
                s(&v.collation_connection),
                s(&v.algorithm),
            ]
        })
        .collect()
}

/// The `information_schema.TABLES` rows of the views (23 columns).
pub fn table_rows(cx: &SessionCtx) -> Vec<Row> {
    all_views(cx)
        .iter()
        .map(|v| {
            let mut row = vec![s("def"), s(&v.schema), s(&v.name), s("VIEW")];
            row.extend(std::iter::repeat_n(Value::Null, 16));
            row.extend([s("VIEW"), Value::Null, Value::Null]);
            row
        })
        .collect()
}

/// The `SHOW TABLE STATUS` row of a view (20 columns).
pub fn status_row(v: &ViewDef) -> Row {
    let mut row = vec![s(&v.name)];
    row.extend(std::iter::repeat_n(Value::Null, 16));
    row.extend([s("VIEW"), Value::Null, Value::Null]);
    row
}

/// Every view as (database, a definition holding its columns' types).
pub fn view_defs(cx: &SessionCtx) -> Vec<(String, Arc<TableDef>)> {
    all_views(cx)
        .iter()
        .filter_map(|v| {
            let cols = crate::bind::view::view_columns(&cx.engine.storage, cx, v).ok()?;
            Some((
                v.schema.clone(),
                Arc::new(super::columns_def(&v.schema, &v.name, cols)),
            ))
        })
        .collect()
}
