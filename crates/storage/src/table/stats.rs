//! Planner statistics and start-up counters.
//!
//! The row count is maintained exactly as rows are inserted and deleted (including
//! uncommitted ones, as InnoDB's estimate does). Distinct counts per index prefix
//! and a histogram per index are computed by [`TableCore::analyze`], which reads
//! index entries; it runs at CREATE INDEX and in the background (purge thread)
//! after enough rows changed, never while planning a query.
//!
//! The histogram of an index is an equi-depth sample of its keys' first key part:
//! about [`HISTOGRAM`] keys at evenly spaced positions of the whole index (every
//! n-th live entry of a small index; one descent per key of a large one). The
//! share of a range on the first key part is the share of sample keys inside its
//! encoded bounds ([`TableCore::range_fraction`]): byte comparisons, since keys
//! are encoded order-preserving. Distinct counts of a large index come from
//! [`CHUNKS`] runs of entries read from evenly spaced keys, scaled to the row
//! count.

use super::record::{parse_rec, parse_sec, HEADER};
use super::TableCore;
use crate::api::{IndexStats, Result, TableStats};
use crate::keycodec;
use crate::rowcodec;
use basalt_common::Value;
use std::ops::Bound;
use std::sync::atomic::Ordering;

/// Entries read per index by one analyze pass before extrapolating.
const ANALYZE_LIMIT: usize = 200_000;

/// Runs a large index's analyze pass reads, from evenly spaced keys.
const CHUNKS: usize = 16;

/// Keys an index's histogram keeps (about).
pub const HISTOGRAM: usize = 128;

/// Fewer sample keys than this give no estimate.
const HISTOGRAM_MIN: usize = 8;

/// Tables above this many rows are re-analyzed at most once per
/// [`ANALYZE_INTERVAL`]: a table growing by bulk inserts would otherwise be read
/// again at every 10% of growth (ten times its size in all); small tables are
/// cheap to read and keep exact statistics at once.
const ANALYZE_THROTTLE_ROWS: i64 = 10_000;
const ANALYZE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

impl TableCore {
    pub(crate) fn note_changes(&self, n: u64) {
        let changed = self.changes.fetch_add(n, Ordering::Relaxed) + n;
        let rows = self.rows.load(Ordering::Relaxed).max(0) as u64;
        if changed > rows / 10 + 100 && !self.analyze_queued.swap(true, Ordering::SeqCst) {
            self.mgr.queue_analyze(self.self_weak());
        }
    }

    pub fn stats(&self) -> TableStats {
        let rows = self.rows.load(Ordering::Relaxed).max(0) as u64;
        let schema = self.schema();
        let known = self.stats.read().clone();
        let indexes = schema
            .indexes
            .iter()
            .map(|l| {
                let n = l.def.columns.len().max(1);
                match known.iter().find(|s| s.index_id == l.def.id) {
                    Some(s) if s.distinct.len() == n => IndexStats {
                        index_id: l.def.id,
                        distinct: s.distinct.iter().map(|&d| d.min(rows).max(1)).collect(),
                    },
                    _ => default_stats(l.def.id, n, l.def.is_unique(), rows),
                }
            })
            .collect();
        TableStats {
            rows,
            indexes,
            data_bytes: self.store.size_bytes(),
        }
    }

    /// Whether a queued background refresh may run now (see
    /// [`ANALYZE_THROTTLE_ROWS`]).
    pub(crate) fn analyze_due(&self) -> bool {
        self.rows.load(Ordering::Relaxed) <= ANALYZE_THROTTLE_ROWS
            || self
                .analyzed_at
                .lock()
                .is_none_or(|t| t.elapsed() >= ANALYZE_INTERVAL)
    }

    /// Recomputes distinct counts of every index from its entries.
    pub fn analyze(&self) -> Result<()> {
        let _pass = self.analyzing.lock();
        self.changes.store(0, Ordering::Relaxed);
        *self.analyzed_at.lock() = Some(std::time::Instant::now());
        let schema = self.schema();
        let mut all = Vec::new();
        let mut histograms = std::collections::HashMap::new();
        for layout in &schema.indexes {
            let parts = layout.def.columns.len();
            if parts == 0 {
                continue;
            }
            let (seen, distinct, sample) =
                self.count_distinct(layout.def.id, &layout.def, parts)?;
            histograms.insert(layout.def.id, std::sync::Arc::new(sample));
            let rows = self.rows.load(Ordering::Relaxed).max(0) as u64;
            let scale = if rows > ANALYZE_LIMIT as u64 && seen > 0 {
                rows as f64 / seen as f64
            } else {
                1.0
            };
            all.push(IndexStats {
                index_id: layout.def.id,
                distinct: distinct
                    .iter()
                    .map(|&d| ((d as f64) * scale) as u64)
                    .collect(),
            });
        }
        *self.stats.write() = all;
        *self.histograms.write() = histograms;
        Ok(())
    }

    /// See [`crate::api::Table::range_fraction`].
    pub fn range_fraction(&self, index_id: u32, range: &crate::api::KeyRange) -> Option<f64> {
        let sample = self.histograms.read().get(&index_id)?.clone();
        if sample.len() < HISTOGRAM_MIN {
            return None;
        }
        let schema = self.schema();
        let (_, layout) = schema.layout(index_id)?;
        let Some((lower, upper)) = super::cursor::encode_bounds(&schema, layout, range) else {
            return Some(0.0);
        };
        let above = |k: &[u8]| match &lower {
            Bound::Unbounded => true,
            Bound::Included(l) => k >= l.as_slice(),
            Bound::Excluded(l) => k > l.as_slice(),
        };
        let below = |k: &[u8]| match &upper {
            Bound::Unbounded => true,
            Bound::Included(u) => k <= u.as_slice(),
            Bound::Excluded(u) => k < u.as_slice(),
        };
        let inside = sample.iter().filter(|k| above(k) && below(k)).count();
        // Half a sample step either way: a range between two samples is not empty.
        Some(((inside as f64 + 0.5) / sample.len() as f64).min(1.0))
    }

    /// Reads up to [`ANALYZE_LIMIT`] live entries of `tree`: all of a small index,
    /// or [`CHUNKS`] runs starting at evenly spaced keys of a large one. Returns
    /// the entries read, the distinct counts of each key prefix among them and the
    /// histogram sample (evenly spaced over the whole index either way).
    fn count_distinct(
        &self,
        tree: u32,
        def: &basalt_common::IndexDef,
        parts: usize,
    ) -> Result<(u64, Vec<u64>, Vec<Vec<u8>>)> {
        let rows = self.rows.load(Ordering::Relaxed).max(0) as u64;
        let mut acc = Distinct::new(self, tree, def, parts, rows.min(ANALYZE_LIMIT as u64));
        if rows <= ANALYZE_LIMIT as u64 {
            acc.read(Bound::Unbounded, Bound::Unbounded, ANALYZE_LIMIT)?;
            // More entries than counted rows (many uncommitted inserts): the
            // sample covers only the first part of the index; sample by position.
            if acc.seen >= ANALYZE_LIMIT as u64 {
                acc.sample = self.spread_sample(tree, def)?;
            }
            return Ok((acc.seen, acc.distinct, acc.sample));
        }
        let starts = self.store.sample_keys(tree, CHUNKS)?;
        for (i, start) in starts.iter().enumerate() {
            let upper = starts
                .get(i + 1)
                .map_or(Bound::Unbounded, |k| Bound::Excluded(&k[..]));
            acc.read(Bound::Included(&start[..]), upper, ANALYZE_LIMIT / CHUNKS)?;
        }
        Ok((acc.seen, acc.distinct, self.spread_sample(tree, def)?))
    }

    /// The first key parts of [`HISTOGRAM`] keys at evenly spaced positions.
    fn spread_sample(&self, tree: u32, def: &basalt_common::IndexDef) -> Result<Vec<Vec<u8>>> {
        let columns = &self.schema().def.columns;
        let mut keys: Vec<Vec<u8>> = self
            .store
            .sample_keys(tree, HISTOGRAM)?
            .into_iter()
            .map(|k| {
                let first = keycodec::parts_len(&k, def, columns, 1);
                k[..first].to_vec()
            })
            .collect();
        keys.sort();
        Ok(keys)
    }

    /// Sets the row count, the hidden row id and the AUTO_INCREMENT counter from the
    /// stored rows (after opening a durable table).
    pub fn init_counters(&self) -> Result<()> {
        let schema = self.schema();
        let tree = schema.primary_tree();
        let auto = schema.def.auto_increment_column();
        let mut rows = 0i64;
        let mut max_auto = 0u64;
        let mut lower: Bound<Vec<u8>> = Bound::Unbounded;
        let mut last_key = None;
        loop {
            let mut out = Vec::new();
            let lb = match &lower {
                Bound::Excluded(v) => Bound::Excluded(&v[..]),
                _ => Bound::Unbounded,
            };
            self.store
                .scan(tree, lb, Bound::Unbounded, false, 4096, &mut out)?;
            let done = out.len() < 4096;
            for (k, v) in &out {
                let Some(h) = parse_rec(v) else { continue };
                if h.deleted {
                    continue;
                }
                rows += 1;
                if let Some(col) = auto {
                    let row = rowcodec::decode_row(&v[HEADER..], &schema.def.columns, None)
                        .map_err(|_| self.corrupt("undecodable row"))?;
                    max_auto = max_auto.max(match &row[col] {
                        Value::Int(i) => (*i).max(0) as u64,
                        Value::UInt(u) => *u,
                        _ => 0,
                    });
                }
                last_key = Some(k.clone());
            }
            match out.pop() {
                Some((k, _)) if !done => lower = Bound::Excluded(k),
                _ => break,
            }
        }
        self.rows.store(rows, Ordering::Relaxed);
        if auto.is_some() && max_auto > 0 {
            self.observe_auto_increment(max_auto);
        }
        if schema.def.has_hidden_pk() {
            if let Some(k) = last_key.filter(|k| k.len() == 9) {
                let id = u64::from_be_bytes(k[1..9].try_into().expect("9-byte key"));
                self.row_id.fetch_max(id + 1, Ordering::SeqCst);
            }
        }
        self.analyze()
    }
}

fn default_stats(index_id: u32, parts: usize, unique: bool, rows: u64) -> IndexStats {
    // Without a measurement assume each key part narrows by 10x, and a full
    // unique key identifies one row.
    let distinct = (0..parts)
        .map(|i| {
            if unique && i + 1 == parts {
                rows.max(1)
            } else {
                (rows / 10u64.pow((parts - i) as u32).max(1)).max(1)
            }
        })
        .collect();
    IndexStats { index_id, distinct }
}

/// Distinct counts of an index's key prefixes over the runs of entries read.
struct Distinct<'a> {
    core: &'a TableCore,
    tree: u32,
    def: &'a basalt_common::IndexDef,
    columns: Vec<basalt_common::ColumnDef>,
    primary: bool,
    distinct: Vec<u64>,
    prev: Option<Vec<u8>>,
    seen: u64,
    step: u64,
    sample: Vec<Vec<u8>>,
}

impl<'a> Distinct<'a> {
    fn new(
        core: &'a TableCore,
        tree: u32,
        def: &'a basalt_common::IndexDef,
        parts: usize,
        expected: u64,
    ) -> Self {
        Distinct {
            core,
            tree,
            def,
            columns: core.schema().def.columns.clone(),
            primary: tree == core.schema().primary_tree(),
            distinct: vec![0; parts],
            prev: None,
            seen: 0,
            step: (expected / HISTOGRAM as u64).max(1),
            sample: Vec::with_capacity(HISTOGRAM + 1),
        }
    }

    /// Counts up to `limit` live entries from `lower` to `upper`. A run continues
    /// from the previous run's last key, so a value spanning both counts once.
    fn read(&mut self, lower: Bound<&[u8]>, upper: Bound<&[u8]>, limit: usize) -> Result<()> {
        let mut from: Bound<Vec<u8>> = lower.map(|k| k.to_vec());
        let mut counted = 0usize;
        while counted < limit {
            let mut out = Vec::new();
            let lb = from.as_ref().map(|k| &k[..]);
            self.core
                .store
                .scan(self.tree, lb, upper, false, 1024, &mut out)?;
            let done = out.len() < 1024;
            for (k, v) in &out {
                if self.live(v) {
                    self.count(k);
                    counted += 1;
                }
            }
            match out.pop() {
                Some((k, _)) if !done => from = Bound::Excluded(k),
                _ => break,
            }
        }
        Ok(())
    }

    fn live(&self, v: &[u8]) -> bool {
        if self.primary {
            parse_rec(v).is_some_and(|h| !h.deleted)
        } else {
            parse_sec(v).is_some_and(|h| h.deleted == 0)
        }
    }

    fn count(&mut self, k: &[u8]) {
        self.seen += 1;
        let parts = self.distinct.len();
        let first_diff = match &self.prev {
            None => 0,
            Some(p) => (0..parts)
                .find(|&i| {
                    let a = keycodec::parts_len(k, self.def, &self.columns, i + 1);
                    let b = keycodec::parts_len(p, self.def, &self.columns, i + 1);
                    k[..a] != p[..b]
                })
                .unwrap_or(parts),
        };
        for d in self.distinct.iter_mut().skip(first_diff) {
            *d += 1;
        }
        if (self.seen - 1).is_multiple_of(self.step) {
            let first = keycodec::parts_len(k, self.def, &self.columns, 1);
            self.sample.push(k[..first].to_vec());
            if self.sample.len() > 2 * HISTOGRAM {
                // More rows than expected: keep every other key.
                self.sample = std::mem::take(&mut self.sample)
                    .into_iter()
                    .step_by(2)
                    .collect();
                self.step *= 2;
            }
        }
        self.prev = Some(k.to_vec());
    }
}
