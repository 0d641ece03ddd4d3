//! ALTER TABLE's table copy while writers go on (LOCK=NONE; MariaDB's online
//! ALTER). Used when the new table keys its rows by the same primary key bytes
//! as the old one, so a changed row of the old table names its place in the copy.
//!
//! 1. With writers held out for a moment (they finish their transactions first),
//!    start recording which primary keys writers change (`TableCore::capture_change`)
//!    and take a read view V0; let writers in again.
//! 2. Copy every row as V0 sees it. Rows changed after V0 were recorded.
//! 3. Rounds: take a view V, then the recorded keys (in that order, so every row
//!    whose V-visible version differs from the copy's is among them); take those
//!    rows out of the copy, then put each back as V sees it. The copy then equals
//!    the table as V sees it, so a clash in a unique key is a real one. A key
//!    whose writer V does not see yet is recorded again for the next round.
//! 4. When few keys are left (or after a bounded number of rounds), checkpoint the
//!    copy's file with writers still running, then hold writers out (waiting for
//!    open writer transactions to end) and run a last round: every writer has
//!    ended, so the copy equals the table's committed state. The caller makes the
//!    copy durable and switches the catalog as for a blocking copy.
//!
//! Writers wait only during steps 1 and 4's last round; readers as for a blocking
//! copy. A failure at any step (a row the conversion refuses, a duplicate key)
//! leaves the old table as it is, and the caller drops the copy.

use super::alter::Convert;
use crate::error::StorageError;
use crate::mvcc::{ReadView, TxnManager};
use crate::table::TableCore;
use std::sync::Arc;
use std::time::Instant;

/// Rounds while writers run, at most.
const ROUNDS: usize = 16;
/// Recorded keys few enough to replay with writers held out.
const FEW: usize = 2_000;

/// A read view released when dropped.
pub(super) struct HeldView<'a> {
    mgr: &'a TxnManager,
    pub view: Arc<ReadView>,
}

impl<'a> HeldView<'a> {
    pub fn take(mgr: &'a TxnManager) -> Self {
        HeldView {
            mgr,
            view: mgr.take_view(0, false),
        }
    }
}

impl Drop for HeldView<'_> {
    fn drop(&mut self) {
        self.mgr.release_view(&self.view);
    }
}

/// Step 1: starts recording changes of `old` and returns the view to copy at.
pub(super) fn begin<'a>(
    mgr: &'a TxnManager,
    old: &TableCore,
    deadline: Instant,
) -> crate::api::Result<HeldView<'a>> {
    old.mdl_block_writes(deadline)?;
    old.start_capture();
    let view = HeldView::take(mgr);
    old.mdl_end_ddl();
    Ok(view)
}

/// Steps 2 to 4 (see the module docs); returns with writers held out of `old`.
/// `checkpoint` makes the copy's pages durable.
pub(super) fn copy<E: From<StorageError>>(
    mgr: &TxnManager,
    old: &TableCore,
    new: &TableCore,
    v0: HeldView<'_>,
    convert: &mut Convert<'_, E>,
    checkpoint: &dyn Fn() -> crate::api::Result<()>,
    deadline: Instant,
) -> Result<(), E> {
    let mut n = super::alter::fill(old, new, Some(&v0.view), None, convert)?;
    drop(v0);
    for _ in 0..ROUNDS {
        if old.captured_len() <= FEW {
            break;
        }
        round(mgr, old, new, convert, &mut n)?;
    }
    checkpoint()?;
    old.mdl_block_writes(deadline)?;
    round(mgr, old, new, convert, &mut n)
}

/// Step 3: one round of replaying recorded keys.
fn round<E: From<StorageError>>(
    mgr: &TxnManager,
    old: &TableCore,
    new: &TableCore,
    convert: &mut Convert<'_, E>,
    n: &mut u64,
) -> Result<(), E> {
    let held = HeldView::take(mgr);
    let keys = old.take_captured();
    for key in keys.keys() {
        new.unload_row(key)?;
    }
    for (key, writer) in keys {
        if !held.view.sees(writer) {
            old.recapture(key.clone(), writer);
        }
        let Some((trx, row)) = old.visible_row(&key, &held.view)? else {
            continue;
        };
        *n += 1;
        let row = convert(row, *n)?;
        if row.is_empty() {
            continue;
        }
        if new.primary_key_of(&row) != key {
            return Err(StorageError::Invalid(
                "an online ALTER TABLE changed a row's primary key".into(),
            )
            .into());
        }
        new.load_row(trx, &row)?;
    }
    Ok(())
}

impl super::Storage {
    /// An ALTER TABLE whose only change is one added secondary index (id 0 in
    /// `def`): the index is built in place while writers go on (see
    /// `table::index_build`), then the definition names it and the catalog is
    /// written, with writers held out from the last round to the catalog write.
    /// The caller ends the capture and the write block.
    pub(super) fn add_index_online(
        &self,
        old: &Arc<TableCore>,
        mut def: basalt_common::TableDef,
        deadline: Instant,
    ) -> crate::api::Result<()> {
        let cur = old.def();
        let id = cur.next_index_id;
        def.id = cur.id;
        def.next_index_id = id + 1;
        let fresh = def.indexes.iter_mut().filter(|i| i.id == 0);
        for ix in fresh {
            ix.id = id;
        }
        let engine = self.engines.get(cur.engine);
        let v0 = begin(&self.mgr, old, deadline)?;
        let mut build = old.index_build_start(Arc::new(def), id, &v0.view)?;
        let rounds = (|| {
            for _ in 0..ROUNDS {
                if old.captured_len() <= FEW {
                    break;
                }
                let v = HeldView::take(&self.mgr);
                old.index_build_round(&mut build, &v0.view, &v.view)?;
            }
            engine.after_ddl(&cur, old.store())?;
            old.mdl_block_writes(deadline)?;
            let v = HeldView::take(&self.mgr);
            old.index_build_round(&mut build, &v0.view, &v.view)?;
            old.mdl_upgrade(deadline)
        })();
        if let Err(e) = rounds {
            old.index_build_abort(&build);
            return Err(e);
        }
        drop(v0);
        // Snapshots older than this did not see the rows as the index has them.
        let at = self.mgr.next_id();
        self.mgr.bump_next_id(at);
        old.set_rebuilt_at(at);
        let def = build.def().clone();
        old.index_build_finish(build)?;
        engine.after_ddl(&def, old.store())?;
        self.bump();
        self.persist()
    }
}
