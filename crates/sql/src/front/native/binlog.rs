//! Statements about the binary log: `RESET MASTER [TO n]`, `PURGE {BINARY|MASTER}
//! LOGS {TO 'file' | BEFORE datetime}`, and `SHOW BINLOG EVENTS [IN 'file'] [FROM
//! pos] [LIMIT [offset,] n]` (parsed from SHOW).

use super::{Native, P, R};

#[derive(Debug, Clone, PartialEq)]
pub enum BinlogStmt {
    /// `RESET MASTER [TO n]`: the first file number after the reset.
    Reset { to: Option<u64> },
    /// `PURGE BINARY LOGS TO 'file'`.
    PurgeTo(String),
    /// `PURGE BINARY LOGS BEFORE expr`: the expression's text.
    PurgeBefore(String),
}

/// `SHOW BINLOG EVENTS`'s options.
#[derive(Debug, Clone, PartialEq)]
pub struct BinlogEvents {
    pub file: Option<String>,
    pub from: Option<u64>,
    pub limit: Option<(u64, u64)>,
}

/// Parses RESET MASTER / PURGE ... LOGS; `None` for other RESET statements
/// (`RESET QUERY CACHE`, `RESET SLAVE`).
pub(super) fn statement(p: &mut P, first: &str) -> R<Option<Native>> {
    if first == "reset" {
        if !p.kw("master") {
            return Ok(None);
        }
        let to = if p.kw("to") { Some(p.uint()?) } else { None };
        p.end()?;
        return Ok(Some(Native::Binlog(BinlogStmt::Reset { to })));
    }
    if !(p.kw("binary") || p.kw("master")) {
        return Err(p.err());
    }
    p.expect_kw("logs")?;
    if p.kw("to") {
        let file = String::from_utf8_lossy(&p.string()?).into_owned();
        p.end()?;
        return Ok(Some(Native::Binlog(BinlogStmt::PurgeTo(file))));
    }
    p.expect_kw("before")?;
    let start = p.peek().map_or(p.src.len(), |t| t.start);
    if start >= p.src.len() {
        return Err(p.err());
    }
    Ok(Some(Native::Binlog(BinlogStmt::PurgeBefore(
        p.src[start..].to_string(),
    ))))
}

/// The rest of `SHOW BINLOG EVENTS`, after `EVENTS`.
pub(super) fn show_events(p: &mut P) -> R<BinlogEvents> {
    let file = if p.kw("in") {
        Some(String::from_utf8_lossy(&p.string()?).into_owned())
    } else {
        None
    };
    let from = if p.kw("from") { Some(p.uint()?) } else { None };
    let limit = super::show::show_limit(p)?;
    p.end()?;
    Ok(BinlogEvents { file, from, limit })
}
