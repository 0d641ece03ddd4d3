//! The state every session shares: storage, global variables, hooks, plan cache.

use crate::plan::cache::PlanCache;
use crate::session::Session;
use crate::sysvars::GlobalVars;
use basalt_common::{MySqlError, Value};
use basalt_storage::Storage;
use parking_lot::RwLock;
use std::sync::Arc;

/// Initial values of the global system variables that depend on how the server
/// was started. Everything else has MariaDB's default.
#[derive(Clone, Debug)]
pub struct GlobalConfig {
    pub port: u16,
    pub bind_address: String,
    pub datadir: String,
    /// `@@version` (and `VERSION()`), e.g. `10.11.0-Basalt`.
    pub version: String,
    pub version_comment: String,
    pub version_compile_os: String,
    pub version_compile_machine: String,
    /// `@@socket`: an empty string when there is no socket, never NULL (the Rust
    /// `mysql` crate panics on a NULL socket).
    pub socket: String,
    pub hostname: String,
    /// `@@log_error`: the error log file, empty when the log goes to stderr.
    pub log_error: String,
    pub max_allowed_packet: u64,
    pub buffer_pool_size: u64,
    pub flush_log_at_trx_commit: u64,
    pub max_connections: u64,
    /// RLIMIT_NOFILE as the server raised it at start (`@@open_files_limit`).
    pub open_files_limit: u64,
    pub have_ssl: String,
    /// What the `ssl_*` and `tls_version` variables show.
    pub tls: TlsVars,
    pub system_time_zone: String,
    /// `--default-time-zone`: the global `time_zone` at start, as MariaDB prints
    /// it (`SYSTEM` by default).
    pub default_time_zone: String,
    /// `--event-scheduler` at start: `ON`, `OFF` or `DISABLED`.
    pub event_scheduler: String,
    pub server_id: u64,
    pub log_bin: bool,
    /// `--log-bin`'s base name with the directory (`@@log_bin_basename`); `None`
    /// when the server was started without a binary log.
    pub log_bin_basename: Option<String>,
    /// `max_binlog_size` at start.
    pub max_binlog_size: u64,
    /// `binlog_expire_logs_seconds` at start.
    pub binlog_expire_seconds: u64,
    /// `binlog_checksum` at start: CRC32 (true) or NONE.
    pub binlog_checksum: bool,
    /// `binlog_do_db` / `binlog_ignore_db` at start (comma-separated).
    pub binlog_do_db: String,
    pub binlog_ignore_db: String,
    /// Statement digests and events are recorded (`--performance-schema`).
    pub performance_schema: bool,
    pub query_cache_size: u64,
    pub basedir: String,
    pub pid_file: String,
    /// `innodb_rollback_on_timeout` (a start-up option).
    pub rollback_on_timeout: bool,
    /// `collation_server` at start (and so `character_set_server`, and the
    /// database variables of a session without a current database).
    pub collation_server: basalt_common::Collation,
    /// Default `max_session_mem_used` (bytes a statement's working memory may use).
    pub max_session_mem_used: u64,
    /// `@@tmpdir`: where sorts and spooled rows spill.
    pub tmpdir: String,
    /// `@@skip_networking`: no TCP listener, only the Unix socket.
    pub skip_networking: bool,
    /// `@@skip_slave_start`: replication is not started with the server.
    pub skip_slave_start: bool,
    /// `@@secure_file_priv`: the directory server-side LOAD DATA INFILE and
    /// SELECT ... INTO OUTFILE may use; `None` (NULL) refuses them all.
    pub secure_file_priv: Option<std::path::PathBuf>,
    /// `rpl_semi_sync_master_*` at start.
    pub semisync: basalt_replication::semisync::Settings,
    /// `--replicate-*` start options: (variable name, comma-separated list), each
    /// replacing that list of the kept replication filters.
    pub replicate_filters: Vec<(String, String)>,
    /// `--slave-skip-errors`: `OFF`, `ALL` or error numbers, as the variable shows it.
    pub slave_skip_errors: String,
    /// `log_slave_updates` at start (SET GLOBAL changes it at runtime).
    pub log_slave_updates: bool,
    /// `@@thread_handling`, the `thread_pool_*` variables at start, `@@extra_port`
    /// and `@@extra_max_connections`.
    pub threads: ThreadVars,
    /// The slow and general logs' settings at start.
    pub logs: LogVars,
}

/// The slow and general logs' settings at start (`--slow-query-log`,
/// `--general-log`, `--log-output`, ...); SET GLOBAL changes them at runtime.
#[derive(Debug, Clone)]
pub struct LogVars {
    pub general_log: bool,
    /// `--general-log-file` (default `<hostname>.log`).
    pub general_log_file: Option<String>,
    pub slow_query_log: bool,
    /// `--slow-query-log-file` (default `<hostname>-slow.log`).
    pub slow_query_log_file: Option<String>,
    /// In canonical form (`FILE`, `TABLE`, `FILE,TABLE`, `NONE`, ...).
    pub log_output: String,
    pub long_query_time: f64,
    pub not_using_indexes: bool,
    pub slow_verbosity: String,
    pub min_examined_row_limit: u64,
    pub slow_admin_statements: bool,
}

impl Default for LogVars {
    fn default() -> Self {
        LogVars {
            general_log: false,
            general_log_file: None,
            slow_query_log: false,
            slow_query_log_file: None,
            log_output: "FILE".into(),
            long_query_time: 10.0,
            not_using_indexes: false,
            slow_verbosity: String::new(),
            min_examined_row_limit: 0,
            slow_admin_statements: true,
        }
    }
}

impl LogVars {
    pub fn general_log_file(&self, hostname: &str) -> String {
        self.general_log_file
            .clone()
            .unwrap_or_else(|| format!("{hostname}.log"))
    }

    pub fn slow_query_log_file(&self, hostname: &str) -> String {
        self.slow_query_log_file
            .clone()
            .unwrap_or_else(|| format!("{hostname}-slow.log"))
    }
}

/// How the server gives connections threads, as the variables show it at start.
#[derive(Debug, Clone)]
pub struct ThreadVars {
    pub handling: &'static str,
    pub pool_size: u64,
    pub pool_max_threads: u64,
    pub pool_stall_limit: u64,
    pub pool_oversubscribe: u64,
    pub pool_idle_timeout: u64,
    pub extra_port: u64,
    pub extra_max_connections: u64,
    pub back_log: u64,
}

impl Default for ThreadVars {
    fn default() -> Self {
        ThreadVars {
            handling: "one-thread-per-connection",
            pool_size: 1,
            pool_max_threads: 65_536,
            pool_stall_limit: 500,
            pool_oversubscribe: 3,
            pool_idle_timeout: 60,
            extra_port: 0,
            extra_max_connections: 1,
            back_log: 151,
        }
    }
}

/// The server's TLS files and settings, as `@@ssl_ca`, `@@ssl_cert`,
/// `@@ssl_key`, `@@ssl_cipher`, `@@tls_version` and `@@version_ssl_library` show
/// them (empty without TLS).
#[derive(Debug, Clone, Default)]
pub struct TlsVars {
    pub ca: String,
    pub cert: String,
    pub key: String,
    pub cipher: String,
    pub versions: String,
    pub library: String,
}

impl Default for GlobalConfig {
    fn default() -> Self {
        GlobalConfig {
            port: 3306,
            bind_address: "127.0.0.1".into(),
            datadir: String::new(),
            version: "10.11.0-Basalt".into(),
            version_comment: "Basalt".into(),
            version_compile_os: "Linux".into(),
            version_compile_machine: std::env::consts::ARCH.into(),
            socket: String::new(),
            hostname: "localhost".into(),
            log_error: String::new(),
            max_allowed_packet: 16 * 1024 * 1024,
            buffer_pool_size: 128 * 1024 * 1024,
            flush_log_at_trx_commit: 1,
            max_connections: 151,
            open_files_limit: 0,
            have_ssl: "DISABLED".into(),
            tls: TlsVars::default(),
            system_time_zone: "UTC".into(),
            default_time_zone: "SYSTEM".into(),
            event_scheduler: "OFF".into(),
            server_id: 1,
            log_bin: false,
            log_bin_basename: None,
            max_binlog_size: 1 << 30,
            binlog_expire_seconds: 0,
            binlog_checksum: true,
            binlog_do_db: String::new(),
            binlog_ignore_db: String::new(),
            // MariaDB's default for an embedded engine; basaltd starts with
            // it ON unless told otherwise (`--performance-schema`).
            performance_schema: false,
            query_cache_size: 0,
            basedir: String::new(),
            pid_file: String::new(),
            rollback_on_timeout: false,
            collation_server: basalt_common::Collation::Utf8mb4GeneralCi,
            max_session_mem_used: 1 << 30,
            tmpdir: std::env::temp_dir().display().to_string(),
            skip_networking: false,
            skip_slave_start: false,
            secure_file_priv: None,
            semisync: Default::default(),
            replicate_filters: Vec::new(),
            slave_skip_errors: "OFF".into(),
            log_slave_updates: false,
            threads: ThreadVars::default(),
            logs: LogVars::default(),
        }
    }
}

fn log_path(config: &GlobalConfig, name: &str) -> std::path::PathBuf {
    let p = std::path::Path::new(name);
    if p.is_absolute() || config.datadir.is_empty() {
        p.to_path_buf()
    } else {
        std::path::Path::new(&config.datadir).join(p)
    }
}

/// One row of `SHOW PROCESSLIST`, supplied by the server.
#[derive(Clone, Debug, Default)]
pub struct ProcessInfo {
    pub id: u64,
    pub user: String,
    pub host: String,
    pub db: Option<String>,
    /// `Query`, `Sleep`, `Binlog Dump`, ...
    pub command: String,
    /// Seconds in the current state.
    pub time: u64,
    pub state: String,
    /// The statement text being run, if any.
    pub info: Option<String>,
}

/// What the SQL layer needs from the server that owns the connections.
pub trait ServerHooks: Send + Sync {
    fn processlist(&self) -> Vec<ProcessInfo>;
    /// `KILL [QUERY|CONNECTION] id`; `query_only` for KILL QUERY. Errors with
    /// `MySqlError::unknown_thread` when there is no such connection.
    fn kill(&self, id: u64, query_only: bool) -> Result<(), MySqlError>;
    /// Server-level counters for `SHOW GLOBAL STATUS` (Threads_connected, Uptime, ...).
    fn global_status(&self) -> Vec<(String, Value)>;
    /// `SHUTDOWN` / COM_SHUTDOWN from connection `by`: starts the clean stop that
    /// SIGTERM starts, and returns (the caller still gets its OK).
    fn shutdown(&self, by: u64) -> Result<(), MySqlError>;
    /// `FLUSH STATUS`: resets the server's resettable counters as MariaDB's
    /// `refresh_status()` does (aborted counts to 0, `Max_used_connections` to the
    /// connections open now); the sessions' counters are reset by the session.
    fn flush_status(&self) {}
    /// Logins refused with 1045 (part of `Access_denied_errors`).
    fn login_denials(&self) -> u64 {
        0
    }
    /// FLUSH LOGS / FLUSH ERROR LOGS: reopens the error log file (nothing to do
    /// when the log goes to stderr).
    fn reopen_error_log(&self) -> Result<(), MySqlError> {
        Ok(())
    }
    /// `FLUSH SSL`: loads the TLS certificate, key and CA files again (nothing
    /// to do when the server has no TLS).
    fn reload_tls(&self) -> Result<(), MySqlError> {
        Ok(())
    }
    /// A thread id for a server thread that runs statements (an event's run),
    /// from the connections' sequence; 0 without a server.
    fn new_thread_id(&self) -> u64 {
        0
    }
    /// Replicas registered with COM_REGISTER_SLAVE (`SHOW SLAVE HOSTS`).
    fn replicas(&self) -> Vec<basalt_replication::dump::ReplicaInfo> {
        Vec::new()
    }
}

struct NoHooks;

impl ServerHooks for NoHooks {
    fn processlist(&self) -> Vec<ProcessInfo> {
        Vec::new()
    }
    fn kill(&self, id: u64, _query_only: bool) -> Result<(), MySqlError> {
        Err(MySqlError::unknown_thread(id))
    }
    fn global_status(&self) -> Vec<(String, Value)> {
        Vec::new()
    }
    fn shutdown(&self, _by: u64) -> Result<(), MySqlError> {
        Err(MySqlError::not_supported("SHUTDOWN without a server"))
    }
}

/// Shared by every session of a server.
pub struct Engine {
    pub(crate) storage: Arc<Storage>,
    pub(crate) config: GlobalConfig,
    pub(crate) globals: GlobalVars,
    hooks: RwLock<Arc<dyn ServerHooks>>,
    pub(crate) plan_cache: PlanCache,
    pub(crate) started: std::time::Instant,
    pub(crate) general_log: crate::general_log::GeneralLog,
    pub(crate) slow_log: crate::slow_log::SlowLog,
    pub(crate) locks: crate::tablelock::TableLocks,
    /// GET_LOCK's named locks.
    pub(crate) user_locks: crate::userlock::UserLocks,
    /// `max_statement_time` deadlines of every session.
    pub(crate) timer: crate::session::timer::StatementTimer,
    /// The sessions' status counters (SHOW STATUS).
    pub(crate) stats: Arc<crate::stats::StatusHub>,
    /// The sequences' cached states.
    pub(crate) sequences: crate::sequence::Sequences,
    /// The binary log, when the server has one (on or off: see `log_bin`); set once
    /// at start, read without a lock by every writing statement.
    binlog: std::sync::OnceLock<Arc<basalt_replication::binlog::Binlog>>,
    /// The replica side, read from the data directory on first use.
    replica: std::sync::OnceLock<crate::replica::Replica>,
    /// Accounts and grants.
    pub(crate) acl: crate::account::AclStore,
    /// What accounts use of their resource limits.
    pub(crate) resources: crate::account::resources::Resources,
    /// SHOW ENGINE INNODB STATUS's previous printout.
    pub(crate) monitor: crate::show::engine_status::Monitor,
    /// The event scheduler.
    pub(crate) events: crate::event::Scheduler,
}

impl Engine {
    /// A status counter's global value (summed over every session).
    pub fn status_total(&self, s: crate::stats::Stat) -> u64 {
        self.stats.total(s)
    }

    /// Gives the engine the server's binary log (it also becomes the storage's
    /// sink for commits). Only the first call has an effect.
    pub fn set_binlog(&self, binlog: Arc<basalt_replication::binlog::Binlog>) {
        if self.binlog.set(binlog.clone()).is_ok() {
            self.storage.set_binlog(Some(binlog));
        }
    }

    /// The binary log, whether on or off.
    pub fn binlog(&self) -> Option<Arc<basalt_replication::binlog::Binlog>> {
        self.binlog.get().cloned()
    }

    /// The replica side (CHANGE MASTER, START SLAVE, ...).
    pub fn replica(&self) -> &crate::replica::Replica {
        self.replica
            .get_or_init(|| crate::replica::Replica::load(self))
    }

    /// Starts replication when a primary is configured (server start).
    pub fn start_replica(self: &Arc<Self>) {
        self.replica().start_at_boot(self);
    }

    /// Starts the event scheduler (`--event-scheduler=ON` at start, or
    /// `SET GLOBAL event_scheduler = ON`).
    pub fn start_event_scheduler(self: &Arc<Self>) {
        if let Err(e) = self.events.start(self) {
            tracing::error!("Event Scheduler: cannot start its thread: {e}");
        }
    }

    /// Stops the event scheduler (server shutdown).
    pub fn stop_event_scheduler(&self) {
        self.events.stop();
    }

    /// The process list: the server's connections, then the event
    /// scheduler's thread and the event runs going on.
    pub fn processlist(&self) -> Vec<ProcessInfo> {
        let mut list = self.hooks().processlist();
        list.extend(self.events.processes());
        list
    }

    /// `Executed_events`.
    pub fn executed_events(&self) -> u64 {
        self.events.executed()
    }

    /// Stops the replica threads, keeping their positions (server shutdown).
    pub fn stop_replica(&self) {
        if let Some(r) = self.replica.get() {
            r.shutdown(self);
        }
    }

    /// Whether the binary log is on (`@@log_bin`).
    pub fn binlog_on(&self) -> bool {
        self.binlog.get().is_some_and(|b| b.is_on())
    }

    pub fn new(storage: Arc<Storage>, config: GlobalConfig) -> Arc<Engine> {
        let globals = GlobalVars::new(&config);
        let identity = crate::general_log::LogIdentity {
            program: std::env::current_exe()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| "basaltd".into()),
            version: config.version.clone(),
            comment: config.version_comment.clone(),
            port: config.port,
            socket: config.socket.clone(),
        };
        let log_file = globals
            .get("general_log_file")
            .map(|v| v.display_lossy())
            .unwrap_or_default();
        let slow_file = globals
            .get("slow_query_log_file")
            .map(|v| v.display_lossy())
            .unwrap_or_default();
        let slow_log = crate::slow_log::SlowLog::new(&identity, log_path(&config, &slow_file));
        let general_log =
            crate::general_log::GeneralLog::new(&identity, log_path(&config, &log_file));
        let acl = crate::account::AclStore::load(&storage);
        let engine = Arc::new(Engine {
            acl,
            resources: Default::default(),
            monitor: Default::default(),
            storage,
            config,
            globals,
            hooks: RwLock::new(Arc::new(NoHooks)),
            plan_cache: PlanCache::new(),
            started: std::time::Instant::now(),
            general_log,
            slow_log,
            locks: Default::default(),
            user_locks: Default::default(),
            timer: crate::session::timer::StatementTimer::new(),
            binlog: std::sync::OnceLock::new(),
            replica: std::sync::OnceLock::new(),
            events: Default::default(),
            stats: Default::default(),
            sequences: Default::default(),
        });
        engine.start_logs();
        engine
            .stats
            .digests
            .set_on(engine.config.performance_schema);
        engine
            .storage
            .set_partition_routers(Arc::new(crate::partitioning::route::Factory {
                engine: Arc::downgrade(&engine),
            }));
        engine
    }

    /// Where a log file name points: relative names are in the data directory, as
    /// MariaDB resolves `general_log_file`.
    pub(crate) fn log_path(&self, name: &str) -> std::path::PathBuf {
        log_path(&self.config, name)
    }

    /// Opens the slow and general logs the start options turned on. A file that
    /// cannot be opened leaves its log off, with a line in the error log (as
    /// MariaDB does); the server starts.
    fn start_logs(&self) {
        let get = |n: &str| self.globals.get(n).unwrap_or(Value::Null).display_lossy();
        let out = crate::general_log::Outputs::parse(&get("log_output"));
        let on = |n: &str| self.globals.get(n) == Some(Value::Int(1));
        let general = self.log_path(&get("general_log_file"));
        if let Err(e) = self.general_log.configure(on("general_log"), out, &general) {
            tracing::error!(
                "Could not use {} for logging: {e}; the general query log is off",
                general.display()
            );
            self.log_stopped("general_log");
        }
        let slow = self.log_path(&get("slow_query_log_file"));
        if let Err(e) = self.slow_log.configure(on("slow_query_log"), out, &slow) {
            tracing::error!(
                "Could not use {} for logging: {e}; the slow query log is off",
                slow.display()
            );
            self.log_stopped("slow_query_log");
        }
    }

    /// A log whose file could not be written stopped: its variable
    /// (`general_log` or `slow_query_log`) shows OFF.
    pub(crate) fn log_stopped(&self, var: &str) {
        if let Some(def) = crate::sysvars::lookup(var) {
            self.globals.set(def, Value::Int(0));
        }
    }

    /// FLUSH LOGS: reopens the error, general and slow logs' files.
    pub(crate) fn reopen_logs(&self) -> Result<(), MySqlError> {
        self.hooks().reopen_error_log()?;
        self.general_log.reopen().map_err(|e| {
            MySqlError::new(1105, "HY000", format!("Cannot reopen the general log: {e}"))
        })?;
        self.reopen_slow_log()
    }

    /// FLUSH SLOW LOGS: reopens the slow query log's file.
    pub(crate) fn reopen_slow_log(&self) -> Result<(), MySqlError> {
        self.slow_log.reopen().map_err(|e| {
            MySqlError::new(
                1105,
                "HY000",
                format!("Cannot reopen the slow query log: {e}"),
            )
        })
    }

    /// A new connection's session, with session variables copied from the globals.
    /// A session with every right: the server's own (replication applier) and
    /// embedded use. Clients get theirs from [`Engine::client_session`].
    pub fn new_session(self: &Arc<Self>, connection_id: u64, user: &str, host: &str) -> Session {
        Session::new(self.clone(), connection_id, user, host)
    }

    /// A client's session with the rights of the account it logged in as
    /// (`account`: user and host pattern, see [`Engine::login_account`]), or
    /// the error of a resource limit the login exceeds (1226, 1203).
    pub fn client_session(
        self: &Arc<Self>,
        connection_id: u64,
        user: &str,
        host: &str,
        account: &basalt_acl::Account,
    ) -> Result<Session, MySqlError> {
        let global = match self.global_variable("max_user_connections") {
            Some(Value::Int(n)) => n,
            _ => 0,
        };
        let key = (account.user.as_str(), account.host.as_str());
        let tracked = self.resources.login(key, user, &account.limits, global)?;
        let mut s = Session::new(self.clone(), connection_id, user, host);
        s.cx.stats.identify(user, host);
        s.cx.privs = crate::account::SessionPrivs::for_account(&account.user, &account.host);
        s.cx.privs.limits = account.limits;
        s.cx.privs.tracked = tracked;
        if account.limits.statement_time > 0.0 {
            let t = Value::Double(account.limits.statement_time);
            s.cx.vars.insert("max_statement_time", t);
            s.cx.refresh_derived();
        }
        // The default role is enabled while it is still granted to the account.
        let acl = self.acl.snapshot();
        let granted = acl.role_grant((&account.user, &account.host), &account.default_role);
        if granted.is_some() && acl.role(&account.default_role).is_some() {
            s.cx.privs.set_role(Some(account.default_role.clone()));
        }
        s.cx.privs.password_expired = account.password_expired;
        // information_schema reads the grants while the first statement binds.
        s.cx.privs.refresh(&self.acl);
        Ok(s)
    }

    /// The account a login as `user` from `peer` (an address, or `localhost` for
    /// the socket) uses, if any.
    pub fn login_account(&self, user: &str, peer: &str) -> Option<basalt_acl::Account> {
        let client = basalt_acl::Client::from_peer(peer);
        self.acl.snapshot().login_account(user, &client).cloned()
    }

    pub fn set_hooks(&self, hooks: Arc<dyn ServerHooks>) {
        *self.hooks.write() = hooks;
    }

    pub(crate) fn hooks(&self) -> Arc<dyn ServerHooks> {
        self.hooks.read().clone()
    }

    pub fn storage(&self) -> &Arc<Storage> {
        &self.storage
    }

    pub fn config(&self) -> &GlobalConfig {
        &self.config
    }

    /// Plan cache (hits, misses) since start.
    pub fn plan_cache_stats(&self) -> (u64, u64) {
        self.plan_cache.stats()
    }

    /// The current global value of a system variable (`None` if unknown), as
    /// `SELECT @@global.name` shows it.
    pub fn global_variable(&self, name: &str) -> Option<Value> {
        self.globals.get(name)
    }
}
