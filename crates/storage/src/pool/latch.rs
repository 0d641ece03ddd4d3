//! The per-frame version latch: one `AtomicU64` that serves optimistic readers,
//! shared holders and an exclusive holder.
//!
//! ```text
//! bit 0       exclusive (X) held
//! bits 1..16  shared (S) holder count
//! bits 16..64 version, incremented when an X holder that changed the frame releases
//! ```
//! Optimistic readers record the word (X clear), read, and validate that the word,
//! ignoring the S count, is unchanged (seqlock pattern: acquire fence before the
//! validating load). S holders keep the frame from changing (no X while S is held) but
//! do not disturb optimistic readers: the buffer pool writes dirty frames back under
//! S. An X holder either comes from an optimistic read (`try_upgrade`: succeeds only if
//! the version did not move, so everything read under it is still current) or is
//! taken directly (`lock_x`), in which case the caller re-checks what it needs.
//! Invariant: while X is held no S holder exists and vice versa.

use std::sync::atomic::{fence, AtomicU64, Ordering};

const X: u64 = 1;
const S_ONE: u64 = 2;
const S_MASK: u64 = 0xFFFE;
const V_ONE: u64 = 1 << 16;

/// Spin, then yield, then sleep: for waits that can last as long as one page I/O.
#[derive(Default)]
pub struct Backoff(u32);

impl Backoff {
    pub fn new() -> Backoff {
        Backoff(0)
    }

    pub fn snooze(&mut self) {
        if self.0 < 7 {
            for _ in 0..(1u32 << self.0) {
                std::hint::spin_loop();
            }
        } else if self.0 < 40 {
            std::thread::yield_now();
        } else {
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
        self.0 = self.0.saturating_add(1);
    }
}

#[derive(Default)]
pub struct VersionLatch(AtomicU64);

impl VersionLatch {
    /// Starts an optimistic read: the version, or None while X is held.
    #[inline]
    pub fn read_begin(&self) -> Option<u64> {
        let v = self.0.load(Ordering::Acquire);
        (v & X == 0).then_some(v & !S_MASK)
    }

    /// Ends an optimistic read: true when nothing changed since `read_begin`.
    #[inline]
    pub fn validate(&self, version: u64) -> bool {
        fence(Ordering::Acquire);
        self.0.load(Ordering::Relaxed) & !S_MASK == version
    }

    /// Turns an optimistic read into X, waiting for S holders to leave; false when
    /// the version moved.
    pub fn try_upgrade(&self, version: u64) -> bool {
        let mut backoff = Backoff::new();
        loop {
            let cur = self.0.load(Ordering::Relaxed);
            if cur & !S_MASK != version {
                return false;
            }
            if cur & S_MASK == 0 {
                if self
                    .0
                    .compare_exchange_weak(cur, cur | X, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                {
                    // Order the holder's data writes after the X bit for readers that
                    // validate (seqlock writer side).
                    fence(Ordering::Release);
                    return true;
                }
                continue;
            }
            backoff.snooze();
        }
    }

    /// X if free right now; returns the version it was taken at.
    pub fn try_lock_x(&self) -> Option<u64> {
        let cur = self.0.load(Ordering::Relaxed);
        if cur & (X | S_MASK) != 0 {
            return None;
        }
        self.0
            .compare_exchange(cur, cur | X, Ordering::Acquire, Ordering::Relaxed)
            .ok()?;
        fence(Ordering::Release);
        Some(cur)
    }

    /// X, waiting as long as it takes.
    pub fn lock_x(&self) -> u64 {
        let mut backoff = Backoff::new();
        loop {
            if let Some(v) = self.try_lock_x() {
                return v;
            }
            backoff.snooze();
        }
    }

    /// Releases X; a holder that changed the frame bumps the version so optimistic
    /// readers that overlapped it fail validation.
    pub fn unlock_x(&self, changed: bool) {
        let cur = self.0.load(Ordering::Relaxed);
        debug_assert!(cur & X != 0 && cur & S_MASK == 0);
        let next = if changed {
            (cur & !X) + V_ONE
        } else {
            cur & !X
        };
        self.0.store(next, Ordering::Release);
    }

    /// S, waiting for an X holder to leave.
    pub fn lock_s(&self) {
        let mut backoff = Backoff::new();
        loop {
            let cur = self.0.load(Ordering::Relaxed);
            if cur & X == 0
                && cur & S_MASK != S_MASK
                && self
                    .0
                    .compare_exchange_weak(cur, cur + S_ONE, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                return;
            }
            backoff.snooze();
        }
    }

    pub fn unlock_s(&self) {
        self.0.fetch_sub(S_ONE, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optimistic_then_upgrade() {
        let l = VersionLatch::default();
        let v = l.read_begin().expect("no writer holds the latch");
        assert!(l.validate(v));
        assert!(l.try_upgrade(v));
        assert!(l.read_begin().is_none());
        assert!(!l.validate(v));
        l.unlock_x(true);
        assert!(!l.validate(v));
        let v2 = l.read_begin().expect("no writer holds the latch");
        assert!(!l.try_upgrade(v));
        assert!(l.try_upgrade(v2));
        l.unlock_x(false);
        assert!(l.validate(v2));
    }

    #[test]
    fn shared_blocks_x_not_readers() {
        let l = VersionLatch::default();
        let v = l.read_begin().expect("no writer holds the latch");
        l.lock_s();
        assert!(l.validate(v));
        assert!(l.try_lock_x().is_none());
        assert_eq!(l.read_begin(), Some(v));
        l.unlock_s();
        assert!(l.try_lock_x().is_some());
        l.unlock_x(false);
        assert!(l.validate(v));
    }
}
