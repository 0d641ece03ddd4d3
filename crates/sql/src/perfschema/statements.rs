//! Statement tables: digests, their latency histograms, the statement events
//! of each session, and statement counts by event name.

use super::rows::{timer, timestamp, RowBuilder};
use super::{event_name, pico};
use crate::session::ctx::SessionCtx;
use crate::stats::digests::{bucket_upper_ns, DigestStats, Facts, StatementEvent, BUCKETS};
use basalt_common::{Row, TableDef, Value};
use std::time::Instant;

pub(super) fn build(name: &str, def: &TableDef, cx: &SessionCtx) -> Option<Vec<Row>> {
    Some(match name {
        "events_statements_summary_by_digest" => by_digest(def, cx),
        "events_statements_histogram_by_digest" => histograms(def, cx),
        "events_statements_history" => history(def, cx, false),
        "events_statements_current" => history(def, cx, true),
        "events_statements_summary_global_by_event_name" => by_event_name(def, cx),
        "events_statements_summary_by_thread_by_event_name"
        | "events_statements_summary_by_user_by_event_name"
        | "events_statements_summary_by_host_by_event_name"
        | "events_statements_summary_by_account_by_event_name" => by_owner(name, def, cx),
        _ => return None,
    })
}

fn digests(
    cx: &SessionCtx,
) -> Vec<(
    Option<std::sync::Arc<crate::stats::digests::DigestKey>>,
    DigestStats,
)> {
    let hub = &cx.engine.stats.digests;
    hub.snapshot()
        .into_iter()
        .map(|(id, s)| {
            (
                Some(id)
                    .filter(|i| *i != 0)
                    .and_then(|i| hub.registry.key(i)),
                s,
            )
        })
        .collect()
}

fn by_digest(def: &TableDef, cx: &SessionCtx) -> Vec<Row> {
    digests(cx)
        .into_iter()
        .map(|(key, s)| {
            let mut b = RowBuilder::new(def);
            if let Some(k) = &key {
                b.opt("SCHEMA_NAME", k.schema.as_deref())
                    .s("DIGEST", std::str::from_utf8(&k.hash).unwrap_or_default())
                    .s("DIGEST_TEXT", &k.text);
            }
            b.n("COUNT_STAR", s.count)
                .n("SUM_TIMER_WAIT", pico(s.sums.elapsed_ns))
                .n("MIN_TIMER_WAIT", pico(s.min_ns))
                .n("AVG_TIMER_WAIT", pico(s.sums.elapsed_ns / s.count.max(1)))
                .n("MAX_TIMER_WAIT", pico(s.max_ns));
            sums(&mut b, &s.sums);
            b.v("FIRST_SEEN", timestamp(cx, s.first_seen))
                .v("LAST_SEEN", timestamp(cx, s.last_seen));
            b.done()
        })
        .collect()
}

/// The SUM_* columns both the digest and the event tables have.
fn sums(b: &mut RowBuilder<'_>, f: &Facts) {
    for (col, v) in fact_columns(f) {
        b.n(&format!("SUM_{col}"), v);
    }
}

fn fact_columns(f: &Facts) -> [(&'static str, u64); 19] {
    [
        ("LOCK_TIME", pico(f.lock_ns)),
        ("ERRORS", f.errors),
        ("WARNINGS", f.warnings),
        ("ROWS_AFFECTED", f.rows_affected),
        ("ROWS_SENT", f.rows_sent),
        ("ROWS_EXAMINED", f.rows_examined),
        ("CREATED_TMP_DISK_TABLES", f.tmp_disk_tables),
        ("CREATED_TMP_TABLES", f.tmp_tables),
        ("SELECT_FULL_JOIN", f.select_full_join),
        ("SELECT_FULL_RANGE_JOIN", f.select_full_range_join),
        ("SELECT_RANGE", f.select_range),
        ("SELECT_RANGE_CHECK", f.select_range_check),
        ("SELECT_SCAN", f.select_scan),
        ("SORT_MERGE_PASSES", f.sort_merge_passes),
        ("SORT_RANGE", f.sort_range),
        ("SORT_ROWS", f.sort_rows),
        ("SORT_SCAN", f.sort_scan),
        ("NO_INDEX_USED", f.no_index_used),
        ("NO_GOOD_INDEX_USED", f.no_good_index_used),
    ]
}

/// MySQL 8's histogram table: one row per bucket of each digest, with the
/// cumulative count and the quantile it reaches.
fn histograms(def: &TableDef, cx: &SessionCtx) -> Vec<Row> {
    let mut out = Vec::new();
    for (key, s) in digests(cx) {
        let mut below = 0;
        for (i, &n) in s.buckets.iter().enumerate().take(BUCKETS) {
            below += n;
            let low = if i == 0 {
                0
            } else {
                bucket_upper_ns(i - 1).unwrap_or(0)
            };
            let high = bucket_upper_ns(i).unwrap_or(s.max_ns.max(low));
            let mut b = RowBuilder::new(def);
            if let Some(k) = &key {
                b.opt("SCHEMA_NAME", k.schema.as_deref())
                    .s("DIGEST", std::str::from_utf8(&k.hash).unwrap_or_default());
            }
            b.n("BUCKET_NUMBER", i as u64)
                .n("BUCKET_TIMER_LOW", pico(low))
                .n("BUCKET_TIMER_HIGH", pico(high))
                .n("COUNT_BUCKET", n)
                .n("COUNT_BUCKET_AND_LOWER", below)
                .f("BUCKET_QUANTILE", below as f64 / s.count.max(1) as f64);
            out.push(b.done());
        }
    }
    out
}

/// `events_statements_history` (every kept event) or `_current` (each
/// session's running statement, else its last one).
fn history(def: &TableDef, cx: &SessionCtx, current: bool) -> Vec<Row> {
    let hub = &cx.engine.stats.digests;
    if current && !hub.collects(crate::stats::digests::CONSUMER_CURRENT) {
        return Vec::new();
    }
    let running = crate::show::processes_by_id(cx);
    let mut out = Vec::new();
    for s in cx.engine.stats.digests.sessions() {
        if !cx
            .privs
            .sees_thread(&cx.user, running.get(&s.thread).map_or("", |p| &p.user))
        {
            continue;
        }
        let events = s.history();
        if current {
            let busy = running
                .get(&s.thread)
                .filter(|p| p.command == "Query" && p.info.is_some() && s.thread != cx.conn_id);
            match (busy, events.last()) {
                (Some(p), last) => out.push(running_row(def, cx, s.thread, p, last)),
                (None, Some(e)) => out.push(event_row(def, cx, s.thread, e)),
                (None, None) => {}
            }
            continue;
        }
        out.extend(events.iter().map(|e| event_row(def, cx, s.thread, e)));
    }
    out
}

fn event_row(def: &TableDef, cx: &SessionCtx, thread: u64, e: &StatementEvent) -> Row {
    let hub = &cx.engine.stats.digests;
    let key = (e.digest != 0)
        .then(|| hub.registry.key(e.digest))
        .flatten();
    let mut b = RowBuilder::new(def);
    let start = timer(cx, e.ended).saturating_sub(pico(e.facts.elapsed_ns));
    b.n("THREAD_ID", thread)
        .n("EVENT_ID", e.event_id)
        .n("END_EVENT_ID", e.event_id)
        .s("EVENT_NAME", e.event_name)
        .n("TIMER_START", start)
        .n("TIMER_END", start + pico(e.facts.elapsed_ns))
        .n("TIMER_WAIT", pico(e.facts.elapsed_ns))
        .s("SQL_TEXT", &e.text)
        .opt("CURRENT_SCHEMA", e.schema.as_deref())
        .n("NESTING_EVENT_LEVEL", 0);
    if let Some(k) = &key {
        b.s("DIGEST", std::str::from_utf8(&k.hash).unwrap_or_default())
            .s("DIGEST_TEXT", &k.text);
    }
    for (col, v) in fact_columns(&e.facts) {
        b.n(col, v);
    }
    match &e.error {
        Some((code, state, message)) => {
            b.n("MYSQL_ERRNO", u64::from(*code))
                .s("RETURNED_SQLSTATE", state)
                .s("MESSAGE_TEXT", message);
        }
        None => {
            b.n("MYSQL_ERRNO", 0);
        }
    }
    b.done()
}

/// A statement still running, from the process list.
fn running_row(
    def: &TableDef,
    cx: &SessionCtx,
    thread: u64,
    p: &crate::engine::ProcessInfo,
    last: Option<&StatementEvent>,
) -> Row {
    let now = Instant::now();
    let started = now
        .checked_sub(std::time::Duration::from_secs(p.time))
        .unwrap_or(now);
    let mut b = RowBuilder::new(def);
    b.n("THREAD_ID", thread)
        .n("EVENT_ID", last.map_or(0, |e| e.event_id) + 1)
        .s("EVENT_NAME", "statement/com/Query")
        .n("TIMER_START", timer(cx, started))
        .n("TIMER_WAIT", timer(cx, now) - timer(cx, started))
        .opt("SQL_TEXT", p.info.as_deref())
        .opt("CURRENT_SCHEMA", p.db.as_deref())
        .n("NESTING_EVENT_LEVEL", 0);
    b.v("END_EVENT_ID", Value::Null);
    b.done()
}

/// Statement counts by event name from the status counters (their
/// timers are not collected per event name: 0).
fn by_event_name(def: &TableDef, cx: &SessionCtx) -> Vec<Row> {
    let totals = cx.engine.stats.totals();
    com_rows(def, &totals, |_| {})
}

fn com_rows(
    def: &TableDef,
    counts: &[u64],
    mut extra: impl FnMut(&mut RowBuilder<'_>),
) -> Vec<Row> {
    crate::stats::ALL
        .iter()
        .filter(|s| s.name().starts_with("Com_"))
        .map(|s| {
            let mut b = RowBuilder::new(def);
            extra(&mut b);
            b.s("EVENT_NAME", event_name(*s))
                .n("COUNT_STAR", counts.get(*s as usize).copied().unwrap_or(0));
            b.done()
        })
        .collect()
}

/// The same by thread, user, host or account, over the connected sessions.
fn by_owner(name: &str, def: &TableDef, cx: &SessionCtx) -> Vec<Row> {
    let mut groups: std::collections::BTreeMap<(u64, String, String), Vec<u64>> =
        Default::default();
    for (thread, user, host, counts) in cx.engine.stats.session_counts() {
        let key = match name {
            "events_statements_summary_by_thread_by_event_name" => {
                (thread, String::new(), String::new())
            }
            "events_statements_summary_by_user_by_event_name" => (0, user, String::new()),
            "events_statements_summary_by_host_by_event_name" => (0, String::new(), host),
            _ => (0, user, host),
        };
        let g = groups.entry(key).or_insert_with(|| vec![0; counts.len()]);
        for (a, b) in g.iter_mut().zip(counts) {
            *a += b;
        }
    }
    let mut out = Vec::new();
    for ((thread, user, host), counts) in groups {
        out.extend(com_rows(def, &counts, |b| {
            b.n("THREAD_ID", thread);
            if !user.is_empty() {
                b.s("USER", &user);
            }
            if !host.is_empty() {
                b.s("HOST", &host);
            }
        }));
    }
    out
}
