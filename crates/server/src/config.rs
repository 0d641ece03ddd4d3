//! Configuration: command-line flags named as mysqld's, and an optional my.cnf-style
//! file (`--defaults-file`) whose `[mysqld]` and `[basaltd]` sections take the same
//! option names (dashes or underscores). Precedence: command line, then the file
//! (`[basaltd]` over `[mysqld]`), then built-in defaults.

mod defaults_file;

use clap::Parser;
use defaults_file::read_defaults;
pub use defaults_file::read_defaults_file;
use std::collections::HashMap;
use std::path::PathBuf;

/// basaltd: a MySQL-compatible OLTP database server.
#[derive(Parser, Debug, Default, Clone)]
#[command(name = "basaltd", version, about)]
pub struct Args {
    /// TCP port to listen on (default 3306; 0 picks a free port and logs it).
    #[arg(long, short = 'P')]
    pub port: Option<u16>,
    /// Address to listen on (default 127.0.0.1; `::` for every IPv6 and IPv4
    /// address, `::1` for IPv6 loopback, `*` as `::`).
    #[arg(long = "bind-address")]
    pub bind_address: Option<String>,
    /// Unix socket to listen on (default /run/mysqld/mysqld.sock, as Debian's
    /// MariaDB; `mariadb -uroot` without -h connects there).
    #[arg(long, short = 'S')]
    pub socket: Option<PathBuf>,
    /// Listen on no TCP port, only on the Unix socket.
    #[arg(long = "skip-networking")]
    pub skip_networking: bool,
    /// Do not start replication at server start, even with a primary configured
    /// (CHANGE MASTER TO).
    #[arg(long = "skip-slave-start")]
    pub skip_slave_start: bool,
    /// Data directory (default ./basalt-data).
    #[arg(long)]
    pub datadir: Option<PathBuf>,
    /// Page cache size for durable tables, e.g. 16M, 2G (default 128M).
    #[arg(long = "buffer-pool-size", alias = "innodb-buffer-pool-size")]
    pub buffer_pool_size: Option<String>,
    /// 1: fsync the log at every commit (default); 2: write at commit, fsync once a
    /// second; 0: write and fsync once a second.
    #[arg(
        long = "flush-log-at-trx-commit",
        alias = "innodb-flush-log-at-trx-commit"
    )]
    pub flush_log_at_trx_commit: Option<u8>,
    /// Maximum simultaneous client connections (default 1000).
    #[arg(long = "max-connections")]
    pub max_connections: Option<u32>,
    /// File descriptors to ask the OS for (RLIMIT_NOFILE) at least; the server
    /// asks for more when max_connections and the table cache need them.
    #[arg(long = "open-files-limit")]
    pub open_files_limit: Option<u64>,
    /// Largest packet a client may send, e.g. 16M (default 16M).
    #[arg(long = "max-allowed-packet")]
    pub max_allowed_packet: Option<String>,
    /// Memory one statement may use for sorts, groups, sets and materialised
    /// subqueries, e.g. 512M (`max_session_mem_used`; default 1/8 of the memory
    /// available to the process, at least 64M).
    #[arg(long = "max-session-mem-used")]
    pub max_session_mem_used: Option<String>,
    /// Directory for temporary files (sort runs, spooled cursor rows; default
    /// $TMPDIR or /tmp).
    #[arg(long)]
    pub tmpdir: Option<PathBuf>,
    /// The only directory server-side LOAD DATA INFILE and SELECT ... INTO
    /// OUTFILE may read and write (default: none, so both are refused; LOAD DATA
    /// LOCAL is not affected).
    #[arg(long = "secure-file-priv")]
    pub secure_file_priv: Option<PathBuf>,
    /// The global `time_zone` at start (default SYSTEM, which is UTC): a
    /// numeric offset such as +05:30, or a named zone such as Europe/Berlin.
    #[arg(long = "default-time-zone")]
    pub default_time_zone: Option<String>,
    /// The event scheduler at start: ON, OFF (default) or DISABLED (then it
    /// cannot be turned on while the server runs).
    #[arg(long = "event-scheduler")]
    pub event_scheduler: Option<String>,
    /// Write a binary log (`basename.000001`, ... in the data directory, or where a
    /// path in the base name points; default base name basalt-bin). Without it the
    /// log can still be turned on at runtime with `SET GLOBAL log_bin = ON`.
    #[arg(long = "log-bin", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub log_bin: Option<String>,
    /// No binary log at start (overrides a `log-bin` in the defaults file).
    #[arg(long = "skip-log-bin")]
    pub skip_log_bin: bool,
    /// This server's id in replication (`@@server_id`; default 1).
    #[arg(long = "server-id")]
    pub server_id: Option<u32>,
    /// Size after which the binary log moves to a new file, e.g. 100M (default 1G).
    #[arg(long = "max-binlog-size")]
    pub max_binlog_size: Option<String>,
    /// Binary log files older than this many seconds are removed when the log moves
    /// to a new file (`binlog_expire_logs_seconds`; 0, the default, keeps them).
    #[arg(long = "binlog-expire-logs-seconds")]
    pub binlog_expire_logs_seconds: Option<u64>,
    /// The same in days (`expire_logs_days`, fractions allowed).
    #[arg(long = "expire-logs-days")]
    pub expire_logs_days: Option<f64>,
    /// CRC32 (default) or NONE: whether binary log events carry checksums
    /// (`binlog_checksum`).
    #[arg(long = "binlog-checksum")]
    pub binlog_checksum: Option<String>,
    /// Semi-synchronous replication: commits wait for a replica's acknowledgement
    /// (`rpl_semi_sync_master_enabled`; ON/OFF, default OFF).
    #[arg(long = "rpl-semi-sync-master-enabled", num_args = 0..=1, require_equals = true, default_missing_value = "ON")]
    pub rpl_semi_sync_master_enabled: Option<String>,
    /// How long a commit waits for the acknowledgement, in milliseconds, before
    /// semi-sync switches off (default 10000).
    #[arg(long = "rpl-semi-sync-master-timeout")]
    pub rpl_semi_sync_master_timeout: Option<u64>,
    /// AFTER_SYNC (default) or AFTER_COMMIT; both wait at the same point in Basalt.
    #[arg(long = "rpl-semi-sync-master-wait-point")]
    pub rpl_semi_sync_master_wait_point: Option<String>,
    /// Whether commits wait while no semi-sync replica is connected (default ON).
    #[arg(long = "rpl-semi-sync-master-wait-no-slave", num_args = 0..=1, require_equals = true, default_missing_value = "ON")]
    pub rpl_semi_sync_master_wait_no_slave: Option<String>,
    /// Log only changes in this database (repeatable; `binlog_do_db`).
    #[arg(long = "binlog-do-db")]
    pub binlog_do_db: Vec<String>,
    /// Do not log changes in this database (repeatable; `binlog_ignore_db`).
    #[arg(long = "binlog-ignore-db")]
    pub binlog_ignore_db: Vec<String>,
    #[command(flatten)]
    pub replica: crate::replica_opts::ReplicaArgs,
    #[command(flatten)]
    pub threads: crate::pool_opts::ThreadArgs,
    #[command(flatten)]
    pub logs: crate::log_opts::LogArgs,
    /// Serve Prometheus metrics over HTTP on this port (`GET /metrics`; off
    /// unless given; 0 picks a free port and logs it).
    #[arg(long = "metrics-port")]
    pub metrics_port: Option<u16>,
    /// Address the metrics port listens on (default 127.0.0.1; `*` for every
    /// address).
    #[arg(long = "metrics-bind-address")]
    pub metrics_bind_address: Option<String>,
    /// Read options from this file first ([mysqld] and [basaltd] sections).
    #[arg(long = "defaults-file")]
    pub defaults_file: Option<PathBuf>,
    /// Log filter (error, warn, info, debug, trace; default info).
    #[arg(long = "log-level")]
    pub log_level: Option<String>,
    /// Write the server's log to this file instead of stderr (`@@log_error`; a
    /// relative name is taken in the data directory; without a name,
    /// `<hostname>.err` there). FLUSH LOGS / FLUSH ERROR LOGS reopen it.
    #[arg(long = "log-error", num_args = 0..=1, default_missing_value = "")]
    pub log_error: Option<String>,
    /// `--performance-schema[=ON|OFF]`: statement digests and statement events
    /// are recorded (default ON; OFF, or --skip-performance-schema, for
    /// measuring what they cost).
    #[arg(long = "performance-schema", num_args = 0..=1, default_missing_value = "ON")]
    pub performance_schema: Option<String>,
    #[arg(long = "skip-performance-schema")]
    pub skip_performance_schema: bool,
    /// A lock wait timeout (errno 1205) rolls back the whole transaction, not only
    /// the statement (`innodb_rollback_on_timeout`).
    #[arg(long = "innodb-rollback-on-timeout")]
    pub rollback_on_timeout: bool,
    /// The server's TLS certificate (PEM; with --ssl-key). Without --ssl-cert,
    /// --ssl-key and --ssl-ca the data directory's `server-cert.pem`,
    /// `server-key.pem` and `ca.pem` are used, generated on first start.
    #[arg(long = "ssl-cert")]
    pub ssl_cert: Option<PathBuf>,
    /// The private key of --ssl-cert (PEM).
    #[arg(long = "ssl-key")]
    pub ssl_key: Option<PathBuf>,
    /// CA certificates (PEM) that client certificates must be signed by.
    #[arg(long = "ssl-ca")]
    pub ssl_ca: Option<PathBuf>,
    /// The TLS cipher suites allowed, OpenSSL names separated by `:` (default:
    /// every AEAD suite of TLS 1.2 and 1.3).
    #[arg(long = "ssl-cipher")]
    pub ssl_cipher: Option<String>,
    /// TLS versions offered: TLSv1.2,TLSv1.3 (the default) or one of them.
    #[arg(long = "tls-version")]
    pub tls_version: Option<String>,
    /// No TLS: the greeting does not offer it (`have_ssl` is DISABLED).
    #[arg(long = "skip-ssl")]
    pub skip_ssl: bool,
    /// Start even if valid log records follow a damaged one (after disk damage, or a
    /// power loss that tore an unsynced write out of order): recovery discards the log
    /// from the damage on, losing those records, which may include acknowledged
    /// commits. Without it the server refuses to start and changes nothing. Use it
    /// once, after saving a copy of the data directory.
    #[arg(long = "discard-damaged-log-tail")]
    pub discard_damaged_log_tail: bool,
}

/// Debian's MariaDB socket, which its clients use when no host is given.
pub const DEFAULT_SOCKET: &str = "/run/mysqld/mysqld.sock";

/// The resolved configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub port: u16,
    pub bind_address: String,
    /// The Unix socket's path.
    pub socket: PathBuf,
    /// The socket was named (flag or defaults file): failing to listen on it stops
    /// the start. The default socket is best effort: where it cannot be created
    /// (no write access to /run/mysqld) the server warns and serves TCP only.
    pub socket_required: bool,
    pub skip_networking: bool,
    pub skip_slave_start: bool,
    pub datadir: PathBuf,
    pub buffer_pool_size: u64,
    pub flush_log_at_trx_commit: u8,
    pub max_connections: u32,
    pub open_files_limit: u64,
    pub max_allowed_packet: u64,
    pub log_level: String,
    /// `--log-error`: the error log file, if the log goes to one.
    pub log_error: Option<PathBuf>,
    pub performance_schema: bool,
    pub rollback_on_timeout: bool,
    pub max_session_mem_used: u64,
    pub tmpdir: PathBuf,
    pub secure_file_priv: Option<PathBuf>,
    pub discard_damaged_log_tail: bool,
    /// `collation_server` (and so `character_set_server`): the default of new
    /// databases.
    pub collation_server: basalt_common::Collation,
    /// `--default-time-zone`, as `@@global.time_zone` prints it.
    pub default_time_zone: String,
    /// `--event-scheduler`: `ON`, `OFF` or `DISABLED`.
    pub event_scheduler: String,
    /// The binary log's base name (`basalt-bin`, or a path), and whether it is on
    /// at start.
    pub log_bin_basename: String,
    pub log_bin: bool,
    pub server_id: u32,
    pub max_binlog_size: u64,
    /// `binlog_checksum=CRC32`.
    pub binlog_checksum: bool,
    /// `binlog_expire_logs_seconds` (0: never).
    pub binlog_expire_seconds: u64,
    /// `rpl_semi_sync_master_*` at start.
    pub semisync: basalt_replication::semisync::Settings,
    /// `binlog_do_db` / `binlog_ignore_db`, comma-separated.
    pub binlog_do_db: String,
    pub binlog_ignore_db: String,
    /// `--replicate-*`: (variable, comma-separated list) for each list named.
    pub replicate_filters: Vec<(String, String)>,
    /// `@@slave_skip_errors` as shown.
    pub slave_skip_errors: String,
    /// `@@log_slave_updates` at start.
    pub log_slave_updates: bool,
    /// Options of the defaults file that basaltd accepts and does not use (the
    /// server logs each at start).
    pub ignored_options: Vec<String>,
    pub tls: crate::tls::TlsSettings,
    /// `--thread-handling`, the pool's settings at start, `--extra-port`.
    pub threads: crate::pool_opts::ThreadSettings,
    /// The slow and general logs' settings at start.
    pub logs: basalt_sql::LogVars,
    /// `--metrics-port` (`None`: no metrics listener) and its address.
    pub metrics_port: Option<u16>,
    pub metrics_bind_address: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {msg}")]
    Syntax {
        path: PathBuf,
        line: usize,
        msg: String,
    },
    #[error("invalid value '{value}' for {option}: {msg}")]
    Value {
        option: String,
        value: String,
        msg: String,
    },
    #[error("unknown option '{0}' in the defaults file")]
    Unknown(String),
}

impl Config {
    /// Resolves flags, the defaults file and built-in defaults.
    pub fn resolve(args: Args) -> Result<Config, ConfigError> {
        let (file, ignored_options) = match &args.defaults_file {
            Some(p) => read_defaults(p)?,
            None => (HashMap::new(), Vec::new()),
        };
        let get = |name: &str| file.get(name).cloned();
        let port = match args.port {
            Some(p) => p,
            None => parse_num("port", get("port"))?.unwrap_or(3306) as u16,
        };
        let size = |flag: Option<String>, name: &str, default: u64| -> Result<u64, ConfigError> {
            match flag.or_else(|| get(name)) {
                Some(v) => parse_size(name, &v),
                None => Ok(default),
            }
        };
        let binlog_expire_seconds = expire_seconds(&args, &get)?;
        let semisync = semisync_settings(&args, &get)?;
        let socket_named = args.socket.or_else(|| get("socket").map(PathBuf::from));
        let datadir = args
            .datadir
            .clone()
            .or_else(|| get("datadir").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("basalt-data"));
        let log_error = args
            .log_error
            .clone()
            .or_else(|| get("log_error"))
            .map(|name| {
                let name = if name.is_empty() {
                    format!("{}.err", crate::hostname())
                } else {
                    name
                };
                datadir.join(name)
            });
        let log_bin_named = args.log_bin.clone().or_else(|| get("log_bin"));
        let skip_log_bin = args.skip_log_bin || get("skip_log_bin").is_some();
        let tls = crate::tls::TlsSettings {
            disabled: args.skip_ssl
                || get("skip_ssl").is_some()
                || get("ssl").is_some_and(|v| !flag_on(Some(v))),
            cert: args
                .ssl_cert
                .clone()
                .or_else(|| get("ssl_cert").map(PathBuf::from)),
            key: args
                .ssl_key
                .clone()
                .or_else(|| get("ssl_key").map(PathBuf::from)),
            ca: args
                .ssl_ca
                .clone()
                .or_else(|| get("ssl_ca").map(PathBuf::from)),
            cipher: args.ssl_cipher.clone().or_else(|| get("ssl_cipher")),
            versions: args.tls_version.clone().or_else(|| get("tls_version")),
        };
        Ok(Config {
            logs: args.logs.resolve(&get)?,
            tls,
            threads: args.threads.resolve(
                &get,
                match args.max_connections {
                    Some(v) => u64::from(v),
                    None => parse_num("max_connections", get("max_connections"))?.unwrap_or(1000),
                },
            )?,
            log_bin: log_bin_named.is_some() && !skip_log_bin,
            log_bin_basename: log_bin_named
                .filter(|n| !n.is_empty() && n != "1" && !n.eq_ignore_ascii_case("on"))
                .unwrap_or_else(|| "basalt-bin".into()),
            server_id: match args.server_id {
                Some(v) => v,
                None => parse_num("server_id", get("server_id"))?.unwrap_or(1) as u32,
            },
            max_binlog_size: size(args.max_binlog_size, "max_binlog_size", 1 << 30)?
                .clamp(4096, 1 << 30),
            binlog_expire_seconds,
            binlog_checksum: binlog_checksum(
                args.binlog_checksum
                    .clone()
                    .or_else(|| get("binlog_checksum")),
            )?,
            semisync,
            binlog_do_db: db_list(&args.binlog_do_db, get("binlog_do_db")),
            binlog_ignore_db: db_list(&args.binlog_ignore_db, get("binlog_ignore_db")),
            replicate_filters: args.replica.filters(&get),
            slave_skip_errors: args.replica.skip_errors(&get)?,
            log_slave_updates: args.replica.log_slave_updates(&get),
            port,
            metrics_port: match args.metrics_port {
                Some(p) => Some(p),
                None => port_option("metrics_port", get("metrics_port"))?,
            },
            metrics_bind_address: args
                .metrics_bind_address
                .or_else(|| get("metrics_bind_address"))
                .unwrap_or_else(|| "127.0.0.1".into()),
            socket_required: socket_named.is_some(),
            socket: socket_named.unwrap_or_else(|| PathBuf::from(DEFAULT_SOCKET)),
            skip_networking: args.skip_networking || flag_on(get("skip_networking")),
            skip_slave_start: args.skip_slave_start || flag_on(get("skip_slave_start")),
            bind_address: args
                .bind_address
                .or_else(|| get("bind_address"))
                .unwrap_or_else(|| "127.0.0.1".into()),
            datadir,
            buffer_pool_size: size(args.buffer_pool_size, "buffer_pool_size", 128 << 20)?,
            flush_log_at_trx_commit: match args.flush_log_at_trx_commit {
                Some(v) => check_flush(v)?,
                None => check_flush(
                    parse_num("flush_log_at_trx_commit", get("flush_log_at_trx_commit"))?
                        .unwrap_or(1) as u8,
                )?,
            },
            max_connections: match args.max_connections {
                Some(v) => v,
                None => {
                    parse_num("max_connections", get("max_connections"))?.unwrap_or(1000) as u32
                }
            },
            open_files_limit: match args.open_files_limit {
                Some(v) => v,
                None => parse_num("open_files_limit", get("open_files_limit"))?.unwrap_or(0),
            },
            max_allowed_packet: size(args.max_allowed_packet, "max_allowed_packet", 16 << 20)?
                .clamp(1024, 1 << 30),
            log_level: args
                .log_level
                .or_else(|| get("log_level"))
                .unwrap_or_else(|| "info".into()),
            log_error,
            performance_schema: !args.skip_performance_schema
                && args
                    .performance_schema
                    .or_else(|| get("performance_schema"))
                    .is_none_or(|v| flag_on(Some(v))),
            rollback_on_timeout: args.rollback_on_timeout || flag_on(get("rollback_on_timeout")),
            discard_damaged_log_tail: args.discard_damaged_log_tail
                || flag_on(get("discard_damaged_log_tail")),
            collation_server: server_collation(
                get("character_set_server"),
                get("collation_server"),
            )?,
            default_time_zone: time_zone(
                args.default_time_zone.or_else(|| get("default_time_zone")),
            )?,
            event_scheduler: event_scheduler(
                args.event_scheduler
                    .clone()
                    .or_else(|| get("event_scheduler")),
            )?,
            ignored_options,
            max_session_mem_used: size(
                args.max_session_mem_used,
                "max_session_mem_used",
                default_session_mem(),
            )?
            .max(8192),
            tmpdir: args
                .tmpdir
                .or_else(|| get("tmpdir").map(PathBuf::from))
                .unwrap_or_else(std::env::temp_dir),
            secure_file_priv: args
                .secure_file_priv
                .or_else(|| get("secure_file_priv").map(PathBuf::from))
                .filter(|p| !p.as_os_str().is_empty()),
        })
    }
}

/// `--binlog-do-db` / `--binlog-ignore-db` (each names one database; the flags win
/// over the defaults file), comma-separated.
/// `--binlog-checksum`: CRC32 (the default) or NONE.
fn binlog_checksum(v: Option<String>) -> Result<bool, ConfigError> {
    match v {
        None => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("CRC32") => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("NONE") => Ok(false),
        Some(v) => Err(ConfigError::Value {
            option: "binlog_checksum".into(),
            value: v,
            msg: "expected CRC32 or NONE".into(),
        }),
    }
}

fn db_list(flags: &[String], file: Option<String>) -> String {
    if flags.is_empty() {
        return file.unwrap_or_default();
    }
    flags.join(",")
}

/// `binlog_expire_logs_seconds`, or `expire_logs_days` in seconds (the first named
/// wins, the command line before the file).
fn expire_seconds(args: &Args, get: &dyn Fn(&str) -> Option<String>) -> Result<u64, ConfigError> {
    if let Some(s) = args.binlog_expire_logs_seconds {
        return Ok(s);
    }
    if let Some(d) = args.expire_logs_days {
        return Ok((d.max(0.0) * 86400.0) as u64);
    }
    if let Some(s) = parse_num(
        "binlog_expire_logs_seconds",
        get("binlog_expire_logs_seconds"),
    )? {
        return Ok(s);
    }
    match get("expire_logs_days") {
        None => Ok(0),
        Some(v) => v
            .trim()
            .parse::<f64>()
            .map(|d| (d.max(0.0) * 86400.0) as u64)
            .map_err(|_| ConfigError::Value {
                option: "expire_logs_days".into(),
                value: v,
                msg: "not a number of days".into(),
            }),
    }
}

/// `--default-time-zone`, checked as `SET GLOBAL time_zone` checks it.
fn time_zone(v: Option<String>) -> Result<String, ConfigError> {
    let Some(v) = v else {
        return Ok("SYSTEM".into());
    };
    basalt_sql::time_zone_name(&v).map_err(|e| ConfigError::Value {
        option: "default_time_zone".into(),
        value: v,
        msg: e.message,
    })
}

/// `--event-scheduler`: ON / OFF / DISABLED (1 and 0 for ON and OFF, as
/// MariaDB reads them).
fn event_scheduler(v: Option<String>) -> Result<String, ConfigError> {
    let Some(v) = v else {
        return Ok("OFF".into());
    };
    match v.to_ascii_uppercase().as_str() {
        "ON" | "1" | "" => Ok("ON".into()),
        "OFF" | "0" => Ok("OFF".into()),
        "DISABLED" => Ok("DISABLED".into()),
        _ => Err(ConfigError::Value {
            option: "event_scheduler".into(),
            value: v,
            msg: "not ON, OFF or DISABLED".into(),
        }),
    }
}

/// `character-set-server` / `collation-server` to a collation (its character set's
/// default when only the set is named); MariaDB's defaults when neither is.
fn server_collation(
    charset: Option<String>,
    collation: Option<String>,
) -> Result<basalt_common::Collation, ConfigError> {
    use basalt_common::{Charset, Collation};
    let bad = |option: &str, value: &str, msg: &str| ConfigError::Value {
        option: option.into(),
        value: value.into(),
        msg: msg.into(),
    };
    let cs = match &charset {
        Some(n) => Some(
            Charset::from_name(n)
                .ok_or_else(|| bad("character_set_server", n, "unknown character set"))?,
        ),
        None => None,
    };
    match (cs, collation) {
        (_, Some(n)) => {
            let c = Collation::from_name(&n)
                .ok_or_else(|| bad("collation_server", &n, "unknown collation"))?;
            if cs.is_some_and(|cs| cs != c.charset()) {
                return Err(bad(
                    "collation_server",
                    &n,
                    "not a collation of character_set_server",
                ));
            }
            Ok(c)
        }
        (Some(cs), None) => Ok(cs.default_collation()),
        (None, None) => Ok(Collation::Utf8mb4GeneralCi),
    }
}

/// The default `max_session_mem_used`: 1/8 of the memory the process may use
/// (physical memory, or the cgroup's limit when lower), at least 64 MiB. MariaDB's
/// default is unlimited; this one keeps a single runaway statement well clear of
/// exhausting the machine, while ordinary statements never come near it (results
/// stream and big sorts spill to disk).
pub fn default_session_mem() -> u64 {
    (available_memory() / 8).max(64 << 20)
}

fn available_memory() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(8 << 30, |kb| kb * 1024);
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok());
    cgroup.map_or(total, |c| c.min(total))
}

/// A boolean option's value in the defaults file (`1`, `ON`, `TRUE`, or no value).
/// The `rpl_semi_sync_master_*` options (flags first, then the defaults file).
fn semisync_settings(
    args: &Args,
    get: &dyn Fn(&str) -> Option<String>,
) -> Result<basalt_replication::semisync::Settings, ConfigError> {
    use basalt_replication::semisync::{Settings, WaitPoint};
    let d = Settings::default();
    let bad = |option: &str, value: &str, msg: &str| ConfigError::Value {
        option: option.into(),
        value: value.into(),
        msg: msg.into(),
    };
    let on_off = |flag: &Option<String>, name: &str, default: bool| {
        let Some(v) = flag.clone().or_else(|| get(name)) else {
            return Ok(default);
        };
        match v.to_ascii_lowercase().as_str() {
            "1" | "on" | "true" => Ok(true),
            "0" | "off" | "false" => Ok(false),
            _ => Err(bad(name, &v, "must be ON or OFF")),
        }
    };
    let timeout = match args.rpl_semi_sync_master_timeout {
        Some(v) => Some(v),
        None => parse_num(
            "rpl_semi_sync_master_timeout",
            get("rpl_semi_sync_master_timeout"),
        )?,
    };
    let point = args
        .rpl_semi_sync_master_wait_point
        .clone()
        .or_else(|| get("rpl_semi_sync_master_wait_point"));
    let wait_point = match point {
        None => d.wait_point,
        Some(p) => WaitPoint::from_name(&p).ok_or_else(|| {
            bad(
                "rpl_semi_sync_master_wait_point",
                &p,
                "must be AFTER_SYNC or AFTER_COMMIT",
            )
        })?,
    };
    Ok(Settings {
        enabled: on_off(
            &args.rpl_semi_sync_master_enabled,
            "rpl_semi_sync_master_enabled",
            d.enabled,
        )?,
        timeout_ms: timeout.map_or(d.timeout_ms, |t| t.min(u64::from(u32::MAX))),
        wait_point,
        wait_no_slave: on_off(
            &args.rpl_semi_sync_master_wait_no_slave,
            "rpl_semi_sync_master_wait_no_slave",
            d.wait_no_slave,
        )?,
    })
}

fn flag_on(v: Option<String>) -> bool {
    v.is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("on") || v.eq_ignore_ascii_case("true"))
}

fn check_flush(v: u8) -> Result<u8, ConfigError> {
    if v <= 2 {
        Ok(v)
    } else {
        Err(ConfigError::Value {
            option: "flush-log-at-trx-commit".into(),
            value: v.to_string(),
            msg: "must be 0, 1 or 2".into(),
        })
    }
}

/// A port number from the defaults file.
fn port_option(option: &str, v: Option<String>) -> Result<Option<u16>, ConfigError> {
    let Some(n) = parse_num(option, v)? else {
        return Ok(None);
    };
    u16::try_from(n).map(Some).map_err(|_| ConfigError::Value {
        option: option.into(),
        value: n.to_string(),
        msg: "not a port number".into(),
    })
}

fn parse_num(option: &str, v: Option<String>) -> Result<Option<u64>, ConfigError> {
    v.map(|s| {
        s.trim().parse::<u64>().map_err(|e| ConfigError::Value {
            option: option.into(),
            value: s.clone(),
            msg: e.to_string(),
        })
    })
    .transpose()
}

/// Parses `1024`, `16K`, `16M`, `2G`, `1T` (binary multiples, as mysqld does).
pub fn parse_size(option: &str, v: &str) -> Result<u64, ConfigError> {
    let s = v.trim();
    let err = |msg: &str| ConfigError::Value {
        option: option.into(),
        value: v.into(),
        msg: msg.into(),
    };
    let (num, mult) = match s.chars().last() {
        Some(c) if c.is_ascii_alphabetic() => {
            let mult: u64 = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                _ => return Err(err("unknown size suffix (use K, M, G or T)")),
            };
            (&s[..s.len() - 1], mult)
        }
        _ => (s, 1),
    };
    let n: u64 = num.trim().parse().map_err(|_| err("not a number"))?;
    n.checked_mul(mult).ok_or_else(|| err("too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("x", "16M").ok(), Some(16 << 20));
        assert_eq!(parse_size("x", "2g").ok(), Some(2 << 30));
        assert_eq!(parse_size("x", "1024").ok(), Some(1024));
        assert!(parse_size("x", "12Q").is_err());
        assert!(parse_size("x", "lots").is_err());
    }

    #[test]
    fn defaults_file_sections_and_precedence() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("my.cnf");
        std::fs::write(
            &path,
            "[client]\nport=1\n[mysqld]\nport = 3307\ninnodb-buffer-pool-size=64M\nskip-log-bin\n[basaltd]\nport=3308\n",
        )
        .expect("write");
        let cfg = Config::resolve(Args {
            defaults_file: Some(path.clone()),
            ..Default::default()
        })
        .expect("resolve");
        assert_eq!(cfg.port, 3308);
        assert_eq!(cfg.buffer_pool_size, 64 << 20);
        let cfg = Config::resolve(Args {
            defaults_file: Some(path),
            port: Some(4000),
            ..Default::default()
        })
        .expect("resolve");
        assert_eq!(cfg.port, 4000);
    }

    #[test]
    fn rollback_on_timeout_from_the_defaults_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("my.cnf");
        std::fs::write(&path, "[mysqld]\ninnodb-rollback-on-timeout=ON\n").expect("write");
        let cfg = Config::resolve(Args {
            defaults_file: Some(path),
            ..Default::default()
        })
        .expect("resolve");
        assert!(cfg.rollback_on_timeout);
        let cfg = Config::resolve(Args::default()).expect("resolve");
        assert!(!cfg.rollback_on_timeout);
    }

    #[test]
    fn semisync_from_flags_and_the_defaults_file() {
        use basalt_replication::semisync::{Settings, WaitPoint};
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("my.cnf");
        std::fs::write(
            &path,
            "[mysqld]\nrpl_semi_sync_master_enabled\nrpl-semi-sync-master-timeout=500\n\
             rpl_semi_sync_master_wait_point=after_commit\n\
             rpl_semi_sync_master_wait_no_slave=OFF\n",
        )
        .expect("write");
        let cfg = Config::resolve(Args {
            defaults_file: Some(path.clone()),
            ..Default::default()
        })
        .expect("resolve");
        let want = Settings {
            enabled: true,
            timeout_ms: 500,
            wait_point: WaitPoint::AfterCommit,
            wait_no_slave: false,
        };
        assert_eq!(cfg.semisync, want);
        // Flags win over the file.
        let cfg = Config::resolve(Args {
            defaults_file: Some(path),
            rpl_semi_sync_master_enabled: Some("OFF".into()),
            rpl_semi_sync_master_timeout: Some(20),
            ..Default::default()
        })
        .expect("resolve");
        assert_eq!((cfg.semisync.enabled, cfg.semisync.timeout_ms), (false, 20));
        let cfg = Config::resolve(Args::default()).expect("resolve");
        assert_eq!(cfg.semisync, Settings::default());
        let bad = Config::resolve(Args {
            rpl_semi_sync_master_wait_point: Some("LATER".into()),
            ..Default::default()
        });
        assert!(matches!(bad, Err(ConfigError::Value { .. })));
    }

    #[test]
    fn discard_damaged_log_tail_from_the_flag_or_the_defaults_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("my.cnf");
        std::fs::write(&path, "[mysqld]\ndiscard-damaged-log-tail\n").expect("write");
        let cfg = Config::resolve(Args {
            defaults_file: Some(path),
            ..Default::default()
        })
        .expect("resolve");
        assert!(cfg.discard_damaged_log_tail);
        let args = Args::try_parse_from(["basaltd", "--discard-damaged-log-tail"]).expect("parse");
        assert!(
            Config::resolve(args)
                .expect("resolve")
                .discard_damaged_log_tail
        );
        let cfg = Config::resolve(Args::default()).expect("resolve");
        assert!(!cfg.discard_damaged_log_tail);
    }

    #[test]
    fn server_character_set_and_ignored_options_from_the_defaults_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("my.cnf");
        std::fs::write(
            &path,
            "[mysqld]\ncharacter-set-server=latin1\nquery_cache_size=0\nsocket=/x.sock\n",
        )
        .expect("write");
        let cfg = Config::resolve(Args {
            defaults_file: Some(path.clone()),
            ..Default::default()
        })
        .expect("resolve");
        assert_eq!(cfg.collation_server.name(), "latin1_swedish_ci");
        assert_eq!(cfg.ignored_options, vec!["query_cache_size"]);
        assert_eq!(cfg.socket, PathBuf::from("/x.sock"));
        assert!(cfg.socket_required && !cfg.skip_networking);
        std::fs::write(
            &path,
            "[mysqld]\ncharacter-set-server=latin1\ncollation-server=utf8mb4_bin\n",
        )
        .expect("write");
        let e = Config::resolve(Args {
            defaults_file: Some(path.clone()),
            ..Default::default()
        });
        assert!(e.is_err(), "a collation of another character set");
        std::fs::write(&path, "[mysqld]\ncollation-server=nosuch\n").expect("write");
        assert!(Config::resolve(Args {
            defaults_file: Some(path),
            ..Default::default()
        })
        .is_err());
    }

    #[test]
    fn socket_defaults_to_debians_and_is_best_effort_only_then() {
        let cfg = Config::resolve(Args::default()).expect("resolve");
        assert_eq!(cfg.socket, PathBuf::from(DEFAULT_SOCKET));
        assert!(!cfg.socket_required && !cfg.skip_networking);
        let cfg = Config::resolve(Args {
            socket: Some("/tmp/s.sock".into()),
            skip_networking: true,
            ..Default::default()
        })
        .expect("resolve");
        assert!(cfg.socket_required && cfg.skip_networking);
    }

    #[test]
    fn metrics_port_from_flags_and_the_defaults_file() {
        let cfg = Config::resolve(Args::default()).expect("resolve");
        assert_eq!(cfg.metrics_port, None);
        assert_eq!(cfg.metrics_bind_address, "127.0.0.1");
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("my.cnf");
        std::fs::write(
            &path,
            "[basaltd]\nmetrics-port=9104\nmetrics_bind_address=::1\n",
        )
        .expect("write");
        let file = |port: Option<u16>| Args {
            defaults_file: Some(path.clone()),
            metrics_port: port,
            ..Default::default()
        };
        let cfg = Config::resolve(file(None)).expect("resolve");
        assert_eq!(cfg.metrics_port, Some(9104));
        assert_eq!(cfg.metrics_bind_address, "::1");
        assert_eq!(
            Config::resolve(file(Some(0)))
                .expect("resolve")
                .metrics_port,
            Some(0)
        );
        std::fs::write(&path, "[mysqld]\nmetrics_port=70000\n").expect("write");
        assert!(Config::resolve(file(None)).is_err());
    }

    #[test]
    fn unknown_option_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("my.cnf");
        std::fs::write(&path, "[mysqld]\nfrobnicate=1\n").expect("write");
        assert!(read_defaults_file(&path).is_err());
    }
}
