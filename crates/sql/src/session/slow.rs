//! A statement's duration and what it read, for `Slow_queries` and the slow
//! query log (see [`crate::slow_log`]).

use super::respond::Out;
use super::Session;
use crate::slow_log::{Entry, PlanNotes};
use crate::stats::Stat;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The text a slow-log entry shows: the statement's, or a prepared
/// statement's with its parameters' values in place (made only when logged).
pub(super) enum Text<'a> {
    Plain(&'a str),
    Prepared(u32, &'a [basalt_common::Value]),
}

/// When a statement started, and the counters it started with when its entry
/// may be written.
pub(super) struct StmtClock {
    pub(super) start: Instant,
    snap: Option<Snapshot>,
}

/// The counters a statement started with.
pub(super) struct Snapshot {
    /// This thread's lock-wait time (see [`basalt_common::wait::lock_wait_time`]).
    pub(super) lock_waited: Duration,
    bytes: u64,
    pub(super) rows_read: u64,
    pub(super) scans: u64,
    pub(super) full_joins: u64,
    pub(super) ranges: u64,
    pub(super) sort_scans: u64,
    pub(super) sort_ranges: u64,
    pub(super) sort_rows: u64,
    pub(super) merge_passes: u64,
    pub(super) tmp_tables: u64,
    pub(super) tmp_disk_tables: u64,
    priority_queues: u64,
    last_insert_id: u64,
}

/// Statements `log_slow_admin_statements=OFF` keeps out of the log.
const ADMIN: &[Stat] = &[
    Stat::ComAlterTable,
    Stat::ComAnalyze,
    Stat::ComCheck,
    Stat::ComCreateIndex,
    Stat::ComDropIndex,
    Stat::ComOptimize,
    Stat::ComRepair,
];

impl Session {
    /// Moves the statement's per-table and per-index counts into the
    /// session's (where readers of TABLE_STATISTICS see them).
    pub(super) fn merge_notes(&mut self) {
        if !self.cx.notes.is_empty() {
            self.cx.stats.objects.merge(&mut self.cx.notes);
        }
    }

    /// Starts timing a client's statement (a statement nested in EXECUTE or
    /// SET STATEMENT is timed as part of it).
    pub(super) fn start_clock(&mut self, out: &Out<'_>) {
        if self.clock.is_some() {
            return;
        }
        let c = &self.cx.stats.counters;
        // Only a statement that may be logged, counted for reading a table
        // whole or recorded in performance_schema needs the counters it
        // started with.
        let wanted = self.cx.engine.slow_log.enabled()
            || self.cx.slow.not_using_indexes
            || self.cx.engine.stats.digests.on();
        let snap = wanted.then(|| Snapshot {
            lock_waited: basalt_common::wait::lock_wait_time(),
            bytes: out.bytes(),
            rows_read: c.get(Stat::RowsRead),
            scans: c.get(Stat::SelectScan),
            full_joins: c.get(Stat::SelectFullJoin),
            ranges: c.get(Stat::SelectRange),
            sort_scans: c.get(Stat::SortScan),
            sort_ranges: c.get(Stat::SortRange),
            sort_rows: c.get(Stat::SortRows),
            merge_passes: c.get(Stat::SortMergePasses),
            tmp_tables: c.get(Stat::CreatedTmpTables),
            tmp_disk_tables: c.get(Stat::CreatedTmpDiskTables),
            priority_queues: c.get(Stat::SortPriorityQueueSorts),
            last_insert_id: self.cx.last_insert_id,
        });
        self.clock = Some(StmtClock {
            start: Instant::now(),
            snap,
        });
    }

    /// After the statement's response: counts it in `Slow_queries` when it took
    /// longer than `long_query_time` (or read a table whole under
    /// `log_queries_not_using_indexes`), and writes its slow-log entry.
    pub(super) fn finish_statement(&mut self, text: Text<'_>, out: &Out<'_>) {
        self.merge_notes();
        let Some(clock) = self.clock.take() else {
            return;
        };
        let ended = Instant::now();
        let elapsed = ended.duration_since(clock.start);
        crate::stats::latency::record(self.running_com, elapsed);
        let db_before = self.db_before.take();
        if let Some(snap) = &clock.snap {
            self.record_statement(&text, snap, db_before, elapsed, ended, out);
        }
        let c = &self.cx.stats.counters;
        c.add_busy(elapsed.as_micros() as u64);
        let settings = self.cx.slow;
        let slow = elapsed > settings.long_query_time;
        let Some(clock) = clock.snap else {
            if slow {
                c.bump(Stat::SlowQueries);
            }
            return;
        };
        let no_index =
            c.get(Stat::SelectScan) > clock.scans || c.get(Stat::SelectFullJoin) > clock.full_joins;
        if !(slow || (settings.not_using_indexes && no_index)) {
            return;
        }
        c.bump(Stat::SlowQueries);
        let log = &self.cx.engine.slow_log;
        if !log.enabled() || self.slow_log_choice == Some(false) {
            return;
        }
        let examined = c.get(Stat::RowsRead) - clock.rows_read;
        if examined < settings.min_examined
            || (!settings.admin && self.running_com.is_some_and(|s| ADMIN.contains(&s)))
        {
            return;
        }
        let plan = settings.query_plan.then(|| PlanNotes {
            full_scan: c.get(Stat::SelectScan) > clock.scans,
            full_join: c.get(Stat::SelectFullJoin) > clock.full_joins,
            filesort: c.get(Stat::SortScan) + c.get(Stat::SortRange)
                > clock.sort_scans + clock.sort_ranges,
            filesort_on_disk: c.get(Stat::SortMergePasses) > clock.merge_passes,
            merge_passes: c.get(Stat::SortMergePasses) - clock.merge_passes,
            priority_queue: c.get(Stat::SortPriorityQueueSorts) > clock.priority_queues,
        });
        let lock_time = basalt_common::wait::lock_wait_time().saturating_sub(clock.lock_waited);
        let started = SystemTime::now()
            .checked_sub(elapsed)
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .unwrap_or(Duration::ZERO);
        let text = match text {
            Text::Plain(t) => t.to_string(),
            Text::Prepared(id, params) => self.expanded_text(id, params).unwrap_or_default(),
        };
        // The first AUTO_INCREMENT value the statement generated, if any.
        let insert_id = match self.cx.last_insert_id {
            id if id != clock.last_insert_id => id as i64,
            _ => 0,
        };
        let written = log.write(&Entry {
            user: &self.cx.user,
            priv_user: self.priv_user(),
            host: &self.cx.host,
            thread_id: self.cx.conn_id,
            db: self.cx.db.as_deref(),
            query_time: elapsed,
            lock_time,
            rows_sent: out.sent(),
            rows_examined: examined,
            rows_affected: self.last_affected,
            bytes_sent: out.bytes().saturating_sub(clock.bytes),
            plan,
            started,
            server_id: self.server_id(),
            last_insert_id: 0,
            insert_id,
            text: &text,
        });
        if !written {
            self.cx.engine.log_stopped("slow_query_log");
        }
    }

    /// The account the session's rights come from (`[priv_user]` in the logs).
    fn priv_user(&self) -> &str {
        match &self.cx.privs.account {
            Some((u, _)) => u.as_str(),
            None => self.cx.user.as_str(),
        }
    }

    /// `user_host` of the log tables, for `user` (the session's user, or
    /// none yet).
    pub(super) fn user_host_of(&self, user: &str) -> String {
        crate::log_tables::user_host(user, self.priv_user(), &self.cx.host)
    }

    pub(super) fn server_id(&self) -> u64 {
        self.cx.var_u64("server_id")
    }
}
