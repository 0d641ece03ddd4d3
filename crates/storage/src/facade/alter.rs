//! ALTER TABLE in the storage layer: a change of definition in place, or a table copy
//! (blocking writers, as below, or online: `alter_online`).
//!
//! # In place (rename of the table, a column or an index; defaults; comments;
//! AUTO_INCREMENT=; dropped CHECK constraints; columns added at the end, see
//! `ColumnDef::absent`)
//! The stored rows stay valid under the new definition. The DDL takes the table's
//! metadata lock exclusively (it waits for every open transaction that used the
//! table), replaces the definition, and writes the catalog.
//!
//! # Table copy (everything that changes how rows or indexes are stored)
//! 1. Block writes: wait for the transactions that wrote the table to end and keep
//!    new writers waiting. Readers go on reading the old table meanwhile.
//! 2. Create the new table under a fresh table id (so a fresh file) that no catalog
//!    entry names, copy every committed row into it converted by the SQL layer
//!    (which may refuse a row: the ALTER then fails and the new table is dropped),
//!    building every index and checking uniqueness, and checkpoint its file.
//! 3. Wait for reader transactions to end too (the short exclusive section), point
//!    the catalog entry at the new table, write the catalog (one atomic rename of
//!    `catalog.json`), then free the old table's file.
//!
//! Crash safety: before the catalog write of step 3 the durable catalog names the
//! old table only, and the next start removes the new table's file as an orphan;
//! after it the catalog names the new table only, whose file was complete and
//! checkpointed before, and the start removes the old file if its removal had not
//! happened. The new table's rows are never in the log, so recovery never redoes
//! half of it.
//!
//! What blocks: writers of the table from the start to the end of the ALTER (up to
//! their lock wait timeout, errno 1205); readers only during step 3, which lasts a
//! catalog write (one fsync'd rename) after the last reader transaction that used
//! the table ends. A statement planned against the old table that reaches it after
//! the switch reads the old rows if it only reads, and fails with 1412 if it writes
//! (the SQL layer plans and runs an autocommit statement again).

use super::{Storage, TableEntry};
use crate::error::StorageError;
use crate::partition::layout;
use crate::table::TableCore;
use basalt_common::{Row, TableDef};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// An ALTER TABLE as the storage layer runs it.
pub struct AlterSpec {
    /// The new definition; its `schema` and `name` may differ (RENAME). Ids are
    /// assigned here.
    pub def: TableDef,
    /// Copy the rows into a new table; otherwise the rows as stored must stay valid
    /// under `def` (same columns, types, order and indexes).
    pub copy: bool,
    /// `AUTO_INCREMENT=`.
    pub auto_increment: Option<u64>,
    /// The only change is one added secondary index (its id 0 in `def`): build
    /// it in place while writers go on, without a copy (see `alter_online`).
    pub add_index: bool,
    /// Let writers go on during the copy (see `alter_online`). The caller
    /// promises that every row keeps its primary key bytes (same key columns,
    /// types and collations); a table without a primary key copies blocking.
    pub online: bool,
    /// How long to wait for transactions that use the table (`lock_wait_timeout`).
    pub timeout: Duration,
    /// ALTER IGNORE: a copied row that clashes with a row copied before it in a
    /// primary or unique key is left out and counted here (the copy then blocks
    /// writers). `None`: the clash fails the ALTER.
    pub duplicates: Option<Arc<AtomicU64>>,
}

/// Converts one row of the old table (its ordinal, from 1) to the new definition.
pub type Convert<'a, E> = dyn FnMut(Row, u64) -> Result<Row, E> + 'a;

impl Storage {
    /// Runs an ALTER TABLE of `db`.`name` (see the module docs).
    pub fn alter_table<E: From<StorageError>>(
        &self,
        db: &str,
        name: &str,
        spec: AlterSpec,
        convert: &mut Convert<'_, E>,
    ) -> Result<(), E> {
        let _ddl = self.ddl.lock();
        let old = self.core(db, name)?;
        let was = layout::is_stored_partitioned(&old.def());
        let will = spec.def.partitioning.is_some();
        if !was && !will {
            return self.alter_stored(&old, spec, convert);
        }
        let mut spec = spec;
        let router = match will {
            true => Some(self.catalog.read().routers.router(&spec.def)?),
            false => None,
        };
        if will {
            spec.def = layout::stored_def(&spec.def);
        }
        if was != will {
            // The partition column comes or goes: every row is rewritten.
            spec.copy = true;
            spec.add_index = false;
        }
        if old.def().partitioning != spec.def.partitioning {
            // Rows may change partition, so their stored keys change.
            spec.online = false;
        }
        let live: Vec<u32> = old
            .def()
            .partitioning
            .iter()
            .flat_map(|p| p.parts.iter().map(|x| x.id))
            .collect();
        let mut routed = |row: Row, n: u64| -> Result<Row, E> {
            if was && !layout::row_partition(&row).is_some_and(|p| live.contains(&p)) {
                // A row of a dropped partition not deleted yet (see
                // `Storage::delete_partition_rows`).
                return Ok(Vec::new());
            }
            let row = if was { layout::logical_row(row) } else { row };
            let out = convert(row, n)?;
            match &router {
                Some(r) => Ok(layout::stored_row(r.route(&out)?, &out)),
                None => Ok(out),
            }
        };
        self.alter_stored(&old, spec, &mut routed)
    }

    /// [`Storage::alter_table`] with `spec.def` and `convert` in stored form.
    fn alter_stored<E: From<StorageError>>(
        &self,
        old: &Arc<TableCore>,
        spec: AlterSpec,
        convert: &mut Convert<'_, E>,
    ) -> Result<(), E> {
        let (db, name) = {
            let d = old.def();
            (d.schema.clone(), d.name.clone())
        };
        let (db, name) = (db.as_str(), name.as_str());
        self.check_target(db, name, &spec.def)?;
        let deadline = Instant::now() + spec.timeout;
        if !spec.copy {
            return Ok(self.alter_in_place(old, spec, deadline)?);
        }
        let online = spec.online
            && spec.duplicates.is_none()
            && !old.def().has_hidden_pk()
            && !spec.def.has_hidden_pk();
        let r = if spec.add_index && spec.duplicates.is_none() {
            self.add_index_online(old, spec.def, deadline)
                .map_err(E::from)
        } else if online {
            match super::alter_online::begin(&self.mgr, old, deadline) {
                Ok(v0) => self.copy_and_switch(old, spec, convert, deadline, Some(v0)),
                Err(e) => Err(e.into()),
            }
        } else {
            match old.mdl_block_writes(deadline) {
                Ok(()) => self.copy_and_switch(old, spec, convert, deadline, None),
                Err(e) => Err(e.into()),
            }
        };
        old.stop_capture();
        old.mdl_end_ddl();
        r
    }

    /// A renamed table's database must exist and its new name be free.
    fn check_target(&self, db: &str, name: &str, def: &TableDef) -> crate::api::Result<()> {
        if def.schema == db && def.name == name {
            return Ok(());
        }
        let cat = self.catalog.read();
        if !cat.databases.contains_key(&def.schema) {
            return Err(StorageError::NoSuchDatabase(def.schema.clone()));
        }
        if cat
            .tables
            .get(&def.schema)
            .is_some_and(|m| m.contains_key(&def.name))
        {
            return Err(StorageError::TableExists(def.name.clone()));
        }
        Ok(())
    }

    fn alter_in_place(
        &self,
        core: &Arc<TableCore>,
        spec: AlterSpec,
        deadline: Instant,
    ) -> crate::api::Result<()> {
        let old = core.def();
        let mut def = spec.def;
        def.id = old.id;
        let timeout = deadline.saturating_duration_since(Instant::now());
        core.with_exclusive(timeout, || {
            if let Some(n) = spec.auto_increment {
                def.auto_increment_start = n;
            }
            let renamed = def.schema != old.schema || def.name != old.name;
            core.set_def(Arc::new(def));
            if let Some(n) = spec.auto_increment {
                core.set_auto_increment(n)?;
            }
            if renamed {
                let mut cat = self.catalog.write();
                let entry = cat
                    .tables
                    .get_mut(&old.schema)
                    .and_then(|m| m.remove(&old.name));
                if let Some(entry) = entry {
                    cat.place(entry);
                }
                let now = core.def();
                let pair = (
                    (old.schema.clone(), old.name.clone()),
                    (now.schema.clone(), now.name.clone()),
                );
                Storage::retarget_foreign_keys(&cat, std::slice::from_ref(&pair));
                cat.retarget_triggers(&[pair]);
            }
            Ok(())
        })?;
        self.bump();
        self.persist()?;
        self.drop_unnamed_trees(core, &old)
    }

    /// Frees the trees of the keys an in-place ALTER dropped, once the catalog no
    /// longer names them (a crash before this leaves trees the next start drops),
    /// and checkpoints the file so no later log record refers to them.
    pub(super) fn drop_unnamed_trees(
        &self,
        core: &Arc<TableCore>,
        old: &TableDef,
    ) -> crate::api::Result<()> {
        let now = core.def();
        let dropped: Vec<u32> = (old.indexes.iter())
            .map(|i| i.id)
            .filter(|id| !now.indexes.iter().any(|i| i.id == *id))
            .collect();
        if dropped.is_empty() {
            return Ok(());
        }
        for id in dropped {
            core.store().drop_tree(id)?;
        }
        self.engines.get(now.engine).after_ddl(&now, core.store())
    }

    /// Copies `old` into a new table and switches the catalog to it; with `v0`
    /// (an online copy begun at that view) while writers go on, else with writers
    /// held out from the start.
    fn copy_and_switch<E: From<StorageError>>(
        &self,
        old: &Arc<TableCore>,
        spec: AlterSpec,
        convert: &mut Convert<'_, E>,
        deadline: Instant,
        v0: Option<super::alter_online::HeldView<'_>>,
    ) -> Result<(), E> {
        let old_def = old.def();
        let mut def = spec.def;
        def.id = {
            let mut cat = self.catalog.write();
            cat.next_table_id += 1;
            cat.next_table_id - 1
        };
        for (i, ix) in def.indexes.iter_mut().enumerate() {
            ix.id = i as u32 + 1;
        }
        def.next_index_id = def.indexes.len() as u32 + 1;
        def.auto_increment_start = spec.auto_increment.unwrap_or(old_def.auto_increment_start);
        let engine = self.engines.get(def.engine);
        let store = engine.create_store(&def)?;
        let new = TableCore::new(Arc::new(def.clone()), store, self.mgr.clone());
        // Set once writers are out: every version copied was written by a
        // transaction with a smaller id.
        let copied = match v0 {
            None => {
                new.set_rebuilt_at(self.mgr.next_id());
                fill(old, &new, None, spec.duplicates.as_deref(), convert).map(|_| ())
            }
            Some(v0) => {
                let checkpoint = || engine.after_ddl(&def, new.store());
                super::alter_online::copy(&self.mgr, old, &new, v0, convert, &checkpoint, deadline)
                    .map(|()| {
                        // Views taken from now on have a higher limit, so they
                        // read the copy (see `Txn::check_rebuilt`).
                        let at = self.mgr.next_id();
                        self.mgr.bump_next_id(at);
                        new.set_rebuilt_at(at);
                    })
            }
        };
        let filled = copied.and_then(|()| {
            // Writers are out: the counter is final.
            let counter = spec
                .auto_increment
                .unwrap_or_else(|| old.peek_auto_increment());
            new.set_auto_increment(counter)?;
            engine.after_ddl(&def, new.store())?;
            Ok(old.mdl_upgrade(deadline)?)
        });
        if let Err(e) = filled {
            new.mark_dropped();
            if let Err(d) = engine.drop_store(&def) {
                tracing::warn!(error = %d, "dropping the copy of a failed ALTER TABLE failed");
            }
            return Err(e);
        }
        self.switch(old, new)?;
        if let Err(e) = self.engines.get(old_def.engine).drop_store(&old_def) {
            // The catalog no longer names the file: the next start removes it.
            tracing::warn!(table = %old_def.qualified_name(), error = %e, "freeing the table replaced by ALTER TABLE failed");
        }
        Ok(())
    }

    /// Points the catalog at `new` in place of `old` (held exclusively) and writes it.
    fn switch(&self, old: &Arc<TableCore>, new: Arc<TableCore>) -> crate::api::Result<()> {
        let old_def = old.def();
        let entry = {
            let mut cat = self.catalog.write();
            let entry = cat
                .tables
                .get_mut(&old_def.schema)
                .and_then(|m| m.remove(&old_def.name));
            cat.insert(new.clone());
            let now = new.def();
            if now.schema != old_def.schema || now.name != old_def.name {
                let pair = (
                    (old_def.schema.clone(), old_def.name.clone()),
                    (now.schema.clone(), now.name.clone()),
                );
                Storage::retarget_foreign_keys(&cat, std::slice::from_ref(&pair));
                cat.retarget_triggers(&[pair]);
            }
            entry
        };
        self.bump();
        if let Err(e) = self.persist() {
            let mut cat = self.catalog.write();
            let def = new.def();
            if let Some(m) = cat.tables.get_mut(&def.schema) {
                m.remove(&def.name);
            }
            if let Some(entry) = entry {
                cat.place(entry);
            }
            new.mark_dropped();
            let _ = self.engines.get(def.engine).drop_store(&def);
            return Err(e);
        }
        old.mark_dropped();
        Ok(())
    }
}

/// Copies every committed row of `old` (as `view` sees it, when given) into `new`,
/// converted; the first refusal of `convert` (or storage error) stops the copy.
/// With `duplicates`, a row clashing in a unique key with one copied before is
/// left out and counted there. Returns the number of rows read.
pub(super) fn fill<E: From<StorageError>>(
    old: &TableCore,
    new: &TableCore,
    view: Option<&crate::mvcc::ReadView>,
    duplicates: Option<&AtomicU64>,
    convert: &mut Convert<'_, E>,
) -> Result<u64, E> {
    let mut refused: Option<E> = None;
    let mut n = 0u64;
    let r = old.for_each_visible(view, None, &mut |_, trx, row| {
        n += 1;
        match convert(row, n) {
            // An empty row: the conversion leaves this one out.
            Ok(row) if row.is_empty() => Ok(()),
            Ok(row) => match (new.load_row(trx, &row), duplicates) {
                (Err(StorageError::DuplicateKey { .. }), Some(d)) => {
                    d.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                }
                (r, _) => r,
            },
            Err(e) => {
                refused = Some(e);
                Err(StorageError::Interrupted)
            }
        }
    });
    match (r, refused) {
        (_, Some(e)) => Err(e),
        (Err(e), None) => Err(e.into()),
        (Ok(()), None) => Ok(n),
    }
}

impl super::Catalog {
    /// Files an existing entry under its table's (possibly new) name.
    fn place(&mut self, entry: TableEntry) {
        let def = entry.core.def();
        self.tables
            .entry(def.schema.clone())
            .or_default()
            .insert(def.name.clone(), entry);
    }
}
