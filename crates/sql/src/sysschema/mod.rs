//! The `sys` schema: MariaDB 10.11's sys views (read from `views.sql`, the
//! view definitions of its mysql_sys_schema.sql) over performance_schema and
//! information_schema, and the sys functions those views call.
//!
//! The views are built in, not stored: they cannot be dropped or replaced,
//! and they follow the server's version. The functions (`sys.format_time`,
//! `sys.format_bytes`, `sys.format_statement`, `sys.format_path`,
//! `sys.ps_thread_account`, `sys.ps_thread_id`, `sys.quote_identifier`,
//! `sys.version_major` / `_minor` / `_patch`) are expanded into built-in
//! expressions where a query calls them, since Basalt has no stored
//! functions yet; sys's procedures are not available.

use basalt_storage::ViewDef;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

pub const SCHEMA: &str = "sys";

const VIEWS: &str = include_str!("views.sql");

/// True for the name of the `sys` database.
pub fn is_schema(db: &str) -> bool {
    db == SCHEMA
}

fn all() -> &'static BTreeMap<String, Arc<ViewDef>> {
    static ALL: OnceLock<BTreeMap<String, Arc<ViewDef>>> = OnceLock::new();
    ALL.get_or_init(|| parse(VIEWS))
}

fn parse(text: &str) -> BTreeMap<String, Arc<ViewDef>> {
    let mut out = BTreeMap::new();
    let mut head: Option<(String, String, Vec<String>)> = None;
    let mut body = String::new();
    for line in text.lines() {
        if line.starts_with("--") && head.is_none() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("VIEW ") {
            let (name, rest) = rest.split_once(' ').unwrap_or((rest, ""));
            let (alg, cols) = rest.split_once(' ').unwrap_or((rest, ""));
            let cols = cols.trim_start_matches('(').trim_end_matches(')');
            let cols = cols.split(", ").map(str::to_string).collect();
            head = Some((name.to_string(), alg.to_string(), cols));
            body.clear();
        } else if line == ";" {
            if let Some((name, algorithm, columns)) = head.take() {
                out.insert(
                    name.clone(),
                    Arc::new(view(name, algorithm, columns, &body)),
                );
            }
        } else {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

/// The sys functions a view body calls without naming the schema.
const UNQUALIFIED: &[&str] = &[
    "extract_schema_from_file_name",
    "extract_table_from_file_name",
];

fn view(name: String, algorithm: String, columns: Vec<String>, body: &str) -> ViewDef {
    let mut body = body.to_string();
    for f in UNQUALIFIED {
        let call = format!("{f}(");
        body = body
            .replace(&format!("sys.{call}"), &call)
            .replace(&call, &format!("sys.{call}"));
    }
    let body = body.as_str();
    ViewDef {
        schema: SCHEMA.into(),
        name,
        body: body.trim_end().to_string(),
        definition: body.trim_end().to_string(),
        columns,
        algorithm,
        definer_user: "mariadb.sys".into(),
        definer_host: "localhost".into(),
        security: "INVOKER".into(),
        check_option: "NONE".into(),
        updatable: false,
        character_set_client: "utf8mb3".into(),
        collation_connection: "utf8mb3_general_ci".into(),
    }
}

/// The sys view `name`.
pub fn view_def(name: &str) -> Option<Arc<ViewDef>> {
    all().get(name).cloned()
}

/// The names of the views, sorted.
pub fn view_names() -> Vec<String> {
    all().keys().cloned().collect()
}

/// The built-in expression a call of sys function `name` on `args` (SQL
/// texts) stands for, if `name` is one of the functions Basalt provides.
pub fn function(name: &str, args: &[String]) -> Option<String> {
    let a = |i: usize| args.get(i).map_or("NULL", String::as_str);
    let scaled = |steps: &[(&str, &str)], last: String| {
        let x = format!("({})", a(0));
        let mut s = format!("CASE WHEN {x} IS NULL THEN NULL");
        for (div, unit) in steps {
            s.push_str(&format!(
                " WHEN {x} >= {div} THEN CONCAT(ROUND({x} / {div}, 2), ' {unit}')"
            ));
        }
        s.push_str(&format!(" ELSE {last} END"));
        s
    };
    Some(match (name, args.len()) {
        ("format_time", 1) => scaled(
            &[
                ("604800000000000000", "w"),
                ("86400000000000000", "d"),
                ("3600000000000000", "h"),
                ("60000000000000", "m"),
                ("1000000000000", "s"),
                ("1000000000", "ms"),
                ("1000000", "us"),
                ("1000", "ns"),
            ],
            format!("CONCAT(({}), ' ps')", a(0)),
        ),
        ("format_bytes", 1) => scaled(
            &[
                ("1125899906842624", "PiB"),
                ("1099511627776", "TiB"),
                ("1073741824", "GiB"),
                ("1048576", "MiB"),
                ("1024", "KiB"),
            ],
            format!("CONCAT(ROUND(({}), 0), ' bytes')", a(0)),
        ),
        ("format_statement", 1) => format!(
            "IF(CHAR_LENGTH({x}) > 64, REPLACE(CONCAT(LEFT({x}, 30), ' ... ', RIGHT({x}, 30)), \
             '\\n', ' '), REPLACE({x}, '\\n', ' '))",
            x = a(0)
        ),
        ("format_path", 1) => format!("({})", a(0)),
        ("ps_thread_account", 1) => format!(
            "(SELECT IF(type = 'FOREGROUND', CONCAT(processlist_user, '@', processlist_host), \
             type) FROM performance_schema.threads WHERE thread_id = ({}))",
            a(0)
        ),
        ("ps_thread_id", 1) => format!(
            "(SELECT thread_id FROM performance_schema.threads WHERE processlist_id = \
             IFNULL(({}), CONNECTION_ID()))",
            a(0)
        ),
        ("extract_schema_from_file_name", 1) => format!(
            "LEFT(SUBSTRING_INDEX(SUBSTRING_INDEX(REPLACE(({}), '\\\\', '/'), '/', -2), '/', 1), 64)",
            a(0)
        ),
        ("extract_table_from_file_name", 1) => format!(
            "LEFT(SUBSTRING_INDEX(REPLACE(SUBSTRING_INDEX(REPLACE(({}), '\\\\', '/'), '/', -1), \
             '@0024', '$'), '.', 1), 64)",
            a(0)
        ),
        ("quote_identifier", 1) => format!("CONCAT('`', REPLACE(({}), '`', '``'), '`')", a(0)),
        ("version_major", 0) => "CAST(SUBSTRING_INDEX(VERSION(), '.', 1) AS UNSIGNED)".into(),
        ("version_minor", 0) => {
            "CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(VERSION(), '.', 2), '.', -1) AS UNSIGNED)".into()
        }
        ("version_patch", 0) => {
            "CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(SUBSTRING_INDEX(VERSION(), '-', 1), '.', 3), \
             '.', -1) AS UNSIGNED)"
                .into()
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_parse() {
        let v = view_def("statement_analysis").expect("statement_analysis");
        assert_eq!(v.columns.len(), 23);
        assert!(v
            .body
            .starts_with("SELECT sys.format_statement(DIGEST_TEXT) AS query"));
        assert!(view_def("x$processlist").is_some());
        assert!(view_names().len() > 90);
    }

    #[test]
    fn functions_expand() {
        assert!(function("format_time", &["x".into()]).is_some());
        assert!(function("format_time", &[]).is_none());
        assert!(function("diagnostics", &[]).is_none());
    }
}
