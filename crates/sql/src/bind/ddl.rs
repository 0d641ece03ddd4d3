//! CREATE TABLE / CREATE INDEX binding: columns (their types in
//! [`super::column_type`]), options, keys and table options to a [`TableDef`] /
//! [`IndexDef`], with MariaDB's validation errors.

pub use super::column_type::data_type;
use crate::exec::store::{store, Target};
use crate::session::ctx::SessionCtx;
use basalt_common::error::code;
use basalt_common::{
    Charset, Collation, ColumnDef, DataType, DefaultValue, EngineKind, IndexColumn, IndexDef,
    IndexKind, IntKind, LobKind, MySqlError, TableDef, Value,
};
use basalt_storage::Storage;
use sqlparser::ast::{self, ColumnOption, DataType as D, TableConstraint};

type R<T> = Result<T, MySqlError>;

/// Largest key InnoDB accepts with the default row format.
const MAX_KEY_BYTES: u32 = 3072;

pub struct TableOptions {
    pub engine: EngineKind,
    pub charset: Option<Charset>,
    pub collation: Option<Collation>,
    pub auto_increment: Option<u64>,
    pub comment: String,
    /// Options recorded for SHOW CREATE TABLE (see [`super::options`]).
    pub recorded: Vec<(String, String)>,
}

/// `[db.]name` resolved against the session's current database.
pub fn qualified(name: &ast::ObjectName, cx: &SessionCtx) -> R<(String, String)> {
    let parts = super::object_parts(name);
    match parts.as_slice() {
        [t] => Ok((cx.db.clone().ok_or_else(MySqlError::no_db)?, t.clone())),
        [d, t] => Ok((d.clone(), t.clone())),
        _ => Err(MySqlError::parse_error(&name.to_string(), 1)),
    }
}

/// CREATE TABLE to a table definition.
pub fn create_table_def(
    storage: &Storage,
    ct: &ast::CreateTable,
    cx: &mut SessionCtx,
) -> R<TableDef> {
    let (db, name) = qualified(&ct.name, cx)?;
    check_ident(&name, false)?;
    let opts = table_options(ct, (&db, &name), cx)?;
    let db_coll = storage
        .database_collation(&db)
        .unwrap_or(Collation::Utf8mb4GeneralCi);
    let table_coll = match (opts.collation, opts.charset) {
        (Some(c), _) => c,
        (None, Some(cs)) => cs.default_collation(),
        (None, None) => db_coll,
    };
    if ct.columns.is_empty() {
        return Err(MySqlError::parse_error(")", 1));
    }
    let mut columns: Vec<ColumnDef> = Vec::new();
    let mut indexes: Vec<IndexDef> = Vec::new();
    for c in &ct.columns {
        if columns
            .iter()
            .any(|x| x.name.eq_ignore_ascii_case(&c.name.value))
        {
            return Err(MySqlError::dup_fieldname(&c.name.value));
        }
        let (col, keys, note) = column_def(c, table_coll, cx)?;
        if let Some(n) = note {
            cx.warn(crate::session::ctx::Level::Note, 1246, n);
        }
        let ci = columns.len();
        columns.push(col);
        for kind in keys {
            indexes.push(IndexDef {
                id: 0,
                name: if kind == IndexKind::Primary {
                    "PRIMARY".into()
                } else {
                    String::new()
                },
                kind,
                columns: vec![IndexColumn {
                    column: ci,
                    prefix_len: None,
                    descending: false,
                }],
                comment: String::new(),
            });
        }
    }
    for tc in &ct.constraints {
        if let Some(idx) = constraint_index(tc, &columns)? {
            indexes.push(idx);
        }
    }
    let checks = super::check::collect(ct, &columns)?;
    let foreign_keys = foreign_keys_of_create(ct, (&db, &name), &columns, &mut indexes, cx)?;
    let indexes = finish_indexes(indexes, &mut columns, cx)?;
    for col in columns.iter_mut() {
        resolve_default(col, &db, &name, cx)?;
    }
    check_auto_increment(&columns, &indexes)?;
    let next_index_id = indexes.len() as u32;
    Ok(TableDef {
        id: 0,
        schema: db,
        name,
        columns,
        indexes,
        engine: opts.engine,
        charset: table_coll.charset(),
        collation: table_coll,
        comment: opts.comment,
        auto_increment_start: opts.auto_increment.unwrap_or(1).max(1),
        next_index_id,
        checks,
        options: opts.recorded,
        foreign_keys,
        partitioning: None,
    })
}

/// The FOREIGN KEY constraints of a CREATE TABLE; adds the child indexes they need.
fn foreign_keys_of_create(
    ct: &ast::CreateTable,
    (db, name): (&str, &str),
    columns: &[ColumnDef],
    indexes: &mut Vec<IndexDef>,
    cx: &SessionCtx,
) -> R<Vec<basalt_common::ForeignKeyDef>> {
    let specs = super::foreign_key::specs_of_create(ct)?;
    if specs.is_empty() {
        return Ok(Vec::new());
    }
    let child = super::foreign_key::Child {
        schema: db,
        name,
        columns,
        indexes,
        existing: &[],
    };
    let got = super::foreign_key::resolve(cx, &child, &specs)?;
    indexes.extend(got.indexes);
    Ok(got.keys)
}

/// `CREATE [UNIQUE] INDEX name ON t (cols)` / `ALTER TABLE ADD INDEX`.
pub fn index_def(
    def: &TableDef,
    name: Option<String>,
    unique: bool,
    cols: &[ast::IndexColumn],
    cx: &mut SessionCtx,
) -> R<IndexDef> {
    let columns = index_columns(cols, &def.columns)?;
    let name = match name {
        Some(n) => n,
        None => auto_index_name(&def.columns[columns[0].column].name, &def.indexes),
    };
    if def
        .indexes
        .iter()
        .any(|i| i.name.eq_ignore_ascii_case(&name))
    {
        return Err(MySqlError::dup_keyname(&name));
    }
    let mut idx = IndexDef {
        id: 0,
        name,
        kind: if unique {
            IndexKind::Unique
        } else {
            IndexKind::NonUnique
        },
        columns,
        comment: String::new(),
    };
    implicit_prefixes(&mut idx, &def.columns, cx);
    note_duplicate(&idx, &def.indexes[1..], cx);
    check_key(&idx, &def.columns)?;
    Ok(idx)
}

/// Validates a database or table name (1102 / 1103 / 1059).
pub fn check_ident(name: &str, is_db: bool) -> R<()> {
    if name.chars().count() > 64 {
        return Err(MySqlError::too_long_ident(name));
    }
    if name.is_empty() || name.ends_with(' ') || name.contains('/') || name.contains('\\') {
        return Err(if is_db {
            MySqlError::wrong_db_name(name)
        } else {
            MySqlError::wrong_table_name(name)
        });
    }
    Ok(())
}

pub(crate) fn table_options(
    ct: &ast::CreateTable,
    (db, table): (&str, &str),
    cx: &mut SessionCtx,
) -> R<TableOptions> {
    let (opts, comment) = (&ct.table_options, ct.comment.as_ref());
    let mut out = TableOptions {
        engine: EngineKind::Basalt,
        charset: None,
        collation: None,
        auto_increment: None,
        comment: String::new(),
        recorded: Vec::new(),
    };
    if let Some(c) = comment {
        out.comment = comment_text(c);
    }
    let explicit = table_options_list(opts).iter().any(|o| match o {
        ast::SqlOption::NamedParenthesizedList(n) => n.key.value.eq_ignore_ascii_case("engine"),
        ast::SqlOption::KeyValue { key, .. } => super::object_parts(key)
            .join(" ")
            .eq_ignore_ascii_case("engine"),
        _ => false,
    });
    if !explicit {
        let tmp = match cx.vars.get("default_tmp_storage_engine") {
            Some(Value::Null) | None => None,
            Some(v) => Some(v.display_lossy()),
        };
        let default = match tmp {
            Some(engine) if ct.temporary => engine,
            _ => cx.var_text("default_storage_engine"),
        };
        out.engine = engine_kind(&default, table, cx)?;
    }
    let list = match opts {
        ast::CreateTableOptions::None => return Ok(out),
        ast::CreateTableOptions::Plain(l)
        | ast::CreateTableOptions::With(l)
        | ast::CreateTableOptions::Options(l)
        | ast::CreateTableOptions::TableProperties(l) => l,
    };
    for o in list {
        match o {
            ast::SqlOption::NamedParenthesizedList(n)
                if n.key.value.eq_ignore_ascii_case("engine") =>
            {
                let e = n.name.as_ref().map(|i| i.value.clone()).unwrap_or_default();
                out.engine = engine_kind(&e, table, cx)?;
            }
            ast::SqlOption::KeyValue { key, value } => {
                let k = super::object_parts(key).join(" ").to_ascii_uppercase();
                let v = option_text(value);
                match k.as_str() {
                    "ENGINE" => out.engine = engine_kind(&v, table, cx)?,
                    "DEFAULT CHARSET" | "CHARSET" | "CHARACTER SET" | "DEFAULT CHARACTER SET" => {
                        out.charset = Some(
                            Charset::from_name(&v)
                                .ok_or_else(|| MySqlError::unknown_character_set(&v))?,
                        )
                    }
                    "COLLATE" | "DEFAULT COLLATE" => {
                        out.collation = Some(
                            Collation::from_name(&v)
                                .ok_or_else(|| MySqlError::unknown_collation(&v))?,
                        )
                    }
                    "AUTO_INCREMENT" => out.auto_increment = v.parse().ok(),
                    "COMMENT" => out.comment = v,
                    _ => super::options::table_option(&k, &v, &mut out.recorded, cx, (db, table))?,
                }
            }
            ast::SqlOption::Comment(c) => out.comment = comment_text(c),
            other => return Err(MySqlError::not_supported(&format!("table option {other}"))),
        }
    }
    super::options::sort(&mut out.recorded);
    Ok(out)
}

fn table_options_list(opts: &ast::CreateTableOptions) -> &[ast::SqlOption] {
    match opts {
        ast::CreateTableOptions::None => &[],
        ast::CreateTableOptions::Plain(l)
        | ast::CreateTableOptions::With(l)
        | ast::CreateTableOptions::Options(l)
        | ast::CreateTableOptions::TableProperties(l) => l,
    }
}

fn comment_text(c: &ast::CommentDef) -> String {
    match c {
        ast::CommentDef::WithEq(s) | ast::CommentDef::WithoutEq(s) => s.clone(),
    }
}

fn option_text(e: &ast::Expr) -> String {
    match e {
        ast::Expr::Identifier(i) => i.value.clone(),
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
            ast::Value::Number(n, _) => n.clone(),
            other => other.to_string(),
        },
        other => other.to_string(),
    }
}

/// Maps an ENGINE= name. Engines MariaDB has but Basalt does not (MyISAM, Aria)
/// become the transactional engine, with MariaDB's substitution warning 1266 (the
/// table is transactional, unlike MyISAM's). An unknown name fails with 1286
/// under NO_ENGINE_SUBSTITUTION; otherwise it is replaced by the default engine
/// with MariaDB's two warnings.
pub fn engine_kind(name: &str, table: &str, cx: &mut SessionCtx) -> R<EngineKind> {
    match name.to_ascii_lowercase().as_str() {
        "innodb" | "basalt" | "xtradb" => Ok(EngineKind::Basalt),
        "myisam" | "aria" => {
            cx.warn(
                crate::session::ctx::Level::Warning,
                1266,
                format!("Using storage engine InnoDB for table '{table}'"),
            );
            Ok(EngineKind::Basalt)
        }
        "memory" | "heap" => Ok(EngineKind::Memory),
        _ if cx.mode.no_engine_substitution => Err(MySqlError::unknown_storage_engine(name)),
        _ => {
            let e = MySqlError::unknown_storage_engine(name);
            cx.warn(crate::session::ctx::Level::Warning, e.code, e.message);
            cx.warn(
                crate::session::ctx::Level::Warning,
                1266,
                format!("Using storage engine InnoDB for table '{table}'"),
            );
            Ok(EngineKind::Basalt)
        }
    }
}

/// A VARCHAR / VARBINARY too long for its type outside strict mode: the TEXT /
/// BLOB type that holds it, and MariaDB's note 1246 saying so.
fn long_varchar(dt: &D, coll: Collation, name: &str) -> Option<(DataType, String)> {
    let (len, coll, from, to) = match dt {
        D::Varchar(n) | D::CharacterVarying(n) | D::CharVarying(n) | D::Nvarchar(n) => {
            (super::column_type::len_of(n)?, coll, "VARCHAR", "TEXT")
        }
        D::Varbinary(Some(ast::BinaryLength::IntegerLength { length })) => {
            (*length, Collation::Binary, "VARBINARY", "BLOB")
        }
        _ => return None,
    };
    let bytes = len.saturating_mul(coll.charset().max_len() as u64);
    let kind = if bytes < 1 << 24 {
        LobKind::Medium
    } else {
        LobKind::Long
    };
    let note = format!("Converting column '{name}' from {from} to {to}");
    Some((
        DataType::Text {
            kind,
            collation: coll,
        },
        note,
    ))
}

/// A column definition, its keys, and the note 1246 when outside strict mode a
/// too long VARCHAR became a TEXT.
pub(crate) type BoundColumn = (ColumnDef, Vec<IndexKind>, Option<String>);

pub(crate) fn column_def(
    c: &ast::ColumnDef,
    table_coll: Collation,
    cx: &SessionCtx,
) -> R<BoundColumn> {
    let name = c.name.value.clone();
    if name.chars().count() > 64 {
        return Err(MySqlError::too_long_ident(&name));
    }
    let mut charset = None;
    let mut collation = None;
    let mut binary_attribute = false;
    for o in &c.options {
        match &o.option {
            ColumnOption::Collation(n)
                if super::object_parts(n).join(".")
                    == crate::front::column_words::BINARY_ATTRIBUTE =>
            {
                binary_attribute = true;
            }
            ColumnOption::CharacterSet(n) => {
                let s = super::object_parts(n).join(".");
                charset = Some(
                    Charset::from_name(&s).ok_or_else(|| MySqlError::unknown_character_set(&s))?,
                );
            }
            ColumnOption::Collation(n) => {
                let s = super::object_parts(n).join(".");
                collation = Some(
                    Collation::from_name(&s).ok_or_else(|| MySqlError::unknown_collation(&s))?,
                );
            }
            _ => {}
        }
    }
    let mut coll = collation
        .or(charset.map(Charset::default_collation))
        .unwrap_or(table_coll);
    if binary_attribute {
        // CHAR(n) BINARY: the `_bin` collation of the column's character set.
        let bin = format!("{}_bin", coll.charset().name());
        coll = Collation::from_name(&bin).unwrap_or(coll);
    }
    // SERIAL: BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE.
    let serial = matches!(&c.data_type, D::Custom(n, m)
        if m.is_empty() && super::object_parts(n).join(".").eq_ignore_ascii_case("serial"));
    let mut note = None;
    let data_type = match &c.data_type {
        // REAL_AS_FLOAT: REAL is FLOAT, not DOUBLE.
        D::Real if cx.mode.real_as_float => DataType::Float,
        _ if serial => DataType::int(IntKind::Big, true),
        other => match data_type(other, coll, &name) {
            Err(e) if e.code == code::ER_TOO_BIG_FIELDLENGTH && !cx.mode.strict => {
                let (t, n) = long_varchar(other, coll, &name).ok_or(e)?;
                note = Some(n);
                t
            }
            r => r?,
        },
    };
    let mut col = ColumnDef::new(name, data_type);
    let mut keys = Vec::new();
    if serial {
        col.nullable = false;
        col.auto_increment = true;
        keys.push(IndexKind::Unique);
    }
    let mut explicit_null = false;
    for o in &c.options {
        match &o.option {
            ColumnOption::Null => {
                col.nullable = true;
                explicit_null = true;
            }
            ColumnOption::NotNull => col.nullable = false,
            ColumnOption::Default(e) => col.default = Some(default_expr(e, &col.name, cx)?),
            ColumnOption::PrimaryKey(_) => keys.push(IndexKind::Primary),
            ColumnOption::Unique(_) => keys.push(IndexKind::Unique),
            ColumnOption::Comment(s) => col.comment = s.clone(),
            ColumnOption::OnUpdate(e) => {
                on_update(e, &col)?;
                col.on_update_current_timestamp = true;
            }
            ColumnOption::Check(_) => {}
            // Bound with the table's constraints (`foreign_key::specs_of_create`).
            ColumnOption::ForeignKey(_) => {}
            ColumnOption::Generated {
                generated_as,
                sequence_options: None,
                generation_expr: Some(e),
                generation_expr_mode,
                ..
            } if *generated_as != ast::GeneratedAs::ByDefault => {
                col.generated = Some(super::computed::generated_def(
                    e,
                    *generation_expr_mode == Some(ast::GeneratedExpressionMode::Stored),
                    &col.name,
                )?);
            }
            ColumnOption::Generated { .. }
            | ColumnOption::Materialized(_)
            | ColumnOption::Alias(_)
            | ColumnOption::Ephemeral(_)
            | ColumnOption::Identity(_) => {
                return Err(MySqlError::not_supported("generated columns"))
            }
            ColumnOption::Invisible => col.invisible = true,
            ColumnOption::CharacterSet(_) | ColumnOption::Collation(_) => {}
            ColumnOption::DialectSpecific(toks) => {
                let t: String = toks
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
                    .to_ascii_uppercase();
                if t.contains("AUTO_INCREMENT") {
                    col.auto_increment = true;
                }
                if t.contains("PRIMARY") {
                    keys.push(IndexKind::Primary);
                }
                if !t.contains("AUTO_INCREMENT") && !t.contains("PRIMARY") {
                    return Err(MySqlError::parse_error(&t, 1));
                }
            }
            other => return Err(MySqlError::not_supported(&format!("column option {other}"))),
        }
    }
    super::computed::check_column_options(&col, &c.options)?;
    if keys.contains(&IndexKind::Primary) {
        if explicit_null {
            return Err(MySqlError::primary_cant_have_null());
        }
        col.nullable = false;
    }
    Ok((col, keys, note))
}

/// `ON UPDATE CURRENT_TIMESTAMP[(n)]` is the only ON UPDATE clause, and only for
/// DATETIME and TIMESTAMP columns (1294 otherwise, as MariaDB).
fn on_update(e: &ast::Expr, col: &ColumnDef) -> R<()> {
    let is_now = match e {
        ast::Expr::Function(f) => matches!(
            super::object_parts(&f.name)
                .join(".")
                .to_ascii_lowercase()
                .as_str(),
            "current_timestamp" | "now" | "localtime" | "localtimestamp"
        ),
        ast::Expr::Identifier(i) => matches!(
            i.value.to_ascii_lowercase().as_str(),
            "current_timestamp" | "localtime" | "localtimestamp"
        ),
        _ => false,
    };
    let temporal = matches!(
        col.data_type,
        DataType::DateTime { .. } | DataType::Timestamp { .. }
    );
    if is_now && temporal {
        Ok(())
    } else {
        Err(MySqlError::new(
            1294,
            "HY000",
            format!("Invalid ON UPDATE clause for '{}' column", col.name),
        ))
    }
}

/// Parses a DEFAULT clause; the literal is converted to the column type later.
pub(crate) fn default_expr(e: &ast::Expr, col: &str, cx: &SessionCtx) -> R<DefaultValue> {
    use ast::Expr as A;
    let e = super::chains::unnest(e);
    let lit = |v: &ast::Value| -> R<Value> {
        Ok(match v {
            ast::Value::Null => Value::Null,
            ast::Value::Number(n, _) => {
                let l = crate::front::lexer::lex(n);
                match l.tokens.first().map(|t| t.kind) {
                    Some(crate::front::lexer::TokKind::Num(k)) => crate::front::number(n, k).1,
                    _ => return Err(MySqlError::invalid_default(col)),
                }
            }
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => Value::str(s),
            ast::Value::HexStringLiteral(h) => Value::Bytes(
                super::typing::decode_hex(h).ok_or_else(|| MySqlError::invalid_default(col))?,
            ),
            ast::Value::SingleQuotedByteStringLiteral(b) => Value::Bytes(
                super::typing::decode_bits(b).ok_or_else(|| MySqlError::invalid_default(col))?,
            ),
            ast::Value::Boolean(b) => Value::Int(*b as i64),
            _ => return Err(MySqlError::invalid_default(col)),
        })
    };
    match e {
        A::Value(v) => Ok(DefaultValue::Literal(lit(&v.value)?)),
        A::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr,
        } => match expr.as_ref() {
            A::Value(v) => {
                let x = lit(&v.value)?;
                crate::value::arith::negate(&x)
                    .map(DefaultValue::Literal)
                    .map_err(|_| MySqlError::invalid_default(col))
            }
            _ => Err(MySqlError::invalid_default(col)),
        },
        A::Prefixed { prefix, value } => {
            use super::strings::{introduced_value, Unknown};
            match introduced_value(prefix, value, cx.transcoded, cx.connection_collation) {
                Ok((v, _)) => Ok(DefaultValue::Literal(v)),
                Err(Unknown::Error(e)) => Err(e),
                Err(Unknown::Charset) => Err(MySqlError::invalid_default(col)),
            }
        }
        A::Function(f) => {
            let n = super::object_parts(&f.name).join(".").to_ascii_lowercase();
            if matches!(
                n.as_str(),
                "current_timestamp" | "now" | "localtime" | "localtimestamp"
            ) {
                Ok(DefaultValue::CurrentTimestamp)
            } else {
                super::computed::default_text(e, col, cx.db.as_deref())
            }
        }
        A::Identifier(i)
            if matches!(
                i.value.to_ascii_lowercase().as_str(),
                "current_timestamp" | "localtime" | "localtimestamp"
            ) =>
        {
            Ok(DefaultValue::CurrentTimestamp)
        }
        _ => super::computed::default_text(e, col, cx.db.as_deref()),
    }
}

pub(crate) fn resolve_default(
    col: &mut ColumnDef,
    db: &str,
    table: &str,
    cx: &mut SessionCtx,
) -> R<()> {
    match col.default.clone() {
        Some(DefaultValue::Literal(Value::Null)) if !col.nullable => {
            Err(MySqlError::invalid_default(&col.name))
        }
        Some(DefaultValue::Literal(v)) if !v.is_null() => {
            if col.auto_increment {
                return Err(MySqlError::invalid_default(&col.name));
            }
            let t = Target {
                db,
                table,
                col,
                row: 1,
                strict: true,
            };
            let stored = store(v, &t, cx).map_err(|_| MySqlError::invalid_default(&col.name))?;
            col.default = Some(DefaultValue::Literal(stored));
            Ok(())
        }
        Some(DefaultValue::Expr(_)) if col.auto_increment => {
            Err(MySqlError::invalid_default(&col.name))
        }
        Some(DefaultValue::CurrentTimestamp)
            if !matches!(
                col.data_type,
                DataType::DateTime { .. } | DataType::Timestamp { .. }
            ) =>
        {
            Err(MySqlError::invalid_default(&col.name))
        }
        _ => Ok(()),
    }
}

fn index_columns(cols: &[ast::IndexColumn], columns: &[ColumnDef]) -> R<Vec<IndexColumn>> {
    let mut out: Vec<IndexColumn> = Vec::new();
    for ic in cols {
        let (name, prefix) = match &ic.column.expr {
            ast::Expr::Identifier(i) => (i.value.clone(), None),
            ast::Expr::Function(f) => {
                let n = super::object_parts(&f.name)
                    .last()
                    .cloned()
                    .unwrap_or_default();
                let len = match &f.args {
                    ast::FunctionArguments::List(l) => l.args.first().and_then(|a| match a {
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(
                            ast::Expr::Value(v),
                        )) => match &v.value {
                            ast::Value::Number(s, _) => s.parse::<u32>().ok(),
                            _ => None,
                        },
                        _ => None,
                    }),
                    _ => None,
                };
                (n, len)
            }
            other => {
                return Err(MySqlError::not_supported(&format!(
                    "index on expression {other}"
                )))
            }
        };
        let ci = columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(&name))
            .ok_or_else(|| MySqlError::key_column_does_not_exist(&name))?;
        if out.iter().any(|c| c.column == ci) {
            return Err(MySqlError::dup_fieldname(&columns[ci].name));
        }
        let descending = matches!(ic.column.options.sort, Some(ast::OrderBySort::Desc));
        out.push(IndexColumn {
            column: ci,
            prefix_len: prefix,
            descending,
        });
    }
    Ok(out)
}

pub(crate) fn constraint_index(tc: &TableConstraint, columns: &[ColumnDef]) -> R<Option<IndexDef>> {
    let (name, kind, cols) = match tc {
        TableConstraint::PrimaryKey(p) => {
            (Some("PRIMARY".to_string()), IndexKind::Primary, &p.columns)
        }
        TableConstraint::Unique(u) => (
            u.index_name
                .as_ref()
                .or(u.name.as_ref())
                .map(|i| i.value.clone()),
            IndexKind::Unique,
            &u.columns,
        ),
        TableConstraint::Index(i) => (
            i.name.as_ref().map(|n| n.value.clone()),
            IndexKind::NonUnique,
            &i.columns,
        ),
        TableConstraint::FulltextOrSpatial(_) => {
            return Err(MySqlError::not_supported("FULLTEXT and SPATIAL indexes"))
        }
        // Bound by `foreign_key::specs_of_create` (CREATE) or the ALTER binder.
        TableConstraint::ForeignKey(_) => return Ok(None),
        TableConstraint::Check(_) => return Ok(None),
        other => return Err(MySqlError::not_supported(&format!("constraint {other}"))),
    };
    let comment = super::options::index_options(tc)?;
    let cols = index_columns(cols, columns)?;
    Ok(Some(IndexDef {
        id: 0,
        name: name.unwrap_or_default(),
        kind,
        columns: cols,
        comment,
    }))
}

pub(crate) fn auto_index_name(first_col: &str, existing: &[IndexDef]) -> String {
    let taken = |n: &str| existing.iter().any(|i| i.name.eq_ignore_ascii_case(n));
    if !taken(first_col) && !first_col.eq_ignore_ascii_case("PRIMARY") {
        return first_col.to_string();
    }
    (2..)
        .map(|i| format!("{first_col}_{i}"))
        .find(|n| !taken(n))
        .unwrap_or_default()
}

/// Orders indexes (PRIMARY first), names unnamed ones, makes primary key columns
/// NOT NULL, checks key lengths, and adds the hidden clustered index when there is
/// no primary key.
fn finish_indexes(
    list: Vec<IndexDef>,
    columns: &mut [ColumnDef],
    cx: &mut SessionCtx,
) -> R<Vec<IndexDef>> {
    let mut primary: Option<IndexDef> = None;
    let mut others: Vec<IndexDef> = Vec::new();
    for mut idx in list {
        implicit_prefixes(&mut idx, columns, cx);
        if idx.kind == IndexKind::Primary {
            if primary.is_some() {
                return Err(MySqlError::multiple_pri_key());
            }
            idx.name = "PRIMARY".into();
            for c in &idx.columns {
                columns[c.column].nullable = false;
            }
            primary = Some(idx);
            continue;
        }
        if idx.name.is_empty() {
            let mut all = others.clone();
            all.extend(primary.clone());
            idx.name = auto_index_name(&columns[idx.columns[0].column].name, &all);
        } else if others
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case(&idx.name))
            || idx.name.eq_ignore_ascii_case("PRIMARY")
        {
            return Err(MySqlError::dup_keyname(&idx.name));
        }
        note_duplicate(&idx, &others, cx);
        others.push(idx);
    }
    sort_keys(&mut others, columns);
    let primary = primary.unwrap_or(IndexDef {
        id: 0,
        name: "PRIMARY".into(),
        kind: IndexKind::Primary,
        columns: Vec::new(),
        comment: String::new(),
    });
    let mut out = vec![primary];
    out.extend(others);
    for (i, idx) in out.iter_mut().enumerate() {
        idx.id = i as u32;
        if !idx.columns.is_empty() {
            check_key(idx, columns)?;
        }
    }
    Ok(out)
}

/// Note 1831 when `idx` has the kind and parts of a key defined before it
/// (MariaDB's `check_duplicate_key`; the key is still created).
pub(crate) fn note_duplicate(idx: &IndexDef, before: &[IndexDef], cx: &mut SessionCtx) {
    if before
        .iter()
        .any(|o| o.kind == idx.kind && o.columns == idx.columns)
    {
        cx.note(
            1831,
            format!(
                "Duplicate index `{}`. This is deprecated and will be disallowed in a future \
                 release",
                idx.name
            ),
        );
    }
}

/// Orders secondary keys as MariaDB does (`sort_keys`): UNIQUE keys first, those
/// over NOT NULL columns only before the others, keys without prefix parts before
/// those with; otherwise in the order they were defined (the sort is stable).
pub(crate) fn sort_keys(keys: &mut [IndexDef], columns: &[ColumnDef]) {
    keys.sort_by_key(|k| {
        let unique = k.is_unique();
        let nullable = k.columns.iter().any(|c| columns[c.column].nullable);
        let prefix = k.columns.iter().any(|c| c.prefix_len.is_some());
        (!unique, unique && nullable, unique && prefix)
    });
}

/// Key parts MariaDB gives a length the statement did not: a TEXT / BLOB part
/// without one indexes its first 3072 bytes, and a part of a non-unique key longer
/// than 3072 bytes is cut to that with note 1071 (a UNIQUE or PRIMARY key that long
/// is 1071, an error, in [`check_key`]).
pub(crate) fn implicit_prefixes(idx: &mut IndexDef, columns: &[ColumnDef], cx: &mut SessionCtx) {
    let mut cut = false;
    for kc in idx.columns.iter_mut() {
        let dt = &columns[kc.column].data_type;
        let mb = dt.collation().map_or(1, |c| c.charset().max_len());
        if dt.is_lob() && kc.prefix_len.is_none() {
            kc.prefix_len = Some(MAX_KEY_BYTES / mb);
        }
        let chars = match (dt, kc.prefix_len) {
            (_, Some(p)) => p,
            (DataType::Char { len, .. } | DataType::VarChar { len, .. }, None) => *len,
            _ => continue,
        };
        if chars * mb > MAX_KEY_BYTES && idx.kind == IndexKind::NonUnique {
            kc.prefix_len = Some(MAX_KEY_BYTES / mb);
            cut = true;
        }
    }
    if cut {
        let e = MySqlError::too_long_key(MAX_KEY_BYTES);
        cx.note(e.code, e.message);
    }
}

pub(crate) fn check_key(idx: &IndexDef, columns: &[ColumnDef]) -> R<()> {
    let mut bytes = 0u32;
    for kc in &idx.columns {
        let col = &columns[kc.column];
        if col.data_type.is_lob() && kc.prefix_len.is_none() {
            return Err(MySqlError::blob_key_without_length(&col.name));
        }
        let mb = col
            .data_type
            .collation()
            .map_or(1, |c| c.charset().max_len());
        bytes += match (&col.data_type, kc.prefix_len) {
            (_, Some(p)) => p * mb,
            (DataType::Char { len, .. } | DataType::VarChar { len, .. }, None) => len * mb,
            (dt, None) => basalt_common::column::describe_type(dt).1.min(16),
        };
    }
    if bytes > MAX_KEY_BYTES {
        return Err(MySqlError::too_long_key(MAX_KEY_BYTES));
    }
    Ok(())
}

pub(crate) fn check_auto_increment(columns: &[ColumnDef], indexes: &[IndexDef]) -> R<()> {
    let autos: Vec<usize> = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.auto_increment)
        .map(|(i, _)| i)
        .collect();
    match autos.as_slice() {
        [] => Ok(()),
        [one] => {
            let keyed = indexes
                .iter()
                .any(|i| i.columns.first().is_some_and(|c| c.column == *one));
            let numeric = columns[*one].data_type.is_numeric();
            if keyed && numeric {
                Ok(())
            } else if !numeric {
                Err(MySqlError::new(
                    1063,
                    "42000",
                    format!(
                        "Incorrect column specifier for column '{}'",
                        columns[*one].name
                    ),
                ))
            } else {
                Err(MySqlError::wrong_auto_key())
            }
        }
        _ => Err(MySqlError::wrong_auto_key()),
    }
}
