//! The page table: page id -> frame, with lock-free lookups.
//!
//! Sharded open-addressing (linear probing) tables of `AtomicU32` frame numbers; the
//! key is not stored: a slot matches when the frame it names currently holds the page
//! id (the frame's own `page` word). Inserts and removals take the shard's mutex;
//! removal uses backward-shift deletion, so there are no tombstones.
//!
//! Why lookups need no lock: a lookup hit is only a hint, confirmed by the caller
//! through the frame (page word read after the frame's version, then the version
//! validated). A lookup that races with a shift can miss a present page; a miss is
//! therefore re-checked under the shard mutex before anyone loads the page, so a page
//! is never resident in two frames. Invariant: a frame is in the table under page id
//! p only while its page word is p; the page word changes only while the frame is out
//! of the table and exclusively latched.

use parking_lot::{Mutex, MutexGuard};
use std::sync::atomic::{AtomicU32, Ordering};

const EMPTY: u32 = u32::MAX;

struct Shard {
    slots: Box<[AtomicU32]>,
    lock: Mutex<usize>,
}

pub struct PageTable {
    shards: Box<[Shard]>,
    shard_bits: u32,
}

fn mix(pid: u64) -> u64 {
    let h = (pid ^ (pid >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^ (h >> 29)
}

/// The shard locked for one page id.
pub struct Locked<'a> {
    shard: &'a Shard,
    len: MutexGuard<'a, usize>,
    home: usize,
}

impl PageTable {
    /// A table for `frames` frames.
    pub fn new(frames: usize) -> PageTable {
        let shard_bits = (frames / 1024).next_power_of_two().trailing_zeros().min(6);
        let shards = 1usize << shard_bits;
        let per = frames.div_ceil(shards);
        // At least twice the expected entries: a shard refuses inserts at 7/8 full,
        // far beyond the statistical spread of a hash over >= 1024 frames per shard.
        let cap = (2 * per).next_power_of_two().max(32);
        PageTable {
            shards: (0..shards)
                .map(|_| Shard {
                    slots: (0..cap).map(|_| AtomicU32::new(EMPTY)).collect(),
                    lock: Mutex::new(0),
                })
                .collect(),
            shard_bits,
        }
    }

    /// Bytes the table takes.
    pub fn bytes(&self) -> usize {
        self.shards.len() * (self.shards[0].slots.len() * 4 + std::mem::size_of::<Shard>())
    }

    fn locate(&self, pid: u64) -> (&Shard, usize) {
        let h = mix(pid);
        let shard = if self.shard_bits == 0 {
            0
        } else {
            (h >> (64 - self.shard_bits)) as usize
        };
        let s = &self.shards[shard];
        (s, h as usize & (s.slots.len() - 1))
    }

    /// The frame that may hold `pid` (a hint: see module docs).
    #[inline]
    pub fn get(&self, pid: u64, page_of: impl Fn(u32) -> u64) -> Option<u32> {
        let (s, home) = self.locate(pid);
        probe(s, home, pid, &page_of).map(|(_, f)| f)
    }

    /// Locks the shard of `pid` for an authoritative lookup and a change.
    pub fn lock(&self, pid: u64) -> Locked<'_> {
        let (shard, home) = self.locate(pid);
        Locked {
            shard,
            len: shard.lock.lock(),
            home,
        }
    }
}

fn probe(s: &Shard, home: usize, pid: u64, page_of: &impl Fn(u32) -> u64) -> Option<(usize, u32)> {
    let mask = s.slots.len() - 1;
    let mut i = home;
    for _ in 0..s.slots.len() {
        let f = s.slots[i].load(Ordering::Acquire);
        if f == EMPTY {
            return None;
        }
        if page_of(f) == pid {
            return Some((i, f));
        }
        i = (i + 1) & mask;
    }
    None
}

impl Locked<'_> {
    pub fn get(&self, pid: u64, page_of: impl Fn(u32) -> u64) -> Option<u32> {
        probe(self.shard, self.home, pid, &page_of).map(|(_, f)| f)
    }

    /// Adds `frame` (whose page word already is the page id). False when the shard is
    /// full, which the sizing makes practically impossible.
    pub fn insert(&mut self, frame: u32) -> bool {
        let slots = &self.shard.slots;
        if (*self.len + 1) * 8 > slots.len() * 7 {
            return false;
        }
        let mask = slots.len() - 1;
        let mut i = self.home;
        while slots[i].load(Ordering::Relaxed) != EMPTY {
            i = (i + 1) & mask;
        }
        slots[i].store(frame, Ordering::Release);
        *self.len += 1;
        true
    }

    /// Removes the entry of `pid` (held by `frame`); `home_of` gives the home slot of
    /// the page held by any frame in this shard.
    pub fn remove(&mut self, pid: u64, page_of: impl Fn(u32) -> u64) {
        let Some((mut hole, _)) = probe(self.shard, self.home, pid, &page_of) else {
            return;
        };
        let slots = &self.shard.slots;
        let mask = slots.len() - 1;
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let f = slots[j].load(Ordering::Relaxed);
            if f == EMPTY {
                break;
            }
            let home = mix(page_of(f)) as usize & mask;
            // Move f into the hole unless its home lies cyclically in (hole, j].
            let stays = if hole <= j {
                hole < home && home <= j
            } else {
                hole < home || home <= j
            };
            if !stays {
                slots[hole].store(f, Ordering::Release);
                hole = j;
            }
        }
        slots[hole].store(EMPTY, Ordering::Release);
        *self.len -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn insert_get_remove_many() {
        let n = 3000usize;
        let t = PageTable::new(n);
        // Frame f holds page pages[f].
        let pages: Vec<u64> = (0..n as u64)
            .map(|i| (7 << 32) | (i * 7919 % 100_003))
            .collect();
        let page_of = |f: u32| pages[f as usize];
        for f in 0..n as u32 {
            let pid = pages[f as usize];
            let mut l = t.lock(pid);
            assert!(l.get(pid, page_of).is_none());
            assert!(l.insert(f));
        }
        for f in 0..n as u32 {
            assert_eq!(t.get(pages[f as usize], page_of), Some(f));
        }
        let mut live: HashMap<u64, u32> = HashMap::new();
        for f in 0..n as u32 {
            if f % 3 == 0 {
                let pid = pages[f as usize];
                t.lock(pid).remove(pid, page_of);
            } else {
                live.insert(pages[f as usize], f);
            }
        }
        for f in 0..n as u32 {
            let pid = pages[f as usize];
            assert_eq!(t.get(pid, page_of), live.get(&pid).copied(), "frame {f}");
        }
    }
}
