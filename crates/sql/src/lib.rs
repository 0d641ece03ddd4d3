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
//!   [`Session::execute_prepared`] serve COM_STMT_*.
//! - [`QueryResult`] is what a statement produces: a result set or an OK.
//!
//! # Pipeline
//!
//! ```text
//! text ──front──▶ native statement (SHOW, PREPARE .. FROM, SET TRANSACTION, BEGIN, ..)
//!        │
//!        ├──▶ cache key + literals ──plan cache hit──▶ execute(plan, literals)
//!        │
//!        └──▶ sqlparser AST ──bind──▶ plan (access paths chosen) ──▶ execute
//! ```
//!
//! `front` is the one place that knows where sqlparser 0.64 and MySQL disagree: it
//! lexes the text once, splits multi-statements, rewrites the few constructs sqlparser
//! lacks (`LOCK IN SHARE MODE`, infix `MOD`), parses a handful of statements itself
//! (SHOW, `PREPARE .. FROM`, `SET [GLOBAL] TRANSACTION`, `START TRANSACTION WITH
//! CONSISTENT SNAPSHOT`, ...) and, for DML, produces the plan-cache key: the text with
//! literals replaced by typed markers, plus the literal values.
//!
//! Plans never embed the stripped literals: they refer to them as parameters
//! (`Expr::Param`), exactly as prepared statements refer to `?`. So a cached plan,
//! a prepared statement and a one-off query all run through the same executor, and
//! a repeated query skips parsing and planning. Plans are invalidated by
//! [`basalt_storage::Storage::schema_version`].
//!
//! Every client-visible error is a [`basalt_common::MySqlError`] with MariaDB's errno,
//! SQLSTATE and message text.

mod bind;
mod engine;
mod exec;
mod expr;
mod front;
mod infoschema;
mod plan;
mod result;
mod session;
mod show;
mod sysvars;
mod ty;
mod value;

pub use engine::{Engine, GlobalConfig, ProcessInfo, ServerHooks};
pub use result::{PreparedInfo, QueryResult};
pub use session::Session;

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
