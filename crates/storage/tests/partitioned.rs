//! Partitioned tables through the storage API with a test router (RANGE on the
//! first column: below 10, below 100, the rest): rows routed and read back in key
//! order across partitions by every index, point reads and equality ranges
//! pruned to one partition, rows moving on update, partition views, duplicate
//! key texts without the hidden column, partition row deletion, and the
//! partitioning surviving a restart.

use basalt_common::partition::*;
use basalt_common::{
    Charset, Collation, ColumnDef, DataType, EngineKind, IndexColumn, IndexDef, IndexKind, IntKind,
    TableDef, Value,
};
use basalt_storage::partition::{PartitionRouter, RouterFactory};
use basalt_storage::*;
use std::sync::Arc;

struct Below {
    bounds: Vec<(i64, u32)>,
    cols: Vec<usize>,
}

impl PartitionRouter for Below {
    fn route(&self, row: &[Value]) -> Result<u32> {
        let v = match &row[0] {
            Value::Int(v) => *v,
            _ => i64::MIN,
        };
        self.bounds
            .iter()
            .find(|(b, _)| v < *b)
            .map(|(_, id)| *id)
            .ok_or_else(|| StorageError::NoPartitionForValue(v.to_string()))
    }

    fn columns(&self) -> &[usize] {
        &self.cols
    }
}

struct Factory;

impl RouterFactory for Factory {
    fn router(&self, def: &TableDef) -> Result<Arc<dyn PartitionRouter>> {
        let spec = def.partitioning.as_ref().expect("partitioned");
        let bounds = spec
            .parts
            .iter()
            .map(|p| match &p.values {
                PartitionValues::LessThan(b) => match &b[0] {
                    PartitionBound::Value(Value::Int(v)) => (*v, p.id),
                    _ => (i64::MAX, p.id),
                },
                _ => (i64::MAX, p.id),
            })
            .collect();
        Ok(Arc::new(Below {
            bounds,
            cols: vec![0],
        }))
    }
}

fn col(name: &str, nullable: bool) -> ColumnDef {
    let mut c = ColumnDef::new(
        name,
        DataType::Int {
            kind: IntKind::Big,
            unsigned: false,
            width: 0,
            zerofill: false,
        },
    );
    c.nullable = nullable;
    c
}

fn ix(name: &str, kind: IndexKind, cols: &[usize]) -> IndexDef {
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

fn part(id: u32, name: &str, below: Option<i64>) -> PartitionDef {
    PartitionDef {
        id,
        name: name.into(),
        values: PartitionValues::LessThan(vec![match below {
            Some(v) => PartitionBound::Value(Value::Int(v)),
            None => PartitionBound::MaxValue,
        }]),
        comment: String::new(),
    }
}

fn def(primary: bool) -> TableDef {
    let clustered = if primary {
        ix("PRIMARY", IndexKind::Primary, &[0])
    } else {
        ix("PRIMARY", IndexKind::Primary, &[])
    };
    TableDef {
        id: 0,
        schema: "d".into(),
        name: if primary { "t" } else { "h" }.into(),
        columns: vec![col("a", !primary), col("b", true)],
        indexes: vec![clustered, ix("kb", IndexKind::NonUnique, &[1])],
        engine: EngineKind::Basalt,
        charset: Charset::Utf8mb4,
        collation: Collation::Utf8mb4GeneralCi,
        comment: String::new(),
        auto_increment_start: 1,
        next_index_id: 0,
        checks: Vec::new(),
        options: Vec::new(),
        foreign_keys: Vec::new(),
        partitioning: Some(PartitionSpec {
            kind: PartitionKind::Range,
            linear: false,
            columns_form: false,
            expr: "`a`".into(),
            columns: Vec::new(),
            key_algorithm: None,
            listed: true,
            parts: vec![
                part(0, "p0", Some(10)),
                part(1, "p1", Some(100)),
                part(2, "p2", None),
            ],
            next_id: 3,
        }),
    }
}

fn open(dir: &std::path::Path) -> Arc<Storage> {
    let s = Storage::open(StorageConfig::new(dir)).expect("open");
    s.set_partition_routers(Arc::new(Factory));
    s
}

fn scan(
    t: &Arc<dyn Table>,
    s: &Arc<Storage>,
    index_id: u32,
    range: KeyRange,
    reverse: bool,
) -> Vec<(i64, i64)> {
    let mut txn = s.begin(TxnOptions::default());
    let mut c = t
        .scan(
            &mut txn,
            ScanRequest {
                index_id,
                range,
                reverse,
                columns: vec![0, 1],
                lock: LockMode::Consistent,
                wait: WaitPolicy::Wait,
            },
        )
        .expect("scan");
    let mut out = Vec::new();
    while let Some(f) = c.next(&mut txn).expect("next") {
        assert_eq!(f.row.len(), 2, "logical rows");
        let int = |v: &Value| match v {
            Value::Int(i) => *i,
            other => panic!("int expected, got {other:?}"),
        };
        out.push((int(&f.row[0]), int(&f.row[1])));
    }
    out
}

#[test]
fn rows_route_read_move_and_survive_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = open(dir.path());
    s.create_database("d", Collation::Utf8mb4GeneralCi)
        .expect("db");
    let t = s.create_table(def(true)).expect("create");
    assert_eq!(t.def().columns.len(), 2, "the hidden column stays hidden");
    assert_eq!(t.def().indexes[1].columns.len(), 1);
    let mut txn = s.begin(TxnOptions::default());
    for (a, b) in [(1, 30), (50, 20), (5, 10), (500, 25), (99, 15), (-3, 5)] {
        t.insert(&mut txn, vec![Value::Int(a), Value::Int(b)])
            .expect("insert");
    }
    let dup = t.insert(&mut txn, vec![Value::Int(50), Value::Int(1)]);
    assert!(
        matches!(&dup, Err(StorageError::DuplicateKey { entry, key }) if entry == "50" && key == "PRIMARY"),
        "{dup:?}"
    );
    txn.commit().expect("commit");

    let by_pk = scan(&t, &s, 1, KeyRange::all(), false);
    assert_eq!(
        by_pk,
        [(-3, 5), (1, 30), (5, 10), (50, 20), (99, 15), (500, 25)]
    );
    let by_b = scan(&t, &s, 2, KeyRange::all(), false);
    let bs: Vec<i64> = by_b.iter().map(|r| r.1).collect();
    assert_eq!(bs, [5, 10, 15, 20, 25, 30]);
    let back = scan(&t, &s, 1, KeyRange::all(), true);
    assert_eq!(back.first(), Some(&(500, 25)));
    assert_eq!(back.last(), Some(&(-3, 5)));

    // Pruning: an equality on the partitioning column reads one partition.
    let eq = KeyRange::eq(vec![Value::Int(50)]);
    assert_eq!(t.partitions_read(1, &eq), Some(vec![1]));
    assert_eq!(t.partitions_read(1, &KeyRange::all()), Some(vec![0, 1, 2]));
    assert_eq!(scan(&t, &s, 1, eq, false), [(50, 20)]);

    let mut txn = s.begin(TxnOptions::default());
    let got = t
        .get(
            &mut txn,
            &[Value::Int(99)],
            LockMode::Exclusive,
            WaitPolicy::Wait,
        )
        .expect("get")
        .expect("row");
    // 99 moves from p1 to p2.
    t.update(
        &mut txn,
        &got.handle,
        &got.row,
        vec![Value::Int(150), Value::Int(15)],
    )
    .expect("update");
    txn.commit().expect("commit");
    let p2 = t.partition_view(&[2], true).expect("view");
    assert_eq!(
        scan(&p2, &s, 1, KeyRange::all(), false),
        [(150, 15), (500, 25)]
    );
    let mut txn = s.begin(TxnOptions::default());
    let outside = p2.insert(&mut txn, vec![Value::Int(7), Value::Int(0)]);
    assert!(
        matches!(outside, Err(StorageError::RowOutsidePartitionSet)),
        "{outside:?}"
    );
    txn.rollback().expect("rollback");

    assert_eq!(s.delete_partition_rows("d", "t", &[0]).expect("delete"), 3);
    assert_eq!(
        scan(&t, &s, 1, KeyRange::all(), false),
        [(50, 20), (150, 15), (500, 25)]
    );
    s.shutdown().expect("shutdown");
    drop((t, p2, s));

    let s = open(dir.path());
    let t = s.table("d", "t").expect("table");
    assert_eq!(
        t.def().partitioning.as_ref().map(|p| p.parts.len()),
        Some(3)
    );
    assert_eq!(
        scan(&t, &s, 2, KeyRange::all(), false),
        [(150, 15), (50, 20), (500, 25)]
    );
    let mut txn = s.begin(TxnOptions::default());
    let none = t.insert(&mut txn, vec![Value::Int(1), Value::Int(1)]);
    assert!(none.is_ok());
    txn.commit().expect("commit");
}

#[test]
fn table_without_primary_key_filters_by_partition() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = open(dir.path());
    s.create_database("d", Collation::Utf8mb4GeneralCi)
        .expect("db");
    let t = s.create_table(def(false)).expect("create");
    let mut txn = s.begin(TxnOptions::default());
    for (a, b) in [(1, 1), (50, 2), (500, 3), (2, 4)] {
        t.insert(&mut txn, vec![Value::Int(a), Value::Int(b)])
            .expect("insert");
    }
    txn.commit().expect("commit");
    let p0 = t.partition_view(&[0], true).expect("view");
    let mut rows = scan(&p0, &s, 1, KeyRange::all(), false);
    rows.sort();
    assert_eq!(rows, [(1, 1), (2, 4)]);
    assert_eq!(scan(&t, &s, 1, KeyRange::all(), false).len(), 4);
    assert_eq!(scan(&t, &s, 2, KeyRange::all(), false).len(), 4);
}
