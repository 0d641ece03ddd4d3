//! LOCK TABLES, UNLOCK TABLES, FLUSH, and the checks every statement passes
//! through while some session holds a table lock or the global read lock (see
//! [`crate::tablelock`] for what other sessions see).
//!
//! What the holding session may do, as in MariaDB:
//! - under LOCK TABLES it may use only the tables it locked, by the name it locked
//!   them under (an alias included): any other is 1100; writing a table it holds a
//!   READ lock on is 1099; information_schema is always readable;
//! - under the global read lock its own writes are 1223;
//! - START TRANSACTION / BEGIN, a new LOCK TABLES and UNLOCK TABLES release its
//!   table locks (UNLOCK TABLES also the global read lock); so does closing or
//!   resetting the connection.

use super::Session;
use crate::plan::{InsertSource, Plan, SelectPlan, SubPlan, TableRef};
use crate::result::QueryResult;
use crate::tablelock::{key, Entered, Key, Mode, Wait};
use basalt_common::MySqlError;
use sqlparser::ast::{self, FlushType};
use std::time::Duration;

type R<T> = Result<T, MySqlError>;

/// A table this session holds under LOCK TABLES.
#[derive(Clone, Debug)]
pub(super) struct Locked {
    key: Key,
    /// The name statements must use for it (its alias, or its name).
    name: String,
    mode: Mode,
}

/// The session's locks: its LOCK TABLES list, whether it holds the global read
/// lock, and how many registrations it has in the shared registry.
#[derive(Default)]
pub(super) struct SessionLocks {
    tables: Vec<Locked>,
    global_read: bool,
    taken: usize,
}

/// A table a statement reads or writes, by the name it uses.
struct Access {
    key: Key,
    name: String,
    write: bool,
}

fn not_locked(name: &str) -> MySqlError {
    MySqlError::new(
        1100,
        "HY000",
        format!("Table '{name}' was not locked with LOCK TABLES"),
    )
}

fn read_locked(name: &str) -> MySqlError {
    MySqlError::new(
        1099,
        "HY000",
        format!("Table '{name}' was locked with a READ lock and can't be updated"),
    )
}

fn conflicting_read_lock() -> MySqlError {
    MySqlError::new(
        1223,
        "HY000",
        "Can't execute the query because you have a conflicting read lock",
    )
}

fn active_locks() -> MySqlError {
    MySqlError::new(
        1192,
        "HY000",
        "Can't execute the given command because you have active locked tables or an active transaction",
    )
}

impl Session {
    fn lock_wait(&self) -> (Duration, std::sync::Arc<std::sync::atomic::AtomicBool>) {
        let secs = self.cx.var_u64("lock_wait_timeout").max(1);
        (Duration::from_secs(secs), self.interrupt.clone())
    }

    /// `LOCK TABLES t [AS a] READ [LOCAL] | [LOW_PRIORITY] WRITE, ...`.
    pub(super) fn lock_tables(&mut self, list: &[ast::LockTable]) -> R<QueryResult> {
        if self.locks.global_read {
            return Err(conflicting_read_lock());
        }
        self.implicit_commit()?;
        self.release_table_locks();
        let db = self.cx.db.clone().ok_or_else(MySqlError::no_db)?;
        let mut tables = Vec::with_capacity(list.len());
        for t in list {
            let name = t.table.value.clone();
            let mode = match t.lock_type {
                ast::LockTableType::Read { .. } => Mode::Read,
                ast::LockTableType::Write { .. } => Mode::Write,
            };
            if self.cx.temp.contains(&db, &name) {
                // Temporary tables need no lock (MariaDB).
                continue;
            }
            if self.cx.engine.storage.table(&db, &name).is_none() {
                if self.cx.engine.storage.view(&db, &name).is_none() {
                    return Err(MySqlError::no_such_table(&db, &name));
                }
                // A view locks the tables it reads, as in MariaDB (mariadb-dump
                // locks every table and view of a database).
                for (bdb, bname) in self.view_base_tables(&db, &name, 0)? {
                    tables.push(Locked {
                        key: key(&bdb, &bname),
                        name: bname,
                        mode,
                    });
                }
            }
            let used = t.alias.as_ref().map_or(name.clone(), |a| a.value.clone());
            tables.push(Locked {
                key: key(&db, &name),
                name: used,
                mode,
            });
        }
        self.take_table_locks(tables)?;
        Ok(QueryResult::ok(0))
    }

    /// The base tables view `db.name` reads, through the views it reads.
    fn view_base_tables(&self, db: &str, name: &str, depth: usize) -> R<Vec<(String, String)>> {
        let storage = &self.cx.engine.storage;
        let Some(v) = storage.view(db, name) else {
            return Ok(Vec::new());
        };
        if depth > 32 {
            return Err(crate::bind::view::invalid_view(db, name));
        }
        let q = crate::bind::view::parse_query(&v.body)?;
        let mut names = Vec::new();
        let _ = ast::visit_relations(&q, |rel| {
            let parts: Vec<String> = rel
                .0
                .iter()
                .filter_map(|p| p.as_ident().map(|i| i.value.clone()))
                .collect();
            match parts.as_slice() {
                [t] => names.push((v.schema.clone(), t.clone())),
                [d, t] => names.push((d.clone(), t.clone())),
                _ => {}
            }
            std::ops::ControlFlow::<()>::Continue(())
        });
        let mut out = Vec::new();
        for (d, t) in names {
            if storage.table(&d, &t).is_some() {
                out.push((d, t));
            } else {
                out.extend(self.view_base_tables(&d, &t, depth + 1)?);
            }
        }
        Ok(out)
    }

    fn take_table_locks(&mut self, tables: Vec<Locked>) -> R<()> {
        let mut wants: Vec<(Key, Mode)> = Vec::new();
        for t in &tables {
            match wants.iter_mut().find(|(k, _)| *k == t.key) {
                Some((_, m)) if t.mode == Mode::Write => *m = Mode::Write,
                Some(_) => {}
                None => wants.push((t.key.clone(), t.mode)),
            }
        }
        let (timeout, flag) = self.lock_wait();
        let engine = self.cx.engine.clone();
        let w = Wait {
            timeout,
            interrupt: &flag,
        };
        engine.locks.lock_tables(self.cx.conn_id, &wants, &w)?;
        self.locks.tables = tables;
        self.locks.taken += 1;
        Ok(())
    }

    /// Drops the LOCK TABLES list (keeps the global read lock).
    pub(super) fn release_table_locks(&mut self) {
        if self.locks.tables.is_empty() {
            return;
        }
        self.locks.tables.clear();
        let keep = usize::from(self.locks.global_read);
        let released = self.locks.taken - keep;
        self.locks.taken = keep;
        self.cx
            .engine
            .locks
            .release(self.cx.conn_id, true, false, released);
    }

    /// UNLOCK TABLES, and what closing or resetting the connection releases.
    pub(super) fn release_all_locks(&mut self) {
        if self.locks.taken == 0 {
            return;
        }
        let taken = std::mem::take(&mut self.locks.taken);
        self.locks.tables.clear();
        self.locks.global_read = false;
        self.cx
            .engine
            .locks
            .release(self.cx.conn_id, true, true, taken);
    }

    /// FLUSH: what each kind does here (see the README's table of statements).
    pub(super) fn flush(
        &mut self,
        kind: &FlushType,
        read_lock: bool,
        export: bool,
        tables: &[ast::ObjectName],
    ) -> R<QueryResult> {
        match kind {
            FlushType::Tables if export => {
                Err(MySqlError::not_supported("FLUSH TABLES ... FOR EXPORT"))
            }
            FlushType::Tables if read_lock => {
                if !self.locks.tables.is_empty() || self.explicit {
                    return Err(active_locks());
                }
                if tables.is_empty() {
                    self.global_read_lock()
                } else {
                    self.flush_tables_read_lock(tables)
                }
            }
            FlushType::Tables => {
                if !self.locks.tables.is_empty() {
                    return Err(active_locks());
                }
                Ok(QueryResult::ok(0))
            }
            FlushType::Logs | FlushType::GeneralLogs => {
                self.cx.engine.reopen_logs()?;
                Ok(QueryResult::ok(0))
            }
            FlushType::Status => {
                self.flush_status();
                Ok(QueryResult::ok(0))
            }
            FlushType::EngineLogs => {
                self.cx
                    .engine
                    .storage
                    .checkpoint()
                    .map_err(MySqlError::from)?;
                Ok(QueryResult::ok(0))
            }
            FlushType::BinaryLogs => crate::show::binlog::flush(self),
            FlushType::ErrorLogs => {
                self.cx.engine.hooks().reopen_error_log()?;
                Ok(QueryResult::ok(0))
            }
            FlushType::SlowLogs => {
                self.cx.engine.reopen_slow_log()?;
                Ok(QueryResult::ok(0))
            }
            // No relay log, grant tables read from disk or host cache: nothing
            // to flush, as in a MariaDB without them.
            FlushType::RelayLogs | FlushType::Privileges | FlushType::Hosts => {
                Ok(QueryResult::ok(0))
            }
            FlushType::UserResources => {
                self.cx.engine.resources.flush();
                Ok(QueryResult::ok(0))
            }
            other => Err(MySqlError::not_supported(&format!("FLUSH {other}"))),
        }
    }

    fn global_read_lock(&mut self) -> R<QueryResult> {
        if self.locks.global_read {
            return Ok(QueryResult::ok(0));
        }
        let (timeout, flag) = self.lock_wait();
        let engine = self.cx.engine.clone();
        let w = Wait {
            timeout,
            interrupt: &flag,
        };
        engine.locks.lock_global_read(self.cx.conn_id, &w)?;
        self.locks.global_read = true;
        self.locks.taken += 1;
        Ok(QueryResult::ok(0))
    }

    /// `FLUSH TABLES t, ... WITH READ LOCK`: READ locks on those tables.
    fn flush_tables_read_lock(&mut self, names: &[ast::ObjectName]) -> R<QueryResult> {
        let mut tables = Vec::with_capacity(names.len());
        for n in names {
            let (db, t) = crate::bind::ddl::qualified(n, &self.cx)?;
            if self.cx.engine.storage.table(&db, &t).is_none() {
                return Err(MySqlError::no_such_table(&db, &t));
            }
            tables.push(Locked {
                key: key(&db, &t),
                name: t,
                mode: Mode::Read,
            });
        }
        self.take_table_locks(tables)?;
        Ok(QueryResult::ok(0))
    }

    /// The holding session's own checks for `access`; `write_stmt` for statements
    /// that change data or the schema.
    fn check_own_locks(&self, access: &[Access], write_stmt: bool) -> R<()> {
        if self.locks.global_read && write_stmt {
            return Err(conflicting_read_lock());
        }
        if self.locks.tables.is_empty() {
            return Ok(());
        }
        for a in access {
            let held = self
                .locks
                .tables
                .iter()
                .filter(|l| l.key == a.key && l.name.eq_ignore_ascii_case(&a.name))
                .map(|l| l.mode)
                .max_by_key(|m| *m == Mode::Write);
            match held {
                None => return Err(not_locked(&a.name)),
                Some(Mode::Read) if a.write => return Err(read_locked(&a.name)),
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Waits for (or refuses) what the locks of this and other sessions forbid,
    /// before `plan` runs; the caller gives the result back to
    /// [`crate::tablelock::TableLocks::leave`] once the statement has ended.
    pub(super) fn enter_plan(&self, plan: &Plan) -> R<Entered> {
        let write = !matches!(plan, Plan::Select(_));
        // Under LOCK TABLES the statement takes no table lock of its own.
        let memory = if self.locks.taken == 0 {
            memory_tables(plan)
        } else {
            0
        };
        if self.locks.taken == 0 {
            if let Some(e) = self.cx.engine.locks.fast(self.cx.conn_id, write) {
                self.count_table_locks(memory, false);
                return Ok(e);
            }
        }
        let access = plan_access(plan);
        self.check_own_locks(&access, write)?;
        let waited = basalt_common::wait::lock_wait_time();
        let entered = self.enter_slow(&access, write)?;
        self.count_table_locks(memory, basalt_common::wait::lock_wait_time() > waited);
        Ok(entered)
    }

    /// `Table_locks_immediate` / `Table_locks_waited` for a statement's
    /// `n` MEMORY tables.
    fn count_table_locks(&self, n: u64, waited: bool) {
        if n > 0 {
            let stat = if waited {
                crate::stats::Stat::TableLocksWaited
            } else {
                crate::stats::Stat::TableLocksImmediate
            };
            self.cx.stats.counters.add(stat, n);
        }
    }

    /// [`Session::enter_plan`] for DDL on `tables` (none for CREATE / DROP
    /// DATABASE).
    pub(super) fn enter_ddl(&self, tables: &[(String, String)]) -> R<Entered> {
        if self.locks.taken == 0 {
            if let Some(e) = self.cx.engine.locks.fast(self.cx.conn_id, true) {
                return Ok(e);
            }
        }
        let access: Vec<Access> = tables
            .iter()
            .map(|(db, t)| Access {
                key: key(db, t),
                name: t.clone(),
                write: true,
            })
            .collect();
        self.check_own_locks(&access, true)?;
        self.enter_slow(&access, true)
    }

    /// The gate a COMMIT of a transaction that changed rows passes: it waits
    /// while another session holds the global read lock.
    pub(super) fn enter_commit(&self) -> R<Entered> {
        if let Some(e) = self.cx.engine.locks.fast(self.cx.conn_id, true) {
            return Ok(e);
        }
        self.enter_slow(&[], true)
    }

    fn enter_slow(&self, access: &[Access], write: bool) -> R<Entered> {
        let (timeout, flag) = self.lock_wait();
        let w = Wait {
            timeout,
            interrupt: &flag,
        };
        let list: Vec<(Key, bool)> = access.iter().map(|a| (a.key.clone(), a.write)).collect();
        self.cx
            .engine
            .locks
            .enter(self.cx.conn_id, &list, write, &w)
    }

    /// Gives back what an `enter_*` admitted.
    pub(super) fn leave(&self, e: Entered) {
        self.cx.engine.locks.leave(e);
    }
}

impl Session {
    /// The tables a DDL statement changes (`Some(empty)` for CREATE / DROP
    /// DATABASE); `None` for statements that are not DDL.
    pub(super) fn ddl_targets(&self, stmt: &ast::Statement) -> Option<Vec<(String, String)>> {
        use ast::Statement as S;
        // Temporary tables take no table lock.
        let q = |n: &ast::ObjectName| {
            crate::bind::ddl::qualified(n, &self.cx)
                .ok()
                .filter(|(d, t)| !self.cx.temp.contains(d, t))
        };
        Some(match stmt {
            S::CreateTable(ct) if ct.temporary => return None,
            S::CreateTable(ct) => q(&ct.name).into_iter().collect(),
            S::AlterTable(at) => q(&at.name).into_iter().collect(),
            S::CreateIndex(ci) => q(&ci.table_name).into_iter().collect(),
            S::Truncate(t) => t.table_names.iter().filter_map(|n| q(&n.name)).collect(),
            S::RenameTable(pairs) => pairs
                .iter()
                .flat_map(|r| [q(&r.old_name), q(&r.new_name)])
                .flatten()
                .collect(),
            S::Drop {
                object_type: ast::ObjectType::Table,
                names,
                temporary: false,
                ..
            } => names.iter().filter_map(q).collect(),
            S::Drop {
                object_type: ast::ObjectType::Index,
                table: Some(t),
                ..
            } => q(t).into_iter().collect(),
            S::Drop {
                object_type: ast::ObjectType::Database | ast::ObjectType::Schema,
                ..
            } => Vec::new(),
            _ => return None,
        })
    }
}

/// Whether a statement's table takes a table lock: derived tables have no
/// database; information_schema and temporary tables are never locked.
fn lockable(t: &TableRef) -> bool {
    !(t.db.is_empty()
        || crate::infoschema::is_schema(&t.db)
        || basalt_storage::is_temp_id(t.def.id))
}

/// A table `plan` reads or (when the flag is set) writes.
type Visit<'a> = dyn FnMut(&TableRef, bool) + 'a;

fn select_tables(p: &SelectPlan, f: &mut Visit<'_>) {
    for t in &p.tables {
        f(t, false);
    }
    subs_tables(&p.subs, f);
    for branch in p.operands() {
        select_tables(branch, f);
    }
}

fn subs_tables(subs: &[SubPlan], f: &mut Visit<'_>) {
    for p in subs.iter().flat_map(SubPlan::plans) {
        select_tables(p, f);
    }
}

/// Calls `f` for each table `plan` names (each time it names it).
fn plan_tables(plan: &Plan, f: &mut Visit<'_>) {
    match plan {
        Plan::Select(p) => select_tables(p, f),
        Plan::Insert(p) => {
            f(&p.table, true);
            if let InsertSource::Select(s) = &p.source {
                select_tables(s, f);
            }
            subs_tables(&p.subs, f);
        }
        Plan::Modify(p) => {
            for (i, t) in p.scan.tables.iter().enumerate() {
                let written = match &p.multi {
                    Some(m) => m.targets.iter().any(|x| x.table == i),
                    None => i == 0,
                };
                f(t, written);
            }
            subs_tables(&p.subs, f);
            subs_tables(&p.scan.subs, f);
        }
    }
}

/// The tables `plan` reads and writes, by the names it uses for them.
fn plan_access(plan: &Plan) -> Vec<Access> {
    let mut out = Vec::new();
    plan_tables(plan, &mut |t, write| {
        if lockable(t) {
            out.push(Access {
                key: key(&t.db, &t.def.name),
                name: t.alias.clone(),
                write,
            });
        }
    });
    out
}

/// How many MEMORY tables `plan` names (each time it names one): MariaDB
/// takes a thr_lock table lock on each, and counts it in
/// `Table_locks_immediate` / `Table_locks_waited` (InnoDB tables take none).
fn memory_tables(plan: &Plan) -> u64 {
    let mut n = 0;
    plan_tables(plan, &mut |t, _| {
        if t.def.engine == basalt_common::EngineKind::Memory && lockable(t) {
            n += 1;
        }
    });
    n
}
