//! The plugins Basalt has, as MariaDB 10.11 describes its own: for
//! information_schema.PLUGINS and SHOW PLUGINS (tools and MariaDB's test suite
//! ask them whether partitioning or the SEQUENCE engine is there).

use super::Col::{self, *};
use crate::result::s;
use basalt_common::{Row, Value};

/// name, version, type, type version, author, description, load option, auth version.
type Plugin = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

const PLUGINS: &[Plugin] = &[
    (
        "mysql_native_password",
        "1.0",
        "AUTHENTICATION",
        "2.2",
        "R.J.Silk, Sergei Golubchik",
        "Native MySQL authentication",
        "FORCE",
        "1.0",
    ),
    (
        "MEMORY",
        "1.0",
        "STORAGE ENGINE",
        "101119.0",
        "MySQL AB",
        "Hash based, stored in memory, useful for temporary tables",
        "FORCE",
        "1.0",
    ),
    (
        "InnoDB",
        "10.11",
        "STORAGE ENGINE",
        "101119.0",
        "Oracle Corporation",
        "Supports transactions, row-level locking, foreign keys and encryption for tables",
        "ON",
        "10.11.19",
    ),
    (
        "SEQUENCE",
        "1.0",
        "STORAGE ENGINE",
        "101119.0",
        "Sergei Golubchik",
        "Generated tables filled with sequential values",
        "ON",
        "0.1",
    ),
    (
        "partition",
        "1.0",
        "STORAGE ENGINE",
        "101119.0",
        "Mikael Ronstrom, MySQL AB",
        "Partition Storage Engine Helper",
        "ON",
        "1.0",
    ),
];

pub const COLUMNS: &[(&str, Col)] = &[
    ("PLUGIN_NAME", Str(64)),
    ("PLUGIN_VERSION", Str(20)),
    ("PLUGIN_STATUS", Str(16)),
    ("PLUGIN_TYPE", Str(80)),
    ("PLUGIN_TYPE_VERSION", Str(20)),
    ("PLUGIN_LIBRARY", OptStr(64)),
    ("PLUGIN_LIBRARY_VERSION", OptStr(20)),
    ("PLUGIN_AUTHOR", OptStr(64)),
    ("PLUGIN_DESCRIPTION", LongText),
    ("PLUGIN_LICENSE", Str(80)),
    ("LOAD_OPTION", Str(64)),
    ("PLUGIN_MATURITY", Str(12)),
    ("PLUGIN_AUTH_VERSION", OptStr(80)),
];

/// information_schema.PLUGINS.
pub fn rows() -> Vec<Row> {
    PLUGINS
        .iter()
        .map(
            |&(name, version, kind, kind_version, author, description, load, auth)| {
                vec![
                    s(name),
                    s(version),
                    s("ACTIVE"),
                    s(kind),
                    s(kind_version),
                    Value::Null,
                    Value::Null,
                    s(author),
                    s(description),
                    s("GPL"),
                    s(load),
                    s("Stable"),
                    s(auth),
                ]
            },
        )
        .collect()
}

/// SHOW PLUGINS: Name, Status, Type, Library, License.
pub fn show_rows() -> Vec<Row> {
    PLUGINS
        .iter()
        .map(|p| vec![s(p.0), s("ACTIVE"), s(p.2), Value::Null, s("GPL")])
        .collect()
}
