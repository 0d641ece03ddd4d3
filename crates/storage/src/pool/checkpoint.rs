//! Checkpoints: making a cut of a table file durable while writes go on.
//!
//! The WAL holds logical records; recovery loads each file's last checkpoint image and
//! replays the log from the checkpoint's cut LSN. So a checkpoint image must be a
//! structurally consistent set of trees holding exactly the changes before the cut.
//!
//! 1. [`PageFile::begin_cut`] takes the file's gate exclusively (every tree write
//!    operation holds it shared, so no operation is half done), asks the integrator
//!    for the cut LSN, copies the current page map as the cut map, snapshots the tree
//!    catalog, and marks every dirty frame of the file PENDING: its image as of the
//!    cut must still be written. This is the only pause writers see.
//! 2. [`PageFile::flush_cut`], concurrently with new writes, writes each pending
//!    image to a fresh slot and points the cut map at it. A writer about to change a
//!    PENDING frame first copies the frame aside (copy-on-write), so the checkpointer
//!    writes the copy; eviction of a PENDING frame writes the cut image anyway and
//!    records the slot for both maps.
//! 3. It writes the map pages whose entries differ from the previous checkpoint (the
//!    unchanged ones are shared) and all directory pages, to fresh slots; fsync.
//! 4. It writes the meta slot not used by the previous checkpoint (sequence parity)
//!    with the cut LSN and tree roots; fsync. The checkpoint is now durable.
//! 5. Only now do slots referenced only by the previous checkpoint become free; the
//!    file may shrink if its tail is free.
//!
//! Invariants: the cut map refers only to slots holding images as of the cut; no slot
//! of the previous durable image is written before step 4 completes; an fsync
//! failure is fatal ([`StorageError::Halted`]).

use super::file::{seal_node, with_scratch, write_meta};
use super::space::Pending;
use super::{PageFile, DIRTY, NO_PID, PENDING};
use crate::api::Result;
use crate::error::StorageError;
use crate::io::AlignedBuf;
use crate::page::meta::{encode_list, Meta, TreeRoot, LIST_ENTRIES};
use crate::page::{seal, PageNo, PageType, NO_PAGE, PAGE_SIZE};
use std::sync::atomic::Ordering;

/// What `begin_cut` recorded besides the maps.
pub(super) struct CutMeta {
    seq: u64,
    lsn: u64,
    trees: Vec<TreeRoot>,
    next_chain: u64,
}

/// A cut taken by [`PageFile::begin_cut`], to be passed to [`PageFile::flush_cut`].
#[must_use = "a cut must be flushed"]
#[derive(Debug)]
pub struct Cut {
    seq: u64,
    lsn: u64,
}

impl Cut {
    /// The checkpoint sequence this cut becomes.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The LSN the integrator gave at the cut.
    pub fn lsn(&self) -> u64 {
        self.lsn
    }
}

/// What a checkpoint wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CutStats {
    /// Pending images written from frames.
    pub from_frames: usize,
    /// Pending images written from copies made by writers.
    pub from_copies: usize,
    /// Pending images eviction wrote before the checkpointer got to them.
    pub by_eviction: usize,
    pub map_pages: usize,
    pub dir_pages: usize,
}

enum Target {
    Frame(u32),
    Copy(AlignedBuf),
}

/// Where map page k of the cut comes from.
enum MapPlan {
    Reuse(u32),
    Write(u32, Vec<u32>),
}

impl PageFile {
    /// Cuts the file at an instant no tree operation is half done; `lsn_at_cut` runs
    /// at that instant (with writers held off) and returns the LSN the cut stands for:
    /// every change logged below it is in the cut, none at or above it.
    pub fn begin_cut(&self, lsn_at_cut: impl FnOnce() -> u64) -> Result<Cut> {
        let mut slot = self.cut.lock();
        if self.cut_active.swap(true, Ordering::AcqRel) {
            return Err(StorageError::Invalid(format!(
                "a checkpoint of {} is in progress",
                self.name()
            )));
        }
        let seq = self.checkpoint_seq() + 1;
        let meta = self.gate.exclusive(|| {
            let lsn = lsn_at_cut();
            let mut sp = self.space.lock();
            sp.begin_cut();
            let cut = sp.cut.as_mut().expect("a cut was just begun");
            for (i, fr) in self.pool.frames.iter().enumerate() {
                let pid = fr.page.load(Ordering::Acquire);
                if pid == NO_PID || pid >> 32 != self.id as u64 {
                    continue;
                }
                if fr.flags.load(Ordering::Acquire) & DIRTY != 0 {
                    fr.flags.fetch_or(PENDING, Ordering::AcqRel);
                    cut.pending.insert(pid as u32, Pending::InFrame(i as u32));
                }
            }
            CutMeta {
                seq,
                lsn,
                trees: self.trees().iter().map(|t| t.snapshot()).collect(),
                next_chain: self.next_chain.load(Ordering::Relaxed),
            }
        });
        let lsn = meta.lsn;
        *slot = Some(meta);
        Ok(Cut { seq, lsn })
    }

    /// Writes the cut and makes it the file's durable checkpoint (see module docs).
    /// On error the cut is abandoned and the previous checkpoint stays in force.
    pub fn flush_cut(&self, cut: Cut) -> Result<CutStats> {
        let mut slot = self.cut.lock();
        let res = match slot.as_ref() {
            Some(m) if m.seq == cut.seq => self.flush(m),
            _ => Err(StorageError::Invalid(format!(
                "no cut {} of {} to flush",
                cut.seq,
                self.name()
            ))),
        };
        if res.is_err() {
            self.abort_cut();
        }
        *slot = None;
        self.cut_active.store(false, Ordering::Release);
        res
    }

    /// When most of the file is free, marks the pages stored in its tail dirty, so
    /// that they are written to low slots and a later checkpoint can truncate the file
    /// (shadow paging makes moving a page just another write). The checkpoint driver
    /// calls it after `flush_cut`; it holds the gate shared. Returns how many pages.
    pub fn relocate_tail(&self) -> Result<usize> {
        const BATCH: usize = 1024;
        let lpns = {
            let sp = self.space.lock();
            match sp.tail_limit() {
                Some(limit) => sp.lpns_above(limit, BATCH),
                None => return Ok(0),
            }
        };
        let _gate = self.gate.enter();
        for &lpn in &lpns {
            if let Some(mut g) = self.pool.lock_page(self, lpn)? {
                g.bytes_mut();
            }
        }
        Ok(lpns.len())
    }

    /// A whole checkpoint at once: `begin_cut`, `flush_cut`, then `relocate_tail`.
    pub fn checkpoint(&self, lsn_at_cut: impl FnOnce() -> u64) -> Result<CutStats> {
        let cut = self.begin_cut(lsn_at_cut)?;
        let stats = self.flush_cut(cut)?;
        self.relocate_tail()?;
        Ok(stats)
    }

    fn flush(&self, meta: &CutMeta) -> Result<CutStats> {
        let mut stats = CutStats::default();
        let mut lpns: Vec<PageNo> = {
            let sp = self.space.lock();
            let cut = sp.cut.as_ref().expect("begin_cut set the cut");
            cut.pending
                .iter()
                .filter(|(_, p)| !matches!(p, Pending::Done))
                .map(|(l, _)| *l)
                .collect()
        };
        let pending_at_start = self
            .space
            .lock()
            .cut
            .as_ref()
            .map_or(0, |c| c.pending.len());
        lpns.sort_unstable();
        for lpn in lpns {
            self.write_cut_page(lpn, meta.seq, &mut stats)?;
        }
        stats.by_eviction = pending_at_start - stats.from_frames - stats.from_copies;
        let (map_slots, dir_slots) = self.write_cut_map(meta.seq, &mut stats)?;
        self.sync()?;
        let (logical_pages, slots) = {
            let sp = self.space.lock();
            let cut = sp.cut.as_ref().expect("begin_cut set the cut");
            (cut.map.len() as u32, sp.n_slots)
        };
        let m = Meta {
            seq: meta.seq,
            cut_lsn: meta.lsn,
            logical_pages,
            slots,
            dir_first: dir_slots.first().copied().unwrap_or(NO_PAGE),
            map_pages: map_slots.len() as u32,
            next_chain: meta.next_chain,
            trees: meta.trees.clone(),
        };
        write_meta(self.file.as_ref(), &m)?;
        self.sync()?;
        let mut sp = self.space.lock();
        sp.complete_cut(map_slots, dir_slots);
        self.durable_seq.store(meta.seq, Ordering::Release);
        self.durable_lsn.store(meta.lsn, Ordering::Release);
        self.maybe_shrink(&mut sp)?;
        Ok(stats)
    }

    fn sync(&self) -> Result<()> {
        self.pool.stats.fsyncs.fetch_add(1, Ordering::Relaxed);
        self.file
            .sync_data()
            .map_err(|e| StorageError::Halted(format!("fsync of {} failed: {e}", self.name())))
    }

    fn write_cut_page(&self, lpn: PageNo, seq: u64, stats: &mut CutStats) -> Result<()> {
        loop {
            let target = {
                let mut sp = self.space.lock();
                let cut = sp.cut.as_mut().expect("begin_cut set the cut");
                match cut.pending.get_mut(&lpn) {
                    Some(Pending::InFrame(f)) => Target::Frame(*f),
                    Some(p @ Pending::Aside(_)) => match std::mem::replace(p, Pending::Done) {
                        Pending::Aside(buf) => Target::Copy(buf),
                        _ => unreachable!("matched Aside above"),
                    },
                    _ => return Ok(()),
                }
            };
            match target {
                Target::Copy(mut buf) => {
                    seal_node(&mut buf, seq, lpn)?;
                    let slot = self.write_fresh(&buf, true)?;
                    self.space.lock().set_cut(lpn, slot);
                    stats.from_copies += 1;
                    return Ok(());
                }
                Target::Frame(f) => {
                    if self.write_cut_frame(f, lpn, seq)? {
                        stats.from_frames += 1;
                        return Ok(());
                    }
                }
            }
        }
    }

    /// Writes the image of a PENDING frame under a shared latch; false if the frame
    /// is no longer pending (a writer copied it aside, or eviction wrote it).
    fn write_cut_frame(&self, f: u32, lpn: PageNo, seq: u64) -> Result<bool> {
        let fr = &self.pool.frames[f as usize];
        fr.latch.lock_s();
        let res = (|| {
            if !self.still_pending(f, lpn) {
                return Ok(false);
            }
            let slot = with_scratch(|buf| {
                self.pool.copy_frame(f, buf);
                seal_node(buf, seq, lpn)?;
                self.write_fresh(buf, true)
            })?;
            let mut sp = self.space.lock();
            sp.set_cut(lpn, slot);
            // The frame is unchanged since the cut, so this is also its current image.
            sp.set_current(lpn, slot);
            fr.flags.fetch_and(!(DIRTY | PENDING), Ordering::Release);
            Ok(true)
        })();
        fr.latch.unlock_s();
        res
    }

    fn still_pending(&self, f: u32, lpn: PageNo) -> bool {
        let fr = &self.pool.frames[f as usize];
        let sp = self.space.lock();
        fr.page.load(Ordering::Acquire) == self.pid(lpn)
            && fr.flags.load(Ordering::Acquire) & PENDING != 0
            && sp.cut.as_ref().is_some_and(
                |c| matches!(c.pending.get(&lpn), Some(Pending::InFrame(g)) if *g == f),
            )
    }

    /// Writes the changed map pages and all directory pages of the cut.
    fn write_cut_map(&self, seq: u64, stats: &mut CutStats) -> Result<(Vec<u32>, Vec<u32>)> {
        let plan = self.plan_map();
        let mut map_slots = Vec::with_capacity(plan.len());
        let mut buf = AlignedBuf::zeroed(PAGE_SIZE);
        for item in plan {
            match item {
                MapPlan::Reuse(slot) => map_slots.push(slot),
                MapPlan::Write(k, entries) => {
                    buf.fill(0);
                    encode_list(&mut buf, &entries, NO_PAGE);
                    seal(&mut buf, PageType::Map, seq, k);
                    map_slots.push(self.write_fresh(&buf, true)?);
                    stats.map_pages += 1;
                }
            }
        }
        let chunks: Vec<&[u32]> = map_slots.chunks(LIST_ENTRIES).collect();
        let mut dir_slots = Vec::with_capacity(chunks.len());
        for _ in 0..chunks.len() {
            let slot = self.take_slot(&mut self.space.lock(), true)?;
            dir_slots.push(slot);
        }
        for (j, c) in chunks.iter().enumerate() {
            buf.fill(0);
            encode_list(
                &mut buf,
                c,
                dir_slots.get(j + 1).copied().unwrap_or(NO_PAGE),
            );
            seal(&mut buf, PageType::MapDir, seq, j as u32);
            self.write_slot(&buf, dir_slots[j])?;
            stats.dir_pages += 1;
        }
        Ok((map_slots, dir_slots))
    }

    /// Which map pages of the cut equal the durable image's (and can be shared).
    fn plan_map(&self) -> Vec<MapPlan> {
        let mut sp = self.space.lock();
        let limit = sp.tail_limit().unwrap_or(u32::MAX);
        let cut = sp.cut.as_ref().expect("begin_cut set the cut");
        let mut plan = Vec::new();
        let mut reuse = Vec::new();
        for (k, chunk) in cut.map.chunks(LIST_ENTRIES).enumerate() {
            let old = sp.durable.chunks(LIST_ENTRIES).nth(k);
            match (old, sp.durable_map_slots.get(k)) {
                (Some(o), Some(&slot)) if o == chunk && slot < limit => {
                    plan.push(MapPlan::Reuse(slot));
                    reuse.push(slot);
                }
                _ => plan.push(MapPlan::Write(k as u32, chunk.to_vec())),
            }
        }
        for slot in reuse {
            sp.mark_cut(slot);
        }
        plan
    }

    /// Abandons the cut in progress after an error.
    fn abort_cut(&self) {
        let Some(cut) = self.space.lock().abort_cut() else {
            return;
        };
        for (lpn, p) in cut.pending {
            if let Pending::InFrame(f) = p {
                let fr = &self.pool.frames[f as usize];
                if fr.page.load(Ordering::Acquire) == self.pid(lpn) {
                    fr.flags.fetch_and(!PENDING, Ordering::AcqRel);
                }
            }
        }
    }

    /// Gives back a free tail of the file to the filesystem.
    fn maybe_shrink(&self, sp: &mut super::space::Space) -> Result<()> {
        let used = sp.used_len();
        if sp.n_slots > used + (sp.n_slots / 4).max(16) {
            let len = used + (used / 16).max(8);
            self.file.set_len(len as u64 * PAGE_SIZE as u64)?;
            sp.shrink(len);
        }
        Ok(())
    }
}
