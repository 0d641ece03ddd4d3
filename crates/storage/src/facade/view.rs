//! Views in the catalog: created, replaced, renamed and dropped as catalog changes
//! only (a view has no data file), each made durable by one `catalog.json`
//! replacement like every other DDL, so a crash leaves the old or the new set of
//! views. Views and tables share one namespace per database: no name is both.

use super::Storage;
use crate::api::Result;
use crate::catalog::ViewDef;
use crate::error::StorageError;
use std::sync::Arc;

impl Storage {
    /// The view `db.name`, if there is one.
    pub fn view(&self, db: &str, name: &str) -> Option<Arc<ViewDef>> {
        self.catalog.read().views.get(db)?.get(name).cloned()
    }

    /// The views of a database, sorted by name.
    pub fn views(&self, db: &str) -> Vec<Arc<ViewDef>> {
        self.catalog
            .read()
            .views
            .get(db)
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Creates the view, or replaces the view of that name when `replace`. Fails
    /// with `TableExists` when a table has the name, or a view has it and not
    /// `replace`.
    pub fn create_view(&self, def: ViewDef, replace: bool) -> Result<()> {
        let _ddl = self.ddl.lock();
        {
            let mut cat = self.catalog.write();
            if !cat.databases.contains_key(&def.schema) {
                return Err(StorageError::NoSuchDatabase(def.schema.clone()));
            }
            let is_table = cat
                .tables
                .get(&def.schema)
                .is_some_and(|m| m.contains_key(&def.name));
            if is_table || (!replace && cat.has_view(&def.schema, &def.name)) {
                return Err(StorageError::TableExists(def.name.clone()));
            }
            cat.views
                .entry(def.schema.clone())
                .or_default()
                .insert(def.name.clone(), Arc::new(def));
        }
        self.bump();
        self.persist()
    }

    /// Drops the views named, all or none: `NoSuchTable` for the first missing.
    pub fn drop_views(&self, names: &[(String, String)]) -> Result<()> {
        let _ddl = self.ddl.lock();
        {
            let mut cat = self.catalog.write();
            if let Some((db, name)) = names.iter().find(|(d, n)| !cat.has_view(d, n)) {
                return Err(StorageError::NoSuchTable {
                    db: db.clone(),
                    table: name.clone(),
                });
            }
            for (db, name) in names {
                if let Some(m) = cat.views.get_mut(db) {
                    m.remove(name);
                }
            }
        }
        self.bump();
        self.persist()
    }

    /// Renames a view (RENAME TABLE of a view); the target name must be free.
    pub fn rename_view(&self, from: (&str, &str), to: (&str, &str)) -> Result<()> {
        let _ddl = self.ddl.lock();
        {
            let mut cat = self.catalog.write();
            if !cat.databases.contains_key(to.0) {
                return Err(StorageError::NoSuchDatabase(to.0.to_string()));
            }
            let taken = cat.has_view(to.0, to.1)
                || cat.tables.get(to.0).is_some_and(|m| m.contains_key(to.1));
            if taken {
                return Err(StorageError::TableExists(to.1.to_string()));
            }
            let v = cat
                .views
                .get_mut(from.0)
                .and_then(|m| m.remove(from.1))
                .ok_or_else(|| StorageError::NoSuchTable {
                    db: from.0.to_string(),
                    table: from.1.to_string(),
                })?;
            let mut v = Arc::unwrap_or_clone(v);
            v.schema = to.0.to_string();
            v.name = to.1.to_string();
            cat.views
                .entry(v.schema.clone())
                .or_default()
                .insert(v.name.clone(), Arc::new(v));
        }
        self.bump();
        self.persist()
    }
}
