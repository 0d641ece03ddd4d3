//! Rows from a real MariaDB 10.11 primary: `golden.bin` (written by MariaDB from
//! `replication/tests/data/workload.sql`: every column type, FULL / NOBLOB /
//! MINIMAL images, a table without a primary key, prefix keys, a MEMORY table)
//! replayed into a Basalt engine, its DDL run as SQL and its rows events applied,
//! must leave every table as running `workload.sql` on Basalt directly does.

use super::*;
use crate::engine::{Engine, GlobalConfig};
use basalt_replication::event::{EventReader, BINLOG_MAGIC};
use basalt_replication::replica::decode::{Event, TableMap};
use basalt_replication::replica::Decoder;
use basalt_storage::{Storage, Txn, TxnOptions};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../replication/tests/data")
        .join(name)
}

fn scratch() -> (Arc<Storage>, Arc<Engine>) {
    let storage = crate::exec::test_support::scratch_storage();
    let engine = Engine::new(storage.clone(), GlobalConfig::default());
    (storage, engine)
}

/// Every row of every table of `db`, by table name.
fn contents(storage: &Arc<Storage>, db: &str) -> Vec<(String, Vec<basalt_common::Row>)> {
    let mut names = storage.tables(db).expect("tables");
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let rows = super::tests::table_rows(storage, db, &name);
            (name, rows)
        })
        .collect()
}

/// Replays a MariaDB binlog file: QUERY events as SQL, rows events applied, a
/// transaction per BEGIN .. XID/COMMIT. Returns the applier's counts.
fn replay(storage: &Arc<Storage>, engine: &Arc<Engine>, file: &str) -> ApplyCounts {
    let bytes = std::fs::read(data(file)).expect("golden file");
    assert_eq!(bytes[..4], BINLOG_MAGIC);
    let mut s = engine.new_session(2, "root", "localhost");
    let mut dec = Decoder::new();
    let mut maps: HashMap<u64, TableMap> = HashMap::new();
    let mut txn: Option<Txn> = None;
    let mut counts = ApplyCounts::default();
    let opts = ApplyOptions::default();
    for ev in EventReader::new(&bytes[4..], 4) {
        let (offset, ev) = ev.expect("whole event");
        let (head, ev) = dec.decode(ev).expect("decodes");
        match ev {
            Event::Query(q) => {
                let sql = String::from_utf8_lossy(&q.sql).into_owned();
                match sql.as_str() {
                    "BEGIN" => txn = Some(storage.begin(TxnOptions::default())),
                    "COMMIT" => txn.take().expect("open").commit().expect("commit"),
                    _ => {
                        if !q.db.is_empty() {
                            s.execute(&format!("USE `{}`", q.db));
                        }
                        for r in s.execute(&sql) {
                            r.unwrap_or_else(|e| panic!("at {offset}: {sql}: {e:?}"));
                        }
                    }
                }
            }
            Event::TableMap(m) => {
                maps.insert(m.table_id, m);
            }
            Event::Rows(r) => {
                let map = maps.get(&r.table_id).expect("map");
                let t = txn.get_or_insert_with(|| storage.begin(TxnOptions::default()));
                apply_rows(storage, t, map, &r, opts, &mut counts)
                    .unwrap_or_else(|e| panic!("{}", e.last_sql_error(file, head.log_pos as u64)));
            }
            Event::Xid(_) => txn.take().expect("open").commit().expect("commit"),
            _ => {}
        }
    }
    assert!(txn.is_none(), "a transaction left open");
    counts
}

/// Runs the workload files on a fresh engine, as the client ran them on MariaDB.
fn run_direct(workloads: &[&str]) -> Arc<Storage> {
    let (direct, engine) = scratch();
    let mut s = engine.new_session(1, "root", "localhost");
    for w in workloads {
        let sql = std::fs::read_to_string(data(w)).expect("workload");
        let text: String = sql
            .lines()
            .filter(|l| !l.starts_with("--"))
            .map(|l| format!("{l}\n"))
            .collect();
        let results = text
            .split(";\n")
            .filter(|q| !q.trim().is_empty())
            .flat_map(|q| s.execute(q));
        for r in results {
            if let Err(e) = r {
                // FLUSH BINARY LOGS without a binary log, and settings Basalt lacks
                // (1235, e.g. auto_increment_increment) may fail.
                assert!(
                    e.code == 1235
                        || e.message.contains("binary log")
                        || e.message.contains("binlog"),
                    "{w}: {e:?}"
                );
            }
        }
    }
    direct
}

fn same_tables(got: &Arc<Storage>, want: &Arc<Storage>) {
    let want = contents(want, "test");
    let got = contents(got, "test");
    assert_eq!(
        got.iter().map(|t| &t.0).collect::<Vec<_>>(),
        want.iter().map(|t| &t.0).collect::<Vec<_>>()
    );
    for ((name, rows), (_, expected)) in got.iter().zip(&want) {
        assert_eq!(rows, expected, "table {name}");
    }
}

#[test]
fn mariadb_golden_binlog_applies_as_the_workload_ran() {
    let (storage, engine) = scratch();
    let counts = replay(&storage, &engine, "golden.bin");
    assert_eq!(
        counts,
        ApplyCounts {
            inserted: 26,
            updated: 12,
            deleted: 4,
            skipped: 0,
            events: 35
        }
    );
    let want = run_direct(&["workload.sql"]);
    assert_eq!(contents(&want, "test").len(), 12);
    same_tables(&storage, &want);
}

#[test]
fn mariadb_golden_binlogs_in_sequence() {
    let (storage, engine) = scratch();
    for f in ["golden.bin", "golden_nocrc.bin", "golden_gen.bin"] {
        replay(&storage, &engine, f);
    }
    let want = run_direct(&["workload.sql", "workload_nocrc.sql", "workload_gen.sql"]);
    same_tables(&storage, &want);
}
