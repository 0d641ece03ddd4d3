//! Table maintenance on the catalog's tables: CHECK TABLE and ANALYZE TABLE.

use super::Storage;
use crate::api::Result;
use crate::table::CheckReport;
use std::time::Duration;

impl Storage {
    /// Checks `db.name` (see [`crate::table::TableCore::check`]), waiting up to
    /// `wait` for the transactions that wrote it to end.
    pub fn check_table(&self, db: &str, name: &str, wait: Duration) -> Result<CheckReport> {
        self.core(db, name)?.check(wait)
    }

    /// Recomputes the index statistics of `db.name` now.
    pub fn analyze_table(&self, db: &str, name: &str) -> Result<()> {
        self.core(db, name)?.analyze()
    }
}
