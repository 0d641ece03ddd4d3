//! What the SQL layer asks of the server: the process list, KILL, server counters.

use crate::Server;
use basalt_common::{MySqlError, Value};
use basalt_sql::{ProcessInfo, ServerHooks};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

/// The process list state of a statement waiting for a row lock.
pub const LOCK_WAIT_STATE: &str = "Waiting for row lock";

pub struct Hooks {
    server: Weak<Server>,
}

impl Hooks {
    pub fn new(server: &Arc<Server>) -> Self {
        Hooks {
            server: Arc::downgrade(server),
        }
    }
}

impl ServerHooks for Hooks {
    fn processlist(&self) -> Vec<ProcessInfo> {
        let Some(server) = self.server.upgrade() else {
            return Vec::new();
        };
        server
            .registry
            .all()
            .iter()
            .map(|c| {
                let waiting = server.storage.lock_wait_of(&c.interrupt_flag()).is_some();
                let info = c.info.lock();
                let state = if waiting {
                    LOCK_WAIT_STATE.to_string()
                } else {
                    info.state.to_string()
                };
                // What MariaDB's process list shows before the login completes.
                let user = if c.is_authenticated() {
                    info.user.clone()
                } else {
                    "unauthenticated user".to_string()
                };
                ProcessInfo {
                    id: c.id,
                    user,
                    host: c.host.clone(),
                    db: info.db.clone(),
                    command: info.command.to_string(),
                    time: info.since.elapsed().as_secs(),
                    state,
                    info: info.query.clone(),
                }
            })
            .collect()
    }

    fn reopen_error_log(&self) -> Result<(), MySqlError> {
        crate::error_log::reopen().map_err(|e| {
            MySqlError::new(1105, "HY000", format!("Cannot reopen the error log: {e}"))
        })?;
        tracing::info!("error log reopened");
        Ok(())
    }

    fn kill(&self, id: u64, query_only: bool) -> Result<(), MySqlError> {
        let server = self
            .server
            .upgrade()
            .ok_or_else(|| MySqlError::unknown_thread(id))?;
        let conn = server
            .registry
            .get(id)
            .ok_or_else(|| MySqlError::unknown_thread(id))?;
        if query_only {
            conn.interrupt_query();
        } else {
            conn.kill_now();
        }
        Ok(())
    }

    fn global_status(&self) -> Vec<(String, Value)> {
        let Some(s) = self.server.upgrade() else {
            return Vec::new();
        };
        let st = &s.stats;
        let n = |v: &std::sync::atomic::AtomicU64| Value::UInt(v.load(Ordering::Relaxed));
        let (pool_threads, pool_idle) = s.threads.pool_counts();
        let (created, cached) = s.threads.thread_counts();
        let conns = s.registry.all();
        // A connection runs while it carries out a command (the one asking too).
        let running = conns
            .iter()
            .filter(|c| c.info.lock().command != "Sleep")
            .count();
        let mut out = vec![
            ("Aborted_clients".to_string(), n(&st.aborted_clients)),
            ("Aborted_connects".to_string(), n(&st.aborted_connects)),
            (
                "Basalt_parked_connections".to_string(),
                Value::UInt(s.parker.parked() as u64),
            ),
            ("Connections".to_string(), n(&st.connections)),
            (
                "Max_used_connections".to_string(),
                n(&st.max_used_connections),
            ),
            (
                "Threadpool_idle_threads".to_string(),
                Value::UInt(pool_idle as u64),
            ),
            (
                "Threadpool_threads".to_string(),
                Value::UInt(pool_threads as u64),
            ),
            ("Threads_cached".to_string(), Value::UInt(cached)),
            (
                "Threads_connected".to_string(),
                Value::UInt(conns.len() as u64),
            ),
            ("Threads_created".to_string(), Value::UInt(created)),
            (
                "Threads_running".to_string(),
                Value::UInt(running.max(1) as u64),
            ),
            ("Connection_errors_accept".to_string(), n(&st.errors_accept)),
            (
                "Connection_errors_internal".to_string(),
                n(&st.errors_internal),
            ),
            (
                "Connection_errors_max_connections".to_string(),
                n(&st.errors_max_connections),
            ),
            // Basalt looks up no peer addresses, waits in no select() and has no
            // TCP wrappers: these never happen.
            ("Connection_errors_peer_address".to_string(), Value::UInt(0)),
            ("Connection_errors_select".to_string(), Value::UInt(0)),
            ("Connection_errors_tcpwrap".to_string(), Value::UInt(0)),
            (
                "Uptime".to_string(),
                Value::UInt(s.started.elapsed().as_secs()),
            ),
            (
                "Executed_events".to_string(),
                Value::UInt(s.engine.executed_events()),
            ),
        ];
        out.extend(
            s.storage
                .status()
                .into_iter()
                .map(|(k, v)| (k.to_string(), Value::UInt(v))),
        );
        if let Some(t) = &s.tls {
            out.extend(t.status());
        }
        if let Some(b) = s.engine.binlog() {
            out.extend(
                b.semisync()
                    .status()
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v)),
            );
        }
        out
    }

    fn login_denials(&self) -> u64 {
        self.server
            .upgrade()
            .map_or(0, |s| s.stats.access_denied.load(Ordering::Relaxed))
    }

    fn new_thread_id(&self) -> u64 {
        self.server.upgrade().map_or(0, |s| s.registry.next_id())
    }

    fn replicas(&self) -> Vec<basalt_replication::dump::ReplicaInfo> {
        self.server
            .upgrade()
            .map_or_else(Vec::new, |s| s.replicas.replicas())
    }

    fn flush_status(&self) {
        if let Some(s) = self.server.upgrade() {
            let st = &s.stats;
            st.aborted_clients.store(0, Ordering::Relaxed);
            st.aborted_connects.store(0, Ordering::Relaxed);
            st.access_denied.store(0, Ordering::Relaxed);
            for c in [
                &st.errors_accept,
                &st.errors_internal,
                &st.errors_max_connections,
            ] {
                c.store(0, Ordering::Relaxed);
            }
            st.max_used_connections
                .store(s.registry.count() as u64, Ordering::Relaxed);
        }
    }

    fn reload_tls(&self) -> Result<(), MySqlError> {
        let Some(server) = self.server.upgrade() else {
            return Ok(());
        };
        let Some(tls) = &server.tls else {
            return Ok(());
        };
        tls.reload().map_err(|e| {
            tracing::error!("FLUSH SSL: {e}; the previous certificates stay in use");
            MySqlError::new(1105, "HY000", "Unknown error")
        })
    }

    fn shutdown(&self, by: u64) -> Result<(), MySqlError> {
        if let Some(server) = self.server.upgrade() {
            server.request_stop(&format!("SHUTDOWN requested by connection {by}"));
        }
        Ok(())
    }
}
