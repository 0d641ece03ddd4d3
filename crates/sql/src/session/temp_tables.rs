//! The session's temporary tables (`CREATE TEMPORARY TABLE`), as MariaDB 10.11 has
//! them.
//!
//! # The overlay
//! [`TempTables`] maps (database, name) to the session's temporary tables. Name
//! resolution consults it before the catalog (the binder's `open_table`, SHOW /
//! DESCRIBE, DDL), so a temporary table shadows a base table of the same name for
//! every statement of its session and no other session sees it. A session without
//! temporary tables pays one `is_empty` branch per lookup.
//!
//! # Plans
//! A plan bound to a temporary table must never reach another session, nor this one
//! after the overlay changed. So: the binder marks such plans not reusable (the
//! shared plan cache never stores them); while the overlay is non-empty, statements
//! bypass the shared cache and the per-session memo (a cached plan may name the
//! base table a temporary one now shadows); every change of the overlay bumps
//! [`TempTables::epoch`], which prepared statements add to the schema version they
//! check, and clears the memo.
//!
//! # What MariaDB does, and so what this does
//! - CREATE / DROP TEMPORARY TABLE do not end the session's transaction; ALTER,
//!   TRUNCATE, CREATE / DROP INDEX, RENAME and a plain DROP TABLE commit it first,
//!   as for base tables.
//! - The database of a temporary table need not exist (MariaDB does not check), and
//!   DROP DATABASE leaves temporary tables alone.
//! - DROP TABLE drops a temporary table of the name first; DROP TEMPORARY TABLE
//!   drops only temporary tables (1051 otherwise).
//! - Temporary tables are listed by neither SHOW TABLES nor information_schema;
//!   SHOW CREATE TABLE prints `CREATE TEMPORARY TABLE`.
//! - A query may name a temporary table twice (MariaDB 10.2+ reopens them).
//! - LOCK TABLES does not cover them: they are usable while other tables are
//!   locked and need no lock.
//! - They go when the session ends, at COM_RESET_CONNECTION and COM_CHANGE_USER.
//!
//! Storage is in [`basalt_storage::TempTable`] (memory store under the shared
//! transactional table layer; nothing written to disk, so nothing to clean up
//! after a crash).

use super::Session;
use crate::result::QueryResult;
use crate::session::ctx::SessionCtx;
use basalt_common::error::code;
use basalt_common::{MySqlError, TableDef};
use basalt_storage::{Table, TempTable};
use sqlparser::ast;
use std::collections::HashMap;
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// (database, table).
type Name = (String, String);

/// The temporary tables of one session, by database and name.
#[derive(Default)]
pub struct TempTables {
    by_db: HashMap<String, HashMap<String, TempTable>>,
    count: usize,
    epoch: u64,
}

impl TempTables {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bumped by every change of the overlay.
    #[inline]
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    pub fn get(&self, db: &str, name: &str) -> Option<&TempTable> {
        if self.count == 0 {
            return None;
        }
        self.by_db.get(db)?.get(name)
    }

    /// The temporary table `db`.`name`, as statements use it.
    #[inline]
    pub fn table(&self, db: &str, name: &str) -> Option<Arc<dyn Table>> {
        if self.count == 0 {
            return None;
        }
        self.get(db, name).map(|t| t.table().clone())
    }

    pub fn contains(&self, db: &str, name: &str) -> bool {
        self.get(db, name).is_some()
    }

    fn insert(&mut self, t: TempTable) {
        let def = t.def();
        let old = self
            .by_db
            .entry(def.schema.clone())
            .or_default()
            .insert(def.name.clone(), t);
        if old.is_none() {
            self.count += 1;
        }
        self.epoch += 1;
    }

    fn take(&mut self, db: &str, name: &str) -> Option<TempTable> {
        let m = self.by_db.get_mut(db)?;
        let t = m.remove(name)?;
        if m.is_empty() {
            self.by_db.remove(db);
        }
        self.count -= 1;
        self.epoch += 1;
        Some(t)
    }

    /// Drops every temporary table (end of session, reset).
    pub fn clear(&mut self) {
        if self.count > 0 {
            self.by_db.clear();
            self.count = 0;
            self.epoch += 1;
        }
    }
}

impl SessionCtx {
    /// The table `db`.`name` this session sees: its temporary table of that name,
    /// or the base table.
    pub fn table(&self, db: &str, name: &str) -> Option<Arc<dyn Table>> {
        if let Some(t) = self.temp.table(db, name) {
            return Some(t);
        }
        self.engine.storage.table(db, name)
    }
}

fn ok() -> R<QueryResult> {
    Ok(QueryResult::ok(0))
}

impl Session {
    /// The version plans of this session are checked against: the catalog's
    /// schema version plus the overlay's epoch (both only grow, so the sum changes
    /// whenever either does).
    pub(super) fn plan_version(&self) -> u64 {
        self.cx
            .engine
            .storage
            .schema_version()
            .wrapping_add(self.cx.temp.epoch())
    }

    fn add_temp(&mut self, t: TempTable) {
        self.cx.temp.insert(t);
        self.memo.clear();
    }

    fn take_temp(&mut self, db: &str, name: &str) -> Option<TempTable> {
        let t = self.cx.temp.take(db, name);
        if t.is_some() {
            self.memo.clear();
        }
        t
    }

    /// A statement of a session with temporary tables: never through the shared
    /// plan cache (its plans may name a base table a temporary one shadows).
    #[cold]
    #[inline(never)]
    pub(super) fn run_uncached(&mut self, text: &str, out: &mut super::Out<'_>) -> R<QueryResult> {
        self.parse_run(text, out)
    }

    /// Drops every temporary table of the session.
    pub(super) fn drop_all_temp(&mut self) {
        if !self.cx.temp.is_empty() {
            self.cx.temp.clear();
            self.memo.clear();
        }
    }

    /// `CREATE TEMPORARY TABLE [IF NOT EXISTS] t (...) | LIKE x | [AS] SELECT ...`,
    /// within the session's transaction (no implicit commit).
    pub(super) fn create_temporary(
        &mut self,
        mut ct: ast::CreateTable,
        text: &str,
    ) -> R<QueryResult> {
        let (db, name) = crate::bind::ddl::qualified(&ct.name, &self.cx)?;
        super::stmt::check_or_replace(&ct)?;
        if crate::partitioning::clause_of_create(text)?.is_some() {
            return Err(MySqlError::new(
                1562,
                "HY000",
                "Cannot create temporary table with partitions",
            ));
        }
        if ct.or_replace && self.cx.temp.contains(&db, &name) {
            self.take_temp(&db, &name);
        }
        if self.cx.temp.contains(&db, &name) {
            if ct.if_not_exists {
                self.cx.note(
                    code::ER_TABLE_EXISTS_ERROR,
                    format!("Table '{name}' already exists"),
                );
                return ok();
            }
            return Err(MySqlError::table_exists(&name));
        }
        if let Some(q) = ct.query.take() {
            let (def, select) = self.ctas_def(&ct, &q, text)?;
            let t = self.create_temp_def(def)?;
            let table = t.table().clone();
            self.add_temp(t);
            let r = self.ctas_fill(table, &db, &name, select);
            if r.is_err() {
                self.take_temp(&db, &name);
            }
            return r;
        }
        let def = match &ct.like {
            Some(like) => {
                let def = self.table_like(&ct, like)?;
                if def.partitioning.is_some() {
                    return Err(MySqlError::new(
                        1478,
                        "HY000",
                        "Table storage engine 'partition' does not support the create option 'TEMPORARY'",
                    ));
                }
                def
            }
            None => {
                let storage = self.cx.engine.storage.clone();
                crate::bind::ddl::create_table_def(&storage, &ct, &mut self.cx)?
            }
        };
        let def = self.checked_def(def, text)?;
        let t = self.create_temp_def(def)?;
        self.add_temp(t);
        ok()
    }

    /// InnoDB refuses FOREIGN KEYs on temporary tables (1005, errno 150).
    fn create_temp_def(&self, def: TableDef) -> R<TempTable> {
        if !def.foreign_keys.is_empty() {
            return Err(crate::bind::foreign_key::incorrectly_formed(
                &def.schema,
                &def.name,
            ));
        }
        self.cx
            .engine
            .storage
            .create_temp_table(def)
            .map_err(MySqlError::from)
    }

    /// `DROP TEMPORARY TABLE [IF EXISTS] ...`: only temporary tables; drops the
    /// ones that exist, then reports the others (1051, notes with IF EXISTS).
    pub(super) fn drop_temporary(
        &mut self,
        if_exists: bool,
        names: &[ast::ObjectName],
    ) -> R<QueryResult> {
        let list = names
            .iter()
            .map(|n| crate::bind::ddl::qualified(n, &self.cx))
            .collect::<R<Vec<_>>>()?;
        let missing = self.drop_temp_listed(&list);
        if missing.is_empty() {
            return ok();
        }
        let text = missing
            .iter()
            .map(|(d, t)| format!("{d}.{t}"))
            .collect::<Vec<_>>()
            .join(",");
        if !if_exists {
            return Err(MySqlError::bad_table(&text));
        }
        self.cx
            .note(code::ER_BAD_TABLE_ERROR, format!("Unknown table '{text}'"));
        ok()
    }

    /// Drops the temporary tables among `list`; returns the names that are not
    /// (still) temporary tables, in order.
    pub(super) fn drop_temp_listed(&mut self, list: &[(String, String)]) -> Vec<(String, String)> {
        let mut rest = Vec::new();
        for (d, t) in list {
            if self.take_temp(d, t).is_none() {
                rest.push((d.clone(), t.clone()));
            }
        }
        rest
    }

    /// TRUNCATE of a temporary table; `None` when `db`.`name` is not one.
    pub(super) fn truncate_temp(&mut self, db: &str, name: &str) -> Option<R<()>> {
        let t = self.cx.temp.get(db, name)?;
        Some(
            self.cx
                .engine
                .storage
                .truncate_temp(t)
                .map_err(MySqlError::from),
        )
    }

    /// CREATE INDEX on a temporary table; `None` when `db`.`name` is not one.
    pub(super) fn create_temp_index(
        &mut self,
        db: &str,
        name: &str,
        idx: basalt_common::IndexDef,
    ) -> Option<R<()>> {
        let t = self.cx.temp.get(db, name)?;
        Some(
            self.cx
                .engine
                .storage
                .create_temp_index(t, idx)
                .map_err(MySqlError::from),
        )
    }

    /// DROP INDEX on a temporary table; `None` when `db`.`name` is not one.
    pub(super) fn drop_temp_index(&mut self, db: &str, name: &str, index: &str) -> Option<R<()>> {
        let t = self.cx.temp.get(db, name)?;
        let def = t.def();
        let Some(found) = def
            .indexes
            .iter()
            .find(|i| i.name.eq_ignore_ascii_case(index) && !i.columns.is_empty())
        else {
            return Some(Err(MySqlError::cant_drop_key(index)));
        };
        let storage = self.cx.engine.storage.clone();
        Some(
            storage
                .drop_temp_index(t, &found.name)
                .map_err(MySqlError::from),
        )
    }

    /// RENAME TABLE when the first source is a temporary table: every pair must
    /// then rename a temporary table (to a name no temporary table has), applied
    /// in order. `None` when the first source is not a temporary table.
    pub(super) fn rename_temp(&mut self, pairs: &[(Name, Name)]) -> Option<R<QueryResult>> {
        let ((fd, ft), _) = pairs.first()?;
        if !self.cx.temp.contains(fd, ft) {
            return None;
        }
        Some(self.rename_temp_pairs(pairs))
    }

    fn rename_temp_pairs(&mut self, pairs: &[(Name, Name)]) -> R<QueryResult> {
        for (i, (from, to)) in pairs.iter().enumerate() {
            if !self.cx.temp.contains(&from.0, &from.1) {
                if i == 0 || self.cx.engine.storage.table(&from.0, &from.1).is_none() {
                    return Err(MySqlError::no_such_table(&from.0, &from.1));
                }
                return Err(MySqlError::not_supported(
                    "RENAME TABLE of temporary and base tables in one statement",
                ));
            }
            if self.cx.temp.contains(&to.0, &to.1) {
                return Err(MySqlError::table_exists(&to.1));
            }
            let t = self
                .take_temp(&from.0, &from.1)
                .expect("checked just above");
            t.rename(&to.0, &to.1);
            self.add_temp(t);
        }
        ok()
    }

    /// Takes the temporary table `db`.`name` out of the overlay for an ALTER TABLE
    /// (see `alter`), which puts it (or its replacement) back with
    /// [`Session::restore_temp`].
    pub(super) fn take_temp_for_alter(&mut self, db: &str, name: &str) -> Option<TempTable> {
        self.take_temp(db, name)
    }

    pub(super) fn restore_temp(&mut self, t: TempTable) {
        self.add_temp(t);
    }
}
