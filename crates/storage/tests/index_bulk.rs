//! ALTER TABLE ... ADD INDEX through the storage facade with a sort budget small
//! enough that the fill spills runs to the scratch directory: the index is complete
//! (CHECK TABLE finds nothing) and keeps working under later DML; a UNIQUE index
//! finds duplicates that fall in different runs; run files never outlive the build.
//!
//! Every test here sets the same small budget (`BASALT_INDEX_SORT_BUFFER`), which
//! is process-wide.

use basalt_common::*;
use basalt_storage::io::sim::SimFileSystem;
use basalt_storage::io::{File, FileSystem, OpenOptions};
use basalt_storage::{
    AlterSpec, KeyRange, LockMode, ScanRequest, Storage, StorageConfig, StorageError, Table,
    TxnOptions, WaitPolicy,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

const BUDGET: &str = "65536";
const SORT_DIR: &str = "/data/sort";

/// The simulated file system, counting the files opened in the sort directory.
#[derive(Clone)]
struct Spy {
    inner: SimFileSystem,
    runs: Arc<AtomicUsize>,
}

impl FileSystem for Spy {
    fn open(&self, path: &Path, opts: OpenOptions) -> std::io::Result<Arc<dyn File>> {
        if path.starts_with(SORT_DIR) {
            self.runs.fetch_add(1, Ordering::SeqCst);
        }
        self.inner.open(path, opts)
    }
    fn remove(&self, path: &Path) -> std::io::Result<()> {
        self.inner.remove(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> std::io::Result<()> {
        self.inner.rename(from, to)
    }
    fn exists(&self, path: &Path) -> bool {
        self.inner.exists(path)
    }
    fn create_dir_all(&self, path: &Path) -> std::io::Result<()> {
        self.inner.create_dir_all(path)
    }
    fn list_dir(&self, path: &Path) -> std::io::Result<Vec<PathBuf>> {
        self.inner.list_dir(path)
    }
    fn sync_dir(&self, dir: &Path) -> std::io::Result<()> {
        self.inner.sync_dir(dir)
    }
}

fn spy() -> Spy {
    std::env::set_var("BASALT_INDEX_SORT_BUFFER", BUDGET);
    Spy {
        inner: SimFileSystem::new(11),
        runs: Arc::new(AtomicUsize::new(0)),
    }
}

fn config(fs: &Spy) -> StorageConfig {
    StorageConfig {
        buffer_pool_size: 8 << 20,
        fs: Arc::new(fs.clone()),
        log_segment_size: 4 << 20,
        ..StorageConfig::new("/data")
    }
}

fn column(name: &str, ty: DataType, nullable: bool) -> ColumnDef {
    let mut c = ColumnDef::new(name, ty);
    c.nullable = nullable;
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

fn def(engine: EngineKind) -> TableDef {
    let int = DataType::Int {
        kind: IntKind::Big,
        unsigned: false,
        width: 0,
        zerofill: false,
    };
    let text = DataType::VarChar {
        len: 40,
        collation: Collation::Utf8mb4GeneralCi,
    };
    TableDef {
        id: 0,
        schema: "test".into(),
        name: "t".into(),
        columns: vec![
            column("id", int.clone(), false),
            column("name", text, true),
            column("n", int, false),
        ],
        indexes: vec![index("PRIMARY", IndexKind::Primary, 0)],
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

fn name_of(i: i64) -> Value {
    Value::str(&format!("name {:07}", (i * 7919) % 100_003))
}

fn fill(s: &Arc<Storage>, rows: i64, name: impl Fn(i64) -> Value) -> Arc<dyn Table> {
    let t = s.table("test", "t").expect("table");
    for chunk in (0..rows).collect::<Vec<_>>().chunks(1000) {
        let mut txn = s.begin(TxnOptions::default());
        for &i in chunk {
            t.insert(&mut txn, vec![Value::Int(i), name(i), Value::Int(i % 10)])
                .expect("insert");
        }
        txn.commit().expect("commit");
    }
    t
}

/// Replaces (Some) or deletes (None) the row with primary key `id`.
fn change(t: &Arc<dyn Table>, txn: &mut basalt_storage::Txn, id: i64, new: Option<Row>) {
    let f = t
        .get(
            txn,
            &[Value::Int(id)],
            LockMode::Exclusive,
            WaitPolicy::Wait,
        )
        .expect("get")
        .expect("row");
    match new {
        Some(row) => {
            t.update(txn, &f.handle, &f.row, row).expect("update");
        }
        None => t.delete(txn, &f.handle, &f.row).expect("delete"),
    }
}

fn add_index(s: &Storage, kind: IndexKind) -> Result<(), StorageError> {
    let mut def = (*s.table("test", "t").expect("table").def()).clone();
    def.indexes.push(index("ix_name", kind, 1));
    let spec = AlterSpec {
        def,
        copy: true,
        auto_increment: None,
        add_index: true,
        online: true,
        timeout: Duration::from_secs(30),
        duplicates: None,
    };
    s.alter_table("test", "t", spec, &mut |row, _| Ok::<_, StorageError>(row))
}

/// Ids in the order the new index returns them.
fn by_name(s: &Arc<Storage>) -> Vec<i64> {
    let t = s.table("test", "t").expect("table");
    let id = t.def().indexes.last().expect("index").id;
    let mut txn = s.begin(TxnOptions::default());
    let mut c = t
        .scan(
            &mut txn,
            ScanRequest {
                index_id: id,
                range: KeyRange::all(),
                reverse: false,
                columns: vec![0, 1],
                lock: LockMode::Consistent,
                wait: WaitPolicy::Wait,
            },
        )
        .expect("scan");
    let mut ids = Vec::new();
    while let Some(f) = c.next(&mut txn).expect("next") {
        let Value::Int(i) = f.row[0] else {
            panic!("id {:?}", f.row[0])
        };
        ids.push(i);
    }
    ids
}

fn expected_order(rows: impl Iterator<Item = (i64, Value)>) -> Vec<i64> {
    let mut v: Vec<(String, i64)> = rows.map(|(i, n)| (n.display_lossy(), i)).collect();
    v.sort();
    v.into_iter().map(|(_, i)| i).collect()
}

fn assert_checked(s: &Storage) {
    let report = s
        .check_table("test", "t", Duration::from_secs(30))
        .expect("check");
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}

fn sort_files(fs: &Spy) -> Vec<PathBuf> {
    fs.inner.list_dir(Path::new(SORT_DIR)).unwrap_or_default()
}

#[test]
fn spilled_build_is_complete_and_takes_dml() {
    let fs = spy();
    let s = Storage::open(config(&fs)).expect("open");
    s.create_table(def(EngineKind::Basalt)).expect("create");
    let rows = 20_000;
    let t = fill(&s, rows, name_of);
    add_index(&s, IndexKind::NonUnique).expect("add index");
    assert!(fs.runs.load(Ordering::SeqCst) > 3, "the sort spilled runs");
    assert_eq!(sort_files(&fs), Vec::<PathBuf>::new());
    assert_eq!(
        by_name(&s),
        expected_order((0..rows).map(|i| (i, name_of(i))))
    );
    assert_checked(&s);

    let mut txn = s.begin(TxnOptions::default());
    for i in rows..rows + 3000 {
        t.insert(&mut txn, vec![Value::Int(i), name_of(i), Value::Int(0)])
            .expect("insert");
    }
    txn.commit().expect("commit");
    let mut txn = s.begin(TxnOptions::default());
    for i in (0..rows).step_by(3) {
        change(&t, &mut txn, i, None);
    }
    txn.commit().expect("commit");
    let mut txn = s.begin(TxnOptions::default());
    for i in (1..rows).step_by(5).filter(|i| i % 3 != 0) {
        let row = vec![Value::Int(i), Value::str("renamed"), Value::Int(1)];
        change(&t, &mut txn, i, Some(row));
    }
    txn.commit().expect("commit");
    let live = (0..rows + 3000)
        .filter(|i| *i >= rows || i % 3 != 0)
        .map(|i| {
            let renamed = i < rows && i % 5 == 1;
            (
                i,
                if renamed {
                    Value::str("renamed")
                } else {
                    name_of(i)
                },
            )
        });
    assert_eq!(by_name(&s), expected_order(live));
    assert_checked(&s);
    s.shutdown().expect("stop");
}

#[test]
fn unique_duplicates_across_runs_fail_and_leave_the_table() {
    let fs = spy();
    let s = Storage::open(config(&fs)).expect("open");
    s.create_table(def(EngineKind::Basalt)).expect("create");
    let rows = 20_000;
    // The first and the last row share a name: their entries go to different runs.
    let name = move |i: i64| {
        if i == rows - 1 {
            name_of(0)
        } else {
            name_of(i)
        }
    };
    fill(&s, rows, name);
    let e = add_index(&s, IndexKind::Unique).expect_err("duplicate");
    let StorageError::DuplicateKey { entry, key } = &e else {
        panic!("{e:?}")
    };
    assert_eq!((entry.as_str(), key.as_str()), ("name 0000000", "ix_name"));
    assert!(fs.runs.load(Ordering::SeqCst) > 3, "the sort spilled runs");
    assert_eq!(sort_files(&fs), Vec::<PathBuf>::new());
    assert_eq!(s.table("test", "t").expect("t").def().indexes.len(), 1);
    assert_checked(&s);
    // CREATE INDEX fills the same way.
    let e = s
        .create_index("test", "t", index("ix_name", IndexKind::Unique, 1))
        .expect_err("duplicate");
    assert!(
        matches!(&e, StorageError::DuplicateKey { entry, .. } if entry == "name 0000000"),
        "{e:?}"
    );
    assert_eq!(sort_files(&fs), Vec::<PathBuf>::new());
    s.create_index("test", "t", index("ix_n", IndexKind::NonUnique, 2))
        .expect("create index");
    assert_eq!(s.table("test", "t").expect("t").def().indexes.len(), 2);
    assert_checked(&s);

    // NULLs repeat freely in a unique key.
    let t = s.table("test", "t").expect("t");
    let mut txn = s.begin(TxnOptions::default());
    let row = vec![Value::Int(rows - 1), Value::Null, Value::Int(0)];
    change(&t, &mut txn, rows - 1, Some(row));
    t.insert(&mut txn, vec![Value::Int(rows), Value::Null, Value::Int(0)])
        .expect("insert");
    txn.commit().expect("commit");
    add_index(&s, IndexKind::Unique).expect("unique index");
    assert_eq!(by_name(&s).len(), rows as usize + 1);
    assert_checked(&s);
    s.shutdown().expect("stop");
}

#[test]
fn memory_tables_sort_in_memory() {
    let fs = spy();
    let s = Storage::open(config(&fs)).expect("open");
    s.create_table(def(EngineKind::Memory)).expect("create");
    let rows = 5000;
    fill(&s, rows, name_of);
    add_index(&s, IndexKind::Unique).expect("add index");
    assert_eq!(fs.runs.load(Ordering::SeqCst), 0);
    assert_eq!(
        by_name(&s),
        expected_order((0..rows).map(|i| (i, name_of(i))))
    );
    assert_checked(&s);
}

#[test]
fn start_removes_runs_a_crash_left() {
    let fs = spy();
    let s = Storage::open(config(&fs)).expect("open");
    s.shutdown().expect("stop");
    drop(s);
    fs.create_dir_all(Path::new(SORT_DIR)).expect("dir");
    let stale = Path::new(SORT_DIR).join("index-1-2-0.run");
    let opts = OpenOptions {
        create: true,
        direct: false,
    };
    fs.open(&stale, opts)
        .expect("create")
        .write_at(b"left by a crash", 0)
        .expect("write");
    assert_eq!(sort_files(&fs), vec![stale]);
    let _s = Storage::open(config(&fs)).expect("reopen");
    assert_eq!(sort_files(&fs), Vec::<PathBuf>::new());
}
