//! basaltd: the server process around the SQL engine.
//!
//! Threading model: a statement may block for a long time (row-lock waits up to
//! `innodb_lock_wait_timeout`, group-commit fsync waits, page reads), so it runs on
//! an OS thread rather than on a shared async executor where it would stall other
//! sessions. By default a connection has a thread while it works and none while it
//! is idle ([`park`]); with `--thread-handling=pool-of-threads` the commands of all
//! connections share a pool sized by the cores, as MariaDB's thread pool
//! ([`threads`]). The accept loop only accepts and hands the socket over; the
//! handshake, authentication and session set-up happen on a connection thread.

mod blocking;
mod command_loop;
pub mod config;
mod connection;
pub mod datadir_lock;
mod dump;
pub mod error_log;
mod hooks;
mod limits;
mod listener;
mod log_opts;
mod metrics;
mod park;
mod pool_opts;
mod registry;
mod replica_opts;
mod results;
mod signals;
mod statements;
mod stream;
mod threads;
pub mod tls;
mod tls_certs;

use basalt_protocol::{HandshakeConfig, ProtoError, RsaKeyPair};
use basalt_replication::binlog::{Binlog, BinlogConfig, Files};
use basalt_replication::dump::ReplicaRegistry;
use basalt_replication::DumpSource;
use basalt_sql::{Engine, GlobalConfig};
use basalt_storage::{Storage, StorageConfig, StorageError};
use config::Config;
use registry::Registry;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The server version string clients see. MariaDB's clients and connectors recognise
/// a MariaDB server by the `-MariaDB` suffix; Basalt reports MariaDB 10.11
/// compatibility and names itself in `@@version_comment`.
pub const SERVER_VERSION: &str = "10.11.99-MariaDB-Basalt";

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("storage: {0}")]
    Storage(#[from] StorageError),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: String,
        source: std::io::Error,
    },
    #[error("cannot listen on the Unix socket {path}: {source}")]
    Socket {
        path: String,
        source: std::io::Error,
    },
    #[error("another server is running on the socket {path}; stop it, or give this one another --socket")]
    SocketInUse { path: String },
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("RSA key for caching_sha2_password: {0}")]
    RsaKey(#[from] ProtoError),
    #[error("{0}")]
    Lock(#[from] datadir_lock::LockError),
    #[error("{0}")]
    Tls(#[from] tls::TlsError),
}

/// State shared by every connection of a running server.
pub struct Server {
    pub config: Config,
    pub engine: Arc<Engine>,
    pub storage: Arc<Storage>,
    pub registry: Registry,
    /// Greeting and authentication settings, with the RSA key pair from the data
    /// directory (`private_key.pem`, generated on first start) that
    /// `caching_sha2_password` full authentication uses without TLS.
    pub handshake: HandshakeConfig,
    /// TLS for clients that ask for it (`None` with `--skip-ssl`).
    pub tls: Option<tls::Tls>,
    /// Which `caching_sha2_password` accounts may take the fast path.
    sha2_cache: connection::Sha2Cache,
    pub stats: ServerStats,
    pub shutting_down: AtomicBool,
    /// Wakes the accept loop; set by [`run`] once the server listens.
    stopper: std::sync::OnceLock<listener::StopHandle>,
    pub started: Instant,
    /// Held for the life of the server: no second server opens this data directory.
    _datadir_lock: datadir_lock::DatadirLock,
    /// The binary log as COM_BINLOG_DUMP reads it; `None` while binary logging is
    /// off (a dump then gets 1236 "Binary log is not open"). See [`Server::set_binlog`].
    binlog: parking_lot::RwLock<Option<Arc<dyn DumpSource>>>,
    /// Replicas registered with COM_REGISTER_SLAVE (SHOW SLAVE HOSTS) and the
    /// running dumps.
    pub replicas: ReplicaRegistry,
    /// Idle connections waiting for their next command without a thread.
    pub(crate) parker: Arc<park::Parker>,
    /// The connection threads (one per working connection, or the pool).
    pub(crate) threads: Arc<threads::Threads>,
}

impl Server {
    /// Turns serving the binary log to replicas on (`Some`) or off. Dumps already
    /// running keep the source they started with.
    pub fn set_binlog(&self, source: Option<Arc<dyn DumpSource>>) {
        *self.binlog.write() = source;
    }

    /// The binary log dumps read, if binary logging is on.
    pub fn binlog(&self) -> Option<Arc<dyn DumpSource>> {
        self.binlog.read().clone()
    }

    /// Starts the clean stop (SIGTERM, SIGINT, `SHUTDOWN`, COM_SHUTDOWN): no new
    /// connections; [`run`] then ends the open ones and shuts the storage down.
    pub fn request_stop(&self, why: &str) {
        tracing::info!("{why}, shutting down");
        self.shutting_down.store(true, Ordering::SeqCst);
        if let Some(stop) = self.stopper.get() {
            stop.stop();
        }
    }
}

#[derive(Default)]
pub struct ServerStats {
    pub connections: AtomicU64,
    pub aborted_connects: AtomicU64,
    pub aborted_clients: AtomicU64,
    pub max_used_connections: AtomicU64,
    /// Logins refused with 1045 (`Access_denied_errors`; statements refused
    /// for privileges count in the sessions' counters).
    pub access_denied: AtomicU64,
    /// `Connection_errors_max_connections`: clients refused with 1040.
    pub errors_max_connections: AtomicU64,
    /// `Connection_errors_accept`: failed accept() calls.
    pub errors_accept: AtomicU64,
    /// `Connection_errors_internal`: connections dropped because no thread
    /// could be started for them.
    pub errors_internal: AtomicU64,
}

/// Opens storage, listens and serves until SIGTERM/SIGINT, then stops cleanly.
pub fn run(mut config: Config) -> Result<(), ServerError> {
    signals::block_termination_signals();
    limits::raise_open_files(&mut config);
    for o in &config.ignored_options {
        tracing::warn!("option '{o}' of the defaults file is accepted but not used by basaltd");
    }
    let lock = datadir_lock::DatadirLock::acquire(&config.datadir)?;
    let listeners = listener::bind(&config)?;
    let socket = listeners
        .unix
        .as_ref()
        .map(|u| u.path.display().to_string());
    let server = start(config, lock, socket.unwrap_or_default())?;
    let metrics = metrics::start(&server)?;
    tracing::info!(
        "basaltd {SERVER_VERSION} ready for connections on {} (datadir {})",
        ready_addresses(&listeners)?,
        server.config.datadir.display()
    );
    let _ = server.stopper.set(listener::StopHandle::new(&listeners));
    // The replica's settings and filters load now: their variables show them.
    let _ = server.engine.replica();
    if !server.config.skip_slave_start {
        server.engine.start_replica();
    }
    if server.config.event_scheduler == "ON" {
        server.engine.start_event_scheduler();
    }
    let s2 = server.clone();
    std::thread::Builder::new()
        .name("basalt-signals".into())
        .spawn(move || {
            let sig = signals::wait_for_termination();
            s2.request_stop(&format!("received {sig}"));
        })?;
    listener::accept_loops(&server, &listeners);
    drop(metrics);
    let result = shutdown(&server);
    drop(listeners);
    result
}

/// The start-up line's addresses: `127.0.0.1:3306 socket /run/mysqld/mysqld.sock`
/// (the TCP address first: scripts read the port from it).
fn ready_addresses(l: &listener::Listeners) -> Result<String, ServerError> {
    let mut parts = Vec::new();
    if let Some(t) = &l.tcp {
        parts.push(t.local_addr()?.to_string());
    }
    if let Some(u) = &l.unix {
        parts.push(format!("socket {}", u.path.display()));
    }
    if let Some(x) = &l.extra {
        parts.push(format!("extra port {}", x.local_addr()?.port()));
    }
    Ok(parts.join(" "))
}

/// Opens storage and the SQL engine on the locked data directory; `socket` is the
/// Unix socket listened on (`@@socket`; empty when there is none).
pub fn start(
    config: Config,
    lock: datadir_lock::DatadirLock,
    socket: String,
) -> Result<Arc<Server>, ServerError> {
    let mut sc = StorageConfig::new(&config.datadir);
    sc.buffer_pool_size = config.buffer_pool_size;
    sc.flush_log_at_trx_commit = config.flush_log_at_trx_commit;
    sc.discard_damaged_log_tail = config.discard_damaged_log_tail;
    // A failed log write or fsync: Linux may have dropped the dirty pages and will
    // not report it again, so carrying on could acknowledge lost commits. Stop, and
    // let the restart recover from the log (as PostgreSQL does).
    sc.on_fatal = Some(Arc::new(|msg: &str| {
        tracing::error!(
            "fatal storage error: {msg}; aborting so that restart recovers from the log"
        );
        std::process::abort();
    }));
    let files = binlog_files(&config);
    let recovery_files = files.clone();
    sc.binlog_recovery = Some(Arc::new(move |groups: &[(u64, Vec<u8>)]| {
        basalt_replication::binlog::recover(&recovery_files, groups)
    }));
    let storage = Storage::open(sc)?;
    let tls = tls::Tls::open(&config.tls, &config.datadir)?;
    let handshake = handshake_config(&config, tls.is_some())?;
    let binlog = Binlog::open(
        BinlogConfig {
            dir: files.dir().to_path_buf(),
            basename: files.basename().to_string(),
            server_id: config.server_id,
            max_size: config.max_binlog_size,
            expire_seconds: config.binlog_expire_seconds,
            checksum: config.binlog_checksum,
            server_version: SERVER_VERSION.into(),
        },
        storage.log_appender(),
        config.log_bin,
    )?;
    binlog.semisync().apply(&config.semisync);
    binlog.set_filter(basalt_replication::binlog::DbFilter {
        do_db: basalt_replication::binlog::DbFilter::parse_list(&config.binlog_do_db),
        ignore_db: basalt_replication::binlog::DbFilter::parse_list(&config.binlog_ignore_db),
    });
    let mut global = global_config(&config, socket);
    if let Some(t) = &tls {
        global.have_ssl = "YES".into();
        global.tls = tls_vars(t, &config.tls);
    }
    global.log_bin_basename = Some(files.dir().join(files.basename()).display().to_string());
    let engine = Engine::new(storage.clone(), global);
    engine.set_binlog(binlog.clone());
    let threads = threads::Threads::new(config.threads.handling, &config.threads);
    let server = Arc::new(Server {
        config,
        engine: engine.clone(),
        storage,
        registry: Registry::new(),
        handshake,
        tls,
        sha2_cache: connection::Sha2Cache::default(),
        stats: ServerStats::default(),
        shutting_down: AtomicBool::new(false),
        stopper: std::sync::OnceLock::new(),
        started: Instant::now(),
        _datadir_lock: lock,
        // Files stay readable while `log_bin` is OFF: a replica can still catch up.
        binlog: parking_lot::RwLock::new(Some(binlog as Arc<dyn DumpSource>)),
        replicas: ReplicaRegistry::new(),
        parker: Arc::new(park::Parker::new()?),
        threads,
    });
    engine.set_hooks(Arc::new(hooks::Hooks::new(&server)));
    Ok(server)
}

/// Where the binary log lives: `--log-bin`'s base name, in the data directory
/// unless it names a path.
fn binlog_files(c: &Config) -> Files {
    let datadir = std::fs::canonicalize(&c.datadir).unwrap_or_else(|_| c.datadir.clone());
    let path = datadir.join(&c.log_bin_basename);
    let dir = path.parent().map_or(datadir.clone(), |p| p.to_path_buf());
    let base = path
        .file_name()
        .map_or("basalt-bin".into(), |n| n.to_string_lossy().into_owned());
    Files::new(dir, &base)
}

/// MariaDB's greeting: `mysql_native_password` first; clients that prefer
/// `caching_sha2_password` (MySQL 8's default) get it through the auth-switch
/// exchange. CLIENT_SSL is offered when the server has TLS.
fn handshake_config(c: &Config, tls: bool) -> Result<HandshakeConfig, ServerError> {
    let key = RsaKeyPair::load_or_generate(&c.datadir, basalt_protocol::rsa_key::DEFAULT_RSA_BITS)?;
    let mut cfg = HandshakeConfig {
        rsa_key: Some(Arc::new(key)),
        ..HandshakeConfig::default()
    };
    if tls {
        cfg.capabilities |= basalt_protocol::capability::CLIENT_SSL;
    }
    Ok(cfg)
}

/// The `ssl_*` variables: the files in use (absolute), `ssl_cipher` as given.
fn tls_vars(t: &tls::Tls, settings: &tls::TlsSettings) -> basalt_sql::TlsVars {
    let path = |p: &std::path::Path| {
        std::fs::canonicalize(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    };
    let files = t.files();
    basalt_sql::TlsVars {
        ca: files.ca.as_deref().map(path).unwrap_or_default(),
        cert: path(&files.cert),
        key: path(&files.key),
        cipher: settings.cipher.clone().unwrap_or_default(),
        versions: t.version_list(),
        library: tls::LIBRARY.into(),
    }
}

fn global_config(c: &Config, socket: String) -> GlobalConfig {
    let datadir = std::fs::canonicalize(&c.datadir).unwrap_or_else(|_| c.datadir.clone());
    GlobalConfig {
        port: if c.skip_networking { 0 } else { c.port },
        bind_address: c.bind_address.clone(),
        datadir: format!("{}/", datadir.display()),
        version: SERVER_VERSION.into(),
        version_comment: "Basalt".into(),
        max_allowed_packet: c.max_allowed_packet,
        buffer_pool_size: c.buffer_pool_size,
        flush_log_at_trx_commit: c.flush_log_at_trx_commit as u64,
        max_connections: c.max_connections as u64,
        open_files_limit: c.open_files_limit,
        server_id: c.server_id as u64,
        log_bin: c.log_bin,
        max_binlog_size: c.max_binlog_size,
        binlog_expire_seconds: c.binlog_expire_seconds,
        binlog_checksum: c.binlog_checksum,
        semisync: c.semisync.clone(),
        binlog_do_db: c.binlog_do_db.clone(),
        binlog_ignore_db: c.binlog_ignore_db.clone(),
        replicate_filters: c.replicate_filters.clone(),
        slave_skip_errors: c.slave_skip_errors.clone(),
        log_slave_updates: c.log_slave_updates,
        logs: c.logs.clone(),
        threads: basalt_sql::ThreadVars {
            handling: c.threads.handling.name(),
            pool_size: c.threads.pool_size,
            pool_max_threads: c.threads.pool_max_threads,
            pool_stall_limit: c.threads.pool_stall_limit,
            pool_oversubscribe: c.threads.pool_oversubscribe,
            pool_idle_timeout: c.threads.pool_idle_timeout,
            extra_port: u64::from(c.threads.extra_port),
            extra_max_connections: c.threads.extra_max_connections,
            back_log: c.threads.back_log,
        },
        hostname: hostname(),
        log_error: c
            .log_error
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        rollback_on_timeout: c.rollback_on_timeout,
        performance_schema: c.performance_schema,
        collation_server: c.collation_server,
        default_time_zone: c.default_time_zone.clone(),
        event_scheduler: c.event_scheduler.clone(),
        max_session_mem_used: c.max_session_mem_used,
        tmpdir: c.tmpdir.display().to_string(),
        socket,
        skip_networking: c.skip_networking,
        skip_slave_start: c.skip_slave_start,
        secure_file_priv: c
            .secure_file_priv
            .as_ref()
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())),
        ..GlobalConfig::default()
    }
}

pub(crate) fn hostname() -> String {
    std::fs::read_to_string("/etc/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "localhost".into())
}

/// Ends every connection, waits briefly for their statements to finish, and shuts
/// the storage down (making everything durable).
fn shutdown(server: &Arc<Server>) -> Result<(), ServerError> {
    server.engine.stop_replica();
    server.engine.stop_event_scheduler();
    for c in server.registry.all() {
        c.kill();
    }
    let start = Instant::now();
    let mut forced = false;
    while server.registry.count() > 0 && start.elapsed() < Duration::from_secs(10) {
        // A connection still there after a second is stuck writing to a client
        // that does not read: close its socket.
        if !forced && start.elapsed() > Duration::from_secs(1) {
            server.registry.all().iter().for_each(|c| c.kill_now());
            forced = true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    server.parker.stop();
    server.storage.shutdown()?;
    tracing::info!("basaltd stopped");
    Ok(())
}
