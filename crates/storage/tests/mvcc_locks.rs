//! Row and gap locks through the public API, on both engines: next-key locking of
//! locking scans (ascending and descending, primary and secondary index), gaps of
//! missing keys, insert intention, no gap locks below REPEATABLE READ, rollback and
//! purge of entries that anchor gap locks, deadlock detection through shared locks,
//! and a concurrent check that a locking scan repeated in one transaction never sees
//! a phantom while other threads insert.

use basalt_common::*;
use basalt_storage::*;
use std::ops::Bound;
use std::sync::Arc;
use std::time::{Duration, Instant};

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
    TableDef {
        id: 0,
        schema: "test".into(),
        name: "t".into(),
        columns: vec![int("id"), int("k")],
        indexes: vec![
            index("PRIMARY", IndexKind::Primary, &[0]),
            index("xk", IndexKind::NonUnique, &[1]),
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

struct Fixture {
    _dir: tempfile::TempDir,
    s: Arc<Storage>,
    t: Arc<dyn Table>,
}

/// A table with rows (id, k) = (10, 100), (20, 200), (30, 300), (40, 400).
fn setup(engine: EngineKind) -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = Storage::open(StorageConfig::new(dir.path())).expect("open");
    let t = s.create_table(table_def(engine)).expect("create");
    let mut w = s.begin(opts(IsolationLevel::RepeatableRead));
    for i in 1..=4 {
        t.insert(&mut w, row(i * 10, i * 100)).expect("insert");
    }
    w.commit().expect("commit");
    Fixture { _dir: dir, s, t }
}

fn row(id: i64, k: i64) -> Row {
    vec![Value::Int(id), Value::Int(k)]
}

fn opts(isolation: IsolationLevel) -> TxnOptions {
    TxnOptions {
        isolation,
        lock_wait_timeout: Duration::from_millis(200),
        ..Default::default()
    }
}

const ENGINES: [EngineKind; 2] = [EngineKind::Memory, EngineKind::Basalt];

fn range(lo: i64, hi: i64) -> KeyRange {
    KeyRange {
        lower: Bound::Included(vec![Value::Int(lo)]),
        upper: Bound::Included(vec![Value::Int(hi)]),
    }
}

/// A locking scan; returns the ids.
fn lock_scan(
    t: &Arc<dyn Table>,
    txn: &mut Txn,
    index_id: u32,
    r: KeyRange,
    reverse: bool,
) -> Vec<i64> {
    let mut c = t
        .scan(
            txn,
            ScanRequest {
                index_id,
                range: r,
                reverse,
                columns: vec![0, 1],
                lock: LockMode::Exclusive,
                wait: WaitPolicy::Wait,
            },
        )
        .expect("scan");
    let mut ids = Vec::new();
    while let Some(f) = c.next(txn).expect("next") {
        let Value::Int(id) = f.row[0] else {
            panic!("int id")
        };
        ids.push(id);
    }
    ids
}

/// Tries an insert in a fresh transaction; Ok(()) if it went in (rolled back).
fn try_insert(f: &Fixture, id: i64, k: i64) -> std::result::Result<(), StorageError> {
    let mut txn = f.s.begin(opts(IsolationLevel::RepeatableRead));
    let r = f.t.insert(&mut txn, row(id, k)).map(|_| ());
    txn.rollback().expect("rollback");
    r
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

fn blocked(r: std::result::Result<(), StorageError>) -> bool {
    matches!(r, Err(StorageError::LockWaitTimeout))
}

#[test]
fn locking_scans_lock_the_gaps_they_cover() {
    for engine in ENGINES {
        let f = setup(engine);
        for reverse in [false, true] {
            let mut a = f.s.begin(opts(IsolationLevel::RepeatableRead));
            // Secondary index, k in [150, 250]: entry 200, and the gaps (100, 200)
            // and (200, 300).
            let ids = lock_scan(&f.t, &mut a, 2, range(150, 250), reverse);
            assert_eq!(ids, vec![20]);
            assert!(blocked(try_insert(&f, 21, 160)), "{engine:?} {reverse}");
            assert!(
                blocked(try_insert(&f, 22, 120)),
                "gap before the first entry"
            );
            assert!(blocked(try_insert(&f, 23, 290)), "gap past the range");
            assert!(try_insert(&f, 24, 310).is_ok(), "beyond the next entry");
            assert!(try_insert(&f, 25, 50).is_ok(), "before the previous entry");
            a.commit().expect("commit");
            assert!(try_insert(&f, 21, 160).is_ok());
            // Primary key range [25, 35]: entry 30, gaps (20, 30) and (30, 40).
            let mut a = f.s.begin(opts(IsolationLevel::RepeatableRead));
            assert_eq!(lock_scan(&f.t, &mut a, 1, range(25, 35), reverse), vec![30]);
            assert!(blocked(try_insert(&f, 26, 0)));
            assert!(blocked(try_insert(&f, 39, 0)));
            assert!(try_insert(&f, 41, 0).is_ok());
            // An open range ends at the supremum.
            assert_eq!(
                lock_scan(
                    &f.t,
                    &mut a,
                    1,
                    KeyRange {
                        lower: Bound::Included(vec![Value::Int(35)]),
                        upper: Bound::Unbounded
                    },
                    reverse
                ),
                vec![40]
            );
            assert!(blocked(try_insert(&f, 1000, 0)));
            a.rollback().expect("rollback");
        }
    }
}

#[test]
fn read_committed_takes_no_gap_locks_and_unique_points_lock_the_row_only() {
    for engine in ENGINES {
        let f = setup(engine);
        let mut a = f.s.begin(opts(IsolationLevel::ReadCommitted));
        assert_eq!(lock_scan(&f.t, &mut a, 2, range(150, 250), false), vec![20]);
        assert!(try_insert(&f, 21, 160).is_ok());
        a.commit().expect("commit");
        // Equality on the primary key that finds the row: no gap lock.
        let mut a = f.s.begin(opts(IsolationLevel::RepeatableRead));
        assert_eq!(lock_scan(&f.t, &mut a, 1, range(20, 20), false), vec![20]);
        let got =
            f.t.get(
                &mut a,
                &[Value::Int(30)],
                LockMode::Exclusive,
                WaitPolicy::Wait,
            )
            .expect("get");
        assert!(got.is_some());
        assert!(try_insert(&f, 19, 0).is_ok());
        assert!(try_insert(&f, 21, 0).is_ok());
        assert!(try_insert(&f, 29, 0).is_ok());
        // A missing key: the gap where it would be, compatible with another
        // transaction's lock on the same gap.
        let got =
            f.t.get(
                &mut a,
                &[Value::Int(25)],
                LockMode::Exclusive,
                WaitPolicy::Wait,
            )
            .expect("get");
        assert!(got.is_none());
        let mut b = f.s.begin(opts(IsolationLevel::RepeatableRead));
        let got =
            f.t.get(
                &mut b,
                &[Value::Int(25)],
                LockMode::Exclusive,
                WaitPolicy::NoWait,
            )
            .expect("gap locks are compatible");
        assert!(got.is_none());
        b.rollback().expect("rollback");
        assert!(blocked(try_insert(&f, 25, 0)));
        assert!(blocked(try_insert(&f, 22, 0)));
        a.rollback().expect("rollback");
        assert!(try_insert(&f, 25, 0).is_ok());
    }
}

#[test]
fn rolled_back_insert_keeps_an_anchoring_entry_until_purge() {
    let f = setup(EngineKind::Memory);
    // b inserts 25 and a locks the range up to it: the gap before 25 is a's.
    let mut b = f.s.begin(opts(IsolationLevel::RepeatableRead));
    f.t.insert(&mut b, row(25, 250)).expect("insert");
    let mut a = f.s.begin(TxnOptions {
        lock_wait_timeout: Duration::from_secs(10),
        ..opts(IsolationLevel::RepeatableRead)
    });
    let t = f.t.clone();
    let scan = std::thread::spawn(move || {
        let ids = lock_scan(&t, &mut a, 1, range(15, 27), false);
        (ids, a)
    });
    await_lock_waits(&f.s, 1);
    b.rollback().expect("rollback");
    let (ids, a) = scan.join().expect("scan thread");
    assert_eq!(ids, vec![20]);
    // The gap (20, 30) is still locked though 25's entry went away.
    assert!(blocked(try_insert(&f, 22, 0)));
    assert!(blocked(try_insert(&f, 26, 0)));
    while f.s.purge_now() > 0 {}
    assert!(blocked(try_insert(&f, 22, 0)), "purge keeps the anchor");
    a.commit().expect("commit");
    assert!(try_insert(&f, 22, 0).is_ok());
    while f.s.purge_now() > 0 {}
    let history =
        f.s.status()
            .into_iter()
            .find(|(n, _)| *n == "Innodb_history_list_length")
            .map(|(_, v)| v);
    assert_eq!(history, Some(0));
}

#[test]
fn deadlock_through_shared_holders_is_found_at_once() {
    let f = setup(EngineKind::Memory);
    let long = TxnOptions {
        lock_wait_timeout: Duration::from_secs(20),
        ..Default::default()
    };
    let mut a = f.s.begin(long.clone());
    let mut b = f.s.begin(long.clone());
    let mut c = f.s.begin(long.clone());
    let get = |t: &Arc<dyn Table>, txn: &mut Txn, id: i64, mode| {
        t.get(txn, &[Value::Int(id)], mode, WaitPolicy::Wait)
            .map(|r| r.is_some())
    };
    // a and b share row 10; c holds row 20.
    assert!(get(&f.t, &mut a, 10, LockMode::Shared).expect("a"));
    assert!(get(&f.t, &mut b, 10, LockMode::Shared).expect("b"));
    assert!(get(&f.t, &mut c, 20, LockMode::Exclusive).expect("c"));
    // c waits for both sharers of row 10.
    let t = f.t.clone();
    let waiter = std::thread::spawn(move || {
        let r = get(&t, &mut c, 10, LockMode::Exclusive);
        (r, c)
    });
    await_lock_waits(&f.s, 1);
    // b asks for c's row: a cycle through b's share, though c sleeps on a.
    let started = Instant::now();
    let e = get(&f.t, &mut b, 20, LockMode::Exclusive).expect_err("deadlock");
    assert!(matches!(e, StorageError::Deadlock), "{e:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
    b.rollback().expect("rollback");
    a.commit().expect("commit");
    let (r, c) = waiter.join().expect("waiter");
    assert!(r.expect("c gets row 10"));
    c.commit().expect("commit");
}

/// A transaction repeats a locking count over a range while other threads insert
/// into it: the count never changes within the transaction.
#[test]
fn repeated_locking_scans_see_no_phantoms_under_concurrent_inserts() {
    for engine in ENGINES {
        let f = setup(engine);
        let deadline = Instant::now() + Duration::from_secs(8);
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let inserters: Vec<_> = (0..2)
            .map(|n| {
                let (s, t, stop) = (f.s.clone(), f.t.clone(), stop.clone());
                std::thread::spawn(move || {
                    let mut next = 1000 + n;
                    let mut done = 0;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) && done < 400 {
                        let mut txn = s.begin(opts(IsolationLevel::RepeatableRead));
                        let k = 100 + (next * 7) % 300;
                        if t.insert(&mut txn, row(next, k)).is_ok() && txn.commit().is_ok() {
                            done += 1;
                        }
                        next += 2;
                    }
                    done
                })
            })
            .collect();
        let mut rounds = 0;
        while rounds < 60 && Instant::now() < deadline {
            let mut txn = f.s.begin(TxnOptions {
                lock_wait_timeout: Duration::from_secs(5),
                ..opts(IsolationLevel::RepeatableRead)
            });
            let first = lock_scan(&f.t, &mut txn, 2, range(150, 350), rounds % 2 == 1);
            std::thread::sleep(Duration::from_millis(5));
            let second = lock_scan(&f.t, &mut txn, 2, range(150, 350), rounds % 3 == 1);
            let mut a = first.clone();
            let mut b = second.clone();
            a.sort();
            b.sort();
            assert_eq!(a, b, "{engine:?}: phantom in round {rounds}");
            txn.commit().expect("commit");
            rounds += 1;
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let inserted: i64 = inserters
            .into_iter()
            .map(|h| h.join().expect("inserter"))
            .sum();
        assert!(
            inserted > 0 && rounds > 5,
            "{inserted} inserts, {rounds} rounds"
        );
    }
}
