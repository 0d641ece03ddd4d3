//! User-level locks: `GET_LOCK(name, timeout)` and its companions, as MariaDB has
//! them (named locks outside transactions, held by a connection until it releases
//! them or goes away).
//!
//! One registry per server maps each held name to its owner connection and a
//! count (a connection may take the same lock again; each `RELEASE_LOCK` gives
//! back one). Names compare byte for byte, as MariaDB 10.11 compares them (case
//! matters). A connection waits for at most one name at a time; before waiting it
//! follows the chain "waits for a name held by" from the owner, and a chain that
//! comes back to the requester is a deadlock, reported to the requester (errno
//! 1213, as MariaDB's metadata-lock deadlock detector answers GET_LOCK). Waiters
//! sleep on one condition variable that every release wakes, in slices short
//! enough to notice KILL QUERY and `max_statement_time`.

use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Longest uninterrupted wait: how late an interrupt may be noticed.
const SLICE: Duration = Duration::from_millis(10);

/// What [`UserLocks::acquire`] ended with.
#[derive(Debug, PartialEq, Eq)]
pub enum Acquire {
    Granted,
    TimedOut,
    /// KILL QUERY or `max_statement_time` stopped the wait.
    Interrupted,
    /// Waiting would close a cycle of waiting connections.
    Deadlock,
}

#[derive(Default)]
pub struct UserLocks {
    state: Mutex<State>,
    released: Condvar,
}

#[derive(Default)]
struct State {
    held: HashMap<Vec<u8>, Held>,
    /// The name each waiting connection waits for.
    waiting: HashMap<u64, Vec<u8>>,
}

struct Held {
    owner: u64,
    count: u64,
}

impl State {
    /// True when `conn` waiting for `name` would wait for itself through others.
    fn closes_cycle(&self, conn: u64, name: &[u8]) -> bool {
        let mut at = name;
        // A chain longer than the number of waiters has repeated itself.
        for _ in 0..=self.waiting.len() {
            let Some(h) = self.held.get(at) else {
                return false;
            };
            if h.owner == conn {
                return true;
            }
            match self.waiting.get(&h.owner) {
                Some(next) => at = next,
                None => return false,
            }
        }
        false
    }
}

impl UserLocks {
    /// Takes `name` for `conn`, waiting up to `timeout` (None: without end) while
    /// another connection holds it.
    pub fn acquire(
        &self,
        conn: u64,
        name: &[u8],
        timeout: Option<Duration>,
        interrupt: Option<&AtomicBool>,
    ) -> Acquire {
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let mut st = self.state.lock();
        loop {
            match st.held.get_mut(name) {
                None => {
                    st.held.insert(
                        name.to_vec(),
                        Held {
                            owner: conn,
                            count: 1,
                        },
                    );
                    st.waiting.remove(&conn);
                    return Acquire::Granted;
                }
                Some(h) if h.owner == conn => {
                    h.count += 1;
                    st.waiting.remove(&conn);
                    return Acquire::Granted;
                }
                Some(_) => {}
            }
            let outcome = if st.closes_cycle(conn, name) {
                Some(Acquire::Deadlock)
            } else if interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
                Some(Acquire::Interrupted)
            } else {
                match deadline {
                    Some(d) if d <= Instant::now() => Some(Acquire::TimedOut),
                    _ => None,
                }
            };
            if let Some(o) = outcome {
                st.waiting.remove(&conn);
                return o;
            }
            st.waiting.insert(conn, name.to_vec());
            let slice = deadline.map_or(SLICE, |d| {
                d.saturating_duration_since(Instant::now()).min(SLICE)
            });
            basalt_common::wait::waiting(|| self.released.wait_for(&mut st, slice));
        }
    }

    /// `RELEASE_LOCK`: None when nobody holds `name`, Some(false) when another
    /// connection does, Some(true) when `conn` gave one count of it back.
    pub fn release(&self, conn: u64, name: &[u8]) -> Option<bool> {
        let mut st = self.state.lock();
        let h = st.held.get_mut(name)?;
        if h.owner != conn {
            return Some(false);
        }
        h.count -= 1;
        if h.count == 0 {
            st.held.remove(name);
            self.released.notify_all();
        }
        Some(true)
    }

    /// `RELEASE_ALL_LOCKS` and the end of a connection: the number of counts given
    /// back.
    pub fn release_all(&self, conn: u64) -> u64 {
        let mut st = self.state.lock();
        let mut n = 0;
        st.held.retain(|_, h| {
            if h.owner == conn {
                n += h.count;
            }
            h.owner != conn
        });
        st.waiting.remove(&conn);
        if n > 0 {
            self.released.notify_all();
        }
        n
    }

    /// `IS_USED_LOCK`: the connection holding `name`.
    pub fn owner(&self, name: &[u8]) -> Option<u64> {
        self.state.lock().held.get(name).map(|h| h.owner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn counts_and_owners() {
        let l = UserLocks::default();
        assert_eq!(
            l.acquire(1, b"a", Some(Duration::ZERO), None),
            Acquire::Granted
        );
        assert_eq!(
            l.acquire(1, b"a", Some(Duration::ZERO), None),
            Acquire::Granted
        );
        assert_eq!(
            l.acquire(2, b"a", Some(Duration::ZERO), None),
            Acquire::TimedOut
        );
        assert_eq!(
            l.acquire(2, b"A", Some(Duration::ZERO), None),
            Acquire::Granted
        );
        assert_eq!(l.owner(b"a"), Some(1));
        assert_eq!(l.release(2, b"a"), Some(false));
        assert_eq!(l.release(1, b"a"), Some(true));
        assert_eq!(l.owner(b"a"), Some(1));
        assert_eq!(l.release_all(1), 1);
        assert_eq!(l.release(1, b"a"), None);
        assert_eq!(l.release_all(2), 1);
    }

    #[test]
    fn a_waiter_gets_the_lock_when_it_is_released() {
        let l = Arc::new(UserLocks::default());
        assert_eq!(l.acquire(1, b"x", None, None), Acquire::Granted);
        let l2 = l.clone();
        let t = std::thread::spawn(move || l2.acquire(2, b"x", None, None));
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(l.release_all(1), 1);
        assert_eq!(t.join().expect("waiter"), Acquire::Granted);
        assert_eq!(l.owner(b"x"), Some(2));
    }

    #[test]
    fn the_request_that_closes_a_cycle_is_the_deadlock() {
        let l = Arc::new(UserLocks::default());
        assert_eq!(l.acquire(1, b"x", None, None), Acquire::Granted);
        assert_eq!(l.acquire(2, b"y", None, None), Acquire::Granted);
        let l2 = l.clone();
        let t = std::thread::spawn(move || l2.acquire(2, b"x", Some(Duration::from_secs(5)), None));
        while !l.state.lock().waiting.contains_key(&2) {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(
            l.acquire(1, b"y", Some(Duration::from_secs(5)), None),
            Acquire::Deadlock
        );
        l.release_all(1);
        assert_eq!(t.join().expect("waiter"), Acquire::Granted);
    }

    #[test]
    fn an_interrupt_ends_the_wait() {
        let l = UserLocks::default();
        l.acquire(1, b"x", None, None);
        let stop = AtomicBool::new(true);
        assert_eq!(l.acquire(2, b"x", None, Some(&stop)), Acquire::Interrupted);
    }
}
