//! The applier against an in-process engine: tables made with SQL, events encoded
//! with the primary's `EventWriter` from a table definition (the local one, or a
//! changed copy standing for a different primary), decoded with `replica::decode`,
//! applied in a storage transaction, then the rows read back through storage.

use super::*;
use crate::engine::{Engine, GlobalConfig};
use basalt_common::{DataType, IntKind, Row, TableDef, Value};
use basalt_replication::event::{EventWriter, RowChange, RowImage, RowMetadata};
use basalt_replication::replica::decode::{Event, RowEvent, RowsEvent, TableMap};
use basalt_replication::replica::Decoder;
use basalt_storage::{KeyRange, LockMode, ScanRequest, Storage, TxnOptions, WaitPolicy};
use std::sync::Arc;

pub(super) struct Fixture {
    pub storage: Arc<Storage>,
    _engine: Arc<Engine>,
}

/// A scratch engine after running `sql` (CREATE DATABASE d is run first).
pub(super) fn fixture(sql: &[&str]) -> Fixture {
    let storage = crate::exec::test_support::scratch_storage();
    let engine = Engine::new(storage.clone(), GlobalConfig::default());
    let mut s = engine.new_session(1, "root", "localhost");
    for q in std::iter::once("CREATE DATABASE d").chain(sql.iter().copied()) {
        for r in s.execute(q) {
            r.unwrap_or_else(|e| panic!("{q}: {e:?}"));
        }
    }
    Fixture {
        storage,
        _engine: engine,
    }
}

/// A primary's TABLE_MAP and rows events for `changes` of table `def`, decoded.
pub(super) fn events(
    def: &TableDef,
    image: RowImage,
    meta: RowMetadata,
    changes: &[RowChange<'_>],
) -> (TableMap, Vec<RowsEvent>) {
    let mut w = EventWriter::new(4, 1, true);
    w.format_description(0, "10.11.6-MariaDB-log");
    w.set_row_metadata(meta);
    w.table_map(0, 70, def);
    w.rows(0, 70, def, image, changes, true);
    let bytes = w.into_bytes();
    let mut dec = Decoder::new();
    let (mut map, mut rows) = (None, Vec::new());
    let mut at = 0;
    while at + 19 <= bytes.len() {
        let len = u32::from_le_bytes([
            bytes[at + 9],
            bytes[at + 10],
            bytes[at + 11],
            bytes[at + 12],
        ]);
        let ev = &bytes[at..at + len as usize];
        at += len as usize;
        match dec.decode(ev).expect("decodes").1 {
            Event::TableMap(m) => map = Some(m),
            Event::Rows(r) => rows.push(r),
            _ => {}
        }
    }
    (map.expect("a TABLE_MAP"), rows)
}

impl Fixture {
    pub fn def(&self, name: &str) -> TableDef {
        let t = self.storage.table("d", name).expect("table exists");
        (*t.def()).clone()
    }

    /// Applies the events in one transaction, committed when all applied.
    pub fn apply(
        &self,
        map: &TableMap,
        evs: &[RowsEvent],
        opts: ApplyOptions,
    ) -> Result<ApplyCounts, ApplyError> {
        let mut txn = self.storage.begin(TxnOptions::default());
        let mut counts = ApplyCounts::default();
        for ev in evs {
            if let Err(e) = apply_rows(&self.storage, &mut txn, map, ev, opts, &mut counts) {
                txn.rollback().expect("rollback");
                return Err(e);
            }
        }
        txn.commit().expect("commit");
        Ok(counts)
    }

    /// Encodes, decodes and applies `changes` as a primary with table `def` sends them.
    pub fn run(
        &self,
        def: &TableDef,
        image: RowImage,
        changes: &[RowChange<'_>],
        opts: ApplyOptions,
    ) -> Result<ApplyCounts, ApplyError> {
        let (map, evs) = events(def, image, RowMetadata::Full, changes);
        self.apply(&map, &evs, opts)
    }

    /// Every row of table `name` in clustered-key order.
    pub fn rows(&self, name: &str) -> Vec<Row> {
        table_rows(&self.storage, "d", name)
    }
}

fn s(v: &str) -> Value {
    Value::str(v)
}

fn i(v: i64) -> Value {
    Value::Int(v)
}

const KV: &str = "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20), n INT)";
const STRICT: ApplyOptions = ApplyOptions {
    idempotent: false,
    log_updates: false,
};
const IDEMPOTENT: ApplyOptions = ApplyOptions {
    idempotent: true,
    log_updates: false,
};

fn seed(f: &Fixture, def: &TableDef) -> (Row, Row) {
    let a = vec![i(1), s("one"), i(10)];
    let b = vec![i(2), s("two"), i(20)];
    let c = f
        .run(
            def,
            RowImage::Full,
            &[RowChange::Insert(&a), RowChange::Insert(&b)],
            STRICT,
        )
        .expect("inserts");
    assert_eq!((c.inserted, c.events), (2, 1));
    (a, b)
}

#[test]
fn full_images_insert_update_delete() {
    let f = fixture(&[KV]);
    let def = f.def("t");
    let (a, b) = seed(&f, &def);
    let a2 = vec![i(1), s("uno"), i(11)];
    let c = f
        .run(&def, RowImage::Full, &[RowChange::Update(&a, &a2)], STRICT)
        .expect("update");
    assert_eq!(c.updated, 1);
    let c = f
        .run(&def, RowImage::Full, &[RowChange::Delete(&b)], STRICT)
        .expect("delete");
    assert_eq!(c.deleted, 1);
    assert_eq!(f.rows("t"), vec![a2]);
}

#[test]
fn minimal_images_carry_key_and_changed_columns() {
    let f = fixture(&[KV]);
    let def = f.def("t");
    let (a, b) = seed(&f, &def);
    let (map, evs) = events(
        &def,
        RowImage::Minimal,
        RowMetadata::Full,
        &[RowChange::Update(&a, &vec![i(1), s("one"), i(99)])],
    );
    // The before image holds the key only, the after image the changed column.
    let RowEvent::Update { before, after } = &evs[0].rows[0] else {
        panic!("an update row");
    };
    assert_eq!(before.iter().filter(|v| v.is_some()).count(), 1);
    assert_eq!(after.iter().filter(|v| v.is_some()).count(), 1);
    f.apply(&map, &evs, STRICT).expect("minimal update");
    f.run(&def, RowImage::Minimal, &[RowChange::Delete(&b)], STRICT)
        .expect("minimal delete");
    assert_eq!(f.rows("t"), vec![vec![i(1), s("one"), i(99)]]);
}

#[test]
fn minimal_insert_fills_defaults() {
    let f = fixture(&[
        "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20) DEFAULT 'dflt', n INT NOT NULL)",
    ]);
    let def = f.def("t");
    // A primary logs the columns an INSERT named; here the write set is the key.
    let mut w = EventWriter::new(4, 1, true);
    w.format_description(0, "10.11.6-MariaDB-log");
    w.table_map(0, 70, &def);
    let row = vec![i(5), Value::Null, i(0)];
    w.rows_with_write_set(
        0,
        70,
        &def,
        RowImage::Minimal,
        &[RowChange::Insert(&row)],
        Some(&[true, false, false]),
        true,
    );
    let mut dec = Decoder::new();
    let bytes = w.into_bytes();
    let (mut map, mut evs, mut at) = (None, Vec::new(), 0);
    while at < bytes.len() {
        let len = u32::from_le_bytes([
            bytes[at + 9],
            bytes[at + 10],
            bytes[at + 11],
            bytes[at + 12],
        ]);
        match dec
            .decode(&bytes[at..at + len as usize])
            .expect("decodes")
            .1
        {
            Event::TableMap(m) => map = Some(m),
            Event::Rows(r) => evs.push(r),
            _ => {}
        }
        at += len as usize;
    }
    f.apply(&map.expect("map"), &evs, STRICT).expect("insert");
    assert_eq!(f.rows("t"), vec![vec![i(5), s("dflt"), i(0)]]);
}

#[test]
fn table_without_primary_key_matches_whole_rows() {
    let f = fixture(&["CREATE TABLE d.h (a INT, b VARCHAR(10))"]);
    let def = f.def("h");
    let r1 = vec![i(1), s("x")];
    let r2 = vec![i(1), s("y")];
    let r3 = vec![i(1), s("x")];
    let ins = [
        RowChange::Insert(&r1),
        RowChange::Insert(&r2),
        RowChange::Insert(&r3),
    ];
    f.run(&def, RowImage::Minimal, &ins, STRICT)
        .expect("inserts");
    let new = vec![i(2), s("y")];
    f.run(
        &def,
        RowImage::Minimal,
        &[RowChange::Update(&r2, &new)],
        STRICT,
    )
    .expect("update by whole row");
    f.run(&def, RowImage::Minimal, &[RowChange::Delete(&r1)], STRICT)
        .expect("delete one of two equal rows");
    let mut got = f.rows("h");
    got.sort_by_key(|r| format!("{r:?}"));
    assert_eq!(got, vec![vec![i(1), s("x")], vec![i(2), s("y")]]);
    let e = f
        .run(&def, RowImage::Full, &[RowChange::Delete(&r2)], STRICT)
        .expect_err("gone");
    assert_eq!(e.code(), ER_KEY_NOT_FOUND);
    assert!(e
        .last_sql_error("b.000001", 9)
        .contains("handler error HA_ERR_END_OF_FILE"));
}

#[test]
fn duplicate_and_missing_rows_stop_strict_mode() {
    let f = fixture(&[KV]);
    let def = f.def("t");
    let (a, _) = seed(&f, &def);
    let e = f
        .run(&def, RowImage::Full, &[RowChange::Insert(&a)], STRICT)
        .expect_err("duplicate");
    assert_eq!(e.code(), 1062);
    assert_eq!(
        e.last_sql_error("mariadb-bin.000001", 539),
        "Could not execute Write_rows_v1 event on table d.t; Duplicate entry '1' for key \
         'PRIMARY', Error_code: 1062; handler error HA_ERR_FOUND_DUPP_KEY; the event's master \
         log mariadb-bin.000001, end_log_pos 539"
    );
    let ghost = vec![i(7), s("g"), i(0)];
    for change in [RowChange::Delete(&ghost), RowChange::Update(&ghost, &a)] {
        let e = f
            .run(&def, RowImage::Full, &[change], STRICT)
            .expect_err("missing");
        assert_eq!(e.to_mysql().code, ER_KEY_NOT_FOUND);
        assert_eq!(e.to_mysql().message, "Can't find record in 't'");
    }
}

#[test]
fn a_failing_row_undoes_its_whole_event() {
    let f = fixture(&[KV]);
    let def = f.def("t");
    let (a, b) = seed(&f, &def);
    let c = vec![i(3), s("three"), i(30)];
    let e = f.run(
        &def,
        RowImage::Full,
        &[RowChange::Insert(&c), RowChange::Insert(&a)],
        STRICT,
    );
    assert!(e.is_err());
    assert_eq!(f.rows("t"), vec![a, b]);
}

#[test]
fn idempotent_mode_overwrites_and_skips() {
    let f =
        fixture(&["CREATE TABLE d.u (id INT PRIMARY KEY, k INT, v VARCHAR(5), UNIQUE KEY uk (k))"]);
    let def = f.def("u");
    let r1 = vec![i(1), i(100), s("a")];
    f.run(&def, RowImage::Full, &[RowChange::Insert(&r1)], STRICT)
        .expect("seed");
    // Clashes on the unique key with a different primary key: the old row goes.
    let r2 = vec![i(2), i(100), s("b")];
    let c = f
        .run(&def, RowImage::Full, &[RowChange::Insert(&r2)], IDEMPOTENT)
        .expect("overwrite");
    assert_eq!((c.inserted, c.skipped), (1, 1));
    let ghost = vec![i(9), i(9), s("z")];
    let c = f
        .run(
            &def,
            RowImage::Full,
            &[RowChange::Delete(&ghost), RowChange::Delete(&r1)],
            IDEMPOTENT,
        )
        .expect("skip missing");
    assert_eq!(c.skipped, 2);
    assert_eq!(f.rows("u"), vec![r2]);
}

#[test]
fn unique_key_finds_rows_when_the_image_lacks_the_primary_key() {
    let f = fixture(&[
        "CREATE TABLE d.u (id INT PRIMARY KEY, k INT NOT NULL, v INT, UNIQUE KEY uk (k))",
    ]);
    let local = f.def("u");
    let r = vec![i(1), i(50), i(0)];
    f.run(&local, RowImage::Full, &[RowChange::Insert(&r)], STRICT)
        .expect("seed");
    // A primary whose key is k: its MINIMAL before image carries k only.
    let (mut map, evs) = events(
        &local,
        RowImage::Full,
        RowMetadata::Full,
        &[RowChange::Update(&r, &vec![i(1), i(50), i(7)])],
    );
    let mut evs = evs;
    for ev in &mut evs {
        for row in &mut ev.rows {
            if let RowEvent::Update { before, .. } = row {
                before[0] = None;
                before[2] = None;
            }
        }
    }
    map.primary_key = vec![(1, 0)];
    f.apply(&map, &evs, STRICT).expect("update by unique key");
    assert_eq!(f.rows("u"), vec![vec![i(1), i(50), i(7)]]);
}

#[test]
fn type_mismatch_is_1677_and_missing_table_1146() {
    let f = fixture(&[KV]);
    let mut primary = f.def("t");
    primary.columns[2].data_type = DataType::Int {
        kind: IntKind::Big,
        unsigned: false,
        width: 0,
        zerofill: false,
    };
    let row = vec![i(1), s("x"), i(5)];
    let e = f
        .run(&primary, RowImage::Full, &[RowChange::Insert(&row)], STRICT)
        .expect_err("bigint into int");
    assert_eq!(e.code(), ER_SLAVE_CONVERSION_FAILED);
    assert_eq!(
        e.to_string(),
        "Column 2 of table 'd.t' cannot be converted from type 'bigint' to type 'int(11)'"
    );
    let mut other = f.def("t");
    other.name = "nope".into();
    let e = f
        .run(&other, RowImage::Full, &[RowChange::Insert(&row)], STRICT)
        .expect_err("no table");
    assert_eq!(e.to_mysql().message, "Table 'd.nope' doesn't exist");
}

#[test]
fn extra_columns_on_either_side() {
    let f = fixture(&[KV]);
    // A primary with one more column: it is ignored.
    let mut wide = f.def("t");
    let mut extra = wide.columns[2].clone();
    extra.name = "z".into();
    wide.columns.push(extra);
    let row = vec![i(1), s("x"), i(5), i(6)];
    f.run(&wide, RowImage::Full, &[RowChange::Insert(&row)], STRICT)
        .expect("wider primary");
    // A primary with one fewer: the local column takes its default (NULL).
    let mut narrow = f.def("t");
    narrow.columns.pop();
    let row = vec![i(2), s("y")];
    f.run(&narrow, RowImage::Full, &[RowChange::Insert(&row)], STRICT)
        .expect("narrower primary");
    assert_eq!(
        f.rows("t"),
        vec![vec![i(1), s("x"), i(5)], vec![i(2), s("y"), Value::Null]]
    );
}

/// Every row of table `db.name` in clustered-key order.
pub(super) fn table_rows(storage: &Arc<Storage>, db: &str, name: &str) -> Vec<Row> {
    let t = storage.table(db, name).expect("table exists");
    let def = t.def();
    let mut txn = storage.begin(TxnOptions::default());
    let req = ScanRequest {
        index_id: def.primary().id,
        range: KeyRange::all(),
        reverse: false,
        columns: (0..def.columns.len()).collect(),
        lock: LockMode::Consistent,
        wait: WaitPolicy::Wait,
    };
    let mut cur = t.scan(&mut txn, req).expect("scan");
    let mut out = Vec::new();
    while let Some(f) = cur.next(&mut txn).expect("next") {
        out.push(f.row);
    }
    out
}
