//! The table copy of ALTER TABLE: the rows of one table, converted, loaded into a
//! new table that no session can see yet.
//!
//! The source is read straight from its clustered tree while its writers are kept
//! out (the DDL holds the source's metadata lock in its write-blocking step), so
//! every record found is committed; delete-marked ones are deleted rows and are
//! skipped. Each copied version keeps the id of the transaction that wrote it, so a
//! reader sees a copied row exactly when it saw the original. The target is written
//! outside any transaction (`txn_id` 0: not logged); the caller makes it durable with
//! a checkpoint of its file before the catalog names it, so the log never has to
//! redo it and a crash before that point leaves only a file no catalog entry names,
//! which the next start removes.

use super::record::{build_rec, build_sec, parse_rec, SecHeader, HEADER};
use super::{Schema, TableCore};
use crate::api::Result;
use crate::error::StorageError;
use crate::keycodec;
use crate::mvcc::ReadView;
use crate::rowcodec;
use crate::store::{Modify, WriteCtx};
use basalt_common::{Row, Value};
use std::ops::Bound;
use std::sync::atomic::Ordering;

/// What [`TableCore::for_each_committed`] calls: primary key, writer, row.
pub(crate) type RowVisitor<'a> = dyn FnMut(&[u8], u64, Row) -> Result<()> + 'a;

/// Rows read from the source per store scan.
const BATCH: usize = 1024;

impl TableCore {
    /// Calls `f` with each row of the table not delete-marked (in primary key
    /// order): its primary key, the id of the transaction that wrote it, the row.
    pub(crate) fn for_each_committed(&self, f: &mut RowVisitor<'_>) -> Result<()> {
        self.for_each_visible(None, None, f)
    }

    /// As [`Self::for_each_committed`], with each row as `view` sees it when
    /// given (writers may be at work meanwhile; the writer passed to `f` is the
    /// one of the version seen), and only the `wanted` columns decoded (the
    /// others NULL) when given.
    pub(crate) fn for_each_visible(
        &self,
        view: Option<&ReadView>,
        wanted: Option<&[bool]>,
        f: &mut RowVisitor<'_>,
    ) -> Result<()> {
        let schema = self.schema();
        let mut lower: Bound<Vec<u8>> = Bound::Unbounded;
        loop {
            let mut out = Vec::new();
            let lb = match &lower {
                Bound::Excluded(v) => Bound::Excluded(&v[..]),
                _ => Bound::Unbounded,
            };
            self.store.scan(
                schema.primary_tree(),
                lb,
                Bound::Unbounded,
                false,
                BATCH,
                &mut out,
            )?;
            let done = out.len() < BATCH;
            for (pk, rec) in &out {
                let seen;
                let rec: &[u8] = match view {
                    None => rec,
                    Some(v) => match self.visible_version(rec.clone(), v)? {
                        Some(r) => {
                            seen = r;
                            &seen
                        }
                        None => continue,
                    },
                };
                let h = parse_rec(rec).ok_or_else(|| self.corrupt("short record"))?;
                if h.deleted {
                    continue;
                }
                let row = rowcodec::decode_row(&rec[HEADER..], &schema.def.columns, wanted)
                    .map_err(|_| self.corrupt("undecodable row"))?;
                f(pk, h.trx, row)?;
            }
            match out.pop() {
                Some((k, _)) if !done => lower = Bound::Excluded(k),
                _ => return Ok(()),
            }
        }
    }

    /// Loads one row, written by transaction `trx`, into this (new, unpublished)
    /// table with its secondary entries; a primary or unique key clash fails with
    /// [`StorageError::DuplicateKey`] naming the key, as MariaDB's copy does, before
    /// anything of the row is written (so ALTER IGNORE can leave the row out).
    pub(crate) fn load_row(&self, trx: u64, row: &Row) -> Result<()> {
        let schema = self.schema();
        let mut ctx = WriteCtx::default();
        let key = self.load_key(&schema, row);
        let primary = schema.primary_tree();
        if !schema.def.has_hidden_pk() && self.store.get(primary, &key)?.is_some() {
            return Err(dup(&schema.indexes[0].def, row));
        }
        let mut entries = Vec::with_capacity(schema.indexes.len() - 1);
        for layout in &schema.indexes[1..] {
            let mut sk = Vec::new();
            keycodec::encode_index_key(&mut sk, &layout.def, &schema.def.columns, row);
            let has_null = layout.def.columns.iter().any(|c| row[c.column].is_null());
            if layout.def.is_unique() && !has_null && self.key_taken(layout.def.id, &sk)? {
                return Err(dup(&layout.def, row));
            }
            sk.extend_from_slice(&key);
            entries.push(sk);
        }
        let mut payload = Vec::with_capacity(64);
        rowcodec::encode_row(&mut payload, &schema.def.columns, row);
        self.put(&mut ctx, primary, &key, build_rec(trx, 0, false, &payload))?;
        for (layout, sk) in schema.indexes[1..].iter().zip(entries) {
            let vals: Vec<Value> = layout.covered.iter().map(|&c| row[c].clone()).collect();
            let mut payload = Vec::new();
            rowcodec::encode_row(&mut payload, &layout.covered_cols, &vals);
            let header = SecHeader {
                created: trx,
                deleted: 0,
                multi: false,
            };
            self.put(&mut ctx, layout.def.id, &sk, build_sec(header, &payload))?;
        }
        self.rows.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// The row `view` sees under primary key `key` (delete-marked or absent:
    /// `None`), with the id of the transaction that wrote that version.
    pub(crate) fn visible_row(&self, key: &[u8], view: &ReadView) -> Result<Option<(u64, Row)>> {
        let schema = self.schema();
        let Some(rec) = self.store.get(schema.primary_tree(), key)? else {
            return Ok(None);
        };
        let Some(rec) = self.visible_version(rec, view)? else {
            return Ok(None);
        };
        let h = parse_rec(&rec).ok_or_else(|| self.corrupt("short record"))?;
        Ok(Some((h.trx, self.decode(&schema, &rec, None)?)))
    }

    /// Removes the row with primary key `key`, and its secondary entries, from
    /// this (new, unpublished) table; nothing when it has none.
    pub(crate) fn unload_row(&self, key: &[u8]) -> Result<()> {
        let schema = self.schema();
        let primary = schema.primary_tree();
        let Some(rec) = self.store.get(primary, key)? else {
            return Ok(());
        };
        let row = self.decode(&schema, &rec, None)?;
        let mut ctx = WriteCtx::default();
        for layout in &schema.indexes[1..] {
            let mut sk = Vec::new();
            keycodec::encode_index_key(&mut sk, &layout.def, &schema.def.columns, &row);
            sk.extend_from_slice(key);
            self.store
                .modify(&mut ctx, layout.def.id, &sk, &mut |_| Modify::Delete)?;
        }
        self.store
            .modify(&mut ctx, primary, key, &mut |_| Modify::Delete)?;
        self.rows.fetch_sub(1, Ordering::Relaxed);
        Ok(())
    }

    /// This table's primary key of `row`.
    pub(crate) fn primary_key_of(&self, row: &Row) -> Vec<u8> {
        let schema = self.schema();
        let mut k = Vec::with_capacity(16);
        keycodec::encode_index_key(&mut k, &schema.def.indexes[0], &schema.def.columns, row);
        k
    }

    fn load_key(&self, schema: &Schema, row: &Row) -> Vec<u8> {
        let mut k = Vec::with_capacity(16);
        if schema.def.has_hidden_pk() {
            let id = Value::UInt(self.next_row_id());
            let ty = basalt_common::DataType::Int {
                kind: basalt_common::IntKind::Big,
                unsigned: true,
                width: 0,
                zerofill: false,
            };
            keycodec::encode_part(&mut k, &id, &ty, None);
        } else {
            keycodec::encode_index_key(&mut k, &schema.def.indexes[0], &schema.def.columns, row);
        }
        k
    }

    fn put(&self, ctx: &mut WriteCtx, tree: u32, key: &[u8], value: Vec<u8>) -> Result<()> {
        let mut value = Some(value);
        self.store.modify(ctx, tree, key, &mut |_| {
            Modify::Put(value.take().expect("the closure runs once"))
        })
    }

    /// Sets the AUTO_INCREMENT counter (of a table just loaded, or by
    /// `AUTO_INCREMENT=`): `at_least`, or above the largest value stored, as InnoDB
    /// does; recounts rows and statistics.
    pub(crate) fn set_auto_increment(&self, at_least: u64) -> Result<()> {
        self.auto_inc.store(at_least.max(1), Ordering::SeqCst);
        self.init_counters()
    }

    pub(crate) fn rebuilt_at(&self) -> u64 {
        self.rebuilt_at.load(Ordering::Relaxed)
    }

    pub(crate) fn set_rebuilt_at(&self, next_trx: u64) {
        self.rebuilt_at.store(next_trx, Ordering::Relaxed);
    }

    pub(crate) fn is_dropped(&self) -> bool {
        self.dropped.load(Ordering::SeqCst)
    }
}

fn dup(index: &basalt_common::IndexDef, row: &[Value]) -> StorageError {
    let entry: Vec<String> = index
        .columns
        .iter()
        .map(|c| row[c.column].display_lossy())
        .collect();
    StorageError::DuplicateKey {
        entry: entry.join("-"),
        key: index.name.clone(),
    }
}
