//! A finished statement's entry in performance_schema: its digest's figures
//! and the session's statement history (see [`crate::stats::digests`]).

use super::respond::Out;
use super::slow::{Snapshot, Text};
use super::Session;
use crate::stats::digests::{Facts, MAX_SQL_TEXT};
use crate::stats::Stat;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Exact texts of statements without a cached plan, with their digest id (a
/// session's BEGIN, COMMIT, SET and SHOW repeat without being lexed again);
/// 28 fill a hash table of 32 buckets.
const TEXT_DIGESTS: usize = 28;

/// Texts longer than this are not kept in the session's cache.
const TEXT_DIGEST_LEN: usize = 256;

#[derive(Default)]
pub(crate) struct TextDigests {
    /// The schema the ids were made in.
    schema: Option<String>,
    map: HashMap<String, u32, foldhash::fast::RandomState>,
}

impl Session {
    /// The running statement's digest is `id` (known from its plan).
    #[inline]
    pub(super) fn note_digest(&mut self, id: u32) {
        self.digest = Some(id);
    }

    /// Registers the digest of a statement about to get a plan-cache entry
    /// (and notes it as the running statement's).
    pub(super) fn register_digest(&mut self, text: &str) -> u32 {
        let id = self
            .cx
            .engine
            .stats
            .digests
            .registry
            .id_of(self.cx.db.as_deref(), text);
        self.digest = Some(id);
        id
    }

    /// The digest of `text` in the current schema, from the session's cache of
    /// texts or computed.
    fn digest_of_text(&mut self, text: &str, schema: Option<&str>) -> u32 {
        if self.text_digests.schema.as_deref() != schema {
            self.text_digests.map.clear();
            self.text_digests.schema = schema.map(str::to_string);
        }
        if let Some(id) = self.text_digests.map.get(text) {
            return *id;
        }
        let id = self.cx.engine.stats.digests.registry.id_of(schema, text);
        // A long text is digested each time (its statement's own work dwarfs
        // that), so the session's memory for texts stays bounded.
        if text.len() > TEXT_DIGEST_LEN {
            return id;
        }
        if self.text_digests.map.len() >= TEXT_DIGESTS {
            self.text_digests.map.clear();
        }
        self.text_digests.map.insert(text.to_string(), id);
        id
    }

    /// Records a client statement that ran for `elapsed` and ended at `ended`.
    pub(super) fn record_statement(
        &mut self,
        text: &Text<'_>,
        snap: &Snapshot,
        db_before: Option<Option<String>>,
        elapsed: Duration,
        ended: Instant,
        out: &Out<'_>,
    ) {
        if !self.cx.engine.stats.digests.on() {
            return;
        }
        // A USE counts in the schema it started in.
        let id = match (self.digest.take(), text) {
            (Some(id), _) => id,
            (None, Text::Plain(t)) => {
                let db = db_before.clone().unwrap_or_else(|| self.cx.db.clone());
                self.digest_of_text(t, db.as_deref())
            }
            (None, Text::Prepared(p, _)) => self.prepared_digest(*p).map_or(0, |(_, d)| d),
        };
        let facts = self.facts(snap, elapsed, out);
        let error = self.last_error.take();
        let sql = match text {
            Text::Plain(t) => t,
            Text::Prepared(p, _) => self.prepared_digest(*p).map_or("", |(t, _)| t),
        };
        let name = self.running_com.map_or("statement/com/Query", event_name);
        let db = match &db_before {
            Some(before) => before.as_deref(),
            None => self.cx.db.as_deref(),
        };
        let hub = &self.cx.engine.stats.digests;
        self.cx.stats.digests.record(hub, id, &facts, ended, |e| {
            e.event_name = name;
            e.text.clear();
            e.text.push_str(cut(sql, MAX_SQL_TEXT));
            match db {
                Some(db) => {
                    let s = e.schema.get_or_insert_with(String::new);
                    s.clear();
                    s.push_str(db);
                }
                None => e.schema = None,
            }
            e.error = error;
        });
    }

    fn facts(&self, snap: &Snapshot, elapsed: Duration, out: &Out<'_>) -> Facts {
        let c = &self.cx.stats.counters;
        let d = |s: Stat, was: u64| c.get(s).saturating_sub(was);
        let no_index = self.extra_status & crate::status::NO_INDEX_USED != 0;
        let no_good = self.extra_status & crate::status::NO_GOOD_INDEX_USED != 0;
        Facts {
            elapsed_ns: elapsed.as_nanos() as u64,
            lock_ns: basalt_common::wait::lock_wait_time()
                .saturating_sub(snap.lock_waited)
                .as_nanos() as u64,
            errors: u64::from(self.last_error.is_some()),
            // The statement's error is one of its diagnostics, not a warning.
            warnings: u64::from(self.warning_count())
                .saturating_sub(u64::from(self.last_error.is_some())),
            rows_affected: self.last_affected,
            rows_sent: out.sent(),
            rows_examined: d(Stat::RowsRead, snap.rows_read),
            tmp_tables: d(Stat::CreatedTmpTables, snap.tmp_tables),
            tmp_disk_tables: d(Stat::CreatedTmpDiskTables, snap.tmp_disk_tables),
            select_full_join: d(Stat::SelectFullJoin, snap.full_joins),
            select_range: d(Stat::SelectRange, snap.ranges),
            select_scan: d(Stat::SelectScan, snap.scans),
            sort_merge_passes: d(Stat::SortMergePasses, snap.merge_passes),
            sort_range: d(Stat::SortRange, snap.sort_ranges),
            sort_rows: d(Stat::SortRows, snap.sort_rows),
            sort_scan: d(Stat::SortScan, snap.sort_scans),
            no_index_used: u64::from(no_index),
            no_good_index_used: u64::from(no_good),
            ..Facts::default()
        }
    }
}

/// `statement/sql/select` for `Com_select`, `statement/com/...` for commands.
fn event_name(s: Stat) -> &'static str {
    crate::perfschema::event_name(s)
}

/// At most `max` bytes of `s`, cut at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
