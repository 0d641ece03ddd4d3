//! Space bookkeeping of one table file: the page maps and which physical slots and
//! logical pages are free. Pure data structure; the file layer holds it under a mutex.
//!
//! Three images may refer to a physical slot: the *current* map (what a reader loads),
//! the *durable* image (the last complete checkpoint: its map plus its map and
//! directory pages), and the *cut* being flushed (its map plus the map and directory
//! pages written for it so far). A slot is free iff none of the three refers to it; a
//! slot handed out for a write is marked in the image it is written for *before* the
//! write, so it cannot be handed out twice. Invariants:
//! - a slot referenced by the durable image is never written (shadow paging);
//! - `free_slots` holds exactly the data slots (>= FIRST_SLOT, < n_slots) with no
//!   reference bit;
//! - `free_lpns` holds exactly the logical pages whose current entry is FREE;
//! - a logical page is UNWRITTEN only while it is resident and dirty in the pool.

use crate::page::{PageNo, NO_PAGE};
use std::collections::{BTreeSet, HashMap};

/// Map entry of a logical page that is not allocated.
pub const FREE: u32 = NO_PAGE;
/// Map entry of a logical page allocated but never written (resident, dirty).
pub const UNWRITTEN: u32 = NO_PAGE - 1;
/// First physical page that holds page images (0 and 1 are the meta slots).
pub const FIRST_SLOT: u32 = 2;

pub fn is_slot(entry: u32) -> bool {
    entry < UNWRITTEN
}

#[derive(Default, Clone)]
pub struct Bits(Vec<u64>);

impl Bits {
    pub fn get(&self, i: u32) -> bool {
        self.0
            .get(i as usize / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    pub fn set(&mut self, i: u32, on: bool) {
        let w = i as usize / 64;
        if w >= self.0.len() {
            self.0.resize(w + 1, 0);
        }
        if on {
            self.0[w] |= 1 << (i % 64);
        } else {
            self.0[w] &= !(1 << (i % 64));
        }
    }

    fn word(&self, w: usize) -> u64 {
        self.0.get(w).copied().unwrap_or(0)
    }

    fn words(&self) -> usize {
        self.0.len()
    }
}

/// The image of a logical page a cut must write, while the cut is flushed.
pub enum Pending {
    /// The frame still holds the page as of the cut (its PENDING flag is set).
    InFrame(u32),
    /// A writer copied the cut image aside before changing the frame.
    Aside(crate::io::AlignedBuf),
    /// Written; the cut map points to it.
    Done,
}

/// The cut being flushed.
pub struct CutSpace {
    pub map: Vec<u32>,
    pub pending: HashMap<PageNo, Pending>,
}

pub struct Space {
    pub cur: Vec<u32>,
    pub durable: Vec<u32>,
    /// Physical slots of the durable image's map pages, by map page index.
    pub durable_map_slots: Vec<u32>,
    /// Physical slots of the durable image's directory pages.
    pub durable_dir_slots: Vec<u32>,
    cur_bits: Bits,
    durable_bits: Bits,
    cut_bits: Bits,
    free_slots: BTreeSet<u32>,
    free_lpns: BTreeSet<u32>,
    pub n_slots: u32,
    pub cut: Option<CutSpace>,
}

impl Space {
    /// The space of a file opened at a checkpoint with map `durable`, whose map and
    /// directory pages are at the given slots, `n_slots` physical pages long.
    pub fn open(
        durable: Vec<u32>,
        map_slots: Vec<u32>,
        dir_slots: Vec<u32>,
        n_slots: u32,
    ) -> Space {
        let mut s = Space {
            cur: durable.clone(),
            durable,
            durable_map_slots: map_slots,
            durable_dir_slots: dir_slots,
            cur_bits: Bits::default(),
            durable_bits: Bits::default(),
            cut_bits: Bits::default(),
            free_slots: BTreeSet::new(),
            free_lpns: BTreeSet::new(),
            n_slots: n_slots.max(FIRST_SLOT),
            cut: None,
        };
        for (lpn, &e) in s.durable.iter().enumerate() {
            if is_slot(e) {
                s.durable_bits.set(e, true);
                s.cur_bits.set(e, true);
            } else {
                s.free_lpns.insert(lpn as u32);
            }
        }
        for &slot in s.durable_map_slots.iter().chain(&s.durable_dir_slots) {
            s.durable_bits.set(slot, true);
        }
        for slot in FIRST_SLOT..s.n_slots {
            if !s.referenced(slot) {
                s.free_slots.insert(slot);
            }
        }
        s
    }

    fn referenced(&self, slot: u32) -> bool {
        self.cur_bits.get(slot) || self.durable_bits.get(slot) || self.cut_bits.get(slot)
    }

    fn release_if_unreferenced(&mut self, slot: u32) {
        if slot >= FIRST_SLOT && slot < self.n_slots && !self.referenced(slot) {
            self.free_slots.insert(slot);
        }
    }

    /// Whether the durable image refers to `slot`.
    #[cfg(test)]
    pub fn is_durable(&self, slot: u32) -> bool {
        self.durable_bits.get(slot)
    }

    /// Takes the lowest free slot for a write of the current image (`for_cut` false)
    /// or of the cut; None when the file must grow first.
    pub fn take_slot(&mut self, for_cut: bool) -> Option<u32> {
        let slot = self.free_slots.pop_first()?;
        if for_cut {
            self.cut_bits.set(slot, true);
        } else {
            self.cur_bits.set(slot, true);
        }
        Some(slot)
    }

    /// Returns a slot taken with `take_slot` whose write failed.
    pub fn untake_slot(&mut self, slot: u32, for_cut: bool) {
        if for_cut {
            self.cut_bits.set(slot, false);
        } else {
            self.cur_bits.set(slot, false);
        }
        self.release_if_unreferenced(slot);
    }

    /// Adds slots `n_slots..new_len` (the file grew).
    pub fn grow(&mut self, new_len: u32) {
        for slot in self.n_slots..new_len {
            self.free_slots.insert(slot);
        }
        self.n_slots = new_len;
    }

    /// The current map now places `lpn` at `slot` (taken for the current image).
    pub fn set_current(&mut self, lpn: PageNo, slot: u32) {
        self.cur_bits.set(slot, true);
        let old = std::mem::replace(&mut self.cur[lpn as usize], slot);
        if is_slot(old) && old != slot {
            self.cur_bits.set(old, false);
            self.release_if_unreferenced(old);
        }
    }

    /// The cut's image of `lpn` is at `slot`; the slot is marked for the cut.
    pub fn set_cut(&mut self, lpn: PageNo, slot: u32) {
        let Some(cut) = self.cut.as_mut() else {
            return;
        };
        self.cut_bits.set(slot, true);
        let old = std::mem::replace(&mut cut.map[lpn as usize], slot);
        cut.pending.insert(lpn, Pending::Done);
        if is_slot(old) && old != slot {
            self.cut_bits.set(old, false);
            self.release_if_unreferenced(old);
        }
    }

    /// The cut refers to `slot` (a map page shared with the durable image).
    pub fn mark_cut(&mut self, slot: u32) {
        self.cut_bits.set(slot, true);
    }

    /// A logical page for a new node: the lowest free one, else a new one.
    pub fn alloc_lpn(&mut self) -> PageNo {
        let lpn = match self.free_lpns.pop_first() {
            Some(l) => l,
            None => {
                self.cur.push(FREE);
                (self.cur.len() - 1) as u32
            }
        };
        self.cur[lpn as usize] = UNWRITTEN;
        lpn
    }

    pub fn free_lpn(&mut self, lpn: PageNo) {
        let old = std::mem::replace(&mut self.cur[lpn as usize], FREE);
        debug_assert!(old != FREE, "double free of logical page {lpn}");
        if is_slot(old) {
            self.cur_bits.set(old, false);
            self.release_if_unreferenced(old);
        }
        self.free_lpns.insert(lpn);
    }

    /// Where `lpn` can be read from: Some(slot), or None when it is not allocated or
    /// has no image on disk.
    pub fn slot_of(&self, lpn: PageNo) -> Option<u32> {
        self.cur.get(lpn as usize).copied().filter(|&e| is_slot(e))
    }

    /// Starts a cut: the cut map is the current map.
    pub fn begin_cut(&mut self) {
        let map = self.cur.clone();
        self.cut_bits = Bits::default();
        for &e in &map {
            if is_slot(e) {
                self.cut_bits.set(e, true);
            }
        }
        self.cut = Some(CutSpace {
            map,
            pending: HashMap::new(),
        });
    }

    /// Abandons the cut (its writes failed): slots only it referred to become free.
    pub fn abort_cut(&mut self) -> Option<CutSpace> {
        let cut = self.cut.take();
        let bits = std::mem::take(&mut self.cut_bits);
        for w in 0..bits.words() {
            let mut word = bits.word(w);
            while word != 0 {
                let slot = (w * 64) as u32 + word.trailing_zeros();
                word &= word - 1;
                self.release_if_unreferenced(slot);
            }
        }
        cut
    }

    /// The cut is durable: it becomes the durable image, written with map pages and
    /// directory pages at the given slots (taken `for_cut`). Slots only the previous
    /// durable image referred to become free.
    pub fn complete_cut(&mut self, map_slots: Vec<u32>, dir_slots: Vec<u32>) {
        let cut = self.cut.take().expect("a cut is in progress");
        let old_bits =
            std::mem::replace(&mut self.durable_bits, std::mem::take(&mut self.cut_bits));
        self.durable = cut.map;
        self.durable_map_slots = map_slots;
        self.durable_dir_slots = dir_slots;
        for w in 0..old_bits.words() {
            let mut word = old_bits.word(w) & !self.durable_bits.word(w);
            while word != 0 {
                let slot = (w * 64) as u32 + word.trailing_zeros();
                word &= word - 1;
                self.release_if_unreferenced(slot);
            }
        }
    }

    /// Physical pages the file needs: one past the highest referenced slot.
    pub fn used_len(&self) -> u32 {
        (FIRST_SLOT..self.n_slots)
            .rev()
            .find(|&s| self.referenced(s))
            .map_or(FIRST_SLOT, |s| s + 1)
    }

    /// Forgets the free slots at and above `len` (the file shrank to `len`).
    pub fn shrink(&mut self, len: u32) {
        debug_assert!(len >= self.used_len());
        let _ = self.free_slots.split_off(&len);
        self.n_slots = len;
    }

    /// When the file is mostly free: the slot above which live images should move so
    /// the file can shrink (see `PageFile::relocate_tail`).
    pub fn tail_limit(&self) -> Option<u32> {
        let words = self
            .cur_bits
            .words()
            .max(self.durable_bits.words())
            .max(self.cut_bits.words());
        let used: u32 = (0..words)
            .map(|w| {
                (self.cur_bits.word(w) | self.durable_bits.word(w) | self.cut_bits.word(w))
                    .count_ones()
            })
            .sum();
        let limit = FIRST_SLOT + used + (used / 8).max(8);
        (self.n_slots > limit + (used / 4).max(16)).then_some(limit)
    }

    /// Logical pages whose current image lies at or above `limit` (at most `max`).
    pub fn lpns_above(&self, limit: u32, max: usize) -> Vec<PageNo> {
        self.cur
            .iter()
            .enumerate()
            .filter(|(_, &e)| is_slot(e) && e >= limit)
            .map(|(l, _)| l as PageNo)
            .take(max)
            .collect()
    }

    pub fn free_slot_count(&self) -> usize {
        self.free_slots.len()
    }

    pub fn free_lpn_count(&self) -> usize {
        self.free_lpns.len()
    }

    /// Logical page numbers handed out so far (free or not).
    pub fn lpn_count(&self) -> usize {
        self.cur.len()
    }

    /// Bytes of memory the maps and bitmaps take.
    pub fn memory_bytes(&self) -> usize {
        let cut = self.cut.as_ref().map_or(0, |c| c.map.len() * 4);
        (self.cur.len() + self.durable.len()) * 4
            + cut
            + (self.cur_bits.words() + self.durable_bits.words() + self.cut_bits.words()) * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shadow_slots_are_not_reused_until_checkpoint() {
        let mut s = Space::open(vec![], vec![], vec![], FIRST_SLOT);
        assert_eq!(s.take_slot(false), None);
        s.grow(10);
        let a = s.alloc_lpn();
        let slot = s.take_slot(false).expect("the space has a free slot");
        s.set_current(a, slot);
        s.begin_cut();
        // The page is rewritten after the cut: the cut still refers to the old slot.
        let slot2 = s.take_slot(false).expect("the space has a free slot");
        s.set_current(a, slot2);
        assert_ne!(slot, slot2);
        let m = s.take_slot(true).expect("the space has a free slot");
        let d = s.take_slot(true).expect("the space has a free slot");
        s.complete_cut(vec![m], vec![d]);
        assert!(s.is_durable(slot) && s.is_durable(m) && s.is_durable(d));
        let before = s.free_slot_count();
        // A second checkpoint that no longer refers to `slot`, m and d frees them.
        s.begin_cut();
        let m2 = s.take_slot(true).expect("the space has a free slot");
        let d2 = s.take_slot(true).expect("the space has a free slot");
        s.complete_cut(vec![m2], vec![d2]);
        assert!(!s.is_durable(slot));
        assert_eq!(s.free_slot_count(), before - 2 + 3);
    }

    #[test]
    fn lpns_are_reused() {
        let mut s = Space::open(vec![FREE, 5], vec![3], vec![4], 8);
        assert_eq!(s.alloc_lpn(), 0);
        assert_eq!(s.alloc_lpn(), 2);
        s.free_lpn(1);
        assert!(s.is_durable(5));
        assert_eq!(s.alloc_lpn(), 1);
        assert_eq!(s.used_len(), 6);
    }
}
