//! Recovery time: writes about `BASALT_RECOVERY_LOG_MB` (default 1024) MiB of log with
//! checkpoints held off, drops the engine without a clean shutdown (a crash, as far as
//! the log is concerned: everything committed was fsynced), and times the restart.
//! Run with `cargo bench -p basalt-storage --bench recovery`.

use basalt_common::*;
use basalt_storage::*;
use std::time::{Duration, Instant};

fn def() -> TableDef {
    let int = |n: &str| {
        let mut c = ColumnDef::new(
            n,
            DataType::Int {
                kind: IntKind::Big,
                unsigned: false,
                width: 0,
                zerofill: false,
            },
        );
        c.nullable = false;
        c
    };
    let pad = ColumnDef::new(
        "pad",
        DataType::VarChar {
            len: 1000,
            collation: Collation::Binary,
        },
    );
    let ix = |name: &str, kind, col| IndexDef {
        id: 0,
        name: name.into(),
        kind,
        columns: vec![IndexColumn {
            column: col,
            prefix_len: None,
            descending: false,
        }],
        comment: String::new(),
    };
    TableDef {
        id: 0,
        schema: "test".into(),
        name: "t".into(),
        columns: vec![int("id"), int("k"), pad],
        indexes: vec![
            ix("PRIMARY", IndexKind::Primary, 0),
            ix("k", IndexKind::NonUnique, 1),
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

fn logged(s: &Storage) -> u64 {
    s.status()
        .iter()
        .find(|(n, _)| *n == "Innodb_os_log_written")
        .map_or(0, |(_, v)| *v)
}

fn main() {
    let target_mb: u64 = std::env::var("BASALT_RECOVERY_LOG_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024);
    let dir =
        tempfile::tempdir_in(std::env::var("BASALT_BENCH_DIR").unwrap_or_else(|_| "/tmp".into()))
            .expect("tempdir");
    let mut cfg = StorageConfig::new(dir.path());
    cfg.buffer_pool_size = 256 << 20;
    cfg.flush_log_at_trx_commit = 2;
    cfg.checkpoint_interval = Duration::from_secs(3600 * 24);
    cfg.checkpoint_log_bytes = u64::MAX;
    let load = Instant::now();
    let rows_per_txn = 500;
    let mut id = 0i64;
    {
        let s = Storage::open(cfg.clone()).expect("open");
        let t = s.create_table(def()).expect("create");
        let table_rows = 200_000i64;
        while logged(&s) < target_mb << 20 {
            let mut txn = s.begin(TxnOptions::default());
            for _ in 0..rows_per_txn {
                let key = id % table_rows;
                let row = vec![
                    Value::Int(key),
                    Value::Int(id),
                    Value::Bytes(vec![b'x'; 400]),
                ];
                if id < table_rows {
                    t.insert(&mut txn, row).expect("insert");
                } else {
                    let f = t
                        .get(
                            &mut txn,
                            &[Value::Int(key)],
                            LockMode::Exclusive,
                            WaitPolicy::Wait,
                        )
                        .expect("get")
                        .expect("row");
                    t.update(&mut txn, &f.handle, &f.row, row).expect("update");
                }
                id += 1;
            }
            txn.commit().expect("commit");
        }
        // Make the last commits durable, then "crash": no shutdown, no checkpoint.
        let mut txn = s.begin(TxnOptions::default());
        let f = t
            .get(
                &mut txn,
                &[Value::Int(0)],
                LockMode::Exclusive,
                WaitPolicy::Wait,
            )
            .expect("get")
            .expect("row");
        t.update(&mut txn, &f.handle, &f.row, f.row.clone())
            .expect("update");
        std::thread::sleep(Duration::from_millis(1500));
        println!(
            "wrote {} MiB of log in {:?} ({} row changes, {:.0} rows/s)",
            logged(&s) >> 20,
            load.elapsed(),
            id,
            id as f64 / load.elapsed().as_secs_f64()
        );
    }
    let start = Instant::now();
    let s = Storage::open(cfg).expect("recover");
    let took = start.elapsed();
    let rows = s.table("test", "t").expect("t").stats().rows;
    println!("recovery of {target_mb} MiB of log: {took:?} ({rows} rows after recovery)");
}
