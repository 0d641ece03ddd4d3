//! Statements other than SELECT / INSERT / UPDATE / DELETE that come through the
//! parser: DDL, savepoints, KILL, DESCRIBE / EXPLAIN, and accepted no-ops.

use super::Session;
use crate::bind::ddl::{create_table_def, index_def, qualified};
use crate::exec::ddl;
use crate::result::QueryResult;
use basalt_common::MySqlError;
use sqlparser::ast::{self, ObjectType, Statement};

type R<T> = Result<T, MySqlError>;

/// The collation of a new database: the one named, the named character set's
/// default, or the session's `collation_server`.
fn ok(n: u64) -> R<QueryResult> {
    Ok(QueryResult::ok(n))
}

impl Session {
    pub(super) fn utility(&mut self, stmt: Statement, text: &str) -> R<QueryResult> {
        self.cx.row_count = 0;
        self.check_utility(&stmt)?;
        let entered = match self.ddl_targets(&stmt) {
            Some(tables) => Some(self.enter_ddl(&tables)?),
            None => None,
        };
        let r = self.utility_unlocked(stmt, text);
        if let Some(e) = entered {
            self.leave(e);
        }
        r
    }

    fn utility_unlocked(&mut self, stmt: Statement, text: &str) -> R<QueryResult> {
        let storage = self.cx.engine.storage.clone();
        match stmt {
            Statement::Drop {
                object_type: ObjectType::Table,
                if_exists,
                names,
                temporary: true,
                ..
            } => self.drop_temporary(if_exists, &names),
            Statement::Drop {
                object_type,
                if_exists,
                names,
                table,
                ..
            } => self.drop(object_type, if_exists, &names, table.as_ref()),
            Statement::CreateTable(ct) if ct.temporary => self.create_temporary(ct, text),
            Statement::CreateTable(mut ct) => {
                self.implicit_commit()?;
                check_or_replace(&ct)?;
                let partitioned = crate::partitioning::clause_of_create(text)?.is_some();
                if partitioned && (ct.query.is_some() || ct.like.is_some()) {
                    return Err(MySqlError::not_supported(
                        "PARTITION BY in CREATE TABLE ... SELECT or LIKE",
                    ));
                }
                // Taken out, so that no copy of the statement copies the query.
                if let Some(q) = ct.query.take() {
                    self.replace_table(&ct)?;
                    return self.create_table_as(&ct, &q, text);
                }
                let def = match &ct.like {
                    Some(like) => self.table_like(&ct, like)?,
                    None => create_table_def(&storage, &ct, &mut self.cx)?,
                };
                let def = crate::partitioning::with_clause(def, text, &mut self.cx)?;
                let def = self.checked_def(def, text)?;
                self.replace_table(&ct)?;
                ddl::create_table(&storage, &mut self.cx, def, ct.if_not_exists)?;
                ok(0)
            }
            Statement::CreateIndex(ci) => {
                self.implicit_commit()?;
                let (db, t) = qualified(&ci.table_name, &self.cx)?;
                let table = self
                    .cx
                    .table(&db, &t)
                    .ok_or_else(|| MySqlError::no_such_table(&db, &t))?;
                let name = ci
                    .name
                    .as_ref()
                    .map(|n| crate::bind::object_parts(n).join("."));
                let mut idx = index_def(&table.def(), name, ci.unique, &ci.columns, &mut self.cx)?;
                idx.comment = crate::bind::options::index_comment(&ci.index_options);
                match self.create_temp_index(&db, &t, idx.clone()) {
                    Some(r) => r?,
                    None => ddl::create_index(&storage, &db, &t, idx)?,
                }
                // As ALTER TABLE ... ADD INDEX reports it (built in place: no rows).
                let warnings = self.warning_count();
                Ok(QueryResult::Ok {
                    affected_rows: 0,
                    last_insert_id: 0,
                    info: format!("Records: 0  Duplicates: 0  Warnings: {warnings}"),
                    warnings,
                })
            }
            Statement::Truncate(t) => {
                self.implicit_commit()?;
                for target in &t.table_names {
                    let (db, name) = qualified(&target.name, &self.cx)?;
                    if crate::perfschema::is_schema(&db) {
                        crate::perfschema::truncate(&self.cx, &name)?;
                        continue;
                    }
                    match self.truncate_temp(&db, &name) {
                        Some(r) => r?,
                        None if crate::system_tables::truncate(&self.cx.engine, &db, &name) => {}
                        None => ddl::truncate(&storage, &db, &name)?,
                    }
                }
                ok(0)
            }
            Statement::Use(u) => {
                let name = match u {
                    ast::Use::Object(n) | ast::Use::Database(n) | ast::Use::Schema(n) => {
                        crate::bind::object_parts(&n).join(".")
                    }
                    _ => return Err(MySqlError::parse_error(text, 1)),
                };
                self.use_database(&name)?;
                ok(0)
            }
            Statement::Savepoint { name } => {
                self.savepoint(&name.value)?;
                ok(0)
            }
            Statement::ReleaseSavepoint { name } => {
                self.release_savepoint(&name.value)?;
                ok(0)
            }
            Statement::Rollback {
                savepoint: Some(name),
                ..
            } => {
                self.rollback_to_savepoint(&name.value)?;
                ok(0)
            }
            Statement::Rollback { .. } => {
                self.rollback()?;
                ok(0)
            }
            Statement::Commit { .. } => {
                self.commit()?;
                ok(0)
            }
            Statement::StartTransaction { .. } => {
                self.begin(None, false)?;
                ok(0)
            }
            Statement::ExplainTable { table_name, .. } => crate::show::describe(self, &table_name),
            Statement::Explain { analyze: true, .. } => {
                Err(MySqlError::not_supported("EXPLAIN ANALYZE"))
            }
            Statement::Explain { verbose: true, .. } => {
                Err(MySqlError::not_supported("EXPLAIN VERBOSE"))
            }
            // What EXPLAIN can describe is read in front of the parser
            // (`front::native::explain`); anything else after it is a syntax error.
            Statement::Explain { .. } => {
                let t = text.trim_start();
                let word = t.find(char::is_whitespace).unwrap_or(t.len());
                let rest = t[word..].len() - t[word..].trim_start().len();
                let at = text.len() - t.len() + word + rest;
                Err(crate::front::parse::near_offset(text, at))
            }
            Statement::Flush {
                object_type,
                read_lock,
                export,
                tables,
                ..
            } => self.flush(&object_type, read_lock, export, &tables),
            Statement::UnlockTables => {
                self.release_all_locks();
                ok(0)
            }
            Statement::LockTables { tables } => self.lock_tables(&tables),
            Statement::Analyze(a) => crate::show::analyze(self, a.table_name.as_ref()),
            Statement::RenameTable(pairs) => self.rename_tables(&pairs),
            other => Err(MySqlError::not_supported(&statement_kind(&other))),
        }
    }

    fn drop(
        &mut self,
        kind: ObjectType,
        if_exists: bool,
        names: &[ast::ObjectName],
        table: Option<&ast::ObjectName>,
    ) -> R<QueryResult> {
        self.implicit_commit()?;
        let storage = self.cx.engine.storage.clone();
        match kind {
            ObjectType::Table => {
                let list = names
                    .iter()
                    .map(|n| qualified(n, &self.cx))
                    .collect::<R<Vec<_>>>()?;
                // A temporary table of the name goes first (MariaDB).
                let list = self.drop_temp_listed(&list);
                if !list.is_empty() {
                    ddl::drop_tables(&storage, &mut self.cx, &list, if_exists)?;
                }
                ok(0)
            }
            ObjectType::Database | ObjectType::Schema => {
                let name = names
                    .first()
                    .map(|n| crate::bind::object_parts(n).join("."))
                    .unwrap_or_default();
                let n = ddl::drop_database(&storage, &mut self.cx, &name, if_exists)?;
                ok(n)
            }
            ObjectType::Index => {
                let t = table.ok_or_else(|| MySqlError::parse_error("", 1))?;
                let (db, tname) = qualified(t, &self.cx)?;
                for n in names {
                    let iname = crate::bind::object_parts(n).join(".");
                    let r = match self.drop_temp_index(&db, &tname, &iname) {
                        Some(r) => r,
                        None => ddl::drop_index(&storage, &db, &tname, &iname),
                    };
                    match r {
                        Err(e)
                            if if_exists
                                && e.code
                                    == basalt_common::error::code::ER_CANT_DROP_FIELD_OR_KEY =>
                        {
                            self.cx.note(e.code, e.message);
                        }
                        other => other?,
                    }
                }
                ok(0)
            }
            other => Err(MySqlError::not_supported(&format!("DROP {other}"))),
        }
    }

    /// CREATE OR REPLACE TABLE: the table of the name is dropped first (as DROP
    /// TABLE would: its foreign keys checked), once the new definition is known
    /// to be valid.
    fn replace_table(&mut self, ct: &ast::CreateTable) -> R<()> {
        if !ct.or_replace {
            return Ok(());
        }
        let storage = self.cx.engine.storage.clone();
        let name = qualified(&ct.name, &self.cx)?;
        if storage.table(&name.0, &name.1).is_some() {
            ddl::drop_tables(&storage, &mut self.cx, &[name], true)?;
        }
        Ok(())
    }

    /// CREATE TABLE ... SELECT: a table with the query's columns, filled with its
    /// rows; dropped again if filling fails.
    fn create_table_as(
        &mut self,
        ct: &ast::CreateTable,
        q: &ast::Query,
        text: &str,
    ) -> R<QueryResult> {
        let storage = self.cx.engine.storage.clone();
        let (db, name) = qualified(&ct.name, &self.cx)?;
        if storage.table(&db, &name).is_some() {
            if ct.if_not_exists {
                self.cx.note(1050, format!("Table '{name}' already exists"));
                return ok(0);
            }
            return Err(MySqlError::table_exists(&name));
        }
        let (def, select) = self.ctas_def(ct, q, text)?;
        ddl::create_table(&storage, &mut self.cx, def, false)?;
        let table = storage
            .table(&db, &name)
            .ok_or_else(|| MySqlError::no_such_table(&db, &name))?;
        // Row-based logging, as MariaDB: the table's CREATE TABLE, then its rows.
        let create = crate::show::table::create_table_text(&*table);
        self.log_ddl_text(Some(&db), &create)?;
        let r = self.ctas_fill(table, &db, &name, select);
        if r.is_err() {
            let _ = storage.drop_table(&db, &name);
        }
        r
    }

    /// The definition of the table CREATE TABLE ... SELECT makes (the query's
    /// columns) and the bound query.
    pub(super) fn ctas_def(
        &mut self,
        ct: &ast::CreateTable,
        q: &ast::Query,
        text: &str,
    ) -> R<(basalt_common::TableDef, crate::plan::SelectPlan)> {
        if !ct.columns.is_empty() || !ct.constraints.is_empty() {
            return Err(MySqlError::not_supported(
                "CREATE TABLE (columns) ... SELECT",
            ));
        }
        let storage = self.cx.engine.storage.clone();
        let select = self.plan_query(q, text)?;
        let cols: Vec<basalt_common::ColumnDef> = select
            .columns
            .iter()
            .zip(&select.types)
            .map(|(c, t)| {
                let mut col = crate::bind::from::derived_column(&c.name, t);
                if let Some(dt) = source_column_type(&self.cx, t) {
                    col.data_type = dt;
                }
                col
            })
            .collect();
        for (i, c) in cols.iter().enumerate() {
            if cols[..i]
                .iter()
                .any(|d| d.name.eq_ignore_ascii_case(&c.name))
            {
                return Err(MySqlError::dup_fieldname(&c.name));
            }
        }
        let mut shell = ct.clone();
        shell.query = None;
        shell.columns = vec![ast::ColumnDef {
            name: ast::Ident::new("ctas_placeholder"),
            data_type: ast::DataType::Int(None),
            options: Vec::new(),
        }];
        let mut def = create_table_def(&storage, &shell, &mut self.cx)?;
        def.columns = cols;
        Ok((def, select))
    }

    /// Fills the table CREATE TABLE ... SELECT made with the query's rows.
    pub(super) fn ctas_fill(
        &mut self,
        table: std::sync::Arc<dyn basalt_storage::Table>,
        db: &str,
        name: &str,
        select: crate::plan::SelectPlan,
    ) -> R<QueryResult> {
        let tdef = table.def();
        let plan = crate::plan::Plan::Insert(crate::plan::InsertPlan {
            needs: Default::default(),
            table: crate::plan::TableRef {
                table,
                def: tdef.clone(),
                db: db.to_string(),
                alias: name.to_string(),
                offset: 0,
                func: None,
            },
            columns: (0..tdef.columns.len()).collect(),
            subs: Default::default(),
            source: crate::plan::InsertSource::Select(Box::new(select)),
            on_dup: Vec::new(),
            ignore: false,
            replace: false,
            checks: Default::default(),
            returning: None,
        });
        let mut none = super::respond::NoRows;
        self.run_plan(&plan, &[], &mut super::Out::new(&mut none))
    }

    /// Validates the CHECK constraints of a new table's definition.
    pub(super) fn checked_def(
        &mut self,
        def: basalt_common::TableDef,
        text: &str,
    ) -> R<basalt_common::TableDef> {
        let storage = self.cx.engine.storage.clone();
        let def = std::sync::Arc::new(def);
        let checked = {
            let mut b = crate::bind::Binder::new(&storage, &self.cx, text, None);
            b.validate_checks(&def.schema, &def)
                .and_then(|_| b.validate_computed(&def.schema, &def))
        };
        if let Err((e, follow)) = checked {
            if let Some(expr) = follow {
                self.cx.trailing.push(crate::session::ctx::Warning {
                    level: crate::session::ctx::Level::Error,
                    code: 4027,
                    state: "HY000",
                    message: format!("Got an error evaluating stored expression {expr}"),
                });
            }
            return Err(e);
        }
        Ok(std::sync::Arc::unwrap_or_clone(def))
    }

    pub(super) fn table_like(
        &mut self,
        ct: &ast::CreateTable,
        like: &ast::CreateTableLikeKind,
    ) -> R<basalt_common::TableDef> {
        let src = match like {
            ast::CreateTableLikeKind::Plain(l) => &l.name,
            ast::CreateTableLikeKind::Parenthesized(l) => &l.name,
        };
        let (sdb, sname) = qualified(src, &self.cx)?;
        let (db, name) = qualified(&ct.name, &self.cx)?;
        let t = self
            .cx
            .table(&sdb, &sname)
            .ok_or_else(|| MySqlError::no_such_table(&sdb, &sname))?;
        let mut def = (*t.def()).clone();
        def.id = 0;
        def.schema = db;
        def.name = name;
        Ok(def)
    }
}

fn statement_kind(s: &Statement) -> String {
    let text = s.to_string();
    let words: Vec<&str> = text.split_whitespace().take(2).collect();
    words.join(" ")
}

/// The ENUM / SET or integer type (with its display width and ZEROFILL) of the
/// table column a result column reads directly (CREATE
/// TABLE ... SELECT keeps it, as MariaDB does).
pub(crate) fn source_column_type(
    cx: &crate::session::ctx::SessionCtx,
    t: &crate::ty::ExprType,
) -> Option<basalt_common::DataType> {
    let integer = t.class == crate::ty::Class::Int && t.column_type.is_some();
    let o = t
        .origin
        .as_ref()
        .filter(|_| t.is_enum_or_set() || integer)?;
    let table = cx.table(&o.schema, &o.org_table)?;
    let def = table.def();
    let ci = def.column_index(&o.org_name)?;
    Some(def.columns[ci].data_type.clone())
}

/// 1221 for `CREATE OR REPLACE TABLE IF NOT EXISTS`.
pub(super) fn check_or_replace(ct: &ast::CreateTable) -> R<()> {
    if ct.or_replace && ct.if_not_exists {
        return Err(MySqlError::new(
            1221,
            "HY000",
            "Incorrect usage of OR REPLACE and IF NOT EXISTS",
        ));
    }
    Ok(())
}
