//! Index cursors: a range of one index read in growing batches, as consistent
//! reads (each entry's version found through the read view) or as locking reads.
//!
//! A locking cursor under REPEATABLE READ or SERIALIZABLE also takes the gap locks
//! described in `gap`. Ascending: before handling entry E it locks the gap before E
//! and checks that nothing appeared between the previous entry handled (or the
//! range start) and E; when the range ends it locks the gap before the first entry
//! past the range (or the supremum) the same way. Descending: it first locks the gap
//! above the range, then before handling each entry E locks the gap before E and
//! reads the next entry afresh below E. Whenever the check finds a new entry, the
//! cursor reads again from the last entry it handled, so the new entry is handled
//! (its inserter's lock makes the cursor wait) instead of being skipped.

use super::gap::Anchor;
use super::read::{effective_lock, wanted_mask, Locked};
use super::record::parse_sec;
use super::{IndexLayout, Schema, TableCore};
use crate::api::*;
use crate::error::StorageError;
use crate::keycodec;
use crate::rowcodec;
use crate::store::Entry;
use crate::txn::Txn;
use basalt_common::Value;
use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::Arc;

/// The most entries one read from the store returns.
const MAX_BATCH: usize = 1024;

/// Which gap locks a locking cursor takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GapMode {
    /// Consistent reads, READ COMMITTED and below.
    Off,
    /// Next-key locks on every entry, and the gap past the range.
    NextKey,
    /// Equality on all columns of a unique index: the row alone when found, the
    /// gaps otherwise.
    UniquePoint,
}

/// A cursor over one index range, reading the store in growing batches.
pub struct TableCursor {
    core: Arc<TableCore>,
    schema: Arc<Schema>,
    index_pos: usize,
    lower: Bound<Vec<u8>>,
    upper: Bound<Vec<u8>>,
    reverse: bool,
    covering: bool,
    wanted: Option<Vec<bool>>,
    lock: LockMode,
    wait: WaitPolicy,
    batch: VecDeque<Entry>,
    batch_size: usize,
    exhausted: bool,
    gap: GapMode,
    /// The range as opened (the cursor's own bounds advance as it reads).
    range: ByteBounds,
    /// The last entry handled.
    last: Option<Vec<u8>>,
    /// Gap locking done at the range's far end (ascending) or start (descending).
    edge_done: bool,
    found_row: bool,
}

/// Encoded (lower, upper) bounds of a scan.
type ByteBounds = (Bound<Vec<u8>>, Bound<Vec<u8>>);

pub(super) fn encode_bounds(
    schema: &Schema,
    layout: &IndexLayout,
    range: &KeyRange,
) -> Option<ByteBounds> {
    let enc = |vals: &Vec<Value>| keycodec::encode_prefix(&layout.def, &schema.def.columns, vals);
    let lower = match &range.lower {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(v) => Bound::Included(enc(v)),
        Bound::Excluded(v) => Bound::Included(keycodec::prefix_successor(&enc(v))?),
    };
    let upper = match &range.upper {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Excluded(v) => Bound::Excluded(enc(v)),
        Bound::Included(v) => match keycodec::prefix_successor(&enc(v)) {
            Some(s) => Bound::Excluded(s),
            None => Bound::Unbounded,
        },
    };
    Some((lower, upper))
}

fn as_ref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(v) => Bound::Included(v),
        Bound::Excluded(v) => Bound::Excluded(v),
    }
}

impl TableCursor {
    pub(crate) fn open(core: Arc<TableCore>, txn: &mut Txn, req: ScanRequest) -> Result<Self> {
        // Locking reads hold the table as writers (see `TableCore::get`).
        txn.hold_table(&core, req.lock != LockMode::Consistent)?;
        let schema = core.schema();
        let (index_pos, layout) = schema
            .layout(req.index_id)
            .ok_or_else(|| StorageError::Invalid(format!("no index with id {}", req.index_id)))?;
        let (lower, upper, exhausted) = match encode_bounds(&schema, layout, &req.range) {
            Some((l, u)) => (l, u, false),
            None => (Bound::Unbounded, Bound::Unbounded, true),
        };
        let covering = index_pos > 0 && req.columns.iter().all(|c| layout.covered.contains(c));
        let wanted = Some(wanted_mask(schema.def.columns.len(), &req.columns));
        let lock = effective_lock(txn, req.lock);
        if lock == LockMode::Consistent {
            txn.view();
            txn.check_rebuilt(&core)?;
        }
        let gap = if lock == LockMode::Consistent || exhausted || !TableCore::uses_gap_locks(txn) {
            GapMode::Off
        } else if !req.reverse && unique_point(layout, &req.range) {
            GapMode::UniquePoint
        } else {
            GapMode::NextKey
        };
        Ok(TableCursor {
            gap,
            range: (lower.clone(), upper.clone()),
            last: None,
            edge_done: false,
            found_row: false,
            index_pos,
            lower,
            upper,
            reverse: req.reverse,
            covering,
            wanted,
            lock,
            wait: req.wait,
            batch: VecDeque::new(),
            batch_size: if req.reverse && gap != GapMode::Off {
                1
            } else {
                8
            },
            exhausted,
            schema,
            core,
        })
    }

    fn refill(&mut self) -> Result<()> {
        let tree = self.schema.indexes[self.index_pos].def.id;
        let mut out = Vec::with_capacity(self.batch_size);
        self.core.store.scan(
            tree,
            as_ref(&self.lower),
            as_ref(&self.upper),
            self.reverse,
            self.batch_size,
            &mut out,
        )?;
        if out.len() < self.batch_size {
            self.exhausted = true;
        }
        if let Some((last, _)) = out.last() {
            let resume = Bound::Excluded(last.clone());
            if self.reverse {
                self.upper = resume;
            } else {
                self.lower = resume;
            }
        }
        if !(self.reverse && self.gap != GapMode::Off) {
            self.batch_size = (self.batch_size * 4).min(MAX_BATCH);
        }
        self.batch.extend(out);
        Ok(())
    }

    fn primary_entry(
        &self,
        txn: &mut Txn,
        key: Vec<u8>,
        value: Vec<u8>,
    ) -> Result<Option<Fetched>> {
        let rec = if self.lock == LockMode::Consistent {
            let view = txn.view();
            self.core.visible_version(value, &view)?
        } else {
            match self
                .core
                .lock_and_read(txn, &self.schema, &key, self.lock, self.wait)?
            {
                Locked::Row(r) => Some(r),
                _ => None,
            }
        };
        let Some(rec) = rec else { return Ok(None) };
        let row = self
            .core
            .decode(&self.schema, &rec, self.wanted.as_deref())?;
        Ok(Some(Fetched {
            handle: RowHandle(key),
            row,
        }))
    }

    fn secondary_entry(
        &self,
        txn: &mut Txn,
        key: Vec<u8>,
        value: Vec<u8>,
    ) -> Result<Option<Fetched>> {
        let layout = &self.schema.indexes[self.index_pos];
        let columns = &self.schema.def.columns;
        let sk_len = keycodec::parts_len(&key, &layout.def, columns, layout.def.columns.len());
        let h = parse_sec(&value).ok_or_else(|| self.core.corrupt("short index entry"))?;
        if self.lock == LockMode::Consistent && !h.multi {
            let view = txn.view();
            let live = view.sees(h.created) && (h.deleted == 0 || !view.sees(h.deleted));
            if !live {
                return Ok(None);
            }
            if self.covering {
                let mut pk = key;
                pk.drain(..sk_len);
                return self.covered_row(pk, &value).map(Some);
            }
        }
        let pk = key[sk_len..].to_vec();
        let rec = if self.lock == LockMode::Consistent {
            let Some(rec) = self.core.store.get(self.schema.primary_tree(), &pk)? else {
                return Ok(None);
            };
            let view = txn.view();
            self.core.visible_version(rec, &view)?
        } else {
            match self
                .core
                .lock_and_read(txn, &self.schema, &pk, self.lock, self.wait)?
            {
                Locked::Row(r) => Some(r),
                _ => None,
            }
        };
        let Some(rec) = rec else { return Ok(None) };
        let row = self.core.decode(&self.schema, &rec, None)?;
        // The version read must still carry this entry's key.
        let mut sk = Vec::with_capacity(sk_len);
        keycodec::encode_index_key(&mut sk, &layout.def, columns, &row);
        if sk != key[..sk_len] {
            return Ok(None);
        }
        Ok(Some(Fetched {
            handle: RowHandle(pk),
            row,
        }))
    }

    fn covered_row(&self, pk: Vec<u8>, value: &[u8]) -> Result<Fetched> {
        let layout = &self.schema.indexes[self.index_pos];
        let mut row = Vec::with_capacity(self.schema.def.columns.len());
        row.resize_with(self.schema.def.columns.len(), || Value::Null);
        rowcodec::decode_into(
            &value[super::record::HEADER..],
            &layout.covered_cols,
            &layout.covered,
            &mut row,
        )
        .map_err(|_| self.core.corrupt("undecodable index entry"))?;
        Ok(Fetched {
            handle: RowHandle(pk),
            row,
        })
    }
}

impl TableCursor {
    fn tree(&self) -> u32 {
        self.schema.indexes[self.index_pos].def.id
    }

    /// Reads again after the last entry handled (a gap check found a new entry).
    fn restart(&mut self) {
        let resume = match &self.last {
            Some(k) => Bound::Excluded(k.clone()),
            None => {
                if self.reverse {
                    self.range.1.clone()
                } else {
                    self.range.0.clone()
                }
            }
        };
        if self.reverse {
            self.upper = resume;
        } else {
            self.lower = resume;
        }
        self.batch.clear();
        self.exhausted = false;
    }

    /// Where the part of a gap below `key` that the cursor has read starts.
    fn read_from(&self) -> Bound<&[u8]> {
        match &self.last {
            Some(k) => Bound::Excluded(k),
            None => as_ref(&self.range.0),
        }
    }

    /// Ascending: locks the gap before `key`; false if an entry appeared in the
    /// part of it the cursor read.
    fn lock_gap_before(&self, txn: &mut Txn, key: &[u8]) -> Result<bool> {
        let empty = (self.read_from(), Bound::Excluded(key));
        self.core
            .lock_gap(txn, self.tree(), Anchor::Before(key), Some(empty))
    }

    /// Ascending, at the end of the range: locks the gap past it; false if the
    /// range has gained an entry.
    fn lock_end_gap(&self, txn: &mut Txn) -> Result<bool> {
        let tree = self.tree();
        let next = self.core.successor(tree, self.read_from())?;
        if let Some(n) = &next {
            let in_range = match &self.range.1 {
                Bound::Excluded(hi) => n < hi,
                Bound::Included(hi) => n <= hi,
                Bound::Unbounded => true,
            };
            if in_range {
                return Ok(false);
            }
        }
        let anchor = next.as_deref().map_or(Anchor::Supremum, Anchor::Before);
        let upper = next.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
        self.core
            .lock_gap(txn, tree, anchor, Some((self.read_from(), upper)))
    }

    /// Descending, before the first entry: locks the gap above the range. The gap
    /// is anchored on the first entry past the range, checked under the gate to
    /// still be that entry: an entry added above the range meanwhile would have
    /// split the gap, and the top of the range would be left unlocked.
    fn lock_top_gap(&self, txn: &mut Txn) -> Result<()> {
        let tree = self.tree();
        let from = match &self.range.1 {
            Bound::Excluded(hi) => Bound::Included(&hi[..]),
            Bound::Included(hi) => Bound::Excluded(&hi[..]),
            Bound::Unbounded => {
                return self
                    .core
                    .lock_gap(txn, tree, Anchor::Supremum, None)
                    .map(|_| ())
            }
        };
        loop {
            let next = self.core.successor(tree, from)?;
            let anchor = next.as_deref().map_or(Anchor::Supremum, Anchor::Before);
            let upper = next.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
            if self.core.lock_gap(txn, tree, anchor, Some((from, upper)))? {
                return Ok(());
            }
        }
    }

    /// The next entry of the range, or `None` at its end (gap locks at the edges).
    fn next_entry(&mut self, txn: &mut Txn) -> Result<Option<Entry>> {
        loop {
            if self.reverse && self.gap != GapMode::Off && !self.edge_done {
                self.lock_top_gap(txn)?;
                self.edge_done = true;
                self.restart();
            }
            if let Some(e) = self.batch.pop_front() {
                return Ok(Some(e));
            }
            if !self.exhausted {
                txn.check_interrupt()?;
                self.refill()?;
                continue;
            }
            let end_gap = match self.gap {
                GapMode::Off => false,
                GapMode::NextKey => !self.reverse,
                GapMode::UniquePoint => !self.found_row,
            };
            if end_gap && !self.edge_done {
                if !self.lock_end_gap(txn)? {
                    self.restart();
                    continue;
                }
                self.edge_done = true;
            }
            return Ok(None);
        }
    }

    /// Handles one entry: gap locks around it, then the row.
    fn handle(&mut self, txn: &mut Txn, key: Vec<u8>, value: Vec<u8>) -> Result<Step> {
        if self.gap == GapMode::NextKey {
            if self.reverse {
                self.core
                    .lock_gap(txn, self.tree(), Anchor::Before(&key), None)?;
            } else if !self.lock_gap_before(txn, &key)? {
                return Ok(Step::Restart);
            }
        }
        // Only gap locking needs the entry's key afterwards.
        let kept = (self.gap != GapMode::Off).then(|| key.clone());
        let got = if self.index_pos == 0 {
            self.primary_entry(txn, key, value)?
        } else {
            self.secondary_entry(txn, key, value)?
        };
        if let Some(key) = kept {
            if self.gap == GapMode::UniquePoint
                && got.is_none()
                && !self.lock_gap_before(txn, &key)?
            {
                return Ok(Step::Restart);
            }
            if self.reverse {
                // Read the next entry below afresh: the gap below `key` is now locked.
                self.upper = Bound::Excluded(key.clone());
                self.batch.clear();
                self.exhausted = false;
            }
            self.last = Some(key);
        }
        Ok(match got {
            Some(f) => {
                self.found_row = true;
                Step::Row(f)
            }
            None => Step::Skip,
        })
    }
}

enum Step {
    Row(Fetched),
    Skip,
    Restart,
}

/// An equality on every column of a unique index (no NULLs, no prefix columns).
fn unique_point(layout: &IndexLayout, range: &KeyRange) -> bool {
    let (Bound::Included(lo), Bound::Included(hi)) = (&range.lower, &range.upper) else {
        return false;
    };
    layout.def.is_unique()
        && lo == hi
        && lo.len() == layout.def.columns.len()
        && lo.iter().all(|v| !v.is_null())
        && layout.def.columns.iter().all(|c| c.prefix_len.is_none())
}

impl Cursor for TableCursor {
    fn expect_rows(&mut self, rows: usize) {
        if self.batch.is_empty() && !(self.reverse && self.gap != GapMode::Off) {
            self.batch_size = rows.clamp(1, MAX_BATCH);
        }
    }

    fn next(&mut self, txn: &mut Txn) -> Result<Option<Fetched>> {
        loop {
            let Some((key, value)) = self.next_entry(txn)? else {
                return Ok(None);
            };
            match self.handle(txn, key, value)? {
                Step::Row(f) => return Ok(Some(f)),
                Step::Skip => {}
                Step::Restart => self.restart(),
            }
        }
    }
}
