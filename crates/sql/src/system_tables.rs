//! The `mysql` database's log tables, `general_log` and `slow_log`, in MariaDB's
//! column layout. Tools read them by name (`mariadb-dump --all-databases` dumps
//! their structure, monitoring scripts select from them). Basalt writes its logs
//! to files only (`log_output=TABLE` is refused), so the tables stay empty, as
//! MariaDB's do under `log_output=FILE`. They are created at start when the
//! `mysql` database exists and they do not (new data directories, and data
//! directories from before they existed).

use crate::Engine;
use std::sync::Arc;

const GENERAL_LOG: &str = "CREATE TABLE IF NOT EXISTS mysql.general_log (
  event_time timestamp(6) NOT NULL DEFAULT current_timestamp(6) ON UPDATE current_timestamp(6),
  user_host mediumtext NOT NULL,
  thread_id bigint(21) unsigned NOT NULL,
  server_id int(10) unsigned NOT NULL,
  command_type varchar(64) NOT NULL,
  argument mediumtext NOT NULL
) DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_general_ci COMMENT='General log'";

const SLOW_LOG: &str = "CREATE TABLE IF NOT EXISTS mysql.slow_log (
  start_time timestamp(6) NOT NULL DEFAULT current_timestamp(6) ON UPDATE current_timestamp(6),
  user_host mediumtext NOT NULL,
  query_time time(6) NOT NULL,
  lock_time time(6) NOT NULL,
  rows_sent bigint(20) unsigned NOT NULL,
  rows_examined bigint(20) unsigned NOT NULL,
  db varchar(512) NOT NULL,
  last_insert_id int(11) NOT NULL,
  insert_id int(11) NOT NULL,
  server_id int(10) unsigned NOT NULL,
  sql_text mediumtext NOT NULL,
  thread_id bigint(21) unsigned NOT NULL,
  rows_affected bigint(20) unsigned NOT NULL
) DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_general_ci COMMENT='Slow log'";

/// Creates the log tables that are missing; a failure is logged and the server
/// serves on without them.
pub fn ensure(engine: &Arc<Engine>) {
    if !engine.storage.database_exists("mysql") {
        return;
    }
    let missing: Vec<&str> = [("general_log", GENERAL_LOG), ("slow_log", SLOW_LOG)]
        .into_iter()
        .filter(|(name, _)| engine.storage.table("mysql", name).is_none())
        .map(|(_, ddl)| ddl)
        .collect();
    if missing.is_empty() {
        return;
    }
    let mut session = engine.new_session(0, "root", "localhost");
    for ddl in missing {
        for r in session.execute(ddl) {
            if let Err(e) = r {
                tracing::warn!("cannot create the mysql log tables: {}", e.message);
            }
        }
    }
    session.close();
}
