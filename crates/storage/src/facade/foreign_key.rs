//! The catalog's FOREIGN KEY graph: which child tables reference each parent.
//!
//! Constraints are stored with the child table ([`TableDef::foreign_keys`]); a
//! statement that deletes or updates rows of a parent needs the reverse direction.
//! [`Storage::foreign_keys`] answers it from an index built from the catalog and
//! kept until the next DDL: it carries the schema version it was built at, and a
//! lookup under a newer version rebuilds it. While no table has a foreign key the
//! answer is `None` after two atomic loads, so tables of a schema without foreign
//! keys pay nothing.
//!
//! Invariant: an index handed out describes the catalog at its `version`; callers
//! that plan against a schema version use the index of that version or a newer one.

use super::{Catalog, Storage};
use crate::api::Table;
use basalt_common::{ForeignKeyDef, TableDef};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// One constraint seen from its parent.
#[derive(Clone)]
pub struct ChildRef {
    /// The child table and its definition as of the index's version.
    pub table: Arc<dyn Table>,
    pub def: Arc<TableDef>,
    /// Position in `def.foreign_keys`.
    pub fk: usize,
}

impl ChildRef {
    pub fn foreign_key(&self) -> &ForeignKeyDef {
        &self.def.foreign_keys[self.fk]
    }
}

/// Every foreign key of the catalog, by parent table.
#[derive(Default)]
pub struct ForeignKeyIndex {
    /// Parent database -> parent table -> its children.
    by_parent: HashMap<String, HashMap<String, Vec<ChildRef>>>,
    /// `(database, lower-case constraint name)`: names are unique per database.
    names: HashSet<(String, String)>,
}

impl ForeignKeyIndex {
    /// Constraints that reference `db`.`table` (the table's own self-references too).
    pub fn children(&self, db: &str, table: &str) -> &[ChildRef] {
        self.by_parent
            .get(db)
            .and_then(|m| m.get(table))
            .map_or(&[], Vec::as_slice)
    }

    /// True when a constraint of database `db` is named `name` (case-insensitive).
    pub fn name_taken(&self, db: &str, name: &str) -> bool {
        self.names
            .contains(&(db.to_string(), name.to_ascii_lowercase()))
    }

    fn build(cat: &Catalog) -> Option<ForeignKeyIndex> {
        let mut out = ForeignKeyIndex::default();
        for (db, tables) in &cat.tables {
            for entry in tables.values() {
                let def = entry.core.def();
                for (i, fk) in def.foreign_keys.iter().enumerate() {
                    out.names.insert((db.clone(), fk.name.to_ascii_lowercase()));
                    out.by_parent
                        .entry(fk.parent_schema.clone())
                        .or_default()
                        .entry(fk.parent_table.clone())
                        .or_default()
                        .push(ChildRef {
                            table: entry.handle.clone(),
                            def: def.clone(),
                            fk: i,
                        });
                }
            }
        }
        (!out.names.is_empty()).then_some(out)
    }
}

/// The cached index and the schema version it was built at.
#[derive(Default)]
pub(super) struct FkCache {
    version: u64,
    index: Option<Arc<ForeignKeyIndex>>,
}

impl Storage {
    /// The foreign keys of the catalog; `None` when no table has one.
    pub fn foreign_keys(&self) -> Option<Arc<ForeignKeyIndex>> {
        let version = self.schema_version.load(Ordering::Acquire);
        if self.fk_version.load(Ordering::Acquire) == version
            && !self.fk_any.load(Ordering::Acquire)
        {
            return None;
        }
        let mut cache = self.fk_cache.lock();
        if cache.version != version {
            let cat = self.catalog.read();
            // Read again under the catalog lock: DDL bumps the version after it
            // changed the catalog, so an index built now is at least this version.
            let version = self.schema_version.load(Ordering::Acquire);
            cache.index = ForeignKeyIndex::build(&cat).map(Arc::new);
            cache.version = version;
            self.fk_any.store(cache.index.is_some(), Ordering::Release);
            self.fk_version.store(version, Ordering::Release);
        }
        cache.index.clone()
    }

    /// After renames (already applied to the catalog), points every constraint
    /// that named a renamed parent at its new name; renames apply in order, so a
    /// chain or a swap through a temporary name ends at the right table.
    pub(super) fn retarget_foreign_keys(
        cat: &Catalog,
        renames: &[(super::rename::TableName, super::rename::TableName)],
    ) {
        for tables in cat.tables.values() {
            for entry in tables.values() {
                let def = entry.core.def();
                if def.foreign_keys.is_empty() {
                    continue;
                }
                let mut new = (*def).clone();
                let mut changed = false;
                for fk in new.foreign_keys.iter_mut() {
                    for (from, to) in renames {
                        if fk.references(&from.0, &from.1) {
                            fk.parent_schema = to.0.clone();
                            fk.parent_table = to.1.clone();
                            changed = true;
                        }
                    }
                }
                if changed {
                    entry.core.set_def(Arc::new(new));
                }
            }
        }
    }
}
