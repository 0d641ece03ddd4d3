//! The table layer through the public API: rows, indexes, transactions, MVCC and locks.

use basalt_common::*;
use basalt_storage::*;
use std::ops::Bound;
use std::sync::Arc;
use std::time::Duration;

fn int(name: &str) -> ColumnDef {
    ColumnDef::new(
        name,
        DataType::Int {
            kind: IntKind::Int,
            unsigned: false,
            width: 0,
            zerofill: false,
        },
    )
}

fn index(name: &str, kind: IndexKind, cols: &[usize]) -> IndexDef {
    IndexDef {
        id: 0,
        name: name.into(),
        kind,
        columns: cols
            .iter()
            .map(|&c| IndexColumn {
                column: c,
                prefix_len: None,
                descending: false,
            })
            .collect(),
        comment: String::new(),
    }
}

fn table_def(engine: EngineKind) -> TableDef {
    let mut name = ColumnDef::new(
        "name",
        DataType::VarChar {
            len: 20,
            collation: Collation::Utf8mb4GeneralCi,
        },
    );
    name.nullable = true;
    TableDef {
        id: 0,
        schema: "test".into(),
        name: "t".into(),
        columns: vec![int("id"), int("j"), name],
        indexes: vec![
            index("PRIMARY", IndexKind::Primary, &[0]),
            index("xj", IndexKind::NonUnique, &[1]),
            index("uname", IndexKind::Unique, &[2]),
        ],
        engine,
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

fn setup() -> (tempfile::TempDir, Arc<Storage>, Arc<dyn Table>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let storage = Storage::open(StorageConfig::new(dir.path())).expect("open");
    let t = storage
        .create_table(table_def(EngineKind::Memory))
        .expect("create");
    (dir, storage, t)
}

fn row(id: i64, j: i64, name: &str) -> Row {
    vec![Value::Int(id), Value::Int(j), Value::str(name)]
}

/// Waits until `n` transactions are waiting for row locks (the waiting thread has
/// really started waiting, however loaded the machine is).
fn await_lock_waits(s: &Storage, n: u64) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while s
        .status()
        .iter()
        .find(|(k, _)| *k == "Innodb_row_lock_current_waits")
        .map_or(0, |(_, v)| *v)
        < n
    {
        assert!(std::time::Instant::now() < deadline, "no lock wait began");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn opts() -> TxnOptions {
    TxnOptions {
        lock_wait_timeout: Duration::from_millis(300),
        ..Default::default()
    }
}

fn scan_all(
    t: &Arc<dyn Table>,
    txn: &mut Txn,
    index_id: u32,
    range: KeyRange,
    reverse: bool,
) -> Vec<Row> {
    let mut c = t
        .scan(
            txn,
            ScanRequest {
                index_id,
                range,
                reverse,
                columns: vec![0, 1, 2],
                lock: LockMode::Consistent,
                wait: WaitPolicy::Wait,
            },
        )
        .expect("scan");
    let mut rows = Vec::new();
    while let Some(f) = c.next(txn).expect("next") {
        rows.push(f.row);
    }
    rows
}

#[test]
fn insert_get_scan_update_delete() {
    let (_d, s, t) = setup();
    let mut txn = s.begin(opts());
    for i in 1..=100 {
        t.insert(&mut txn, row(i, 1000 - i, &format!("n{i}")))
            .expect("insert");
    }
    txn.commit().expect("commit");

    let mut txn = s.begin(opts());
    let got = t
        .get(
            &mut txn,
            &[Value::Int(7)],
            LockMode::Consistent,
            WaitPolicy::Wait,
        )
        .expect("get");
    assert_eq!(got.expect("row 7").row, row(7, 993, "n7"));
    let rows = scan_all(
        &t,
        &mut txn,
        2,
        KeyRange {
            lower: Bound::Included(vec![Value::Int(990)]),
            upper: Bound::Unbounded,
        },
        false,
    );
    assert_eq!(rows.len(), 10);
    assert_eq!(rows[0][1], Value::Int(990));
    let rev = scan_all(&t, &mut txn, 1, KeyRange::all(), true);
    assert_eq!(rev[0][0], Value::Int(100));
    assert_eq!(rev.len(), 100);

    // Update through a locking read, then delete.
    let f = t
        .get(
            &mut txn,
            &[Value::Int(7)],
            LockMode::Exclusive,
            WaitPolicy::Wait,
        )
        .expect("get")
        .expect("row");
    t.update(&mut txn, &f.handle, &f.row, row(7, 5, "seven"))
        .expect("update");
    let rows = scan_all(&t, &mut txn, 2, KeyRange::eq(vec![Value::Int(5)]), false);
    assert_eq!(rows, vec![row(7, 5, "seven")]);
    let rows = scan_all(&t, &mut txn, 2, KeyRange::eq(vec![Value::Int(993)]), false);
    assert!(rows.is_empty(), "old secondary entry no longer matches");
    let f = t
        .get(
            &mut txn,
            &[Value::Int(8)],
            LockMode::Exclusive,
            WaitPolicy::Wait,
        )
        .expect("get")
        .expect("row");
    t.delete(&mut txn, &f.handle, &f.row).expect("delete");
    txn.commit().expect("commit");

    let mut txn = s.begin(opts());
    assert_eq!(scan_all(&t, &mut txn, 1, KeyRange::all(), false).len(), 99);
    assert_eq!(t.stats().rows, 99);
    s.purge_now();
}

#[test]
fn duplicates_are_refused_and_statement_rolls_back() {
    let (_d, s, t) = setup();
    let mut txn = s.begin(opts());
    t.insert(&mut txn, row(1, 1, "a")).expect("insert");
    let sp = txn.savepoint();
    t.insert(&mut txn, row(2, 2, "b")).expect("insert");
    let e = t.insert(&mut txn, row(1, 3, "c")).expect_err("dup pk");
    assert!(
        matches!(e, StorageError::DuplicateKey { ref key, ref entry } if key == "PRIMARY" && entry == "1")
    );
    let e = t
        .insert(&mut txn, row(3, 3, "A"))
        .expect_err("dup unique, case-insensitive");
    assert!(matches!(e, StorageError::DuplicateKey { ref key, .. } if key == "uname"));
    // Row 3 left nothing behind in any index.
    assert!(scan_all(&t, &mut txn, 2, KeyRange::eq(vec![Value::Int(3)]), false).is_empty());
    txn.rollback_to(&sp).expect("rollback to");
    txn.commit().expect("commit");
    let mut txn = s.begin(opts());
    assert_eq!(
        scan_all(&t, &mut txn, 1, KeyRange::all(), false),
        vec![row(1, 1, "a")]
    );
    // NULLs never clash in a unique index.
    t.insert(&mut txn, vec![Value::Int(5), Value::Int(0), Value::Null])
        .expect("null 1");
    t.insert(&mut txn, vec![Value::Int(6), Value::Int(0), Value::Null])
        .expect("null 2");
}

#[test]
fn snapshot_isolation_and_visibility() {
    let (_d, s, t) = setup();
    let mut w = s.begin(opts());
    t.insert(&mut w, row(1, 10, "a")).expect("insert");
    w.commit().expect("commit");

    let mut reader = s.begin(opts());
    assert_eq!(
        scan_all(&t, &mut reader, 1, KeyRange::all(), false).len(),
        1
    );

    let mut w = s.begin(opts());
    t.insert(&mut w, row(2, 20, "b")).expect("insert");
    let f = t
        .get(
            &mut w,
            &[Value::Int(1)],
            LockMode::Exclusive,
            WaitPolicy::Wait,
        )
        .expect("get")
        .expect("row");
    t.update(&mut w, &f.handle, &f.row, row(1, 11, "a"))
        .expect("update");
    // Uncommitted changes are invisible, and reads do not wait.
    assert_eq!(
        scan_all(&t, &mut reader, 1, KeyRange::all(), false),
        vec![row(1, 10, "a")]
    );
    w.commit().expect("commit");
    // Still the old snapshot under REPEATABLE READ: no phantom, no changed row,
    // through the primary and through the secondary index (covering).
    assert_eq!(
        scan_all(&t, &mut reader, 1, KeyRange::all(), false),
        vec![row(1, 10, "a")]
    );
    assert_eq!(
        scan_all(&t, &mut reader, 2, KeyRange::all(), false),
        vec![row(1, 10, "a")]
    );
    // Writing a row changed after the snapshot: errno 1020.
    let e = t
        .get(
            &mut reader,
            &[Value::Int(1)],
            LockMode::Exclusive,
            WaitPolicy::Wait,
        )
        .expect_err("checkread");
    assert!(matches!(e, StorageError::SnapshotConflict { .. }));
    reader.rollback().expect("rollback");

    let mut fresh = s.begin(opts());
    assert_eq!(scan_all(&t, &mut fresh, 1, KeyRange::all(), false).len(), 2);
}

#[test]
fn lock_waits_timeouts_and_deadlocks() {
    let (_d, s, t) = setup();
    let mut w = s.begin(opts());
    t.insert(&mut w, row(1, 1, "a")).expect("insert");
    t.insert(&mut w, row(2, 2, "b")).expect("insert");
    w.commit().expect("commit");

    let mut a = s.begin(opts());
    let mut b = s.begin(opts());
    let fa = t
        .get(
            &mut a,
            &[Value::Int(1)],
            LockMode::Exclusive,
            WaitPolicy::Wait,
        )
        .expect("a locks 1");
    assert!(fa.is_some());
    let e = t
        .get(
            &mut b,
            &[Value::Int(1)],
            LockMode::Exclusive,
            WaitPolicy::Wait,
        )
        .expect_err("timeout");
    assert!(matches!(e, StorageError::LockWaitTimeout));
    let e = t
        .get(
            &mut b,
            &[Value::Int(1)],
            LockMode::Shared,
            WaitPolicy::NoWait,
        )
        .expect_err("nowait");
    assert!(matches!(e, StorageError::LockNowait));
    assert!(t
        .get(
            &mut b,
            &[Value::Int(1)],
            LockMode::Exclusive,
            WaitPolicy::SkipLocked
        )
        .expect("skip")
        .is_none());
    // Consistent reads never wait.
    assert!(t
        .get(
            &mut b,
            &[Value::Int(1)],
            LockMode::Consistent,
            WaitPolicy::Wait
        )
        .expect("read")
        .is_some());

    // Deadlock: b holds 2, a waits for 2 in a thread, b asks for 1.
    t.get(
        &mut b,
        &[Value::Int(2)],
        LockMode::Exclusive,
        WaitPolicy::Wait,
    )
    .expect("b locks 2");
    let t2 = t.clone();
    let long = TxnOptions {
        lock_wait_timeout: Duration::from_secs(10),
        ..Default::default()
    };
    let mut a = {
        drop(a);
        let mut a = s.begin(long.clone());
        t.get(
            &mut a,
            &[Value::Int(1)],
            LockMode::Exclusive,
            WaitPolicy::Wait,
        )
        .expect("a relocks 1");
        a
    };
    let handle = std::thread::spawn(move || {
        let r = t2.get(
            &mut a,
            &[Value::Int(2)],
            LockMode::Exclusive,
            WaitPolicy::Wait,
        );
        (r.map(|f| f.is_some()), a)
    });
    await_lock_waits(&s, 1);
    let mut b = {
        // b must be able to wait long enough to be the one detecting the cycle.
        b
    };
    let e = t
        .get(
            &mut b,
            &[Value::Int(1)],
            LockMode::Exclusive,
            WaitPolicy::Wait,
        )
        .expect_err("deadlock");
    assert!(matches!(e, StorageError::Deadlock));
    b.rollback().expect("victim rolls back");
    let (r, a) = handle.join().expect("thread");
    assert!(r.expect("a gets row 2"));
    a.commit().expect("commit");
}

#[test]
fn concurrent_increments_lose_nothing() {
    let (_d, s, t) = setup();
    let mut w = s.begin(opts());
    t.insert(&mut w, row(1, 0, "counter")).expect("insert");
    w.commit().expect("commit");
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (s, t) = (s.clone(), t.clone());
            std::thread::spawn(move || {
                let long = TxnOptions {
                    lock_wait_timeout: Duration::from_secs(20),
                    ..Default::default()
                };
                for _ in 0..200 {
                    let mut txn = s.begin(long.clone());
                    let f = t
                        .get(
                            &mut txn,
                            &[Value::Int(1)],
                            LockMode::Exclusive,
                            WaitPolicy::Wait,
                        )
                        .expect("lock")
                        .expect("row");
                    let Value::Int(n) = f.row[1] else {
                        panic!("int")
                    };
                    t.update(&mut txn, &f.handle, &f.row, row(1, n + 1, "counter"))
                        .expect("update");
                    txn.commit().expect("commit");
                }
            })
        })
        .collect();
    for th in threads {
        th.join().expect("thread");
    }
    let mut txn = s.begin(opts());
    let f = t
        .get(
            &mut txn,
            &[Value::Int(1)],
            LockMode::Consistent,
            WaitPolicy::Wait,
        )
        .expect("get")
        .expect("row");
    assert_eq!(f.row[1], Value::Int(800));
    drop(txn);
    // Once no view needs them, the versions are purged.
    while s.purge_now() > 0 {}
    let undo = s
        .status()
        .iter()
        .find(|(n, _)| *n == "Basalt_undo_versions")
        .map(|(_, v)| *v);
    assert_eq!(undo, Some(0));
}

#[test]
fn create_index_on_existing_rows_and_catalog_persists() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let s = Storage::open(StorageConfig::new(dir.path())).expect("open");
        let mut def = table_def(EngineKind::Memory);
        def.indexes.truncate(1);
        let t = s.create_table(def).expect("create");
        let mut txn = s.begin(opts());
        for i in 0..50 {
            t.insert(&mut txn, row(i, i % 5, &format!("x{i}")))
                .expect("insert");
        }
        txn.commit().expect("commit");
        s.create_index("test", "t", index("xj", IndexKind::NonUnique, &[1]))
            .expect("index");
        let e = s
            .create_index("test", "t", index("uj", IndexKind::Unique, &[1]))
            .expect_err("dup");
        assert!(matches!(e, StorageError::DuplicateKey { .. }));
        let t = s.table("test", "t").expect("table");
        let id = t.def().index_by_name("xj").expect("xj").id;
        let mut txn = s.begin(opts());
        assert_eq!(
            scan_all(&t, &mut txn, id, KeyRange::eq(vec![Value::Int(3)]), false).len(),
            10
        );
        let st = t.stats();
        let xs = st.indexes.iter().find(|i| i.index_id == id).expect("stats");
        assert_eq!(xs.distinct, vec![5]);
        s.shutdown().expect("shutdown");
    }
    let s = Storage::open(StorageConfig::new(dir.path())).expect("reopen");
    assert_eq!(s.tables("test").expect("tables"), vec!["t".to_string()]);
    assert!(s
        .table("test", "t")
        .expect("t")
        .def()
        .index_by_name("xj")
        .is_some());
    assert!(s.database_exists("mysql"));
}
