//! RENAME TABLE and ALTER DATABASE on the catalog.
//!
//! A rename changes only the catalog: data files are named by table id. Several
//! renames happen as one catalog change (one `catalog.json` replacement), so a
//! crash leaves all of them or none; they apply in order, so `a TO b, b TO c`
//! and swaps through a temporary name work as in MariaDB.

use super::{Storage, TableEntry, DDL_WAIT};
use crate::api::Result;
use crate::error::StorageError;
use crate::table::TableCore;
use basalt_common::{Collation, TableDef};
use std::collections::HashSet;
use std::sync::Arc;

/// `(database, table)`.
pub type TableName = (String, String);

impl Storage {
    /// Renames each `from` to its `to`, in order, atomically. Fails without
    /// changing anything if a source is missing (after the renames before it), a
    /// target database is missing, or a target name is taken.
    pub fn rename_tables(&self, pairs: &[(TableName, TableName)]) -> Result<()> {
        let _ddl = self.ddl.lock();
        let cores = self.plan_renames(pairs)?;
        let mut unique: Vec<Arc<TableCore>> = Vec::new();
        for c in &cores {
            if !unique.iter().any(|u| Arc::ptr_eq(u, c)) {
                unique.push(c.clone());
            }
        }
        hold_exclusive(&unique, &mut || {
            let mut cat = self.catalog.write();
            for ((from, to), core) in pairs.iter().zip(&cores) {
                let entry: TableEntry = cat
                    .tables
                    .get_mut(&from.0)
                    .and_then(|m| m.remove(&from.1))
                    .ok_or_else(|| no_table(from))?;
                let mut def: TableDef = (*core.def()).clone();
                def.schema = to.0.clone();
                def.name = to.1.clone();
                core.set_def(Arc::new(def));
                cat.tables
                    .entry(to.0.clone())
                    .or_default()
                    .insert(to.1.clone(), entry);
            }
            Storage::retarget_foreign_keys(&cat, pairs);
            cat.retarget_triggers(pairs);
            Ok(())
        })?;
        self.bump();
        self.persist()
    }

    /// Checks the renames against the names as each earlier rename leaves them;
    /// returns the table of each pair.
    fn plan_renames(&self, pairs: &[(TableName, TableName)]) -> Result<Vec<Arc<TableCore>>> {
        let cat = self.catalog.read();
        let mut gone: HashSet<TableName> = HashSet::new();
        let mut moved: Vec<(TableName, Arc<TableCore>)> = Vec::new();
        let mut out = Vec::with_capacity(pairs.len());
        for (from, to) in pairs {
            let moved_here = moved.iter().position(|(n, _)| n == from);
            let core = match moved_here {
                Some(i) => moved.remove(i).1,
                None if gone.contains(from) => return Err(no_table(from)),
                None => cat
                    .tables
                    .get(&from.0)
                    .and_then(|m| m.get(&from.1))
                    .map(|e| e.core.clone())
                    .ok_or_else(|| no_table(from))?,
            };
            if !cat.databases.contains_key(&to.0) {
                return Err(StorageError::NoSuchDatabase(to.0.clone()));
            }
            let taken = moved.iter().any(|(n, _)| n == to)
                || (!gone.contains(to)
                    && (cat.tables.get(&to.0).is_some_and(|m| m.contains_key(&to.1))
                        || cat.has_view(&to.0, &to.1)));
            if taken {
                return Err(StorageError::TableExists(to.1.clone()));
            }
            gone.insert(from.clone());
            gone.remove(to);
            moved.push((to.clone(), core.clone()));
            out.push(core);
        }
        Ok(out)
    }

    /// `ALTER DATABASE name [DEFAULT] CHARACTER SET / COLLATE`: the default of
    /// tables created in it from now on.
    pub fn alter_database(
        &self,
        name: &str,
        collation: Option<Collation>,
        comment: Option<&str>,
    ) -> Result<()> {
        let _ddl = self.ddl.lock();
        {
            let mut cat = self.catalog.write();
            let d = cat
                .databases
                .get_mut(name)
                .ok_or_else(|| StorageError::NoSuchDatabase(name.to_string()))?;
            if let Some(c) = collation {
                d.0 = c;
            }
            if let Some(c) = comment {
                d.1 = c.to_string();
            }
        }
        self.bump();
        self.persist()
    }
}

fn no_table(t: &TableName) -> StorageError {
    StorageError::NoSuchTable {
        db: t.0.clone(),
        table: t.1.clone(),
    }
}

/// Runs `f` holding every table's metadata lock exclusively (no transaction
/// that wrote one of them is open).
fn hold_exclusive(cores: &[Arc<TableCore>], f: &mut dyn FnMut() -> Result<()>) -> Result<()> {
    match cores.split_first() {
        None => f(),
        Some((first, rest)) => first.with_exclusive(DDL_WAIT, || hold_exclusive(rest, f)),
    }
}
