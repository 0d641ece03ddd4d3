//! The table maintenance statements, as MariaDB's grammar has them:
//!
//! ```text
//! CHECK {TABLE|TABLES} t [, t ...] [FOR UPGRADE | QUICK | FAST | MEDIUM | EXTENDED | CHANGED] ...
//! CHECKSUM {TABLE|TABLES} t [, t ...] [QUICK | EXTENDED]
//! {OPTIMIZE|REPAIR|ANALYZE} [NO_WRITE_TO_BINLOG | LOCAL] {TABLE|TABLES} t [, t ...] ...
//!     REPAIR: [QUICK] [EXTENDED] [USE_FRM] [FORCE]; OPTIMIZE: [WAIT n | NOWAIT]
//! ```
//!
//! `ANALYZE TABLE ... PERSISTENT FOR ...` (engine-independent statistics in
//! `mysql.column_stats`) is refused with 1235: Basalt keeps its statistics in
//! memory only. Other ANALYZE forms (`ANALYZE SELECT ...`) are not these.

use super::{Native, P, R};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaintOp {
    Check,
    /// `quick`: the live checksum only (NULL where the engine keeps none).
    Checksum {
        quick: bool,
    },
    Optimize,
    Repair,
    Analyze,
}

impl MaintOp {
    /// The `Op` column of the result.
    pub fn name(self) -> &'static str {
        match self {
            MaintOp::Check => "check",
            MaintOp::Checksum { .. } => "checksum",
            MaintOp::Optimize => "optimize",
            MaintOp::Repair => "repair",
            MaintOp::Analyze => "analyze",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Maintenance {
    pub op: MaintOp,
    /// (database, table) as written.
    pub tables: Vec<(Option<String>, String)>,
}

/// Whether a statement starting with `word` may be one of these (a one-byte
/// test, so that SELECT and DML pay nothing for them).
pub(super) fn may_start(word: &str) -> bool {
    matches!(
        word.as_bytes().first().map(|b| b | 0x20),
        Some(b'c' | b'o' | b'r' | b'a' | b'f')
    )
}

/// Parses a maintenance statement whose first word is `first` (already
/// consumed); `None` when it is another statement (`ANALYZE SELECT ...`).
pub(super) fn maintenance(p: &mut P, first: &str) -> R<Option<Native>> {
    let mut op = match first {
        "check" => MaintOp::Check,
        "checksum" => MaintOp::Checksum { quick: false },
        "optimize" => MaintOp::Optimize,
        "repair" => MaintOp::Repair,
        _ => MaintOp::Analyze,
    };
    if !matches!(op, MaintOp::Check | MaintOp::Checksum { .. }) {
        let _ = p.kw("no_write_to_binlog") || p.kw("local");
    }
    if !(p.kw("table") || p.kw("tables")) {
        if op == MaintOp::Analyze {
            return Ok(None);
        }
        return Err(p.err());
    }
    let mut tables = vec![p.qualified()?];
    while p.punct(",") {
        tables.push(p.qualified()?);
    }
    loop {
        let more = match op {
            MaintOp::Check => {
                if p.kw("for") {
                    p.expect_kw("upgrade")?;
                    true
                } else {
                    ["quick", "fast", "medium", "extended", "changed"]
                        .iter()
                        .any(|k| p.kw(k))
                }
            }
            MaintOp::Checksum { .. } => {
                if p.kw("quick") {
                    op = MaintOp::Checksum { quick: true };
                    true
                } else {
                    p.kw("extended")
                }
            }
            MaintOp::Repair => ["quick", "extended", "use_frm", "force"]
                .iter()
                .any(|k| p.kw(k)),
            MaintOp::Optimize => {
                if p.kw("wait") {
                    p.uint()?;
                    true
                } else {
                    p.kw("nowait")
                }
            }
            MaintOp::Analyze => {
                if p.kw("persistent") {
                    return Ok(Some(Native::Unsupported(
                        "ANALYZE TABLE ... PERSISTENT FOR",
                    )));
                }
                false
            }
        };
        if !more {
            break;
        }
    }
    p.end()?;
    Ok(Some(Native::Maintenance(Maintenance { op, tables })))
}

/// Statistics `FLUSH` names (`mariadb-admin flush-all-statistics` sends them as
/// one list, with STATUS).
const STATISTICS: [&str; 4] = [
    "table_statistics",
    "index_statistics",
    "user_statistics",
    "client_statistics",
];

/// `FLUSH [NO_WRITE_TO_BINLOG | LOCAL] item [, item ...]` where the items are
/// the `userstat` tables, SSL (and STATUS): `None` for any other FLUSH, which the
/// general parser takes.
pub(super) fn flush_statistics(p: &mut P) -> R<Option<Native>> {
    let _ = p.kw("no_write_to_binlog") || p.kw("local");
    let (mut status, mut statistics, mut ssl) = (false, [false; 4], false);
    loop {
        if p.kw("status") {
            status = true;
        } else if p.kw("ssl") {
            ssl = true;
        } else if let Some(i) = STATISTICS.iter().position(|k| p.kw(k)) {
            statistics[i] = true;
        } else {
            return Ok(None);
        }
        if !p.punct(",") {
            break;
        }
    }
    if !(statistics.contains(&true) || ssl) || p.end().is_err() {
        return Ok(None);
    }
    Ok(Some(Native::FlushStatistics {
        status,
        statistics,
        ssl,
    }))
}
