//! Page requests (`Innodb_buffer_pool_read_requests`): every access to a page
//! through the pool counts one. The count is kept per thread, in a counter only
//! that thread writes (a plain load and store, no shared cache line), so the
//! hottest path in the engine pays no locked instruction for it; a reader sums
//! the threads' counters, and a thread that ends leaves its count behind.

use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

static THREADS: Mutex<Vec<Arc<AtomicU64>>> = Mutex::new(Vec::new());
/// Requests of threads that have ended.
static ENDED: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static MINE: Arc<AtomicU64> = {
        let c = Arc::new(AtomicU64::new(0));
        THREADS.lock().push(c.clone());
        c
    };
}

/// One page request by this thread.
#[inline]
pub(crate) fn count() {
    // A thread being torn down no longer has its counter: its request is not counted.
    let _ = MINE.try_with(|c| c.store(c.load(Ordering::Relaxed) + 1, Ordering::Relaxed));
}

/// Every page request since the process started.
pub fn total() -> u64 {
    let mut threads = THREADS.lock();
    threads.retain(|c| {
        // Only this list holds the counter of a thread that has ended.
        let live = Arc::strong_count(c) > 1;
        if !live {
            ENDED.fetch_add(c.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        live
    });
    let live: u64 = threads.iter().map(|c| c.load(Ordering::Relaxed)).sum();
    ENDED.load(Ordering::Relaxed) + live
}

#[cfg(test)]
mod tests {
    #[test]
    fn ended_threads_keep_their_count() {
        let before = super::total();
        std::thread::spawn(|| {
            for _ in 0..10 {
                super::count();
            }
        })
        .join()
        .expect("the counting thread ends");
        assert!(super::total() >= before + 10);
    }
}
