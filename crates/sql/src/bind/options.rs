//! CREATE TABLE table options and index options, with what MariaDB does with each
//! for an InnoDB table:
//!
//! | option | MariaDB (InnoDB) | Basalt |
//! |---|---|---|
//! | MIN_ROWS, MAX_ROWS, AVG_ROW_LENGTH, PACK_KEYS, CHECKSUM, PAGE_CHECKSUM, DELAY_KEY_WRITE, TRANSACTIONAL, STATS_PERSISTENT, STATS_AUTO_RECALC, STATS_SAMPLE_PAGES | recorded, shown by SHOW CREATE TABLE, no effect on the data | the same |
//! | ROW_FORMAT=DEFAULT/DYNAMIC/COMPACT/REDUNDANT | on-disk format | recorded and shown; Basalt has one row format |
//! | ROW_FORMAT=FIXED, unknown ROW_FORMAT | 1005 (errno 140) with warning 1478 | the same |
//! | ROW_FORMAT=COMPRESSED, KEY_BLOCK_SIZE | page compression | 1235 |
//! | CONNECTION, INSERT_METHOD | ignored, not shown | the same |
//! | DATA DIRECTORY | file placed there | 1235 |
//! | INDEX DIRECTORY | 1005 with warning 1478 | the same |
//! | TABLESPACE, UNION, other engine options | ignored or engine-specific | 1235 |
//!
//! Index options: `COMMENT` is kept; `USING BTREE` / `USING HASH` are accepted
//! and not shown (InnoDB builds a B-tree either way, as Basalt does).

use crate::session::ctx::{Level, SessionCtx};
use basalt_common::MySqlError;
use sqlparser::ast::{IndexOption, TableConstraint};

type R<T> = Result<T, MySqlError>;

/// Recorded options, in the order MariaDB prints them.
const RECORDED: &[&str] = &[
    "MIN_ROWS",
    "MAX_ROWS",
    "AVG_ROW_LENGTH",
    "PACK_KEYS",
    "STATS_PERSISTENT",
    "STATS_AUTO_RECALC",
    "STATS_SAMPLE_PAGES",
    "CHECKSUM",
    "PAGE_CHECKSUM",
    "DELAY_KEY_WRITE",
    "ROW_FORMAT",
    "TRANSACTIONAL",
];

/// 1005 as InnoDB reports a create option it rejects, after its warning 1478.
fn wrong_create_options(cx: &mut SessionCtx, table: (&str, &str), warning: &str) -> MySqlError {
    cx.warn(Level::Warning, 1478, warning);
    cx.trailing.push(crate::session::ctx::Warning {
        level: Level::Warning,
        code: 1030,
        state: "HY000",
        message: "Got error 140 \"Wrong create options\" from storage engine InnoDB".into(),
    });
    MySqlError::new(
        1005,
        "HY000",
        format!(
            "Can't create table `{}`.`{}` (errno: 140 \"Wrong create options\")",
            table.0, table.1
        ),
    )
}

/// Handles one `KEY=value` table option other than ENGINE, the character set,
/// COLLATE, AUTO_INCREMENT and COMMENT.
pub fn table_option(
    key: &str,
    value: &str,
    recorded: &mut Vec<(String, String)>,
    cx: &mut SessionCtx,
    table: (&str, &str),
) -> R<()> {
    let upper = value.to_ascii_uppercase();
    match key {
        "ROW_FORMAT" => match upper.as_str() {
            "DEFAULT" => return Ok(()),
            "DYNAMIC" | "COMPACT" | "REDUNDANT" => {}
            "COMPRESSED" => return Err(MySqlError::not_supported("ROW_FORMAT=COMPRESSED")),
            _ => {
                return Err(wrong_create_options(
                    cx,
                    table,
                    "InnoDB: invalid ROW_FORMAT specifier.",
                ))
            }
        },
        "KEY_BLOCK_SIZE" if upper == "0" || upper == "DEFAULT" => return Ok(()),
        "KEY_BLOCK_SIZE" => return Err(MySqlError::not_supported("KEY_BLOCK_SIZE")),
        "CONNECTION" | "INSERT_METHOD" => return Ok(()),
        "DATA DIRECTORY" | "INDEX DIRECTORY" if cx.mode.no_dir_in_create => {
            // NO_DIR_IN_CREATE: ignored, with MariaDB's warning.
            let what = key.split(' ').next().unwrap_or(key);
            cx.warn(
                Level::Warning,
                1618,
                format!("<{what} DIRECTORY> option ignored"),
            );
            return Ok(());
        }
        "DATA DIRECTORY" => return Err(MySqlError::not_supported("DATA DIRECTORY")),
        "INDEX DIRECTORY" => {
            return Err(wrong_create_options(
                cx,
                table,
                "InnoDB: INDEX DIRECTORY is not supported",
            ))
        }
        k if RECORDED.contains(&k) => {}
        other => return Err(MySqlError::not_supported(&format!("table option {other}"))),
    }
    if upper == "DEFAULT" {
        recorded.retain(|(k, _)| k != key);
        return Ok(());
    }
    let shown = match key {
        "ROW_FORMAT" => upper,
        "PACK_KEYS" | "STATS_PERSISTENT" | "STATS_AUTO_RECALC" | "CHECKSUM" | "PAGE_CHECKSUM"
        | "DELAY_KEY_WRITE" | "TRANSACTIONAL" => bool_option(key, &upper)?,
        _ => number_option(key, value)?,
    };
    recorded.retain(|(k, _)| k != key);
    recorded.push((key.to_string(), shown));
    Ok(())
}

fn bool_option(key: &str, v: &str) -> R<String> {
    match v {
        "0" | "1" => Ok(v.to_string()),
        _ => Err(MySqlError::parse_error(&format!("{key}={v}"), 1)),
    }
}

fn number_option(key: &str, v: &str) -> R<String> {
    v.trim()
        .parse::<u64>()
        .map(|n| n.to_string())
        .map_err(|_| MySqlError::parse_error(&format!("{key}={v}"), 1))
}

/// Puts recorded options in MariaDB's printing order.
pub fn sort(recorded: &mut [(String, String)]) {
    recorded.sort_by_key(|(k, _)| RECORDED.iter().position(|r| r == k).unwrap_or(usize::MAX));
}

/// The comment of an index definition; `USING` is accepted (see the module docs).
pub fn index_options(tc: &TableConstraint) -> R<String> {
    let opts: &[IndexOption] = match tc {
        TableConstraint::Index(i) => &i.index_options,
        TableConstraint::Unique(u) => &u.index_options,
        TableConstraint::PrimaryKey(p) => &p.index_options,
        _ => &[],
    };
    Ok(index_comment(opts))
}

/// The COMMENT among index options (the last one wins, as in MariaDB).
pub fn index_comment(opts: &[IndexOption]) -> String {
    let mut comment = String::new();
    for o in opts {
        match o {
            IndexOption::Comment(c) => comment = c.clone(),
            IndexOption::Using(_) => {}
        }
    }
    comment
}

/// The text `SHOW CREATE TABLE` appends for the recorded options.
pub fn show_text(recorded: &[(String, String)]) -> String {
    let mut out = String::new();
    for (k, v) in recorded {
        out.push(' ');
        out.push_str(k);
        out.push('=');
        out.push_str(v);
    }
    out
}

/// `information_schema.TABLES.CREATE_OPTIONS`: the same options in lower case.
/// `Create_options` of SHOW TABLE STATUS / information_schema.TABLES: the
/// recorded options, then `partitioned` for a partitioned table (as MariaDB).
pub fn table_create_options(def: &basalt_common::TableDef) -> String {
    let mut out = create_options(&def.options);
    if def.partitioning.is_some() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str("partitioned");
    }
    out
}

pub fn create_options(recorded: &[(String, String)]) -> String {
    recorded
        .iter()
        .map(|(k, v)| format!("{}={v}", k.to_ascii_lowercase()))
        .collect::<Vec<_>>()
        .join(" ")
}
