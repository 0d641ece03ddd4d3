//! Declared waits: code about to block for something other than CPU work (a row
//! lock, a commit's log flush, `SLEEP()`, a user or table lock, a replica's next
//! event) runs the wait inside [`waiting`], so that a thread pool serving the
//! thread can run another connection meanwhile (MariaDB's `thd_wait_begin` and
//! `thd_wait_end`).
//!
//! A thread without a hook (every thread unless the pool installed one) pays one
//! thread-local read per wait. Nested waits report once, for the outermost.
//!
//! Lock waits (a row lock, a table or metadata lock) run in [`lock_waiting`],
//! which also adds their duration to this thread's lock-wait time: a statement
//! reads [`lock_wait_time`] when it starts and ends (it runs on one thread), and
//! the difference is the slow log's `Lock_time`.

use std::cell::{Cell, RefCell};
use std::sync::Arc;

/// Told when the thread that installed it starts and stops waiting.
pub trait WaitHook: Send + Sync {
    fn begin(&self);
    fn end(&self);
}

thread_local! {
    static HOOK: RefCell<Option<Arc<dyn WaitHook>>> = const { RefCell::new(None) };
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// Microseconds this thread has spent in [`lock_waiting`].
    static LOCK_WAITED: Cell<u64> = const { Cell::new(0) };
}

/// A lock wait: [`waiting`], its duration added to this thread's lock-wait time.
pub fn lock_waiting<R>(f: impl FnOnce() -> R) -> R {
    let started = std::time::Instant::now();
    let r = waiting(f);
    let us = started.elapsed().as_micros() as u64;
    LOCK_WAITED.set(LOCK_WAITED.get() + us);
    r
}

/// The time this thread has spent waiting for locks since it started.
pub fn lock_wait_time() -> std::time::Duration {
    std::time::Duration::from_micros(LOCK_WAITED.get())
}

/// Installs (or with `None` removes) this thread's hook.
pub fn set_thread_hook(hook: Option<Arc<dyn WaitHook>>) {
    HOOK.with(|h| *h.borrow_mut() = hook);
}

/// Runs `f`, a blocking wait, telling this thread's hook before and after.
pub fn waiting<R>(f: impl FnOnce() -> R) -> R {
    let hook = if DEPTH.get() == 0 {
        HOOK.with(|h| h.borrow().clone())
    } else {
        None
    };
    let _guard = hook.map(|hook| {
        hook.begin();
        Guard(hook)
    });
    DEPTH.set(DEPTH.get() + 1);
    let _depth = Depth;
    f()
}

struct Guard(Arc<dyn WaitHook>);

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.end();
    }
}

struct Depth;

impl Drop for Depth {
    fn drop(&mut self) {
        DEPTH.set(DEPTH.get() - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicI64, Ordering};

    struct Count(AtomicI64, AtomicI64);

    impl WaitHook for Count {
        fn begin(&self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
        fn end(&self) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn lock_waits_add_up_and_other_waits_do_not() {
        let before = lock_wait_time();
        waiting(|| std::thread::sleep(std::time::Duration::from_millis(20)));
        assert_eq!(lock_wait_time(), before);
        lock_waiting(|| std::thread::sleep(std::time::Duration::from_millis(20)));
        assert!(lock_wait_time() - before >= std::time::Duration::from_millis(20));
    }

    #[test]
    fn the_outermost_wait_is_reported_once_and_only_with_a_hook() {
        assert_eq!(waiting(|| 1), 1);
        let c = Arc::new(Count(AtomicI64::new(0), AtomicI64::new(0)));
        set_thread_hook(Some(c.clone()));
        waiting(|| {
            assert_eq!(c.0.load(Ordering::SeqCst), 1);
            assert_eq!(c.1.load(Ordering::SeqCst), 0);
            waiting(|| ());
        });
        assert_eq!(c.0.load(Ordering::SeqCst), 1);
        assert_eq!(c.1.load(Ordering::SeqCst), 1);
        let r = std::panic::catch_unwind(|| waiting(|| panic!("in a wait")));
        assert!(r.is_err());
        assert_eq!(c.1.load(Ordering::SeqCst), 2, "ended by the unwinding");
        set_thread_hook(None);
        waiting(|| ());
        assert_eq!(c.0.load(Ordering::SeqCst), 2);
    }
}
