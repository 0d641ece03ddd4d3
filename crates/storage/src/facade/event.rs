//! Events in the catalog: created, altered and dropped as catalog changes only,
//! each made durable by one `catalog.json` replacement like every other DDL, so
//! a crash leaves the old or the new definition. The scheduler's record of a
//! run (LAST_EXECUTED, and the disabling or dropping of a finished event) is
//! written the same way, before the run starts. Names are unique per database
//! and compared case-insensitively. Events change no plan, so none of this
//! moves the schema version.

use super::{Catalog, Storage};
use crate::api::Result;
use crate::catalog::EventDef;
use crate::error::StorageError;
use std::sync::Arc;

fn key(name: &str) -> String {
    name.to_lowercase()
}

/// What the scheduler records before it runs an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventRun {
    /// It runs again later.
    Again,
    /// Its last run: it stays, DISABLED (ON COMPLETION PRESERVE).
    Disable,
    /// Its last run: it is dropped (ON COMPLETION NOT PRESERVE).
    Drop,
}

impl Catalog {
    pub(super) fn insert_event(&mut self, e: EventDef) {
        self.events
            .entry(e.schema.clone())
            .or_default()
            .insert(key(&e.name), Arc::new(e));
    }
}

impl Storage {
    /// The event `db.name`, if any.
    pub fn event(&self, db: &str, name: &str) -> Option<Arc<EventDef>> {
        self.catalog.read().events.get(db)?.get(&key(name)).cloned()
    }

    /// Every event, by database, then name.
    pub fn all_events(&self) -> Vec<Arc<EventDef>> {
        let cat = self.catalog.read();
        let mut dbs: Vec<&String> = cat.events.keys().collect();
        dbs.sort();
        dbs.into_iter()
            .flat_map(|d| cat.events[d].values().cloned())
            .collect()
    }

    /// Creates the event, or replaces the one of its name when `replace`.
    /// `TableExists` (the SQL layer's 1537) when it exists and not `replace`;
    /// `NoSuchDatabase` when its database does not exist.
    pub fn create_event(&self, def: EventDef, replace: bool) -> Result<()> {
        let _ddl = self.ddl.lock();
        {
            let mut cat = self.catalog.write();
            if !cat.databases.contains_key(&def.schema) {
                return Err(StorageError::NoSuchDatabase(def.schema.clone()));
            }
            let exists = cat
                .events
                .get(&def.schema)
                .is_some_and(|m| m.contains_key(&key(&def.name)));
            if exists && !replace {
                return Err(StorageError::TableExists(def.name.clone()));
            }
            cat.insert_event(def);
        }
        self.persist()
    }

    /// ALTER EVENT: puts `def` in place of `db.name` (which `def` may rename or
    /// move). `NoSuchTable` when `db.name` is gone, `TableExists` when the new
    /// name is another event's, `NoSuchDatabase` for a move to a missing one.
    pub fn alter_event(&self, db: &str, name: &str, def: EventDef) -> Result<()> {
        let _ddl = self.ddl.lock();
        {
            let mut cat = self.catalog.write();
            if !cat.databases.contains_key(&def.schema) {
                return Err(StorageError::NoSuchDatabase(def.schema.clone()));
            }
            let renamed = def.schema != db || key(&def.name) != key(name);
            let taken = cat
                .events
                .get(&def.schema)
                .is_some_and(|m| m.contains_key(&key(&def.name)));
            if renamed && taken {
                return Err(StorageError::TableExists(def.name.clone()));
            }
            let old = cat.events.get_mut(db).and_then(|m| m.remove(&key(name)));
            if old.is_none() {
                return Err(StorageError::NoSuchTable {
                    db: db.to_string(),
                    table: name.to_string(),
                });
            }
            cat.insert_event(def);
        }
        self.persist()
    }

    /// Drops an event; false when there was none.
    pub fn drop_event(&self, db: &str, name: &str) -> Result<bool> {
        let _ddl = self.ddl.lock();
        let removed = {
            let mut cat = self.catalog.write();
            cat.events
                .get_mut(db)
                .and_then(|m| m.remove(&key(name)))
                .is_some()
        };
        if removed {
            self.persist()?;
        }
        Ok(removed)
    }

    /// Records a run of `seen` starting at `at`, durably, before the body
    /// runs: a crash during the run never repeats it (`at` is `None` when an
    /// event ends without a run). Only the definition the scheduler saw is
    /// touched (an ALTER or DROP that came first wins); false when it is no
    /// longer the catalog's.
    pub fn record_event_run(
        &self,
        seen: &Arc<EventDef>,
        at: Option<i64>,
        run: EventRun,
    ) -> Result<bool> {
        let _ddl = self.ddl.lock();
        {
            let mut cat = self.catalog.write();
            let name = key(&seen.name);
            let Some(map) = cat.events.get_mut(&seen.schema) else {
                return Ok(false);
            };
            if !map.get(&name).is_some_and(|cur| Arc::ptr_eq(cur, seen)) {
                return Ok(false);
            }
            let cur = map[&name].clone();
            if run == EventRun::Drop {
                map.remove(&name);
            } else {
                let mut e = (*cur).clone();
                e.last_executed = at.or(e.last_executed);
                if run == EventRun::Disable {
                    e.status = "DISABLED".into();
                }
                map.insert(name, Arc::new(e));
            }
        }
        self.persist()?;
        Ok(true)
    }
}
