//! Partition maintenance that deletes rows: TRUNCATE PARTITION, and the rows a
//! DROP PARTITION left (the definition no longer names their partition, so no
//! read reaches them and a table copy leaves them out).

use super::Storage;
use crate::api::*;
use crate::partition::layout;
use basalt_common::Value;

impl Storage {
    /// Deletes every row of partitions `ids` of `db`.`name` in one transaction of
    /// its own (not in the binary log: the statement is logged as DDL). Returns
    /// how many rows it deleted.
    pub fn delete_partition_rows(
        self: &std::sync::Arc<Self>,
        db: &str,
        name: &str,
        ids: &[u32],
    ) -> Result<u64> {
        let core = self.core(db, name)?;
        let def = core.def();
        if !layout::is_stored_partitioned(&def) {
            return Ok(0);
        }
        let mut txn = self.begin(TxnOptions::default());
        let clustered = def.indexes[0].clone();
        let mut n = 0u64;
        let ranges: Vec<KeyRange> = if layout::index_prefixed(&clustered) {
            ids.iter()
                .map(|id| KeyRange::eq(vec![Value::UInt(*id as u64)]))
                .collect()
        } else {
            vec![KeyRange::all()]
        };
        for range in ranges {
            let req = ScanRequest {
                index_id: clustered.id,
                range,
                reverse: false,
                columns: (0..def.columns.len()).collect(),
                lock: LockMode::Exclusive,
                wait: WaitPolicy::Wait,
            };
            let mut cur = crate::table::TableCursor::open(core.clone(), &mut txn, req)?;
            while let Some(f) = cur.next(&mut txn)? {
                if !layout::row_partition(&f.row).is_some_and(|p| ids.contains(&p)) {
                    continue;
                }
                core.delete(&mut txn, &f.handle, &f.row)?;
                n += 1;
            }
        }
        txn.commit()?;
        Ok(n)
    }
}
