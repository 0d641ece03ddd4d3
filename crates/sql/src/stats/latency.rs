//! Statement latency by command class, for the metrics page: one histogram per
//! class, recorded once per client statement from the duration the statement
//! clock already measured (`session::slow`), so timing costs no extra clock
//! read. Each thread records into histograms of its own (a relaxed load and
//! store per bucket and sum, no cache line shared with another core, as the
//! status counters); the page sums the threads' and those of threads that
//! ended. [`export`] is what the metrics page reads from the SQL layer.

pub mod export;

use super::Stat;
use basalt_common::histogram::Snapshot;
use basalt_storage::metrics::Latency;
use parking_lot::Mutex;
use std::sync::Arc;
use std::time::Duration;

/// The classes, as the page labels them (`command="select"`).
pub const CLASSES: [&str; 5] = ["select", "insert", "update", "delete", "other"];

type Classes = [Latency; CLASSES.len()];

/// Every live thread's histograms (only this list and the thread hold them).
static THREADS: Mutex<Vec<Arc<Classes>>> = Mutex::new(Vec::new());
/// The histograms of threads that ended.
static ENDED: Classes = [const { Latency::new() }; CLASSES.len()];

thread_local! {
    static MINE: Arc<Classes> = {
        let h = Arc::new([const { Latency::new() }; CLASSES.len()]);
        THREADS.lock().push(h.clone());
        h
    };
}

/// Counts a finished statement of command `com` (its `Com_*` counter).
#[inline]
pub fn record(com: Option<Stat>, elapsed: Duration) {
    let us = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
    // A thread being torn down no longer has its histograms: not counted.
    let _ = MINE.try_with(|h| h[class(com)].record_owned(us));
}

/// Statement latency in microseconds per class, indexed as [`CLASSES`].
pub fn snapshots() -> Vec<Snapshot> {
    let mut threads = THREADS.lock();
    threads.retain(|h| {
        let live = Arc::strong_count(h) > 1;
        if !live {
            for (ended, mine) in ENDED.iter().zip(h.iter()) {
                ended.absorb(&mine.snapshot());
            }
        }
        live
    });
    let mut out: Vec<Snapshot> = ENDED.iter().map(|h| h.snapshot()).collect();
    for h in threads.iter() {
        for (o, mine) in out.iter_mut().zip(h.iter()) {
            o.add(&mine.snapshot());
        }
    }
    out
}

/// The index in [`CLASSES`] of a statement counted in `com`.
fn class(com: Option<Stat>) -> usize {
    match com {
        Some(Stat::ComSelect) => 0,
        Some(
            Stat::ComInsert | Stat::ComInsertSelect | Stat::ComReplace | Stat::ComReplaceSelect,
        ) => 1,
        Some(Stat::ComUpdate | Stat::ComUpdateMulti) => 2,
        Some(Stat::ComDelete | Stat::ComDeleteMulti) => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(CLASSES[class(Some(Stat::ComSelect))], "select");
        assert_eq!(CLASSES[class(Some(Stat::ComReplaceSelect))], "insert");
        assert_eq!(CLASSES[class(Some(Stat::ComUpdateMulti))], "update");
        assert_eq!(CLASSES[class(Some(Stat::ComDelete))], "delete");
        assert_eq!(CLASSES[class(Some(Stat::ComBegin))], "other");
        assert_eq!(CLASSES[class(None)], "other");
        let before = snapshots()[3].count();
        record(Some(Stat::ComDeleteMulti), Duration::from_micros(5));
        std::thread::spawn(|| record(Some(Stat::ComDelete), Duration::from_micros(9)))
            .join()
            .expect("the recording thread ends");
        let after = &snapshots()[3];
        assert_eq!(after.count(), before + 2);
        assert!(after.sum >= 14);
    }
}
