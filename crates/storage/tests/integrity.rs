//! Damage the engine must not hide, on the crash-simulating file system: a damaged
//! table header (meta slot) and a damaged record at the end of the log. Neither may
//! roll a table back or drop acknowledged commits without saying so.

use basalt_common::*;
use basalt_storage::io::sim::SimFileSystem;
use basalt_storage::io::FileSystem;
use basalt_storage::page::{check, PageType, PAGE_SIZE};
use basalt_storage::{
    KeyRange, LockMode, ScanRequest, Storage, StorageConfig, StorageError, TxnOptions, WaitPolicy,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const TABLE_FILE: &str = "/data/tables/1.bdt";
const LOG_DIR: &str = "/data/log";
const SEGMENT: u64 = 1 << 20;

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

fn def() -> TableDef {
    TableDef {
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
        buffer_pool_size: 1 << 20,
        fs: Arc::new(fs.clone()),
        log_segment_size: SEGMENT,
        ..StorageConfig::new("/data")
    }
}

fn insert(s: &Arc<Storage>, id: i64, v: i64) -> Result<(), StorageError> {
    let t = s.table("test", "t").expect("table");
    let mut txn = s.begin(TxnOptions::default());
    t.insert(&mut txn, vec![Value::Int(id), Value::Int(v)])?;
    txn.commit()
}

/// Every row (id -> v), or the error reading it.
fn rows(s: &Arc<Storage>) -> Result<BTreeMap<i64, i64>, StorageError> {
    let t = s.table("test", "t").expect("table");
    let mut txn = s.begin(TxnOptions::default());
    let mut c = t.scan(
        &mut txn,
        ScanRequest {
            index_id: 1,
            range: KeyRange::all(),
            reverse: false,
            columns: vec![0, 1],
            lock: LockMode::Consistent,
            wait: WaitPolicy::Wait,
        },
    )?;
    let mut m = BTreeMap::new();
    while let Some(f) = c.next(&mut txn)? {
        let (Value::Int(id), Value::Int(v)) = (&f.row[0], &f.row[1]) else {
            panic!("ints expected: {:?}", f.row)
        };
        m.insert(*id, *v);
    }
    Ok(m)
}

fn assert_1877(e: StorageError, page: u64) {
    let m: MySqlError = e.into();
    assert_eq!(m.code, 1877, "{m}");
    assert!(
        m.message.contains("1.bdt") && m.message.contains(&format!("page {page} ")),
        "{}",
        m.message
    );
}

/// Meta slots of the durable table file: (slot, checkpoint sequence) of each valid one.
fn valid_metas(fs: &SimFileSystem) -> Vec<(u64, u64)> {
    let image = fs.durable_image(Path::new(TABLE_FILE)).expect("table file");
    (0..2u64)
        .filter_map(|slot| {
            let page = image.get(slot as usize * PAGE_SIZE..(slot as usize + 1) * PAGE_SIZE)?;
            check(page, &[PageType::Meta], slot as u32).ok()?;
            Some((slot, u64::from_le_bytes(page[8..16].try_into().ok()?)))
        })
        .collect()
}

#[test]
fn damaged_newest_table_header_makes_the_table_fail_with_1877() {
    let fs = SimFileSystem::new(1);
    let s = Storage::open(config(&fs)).expect("open");
    s.create_table(def()).expect("create");
    for id in 1..=3 {
        insert(&s, id, id * 10).expect("insert");
    }
    s.shutdown().expect("clean stop");
    drop(s);
    let (newest, _) = *valid_metas(&fs)
        .iter()
        .max_by_key(|(_, seq)| *seq)
        .expect("a valid meta slot");
    fs.flip_bit(Path::new(TABLE_FILE), newest * PAGE_SIZE as u64 + 100, 0)
        .expect("flip");
    // The older copy predates the three rows and the log no longer holds them: the
    // table must fail, not come back empty and accept duplicate keys.
    let s = Storage::open(config(&fs)).expect("the server still starts");
    assert_1877(rows(&s).expect_err("the table is unavailable"), newest);
    assert_1877(insert(&s, 1, 99).expect_err("no duplicate key"), newest);
    s.drop_table("test", "t")
        .expect("a broken table can be dropped");
}

/// Committed rows, then a checkpoint interrupted after `halt` I/O operations by a
/// power loss; returns the file system, the acknowledged rows and the I/O count.
fn interrupted_checkpoint(halt: Option<u64>) -> (SimFileSystem, BTreeMap<i64, i64>, u64) {
    let fs = SimFileSystem::new(5);
    let s = Storage::open(config(&fs)).expect("open");
    s.create_table(def()).expect("create");
    let mut acked = BTreeMap::new();
    for id in 0..200 {
        insert(&s, id, id).expect("insert");
        acked.insert(id, id);
    }
    s.checkpoint().expect("first checkpoint");
    for id in 200..400 {
        insert(&s, id, -id).expect("insert");
        acked.insert(id, -id);
    }
    let before = fs.counters().ops;
    fs.halt_after_ops(halt);
    let _ = s.checkpoint();
    let ops = fs.counters().ops - before;
    fs.crash();
    drop(s);
    (fs, acked, ops)
}

#[test]
fn damaged_newest_table_header_after_a_crash_is_replayed_or_refused() {
    // Crash at every point of a checkpoint, then damage the newest meta slot. The
    // older one may be used only while the log still holds everything since it (the
    // crash came before the log's checkpoint record moved): then every row is back.
    // Otherwise the table fails. Never is a row silently missing.
    let (_, _, total) = interrupted_checkpoint(None);
    let (mut replayed, mut refused) = (0, 0);
    for n in 0..=total + 2 {
        let (fs, acked, _) = interrupted_checkpoint(Some(n));
        let metas = valid_metas(&fs);
        let (newest, _) = *metas.iter().max_by_key(|(_, seq)| *seq).expect("a meta");
        fs.flip_bit(Path::new(TABLE_FILE), newest * PAGE_SIZE as u64 + 100, 0)
            .expect("flip");
        let s = Storage::open(config(&fs)).expect("the server starts");
        match rows(&s) {
            Ok(got) => {
                assert_eq!(
                    got, acked,
                    "crash after {n} of {total} I/Os, metas {metas:?}"
                );
                replayed += 1;
            }
            Err(e) => {
                assert_1877(e, newest);
                refused += 1;
            }
        }
    }
    eprintln!("{replayed} crash points replayed, {refused} refused");
    assert!(
        replayed > 0 && refused > 0,
        "{replayed} replayed, {refused} refused"
    );
}

/// Frames (data offset, length) of log segment `path`, walked from its start.
fn frames(fs: &SimFileSystem, path: &Path) -> Vec<(u64, u64)> {
    let image = fs.durable_image(path).expect("segment");
    let seq = u64::from_le_bytes(image[16..24].try_into().expect("8 bytes"));
    let data = SEGMENT - 4096;
    let mut out = Vec::new();
    let mut off = 0u64;
    while off + 32 <= data {
        let at = (4096 + off) as usize;
        let lsn = u64::from_le_bytes(image[at + 8..at + 16].try_into().expect("8 bytes"));
        if lsn != seq * data + off {
            break;
        }
        let len = u32::from_le_bytes(image[at + 4..at + 8].try_into().expect("4 bytes")) as u64;
        let frame = (32 + len).div_ceil(8) * 8;
        out.push((off, frame));
        if image[at + 24] == 0xFF {
            break;
        }
        off += frame;
    }
    out
}

/// The LSN where segment file `path` starts.
fn seq_start(fs: &SimFileSystem, path: &Path) -> u64 {
    let image = fs.durable_image(path).expect("segment");
    u64::from_le_bytes(image[16..24].try_into().expect("8 bytes")) * (SEGMENT - 4096)
}

/// Runs `f` and returns its result with what it logged (WARN and above).
fn logged<R>(f: impl FnOnce() -> R) -> (R, String) {
    #[derive(Clone, Default)]
    struct Buf(Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("log buffer").extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buf = Buf::default();
    let writer = buf.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let r = tracing::subscriber::with_default(subscriber, f);
    let text = String::from_utf8_lossy(&buf.0.lock().expect("log buffer")).into_owned();
    (r, text)
}

/// The segment holding the end of the log (the highest-numbered one with frames).
fn newest_segment(fs: &SimFileSystem) -> (PathBuf, Vec<(u64, u64)>) {
    let mut segs: Vec<PathBuf> = fs
        .list_dir(Path::new(LOG_DIR))
        .expect("log dir")
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "seg"))
        .collect();
    segs.sort();
    segs.into_iter()
        .rev()
        .map(|p| {
            let f = frames(fs, &p);
            (p, f)
        })
        .find(|(_, f)| !f.is_empty())
        .expect("a segment with frames")
}

/// 30 acknowledged single-row commits, then a power loss (everything was synced).
fn acked_commits() -> (SimFileSystem, BTreeMap<i64, i64>) {
    let fs = SimFileSystem::new(3);
    let s = Storage::open(config(&fs)).expect("open");
    s.create_table(def()).expect("create");
    let mut acked = BTreeMap::new();
    for id in 0..30 {
        insert(&s, id, id + 100).expect("insert");
        acked.insert(id, id + 100);
    }
    fs.crash();
    drop(s);
    (fs, acked)
}

#[test]
fn damaged_log_record_followed_by_valid_ones_refuses_to_start() {
    let (fs, mut acked) = acked_commits();
    let (seg, frames) = newest_segment(&fs);
    // The last transaction is a CHANGE and a COMMIT record, both within the last 200
    // bytes of the log; damage the CHANGE, so a valid COMMIT follows it.
    let (change, change_len) = frames[frames.len() - 2];
    let (commit, commit_len) = frames[frames.len() - 1];
    assert!(commit + commit_len - change <= 200, "{frames:?}");
    fs.flip_bit(&seg, 4096 + change + change_len - 9, 2)
        .expect("flip");
    let refused = |fs: &SimFileSystem| match Storage::open(config(fs)) {
        Ok(_) => panic!("recovery silently dropped a commit after the damage"),
        Err(e) => e.to_string(),
    };
    let msg = refused(&fs);
    assert!(
        msg.contains("(1 of them") && msg.contains("--discard-damaged-log-tail"),
        "{msg}"
    );
    assert_eq!(refused(&fs), msg, "a refused start changes nothing");
    // The operator accepts the loss: the log is cut at the damage.
    let s = Storage::open(StorageConfig {
        discard_damaged_log_tail: true,
        ..config(&fs)
    })
    .expect("start accepting the loss");
    acked.remove(&29);
    assert_eq!(rows(&s).expect("rows"), acked);
}

#[test]
fn damaged_last_log_record_is_cut_and_the_rest_recovered() {
    for field in ["payload", "lsn"] {
        let (fs, mut acked) = acked_commits();
        let (seg, frames) = newest_segment(&fs);
        let (commit, commit_len) = frames[frames.len() - 1];
        // A flip in the payload fails the checksum; one in the LSN field makes the
        // frame look unwritten, but the rest of its block was written (zeros).
        let at = match field {
            "payload" => commit + commit_len - 1 - 1,
            _ => commit + 9,
        };
        fs.flip_bit(&seg, 4096 + at, 0).expect("flip");
        let (start, end) = (
            seq_start(&fs, &seg) + commit,
            seq_start(&fs, &seg) + commit + 40,
        );
        let (s, log) = logged(|| Storage::open(config(&fs)));
        let s = s.expect("a damaged last record is cut");
        assert!(
            log.contains("WARN")
                && log.contains(&format!("discarding LSN {start}..{end} (1 record)")),
            "the cut of {start}..{end} is logged: {log}"
        );
        // The last transaction lost its commit record: it is undone, nothing else.
        acked.remove(&29);
        assert_eq!(rows(&s).expect("rows"), acked, "flip in the {field}");
    }
}

#[test]
fn rows_stay_visible_after_a_crash_right_after_a_restart() {
    // Recovery cuts the log; the next transaction id must survive the cut, or the
    // run after a crash hands out ids below those the rows carry and cannot see them.
    let fs = SimFileSystem::new(4);
    let s = Storage::open(config(&fs)).expect("open");
    s.create_table(def()).expect("create");
    for id in 0..5 {
        insert(&s, id, id).expect("insert");
    }
    s.shutdown().expect("clean stop");
    drop(s);
    for round in 0..3 {
        let s = Storage::open(config(&fs)).expect("reopen");
        assert_eq!(rows(&s).expect("rows").len(), 5, "round {round}");
        fs.crash();
        drop(s);
    }
    let s = Storage::open(config(&fs)).expect("reopen");
    insert(&s, 5, 5).expect("insert after the crashes");
    assert_eq!(rows(&s).expect("rows").len(), 6);
}
