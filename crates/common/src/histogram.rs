//! A lock-free histogram with fixed power-of-two buckets, for the metrics
//! endpoint's latency and size distributions.
//!
//! Bucket `i` (for `i < N - 1`) counts the values `v` with `2^(i-1) < v <= 2^i`
//! (bucket 0 takes 0 and 1); the last bucket counts everything larger (`+Inf`).
//! Recording is two relaxed `fetch_add`s (the bucket and the sum) and a
//! leading-zeros count: no lock, no allocation, no clock.
//!
//! Invariants: buckets only grow; a [`Snapshot`]'s count is the sum of its
//! buckets, so the cumulative `+Inf` bucket always equals the count. The sum is
//! read separately and may be a record ahead of or behind the buckets while
//! records are in flight (Prometheus tolerates this).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// `N` buckets: upper bounds `1, 2, 4, ... 2^(N-2)` and `+Inf`.
pub struct Histogram<const N: usize> {
    buckets: [AtomicU64; N],
    sum: AtomicU64,
}

/// The bucket counts (not cumulative) and the sum, read at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub counts: Vec<u64>,
    pub sum: u64,
}

impl<const N: usize> Histogram<N> {
    /// An empty histogram (usable in a `static`).
    pub const fn new() -> Self {
        assert!(N >= 2 && N <= 64, "between 2 and 64 buckets");
        Histogram {
            buckets: [const { AtomicU64::new(0) }; N],
            sum: AtomicU64::new(0),
        }
    }

    /// Counts one value.
    #[inline]
    pub fn record(&self, v: u64) {
        self.buckets[Self::bucket_of(v)].fetch_add(1, Relaxed);
        self.sum.fetch_add(v, Relaxed);
    }

    /// Counts one value in a histogram only the calling thread writes: a
    /// relaxed load and store each (no locked instruction).
    #[inline]
    pub fn record_owned(&self, v: u64) {
        let b = &self.buckets[Self::bucket_of(v)];
        b.store(b.load(Relaxed) + 1, Relaxed);
        self.sum
            .store(self.sum.load(Relaxed).wrapping_add(v), Relaxed);
    }

    /// Adds another histogram's counts (a thread's, when it ends).
    pub fn absorb(&self, s: &Snapshot) {
        for (b, c) in self.buckets.iter().zip(&s.counts) {
            b.fetch_add(*c, Relaxed);
        }
        self.sum.fetch_add(s.sum, Relaxed);
    }

    /// The bucket `v` falls in.
    #[inline]
    pub fn bucket_of(v: u64) -> usize {
        if v <= 1 {
            return 0;
        }
        let i = (u64::BITS - (v - 1).leading_zeros()) as usize;
        i.min(N - 1)
    }

    /// Bucket `i`'s upper bound; `None` for the last (`+Inf`).
    pub fn upper_bound(i: usize) -> Option<u64> {
        (i < N - 1).then(|| 1u64 << i)
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            counts: self.buckets.iter().map(|b| b.load(Relaxed)).collect(),
            sum: self.sum.load(Relaxed),
        }
    }
}

impl<const N: usize> Default for Histogram<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl Snapshot {
    /// Adds `other`'s counts (of a histogram with as many buckets).
    pub fn add(&mut self, other: &Snapshot) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (c, o) in self.counts.iter_mut().zip(&other.counts) {
            *c += o;
        }
        self.sum = self.sum.wrapping_add(other.sum);
    }

    /// Values counted (the `+Inf` bucket).
    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Bucket `i`'s upper bound; `None` for the last (`+Inf`).
    pub fn upper_bound(&self, i: usize) -> Option<u64> {
        (i + 1 < self.counts.len()).then(|| 1u64 << i)
    }

    /// Running totals: entry `i` counts the values `<=` bucket `i`'s bound.
    pub fn cumulative(&self) -> Vec<u64> {
        self.counts
            .iter()
            .scan(0u64, |acc, c| {
                *acc += c;
                Some(*acc)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type H = Histogram<8>;

    #[test]
    fn values_land_in_power_of_two_buckets() {
        assert_eq!(H::bucket_of(0), 0);
        assert_eq!(H::bucket_of(1), 0);
        assert_eq!(H::bucket_of(2), 1);
        assert_eq!(H::bucket_of(3), 2);
        assert_eq!(H::bucket_of(4), 2);
        assert_eq!(H::bucket_of(5), 3);
        assert_eq!(H::bucket_of(64), 6);
        assert_eq!(H::bucket_of(65), 7);
        assert_eq!(H::bucket_of(u64::MAX), 7);
        assert_eq!(H::upper_bound(0), Some(1));
        assert_eq!(H::upper_bound(6), Some(64));
        assert_eq!(H::upper_bound(7), None);
        for v in 0..200u64 {
            let i = H::bucket_of(v);
            if let Some(b) = H::upper_bound(i) {
                assert!(v <= b, "{v} above bucket {i}'s bound");
            }
            if i > 0 {
                assert!(
                    v > H::upper_bound(i - 1).expect("bounded"),
                    "{v} fits lower"
                );
            }
        }
    }

    #[test]
    fn snapshot_is_cumulative_and_counts_match() {
        static H8: H = H::new();
        for v in [1, 2, 3, 100, 1000, 7] {
            H8.record(v);
        }
        let s = H8.snapshot();
        assert_eq!(s.count(), 6);
        assert_eq!(s.sum, 1113);
        let c = s.cumulative();
        assert_eq!(c.last().copied(), Some(6));
        assert!(c.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(c[0], 1);
        assert_eq!(c[3], 4);
        assert_eq!(s.upper_bound(0), Some(1));
        assert_eq!(s.upper_bound(6), Some(64));
        assert_eq!(s.upper_bound(7), None);
    }

    #[test]
    fn concurrent_records_are_all_counted() {
        let h = std::sync::Arc::new(Histogram::<16>::new());
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let h = h.clone();
                std::thread::spawn(move || {
                    for i in 0..10_000u64 {
                        h.record(i % 300 + t);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread");
        }
        assert_eq!(h.snapshot().count(), 40_000);
    }
}
