//! Stored procedures and functions in the catalog: created, replaced and dropped
//! as catalog changes only, each made durable by one `catalog.json` replacement
//! like every other DDL, so a crash leaves the old or the new set of routines.
//! Names are case-insensitive; procedures and functions have separate namespaces.

use super::{Catalog, Storage};
use crate::api::Result;
use crate::catalog::RoutineDef;
use crate::error::StorageError;
use std::sync::Arc;

fn key(kind: &str, name: &str) -> (String, String) {
    (kind.to_ascii_uppercase(), name.to_lowercase())
}

impl Catalog {
    pub(super) fn insert_routine(&mut self, r: RoutineDef) {
        self.routines
            .entry(r.schema.clone())
            .or_default()
            .insert(key(&r.kind, &r.name), Arc::new(r));
    }
}

impl Storage {
    /// The routine `db.name` of `kind` (`PROCEDURE` or `FUNCTION`), if any.
    pub fn routine(&self, db: &str, kind: &str, name: &str) -> Option<Arc<RoutineDef>> {
        self.catalog
            .read()
            .routines
            .get(db)?
            .get(&key(kind, name))
            .cloned()
    }

    /// Every routine, by database, then kind, then name.
    pub fn all_routines(&self) -> Vec<Arc<RoutineDef>> {
        let cat = self.catalog.read();
        let mut dbs: Vec<&String> = cat.routines.keys().collect();
        dbs.sort();
        dbs.into_iter()
            .flat_map(|d| cat.routines[d].values().cloned())
            .collect()
    }

    /// Creates the routine, or replaces the one of its kind and name when
    /// `replace`. `TableExists` (the SQL layer's 1304) when it exists and not
    /// `replace`; `NoSuchDatabase` when its database does not exist.
    pub fn create_routine(&self, def: RoutineDef, replace: bool) -> Result<()> {
        let _ddl = self.ddl.lock();
        {
            let mut cat = self.catalog.write();
            if !cat.databases.contains_key(&def.schema) {
                return Err(StorageError::NoSuchDatabase(def.schema.clone()));
            }
            let exists = cat
                .routines
                .get(&def.schema)
                .is_some_and(|m| m.contains_key(&key(&def.kind, &def.name)));
            if exists && !replace {
                return Err(StorageError::TableExists(def.name.clone()));
            }
            cat.insert_routine(def);
        }
        self.bump();
        self.persist()
    }

    /// Drops a routine; false when there was none.
    pub fn drop_routine(&self, db: &str, kind: &str, name: &str) -> Result<bool> {
        let _ddl = self.ddl.lock();
        let removed = {
            let mut cat = self.catalog.write();
            cat.routines
                .get_mut(db)
                .and_then(|m| m.remove(&key(kind, name)))
                .is_some()
        };
        if removed {
            self.bump();
            self.persist()?;
        }
        Ok(removed)
    }
}
