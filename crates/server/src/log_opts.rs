//! The slow and general query logs' start options, as MariaDB 10.11 names them
//! (with its `log_slow_*` aliases), on the command line or in the defaults
//! file. SET GLOBAL changes the same settings at runtime.

use crate::config::ConfigError;

/// The flags, flattened into [`crate::config::Args`].
#[derive(clap::Args, Debug, Default, Clone)]
pub struct LogArgs {
    /// Turn the slow query log on (`=0` off).
    #[arg(long = "slow-query-log", visible_alias = "log-slow-query", num_args = 0..=1, require_equals = true, default_missing_value = "1")]
    pub slow_query_log: Option<String>,
    /// The slow query log's file (default `<hostname>-slow.log`, relative to the
    /// data directory).
    #[arg(long = "slow-query-log-file", visible_alias = "log-slow-query-file")]
    pub slow_query_log_file: Option<String>,
    /// Seconds after which a statement is slow (default 10).
    #[arg(long = "long-query-time", visible_alias = "log-slow-query-time")]
    pub long_query_time: Option<String>,
    /// Turn the general query log on (`=0` off).
    #[arg(long = "general-log", num_args = 0..=1, require_equals = true, default_missing_value = "1")]
    pub general_log: Option<String>,
    /// The general query log's file (default `<hostname>.log`, relative to the
    /// data directory).
    #[arg(long = "general-log-file")]
    pub general_log_file: Option<String>,
    /// Where the slow and general logs go: FILE (default), TABLE (the
    /// `mysql.slow_log` / `mysql.general_log` tables), both, or NONE.
    #[arg(long = "log-output")]
    pub log_output: Option<String>,
    /// Log statements that read a table whole as slow.
    #[arg(long = "log-queries-not-using-indexes", num_args = 0..=1, require_equals = true, default_missing_value = "1")]
    pub log_queries_not_using_indexes: Option<String>,
    /// What slow-log entries add: empty (default) or `query_plan`.
    #[arg(long = "log-slow-verbosity")]
    pub log_slow_verbosity: Option<String>,
    /// Slow statements that examined fewer rows are not logged (default 0).
    #[arg(
        long = "min-examined-row-limit",
        visible_alias = "log-slow-min-examined-row-limit"
    )]
    pub min_examined_row_limit: Option<String>,
    /// Log slow administrative statements (ALTER, OPTIMIZE, ...; default ON).
    #[arg(long = "log-slow-admin-statements", num_args = 0..=1, require_equals = true, default_missing_value = "1")]
    pub log_slow_admin_statements: Option<String>,
}

/// The defaults file's names for these options.
pub const KNOWN: &[&str] = &[
    "slow_query_log",
    "log_slow_query",
    "slow_query_log_file",
    "log_slow_query_file",
    "long_query_time",
    "log_slow_query_time",
    "general_log",
    "general_log_file",
    "log_output",
    "log_queries_not_using_indexes",
    "log_slow_verbosity",
    "min_examined_row_limit",
    "log_slow_min_examined_row_limit",
    "log_slow_admin_statements",
];

impl LogArgs {
    /// The settings from the flags, else the defaults file (`get`), else
    /// MariaDB's defaults.
    pub fn resolve(
        &self,
        get: &dyn Fn(&str) -> Option<String>,
    ) -> Result<basalt_sql::LogVars, ConfigError> {
        let pick = |flag: &Option<String>, names: &[&str]| {
            flag.clone().or_else(|| names.iter().find_map(|n| get(n)))
        };
        let d = basalt_sql::LogVars::default();
        let flag = |f: &Option<String>, names: &[&str], default: bool| match pick(f, names) {
            Some(v) => bool_value(names[0], &v),
            None => Ok(default),
        };
        Ok(basalt_sql::LogVars {
            slow_query_log: flag(
                &self.slow_query_log,
                &["slow_query_log", "log_slow_query"],
                false,
            )?,
            slow_query_log_file: pick(
                &self.slow_query_log_file,
                &["slow_query_log_file", "log_slow_query_file"],
            ),
            long_query_time: match pick(
                &self.long_query_time,
                &["long_query_time", "log_slow_query_time"],
            ) {
                Some(v) => seconds("long_query_time", &v)?,
                None => d.long_query_time,
            },
            general_log: flag(&self.general_log, &["general_log"], false)?,
            general_log_file: pick(&self.general_log_file, &["general_log_file"]),
            log_output: match pick(&self.log_output, &["log_output"]) {
                Some(v) => basalt_sql::general_log::canonical_output(&v)
                    .ok_or_else(|| bad("log_output", &v, "use FILE, TABLE, NONE or FILE,TABLE"))?,
                None => d.log_output,
            },
            not_using_indexes: flag(
                &self.log_queries_not_using_indexes,
                &["log_queries_not_using_indexes"],
                false,
            )?,
            slow_verbosity: match pick(&self.log_slow_verbosity, &["log_slow_verbosity"]) {
                Some(v) => verbosity(&v)?,
                None => d.slow_verbosity,
            },
            min_examined_row_limit: match pick(
                &self.min_examined_row_limit,
                &["min_examined_row_limit", "log_slow_min_examined_row_limit"],
            ) {
                Some(v) => v
                    .trim()
                    .parse()
                    .map_err(|_| bad("min_examined_row_limit", &v, "not a number"))?,
                None => 0,
            },
            slow_admin_statements: flag(
                &self.log_slow_admin_statements,
                &["log_slow_admin_statements"],
                true,
            )?,
        })
    }
}

fn bad(option: &str, value: &str, msg: &str) -> ConfigError {
    ConfigError::Value {
        option: option.into(),
        value: value.into(),
        msg: msg.into(),
    }
}

/// 0/1, ON/OFF, TRUE/FALSE, as mysqld reads a boolean option.
fn bool_value(option: &str, v: &str) -> Result<bool, ConfigError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "on" | "true" | "yes" => Ok(true),
        "0" | "off" | "false" | "no" => Ok(false),
        _ => Err(bad(option, v, "use 0 or 1 (OFF or ON)")),
    }
}

fn seconds(option: &str, v: &str) -> Result<f64, ConfigError> {
    match v.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(s),
        _ => Err(bad(option, v, "not a number of seconds")),
    }
}

/// `log_slow_verbosity`: empty or `query_plan` (MariaDB's other parts are
/// not supported, as at runtime).
fn verbosity(v: &str) -> Result<String, ConfigError> {
    for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if !part.eq_ignore_ascii_case("query_plan") {
            return Err(bad(
                "log_slow_verbosity",
                v,
                "not supported yet: only query_plan",
            ));
        }
    }
    Ok(if v.trim().is_empty() {
        String::new()
    } else {
        "query_plan".into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn resolve(flags: &[&str], file: &[(&str, &str)]) -> Result<basalt_sql::LogVars, ConfigError> {
        let mut argv = vec!["basaltd"];
        argv.extend_from_slice(flags);
        let args = crate::config::Args::try_parse_from(argv).expect("flags");
        let get = |n: &str| {
            file.iter()
                .find(|(k, _)| *k == n)
                .map(|(_, v)| v.to_string())
        };
        args.logs.resolve(&get)
    }

    #[test]
    fn flags_aliases_and_the_defaults_file() {
        let v = resolve(
            &[
                "--slow-query-log",
                "--long-query-time=0.5",
                "--log-output=table,file",
            ],
            &[],
        )
        .expect("valid");
        assert!(v.slow_query_log && !v.general_log);
        assert_eq!(v.long_query_time, 0.5);
        assert_eq!(v.log_output, "FILE,TABLE");
        let v = resolve(
            &["--log-slow-query=0", "--general-log"],
            &[("log_slow_query", "1")],
        )
        .expect("valid");
        assert!(!v.slow_query_log, "the flag wins over the file");
        assert!(v.general_log);
        let v = resolve(
            &[],
            &[
                ("log_slow_query_time", "2"),
                ("log_slow_min_examined_row_limit", "7"),
                ("general_log_file", "g.log"),
                ("log_slow_admin_statements", "OFF"),
            ],
        )
        .expect("valid");
        assert_eq!(v.long_query_time, 2.0);
        assert_eq!(v.min_examined_row_limit, 7);
        assert_eq!(v.general_log_file.as_deref(), Some("g.log"));
        assert!(!v.slow_admin_statements);
        assert!(resolve(&["--log-output=DISK"], &[]).is_err());
        assert!(resolve(&["--log-slow-verbosity=innodb"], &[]).is_err());
        assert!(resolve(&["--long-query-time=-1"], &[]).is_err());
        assert!(resolve(&["--general-log=maybe"], &[]).is_err());
    }
}
