//! The executor: runs plans against storage.
//!
//! - [`scan`]: join levels as nested loops over access paths (point gets, index
//!   range cursors), filters, NULL-extension for outer joins.
//! - [`select`]: projection, DISTINCT, aggregation ([`agg`]), sorting ([`sort`],
//!   spilling to temporary files through [`spill`]), LIMIT; output rows are emitted
//!   as they become final.
//! - [`insert`], [`modify`]: data changes, row by row through the `Table` API.
//! - [`store`]: value conversion into column types with strict-mode rules.
//! - [`ddl`]: catalog changes.
//!
//! - [`cte`]: recursive common table expressions, iterated to a fixpoint.
//! - [`rollup`]: GROUP BY ... WITH ROLLUP.
//! - [`setop`]: INTERSECT and EXCEPT [ALL].
//! - [`mem`]: the statement's memory budget (`max_session_mem_used`).
//!
//! Executors never commit: the session wraps each statement in a savepoint of the
//! transaction (or a transaction of its own under autocommit).

pub mod agg;
pub mod analyze;
pub mod check;
pub mod computed;
pub mod cte;
pub mod ddl;
pub mod foreign_key;
pub mod hash_join;
pub mod insert;
pub mod json_table;
pub mod mem;
pub mod modify;
pub mod multi_dml;
pub mod rollup;
pub mod scan;
pub mod select;
pub mod setop;
pub mod sort;
pub mod spill;
pub mod store;
pub mod stored_call;
pub mod stored_fn;
pub mod sub;
pub mod textfile;
pub mod trigger;
pub mod window;
mod window_frame;

use crate::expr::EvalCtx;
use basalt_common::MySqlError;
use basalt_storage::Txn;
use std::sync::atomic::Ordering;

/// A row change, for the status counters.
#[derive(Clone, Copy)]
pub enum Change {
    Write,
    Update,
    Delete,
}

impl Exec<'_, '_> {
    /// Counts one row written, updated or deleted in `def`'s table
    /// (`Handler_write` / `_update` / `_delete`, and `Innodb_rows_*` for a
    /// durable table).
    pub fn count_change(&mut self, def: &basalt_common::TableDef, change: Change) {
        self.ctx.cx.notes.changed(def, change as usize);
        use crate::stats::Stat::*;
        let (handler, innodb) = match change {
            Change::Write => (HandlerWrite, InnodbRowsInserted),
            Change::Update => (HandlerUpdate, InnodbRowsUpdated),
            Change::Delete => (HandlerDelete, InnodbRowsDeleted),
        };
        let c = &self.ctx.cx.stats.counters;
        c.bump(handler);
        if def.engine == basalt_common::EngineKind::Basalt {
            c.bump(innodb);
        }
    }
}

/// What executors work with: the evaluation context, which also holds the
/// transaction (None for statements that read no table) and the KILL QUERY flag.
pub struct Exec<'a, 'b> {
    pub ctx: &'a mut EvalCtx<'b>,
}

impl Exec<'_, '_> {
    pub fn txn(&mut self) -> Result<&mut Txn, MySqlError> {
        self.ctx.txn()
    }

    /// 1317 once KILL QUERY set the flag.
    pub fn check_interrupt(&self) -> Result<(), MySqlError> {
        match self.ctx.interrupt {
            Some(f) if f.load(Ordering::Relaxed) => Err(MySqlError::query_interrupted()),
            _ => Ok(()),
        }
    }
}

/// A storage error as the client sees it.
pub fn storage_err(e: basalt_storage::StorageError) -> MySqlError {
    e.into()
}

#[cfg(test)]
pub mod test_support {
    use basalt_storage::io::sim::SimFileSystem;
    use basalt_storage::{Storage, StorageConfig};
    use std::sync::Arc;

    /// A storage on an in-memory file system: unit tests leave nothing on disk.
    pub fn scratch_storage() -> Arc<Storage> {
        let mut config = StorageConfig::new("/scratch");
        config.fs = Arc::new(SimFileSystem::new(1));
        config.log_segment_size = 4 << 20;
        config.buffer_pool_size = 16 << 20;
        Storage::open(config).expect("open storage")
    }
}
