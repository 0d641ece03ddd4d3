//! Declared waits: code about to block for something other than CPU work (a row
//! lock, a commit's log flush, `SLEEP()`, a user or table lock, a replica's next
//! event) runs the wait inside [`waiting`], so that a thread pool serving the
//! thread can run another connection meanwhile (MariaDB's `thd_wait_begin` and
//! `thd_wait_end`).
//!
//! A thread without a hook (every thread unless the pool installed one) pays one
//! thread-local read per wait. Nested waits report once, for the outermost.

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
