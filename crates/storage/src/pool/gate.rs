//! The checkpoint gate: tree write operations hold it shared for their whole duration,
//! a checkpoint cut holds it exclusively for a moment, so the cut happens at an
//! instant when no tree operation is half done.
//!
//! Shared holders increment a counter in one of several cache-line-padded shards
//! (chosen per thread), so writers on different cores do not contend on one cache
//! line. The exclusive side raises `closing`, waits until every shard counts zero, runs
//! its closure and lowers `closing`. A shared entrant that sees `closing` after
//! incrementing backs out and waits: the SeqCst increment-then-check on the entrant
//! side and store-then-scan on the closing side guarantee that either the closer sees
//! the entrant's count or the entrant sees `closing` (Dekker).
//!
//! The gate is not reentrant: a thread holding it shared must not enter again (a cut
//! waiting in between would deadlock).

use super::latch::Backoff;
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

#[repr(align(128))]
#[derive(Default)]
struct Padded(AtomicU64);

pub struct Gate {
    counts: Box<[Padded]>,
    closing: AtomicBool,
    exclusive: Mutex<()>,
    wait: Mutex<()>,
    reopened: Condvar,
}

/// Proof that the gate is held shared; released on drop.
pub struct GateGuard<'a> {
    gate: &'a Gate,
    shard: usize,
}

impl Drop for GateGuard<'_> {
    fn drop(&mut self) {
        self.gate.counts[self.shard]
            .0
            .fetch_sub(1, Ordering::SeqCst);
    }
}

fn thread_shard() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static SHARD: usize = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    SHARD.with(|s| *s)
}

impl Default for Gate {
    fn default() -> Self {
        Gate::new()
    }
}

impl Gate {
    pub fn new() -> Gate {
        let cpus = std::thread::available_parallelism().map_or(4, |n| n.get());
        let shards = (cpus * 2).next_power_of_two().clamp(4, 64);
        Gate {
            counts: (0..shards).map(|_| Padded::default()).collect(),
            closing: AtomicBool::new(false),
            exclusive: Mutex::new(()),
            wait: Mutex::new(()),
            reopened: Condvar::new(),
        }
    }

    /// Holds the gate shared until the guard drops; waits while a cut holds it.
    pub fn enter(&self) -> GateGuard<'_> {
        let shard = thread_shard() & (self.counts.len() - 1);
        loop {
            self.wait_open();
            self.counts[shard].0.fetch_add(1, Ordering::SeqCst);
            if !self.closing.load(Ordering::SeqCst) {
                return GateGuard { gate: self, shard };
            }
            self.counts[shard].0.fetch_sub(1, Ordering::SeqCst);
        }
    }

    fn wait_open(&self) {
        if !self.closing.load(Ordering::SeqCst) {
            return;
        }
        let mut g = self.wait.lock();
        while self.closing.load(Ordering::SeqCst) {
            self.reopened
                .wait_for(&mut g, std::time::Duration::from_millis(5));
        }
    }

    /// Runs `f` while no shared holder exists.
    pub fn exclusive<R>(&self, f: impl FnOnce() -> R) -> R {
        let _one = self.exclusive.lock();
        self.closing.store(true, Ordering::SeqCst);
        let mut backoff = Backoff::new();
        while self.counts.iter().any(|c| c.0.load(Ordering::SeqCst) != 0) {
            backoff.snooze();
        }
        let r = f();
        {
            let _g = self.wait.lock();
            self.closing.store(false, Ordering::SeqCst);
        }
        self.reopened.notify_all();
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn exclusive_waits_for_shared() {
        let gate = Arc::new(Gate::new());
        let inside = Arc::new(AtomicU64::new(0));
        let g = gate.enter();
        let (gate2, inside2) = (gate.clone(), inside.clone());
        let t = std::thread::spawn(move || gate2.exclusive(|| inside2.load(Ordering::SeqCst)));
        std::thread::sleep(std::time::Duration::from_millis(20));
        inside.store(1, Ordering::SeqCst);
        drop(g);
        assert_eq!(t.join().expect("the thread does not panic"), 1);
        drop(gate.enter());
    }
}
