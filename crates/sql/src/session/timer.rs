//! Statement deadlines: `max_statement_time`.
//!
//! A statement with a limit is *armed* before it runs: an entry keyed by
//! (deadline, sequence number) goes into one map shared by the server, and one
//! timer thread sleeps until the earliest deadline. When a deadline passes while
//! its entry is still there, the thread marks the session's [`Watch`] as fired and
//! sets the session's interrupt flag, the same flag `KILL QUERY` sets: every place
//! that already stops for KILL QUERY (row loops, row-lock waits, `SLEEP()`) stops
//! for the deadline too, and the session reports errno 1969 instead of 1317.
//!
//! Invariants:
//! - Firing and disarming both happen under the map's mutex, so once
//!   [`StatementTimer::disarm`] has returned, the statement it armed can no longer
//!   be interrupted by its deadline, and `fired` tells exactly whether it was.
//! - An entry lives from `arm` to `disarm` or its firing, whichever comes first:
//!   the map holds at most one entry per running statement, never stale ones.
//! - Nothing here runs for a statement without a limit (the default), so the
//!   statement path costs nothing more than checking that the limit is zero.

use parking_lot::{Condvar, Mutex};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

/// One session's link to the timer: its interrupt flag and whether the deadline
/// of the statement it runs has passed.
pub struct Watch {
    interrupt: Arc<AtomicBool>,
    fired: AtomicBool,
}

impl Watch {
    pub fn new(interrupt: Arc<AtomicBool>) -> Arc<Watch> {
        Arc::new(Watch {
            interrupt,
            fired: AtomicBool::new(false),
        })
    }
}

/// Key of an armed statement (what [`StatementTimer::disarm`] takes back).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Armed {
    deadline: Instant,
    seq: u64,
}

#[derive(Default)]
struct State {
    armed: BTreeMap<Armed, Weak<Watch>>,
    next_seq: u64,
    stop: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

/// The deadlines of every session of an engine, served by one thread started on
/// first use and stopped when the timer drops.
#[derive(Default)]
pub struct StatementTimer {
    shared: Arc<Shared>,
    thread: OnceLock<()>,
}

impl StatementTimer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Arms `watch` to fire `limit` from now.
    pub fn arm(&self, watch: &Arc<Watch>, limit: Duration) -> Armed {
        self.start_thread();
        watch.fired.store(false, Ordering::SeqCst);
        let mut st = self.shared.state.lock();
        st.next_seq += 1;
        let key = Armed {
            deadline: Instant::now() + limit,
            seq: st.next_seq,
        };
        let earliest = st.armed.keys().next().is_none_or(|first| key < *first);
        st.armed.insert(key, Arc::downgrade(watch));
        drop(st);
        if earliest {
            self.shared.wake.notify_one();
        }
        key
    }

    /// Takes the entry back; true when the deadline had already fired.
    pub fn disarm(&self, key: Armed, watch: &Watch) -> bool {
        let mut st = self.shared.state.lock();
        st.armed.remove(&key);
        drop(st);
        watch.fired.load(Ordering::SeqCst)
    }

    /// Statements armed now.
    #[cfg(test)]
    fn armed_count(&self) -> usize {
        self.shared.state.lock().armed.len()
    }

    fn start_thread(&self) {
        self.thread.get_or_init(|| {
            let shared = self.shared.clone();
            let spawned = std::thread::Builder::new()
                .name("basalt-stmt-timer".into())
                .spawn(move || run(&shared));
            if let Err(e) = spawned {
                tracing::error!(error = %e, "cannot start the statement timer thread");
            }
        });
    }
}

impl Drop for StatementTimer {
    fn drop(&mut self) {
        self.shared.state.lock().stop = true;
        self.shared.wake.notify_all();
    }
}

/// The timer thread: fires every entry whose deadline passed, then sleeps until
/// the next deadline (or until woken by an earlier one, or by the stop).
fn run(shared: &Shared) {
    let mut st = shared.state.lock();
    loop {
        if st.stop {
            return;
        }
        let now = Instant::now();
        while let Some((&key, _)) = st.armed.iter().next() {
            if key.deadline > now {
                break;
            }
            if let Some(w) = st.armed.remove(&key).and_then(|w| w.upgrade()) {
                w.fired.store(true, Ordering::SeqCst);
                w.interrupt.store(true, Ordering::SeqCst);
            }
        }
        match st.armed.keys().next().map(|k| k.deadline) {
            Some(d) => {
                shared.wake.wait_until(&mut st, d);
            }
            None => shared.wake.wait(&mut st),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watch() -> (Arc<AtomicBool>, Arc<Watch>) {
        let flag = Arc::new(AtomicBool::new(false));
        let w = Watch::new(flag.clone());
        (flag, w)
    }

    #[test]
    fn a_passed_deadline_sets_the_flag_and_reports_fired() {
        let t = StatementTimer::new();
        let (flag, w) = watch();
        let key = t.arm(&w, Duration::from_millis(20));
        let start = Instant::now();
        while !flag.load(Ordering::SeqCst) {
            assert!(start.elapsed() < Duration::from_secs(5), "never fired");
            std::thread::sleep(Duration::from_millis(2));
        }
        assert!(t.disarm(key, &w));
        assert_eq!(t.armed_count(), 0);
    }

    #[test]
    fn disarmed_in_time_never_fires() {
        let t = StatementTimer::new();
        let (flag, w) = watch();
        let key = t.arm(&w, Duration::from_millis(30));
        assert!(!t.disarm(key, &w));
        assert_eq!(t.armed_count(), 0);
        std::thread::sleep(Duration::from_millis(60));
        assert!(!flag.load(Ordering::SeqCst));
    }

    #[test]
    fn an_earlier_deadline_wakes_the_thread() {
        let t = StatementTimer::new();
        let (_late_flag, late) = watch();
        let late_key = t.arm(&late, Duration::from_secs(3600));
        let (flag, w) = watch();
        let key = t.arm(&w, Duration::from_millis(10));
        let start = Instant::now();
        while !flag.load(Ordering::SeqCst) {
            assert!(start.elapsed() < Duration::from_secs(5), "never fired");
            std::thread::sleep(Duration::from_millis(2));
        }
        assert!(t.disarm(key, &w));
        assert!(!t.disarm(late_key, &late));
    }
}
