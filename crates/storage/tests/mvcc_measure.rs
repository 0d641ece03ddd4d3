//! Figures for the lock manager, measured (run with `--nocapture` to see them):
//! memory per locked row, counted by a global allocator that tracks live bytes, and
//! the time from the request that closes a deadlock cycle to its error.
//!
//! One test per binary section, run one after the other (a mutex), so that no other
//! test's allocations land in the count.

use basalt_common::*;
use basalt_storage::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same layout contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: ptr was allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

static SERIAL: Mutex<()> = Mutex::new(());

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

fn setup(rows: i64) -> (tempfile::TempDir, Arc<Storage>, Arc<dyn Table>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = Storage::open(StorageConfig::new(dir.path())).expect("open");
    let def = TableDef {
        id: 0,
        schema: "test".into(),
        name: "t".into(),
        columns: vec![int("id"), int("v")],
        indexes: vec![IndexDef {
            id: 0,
            name: "PRIMARY".into(),
            kind: IndexKind::Primary,
            columns: vec![IndexColumn {
                column: 0,
                prefix_len: None,
                descending: false,
            }],
            comment: String::new(),
        }],
        engine: EngineKind::Memory,
        charset: Charset::Utf8mb4,
        collation: Collation::Utf8mb4GeneralCi,
        comment: String::new(),
        auto_increment_start: 1,
        next_index_id: 0,
        checks: Vec::new(),
        options: Vec::new(),
        foreign_keys: Vec::new(),
        partitioning: None,
    };
    let t = s.create_table(def).expect("create");
    let mut w = s.begin(TxnOptions::default());
    for i in 0..rows {
        t.insert(&mut w, vec![Value::Int(i), Value::Int(0)])
            .expect("insert");
    }
    w.commit().expect("commit");
    (dir, s, t)
}

fn lock_all(t: &Arc<dyn Table>, txn: &mut Txn) -> usize {
    let mut c = t
        .scan(
            txn,
            ScanRequest {
                index_id: 1,
                range: KeyRange::all(),
                reverse: false,
                columns: vec![0],
                lock: LockMode::Exclusive,
                wait: WaitPolicy::Wait,
            },
        )
        .expect("scan");
    let mut n = 0;
    while c.next(txn).expect("next").is_some() {
        n += 1;
    }
    n
}

fn status(s: &Storage, name: &str) -> u64 {
    s.status()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
        .expect("status variable")
}

#[test]
fn lock_memory_per_locked_row() {
    let _serial = SERIAL.lock().expect("serial");
    const N: i64 = 20_000;
    for isolation in [
        IsolationLevel::ReadCommitted,
        IsolationLevel::RepeatableRead,
    ] {
        let (_d, s, t) = setup(N);
        while s.purge_now() > 0 {}
        let mut txn = s.begin(TxnOptions {
            isolation,
            ..Default::default()
        });
        let before = LIVE.load(Ordering::SeqCst);
        let n = lock_all(&t, &mut txn);
        let after = LIVE.load(Ordering::SeqCst);
        assert_eq!(n as i64, N);
        let per_row = (after - before) as f64 / N as f64;
        let table_bytes = status(&s, "Basalt_lock_memory_bytes") as f64 / N as f64;
        println!(
            "lock memory {isolation:?}: {per_row:.0} bytes per locked row in all \
             (lock table's own estimate {table_bytes:.0} bytes per row; record + \
             gap lock per row under REPEATABLE READ)"
        );
        assert!(per_row < 1024.0, "{per_row} bytes per locked row");
        txn.commit().expect("commit");
        assert_eq!(status(&s, "Basalt_locked_rows"), 0);
    }
}

#[test]
fn deadlock_detection_time() {
    let _serial = SERIAL.lock().expect("serial");
    let (_d, s, t) = setup(2);
    let opts = TxnOptions {
        lock_wait_timeout: Duration::from_secs(20),
        ..Default::default()
    };
    let get = |t: &Arc<dyn Table>, txn: &mut Txn, id: i64| {
        t.get(
            txn,
            &[Value::Int(id)],
            LockMode::Exclusive,
            WaitPolicy::Wait,
        )
        .map(|_| ())
    };
    let mut times = Vec::new();
    for _ in 0..50 {
        let mut a = s.begin(opts.clone());
        let mut b = s.begin(opts.clone());
        get(&t, &mut a, 0).expect("a locks 0");
        get(&t, &mut b, 1).expect("b locks 1");
        let t2 = t.clone();
        let waiter = std::thread::spawn(move || {
            let r = get(&t2, &mut a, 1);
            (r, a)
        });
        // Wait until a's wait is registered.
        while status(&s, "Innodb_row_lock_current_waits") == 0 {
            std::thread::yield_now();
        }
        let started = Instant::now();
        let e = get(&t, &mut b, 0).expect_err("deadlock");
        times.push(started.elapsed());
        assert!(matches!(e, StorageError::Deadlock));
        b.rollback().expect("rollback");
        let (r, a) = waiter.join().expect("waiter");
        r.expect("a gets row 1");
        a.commit().expect("commit");
    }
    times.sort();
    let median = times[times.len() / 2];
    let search_ns = status(&s, "Basalt_deadlock_check_ns");
    println!(
        "deadlock detection: median {:.1} µs from the closing request to its error \
         (max {:.1} µs); waits-for search {:.2} µs on average",
        median.as_secs_f64() * 1e6,
        times[times.len() - 1].as_secs_f64() * 1e6,
        search_ns as f64 / 1000.0 / times.len() as f64
    );
    assert!(median < Duration::from_millis(50));
}
