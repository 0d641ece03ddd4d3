//! The built-in schemas in `information_schema.TABLES` and `COLUMNS`:
//! information_schema's own tables (`SYSTEM VIEW`), performance_schema's
//! (`BASE TABLE` of engine `PERFORMANCE_SCHEMA`) and sys's views, as MariaDB
//! lists them.

use crate::result::s;
use crate::session::ctx::SessionCtx;
use basalt_common::{Row, TableDef, Value};
use std::sync::{Arc, OnceLock};

/// `information_schema.TABLES` rows of the three built-in schemas.
pub fn table_rows(cx: &SessionCtx) -> Vec<Row> {
    let mut rows = Vec::new();
    for name in super::table_names() {
        rows.push(system_view(&name));
    }
    let ps = crate::perfschema::SCHEMA;
    for (name, def) in crate::perfschema::defs::all() {
        if cx.privs.sees_table(ps, name) {
            rows.push(perf_table(name, def));
        }
    }
    let sys = crate::sysschema::SCHEMA;
    for name in crate::sysschema::view_names() {
        if cx.privs.sees_table(sys, &name) {
            let mut row = vec![s("def"), s(sys), s(&name), s("VIEW")];
            row.extend(std::iter::repeat_n(Value::Null, 16));
            row.extend([s("VIEW"), Value::Null, Value::Null]);
            rows.push(row);
        }
    }
    rows
}

/// An information_schema table's row: MariaDB's `SYSTEM VIEW` of engine
/// MEMORY (Aria for those with long text columns; MEMORY here).
fn system_view(name: &str) -> Row {
    vec![
        s("def"),
        s(super::SCHEMA),
        s(name),
        s("SYSTEM VIEW"),
        s("MEMORY"),
        Value::UInt(11),
        s("Fixed"),
        Value::Null,
        Value::UInt(0),
        Value::UInt(0),
        Value::UInt(0),
        Value::UInt(0),
        Value::UInt(0),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
        s("utf8mb3_general_ci"),
        Value::Null,
        s("max_rows=0"),
        s(""),
        Value::UInt(0),
        s("Y"),
    ]
}

fn perf_table(name: &str, def: &TableDef) -> Row {
    vec![
        s("def"),
        s(crate::perfschema::SCHEMA),
        s(name),
        s("BASE TABLE"),
        s("PERFORMANCE_SCHEMA"),
        Value::UInt(10),
        s("Dynamic"),
        Value::UInt(0),
        Value::UInt(0),
        Value::UInt(0),
        Value::UInt(0),
        Value::UInt(0),
        Value::UInt(0),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
        s(def.collation.name()),
        Value::Null,
        s(""),
        s(""),
        Value::UInt(0),
        s("N"),
    ]
}

/// The definitions behind `information_schema.COLUMNS` rows of
/// performance_schema's tables and sys's views (each view typed by binding
/// its query once per process: the sys views do not change).
pub fn column_defs(cx: &SessionCtx) -> Vec<(String, Arc<TableDef>)> {
    let ps = crate::perfschema::SCHEMA;
    let mut out: Vec<(String, Arc<TableDef>)> = crate::perfschema::defs::all()
        .iter()
        .filter(|(name, _)| cx.privs.sees_table(ps, name))
        .map(|(_, def)| (ps.to_string(), Arc::new(def.clone())))
        .collect();
    let sys = crate::sysschema::SCHEMA;
    out.extend(
        sys_view_defs(cx)
            .into_iter()
            .filter(|d| cx.privs.sees_table(sys, &d.name))
            .map(|d| (sys.to_string(), d)),
    );
    out
}

/// Every sys view's columns (of those that bind), computed once by a session
/// that may read every table (what binds for it binds for every process).
fn sys_view_defs(cx: &SessionCtx) -> Vec<Arc<TableDef>> {
    static DEFS: OnceLock<Vec<Arc<TableDef>>> = OnceLock::new();
    if let Some(d) = DEFS.get() {
        return d.clone();
    }
    // Binding a view opens the tables it reads, and some sys views read
    // information_schema.COLUMNS: while this thread binds them, COLUMNS lists
    // no sys view (or it would bind them again, without end).
    thread_local!(static BINDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
    if BINDING.replace(true) {
        return Vec::new();
    }
    struct Done;
    impl Drop for Done {
        fn drop(&mut self) {
            BINDING.set(false);
        }
    }
    let done = Done;
    let sys = crate::sysschema::SCHEMA;
    let defs: Vec<Arc<TableDef>> = crate::sysschema::view_names()
        .iter()
        .filter_map(|name| {
            let v = crate::sysschema::view_def(name)?;
            let cols = crate::bind::view::view_columns(&cx.engine.storage, cx, &v).ok()?;
            Some(Arc::new(super::columns_def(sys, name, cols)))
        })
        .collect();
    drop(done);
    if cx.privs.unrestricted() {
        let _ = DEFS.set(defs.clone());
    }
    defs
}
