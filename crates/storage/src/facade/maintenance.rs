//! Table maintenance on the catalog's tables: CHECK TABLE and ANALYZE TABLE.

use super::Storage;
use crate::api::Result;
use crate::table::CheckReport;
use std::time::Duration;

impl Storage {
    /// Checks `db.name` (see [`crate::table::TableCore::check`]), waiting up to
    /// `wait` for the transactions that wrote it to end.
    pub fn check_table(&self, db: &str, name: &str, wait: Duration) -> Result<CheckReport> {
        self.core(db, name)?.check(wait)
    }

    /// Recomputes the index statistics of `db.name` now.
    pub fn analyze_table(&self, db: &str, name: &str) -> Result<()> {
        self.core(db, name)?.analyze()
    }
}

#[cfg(test)]
mod tests {
    use crate::store::{Modify, WriteCtx};
    use crate::{Storage, StorageConfig, TxnOptions};
    use basalt_common::*;
    use std::ops::Bound;
    use std::time::Duration;

    fn def(engine: EngineKind) -> TableDef {
        let int = |n: &str| {
            ColumnDef::new(
                n,
                DataType::Int {
                    kind: IntKind::Int,
                    unsigned: false,
                    width: 0,
                    zerofill: false,
                },
            )
        };
        let index = |name: &str, kind, c: usize| IndexDef {
            id: 0,
            name: name.into(),
            kind,
            columns: vec![IndexColumn {
                column: c,
                prefix_len: None,
                descending: false,
            }],
            comment: String::new(),
        };
        TableDef {
            id: 0,
            schema: "test".into(),
            name: "t".into(),
            columns: vec![int("id"), int("k")],
            indexes: vec![
                index("PRIMARY", IndexKind::Primary, 0),
                index("k", IndexKind::NonUnique, 1),
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

    #[test]
    fn check_finds_a_secondary_index_that_disagrees_with_the_rows() {
        for engine in [EngineKind::Basalt, EngineKind::Memory] {
            let dir = tempfile::tempdir().expect("tempdir");
            let s = Storage::open(StorageConfig::new(dir.path())).expect("open");
            let t = s.create_table(def(engine)).expect("create");
            let mut txn = s.begin(TxnOptions::default());
            for i in 0..50 {
                t.insert(&mut txn, vec![Value::Int(i), Value::Int(i % 5)])
                    .expect("insert");
            }
            txn.commit().expect("commit");
            let wait = Duration::from_secs(5);
            let r = s.check_table("test", "t", wait).expect("check");
            assert_eq!((r.rows, r.problems.len()), (50, 0), "{:?}", r.problems);
            // Remove one entry of index `k` behind the table's back.
            let core = s.core("test", "t").expect("core");
            let tree = core.def().indexes[1].id;
            let mut first = Vec::new();
            core.store()
                .scan(
                    tree,
                    Bound::Unbounded,
                    Bound::Unbounded,
                    false,
                    1,
                    &mut first,
                )
                .expect("scan");
            let mut ctx = WriteCtx {
                txn_id: 0,
                logged: false,
            };
            core.store()
                .modify(&mut ctx, tree, &first[0].0, &mut |_| Modify::Delete)
                .expect("delete entry");
            let r = s.check_table("test", "t", wait).expect("check");
            assert_eq!(
                r.problems,
                [
                    "Index 'k' contains 49 entries, should be 50.",
                    "Index 'k' is missing the entries of 1 rows."
                ],
                "{engine:?}"
            );
        }
    }

    #[test]
    fn a_row_of_the_definition_before_an_instant_add_column_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = Storage::open(StorageConfig::new(dir.path())).expect("open");
        let t = s.create_table(def(EngineKind::Basalt)).expect("create");
        let mut txn = s.begin(TxnOptions::default());
        t.insert(&mut txn, vec![Value::Int(1), Value::Int(1)])
            .expect("insert");
        txn.commit().expect("commit");
        let mut wider = (*t.def()).clone();
        wider
            .columns
            .push(ColumnDef::new("z", DataType::int(IntKind::Int, false)));
        let spec = crate::facade::alter::AlterSpec {
            def: wider,
            copy: false,
            auto_increment: None,
            add_index: false,
            online: false,
            timeout: Duration::from_secs(5),
            duplicates: None,
        };
        s.alter_table::<crate::StorageError>("test", "t", spec, &mut |r, _| Ok(r))
            .expect("instant add column");
        // A statement planned before the ALTER still holds two-column rows: it
        // must be planned again (1412), not write a record claiming three.
        let mut txn = s.begin(TxnOptions::default());
        let e = t
            .insert(&mut txn, vec![Value::Int(2), Value::Int(2)])
            .expect_err("a two-column row");
        assert!(matches!(e, crate::StorageError::TableChanged), "{e:?}");
        t.insert(&mut txn, vec![Value::Int(2), Value::Int(2), Value::Int(5)])
            .expect("a row of the new definition");
        txn.commit().expect("commit");
    }
}
