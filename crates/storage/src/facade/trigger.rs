//! Triggers in the catalog: created, replaced and dropped as catalog changes
//! only, each made durable by one `catalog.json` replacement like every other
//! DDL. A trigger belongs to its table: RENAME TABLE (and ALTER TABLE ...
//! RENAME) carries it along, DROP TABLE and DROP DATABASE drop it. Names are
//! unique per database and compared case-insensitively. A database's triggers
//! are kept in one list whose order, among the triggers of one table, timing
//! and event, is their firing order (`ACTION_ORDER`).

use super::rename::TableName;
use super::{Catalog, Storage};
use crate::api::Result;
use crate::catalog::TriggerDef;
use crate::error::StorageError;
use std::sync::Arc;

/// Where CREATE TRIGGER puts a trigger among its table's triggers of the same
/// timing and event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TriggerOrder {
    /// After the last one.
    Last,
    /// `FOLLOWS name` (true) or `PRECEDES name` (false).
    Near { follows: bool, other: String },
}

impl Catalog {
    pub(super) fn drop_triggers_of(&mut self, db: &str, table: &str) {
        if let Some(list) = self.triggers.get_mut(db) {
            list.retain(|t| t.table != table);
        }
    }

    /// Moves the triggers of each renamed table with it (the SQL layer refuses a
    /// move to another database first, as MariaDB does with 1435).
    pub(super) fn retarget_triggers(&mut self, pairs: &[(TableName, TableName)]) {
        for (from, to) in pairs {
            let Some(list) = self.triggers.get_mut(&from.0) else {
                continue;
            };
            let (moved, kept): (Vec<_>, Vec<_>) = list.drain(..).partition(|t| t.table == from.1);
            *list = kept;
            for t in moved {
                let mut def = (*t).clone();
                def.schema = to.0.clone();
                def.table = to.1.clone();
                self.triggers
                    .entry(to.0.clone())
                    .or_default()
                    .push(Arc::new(def));
            }
        }
    }
}

impl Storage {
    /// The trigger `db.name`, if any.
    pub fn trigger(&self, db: &str, name: &str) -> Option<Arc<TriggerDef>> {
        self.catalog
            .read()
            .triggers
            .get(db)?
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(name))
            .cloned()
    }

    /// The triggers of `db.table` in firing order (empty for most tables).
    pub fn triggers_of(&self, db: &str, table: &str) -> Vec<Arc<TriggerDef>> {
        let cat = self.catalog.read();
        match cat.triggers.get(db) {
            Some(list) => list.iter().filter(|t| t.table == table).cloned().collect(),
            None => Vec::new(),
        }
    }

    /// Every trigger, by database, each database's in its list's order.
    pub fn all_triggers(&self) -> Vec<Arc<TriggerDef>> {
        let cat = self.catalog.read();
        let mut dbs: Vec<&String> = cat.triggers.keys().collect();
        dbs.sort();
        dbs.into_iter()
            .flat_map(|d| cat.triggers[d].iter().cloned())
            .collect()
    }

    /// Creates the trigger (replacing the one of its name when `replace`).
    /// `TableExists` when the name is taken and not `replace`; `NoSuchTable`
    /// when its table is gone; 4031 when `order` names no trigger of the
    /// same table, timing and event (MariaDB's 4031).
    pub fn create_trigger(
        &self,
        def: TriggerDef,
        replace: bool,
        order: &TriggerOrder,
    ) -> Result<()> {
        let _ddl = self.ddl.lock();
        {
            let mut cat = self.catalog.write();
            if !cat
                .tables
                .get(&def.schema)
                .is_some_and(|m| m.contains_key(&def.table))
            {
                return Err(StorageError::NoSuchTable {
                    db: def.schema.clone(),
                    table: def.table.clone(),
                });
            }
            let list = cat.triggers.entry(def.schema.clone()).or_default();
            let old = list
                .iter()
                .position(|t| t.name.eq_ignore_ascii_case(&def.name));
            if old.is_some() && !replace {
                return Err(StorageError::TableExists(def.name.clone()));
            }
            let same = |t: &TriggerDef| {
                t.table == def.table && t.timing == def.timing && t.event == def.event
            };
            let at = match order {
                TriggerOrder::Last => list.len(),
                TriggerOrder::Near { follows, other } => {
                    let i = list
                        .iter()
                        .position(|t| same(t) && t.name.eq_ignore_ascii_case(other))
                        .ok_or_else(|| StorageError::Sql(no_referenced(other)))?;
                    i + usize::from(*follows)
                }
            };
            list.insert(at, Arc::new(def));
            if let Some(i) = old {
                list.remove(if i >= at { i + 1 } else { i });
            }
        }
        self.bump();
        self.persist()
    }

    /// Drops a trigger; false when there was none.
    pub fn drop_trigger(&self, db: &str, name: &str) -> Result<bool> {
        let _ddl = self.ddl.lock();
        let removed = {
            let mut cat = self.catalog.write();
            match cat.triggers.get_mut(db) {
                Some(list) => {
                    let before = list.len();
                    list.retain(|t| !t.name.eq_ignore_ascii_case(name));
                    list.len() != before
                }
                None => false,
            }
        };
        if removed {
            self.bump();
            self.persist()?;
        }
        Ok(removed)
    }
}

fn no_referenced(name: &str) -> basalt_common::MySqlError {
    basalt_common::MySqlError::new(
        4031,
        "HY000",
        format!(
            "Referenced trigger '{name}' for the given action time and event type does not exist"
        ),
    )
}
