//! The definitions of performance_schema's tables, read once from
//! `tables.sql` (MariaDB 10.11's `SHOW CREATE TABLE` output without column
//! comments, plus MySQL 8's `events_statements_histogram_by_digest`,
//! `data_locks` and `data_lock_waits`).

use basalt_common::{Collation, ColumnDef, DataType, IntKind, LobKind, TableDef};
use std::collections::BTreeMap;
use std::sync::OnceLock;

const TABLES: &str = include_str!("tables.sql");

/// Every table's definition, by lower-case name.
pub fn all() -> &'static BTreeMap<String, TableDef> {
    static DEFS: OnceLock<BTreeMap<String, TableDef>> = OnceLock::new();
    DEFS.get_or_init(|| parse(TABLES))
}

fn parse(text: &str) -> BTreeMap<String, TableDef> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, Vec<ColumnDef>, Collation)> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("CREATE TABLE `") {
            let name = rest.split('`').next().unwrap_or_default().to_string();
            current = Some((name, Vec::new(), Collation::Utf8mb3GeneralCi));
        } else if let Some(rest) = line.strip_prefix("  `") {
            if let Some((_, cols, _)) = current.as_mut() {
                cols.push(column(rest));
            }
        } else if line.starts_with(')') {
            if let Some((name, cols, _)) = current.take() {
                let mut def = crate::infoschema::columns_def(super::SCHEMA, &name, cols);
                def.engine = basalt_common::EngineKind::Memory;
                if line.contains("utf8mb3_bin") {
                    def.collation = Collation::Utf8mb3Bin;
                }
                out.insert(name, def);
            }
        }
    }
    out
}

/// One column line after its opening back-quote.
fn column(rest: &str) -> ColumnDef {
    let (name, rest) = rest.split_once('`').unwrap_or((rest, ""));
    let rest = rest.trim_start();
    let (ty, flags) = split_type(rest);
    let collation = if flags.contains("utf8mb3_bin") {
        Collation::Utf8mb3Bin
    } else {
        Collation::Utf8mb3GeneralCi
    };
    let unsigned = flags.starts_with(" unsigned");
    let mut c = ColumnDef::new(name, data_type(ty, unsigned, collation));
    c.nullable = !flags.contains("NOT NULL");
    c
}

/// Splits `type(args) flags...` after the type, respecting quotes in ENUM lists.
fn split_type(s: &str) -> (&str, &str) {
    let mut depth = 0;
    let mut quoted = false;
    for (i, ch) in s.char_indices() {
        match ch {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            ' ' | ',' if !quoted && depth == 0 => return (&s[..i], &s[i..]),
            _ => {}
        }
    }
    (s, "")
}

fn data_type(ty: &str, unsigned: bool, collation: Collation) -> DataType {
    let (base, args) = match ty.split_once('(') {
        Some((b, a)) => (b, a.trim_end_matches(')')),
        None => (ty, ""),
    };
    let n = args
        .split(',')
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(0);
    let int = |kind| DataType::Int {
        kind,
        unsigned,
        width: n as u8,
        zerofill: false,
    };
    match base {
        "bigint" => int(IntKind::Big),
        "int" => int(IntKind::Int),
        "varchar" => DataType::VarChar { len: n, collation },
        "char" => DataType::Char { len: n, collation },
        "longtext" => DataType::Text {
            kind: LobKind::Long,
            collation,
        },
        "longblob" => DataType::Text {
            kind: LobKind::Long,
            collation: Collation::Binary,
        },
        "timestamp" => DataType::Timestamp { fsp: 0 },
        "double" => DataType::Double,
        "enum" => DataType::Enum {
            values: args
                .split(',')
                .map(|v| v.trim_matches('\'').to_string())
                .collect(),
            collation,
        },
        other => panic!("performance_schema column type {other} is not mapped"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_parses() {
        let all = all();
        assert_eq!(all.len(), 84);
        let d = &all["events_statements_summary_by_digest"];
        assert_eq!(d.columns.len(), 29);
        assert_eq!(d.columns[0].name, "SCHEMA_NAME");
        assert!(d.columns[0].nullable);
        let t = &all["events_transactions_current"];
        let state = t.columns.iter().find(|c| c.name == "STATE").expect("STATE");
        assert!(matches!(&state.data_type, DataType::Enum { values, .. } if values.len() == 3));
        let access = t
            .columns
            .iter()
            .find(|c| c.name == "ACCESS_MODE")
            .expect("ACCESS_MODE");
        assert!(
            matches!(&access.data_type, DataType::Enum { values, .. } if values[0] == "READ ONLY")
        );
    }
}
