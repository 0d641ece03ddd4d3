//! Basalt's SQL layer: SQL text in, rows out.
//!
//! The server crate owns the wire protocol and calls this crate for everything after
//! it. The public surface is small:
//!
//! - [`Engine`] is shared by every connection: it owns the [`basalt_storage::Storage`]
//!   handle, the global system variables (initialised from [`GlobalConfig`]), the
//!   server hooks ([`ServerHooks`]: process list, KILL, status counters) and the plan
//!   cache.
//! - [`Session`] is one connection's state: current database, session variables, user
//!   variables, the open transaction, warnings, prepared statements.
//!   [`Session::execute`] runs a COM_QUERY text; [`Session::prepare`] /
//!   [`Session::execute_prepared`] serve COM_STMT_*; [`Session::field_list`],
//!   [`Session::use_database`], [`Session::reset`] serve the other commands.
//! - [`QueryResult`] is what a statement produces: a result set or an OK. The
//!   server passes a [`ResultSink`] ([`Session::execute_into`],
//!   [`Session::execute_prepared_into`]) that receives rows while the statement
//!   runs, so results stream to the client instead of being built whole.
//! - [`RowSpool`] keeps rows in memory up to a limit and on disk beyond it (the
//!   server's COM_STMT_FETCH cursors).
//!
//! # Pipeline
//!
//! ```text
//! text ──memo (exact text seen before)──────────────────────▶ execute(plan, literals)
//!   │
//!   └─front──▶ native statement (SHOW, SET, PREPARE .. FROM, BEGIN, USE, ..)
//!        │
//!        ├──▶ cache key + literals ──plan cache hit──────────▶ execute(plan, literals)
//!        │
//!        └──▶ sqlparser AST ──bind──▶ plan (access paths chosen) ──▶ execute
//! ```
//!
//! `front` is the one place that knows where sqlparser 0.64 and MySQL disagree: it
//! lexes the text once, splits multi-statements, unwraps executable comments,
//! rewrites the few constructs sqlparser lacks (`LOCK IN SHARE MODE`, infix `MOD`,
//! `CREATE SCHEMA`, `DROP KEY`), parses a handful of statements itself (SHOW, SET,
//! `PREPARE .. FROM`, `EXECUTE`, `SET [GLOBAL] TRANSACTION`, `START TRANSACTION WITH
//! CONSISTENT SNAPSHOT`, ...) and, for DML, produces the plan-cache key: the text
//! with literals replaced by typed markers, plus the literal values.
//!
//! Plans never embed the stripped literals: they refer to them as parameters
//! (`Expr::Param`), exactly as prepared statements refer to `?`. So a cached plan,
//! a prepared statement and a one-off query all run through the same executor, and
//! a repeated query skips parsing and planning. Plans are invalidated by
//! [`basalt_storage::Storage::schema_version`]; a literal whose value shapes the plan
//! (a select-list item names its column, `ORDER BY 2`) makes the plan single-use.
//!
//! Access paths come from in-memory statistics (`Table::stats`): primary-key
//! equality becomes a point get, leftmost-prefix equalities / ranges / IN lists /
//! `LIKE 'prefix%'` become index ranges, ORDER BY is served by index order with LIMIT
//! stopping the scan, covering indexes avoid the clustered lookup, and FORCE / USE /
//! IGNORE INDEX restrict the candidates (see `plan::access`).
//!
//! Every client-visible error is a [`basalt_common::MySqlError`] with MariaDB 10.11's
//! errno, SQLSTATE and message text; `tests/mariadb/*.expected` hold MariaDB's own
//! output for the differential tests.

mod account;
mod bind;
mod engine;
mod event;
mod exec;
mod expr;
mod front;
pub mod general_log;
mod infoschema;
pub mod log_file;
mod log_tables;
mod partitioning;
mod perfschema;
mod plan;
pub mod replica;
mod result;
mod seq_engine;
mod sequence;
mod session;
mod show;
mod slow_log;
mod sp;
mod stack;
pub mod stats;
mod sysschema;
mod system_tables;
mod sysvars;
mod tablelock;
mod ty;
mod userlock;
mod value;

pub use engine::{Engine, GlobalConfig, LogVars, ProcessInfo, ServerHooks, ThreadVars, TlsVars};
pub use exec::spill::RowSpool;
pub use result::{Collected, Ending, PreparedInfo, QueryResult, ResultSink};
pub use session::{Session, Tracked};
pub use value::zone::canonical_name as time_zone_name;

/// `SERVER_STATUS_*` bits of OK and EOF packets, as MySQL defines them.
pub mod status {
    pub const IN_TRANS: u16 = 1;
    pub const AUTOCOMMIT: u16 = 2;
    pub const MORE_RESULTS_EXISTS: u16 = 8;
    pub const NO_GOOD_INDEX_USED: u16 = 16;
    pub const NO_INDEX_USED: u16 = 32;
    pub const CURSOR_EXISTS: u16 = 64;
    pub const LAST_ROW_SENT: u16 = 128;
    pub const DB_DROPPED: u16 = 256;
    pub const NO_BACKSLASH_ESCAPES: u16 = 512;
    pub const IN_TRANS_READONLY: u16 = 8192;
    pub const SESSION_STATE_CHANGED: u16 = 16384;
}

#[cfg(test)]
mod thread_safety {
    /// The server moves sessions between threads and shares the engine.
    #[test]
    fn public_types_are_send_and_sync() {
        fn send<T: Send>() {}
        fn sync<T: Sync>() {}
        send::<super::Session>();
        send::<super::Engine>();
        sync::<super::Engine>();
        send::<super::QueryResult>();
    }
}
