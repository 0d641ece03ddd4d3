//! What `ANALYZE <statement>` measures while the statement runs: for each join
//! level, how many times it was entered (`r_loops`), the rows its access path
//! read (`r_rows`, shown per loop), how many of them passed the level's
//! conditions (`r_filtered`), and the time spent reading them
//! (`r_table_time_ms`).
//!
//! Levels are told apart by their address in the plan, which stays put while
//! the statement runs. A statement that is not being analyzed has no tracker and
//! the join loop only counts in local variables, so plain execution pays one
//! predictable branch per level entry.

use crate::plan::{Level, SelectPlan};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// What one join level did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelStats {
    pub loops: u64,
    pub rows: u64,
    pub passed: u64,
    pub time: Duration,
}

impl LevelStats {
    /// Rows read per loop, as MariaDB's `r_rows` (0 when never entered).
    pub fn rows_per_loop(&self) -> f64 {
        if self.loops == 0 {
            0.0
        } else {
            self.rows as f64 / self.loops as f64
        }
    }

    /// Percentage of the rows read that passed the level's conditions.
    pub fn filtered(&self) -> f64 {
        if self.rows == 0 {
            100.0
        } else {
            self.passed as f64 * 100.0 / self.rows as f64
        }
    }
}

/// The counters of one analyzed statement.
#[derive(Debug, Default)]
pub struct Tracker {
    levels: Mutex<HashMap<usize, LevelStats>>,
    /// Set operations: (runs, result rows), by plan.
    units: Mutex<HashMap<usize, (u64, u64)>>,
    /// Correlated subqueries' result cache: (lookups, hits), by subquery.
    caches: Mutex<HashMap<usize, (u64, u64)>>,
}

impl Tracker {
    /// Adds one entry of `level` that read `rows` rows of which `passed` passed.
    pub fn record(&self, level: &Level, rows: u64, passed: u64, time: Duration) {
        let mut m = self.levels.lock();
        let s = m.entry(level as *const Level as usize).or_default();
        s.loops += 1;
        s.rows += rows;
        s.passed += passed;
        s.time += time;
    }

    /// One run of set operation `plan` that gave `rows` rows.
    pub fn record_unit(&self, plan: &SelectPlan, rows: u64) {
        let mut m = self.units.lock();
        let u = m.entry(plan as *const SelectPlan as usize).or_default();
        u.0 += 1;
        u.1 += rows;
    }

    /// Result rows per run of set operation `plan` (`None` when it never ran).
    pub fn unit_rows(&self, plan: &SelectPlan) -> Option<f64> {
        let m = self.units.lock();
        let (runs, rows) = *m.get(&(plan as *const SelectPlan as usize))?;
        (runs > 0).then(|| rows as f64 / runs as f64)
    }

    /// A lookup of subquery `i`'s cached results (`hit`: the result was there).
    pub fn record_cache(&self, i: usize, hit: bool) {
        let mut m = self.caches.lock();
        let c = m.entry(i).or_default();
        c.0 += 1;
        c.1 += u64::from(hit);
    }

    /// (lookups, hits) of subquery `i`'s result cache.
    pub fn cache(&self, i: usize) -> (u64, u64) {
        self.caches.lock().get(&i).copied().unwrap_or_default()
    }

    /// What `level` did (all zero when it never ran).
    pub fn level(&self, level: &Level) -> LevelStats {
        self.levels
            .lock()
            .get(&(level as *const Level as usize))
            .copied()
            .unwrap_or_default()
    }
}

/// The counts of one entry of a level, kept in locals by the join loop. With
/// `TRACK` false (no ANALYZE) every method is empty and the loop compiles to
/// what it was without counting.
#[derive(Default)]
pub struct LevelCount<const TRACK: bool> {
    pub rows: u64,
    /// Rows that passed every condition of the level.
    pub passed: u64,
    pub time: Duration,
    started: Option<Instant>,
}

impl<const TRACK: bool> LevelCount<TRACK> {
    /// Starts timing a read.
    #[inline(always)]
    pub fn start_read(&mut self) {
        if TRACK {
            self.started = Some(Instant::now());
        }
    }

    /// Ends timing a read.
    #[inline(always)]
    pub fn end_read(&mut self) {
        if TRACK {
            if let Some(t) = self.started.take() {
                self.time += t.elapsed();
            }
        }
    }

    /// A row was read.
    #[inline(always)]
    pub fn row(&mut self) {
        if TRACK {
            self.rows += 1;
        }
    }

    /// A row passed the level's conditions.
    #[inline(always)]
    pub fn pass(&mut self) {
        if TRACK {
            self.passed += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_filtered_are_per_loop_and_percent() {
        let s = LevelStats {
            loops: 4,
            rows: 10,
            passed: 5,
            time: Duration::ZERO,
        };
        assert_eq!(s.rows_per_loop(), 2.5);
        assert_eq!(s.filtered(), 50.0);
        assert_eq!(LevelStats::default().rows_per_loop(), 0.0);
        assert_eq!(LevelStats::default().filtered(), 100.0);
    }
}
