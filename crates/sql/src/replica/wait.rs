//! MASTER_GTID_WAIT: a session waits until `@@gtid_slave_pos` has reached a GTID
//! position in each of its domains (the same or a higher sequence number; a
//! domain the replica has not applied yet is waited for), as MariaDB 10.11 does.
//! The SQL thread signals every applied transaction; SET GLOBAL gtid_slave_pos too.

use super::control::Replica;
use basalt_replication::gtid::GtidList;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long one wait sleeps before it looks at its KILL flag again.
const SLICE: Duration = Duration::from_millis(100);

/// How a MASTER_GTID_WAIT ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GtidWait {
    Reached,
    TimedOut,
    /// KILL QUERY or `max_statement_time`.
    Interrupted,
}

impl Replica {
    /// Waits until the applied position covers `target` (`timeout` None: no end).
    pub fn wait_for_gtids(
        &self,
        target: &GtidList,
        timeout: Option<Duration>,
        interrupt: Option<&AtomicBool>,
    ) -> GtidWait {
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let shared = &self.shared;
        let mut pos = shared.slave_pos.lock();
        loop {
            let applied = pos.list();
            let reached = target.positions().iter().all(|g| {
                applied.state().iter().any(|a| a.domain == g.domain)
                    && applied.last_seq(g.domain) >= g.seq
            });
            if reached {
                return GtidWait::Reached;
            }
            if interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
                return GtidWait::Interrupted;
            }
            let slice = match deadline {
                Some(d) if d <= Instant::now() => return GtidWait::TimedOut,
                Some(d) => d.saturating_duration_since(Instant::now()).min(SLICE),
                None => SLICE,
            };
            basalt_common::wait::waiting(|| shared.pos_changed.wait_for(&mut pos, slice));
        }
    }
}
