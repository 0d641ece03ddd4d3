//! Space across restarts, on the crash-simulating file system: entries that committed
//! deletes and updates delete-marked are purged even when the run that made them
//! crashed (or stopped) before purge got to them, so no restart leaks space.

use basalt_common::*;
use basalt_storage::btree::TableFile;
use basalt_storage::io::sim::SimFileSystem;
use basalt_storage::pool::BufferPool;
use basalt_storage::table::record::{parse_rec, parse_sec};
use basalt_storage::{LockMode, Storage, StorageConfig, TxnOptions, WaitPolicy};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const TABLE_FILE: &str = "/data/tables/1.bdt";

fn int(name: &str) -> ColumnDef {
    let mut c = ColumnDef::new(
        name,
        DataType::Int {
            kind: IntKind::Big,
            unsigned: false,
            width: 0,
            zerofill: false,
        },
    );
    c.nullable = false;
    c
}

fn index(name: &str, kind: IndexKind, column: usize) -> IndexDef {
    IndexDef {
        id: 0,
        name: name.into(),
        kind,
        columns: vec![IndexColumn {
            column,
            prefix_len: None,
            descending: false,
        }],
        comment: String::new(),
    }
}

fn def() -> TableDef {
    let pad = ColumnDef::new(
        "pad",
        DataType::VarChar {
            len: 200,
            collation: Collation::Binary,
        },
    );
    TableDef {
        id: 0,
        schema: "test".into(),
        name: "t".into(),
        columns: vec![int("id"), int("v"), pad],
        indexes: vec![
            index("PRIMARY", IndexKind::Primary, 0),
            index("xv", IndexKind::NonUnique, 1),
        ],
        engine: EngineKind::Basalt,
        charset: Charset::Utf8mb4,
        collation: Collation::Utf8mb4GeneralCi,
        comment: String::new(),
        auto_increment_start: 1,
        next_index_id: 0,
        checks: Vec::new(),
        options: Vec::new(),
        foreign_keys: Vec::new(),
        partitioning: None,
    }
}

fn config(fs: &SimFileSystem) -> StorageConfig {
    StorageConfig {
        buffer_pool_size: 4 << 20,
        fs: Arc::new(fs.clone()),
        log_segment_size: 4 << 20,
        ..StorageConfig::new("/data")
    }
}

fn row(id: i64, v: i64) -> Row {
    vec![Value::Int(id), Value::Int(v), Value::Bytes(vec![b'p'; 150])]
}

/// 600 rows; then, while a consistent snapshot holds purge back, deletes every other
/// row and changes the indexed column of the rest. Returns the open snapshot.
fn churn(s: &Arc<Storage>) -> basalt_storage::Txn {
    let t = s.table("test", "t").expect("table");
    let mut txn = s.begin(TxnOptions::default());
    for id in 0..600 {
        t.insert(&mut txn, row(id, id)).expect("insert");
    }
    txn.commit().expect("commit");
    let snapshot = s.begin(TxnOptions {
        consistent_snapshot: true,
        ..TxnOptions::default()
    });
    let mut txn = s.begin(TxnOptions::default());
    for id in 0..600 {
        let f = t
            .get(
                &mut txn,
                &[Value::Int(id)],
                LockMode::Exclusive,
                WaitPolicy::Wait,
            )
            .expect("get")
            .expect("row");
        if id % 2 == 0 {
            t.delete(&mut txn, &f.handle, &f.row).expect("delete");
        } else {
            t.update(&mut txn, &f.handle, &f.row, row(id, id + 10_000))
                .expect("update");
        }
    }
    txn.commit().expect("commit");
    snapshot
}

/// (live, delete-marked) entries of each tree of the table file, read raw.
fn entries(fs: &SimFileSystem) -> Vec<(usize, usize)> {
    let pool = BufferPool::with_frames(64);
    let file = TableFile::open(&pool, fs, Path::new(TABLE_FILE)).expect("table file");
    let mut out = Vec::new();
    for id in file.tree_ids() {
        let mut all = Vec::new();
        file.tree(id)
            .expect("tree")
            .scan(
                Bound::Unbounded,
                Bound::Unbounded,
                false,
                usize::MAX,
                &mut all,
            )
            .expect("scan");
        let dead = all
            .iter()
            .filter(|(_, v)| match id {
                1 => parse_rec(v).expect("record").deleted,
                _ => parse_sec(v).expect("entry").deleted != 0,
            })
            .count();
        out.push((all.len() - dead, dead));
    }
    out
}

fn sweep_pending(s: &Storage) -> u64 {
    s.status()
        .into_iter()
        .find(|(n, _)| *n == "Basalt_purge_sweep_tables_pending")
        .map_or(0, |(_, v)| v)
}

fn wait_for_sweep(s: &Storage) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while sweep_pending(s) > 0 {
        assert!(Instant::now() < deadline, "the sweep never finished");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn garbage_a_crash_left_behind_is_purged_after_restart() {
    let fs = SimFileSystem::new(1);
    let s = Storage::open(config(&fs)).expect("open");
    s.create_table(def()).expect("create");
    let snapshot = churn(&s);
    // The garbage reaches the table file; then the machine dies before purge ran.
    s.checkpoint().expect("checkpoint");
    fs.crash();
    drop(snapshot);
    drop(s);
    let s = Storage::open(config(&fs)).expect("recover");
    wait_for_sweep(&s);
    s.shutdown().expect("clean stop");
    drop(s);
    // 300 rows; the secondary index holds one live entry per row.
    assert_eq!(entries(&fs), vec![(300, 0), (300, 0)]);
}

#[test]
fn a_clean_stop_finishes_purge() {
    let fs = SimFileSystem::new(2);
    let s = Storage::open(config(&fs)).expect("open");
    s.create_table(def()).expect("create");
    let snapshot = churn(&s);
    // The snapshot ends just before the stop: purge has had no time to run.
    drop(snapshot);
    s.shutdown().expect("clean stop");
    drop(s);
    assert_eq!(entries(&fs), vec![(300, 0), (300, 0)]);
}
