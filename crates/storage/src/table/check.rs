//! CHECK TABLE and CHECKSUM TABLE over a table's stored entries.
//!
//! The check holds the table's metadata lock exclusively (no transaction that
//! wrote the table is open, none can start), so the entries it reads are the
//! committed state and must satisfy the table layer's invariants exactly:
//! 1. every page of the table's file passes its checksum and page-number checks,
//!    and every tree's structure is sound (key order, levels, sibling links);
//! 2. for every clustered record whose newest version is not delete-marked, each
//!    secondary index holds a live entry (deleted = 0) under the key built from
//!    that row (index key parts ++ clustered key);
//! 3. each secondary index has as many live entries as there are live rows.
//!
//! Problems are collected, not returned as errors, so the caller can report all
//! of them the way MariaDB's CHECK TABLE lists its findings.

use super::record::{parse_rec, parse_sec};
use super::TableCore;
use crate::api::Result;
use crate::keycodec;
use crate::store::Entry;
use std::ops::Bound;
use std::time::Duration;

/// Entries read per scan call.
const BATCH: usize = 1024;

/// What CHECK TABLE found.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// Live rows in the clustered index.
    pub rows: u64,
    /// One line per problem, naming the index.
    pub problems: Vec<String>,
}

impl TableCore {
    /// Checks the table (module docs), waiting up to `timeout` for transactions
    /// that wrote it to end.
    pub fn check(&self, timeout: Duration) -> Result<CheckReport> {
        self.with_exclusive(timeout, || Ok(self.check_locked()))
    }

    fn check_locked(&self) -> CheckReport {
        let mut report = CheckReport::default();
        if let Err(e) = self.store().verify() {
            report.problems.push(format!("{e}"));
            return report;
        }
        if let Err(e) = self.check_indexes(&mut report) {
            report.problems.push(format!("{e}"));
        }
        report
    }

    fn check_indexes(&self, report: &mut CheckReport) -> Result<()> {
        let schema = self.schema();
        let columns = &schema.def.columns;
        let secondaries: Vec<_> = schema.indexes.iter().skip(1).collect();
        let mut missing = vec![0u64; secondaries.len()];
        self.each_entry(schema.primary_tree(), |pk, rec| {
            let live = parse_rec(rec).ok_or_else(|| self.corrupt("unreadable record header"))?;
            if live.deleted {
                return Ok(());
            }
            report.rows += 1;
            let row = self.decode(&schema, rec, None)?;
            for (i, layout) in secondaries.iter().enumerate() {
                let mut key = Vec::with_capacity(pk.len() + 16);
                keycodec::encode_index_key(&mut key, &layout.def, columns, &row);
                key.extend_from_slice(pk);
                let found = self.store().get(layout.def.id, &key)?;
                let live = found.is_some_and(|v| parse_sec(&v).is_some_and(|h| h.deleted == 0));
                if !live {
                    missing[i] += 1;
                }
            }
            Ok(())
        })?;
        for (i, layout) in secondaries.iter().enumerate() {
            let mut live = 0u64;
            self.each_entry(layout.def.id, |_, v| {
                if parse_sec(v)
                    .ok_or_else(|| self.corrupt("unreadable index entry"))?
                    .deleted
                    == 0
                {
                    live += 1;
                }
                Ok(())
            })?;
            let name = &layout.def.name;
            if live != report.rows {
                report.problems.push(format!(
                    "Index '{name}' contains {live} entries, should be {}.",
                    report.rows
                ));
            }
            if missing[i] > 0 {
                report.problems.push(format!(
                    "Index '{name}' is missing the entries of {} rows.",
                    missing[i]
                ));
            }
        }
        Ok(())
    }

    /// Calls `f(key, value)` for every entry of `tree`, in key order.
    fn each_entry(&self, tree: u32, mut f: impl FnMut(&[u8], &[u8]) -> Result<()>) -> Result<()> {
        let mut lower: Option<Vec<u8>> = None;
        loop {
            let mut out: Vec<Entry> = Vec::with_capacity(BATCH);
            let lb = match &lower {
                Some(k) => Bound::Excluded(&k[..]),
                None => Bound::Unbounded,
            };
            self.store()
                .scan(tree, lb, Bound::Unbounded, false, BATCH, &mut out)?;
            for (k, v) in &out {
                f(k, v)?;
            }
            if out.len() < BATCH {
                return Ok(());
            }
            lower = out.pop().map(|(k, _)| k);
        }
    }
}
