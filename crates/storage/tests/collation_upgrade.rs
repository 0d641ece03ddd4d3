//! Opening a data directory whose catalog predates MariaDB collation weights (format
//! 1): tables with string index keys are rebuilt so their indexes agree with today's
//! comparisons, and a unique key the new weights would break stops the start without
//! touching the data.
//!
//! The old keys are made by writing the rows under `utf8mb4_bin` and then rewriting
//! the catalog to say `utf8mb4_general_ci` at format 1: exactly the situation of a
//! format 1 table whose keys were built by a different comparison than today's.

use basalt_common::*;
use basalt_storage::io::sim::SimFileSystem;
use basalt_storage::io::{FileSystem, OpenOptions};
use basalt_storage::{
    KeyRange, LockMode, ScanRequest, Storage, StorageConfig, StorageError, TxnOptions, WaitPolicy,
};
use std::path::Path;
use std::sync::Arc;

const CATALOG: &str = "/data/catalog.json";

fn def(unique: bool) -> TableDef {
    let mut id = ColumnDef::new(
        "id",
        DataType::Int {
            kind: IntKind::Big,
            unsigned: false,
            width: 0,
            zerofill: false,
        },
    );
    id.nullable = false;
    let name = ColumnDef::new(
        "name",
        DataType::VarChar {
            len: 20,
            collation: Collation::Utf8mb4Bin,
        },
    );
    let index = |id, name: &str, kind, column| IndexDef {
        id,
        name: name.into(),
        kind,
        columns: vec![IndexColumn {
            column,
            prefix_len: None,
            descending: false,
        }],
        comment: String::new(),
    };
    let kind = if unique {
        IndexKind::Unique
    } else {
        IndexKind::NonUnique
    };
    TableDef {
        id: 0,
        schema: "test".into(),
        name: "t".into(),
        columns: vec![id, name],
        indexes: vec![
            index(0, "PRIMARY", IndexKind::Primary, 0),
            index(0, "name", kind, 1),
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
        buffer_pool_size: 1 << 20,
        fs: Arc::new(fs.clone()),
        log_segment_size: 1 << 20,
        ..StorageConfig::new("/data")
    }
}

fn read_catalog(fs: &SimFileSystem) -> String {
    let f = fs
        .open(Path::new(CATALOG), OpenOptions::default())
        .expect("catalog");
    let mut buf = vec![0u8; f.len().expect("len") as usize];
    f.read_at(&mut buf, 0).expect("read");
    String::from_utf8(buf).expect("json")
}

fn write_catalog(fs: &SimFileSystem, text: &str) {
    let f = fs
        .open(Path::new(CATALOG), OpenOptions::default())
        .expect("catalog");
    f.set_len(0).expect("truncate");
    f.write_at(text.as_bytes(), 0).expect("write");
    f.sync_data().expect("sync");
}

/// A data directory holding `names` under utf8mb4_bin keys, whose catalog then says
/// format 1 and utf8mb4_general_ci.
fn old_directory(unique: bool, names: &[&str]) -> SimFileSystem {
    let fs = SimFileSystem::new(7);
    let s = Storage::open(config(&fs)).expect("open");
    s.create_table(def(unique)).expect("create");
    let t = s.table("test", "t").expect("table");
    for (i, n) in names.iter().enumerate() {
        let mut txn = s.begin(TxnOptions::default());
        t.insert(&mut txn, vec![Value::Int(i as i64), Value::str(n)])
            .expect("insert");
        txn.commit().expect("commit");
    }
    s.shutdown().expect("clean stop");
    drop((t, s));
    let text = read_catalog(&fs);
    let old = text
        .replace("\"format\": 2", "\"format\": 1")
        .replace("\"Utf8mb4Bin\"", "\"Utf8mb4GeneralCi\"");
    assert_ne!(old, text);
    write_catalog(&fs, &old);
    fs
}

/// The ids of rows whose `name` the secondary index finds equal to `key`.
fn lookup(s: &Arc<Storage>, key: &str) -> Vec<i64> {
    let t = s.table("test", "t").expect("table");
    let mut txn = s.begin(TxnOptions::default());
    let mut c = t
        .scan(
            &mut txn,
            ScanRequest {
                index_id: 2,
                range: KeyRange::eq(vec![Value::str(key)]),
                reverse: false,
                columns: vec![0, 1],
                lock: LockMode::Consistent,
                wait: WaitPolicy::Wait,
            },
        )
        .expect("scan");
    let mut ids = Vec::new();
    while let Some(f) = c.next(&mut txn).expect("next") {
        let Value::Int(id) = f.row[0] else {
            panic!("int expected: {:?}", f.row)
        };
        ids.push(id);
    }
    ids.sort();
    ids
}

#[test]
fn old_catalog_tables_are_rebuilt_with_mariadb_keys() {
    let names = ["Zoë", "José", "zebra", "Éclair", "b", "ÉCLAIR", "ß"];
    let fs = old_directory(false, &names);
    let s = Storage::open(config(&fs)).expect("reopen upgrades");
    assert!(read_catalog(&fs).contains("\"format\": 2"));
    let def = s.table("test", "t").expect("table").def();
    assert_ne!(def.id, 1, "the table was copied to a new file");
    assert_eq!(lookup(&s, "jose"), vec![1]);
    assert_eq!(lookup(&s, "eclair"), vec![3, 5]);
    assert_eq!(lookup(&s, "ZOE"), vec![0]);
    assert_eq!(lookup(&s, "s"), vec![6]);
    // The whole index is in the new order: a full scan comes back sorted by it.
    let t = s.table("test", "t").expect("table");
    let mut txn = s.begin(TxnOptions::default());
    let mut c = t
        .scan(
            &mut txn,
            ScanRequest {
                index_id: 2,
                range: KeyRange::all(),
                reverse: false,
                columns: vec![1],
                lock: LockMode::Consistent,
                wait: WaitPolicy::Wait,
            },
        )
        .expect("scan");
    let mut seen = Vec::new();
    while let Some(f) = c.next(&mut txn).expect("next") {
        seen.push(f.row[1].clone());
    }
    assert_eq!(seen.len(), names.len());
    let coll = Collation::Utf8mb4GeneralCi;
    let bytes = |v: &Value| match v {
        Value::Bytes(b) => b.clone(),
        other => panic!("string expected: {other:?}"),
    };
    for w in seen.windows(2) {
        assert_ne!(
            coll.compare(&bytes(&w[0]), &bytes(&w[1])),
            std::cmp::Ordering::Greater,
            "{w:?}"
        );
    }
    // A second start finds format 2 and rebuilds nothing.
    drop((c, txn, t));
    s.shutdown().expect("stop");
    drop(s);
    let s = Storage::open(config(&fs)).expect("third start");
    assert_eq!(s.table("test", "t").expect("table").def().id, def.id);
}

#[test]
fn unique_conflict_under_new_weights_fails_the_start_and_keeps_the_rows() {
    let fs = old_directory(true, &["José", "Jose", "x"]);
    let before = read_catalog(&fs);
    let e = match Storage::open(config(&fs)) {
        Err(e) => e,
        Ok(_) => panic!("the start must fail"),
    };
    let msg = e.to_string();
    assert!(
        msg.contains("`test`.`t`") && msg.contains("'name'"),
        "{msg}"
    );
    assert!(matches!(e, StorageError::Invalid(_)), "{e:?}");
    // Nothing changed: the catalog is the old one, and with the old collation back
    // every row is there.
    assert_eq!(read_catalog(&fs), before);
    write_catalog(
        &fs,
        &before.replace("\"Utf8mb4GeneralCi\"", "\"Utf8mb4Bin\""),
    );
    let s = Storage::open(config(&fs)).expect("opens with the old collation");
    assert_eq!(lookup(&s, "Jose"), vec![1]);
    assert_eq!(lookup(&s, "José"), vec![0]);
}
