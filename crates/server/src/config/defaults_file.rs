//! The defaults file (`--defaults-file`, my.cnf style): its `[mysqld]`,
//! `[server]`, `[mariadb]` and `[basaltd]` sections, the option names basaltd
//! knows and those it accepts and ignores.

use super::ConfigError;
use std::collections::HashMap;
use std::path::Path;

const KNOWN: &[&str] = &[
    "port",
    "bind_address",
    "datadir",
    "buffer_pool_size",
    "innodb_buffer_pool_size",
    "flush_log_at_trx_commit",
    "innodb_flush_log_at_trx_commit",
    "max_connections",
    "open_files_limit",
    "max_allowed_packet",
    "log_level",
    "log_error",
    "innodb_rollback_on_timeout",
    "max_session_mem_used",
    "tmpdir",
    "secure_file_priv",
    "discard_damaged_log_tail",
    "character_set_server",
    "collation_server",
    "default_time_zone",
    "log_bin",
    "skip_log_bin",
    "server_id",
    "max_binlog_size",
    "binlog_checksum",
    "binlog_expire_logs_seconds",
    "expire_logs_days",
    "rpl_semi_sync_master_enabled",
    "rpl_semi_sync_master_timeout",
    "rpl_semi_sync_master_wait_point",
    "rpl_semi_sync_master_wait_no_slave",
    "binlog_do_db",
    "binlog_ignore_db",
    "socket",
    "skip_networking",
    "skip_slave_start",
    "event_scheduler",
    "replicate_do_db",
    "replicate_ignore_db",
    "replicate_do_table",
    "replicate_ignore_table",
    "replicate_wild_do_table",
    "replicate_wild_ignore_table",
    "replicate_rewrite_db",
    "slave_skip_errors",
    "log_slave_updates",
    "log_replica_updates",
    "ssl",
    "skip_ssl",
    "ssl_cert",
    "ssl_key",
    "ssl_ca",
    "ssl_cipher",
    "tls_version",
    "metrics_port",
    "metrics_bind_address",
    "performance_schema",
];

/// Options MySQL configuration files commonly carry that Basalt accepts and ignores.
const IGNORED: &[&str] = &[
    "user",
    "pid_file",
    "skip_name_resolve",
    "innodb_doublewrite",
    "innodb_flush_method",
    "query_cache_size",
    "query_cache_type",
    "basedir",
    "lc_messages_dir",
    "lc_messages",
    "key_buffer_size",
    "innodb_log_file_size",
];

/// Reads `[mysqld]` then `[basaltd]` sections (later wins); names normalised to
/// underscores, `innodb_` aliases folded onto Basalt's names.
pub fn read_defaults_file(path: &Path) -> Result<HashMap<String, String>, ConfigError> {
    read_defaults(path).map(|(options, _)| options)
}

/// [`read_defaults_file`], with the names of the accepted options basaltd does
/// not use (as written, for the start-up warnings).
pub(super) fn read_defaults(
    path: &Path,
) -> Result<(HashMap<String, String>, Vec<String>), ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut ignored = Vec::new();
    let mut mysqld = HashMap::new();
    let mut basaltd = HashMap::new();
    let mut section = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[') {
            let name = name.strip_suffix(']').ok_or_else(|| ConfigError::Syntax {
                path: path.to_path_buf(),
                line: i + 1,
                msg: "unterminated section header".into(),
            })?;
            section = name.trim().to_ascii_lowercase();
            continue;
        }
        let target = match section.as_str() {
            "mysqld" | "server" | "mariadb" => &mut mysqld,
            "basaltd" => &mut basaltd,
            _ => continue,
        };
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim().trim_matches(['"', '\''])),
            None => (line, "1"),
        };
        let key = key.replace('-', "_").to_ascii_lowercase();
        if IGNORED.contains(&key.as_str()) {
            ignored.push(key);
            continue;
        }
        if !KNOWN.contains(&key.as_str())
            && !crate::pool_opts::KNOWN.contains(&key.as_str())
            && !crate::log_opts::KNOWN.contains(&key.as_str())
        {
            return Err(ConfigError::Unknown(key));
        }
        let key = key.strip_prefix("innodb_").unwrap_or(&key).to_string();
        target.insert(key, value.to_string());
    }
    mysqld.extend(basaltd);
    Ok((mysqld, ignored))
}
