//! Row builders of the `information_schema` tables, in MariaDB's column layout.

use super::{table_def, Col};
use crate::result::{opt_s, s};
use crate::session::ctx::SessionCtx;
use crate::sysvars;
use basalt_common::{
    Collation, ColumnDef, DataType, DefaultValue, IndexKind, IntKind, Row, TableDef, Value,
};
use Col::*;

pub const NAMES: &[&str] = &[
    "APPLICABLE_ROLES",
    "CHARACTER_SETS",
    "CHECK_CONSTRAINTS",
    "COLLATIONS",
    "COLLATION_CHARACTER_SET_APPLICABILITY",
    "COLUMNS",
    "ENABLED_ROLES",
    "ENGINES",
    "EVENTS",
    "FILES",
    "GLOBAL_STATUS",
    "GLOBAL_VARIABLES",
    "KEY_COLUMN_USAGE",
    "PARTITIONS",
    "PLUGINS",
    "PROCESSLIST",
    "REFERENTIAL_CONSTRAINTS",
    "ROUTINES",
    "SCHEMATA",
    "SCHEMA_PRIVILEGES",
    "SESSION_STATUS",
    "SESSION_VARIABLES",
    "STATISTICS",
    "SYSTEM_VARIABLES",
    "TABLES",
    "TABLE_CONSTRAINTS",
    "TABLE_PRIVILEGES",
    "TRIGGERS",
    "USER_PRIVILEGES",
    "VIEWS",
];

type Built = Option<(TableDef, Vec<Row>)>;

pub fn build(name: &str, cx: &SessionCtx) -> Built {
    let def = |cols: &[(&str, Col)]| table_def(name, cols);
    Some(match name {
        "SCHEMATA" => (
            def(&[
                ("CATALOG_NAME", Str(512)),
                ("SCHEMA_NAME", Str(64)),
                ("DEFAULT_CHARACTER_SET_NAME", Str(32)),
                ("DEFAULT_COLLATION_NAME", Str(64)),
                ("SQL_PATH", OptStr(512)),
                ("SCHEMA_COMMENT", Str(1024)),
            ]),
            schemata(cx),
        ),
        "TABLES" => (def(TABLES_COLS), tables(cx)),
        "COLUMNS" => (def(COLUMNS_COLS), columns(cx)),
        "STATISTICS" => (def(STATISTICS_COLS), statistics(cx)),
        "KEY_COLUMN_USAGE" => (def(KCU_COLS), key_column_usage(cx)),
        "TABLE_CONSTRAINTS" => (
            def(&[
                ("CONSTRAINT_CATALOG", Str(512)),
                ("CONSTRAINT_SCHEMA", Str(64)),
                ("CONSTRAINT_NAME", Str(64)),
                ("TABLE_SCHEMA", Str(64)),
                ("TABLE_NAME", Str(64)),
                ("CONSTRAINT_TYPE", Str(64)),
            ]),
            table_constraints(cx),
        ),
        "ENGINES" => (
            def(&[
                ("ENGINE", Str(64)),
                ("SUPPORT", Str(8)),
                ("COMMENT", Str(160)),
                ("TRANSACTIONS", OptStr(3)),
                ("XA", OptStr(3)),
                ("SAVEPOINTS", OptStr(3)),
            ]),
            vec![
                vec![s("InnoDB"), s("DEFAULT"), s("Supports transactions, row-level locking, foreign keys and encryption for tables"), s("YES"), s("YES"), s("YES")],
                vec![s("MEMORY"), s("YES"), s("Hash based, stored in memory, useful for temporary tables"), s("NO"), s("NO"), s("NO")],
                vec![s("SEQUENCE"), s("YES"), s("Generated tables filled with sequential values"), s("YES"), s("NO"), s("YES")],
            ],
        ),
        "COLLATIONS" => (
            def(&[
                ("COLLATION_NAME", Str(64)),
                ("CHARACTER_SET_NAME", OptStr(32)),
                ("ID", Int),
                ("IS_DEFAULT", OptStr(3)),
                ("IS_COMPILED", Str(3)),
                ("SORTLEN", Int),
            ]),
            Collation::all()
                .iter()
                .map(|c| {
                    let d = c.is_default();
                    vec![s(c.name()), s(c.charset().name()), Value::Int(c.id() as i64), s(if d { "Yes" } else { "" }), s("Yes"), Value::Int(c.sortlen() as i64)]
                })
                .collect(),
        ),
        "COLLATION_CHARACTER_SET_APPLICABILITY" => (
            def(&[
                ("COLLATION_NAME", Str(64)),
                ("CHARACTER_SET_NAME", Str(32)),
                ("FULL_COLLATION_NAME", Str(64)),
                ("ID", Int),
                ("IS_DEFAULT", Str(3)),
            ]),
            Collation::all()
                .iter()
                .map(|c| vec![s(c.name()), s(c.charset().name()), s(c.name()), Value::Int(c.id() as i64), s(if c.is_default() { "Yes" } else { "" })])
                .collect(),
        ),
        "CHARACTER_SETS" => (
            def(&[
                ("CHARACTER_SET_NAME", Str(32)),
                ("DEFAULT_COLLATE_NAME", Str(64)),
                ("DESCRIPTION", Str(60)),
                ("MAXLEN", Int),
            ]),
            basalt_common::Charset::all()
                .iter()
                .map(|c| vec![s(c.name()), s(c.default_collation().name()), s(c.description()), Value::Int(c.max_len() as i64)])
                .collect(),
        ),
        "PROCESSLIST" => (
            def(&[
                ("ID", Int),
                ("USER", Str(128)),
                ("HOST", Str(64)),
                ("DB", OptStr(64)),
                ("COMMAND", Str(16)),
                ("TIME", Int),
                ("STATE", OptStr(64)),
                ("INFO", LongText),
            ]),
            cx.engine.processlist()
                .into_iter()
                .filter(|p| cx.privs.sees_thread(&cx.user, &p.user))
                .map(|p| vec![Value::Int(p.id as i64), s(p.user), s(p.host), opt_s(p.db), s(p.command), Value::Int(p.time as i64), s(p.state), opt_s(p.info)])
                .collect(),
        ),
        "GLOBAL_VARIABLES" | "SESSION_VARIABLES" => {
            let global = name == "GLOBAL_VARIABLES";
            let rows = sysvars::all()
                .iter()
                .filter(|d| !(global && d.scope == sysvars::Scope::Session))
                .map(|d| vec![s(d.name.to_ascii_uppercase()), s(crate::show::var_text(d.kind, &cx.sysvar(d, global)))])
                .collect();
            (def(&[("VARIABLE_NAME", Str(64)), ("VARIABLE_VALUE", Str(2048))]), rows)
        }
        "SYSTEM_VARIABLES" => (def(super::system_variables::COLUMNS), super::system_variables::rows(cx)),
        "GLOBAL_STATUS" | "SESSION_STATUS" => {
            let mut pairs = crate::show::status_pairs(cx, name == "GLOBAL_STATUS");
            crate::show::sort_status(&mut pairs);
            let rows: Vec<Row> = pairs
                .into_iter()
                .map(|(k, v)| vec![s(k.to_ascii_uppercase()), s(v)])
                .collect();
            (def(&[("VARIABLE_NAME", Str(64)), ("VARIABLE_VALUE", Str(2048))]), rows)
        }
        "CHECK_CONSTRAINTS" => (
            def(&[
                ("CONSTRAINT_CATALOG", Str(512)),
                ("CONSTRAINT_SCHEMA", Str(64)),
                ("TABLE_NAME", Str(64)),
                ("CONSTRAINT_NAME", Str(64)),
                ("LEVEL", Str(6)),
                ("CHECK_CLAUSE", LongText),
            ]),
            check_constraints(cx),
        ),
        "PLUGINS" => (def(super::plugins::COLUMNS), super::plugins::rows()),
        "USER_PRIVILEGES" => (
            def(&[("GRANTEE", Str(385)), ("TABLE_CATALOG", Str(512)), ("PRIVILEGE_TYPE", Str(64)), ("IS_GRANTABLE", Str(3))]),
            super::privileges::user_privileges(cx),
        ),
        "APPLICABLE_ROLES" => (
            def(&[("GRANTEE", Str(385)), ("ROLE_NAME", Str(128)), ("IS_GRANTABLE", Str(3)), ("IS_DEFAULT", OptStr(3))]),
            super::privileges::applicable_roles(cx),
        ),
        "ENABLED_ROLES" => (
            def(&[("ROLE_NAME", OptStr(128))]),
            super::privileges::enabled_roles(cx),
        ),
        "SCHEMA_PRIVILEGES" => (
            def(&[("GRANTEE", Str(385)), ("TABLE_CATALOG", Str(512)), ("TABLE_SCHEMA", Str(64)), ("PRIVILEGE_TYPE", Str(64)), ("IS_GRANTABLE", Str(3))]),
            super::privileges::schema_privileges(cx),
        ),
        "TABLE_PRIVILEGES" => (
            def(&[("GRANTEE", Str(385)), ("TABLE_CATALOG", Str(512)), ("TABLE_SCHEMA", Str(64)), ("TABLE_NAME", Str(64)), ("PRIVILEGE_TYPE", Str(64)), ("IS_GRANTABLE", Str(3))]),
            super::privileges::table_privileges(cx),
        ),
        "PARTITIONS" => (def(super::layouts::layout(name)?), partitions(cx)),
        "VIEWS" => (def(super::layouts::layout(name)?), super::views::views(cx)),
        "ROUTINES" => (def(super::layouts::layout(name)?), super::routines::routines(cx)),
        "TRIGGERS" => (def(super::layouts::layout(name)?), super::triggers::rows(cx)),
        "EVENTS" => (def(super::layouts::layout(name)?), super::events::rows(cx)),
        "PARAMETERS" => (def(super::layouts::layout(name)?), super::routines::parameters(cx)),
        "REFERENTIAL_CONSTRAINTS" => (
            def(super::layouts::layout(name)?),
            super::foreign_keys::referential_constraints(&all_tables(cx)),
        ),
        "TABLE_STATISTICS" => {
            let all = cx.engine.stats.objects.snapshot();
            let rows = crate::stats::objects::table_rows(&all)
                .into_iter()
                .map(|(db, t, r, c, x)| {
                    vec![s(db), s(t), Value::Int(r as i64), Value::Int(c as i64), Value::Int(x as i64)]
                })
                .collect();
            (def(super::layouts::layout(name)?), rows)
        }
        "USER_STATISTICS" | "CLIENT_STATISTICS" => {
            (def(super::layouts::layout(name)?), super::userstat::rows(cx, name))
        }
        "INDEX_STATISTICS" => {
            let all = cx.engine.stats.objects.snapshot();
            let rows = crate::stats::objects::index_rows(&all)
                .into_iter()
                .map(|(db, t, i, r)| vec![s(db), s(t), s(i), Value::Int(r as i64)])
                .collect();
            (def(super::layouts::layout(name)?), rows)
        }
        _ => (def(super::layouts::layout(name)?), Vec::new()),
    })
}

/// One row per table, with no partition (NULL names), as MariaDB shows an
/// unpartitioned table.
fn partitions(cx: &SessionCtx) -> Vec<Row> {
    all_tables(cx)
        .into_iter()
        .flat_map(|(db, t)| {
            let head = [s("def"), s(&db), s(&t.def().name)];
            super::partitions::rows_of(head, &*t)
        })
        .collect()
}

/// Every user table as (database, definition, handle).
fn all_tables(cx: &SessionCtx) -> Vec<(String, std::sync::Arc<dyn basalt_storage::Table>)> {
    let st = &cx.engine.storage;
    let mut out = Vec::new();
    for db in st.databases() {
        for t in st.tables(&db).unwrap_or_default() {
            if !cx.privs.sees_table(&db, &t) {
                continue;
            }
            if let Some(h) = st.table(&db, &t) {
                out.push((db.clone(), h));
            }
        }
    }
    out.extend(
        crate::system_tables::all(&cx.engine)
            .into_iter()
            .filter(|(db, t)| cx.privs.sees_table(db, &t.def().name)),
    );
    out
}

fn schemata(cx: &SessionCtx) -> Vec<Row> {
    let st = &cx.engine.storage;
    let mut rows = vec![vec![
        s("def"),
        s(super::SCHEMA),
        s("utf8mb3"),
        s("utf8mb3_general_ci"),
        Value::Null,
        s(""),
    ]];
    for db in [crate::perfschema::SCHEMA, crate::sysschema::SCHEMA] {
        if cx.privs.sees_db(db) {
            rows.push(vec![
                s("def"),
                s(db),
                s("utf8mb3"),
                s("utf8mb3_general_ci"),
                Value::Null,
                s(""),
            ]);
        }
    }
    for db in st.databases() {
        if !cx.privs.sees_db(&db) {
            continue;
        }
        let c = st
            .database_collation(&db)
            .unwrap_or(Collation::Utf8mb4GeneralCi);
        rows.push(vec![
            s("def"),
            s(&db),
            s(c.charset().name()),
            s(c.name()),
            Value::Null,
            s(st.database_comment(&db).unwrap_or_default()),
        ]);
    }
    rows
}

const TABLES_COLS: &[(&str, Col)] = &[
    ("TABLE_CATALOG", Str(512)),
    ("TABLE_SCHEMA", Str(64)),
    ("TABLE_NAME", Str(64)),
    ("TABLE_TYPE", Str(64)),
    ("ENGINE", OptStr(64)),
    ("VERSION", UInt),
    ("ROW_FORMAT", OptStr(10)),
    ("TABLE_ROWS", UInt),
    ("AVG_ROW_LENGTH", UInt),
    ("DATA_LENGTH", UInt),
    ("MAX_DATA_LENGTH", UInt),
    ("INDEX_LENGTH", UInt),
    ("DATA_FREE", UInt),
    ("AUTO_INCREMENT", UInt),
    ("CREATE_TIME", DateTime),
    ("UPDATE_TIME", DateTime),
    ("CHECK_TIME", DateTime),
    ("TABLE_COLLATION", OptStr(64)),
    ("CHECKSUM", UInt),
    ("CREATE_OPTIONS", OptStr(2048)),
    ("TABLE_COMMENT", Str(2048)),
    ("MAX_INDEX_LENGTH", UInt),
    ("TEMPORARY", OptStr(1)),
];

fn tables(cx: &SessionCtx) -> Vec<Row> {
    let mut rows = base_tables(cx);
    rows.extend(super::views::table_rows(cx));
    rows.extend(super::builtin::table_rows(cx));
    rows
}

fn base_tables(cx: &SessionCtx) -> Vec<Row> {
    all_tables(cx)
        .into_iter()
        .map(|(db, t)| {
            let def = t.def();
            let st = t.stats();
            let ai = def
                .auto_increment_column()
                .map_or(Value::Null, |_| Value::UInt(t.peek_auto_increment()));
            vec![
                s("def"),
                s(db),
                s(&def.name),
                s(if crate::sequence::is_sequence(&def) {
                    "SEQUENCE"
                } else {
                    "BASE TABLE"
                }),
                s(def.engine.name()),
                Value::UInt(10),
                s(row_format(&def)),
                Value::UInt(st.rows),
                Value::UInt(st.data_bytes.checked_div(st.rows).unwrap_or(0)),
                Value::UInt(st.data_bytes),
                Value::UInt(0),
                Value::UInt(0),
                Value::UInt(0),
                ai,
                Value::Null,
                Value::Null,
                Value::Null,
                s(def.collation.name()),
                Value::Null,
                s(crate::bind::options::table_create_options(&def)),
                s(&def.comment),
                Value::UInt(0),
                s("N"),
            ]
        })
        .collect()
}

/// `ROW_FORMAT` as information_schema and SHOW TABLE STATUS show it.
pub fn row_format(def: &TableDef) -> String {
    let recorded = def.options.iter().find(|(k, _)| k == "ROW_FORMAT");
    match recorded {
        Some((_, v)) => {
            let lower = v.to_ascii_lowercase();
            let mut c = lower.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        }
        None => "Dynamic".into(),
    }
}

fn check_constraints(cx: &SessionCtx) -> Vec<Row> {
    let mut rows = Vec::new();
    for (db, t) in all_tables(cx) {
        let def = t.def();
        for c in &def.checks {
            let level = if c.column_level { "Column" } else { "Table" };
            rows.push(vec![
                s("def"),
                s(&db),
                s(&def.name),
                s(&c.name),
                s(level),
                s(&c.expr),
            ]);
        }
    }
    rows
}

const COLUMNS_COLS: &[(&str, Col)] = &[
    ("TABLE_CATALOG", Str(512)),
    ("TABLE_SCHEMA", Str(64)),
    ("TABLE_NAME", Str(64)),
    ("COLUMN_NAME", Str(64)),
    ("ORDINAL_POSITION", UInt),
    ("COLUMN_DEFAULT", LongText),
    ("IS_NULLABLE", Str(3)),
    ("DATA_TYPE", Str(64)),
    ("CHARACTER_MAXIMUM_LENGTH", UInt),
    ("CHARACTER_OCTET_LENGTH", UInt),
    ("NUMERIC_PRECISION", UInt),
    ("NUMERIC_SCALE", UInt),
    ("DATETIME_PRECISION", UInt),
    ("CHARACTER_SET_NAME", OptStr(32)),
    ("COLLATION_NAME", OptStr(64)),
    ("COLUMN_TYPE", LongText),
    ("COLUMN_KEY", Str(3)),
    ("EXTRA", Str(80)),
    ("PRIVILEGES", Str(80)),
    ("COLUMN_COMMENT", Str(1024)),
    ("IS_GENERATED", Str(6)),
    ("GENERATION_EXPRESSION", LongText),
];

/// DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH,
/// NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION, CHARACTER_SET_NAME and
/// COLLATION_NAME of a type (COLUMNS, ROUTINES, PARAMETERS).
pub fn type_facts(dt: &DataType) -> [Value; 8] {
    let (chars, octets) = match (dt.char_len(), dt.collation()) {
        (Some(n), Some(_)) if dt.is_lob() => {
            let bytes = match dt {
                DataType::Text { kind, .. } => kind.max_len(),
                _ => n,
            };
            (Value::UInt(bytes), Value::UInt(bytes))
        }
        (Some(n), Some(coll)) => (
            Value::UInt(n),
            Value::UInt(n * coll.charset().max_len() as u64),
        ),
        _ => (Value::Null, Value::Null),
    };
    let (np, ns) = numeric_precision(dt);
    let dtp = if dt.is_temporal() {
        Value::UInt(dt.fsp() as u64)
    } else {
        Value::Null
    };
    let coll = dt.collation().filter(|c| !c.is_binary());
    [
        s(data_type_name(dt)),
        chars,
        octets,
        np,
        ns,
        dtp,
        opt_s(coll.map(|c| c.charset().name())),
        opt_s(coll.map(|c| c.name())),
    ]
}

fn data_type_name(dt: &DataType) -> String {
    let full = dt.sql_name();
    let base = full.split(['(', ' ']).next().unwrap_or("").to_string();
    if let DataType::Year = dt {
        return "year".into();
    }
    base
}

fn numeric_precision(dt: &DataType) -> (Value, Value) {
    match dt {
        DataType::Int { kind, unsigned, .. } => {
            let p = match kind {
                IntKind::Tiny => 3,
                IntKind::Small => 5,
                IntKind::Medium if *unsigned => 8,
                IntKind::Medium => 7,
                IntKind::Int => 10,
                IntKind::Big if *unsigned => 20,
                IntKind::Big => 19,
            };
            (Value::UInt(p), Value::UInt(0))
        }
        DataType::Decimal { precision, scale } => {
            (Value::UInt(*precision as u64), Value::UInt(*scale as u64))
        }
        DataType::Double => (Value::UInt(22), Value::Null),
        DataType::Float => (Value::UInt(12), Value::Null),
        DataType::Bit { width } => (Value::UInt(*width as u64), Value::Null),
        _ => (Value::Null, Value::Null),
    }
}

fn column_default(c: &ColumnDef) -> Value {
    match &c.default {
        _ if c.generated.is_some() => s("NULL"),
        Some(DefaultValue::CurrentTimestamp) => s("current_timestamp()"),
        Some(DefaultValue::Expr(e)) => s(crate::show::table::expr_default_text(e)),
        Some(DefaultValue::Literal(Value::Null)) => s("NULL"),
        None if c.nullable => s("NULL"),
        None => Value::Null,
        Some(DefaultValue::Literal(v)) => match v {
            Value::UInt(n) if matches!(c.data_type, DataType::Bit { .. }) => s(format!("b'{n:b}'")),
            Value::Int(_) | Value::UInt(_) => s(crate::show::table::literal_text(v, &c.data_type)),
            Value::Decimal(_) | Value::Double(_) => s(v.display_lossy()),
            other => s(format!(
                "'{}'",
                other
                    .display_lossy()
                    .replace('\\', "\\\\")
                    .replace('\'', "''")
            )),
        },
    }
}

fn key_of(def: &TableDef, ci: usize) -> &'static str {
    if def.indexes[0].columns.iter().any(|c| c.column == ci) {
        "PRI"
    } else if def
        .indexes
        .iter()
        .any(|i| i.kind == IndexKind::Unique && i.columns.len() == 1 && i.columns[0].column == ci)
    {
        "UNI"
    } else if def
        .indexes
        .iter()
        .any(|i| !i.columns.is_empty() && i.columns[0].column == ci)
    {
        "MUL"
    } else {
        ""
    }
}

fn columns(cx: &SessionCtx) -> Vec<Row> {
    let mut rows = Vec::new();
    let defs = all_tables(cx)
        .into_iter()
        .map(|(db, t)| (db, t.def()))
        .chain(super::views::view_defs(cx))
        .chain(super::innodb::defs())
        .chain(super::builtin::column_defs(cx));
    for (db, def) in defs {
        for (i, c) in def.columns.iter().enumerate() {
            let dt = &c.data_type;
            let [data_type, chars, octets, np, ns, dtp, charset, coll] = type_facts(dt);
            let extra = crate::show::table::extra_words(c);
            rows.push(vec![
                s("def"),
                s(&db),
                s(&def.name),
                s(&c.name),
                Value::UInt(i as u64 + 1),
                column_default(c),
                s(if c.nullable { "YES" } else { "NO" }),
                data_type,
                chars,
                octets,
                np,
                ns,
                dtp,
                charset,
                coll,
                s(dt.sql_name()),
                s(key_of(&def, i)),
                s(extra.join(" ")),
                s("select,insert,update,references"),
                s(&c.comment),
                s(if c.generated.is_some() {
                    "ALWAYS"
                } else {
                    "NEVER"
                }),
                c.generated
                    .as_ref()
                    .map_or(Value::Null, |g| s(g.expr.as_str())),
            ]);
        }
    }
    rows
}

const STATISTICS_COLS: &[(&str, Col)] = &[
    ("TABLE_CATALOG", Str(512)),
    ("TABLE_SCHEMA", Str(64)),
    ("TABLE_NAME", Str(64)),
    ("NON_UNIQUE", Int),
    ("INDEX_SCHEMA", Str(64)),
    ("INDEX_NAME", Str(64)),
    ("SEQ_IN_INDEX", UInt),
    ("COLUMN_NAME", Str(64)),
    ("COLLATION", OptStr(1)),
    ("CARDINALITY", Int),
    ("SUB_PART", Int),
    ("PACKED", OptStr(10)),
    ("NULLABLE", Str(3)),
    ("INDEX_TYPE", Str(16)),
    ("COMMENT", OptStr(16)),
    ("INDEX_COMMENT", Str(1024)),
    ("IGNORED", Str(3)),
];

fn statistics(cx: &SessionCtx) -> Vec<Row> {
    let mut rows = Vec::new();
    for (db, t) in all_tables(cx) {
        let def = t.def();
        let stats = t.stats();
        for idx in def.indexes.iter().filter(|i| !i.columns.is_empty()) {
            // CARDINALITY as SHOW INDEX gives it: the distinct prefixes ANALYZE
            // (or the background refresh) counted.
            let distinct = stats
                .indexes
                .iter()
                .find(|x| x.index_id == idx.id)
                .map(|x| x.distinct.clone())
                .unwrap_or_default();
            for (seq, kc) in idx.columns.iter().enumerate() {
                let col = &def.columns[kc.column];
                let card = distinct.get(seq).copied().unwrap_or(0).min(stats.rows);
                rows.push(vec![
                    s("def"),
                    s(&db),
                    s(&def.name),
                    Value::Int(!idx.is_unique() as i64),
                    s(&db),
                    s(&idx.name),
                    Value::UInt(seq as u64 + 1),
                    s(&col.name),
                    s(if kc.descending { "D" } else { "A" }),
                    Value::Int(card as i64),
                    kc.prefix_len.map_or(Value::Null, |p| Value::Int(p as i64)),
                    Value::Null,
                    s(if col.nullable { "YES" } else { "" }),
                    s("BTREE"),
                    s(""),
                    s(&idx.comment),
                    s("NO"),
                ]);
            }
        }
    }
    rows
}

const KCU_COLS: &[(&str, Col)] = &[
    ("CONSTRAINT_CATALOG", Str(512)),
    ("CONSTRAINT_SCHEMA", Str(64)),
    ("CONSTRAINT_NAME", Str(64)),
    ("TABLE_CATALOG", Str(512)),
    ("TABLE_SCHEMA", Str(64)),
    ("TABLE_NAME", Str(64)),
    ("COLUMN_NAME", Str(64)),
    ("ORDINAL_POSITION", UInt),
    ("POSITION_IN_UNIQUE_CONSTRAINT", UInt),
    ("REFERENCED_TABLE_SCHEMA", OptStr(64)),
    ("REFERENCED_TABLE_NAME", OptStr(64)),
    ("REFERENCED_COLUMN_NAME", OptStr(64)),
];

fn key_column_usage(cx: &SessionCtx) -> Vec<Row> {
    let mut rows = Vec::new();
    for (db, t) in all_tables(cx) {
        let def = t.def();
        for idx in def
            .indexes
            .iter()
            .filter(|i| i.is_unique() && !i.columns.is_empty())
        {
            for (seq, kc) in idx.columns.iter().enumerate() {
                rows.push(vec![
                    s("def"),
                    s(&db),
                    s(&idx.name),
                    s("def"),
                    s(&db),
                    s(&def.name),
                    s(&def.columns[kc.column].name),
                    Value::UInt(seq as u64 + 1),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                ]);
            }
        }
        for fk in &def.foreign_keys {
            rows.extend(super::foreign_keys::key_column_usage(&db, &def.name, fk));
        }
    }
    rows
}

fn table_constraints(cx: &SessionCtx) -> Vec<Row> {
    let mut rows = Vec::new();
    for (db, t) in all_tables(cx) {
        let def = t.def();
        for idx in def
            .indexes
            .iter()
            .filter(|i| i.is_unique() && !i.columns.is_empty())
        {
            let kind = if idx.kind == IndexKind::Primary {
                "PRIMARY KEY"
            } else {
                "UNIQUE"
            };
            rows.push(vec![
                s("def"),
                s(&db),
                s(&idx.name),
                s(&db),
                s(&def.name),
                s(kind),
            ]);
        }
        for fk in &def.foreign_keys {
            rows.push(vec![
                s("def"),
                s(&db),
                s(&fk.name),
                s(&db),
                s(&def.name),
                s("FOREIGN KEY"),
            ]);
        }
        for c in &def.checks {
            rows.push(vec![
                s("def"),
                s(&db),
                s(&c.name),
                s(&db),
                s(&def.name),
                s("CHECK"),
            ]);
        }
    }
    rows
}
