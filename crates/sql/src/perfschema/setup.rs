//! The setup tables: what is instrumented and collected. Every statement
//! instrument is on and timed; `setup_consumers` shows which consumers Basalt
//! collects for and is writable as in MariaDB: UPDATE ... SET ENABLED turns
//! statement digests, current / history statement events, transaction events
//! and the global and thread switches on and off at runtime (turning on a
//! consumer Basalt does not have, such as stages, waits or the long history,
//! is 1235; changing a NAME is 1683). Under `--performance-schema=OFF` the
//! consumers table is empty, as in MariaDB. The other setup tables are
//! read-only.

use super::rows::{yes, RowBuilder};
use crate::engine::Engine;
use crate::infoschema::VirtualTable;
use crate::session::ctx::SessionCtx;
use crate::stats::digests::{
    CONSUMER_CURRENT, CONSUMER_DIGEST, CONSUMER_GLOBAL, CONSUMER_HISTORY, CONSUMER_THREAD,
    CONSUMER_TRANSACTIONS,
};
use basalt_common::{MySqlError, Row, TableDef, Value};
use basalt_storage::{
    Cursor, Fetched, LockMode, RowHandle, ScanRequest, StorageError, Table, TableStats, Txn,
    WaitPolicy,
};
use std::sync::Arc;

/// The consumers, with the switch each is (none: Basalt does not collect it).
const CONSUMERS: &[(&str, Option<u8>)] = &[
    ("events_stages_current", None),
    ("events_stages_history", None),
    ("events_stages_history_long", None),
    ("events_statements_current", Some(CONSUMER_CURRENT)),
    ("events_statements_history", Some(CONSUMER_HISTORY)),
    ("events_statements_history_long", None),
    ("events_transactions_current", Some(CONSUMER_TRANSACTIONS)),
    ("events_transactions_history", None),
    ("events_transactions_history_long", None),
    ("events_waits_current", None),
    ("events_waits_history", None),
    ("events_waits_history_long", None),
    ("global_instrumentation", Some(CONSUMER_GLOBAL)),
    ("thread_instrumentation", Some(CONSUMER_THREAD)),
    ("statements_digest", Some(CONSUMER_DIGEST)),
];

pub(super) fn build(name: &str, def: &TableDef, cx: &SessionCtx) -> Option<Vec<Row>> {
    let hub = &cx.engine.stats.digests;
    let on = hub.enabled();
    Some(match name {
        "setup_consumers" if !on => Vec::new(),
        "setup_consumers" => CONSUMERS
            .iter()
            .map(|(n, bit)| {
                let enabled = bit.is_some_and(|b| hub.consumer(b));
                RowBuilder::new(def)
                    .s("NAME", n)
                    .s("ENABLED", yes(enabled))
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

/// `setup_consumers`: its rows as read when the statement opened it; an
/// UPDATE of ENABLED switches the consumer.
pub(super) struct Consumers {
    rows: VirtualTable,
    engine: Arc<Engine>,
}

impl Consumers {
    pub(super) fn new(def: TableDef, rows: Vec<Row>, engine: Arc<Engine>) -> Self {
        Consumers {
            rows: VirtualTable::new(def, rows),
            engine,
        }
    }

    fn switch(&self, old: &Row, new: &Row) -> Result<(), MySqlError> {
        let text = |v: Option<&Value>| v.map(Value::display_lossy).unwrap_or_default();
        let name = text(old.first());
        if text(new.first()) != name {
            return Err(MySqlError::new(
                1683,
                "HY000",
                "Invalid performance_schema usage",
            ));
        }
        let on = text(new.get(1)).eq_ignore_ascii_case("YES");
        match CONSUMERS.iter().find(|(n, _)| *n == name) {
            Some((_, Some(bit))) => {
                self.engine.stats.digests.set_consumer(*bit, on);
                Ok(())
            }
            _ if !on => Ok(()),
            _ => Err(MySqlError::not_supported(&format!(
                "performance_schema consumer {name}"
            ))),
        }
    }
}

impl Table for Consumers {
    fn def(&self) -> Arc<TableDef> {
        self.rows.def()
    }

    fn stats(&self) -> TableStats {
        self.rows.stats()
    }

    fn insert(&self, txn: &mut Txn, row: Row) -> basalt_storage::Result<RowHandle> {
        self.rows.insert(txn, row)
    }

    fn get(
        &self,
        txn: &mut Txn,
        pk: &[Value],
        lock: LockMode,
        wait: WaitPolicy,
    ) -> basalt_storage::Result<Option<Fetched>> {
        self.rows.get(txn, pk, lock, wait)
    }

    fn get_columns(
        &self,
        txn: &mut Txn,
        pk: &[Value],
        columns: &[usize],
    ) -> basalt_storage::Result<Option<Fetched>> {
        self.rows.get_columns(txn, pk, columns)
    }

    fn scan(&self, txn: &mut Txn, req: ScanRequest) -> basalt_storage::Result<Box<dyn Cursor>> {
        self.rows.scan(txn, req)
    }

    fn update(
        &self,
        _txn: &mut Txn,
        h: &RowHandle,
        old: &Row,
        new: Row,
    ) -> basalt_storage::Result<RowHandle> {
        self.switch(old, &new).map_err(StorageError::Sql)?;
        Ok(h.clone())
    }

    fn delete(&self, txn: &mut Txn, h: &RowHandle, old: &Row) -> basalt_storage::Result<()> {
        self.rows.delete(txn, h, old)
    }

    fn reserve_auto_increment(&self, count: u64) -> basalt_storage::Result<u64> {
        self.rows.reserve_auto_increment(count)
    }

    fn observe_auto_increment(&self, value: u64) {
        self.rows.observe_auto_increment(value)
    }

    fn peek_auto_increment(&self) -> u64 {
        self.rows.peek_auto_increment()
    }
}
