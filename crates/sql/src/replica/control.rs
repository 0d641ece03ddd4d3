//! The replica as statements see it: CHANGE MASTER, START / STOP / RESET SLAVE,
//! `@@gtid_slave_pos`, SHOW SLAVE STATUS, and the start at server boot.
//!
//! One replication connection (MariaDB's default, unnamed, connection). Each
//! thread runs on an OS thread of its own; they share [`Shared`].

use super::filter::{self, Filters, Rule};
use super::gtid_pos::{self, SlavePos};
use super::io_thread::{self, IoConfig, Start};
use super::master_info::MasterInfo;
use super::sql_thread::{self, SqlConfig};
use super::status::{self, Shared};
use super::until::{self, UntilState};
use crate::engine::Engine;
use crate::front::native::replica::{MasterOpt, Threads, Until, UseGtid};
use basalt_common::{MySqlError, Value};
use basalt_replication::gtid::GtidList;
use basalt_replication::replica::ConnectOptions;
use parking_lot::Mutex;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// 1198 `ER_SLAVE_MUST_STOP`.
pub const ER_SLAVE_MUST_STOP: u16 = 1198;
/// 1200 `ER_BAD_SLAVE`.
pub const ER_BAD_SLAVE: u16 = 1200;
/// 1254 `ER_SLAVE_WAS_RUNNING` (a note).
pub const ER_SLAVE_WAS_RUNNING: u16 = 1254;
/// 1255 `ER_SLAVE_WAS_NOT_RUNNING` (a note).
pub const ER_SLAVE_WAS_NOT_RUNNING: u16 = 1255;
/// 1941 `ER_INCORRECT_GTID_STATE`.
pub const ER_INCORRECT_GTID_STATE: u16 = 1941;

fn must_stop() -> MySqlError {
    MySqlError::new(
        ER_SLAVE_MUST_STOP,
        "HY000",
        "This operation cannot be performed as you have a running slave ''; run STOP SLAVE '' first",
    )
}

#[derive(Default)]
struct Control {
    info: Option<MasterInfo>,
    io: Option<JoinHandle<()>>,
    sql: Option<JoinHandle<()>>,
}

impl Control {
    /// Joins threads that ended on their own (an error).
    fn reap(&mut self) {
        for h in [&mut self.io, &mut self.sql] {
            if h.as_ref().is_some_and(|t| t.is_finished()) {
                if let Some(t) = h.take() {
                    let _ = t.join();
                }
            }
        }
    }

    fn any_running(&self) -> bool {
        self.io.is_some() || self.sql.is_some()
    }
}

/// The server's replica side.
#[derive(Default)]
pub struct Replica {
    ctl: Mutex<Control>,
    pub(super) shared: Arc<Shared>,
}

impl Replica {
    /// Reads `master.info` and `mysql.gtid_slave_pos` (at server start).
    pub fn load(engine: &Engine) -> Replica {
        let r = Replica::default();
        let storage = engine.storage();
        let cfg = storage.config();
        match MasterInfo::load(&*cfg.fs, &cfg.datadir, slave_net_timeout(engine)) {
            Ok(info) => {
                if let Some(i) = &info {
                    let mut st = r.shared.state.lock();
                    st.exec_file = i.log_file.clone();
                    st.exec_pos = i.log_pos;
                    st.read_file = i.log_file.clone();
                    st.read_pos = i.log_pos;
                }
                r.ctl.lock().info = info;
            }
            Err(e) => tracing::error!("cannot read the replica's master.info: {e}"),
        }
        match gtid_pos::load(storage) {
            Ok(pos) => *r.shared.slave_pos.lock() = pos,
            Err(e) => tracing::error!("cannot read mysql.gtid_slave_pos: {e}"),
        }
        r.load_filters(engine);
        r
    }

    /// The filters of `replication-filters.info`, with the `--replicate-*` start
    /// options replacing the lists they name (and then kept).
    fn load_filters(&self, engine: &Engine) {
        let cfg = engine.storage().config();
        let mut f = match filter::load(&*cfg.fs, &cfg.datadir) {
            Ok(f) => f.unwrap_or_default(),
            Err(e) => {
                tracing::error!("cannot read the replication filters: {e}");
                Filters::default()
            }
        };
        let options = &engine.config.replicate_filters;
        for (name, text) in options {
            let Some(rule) = Rule::from_variable(name) else {
                continue;
            };
            if let Err(e) = f.set_text(rule, text) {
                tracing::error!("--{name}={text}: {}", e.message);
            }
        }
        if !options.is_empty() {
            if let Err(e) = filter::store(&f, &*cfg.fs, &cfg.datadir) {
                tracing::error!("cannot write the replication filters: {e}");
            }
        }
        publish_filters(engine, &f);
        *self.shared.filters.write() = Arc::new(f);
    }

    /// The replication filters in force.
    pub fn filters(&self) -> Arc<Filters> {
        self.shared.filters.read().clone()
    }

    /// Changes the filters (`SET GLOBAL replicate_*`, CHANGE REPLICATION FILTER)
    /// while the threads run: kept durably first, then in force from the SQL
    /// thread's next transaction. Nothing changes when `edit` fails.
    pub fn change_filters(
        &self,
        engine: &Engine,
        edit: impl FnOnce(&mut Filters) -> Result<(), MySqlError>,
    ) -> Result<(), MySqlError> {
        let _ctl = self.ctl.lock();
        let mut f = (*self.filters()).clone();
        edit(&mut f)?;
        let cfg = engine.storage().config();
        filter::store(&f, &*cfg.fs, &cfg.datadir).map_err(|e| {
            MySqlError::new(1105, "HY000", format!("Cannot write {}: {e}", filter::FILE))
        })?;
        publish_filters(engine, &f);
        *self.shared.filters.write() = Arc::new(f);
        Ok(())
    }

    fn store(&self, engine: &Engine, info: Option<&MasterInfo>) -> Result<(), MySqlError> {
        let cfg = engine.storage().config();
        let r = match info {
            Some(i) => i.store(&*cfg.fs, &cfg.datadir),
            None => MasterInfo::remove(&*cfg.fs, &cfg.datadir),
        };
        r.map_err(|e| MySqlError::new(1105, "HY000", format!("Cannot write master.info: {e}")))
    }

    /// CHANGE MASTER TO: the notes to give.
    pub fn change(
        &self,
        engine: &Engine,
        opts: &[MasterOpt],
    ) -> Result<Vec<MySqlError>, MySqlError> {
        let mut ctl = self.ctl.lock();
        ctl.reap();
        if ctl.any_running() {
            return Err(must_stop());
        }
        let mut info = ctl
            .info
            .clone()
            .unwrap_or_else(|| MasterInfo::new(slave_net_timeout(engine)));
        let notes = info.change(opts)?;
        self.store(engine, Some(&info))?;
        let mut st = self.shared.state.lock();
        st.exec_file = info.log_file.clone();
        st.exec_pos = info.log_pos;
        st.read_file = info.log_file.clone();
        st.read_pos = info.log_pos;
        st.received = None;
        drop(st);
        self.shared.relay.clear();
        ctl.info = Some(info);
        Ok(notes)
    }

    /// START SLAVE [IO_THREAD] [, SQL_THREAD]: the notes to give.
    pub fn start(
        &self,
        engine: &Arc<Engine>,
        threads: Threads,
        until: Option<&Until>,
    ) -> Result<Vec<MySqlError>, MySqlError> {
        let mut ctl = self.ctl.lock();
        ctl.reap();
        let Some(info) = ctl.info.clone().filter(|i| !i.host.is_empty()) else {
            return Err(MySqlError::new(
                ER_BAD_SLAVE,
                "HY000",
                "Misconfigured slave: MASTER_HOST was not set; Fix in config file or with CHANGE MASTER TO",
            ));
        };
        let want_io = threads.io && ctl.io.is_none();
        let want_sql = threads.sql && ctl.sql.is_none();
        if !want_io && !want_sql {
            return Ok(vec![MySqlError::new(
                ER_SLAVE_WAS_RUNNING,
                "HY000",
                "Slave is already running",
            )]);
        }
        let use_gtid = info.use_gtid != UseGtid::No;
        let skip_start = engine.config.skip_slave_start;
        // A running SQL thread keeps going without the condition (MariaDB).
        let (until, notes) = if want_sql || !threads.sql {
            until::from_statement(until, threads, use_gtid, skip_start)?
        } else {
            (None, Vec::new())
        };
        gtid_pos::ensure_table(engine)?;
        if !ctl.any_running() {
            self.fresh_start(&info);
        }
        if want_sql {
            self.shared.sql_stop.store(false, Ordering::Relaxed);
            let mut st = self.shared.state.lock();
            st.last_sql = None;
            st.until = until.as_ref().map(UntilState::shown);
            drop(st);
            let mut cfg = sql_config(engine, &info);
            cfg.until = until;
            let (e, sh) = (engine.clone(), self.shared.clone());
            self.shared.state.lock().sql_running = true;
            ctl.sql = Some(spawn("replica SQL", move || sql_thread::run(e, sh, cfg))?);
        }
        if want_io {
            self.shared.io_stop.store(false, Ordering::Relaxed);
            let cfg = self.io_config(engine, &info);
            let sh = self.shared.clone();
            self.shared.state.lock().io = status::IoRun::Connecting;
            ctl.io = Some(spawn("replica I/O", move || io_thread::run(sh, cfg))?);
        }
        Ok(notes)
    }

    /// Both threads stopped: the queue and the received position start over from
    /// what was applied.
    fn fresh_start(&self, info: &MasterInfo) {
        self.shared.relay.clear();
        let slave_pos = self.shared.slave_pos.lock().list();
        let mut st = self.shared.state.lock();
        st.received = None;
        st.last_io = None;
        st.last_sql = None;
        if info.use_gtid != UseGtid::No {
            st.gtid_io_pos = slave_pos;
        }
    }

    fn io_config(&self, engine: &Engine, info: &MasterInfo) -> IoConfig {
        let timeout = Duration::from_secs(slave_net_timeout(engine).max(1));
        let mut connect = ConnectOptions::new(&info.host, port(info), &info.user, &info.password);
        connect.connect_timeout = timeout;
        connect.read_timeout = Some(timeout);
        IoConfig {
            connect,
            server_id: server_id(engine),
            heartbeat: Duration::from_secs_f64(info.heartbeat_period),
            connect_retry: Duration::from_secs(info.connect_retry.max(1)),
            use_gtid: info.use_gtid != UseGtid::No,
            report_port: engine.config().port,
            start: self.start_point(engine, info),
        }
    }

    /// Where the dump starts: after what was received, while the SQL thread still
    /// has it queued; else after what was applied.
    fn start_point(&self, engine: &Engine, info: &MasterInfo) -> Start {
        let slave_pos = self.shared.slave_pos.lock().list();
        let st = self.shared.state.lock();
        let gtid_start = |received: Option<&GtidList>| {
            let mut list = match info.use_gtid {
                UseGtid::CurrentPos => current_pos(engine, &slave_pos),
                _ => slave_pos.clone(),
            };
            for g in received.map(|r| r.positions()).unwrap_or_default() {
                list.record(g);
            }
            Start::Gtid(list)
        };
        if let Some(r) = &st.received {
            return match info.use_gtid {
                UseGtid::No => Start::File(r.file.clone(), r.pos),
                _ => gtid_start(Some(&r.gtids)),
            };
        }
        match info.use_gtid {
            UseGtid::No if !slave_pos.is_empty() && !st.exec_file.is_empty() => {
                // Transactions committed after the recorded file position (a
                // crash): resume by GTID, which commits with the data.
                if info.exec_pos_is_current(&slave_pos) || info.pos_gtid.is_empty() {
                    Start::File(st.exec_file.clone(), st.exec_pos)
                } else {
                    Start::Gtid(slave_pos)
                }
            }
            UseGtid::No => Start::File(st.exec_file.clone(), st.exec_pos),
            _ => gtid_start(None),
        }
    }

    /// STOP SLAVE [IO_THREAD] [, SQL_THREAD]: the notes to give.
    pub fn stop(&self, engine: &Engine, threads: Threads) -> Result<Vec<MySqlError>, MySqlError> {
        let mut ctl = self.ctl.lock();
        ctl.reap();
        let io = if threads.io { ctl.io.take() } else { None };
        let sql = if threads.sql { ctl.sql.take() } else { None };
        if io.is_none() && sql.is_none() {
            return Ok(vec![MySqlError::new(
                ER_SLAVE_WAS_NOT_RUNNING,
                "HY000",
                "Slave already has been stopped",
            )]);
        }
        if let Some(t) = io {
            io_thread::request_stop(&self.shared);
            let _ = t.join();
        }
        if let Some(t) = sql {
            self.shared.sql_stop.store(true, Ordering::Relaxed);
            let _ = t.join();
        }
        if !ctl.any_running() {
            self.save_positions(engine, &mut ctl)?;
        }
        Ok(Vec::new())
    }

    /// Records the executed file position (and the GTID position it belongs to).
    fn save_positions(&self, engine: &Engine, ctl: &mut Control) -> Result<(), MySqlError> {
        let Some(info) = ctl.info.as_mut() else {
            return Ok(());
        };
        let st = self.shared.state.lock();
        info.log_file = st.exec_file.clone();
        info.log_pos = st.exec_pos.max(4);
        info.pos_gtid = self.shared.slave_pos.lock().text();
        drop(st);
        let info = info.clone();
        self.store(engine, Some(&info))
    }

    /// RESET SLAVE [ALL].
    pub fn reset(&self, engine: &Engine, all: bool) -> Result<(), MySqlError> {
        let mut ctl = self.ctl.lock();
        ctl.reap();
        if ctl.any_running() {
            return Err(must_stop());
        }
        self.shared.relay.clear();
        *self.shared.state.lock() = status::State::default();
        if all {
            self.store(engine, None)?;
            ctl.info = None;
            return Ok(());
        }
        if let Some(info) = ctl.info.as_mut() {
            info.log_file.clear();
            info.log_pos = 4;
            info.pos_gtid.clear();
            let info = info.clone();
            self.store(engine, Some(&info))?;
        }
        Ok(())
    }

    /// SHOW [ALL] SLAVE[S] STATUS's row, when a primary is configured.
    pub fn status_row(&self, all: bool) -> Option<Vec<Value>> {
        let mut ctl = self.ctl.lock();
        ctl.reap();
        let info = ctl.info.clone()?;
        drop(ctl);
        Some(status::row(&info, &self.shared, all))
    }

    /// `@@gtid_slave_pos`.
    pub fn slave_pos(&self) -> GtidList {
        self.shared.slave_pos.lock().list()
    }

    /// `SET GLOBAL gtid_slave_pos = 'list'`.
    pub fn set_slave_pos(&self, engine: &Arc<Engine>, text: &str) -> Result<(), MySqlError> {
        let list = GtidList::parse(text).ok_or_else(|| {
            MySqlError::new(
                ER_INCORRECT_GTID_STATE,
                "HY000",
                "Could not parse GTID list",
            )
        })?;
        let mut ctl = self.ctl.lock();
        ctl.reap();
        if ctl.any_running() {
            return Err(must_stop());
        }
        gtid_pos::ensure_table(engine)?;
        let pos: SlavePos = gtid_pos::replace(engine.storage(), &list)?;
        *self.shared.slave_pos.lock() = pos;
        self.shared.pos_changed.notify_all();
        let mut st = self.shared.state.lock();
        st.received = None;
        st.gtid_io_pos = list;
        Ok(())
    }

    /// Starts both threads when a primary is configured (server start, unless
    /// `--skip-slave-start`).
    pub fn start_at_boot(&self, engine: &Arc<Engine>) {
        let configured = self
            .ctl
            .lock()
            .info
            .as_ref()
            .is_some_and(|i| !i.host.is_empty());
        if !configured {
            return;
        }
        let both = Threads {
            io: true,
            sql: true,
        };
        if let Err(e) = self.start(engine, both, None) {
            tracing::error!("replica not started: {e}");
        }
    }

    /// Stops both threads and records positions (server shutdown).
    pub fn shutdown(&self, engine: &Engine) {
        let both = Threads {
            io: true,
            sql: true,
        };
        if let Err(e) = self.stop(engine, both) {
            tracing::error!("replica stop at shutdown: {e}");
        }
    }
}

/// The `replicate_*` variables show the lists in force.
fn publish_filters(engine: &Engine, f: &Filters) {
    for rule in Rule::ALL {
        if let Some(def) = crate::sysvars::lookup(rule.variable()) {
            engine.globals.set(def, Value::str(&f.show(rule)));
        }
    }
}

fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> Result<JoinHandle<()>, MySqlError> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn(f)
        .map_err(|e| {
            MySqlError::new(
                1105,
                "HY000",
                format!("Cannot start the {name} thread: {e}"),
            )
        })
}

fn port(info: &MasterInfo) -> u16 {
    info.port.min(u16::MAX as u64) as u16
}

fn global_u64(engine: &Engine, name: &str, default: u64) -> u64 {
    match engine.global_variable(name) {
        Some(Value::UInt(u)) => u,
        Some(Value::Int(i)) => i.max(0) as u64,
        _ => default,
    }
}

fn slave_net_timeout(engine: &Engine) -> u64 {
    global_u64(engine, "slave_net_timeout", 60)
}

fn server_id(engine: &Engine) -> u32 {
    global_u64(engine, "server_id", 1) as u32
}

pub(super) fn global_text(engine: &Engine, name: &str) -> String {
    engine
        .global_variable(name)
        .map(|v| v.display_lossy())
        .unwrap_or_default()
}

fn sql_config(engine: &Engine, info: &MasterInfo) -> SqlConfig {
    SqlConfig {
        server_id: server_id(engine),
        ignore_server_ids: info.ignore_server_ids.clone(),
        delay: info.delay,
        skip_errors: sql_thread::SkipErrors::parse(&engine.config.slave_skip_errors),
        ddl_idempotent: !global_text(engine, "slave_ddl_exec_mode").eq_ignore_ascii_case("STRICT"),
        use_gtid: info.use_gtid != UseGtid::No,
        until: None,
    }
}

/// SHOW [ALL] SLAVE[S] STATUS's columns, each with whether it is numeric.
pub fn status_columns(all: bool) -> Vec<(&'static str, bool)> {
    status::columns(all)
}

/// `@@gtid_current_pos`: per domain, the newer of the binary log's and the
/// applied position.
pub fn current_pos(engine: &Engine, slave_pos: &GtidList) -> GtidList {
    let mut list = slave_pos.clone();
    if let Some(b) = engine.binlog() {
        for g in b.gtid_pos() {
            if g.seq > list.last_seq(g.domain) {
                list.record(g);
            }
        }
    }
    list
}
