//! Distributions only the engine can measure, for the server's metrics page:
//! commit latency, log fsync latency, group-commit size and row-lock waits. Process-wide (a
//! process runs one engine), recorded with relaxed atomic adds
//! ([`basalt_common::histogram`]).

use basalt_common::histogram::Histogram;
use std::time::Duration;

/// Buckets of the latency histograms, in microseconds: 1 µs to 2^25 µs (33.5 s),
/// then `+Inf`.
pub const LATENCY_BUCKETS: usize = 27;

/// Buckets of the group-commit size: 1 to 1024 transactions, then `+Inf`.
pub const GROUP_BUCKETS: usize = 12;

pub type Latency = Histogram<LATENCY_BUCKETS>;

/// A writing transaction's commit, from appending its commit record to its
/// acknowledgement (log durable, semi-sync replica acknowledged), in µs.
pub static COMMIT_LATENCY: Latency = Latency::new();

/// One fsync of log data by a flush, in µs.
pub static FSYNC_LATENCY: Latency = Latency::new();

/// Commits counted since the previous durable flush, for each flush that made
/// at least one commit durable (transactions per group commit).
pub static GROUP_COMMIT_SIZE: Histogram<GROUP_BUCKETS> = Histogram::new();

/// One wait of a transaction for a row lock (until granted, timed out,
/// interrupted or chosen as a deadlock victim), in µs.
pub static ROW_LOCK_WAIT: Latency = Latency::new();

/// Records `d` in `h` in whole microseconds.
#[inline]
pub fn record_micros(h: &Latency, d: Duration) {
    h.record(u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
}
