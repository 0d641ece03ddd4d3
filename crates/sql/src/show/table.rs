//! SHOW TABLES / COLUMNS / INDEX / CREATE TABLE / TABLE STATUS.

use super::{filter, result, R};
use crate::front::native::ShowFilter;
use crate::result::{int_col, opt_s, s, text_col, text_col_nn, QueryResult};
use crate::session::Session;
use basalt_common::{ColumnDef, DataType, DefaultValue, IndexKind, MySqlError, TableDef, Value};
use basalt_storage::Table;
use std::sync::Arc;

fn db_or_current(session: &Session, db: Option<String>) -> R<String> {
    match db {
        Some(d) => Ok(d),
        None => session.cx.db.clone().ok_or_else(MySqlError::no_db),
    }
}

fn open(session: &Session, db: &str, table: &str) -> R<Arc<dyn Table>> {
    if crate::infoschema::is_schema(db) {
        return crate::infoschema::open(table, &session.cx);
    }
    if crate::perfschema::is_schema(db) {
        return crate::perfschema::open(table, &session.cx);
    }
    if !session.cx.engine.storage.database_exists(db) && !crate::sysschema::is_schema(db) {
        return Err(MySqlError::bad_db(db));
    }
    if let Some(t) = session.cx.temp.table(db, table) {
        return Ok(t);
    }
    let storage = &session.cx.engine.storage;
    let view = match crate::sysschema::is_schema(db) {
        true => crate::sysschema::view_def(table),
        false => storage.view(db, table),
    };
    if let Some(v) = view {
        let cols = crate::bind::view::view_columns(storage, &session.cx, &v)?;
        let def = crate::infoschema::columns_def(db, table, cols);
        return Ok(Arc::new(crate::infoschema::VirtualTable::new(
            def,
            Vec::new(),
        )));
    }
    if let Some(t) = storage.table(db, table) {
        return Ok(t);
    }
    let collation = storage
        .database_collation(db)
        .unwrap_or(session.cx.engine.config.collation_server);
    if let Some(t) = crate::seq_engine::open(db, table, collation) {
        return t;
    }
    crate::system_tables::open(&session.cx.engine, db, table)
        .ok_or_else(|| MySqlError::no_such_table(db, table))
}

fn storage_view(session: &Session, db: &str, name: &str) -> bool {
    session.cx.engine.storage.view(db, name).is_some()
}

pub fn show_tables(
    session: &mut Session,
    full: bool,
    db: Option<String>,
    f: ShowFilter,
) -> R<QueryResult> {
    let db = db_or_current(session, db)?;
    session.check_show_tables(&db)?;
    let mut names = if crate::infoschema::is_schema(&db) {
        crate::infoschema::table_names()
    } else if crate::perfschema::is_schema(&db) {
        crate::perfschema::table_names()
    } else if crate::sysschema::is_schema(&db) {
        crate::sysschema::view_names()
    } else {
        let storage = &session.cx.engine.storage;
        let mut names = storage.tables(&db).map_err(MySqlError::from)?;
        let views: Vec<String> = storage.views(&db).iter().map(|v| v.name.clone()).collect();
        if !views.is_empty() {
            names.extend(views);
            names.sort();
        }
        if db == crate::system_tables::DB {
            names.extend(
                crate::system_tables::all(&session.cx.engine)
                    .into_iter()
                    .map(|(_, t)| t.def().name.clone()),
            );
            names.sort();
        }
        names
    };
    names.retain(|t| session.cx.may_see_table(&db, t));
    let base = format!("Tables_in_{db}");
    let col = match &f {
        ShowFilter::Like(p) => format!("{base} ({p})"),
        _ => base.clone(),
    };
    let rows = names
        .into_iter()
        .map(|n| {
            if full {
                let kind = if storage_view(session, &db, &n) {
                    "VIEW"
                } else if session
                    .cx
                    .engine
                    .storage
                    .table(&db, &n)
                    .is_some_and(|t| crate::sequence::is_sequence(&t.def()))
                {
                    "SEQUENCE"
                } else {
                    "BASE TABLE"
                };
                vec![s(n), s(kind)]
            } else {
                vec![s(n)]
            }
        })
        .collect();
    let mut cols = vec![text_col_nn(&col, 64)];
    let mut names = vec![base.as_str()];
    if full {
        cols.push(text_col_nn("Table_type", 64));
        names.push("Table_type");
    }
    let rows = filter(session, rows, &names, &f)?;
    result(cols, rows)
}

/// PRI / UNI / MUL as SHOW COLUMNS prints them.
fn key_flag(def: &TableDef, ci: usize) -> &'static str {
    if def.indexes[0].columns.iter().any(|c| c.column == ci) {
        return "PRI";
    }
    let first = |k: IndexKind, single: bool| {
        def.indexes.iter().any(|i| {
            i.kind == k
                && i.columns.first().is_some_and(|c| c.column == ci)
                && (!single || i.columns.len() == 1)
        })
    };
    if first(IndexKind::Unique, true) {
        "UNI"
    } else if first(IndexKind::NonUnique, false) || first(IndexKind::Unique, false) {
        "MUL"
    } else {
        ""
    }
}

/// A default value as SHOW COLUMNS prints it (None: NULL).
fn default_text(c: &ColumnDef) -> Option<String> {
    match &c.default {
        _ if c.generated.is_some() => None,
        Some(DefaultValue::CurrentTimestamp) => Some("current_timestamp()".into()),
        Some(DefaultValue::Expr(e)) => Some(expr_default_text(e)),
        Some(DefaultValue::Literal(Value::Null)) | None => None,
        Some(DefaultValue::Literal(v)) => Some(literal_text(v, &c.data_type)),
    }
}

pub(crate) fn literal_text(v: &Value, dt: &DataType) -> String {
    match v {
        Value::DateTime(d) => d.display(dt.fsp()).to_string(),
        Value::Time(t) => t.display(dt.fsp()).to_string(),
        Value::Int(_) | Value::UInt(_) if matches!(dt, DataType::Int { zerofill: true, .. }) => {
            let digits = v.display_lossy();
            let width = dt.display_width() as usize;
            format!("{}{digits}", "0".repeat(width.saturating_sub(digits.len())))
        }
        other => other.display_lossy(),
    }
}

fn extra(c: &ColumnDef) -> String {
    extra_words(c).join(" ")
}

/// The Extra of SHOW COLUMNS / information_schema.COLUMNS.EXTRA.
pub(crate) fn extra_words(c: &ColumnDef) -> Vec<&'static str> {
    let mut parts = Vec::new();
    if c.auto_increment {
        parts.push("auto_increment");
    }
    if c.on_update_current_timestamp {
        parts.push("on update current_timestamp()");
    }
    match &c.generated {
        Some(g) if g.stored => parts.push("STORED GENERATED"),
        Some(_) => parts.push("VIRTUAL GENERATED"),
        None => {}
    }
    if c.invisible {
        parts.push("INVISIBLE");
    }
    parts
}

/// A DEFAULT expression as MariaDB prints it: a lone function call as it is,
/// anything else in parentheses.
pub(crate) fn expr_default_text(text: &str) -> String {
    if is_call(text) {
        text.to_string()
    } else {
        format!("({text})")
    }
}

fn is_call(text: &str) -> bool {
    let Some(open) = text.find('(') else {
        return false;
    };
    let name = &text[..open];
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return false;
    }
    let lexed = crate::front::lexer::lex(text);
    let mut depth = 0i32;
    for t in &lexed.tokens {
        match t.text(text) {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return t.end == text.len();
                }
            }
            _ => {}
        }
    }
    false
}

pub fn column_rows(def: &TableDef, full: bool) -> Vec<Vec<Value>> {
    def.columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut row = vec![s(&c.name), s(c.data_type.sql_name())];
            if full {
                row.push(opt_s(
                    c.data_type
                        .collation()
                        .filter(|x| !x.is_binary())
                        .map(|x| x.name()),
                ));
            }
            row.push(s(if c.nullable { "YES" } else { "NO" }));
            row.push(s(key_flag(def, i)));
            row.push(opt_s(default_text(c)));
            row.push(s(extra(c)));
            if full {
                row.push(s("select,insert,update,references"));
                row.push(s(&c.comment));
            }
            row
        })
        .collect()
}

pub fn column_cols(full: bool) -> (Vec<basalt_common::ColumnMeta>, Vec<&'static str>) {
    let mut names = vec!["Field", "Type"];
    let mut cols = vec![text_col_nn("Field", 64), text_col_nn("Type", 196_605)];
    if full {
        names.push("Collation");
        cols.push(text_col("Collation", 64));
    }
    names.extend(["Null", "Key", "Default", "Extra"]);
    cols.extend([
        text_col_nn("Null", 3),
        text_col_nn("Key", 3),
        text_col("Default", 196_596),
        text_col_nn("Extra", 80),
    ]);
    if full {
        names.extend(["Privileges", "Comment"]);
        cols.extend([text_col_nn("Privileges", 80), text_col_nn("Comment", 1024)]);
    }
    for c in cols.iter_mut() {
        if c.length > 65_535 {
            c.column_type = basalt_common::ColumnType::Blob;
        }
    }
    (cols, names)
}

pub fn show_columns(
    session: &mut Session,
    full: bool,
    table: &str,
    db: Option<String>,
    f: ShowFilter,
) -> R<QueryResult> {
    let db = db_or_current(session, db)?;
    let def = open(session, &db, table)?.def();
    let rows = column_rows(&def, full);
    let (cols, names) = column_cols(full);
    let rows = filter(session, rows, &names, &f)?;
    result(cols, rows)
}

pub fn show_index(
    session: &mut Session,
    table: &str,
    db: Option<String>,
    f: ShowFilter,
) -> R<QueryResult> {
    let db = db_or_current(session, db)?;
    let t = open(session, &db, table)?;
    let def = t.def();
    let stats = t.stats();
    let mut rows = Vec::new();
    for idx in def.indexes.iter().filter(|i| !i.columns.is_empty()) {
        let distinct = stats
            .indexes
            .iter()
            .find(|x| x.index_id == idx.id)
            .map(|x| x.distinct.clone())
            .unwrap_or_default();
        for (seq, kc) in idx.columns.iter().enumerate() {
            let col = &def.columns[kc.column];
            rows.push(vec![
                s(&def.name),
                Value::Int(!idx.is_unique() as i64),
                s(&idx.name),
                Value::Int(seq as i64 + 1),
                s(&col.name),
                s(if kc.descending { "D" } else { "A" }),
                Value::Int(distinct.get(seq).copied().unwrap_or(0).min(stats.rows) as i64),
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
    let names = [
        "Table",
        "Non_unique",
        "Key_name",
        "Seq_in_index",
        "Column_name",
        "Collation",
        "Cardinality",
        "Sub_part",
        "Packed",
        "Null",
        "Index_type",
        "Comment",
        "Index_comment",
        "Ignored",
    ];
    let rows = filter(session, rows, &names, &f)?;
    let cols = vec![
        text_col_nn("Table", 64),
        int_col("Non_unique", 1, false),
        text_col_nn("Key_name", 64),
        int_col("Seq_in_index", 2, true),
        text_col_nn("Column_name", 64),
        text_col("Collation", 1),
        int_col("Cardinality", 21, false),
        int_col("Sub_part", 3, false),
        text_col("Packed", 10),
        text_col_nn("Null", 3),
        text_col_nn("Index_type", 16),
        text_col("Comment", 16),
        text_col_nn("Index_comment", 1024),
        text_col_nn("Ignored", 3),
    ];
    result(cols, rows)
}

fn quote_ident(n: &str) -> String {
    format!("`{}`", n.replace('`', "``"))
}

pub(super) fn quote_str(v: &str) -> String {
    format!("'{}'", v.replace('\\', "\\\\").replace('\'', "''"))
}

fn column_line(c: &ColumnDef, def: &TableDef) -> String {
    let mut line = format!("  {} {}", quote_ident(&c.name), c.data_type.sql_name());
    if let Some(coll) = c.data_type.collation().filter(|x| !x.is_binary()) {
        if coll != def.collation {
            line.push_str(&format!(
                " CHARACTER SET {} COLLATE {}",
                coll.charset().name(),
                coll.name()
            ));
        }
    }
    let enum_set = matches!(c.data_type, DataType::Enum { .. } | DataType::Set { .. });
    if enum_set
        && c.data_type.collation().is_some_and(|x| x.is_binary())
        && !def.collation.is_binary()
    {
        line.push_str(" CHARACTER SET binary");
    }
    if !c.nullable {
        line.push_str(" NOT NULL");
    } else if matches!(c.data_type, DataType::Timestamp { .. }) {
        line.push_str(" NULL");
    }
    if let Some(g) = &c.generated {
        let kind = if g.stored { "STORED" } else { "VIRTUAL" };
        line.push_str(&format!(" GENERATED ALWAYS AS ({}) {kind}", g.expr));
        if c.invisible {
            line.push_str(" INVISIBLE");
        }
        if !c.comment.is_empty() {
            line.push_str(&format!(" COMMENT {}", quote_str(&c.comment)));
        }
        return line;
    }
    if c.invisible {
        line.push_str(" INVISIBLE");
    }
    match &c.default {
        Some(DefaultValue::CurrentTimestamp) => line.push_str(" DEFAULT current_timestamp()"),
        Some(DefaultValue::Expr(e)) => {
            line.push_str(" DEFAULT ");
            line.push_str(&expr_default_text(e));
        }
        Some(DefaultValue::Literal(Value::Null)) => line.push_str(" DEFAULT NULL"),
        // MariaDB prints a BIT default as a bit literal.
        Some(DefaultValue::Literal(v)) if matches!(c.data_type, DataType::Bit { .. }) => {
            line.push_str(&format!(
                " DEFAULT b'{:b}'",
                crate::value::to_num(v).0.to_i64().unwrap_or(0) as u64
            ));
        }
        Some(DefaultValue::Literal(v)) => {
            let text = literal_text(v, &c.data_type);
            let numeric = matches!(
                v,
                Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_)
            );
            line.push_str(" DEFAULT ");
            line.push_str(&if numeric { text } else { quote_str(&text) });
        }
        None if c.nullable && !c.auto_increment => line.push_str(" DEFAULT NULL"),
        None => {}
    }
    if c.auto_increment {
        line.push_str(" AUTO_INCREMENT");
    }
    if c.on_update_current_timestamp {
        line.push_str(" ON UPDATE current_timestamp()");
    }
    if !c.comment.is_empty() {
        line.push_str(&format!(" COMMENT {}", quote_str(&c.comment)));
    }
    if let Some(chk) = def
        .checks
        .iter()
        .find(|k| k.column_level && k.name.eq_ignore_ascii_case(&c.name))
    {
        line.push_str(&format!(" CHECK ({})", chk.expr));
    }
    line
}

/// The CREATE TABLE statement MariaDB prints for a table.
pub fn create_table_text(t: &dyn Table) -> String {
    let def = t.def();
    let mut lines: Vec<String> = def.columns.iter().map(|c| column_line(c, &def)).collect();
    for idx in def.indexes.iter().filter(|i| !i.columns.is_empty()) {
        let cols: Vec<String> = idx
            .columns
            .iter()
            .map(|kc| {
                let mut x = quote_ident(&def.columns[kc.column].name);
                if let Some(p) = kc.prefix_len {
                    x.push_str(&format!("({p})"));
                }
                if kc.descending {
                    x.push_str(" DESC");
                }
                x
            })
            .collect();
        let head = match idx.kind {
            IndexKind::Primary => "PRIMARY KEY".to_string(),
            IndexKind::Unique => format!("UNIQUE KEY {}", quote_ident(&idx.name)),
            IndexKind::NonUnique => format!("KEY {}", quote_ident(&idx.name)),
        };
        let mut line = format!("  {head} ({})", cols.join(","));
        if !idx.comment.is_empty() {
            line.push_str(&format!(" COMMENT {}", quote_str(&idx.comment)));
        }
        lines.push(line);
    }
    for fk in &def.foreign_keys {
        lines.push(format!(
            "  CONSTRAINT {} {}",
            quote_ident(&fk.name),
            fk.clause(&def.schema)
        ));
    }
    for chk in def.checks.iter().filter(|k| !k.column_level) {
        lines.push(format!(
            "  CONSTRAINT {} CHECK ({})",
            quote_ident(&chk.name),
            chk.expr
        ));
    }
    let mut text = format!(
        "CREATE TABLE {} (\n{}\n) ENGINE={}",
        quote_ident(&def.name),
        lines.join(",\n"),
        def.engine.name()
    );
    if def.auto_increment_column().is_some() {
        let next = t.peek_auto_increment();
        if next > 1 {
            text.push_str(&format!(" AUTO_INCREMENT={next}"));
        }
    }
    text.push_str(&format!(" DEFAULT CHARSET={}", def.charset.name()));
    // The binary character set has one collation, which MariaDB does not name.
    if def.collation != basalt_common::Collation::Binary {
        text.push_str(&format!(" COLLATE={}", def.collation.name()));
    }
    text.push_str(&crate::bind::options::show_text(&def.options));
    if !def.comment.is_empty() {
        text.push_str(&format!(" COMMENT={}", quote_str(&def.comment)));
    }
    text.push_str(&crate::partitioning::show::clause(&def));
    text
}

pub fn show_create_table(session: &mut Session, db: Option<String>, table: &str) -> R<QueryResult> {
    let db = db_or_current(session, db)?;
    let temp = session.cx.temp.contains(&db, table);
    if !temp {
        session.cx.require_any_on_table(&db, table, "SHOW")?;
    }
    if !temp && session.cx.engine.storage.view(&db, table).is_some() {
        return show_create_view(session, Some(db), table);
    }
    let t = open(session, &db, table)?;
    let mut text = if crate::sequence::is_sequence(&t.def()) {
        crate::session::sequence::create_table_text(&t.def())
    } else if t.def().engine == basalt_common::EngineKind::Sequence {
        crate::seq_engine::create_table_text(&t.def())
    } else {
        create_table_text(t.as_ref())
    };
    if temp {
        text.replace_range(.."CREATE TABLE".len(), "CREATE TEMPORARY TABLE");
    }
    result(
        vec![text_col_nn("Table", 64), text_col_nn("Create Table", 1024)],
        vec![vec![s(table), s(text)]],
    )
}

/// `SHOW CREATE VIEW` (also what SHOW CREATE TABLE answers for a view).
pub fn show_create_view(session: &mut Session, db: Option<String>, name: &str) -> R<QueryResult> {
    let db = db_or_current(session, db)?;
    let storage = session.cx.engine.storage.clone();
    let v = crate::session::view::show_create_view(&storage, &db, name)?;
    result(
        vec![
            text_col_nn("View", 64),
            text_col_nn("Create View", 1024),
            text_col_nn("character_set_client", 32),
            text_col_nn("collation_connection", 32),
        ],
        vec![vec![
            s(name),
            s(crate::session::view::create_statement(&v)),
            s(v.character_set_client.clone()),
            s(v.collation_connection.clone()),
        ]],
    )
}

pub fn show_table_status(
    session: &mut Session,
    db: Option<String>,
    f: ShowFilter,
) -> R<QueryResult> {
    let db = db_or_current(session, db)?;
    let storage = session.cx.engine.storage.clone();
    let mut names = storage.tables(&db).map_err(MySqlError::from)?;
    names.extend(storage.views(&db).iter().map(|v| v.name.clone()));
    names.sort();
    let mut rows = Vec::new();
    for n in names {
        if let Some(v) = storage.view(&db, &n) {
            rows.push(crate::infoschema::views::status_row(&v));
            continue;
        }
        let Some(t) = storage.table(&db, &n) else {
            continue;
        };
        let def = t.def();
        let st = t.stats();
        let avg = st.data_bytes.checked_div(st.rows).unwrap_or(0);
        let ai = def
            .auto_increment_column()
            .map_or(Value::Null, |_| Value::UInt(t.peek_auto_increment()));
        rows.push(vec![
            s(&def.name),
            s(def.engine.name()),
            Value::Int(10),
            s(crate::infoschema::tables::row_format(&def)),
            Value::UInt(st.rows),
            Value::UInt(avg),
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
        ]);
    }
    let names = [
        "Name",
        "Engine",
        "Version",
        "Row_format",
        "Rows",
        "Avg_row_length",
        "Data_length",
        "Max_data_length",
        "Index_length",
        "Data_free",
        "Auto_increment",
        "Create_time",
        "Update_time",
        "Check_time",
        "Collation",
        "Checksum",
        "Create_options",
        "Comment",
        "Max_index_length",
        "Temporary",
    ];
    let rows = filter(session, rows, &names, &f)?;
    let cols = names
        .iter()
        .enumerate()
        .map(|(i, n)| match i {
            2 | 4..=10 | 15 | 18 => int_col(n, 21, true),
            11..=13 => {
                let mut m = text_col(n, 19);
                m.column_type = basalt_common::ColumnType::DateTime;
                m
            }
            _ => text_col(n, 64),
        })
        .collect();
    result(cols, rows)
}
