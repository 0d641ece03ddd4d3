//! The setup tables: what is instrumented and collected. They show Basalt's
//! fixed configuration (every statement instrument on and timed, statement
//! digests, current and history events collected; the long history, stages
//! and waits not collected), or everything off under
//! `--performance-schema=OFF`. They are read-only.

use super::rows::{yes, RowBuilder};
use crate::session::ctx::SessionCtx;
use basalt_common::{Row, TableDef};

/// Consumers and whether Basalt collects them while performance_schema is on.
const CONSUMERS: &[(&str, bool)] = &[
    ("events_stages_current", false),
    ("events_stages_history", false),
    ("events_stages_history_long", false),
    ("events_statements_current", true),
    ("events_statements_history", true),
    ("events_statements_history_long", false),
    ("events_transactions_current", true),
    ("events_transactions_history", false),
    ("events_transactions_history_long", false),
    ("events_waits_current", false),
    ("events_waits_history", false),
    ("events_waits_history_long", false),
    ("global_instrumentation", true),
    ("thread_instrumentation", true),
    ("statements_digest", true),
];

pub(super) fn build(name: &str, def: &TableDef, cx: &SessionCtx) -> Option<Vec<Row>> {
    let on = cx.engine.stats.digests.on();
    Some(match name {
        "setup_consumers" => CONSUMERS
            .iter()
            .map(|(n, c)| {
                RowBuilder::new(def)
                    .s("NAME", n)
                    .s("ENABLED", yes(on && *c))
                    .done()
            })
            .collect(),
        "setup_instruments" => instruments(def, on),
        "setup_timers" => [
            ("idle", "MICROSECOND"),
            ("wait", "CYCLE"),
            ("stage", "NANOSECOND"),
            ("statement", "NANOSECOND"),
            ("transaction", "NANOSECOND"),
        ]
        .iter()
        .map(|(n, t)| RowBuilder::new(def).s("NAME", n).s("TIMER_NAME", t).done())
        .collect(),
        "performance_timers" => vec![RowBuilder::new(def)
            .s("TIMER_NAME", "NANOSECOND")
            .n("TIMER_FREQUENCY", 1_000_000_000)
            .n("TIMER_RESOLUTION", 1)
            .n("TIMER_OVERHEAD", 25)
            .done()],
        "setup_actors" => vec![RowBuilder::new(def)
            .s("HOST", "%")
            .s("USER", "%")
            .s("ROLE", "%")
            .s("ENABLED", "YES")
            .s("HISTORY", "YES")
            .done()],
        "setup_objects" => objects(def),
        _ => return None,
    })
}

/// The statement instruments (one per statement kind and command) and the
/// transaction instrument.
fn instruments(def: &TableDef, on: bool) -> Vec<Row> {
    let mut names: Vec<&str> = crate::stats::ALL
        .iter()
        .filter(|s| s.name().starts_with("Com_"))
        .map(|s| super::event_name(*s))
        .collect();
    names.push("statement/com/Query");
    names.push("transaction");
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|n| {
            RowBuilder::new(def)
                .s("NAME", n)
                .s("ENABLED", yes(on))
                .s("TIMED", yes(on && n != "transaction"))
                .done()
        })
        .collect()
}

fn objects(def: &TableDef) -> Vec<Row> {
    let mut out = Vec::new();
    for kind in ["EVENT", "FUNCTION", "PROCEDURE", "TABLE", "TRIGGER"] {
        for schema in ["mysql", "performance_schema", "information_schema", "%"] {
            let on = yes(schema == "%");
            out.push(
                RowBuilder::new(def)
                    .s("OBJECT_TYPE", kind)
                    .s("OBJECT_SCHEMA", schema)
                    .s("OBJECT_NAME", "%")
                    .s("ENABLED", on)
                    .s("TIMED", on)
                    .done(),
            );
        }
    }
    out
}
