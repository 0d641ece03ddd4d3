//! [`Storage`]: the catalog of databases and tables, the engines behind them, and
//! transactions.
//!
//! DDL is serialized by one mutex, takes the affected table's metadata lock
//! exclusively (waiting for transactions that wrote the table), and ends by writing the
//! catalog durably. Lookups of tables take a read lock on the name map only.

mod event;
mod foreign_key;
mod maintenance;
mod rename;
mod routine;
mod temp;
mod trigger;
mod view;

use crate::api::*;
use crate::catalog::{self, CatalogImage, DatabaseDef, EventDef, RoutineDef, TriggerDef, ViewDef};
use crate::engine::EngineSet;
use crate::error::StorageError;
use crate::io::FileSystem;
use crate::mvcc::TxnManager;
use crate::partition;
use crate::table::{TableCore, TableHandle};
use crate::txn::Txn;
use basalt_common::{Collation, EngineKind, IndexDef, TableDef};
use parking_lot::{Mutex, RwLock};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

mod accounts;
mod alter;
mod alter_online;
mod collation_upgrade;
mod partition_rows;
pub use alter::AlterSpec;
pub use event::EventRun;
pub use foreign_key::{ChildRef, ForeignKeyIndex};
pub use temp::{is_temp_id, TempTable, TEMP_ID_BASE};
pub use trigger::TriggerOrder;

/// How the storage layer is set up at start.
#[derive(Clone)]
pub struct StorageConfig {
    pub datadir: PathBuf,
    /// Bytes of page cache for durable tables.
    pub buffer_pool_size: u64,
    /// 1: fsync at commit; 2: write at commit, fsync each second; 0: both each second.
    pub flush_log_at_trx_commit: u8,
    pub fs: Arc<dyn FileSystem>,
    /// Size of each preallocated log segment.
    pub log_segment_size: u64,
    /// Called when the log hits an unrecoverable I/O error (a failed fsync): the
    /// server logs it and aborts, so that restart recovers from the log. `None`
    /// keeps the WAL's default (the engine halts: every later commit fails).
    pub on_fatal: Option<crate::wal::FatalHook>,
    /// Checkpoint at least this often...
    pub checkpoint_interval: Duration,
    /// ...and whenever this much log accumulated since the last checkpoint (this
    /// bounds recovery time).
    pub checkpoint_log_bytes: u64,
    /// Start even when valid log records follow a damaged one, discarding them (they
    /// may include acknowledged commits). Off: opening fails and changes nothing.
    pub discard_damaged_log_tail: bool,
    /// Rewrites into the binlog files the groups a crash may have kept from them
    /// (see [`crate::binlog`]); `None` refuses to open a log holding binlog groups.
    pub binlog_recovery: Option<crate::binlog::BinlogRecovery>,
}

impl StorageConfig {
    /// Defaults on the real filesystem.
    pub fn new(datadir: impl Into<PathBuf>) -> Self {
        StorageConfig {
            datadir: datadir.into(),
            buffer_pool_size: 128 << 20,
            flush_log_at_trx_commit: 1,
            fs: Arc::new(crate::io::os::OsFileSystem),
            log_segment_size: 64 << 20,
            on_fatal: None,
            checkpoint_interval: Duration::from_secs(30),
            checkpoint_log_bytes: 128 << 20,
            discard_damaged_log_tail: false,
            binlog_recovery: None,
        }
    }
}

struct TableEntry {
    core: Arc<TableCore>,
    handle: Arc<dyn Table>,
}

struct Catalog {
    /// Each database's default collation and comment.
    databases: BTreeMap<String, (Collation, String)>,
    tables: HashMap<String, HashMap<String, TableEntry>>,
    /// Views by database and name.
    views: HashMap<String, BTreeMap<String, Arc<ViewDef>>>,
    /// Stored routines by database and (kind, lower-case name).
    routines: HashMap<String, BTreeMap<(String, String), Arc<RoutineDef>>>,
    /// Triggers by database, each table's in firing order.
    triggers: HashMap<String, Vec<Arc<TriggerDef>>>,
    /// Events by database and lower-case name.
    events: HashMap<String, BTreeMap<String, Arc<EventDef>>>,
    /// Accounts and grants (see [`Storage::accounts`]).
    accounts: Option<Arc<serde_json::Value>>,
    next_table_id: u64,
    /// Tables opened since start (`Opened_tables`): at start, and by each
    /// CREATE and each table copy or rename that replaces a table.
    opened: u64,
    /// Where partitioned tables get their routers (see `crate::partition`).
    routers: Arc<crate::partition::RouterSlot>,
}

/// The catalog (databases, tables) and the engines behind it.
pub struct Storage {
    config: StorageConfig,
    mgr: Arc<TxnManager>,
    engines: EngineSet,
    catalog: RwLock<Catalog>,
    ddl: Mutex<()>,
    schema_version: AtomicU64,
    purge: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// The sweep of garbage an unclean stop left (see `table::sweep`): its thread,
    /// which returns whether it finished, and how many tables it has still to do.
    sweep: Mutex<Option<std::thread::JoinHandle<bool>>>,
    sweep_pending: Arc<AtomicUsize>,
    /// The foreign key graph (see `foreign_key`): the cached index, the version it
    /// was built at, and whether it has any key.
    fk_cache: Mutex<foreign_key::FkCache>,
    fk_version: AtomicU64,
    fk_any: std::sync::atomic::AtomicBool,
}

/// How long DDL waits for transactions holding the table (MySQL's lock_wait_timeout
/// is a year; DDL here gives up sooner with errno 1205).
const DDL_WAIT: Duration = Duration::from_secs(3600);

impl Storage {
    pub fn open(config: StorageConfig) -> Result<Arc<Storage>> {
        config.fs.create_dir_all(&config.datadir)?;
        let image = catalog::load(&*config.fs, &config.datadir)?;
        let fresh = image.is_none();
        let old_keys = image
            .as_ref()
            .is_some_and(|i| i.format < catalog::FORMAT_VERSION);
        let image = image.unwrap_or_else(CatalogImage::empty);
        let (engines, first_trx) = EngineSet::open(&config, &image.tables)?;
        let mgr = TxnManager::new(first_trx);
        let mut swept = Vec::new();
        let mut cat = Catalog {
            databases: image
                .databases
                .iter()
                .map(|d| (d.name.clone(), (d.collation, d.comment.clone())))
                .collect(),
            tables: HashMap::new(),
            views: HashMap::new(),
            routines: HashMap::new(),
            triggers: HashMap::new(),
            events: HashMap::new(),
            accounts: image.accounts.map(Arc::new),
            next_table_id: image.next_table_id,
            opened: 0,
            routers: Default::default(),
        };
        for v in image.views {
            cat.views
                .entry(v.schema.clone())
                .or_default()
                .insert(v.name.clone(), Arc::new(v));
        }
        for r in image.routines {
            cat.insert_routine(r);
        }
        for t in image.triggers {
            cat.triggers
                .entry(t.schema.clone())
                .or_default()
                .push(Arc::new(t));
        }
        for e in image.events {
            cat.insert_event(e);
        }
        for def in image.tables {
            let engine = engines.get(def.engine);
            let store = engine.open_store(&def)?;
            let core = TableCore::new(Arc::new(def.clone()), store, mgr.clone());
            if let Err(e) = core.init_counters() {
                tracing::error!(table = %def.qualified_name(), error = %e, "cannot read table at start-up");
            }
            if def.engine == EngineKind::Basalt {
                swept.push(core.clone());
            }
            cat.insert(core);
        }
        let storage = Arc::new(Storage {
            config,
            mgr: mgr.clone(),
            engines,
            catalog: RwLock::new(cat),
            ddl: Mutex::new(()),
            schema_version: AtomicU64::new(1),
            purge: Mutex::new(None),
            sweep: Mutex::new(None),
            sweep_pending: Arc::new(AtomicUsize::new(0)),
            fk_cache: Mutex::new(Default::default()),
            fk_version: AtomicU64::new(0),
            fk_any: std::sync::atomic::AtomicBool::new(false),
        });
        if fresh {
            storage.bootstrap()?;
        }
        storage.engines.start(&storage.mgr)?;
        if old_keys {
            storage.upgrade_collation_keys()?;
            storage.persist()?;
            // Tables replaced by their copies need no sweep.
            swept.retain(|c| !c.is_dropped());
        }
        if !storage.engines.previous_stop_clean() && !swept.is_empty() {
            storage.start_sweep(swept, first_trx)?;
        }
        let handle = std::thread::Builder::new()
            .name("basalt-purge".into())
            .spawn(move || mgr.purge_loop())?;
        *storage.purge.lock() = Some(handle);
        Ok(storage)
    }

    /// Purges, in the background, the delete-marked entries of `tables` left by
    /// transactions before `first_trx` (the previous run did not finish purge), then
    /// checkpoints: purge is not logged, and a crash must not bring the garbage back.
    /// `Basalt_purge_sweep_tables_pending` counts down to 0 once that is durable.
    fn start_sweep(&self, tables: Vec<Arc<TableCore>>, first_trx: u64) -> Result<()> {
        let mgr = self.mgr.clone();
        let pending = self.sweep_pending.clone();
        let checkpoint = self.engines.checkpointer();
        pending.store(tables.len().max(1), Ordering::SeqCst);
        let handle = std::thread::Builder::new()
            .name("basalt-sweep".into())
            .spawn(move || {
                let n = tables.len();
                let mut complete = true;
                for (i, core) in tables.into_iter().enumerate() {
                    if mgr.stopping() {
                        return false;
                    }
                    complete &= sweep_table(&core, first_trx);
                    if i + 1 < n {
                        pending.fetch_sub(1, Ordering::SeqCst);
                    }
                }
                if mgr.stopping() {
                    return false;
                }
                if let Err(e) = checkpoint() {
                    complete = false;
                    tracing::warn!(error = %e, "checkpoint after the purge sweep failed");
                }
                pending.store(0, Ordering::SeqCst);
                complete && !mgr.stopping()
            })?;
        *self.sweep.lock() = Some(handle);
        Ok(())
    }

    /// A new data directory starts with the databases MariaDB's installer creates
    /// that clients expect (`test`, `mysql`).
    fn bootstrap(&self) -> Result<()> {
        for db in ["mysql", "test"] {
            self.create_database(db, Collation::Utf8mb4GeneralCi)?;
        }
        Ok(())
    }

    /// Installs (or removes, `None`) the binary log commits write their events to.
    pub fn set_binlog(&self, sink: Option<Arc<dyn crate::binlog::BinlogSink>>) {
        self.engines.durable().set_binlog(sink);
    }

    /// Appends binlog event groups of their own to the log.
    pub fn log_appender(&self) -> Arc<dyn crate::binlog::LogAppend> {
        self.engines.durable().log_appender()
    }

    pub fn begin(self: &Arc<Self>, opts: TxnOptions) -> Txn {
        Txn::new(self.mgr.clone(), self.engines.commit_log(), opts)
    }

    /// Database names, sorted.
    pub fn databases(&self) -> Vec<String> {
        self.catalog.read().databases.keys().cloned().collect()
    }

    pub fn database_exists(&self, name: &str) -> bool {
        self.catalog.read().databases.contains_key(name)
    }

    /// The default collation of a database (`SHOW CREATE DATABASE`).
    pub fn database_collation(&self, name: &str) -> Option<Collation> {
        self.catalog.read().databases.get(name).map(|d| d.0)
    }

    /// The comment of a database (empty when it has none).
    pub fn database_comment(&self, name: &str) -> Option<String> {
        self.catalog.read().databases.get(name).map(|d| d.1.clone())
    }

    pub fn create_database(&self, name: &str, collation: Collation) -> Result<()> {
        self.create_database_with(name, collation, "")
    }

    /// CREATE DATABASE with a comment.
    pub fn create_database_with(
        &self,
        name: &str,
        collation: Collation,
        comment: &str,
    ) -> Result<()> {
        let _ddl = self.ddl.lock();
        {
            let mut cat = self.catalog.write();
            if cat.databases.contains_key(name) {
                return Err(StorageError::DatabaseExists(name.to_string()));
            }
            cat.databases
                .insert(name.to_string(), (collation, comment.to_string()));
        }
        self.persist()
    }

    /// Drops the database and every table in it; returns how many tables were dropped.
    pub fn drop_database(&self, name: &str) -> Result<usize> {
        let _ddl = self.ddl.lock();
        if !self.database_exists(name) {
            return Err(StorageError::NoSuchDatabase(name.to_string()));
        }
        let names: Vec<String> = self.tables(name)?;
        let mut dropped = Vec::new();
        for t in &names {
            dropped.push(self.unlink_table(name, t)?);
        }
        {
            let mut cat = self.catalog.write();
            cat.databases.remove(name);
            cat.views.remove(name);
            cat.routines.remove(name);
            cat.triggers.remove(name);
            cat.events.remove(name);
        }
        self.bump();
        self.persist()?;
        for def in dropped {
            self.engines.get(def.engine).drop_store(&def)?;
        }
        Ok(names.len())
    }

    /// Table names of a database, sorted.
    pub fn tables(&self, db: &str) -> Result<Vec<String>> {
        let cat = self.catalog.read();
        if !cat.databases.contains_key(db) {
            return Err(StorageError::NoSuchDatabase(db.to_string()));
        }
        let mut names: Vec<String> = cat
            .tables
            .get(db)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        names.sort();
        Ok(names)
    }

    pub fn table(&self, db: &str, name: &str) -> Option<Arc<dyn Table>> {
        let cat = self.catalog.read();
        cat.tables.get(db)?.get(name).map(|e| e.handle.clone())
    }

    fn core(&self, db: &str, name: &str) -> Result<Arc<TableCore>> {
        let cat = self.catalog.read();
        cat.tables
            .get(db)
            .and_then(|m| m.get(name))
            .map(|e| e.core.clone())
            .ok_or_else(|| StorageError::NoSuchTable {
                db: db.to_string(),
                table: name.to_string(),
            })
    }

    /// Installs what partitioned tables route their rows with (the SQL layer
    /// does, once, before any statement runs).
    pub fn set_partition_routers(&self, factory: Arc<dyn partition::RouterFactory>) {
        self.catalog.read().routers.set(factory);
    }

    /// Creates a table; `def.id` and index ids are assigned here. A partitioned
    /// table (`def.partitioning`) is stored with its partition column
    /// (`partition::layout`).
    pub fn create_table(&self, mut def: TableDef) -> Result<Arc<dyn Table>> {
        let _ddl = self.ddl.lock();
        if def.partitioning.is_some() {
            def = partition::layout::stored_def(&def);
        }
        {
            let mut cat = self.catalog.write();
            if !cat.databases.contains_key(&def.schema) {
                return Err(StorageError::NoSuchDatabase(def.schema.clone()));
            }
            if cat
                .tables
                .get(&def.schema)
                .is_some_and(|m| m.contains_key(&def.name))
                || cat.has_view(&def.schema, &def.name)
            {
                return Err(StorageError::TableExists(def.name.clone()));
            }
            def.id = cat.next_table_id;
            cat.next_table_id += 1;
        }
        for (i, ix) in def.indexes.iter_mut().enumerate() {
            ix.id = i as u32 + 1;
        }
        def.next_index_id = def.indexes.len() as u32 + 1;
        let store = self.engines.get(def.engine).create_store(&def)?;
        let core = TableCore::new(Arc::new(def), store, self.mgr.clone());
        let handle = self.catalog.write().insert(core);
        self.bump();
        self.persist()?;
        Ok(handle)
    }

    /// Drops a table: it leaves the catalog (durably) before its data file goes, so a
    /// crash in between leaves an orphan file that the next start removes.
    pub fn drop_table(&self, db: &str, name: &str) -> Result<()> {
        let _ddl = self.ddl.lock();
        let def = self.unlink_table(db, name)?;
        self.persist()?;
        self.engines.get(def.engine).drop_store(&def)
    }

    /// Removes a table from the name map once no transaction holds it.
    fn unlink_table(&self, db: &str, name: &str) -> Result<Arc<TableDef>> {
        let core = self.core(db, name)?;
        core.with_exclusive(DDL_WAIT, || {
            let mut cat = self.catalog.write();
            if let Some(m) = cat.tables.get_mut(db) {
                m.remove(name);
            }
            cat.drop_triggers_of(db, name);
            core.mark_dropped();
            Ok(())
        })?;
        self.bump();
        Ok(core.def())
    }

    /// Empties a table and resets its AUTO_INCREMENT counter.
    pub fn truncate_table(&self, db: &str, name: &str) -> Result<()> {
        let _ddl = self.ddl.lock();
        let core = self.core(db, name)?;
        let def = core.def();
        core.with_exclusive(DDL_WAIT, || {
            self.engines
                .get(def.engine)
                .truncate_store(&def, core.store())?;
            core.reset_after_truncate();
            Ok(())
        })?;
        self.bump();
        Ok(())
    }

    /// Adds an index (id assigned here) and fills it from the table's rows; fails
    /// with a duplicate-key error if a UNIQUE index meets two equal keys.
    pub fn create_index(&self, db: &str, table: &str, mut index: IndexDef) -> Result<()> {
        let _ddl = self.ddl.lock();
        let core = self.core(db, table)?;
        if partition::layout::is_stored_partitioned(&core.def()) {
            index = partition::layout::stored_index(&index);
        }
        core.with_exclusive(DDL_WAIT, || {
            let mut def = (*core.def()).clone();
            index.id = def.next_index_id;
            def.next_index_id += 1;
            def.indexes.push(index);
            core.build_index(Arc::new(def))
        })?;
        let def = core.def();
        self.engines.get(def.engine).after_ddl(&def, core.store())?;
        self.bump();
        self.persist()
    }

    /// Drops an index: the catalog forgets it (durably) before its tree is freed, so a
    /// crash in between leaves an unknown tree that the next start drops.
    pub fn drop_index(&self, db: &str, table: &str, index: &str) -> Result<()> {
        let _ddl = self.ddl.lock();
        let core = self.core(db, table)?;
        let old = core.def();
        core.with_exclusive(DDL_WAIT, || {
            let mut def = (*core.def()).clone();
            let Some(pos) = def
                .indexes
                .iter()
                .position(|i| i.name.eq_ignore_ascii_case(index))
            else {
                return Err(StorageError::Invalid(format!("no index {index}")));
            };
            def.indexes.remove(pos);
            core.set_def(Arc::new(def));
            Ok(())
        })?;
        self.bump();
        self.persist()?;
        self.drop_unnamed_trees(&core, &old)
    }

    /// Bumped by every DDL; plan caches compare it to know their plans are current.
    pub fn schema_version(&self) -> u64 {
        self.schema_version.load(Ordering::SeqCst)
    }

    fn bump(&self) {
        self.schema_version.fetch_add(1, Ordering::SeqCst);
    }

    /// Counters for `SHOW GLOBAL STATUS` (name, value).
    pub fn status(&self) -> Vec<(&'static str, u64)> {
        let s = &self.mgr.stats;
        let (versions, version_bytes) = self.mgr.versions.usage();
        // Basalt keeps every table open (there is no table cache to leave).
        let (open, opened) = {
            let cat = self.catalog.read();
            let open: usize = cat.tables.values().map(|m| m.len()).sum();
            (open as u64, cat.opened)
        };
        let mut out = vec![
            ("Open_tables", open),
            ("Open_table_definitions", open),
            ("Opened_tables", opened),
            ("Opened_table_definitions", opened),
            (
                "Innodb_row_lock_waits",
                s.lock_waits.load(Ordering::Relaxed),
            ),
            ("Innodb_deadlocks", s.deadlocks.load(Ordering::Relaxed)),
            (
                "Innodb_row_lock_time",
                s.lock_wait_ms.load(Ordering::Relaxed),
            ),
            (
                "Innodb_row_lock_time_avg",
                s.lock_wait_ms
                    .load(Ordering::Relaxed)
                    .checked_div(s.lock_waits.load(Ordering::Relaxed))
                    .unwrap_or(0),
            ),
            (
                "Innodb_row_lock_time_max",
                s.lock_wait_max_ms.load(Ordering::Relaxed),
            ),
            (
                "Basalt_deadlock_check_ns",
                s.deadlock_check_ns.load(Ordering::Relaxed),
            ),
            (
                "Innodb_row_lock_timeouts",
                s.lock_timeouts.load(Ordering::Relaxed),
            ),
            (
                "Innodb_history_list_length",
                self.mgr.history_length() as u64,
            ),
            ("Basalt_undo_versions", versions as u64),
            ("Basalt_undo_bytes", version_bytes as u64),
            (
                "Basalt_purged_versions",
                s.purged_versions.load(Ordering::Relaxed),
            ),
            ("Basalt_locked_rows", self.mgr.locks.locked_rows() as u64),
            (
                "Basalt_lock_memory_bytes",
                self.mgr.locks.memory_bytes() as u64,
            ),
            (
                "Innodb_row_lock_current_waits",
                self.mgr.lock_waits().len() as u64,
            ),
            ("Basalt_active_transactions", self.mgr.active_count() as u64),
            (
                "Basalt_purge_sweep_tables_pending",
                self.sweep_pending.load(Ordering::SeqCst) as u64,
            ),
        ];
        out.extend(self.engines.status());
        out
    }

    pub fn config(&self) -> &StorageConfig {
        &self.config
    }

    fn persist(&self) -> Result<()> {
        let image = {
            let cat = self.catalog.read();
            let mut tables: Vec<TableDef> = cat
                .tables
                .values()
                .flat_map(|m| m.values())
                .map(|e| (*e.core.def()).clone())
                .collect();
            tables.sort_by_key(|t| t.id);
            CatalogImage {
                format: CatalogImage::empty().format,
                next_table_id: cat.next_table_id,
                databases: cat
                    .databases
                    .iter()
                    .map(|(name, (c, comment))| DatabaseDef {
                        name: name.clone(),
                        collation: *c,
                        comment: comment.clone(),
                    })
                    .collect(),
                tables,
                views: cat
                    .views
                    .values()
                    .flat_map(|m| m.values())
                    .map(|v| (**v).clone())
                    .collect(),
                routines: cat
                    .routines
                    .values()
                    .flat_map(|m| m.values())
                    .map(|r| (**r).clone())
                    .collect(),
                triggers: cat
                    .triggers
                    .values()
                    .flat_map(|m| m.iter())
                    .map(|t| (**t).clone())
                    .collect(),
                events: cat
                    .events
                    .values()
                    .flat_map(|m| m.values())
                    .map(|e| (**e).clone())
                    .collect(),
                accounts: cat.accounts.as_deref().cloned(),
            }
        };
        catalog::store(&*self.config.fs, &self.config.datadir, &image)
    }

    /// Stops background work and makes everything durable (clean shutdown).
    /// Clean stop: finishes purge where it can (so the next start need not sweep for
    /// garbage), then the engines' final checkpoint.
    pub fn shutdown(&self) -> Result<()> {
        self.mgr.stop_purge();
        if let Some(h) = self.purge.lock().take() {
            let _ = h.join();
        }
        let swept = self
            .sweep
            .lock()
            .take()
            .is_none_or(|h| h.join().unwrap_or(false));
        let purge_complete = swept && self.mgr.drain_purge();
        self.engines.shutdown(purge_complete)
    }

    /// Checkpoints every durable table now (tests, and SHUTDOWN paths).
    pub fn checkpoint(&self) -> Result<()> {
        self.engines.checkpoint()
    }

    /// The row lock wait of the session whose transaction uses `interrupt` (see
    /// [`crate::Txn::set_interrupt`]), for the process list: (its transaction id,
    /// the id of the transaction it waits for, how long it has waited).
    pub fn lock_wait_of(
        &self,
        interrupt: &Arc<std::sync::atomic::AtomicBool>,
    ) -> Option<(u64, u64, Duration)> {
        self.mgr.lock_wait_of(interrupt)
    }

    /// Active transactions with an id, newest first (INNODB_TRX).
    pub fn transactions(&self) -> Vec<crate::mvcc::trx_info::TrxInfo> {
        self.mgr.transactions()
    }

    /// Transaction ids and open read views (SHOW ENGINE INNODB STATUS).
    pub fn trx_counters(&self) -> crate::mvcc::trx_info::TrxCounters {
        self.mgr.counters()
    }

    /// Current lock waits (INNODB_LOCK_WAITS).
    pub fn lock_wait_list(&self) -> Vec<crate::mvcc::trx_info::LockWait> {
        self.mgr.lock_wait_list()
    }

    /// Runs purge now (tests use this to observe purged state).
    pub fn purge_now(&self) -> usize {
        self.mgr.retry_deferred() + self.mgr.purge_step()
    }

    pub fn engine_kind_name(kind: EngineKind) -> &'static str {
        kind.name()
    }
}

impl Catalog {
    fn has_view(&self, db: &str, name: &str) -> bool {
        self.views.get(db).is_some_and(|m| m.contains_key(name))
    }

    fn insert(&mut self, core: Arc<TableCore>) -> Arc<dyn Table> {
        self.opened += 1;
        let def = core.def();
        let handle: Arc<dyn Table> = if partition::layout::is_stored_partitioned(&def) {
            Arc::new(partition::PartitionedTable::new(
                core.clone(),
                self.routers.clone(),
            ))
        } else {
            Arc::new(TableHandle(core.clone()))
        };
        self.tables.entry(def.schema.clone()).or_default().insert(
            def.name.clone(),
            TableEntry {
                core,
                handle: handle.clone(),
            },
        );
        handle
    }
}

/// Sweeps one table (see `table::sweep`); false if it stopped on an error.
fn sweep_table(core: &TableCore, first_trx: u64) -> bool {
    match core.sweep_dead(first_trx) {
        Ok(n) => {
            if n > 0 {
                tracing::info!(
                    table = %core.def().qualified_name(),
                    entries = n,
                    "purged delete-marked entries left by the previous run"
                );
            }
            true
        }
        Err(e) => {
            tracing::warn!(
                table = %core.def().qualified_name(),
                error = %e,
                "purge of entries left by the previous run stopped"
            );
            false
        }
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        self.mgr.stop_purge();
        if let Some(h) = self.purge.lock().take() {
            let _ = h.join();
        }
        if let Some(h) = self.sweep.lock().take() {
            let _ = h.join();
        }
        self.mgr.discard_queues();
    }
}
