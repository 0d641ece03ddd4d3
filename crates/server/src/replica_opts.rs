//! The replica's start options: `--replicate-*` filter lists (repeatable, or one
//! comma-separated value from the defaults file), `--log-slave-updates` and
//! `--slave-skip-errors`.

use crate::config::ConfigError;

/// The flags, flattened into [`crate::config::Args`].
#[derive(clap::Args, Debug, Default, Clone)]
pub struct ReplicaArgs {
    /// Apply only changes in this database (repeatable; `replicate_do_db`).
    #[arg(long = "replicate-do-db")]
    pub replicate_do_db: Vec<String>,
    /// Do not apply changes in this database (repeatable).
    #[arg(long = "replicate-ignore-db")]
    pub replicate_ignore_db: Vec<String>,
    /// Apply only changes to this `db.table` (repeatable).
    #[arg(long = "replicate-do-table")]
    pub replicate_do_table: Vec<String>,
    /// Do not apply changes to this `db.table` (repeatable).
    #[arg(long = "replicate-ignore-table")]
    pub replicate_ignore_table: Vec<String>,
    /// Apply changes to tables matching this `db%.t%` LIKE pattern (repeatable).
    #[arg(long = "replicate-wild-do-table")]
    pub replicate_wild_do_table: Vec<String>,
    /// Do not apply changes to tables matching this pattern (repeatable).
    #[arg(long = "replicate-wild-ignore-table")]
    pub replicate_wild_ignore_table: Vec<String>,
    /// Apply changes of database `from` to database `to` (`from->to`, repeatable).
    #[arg(long = "replicate-rewrite-db")]
    pub replicate_rewrite_db: Vec<String>,
    /// Replicated transactions go to this server's binary log too
    /// (`log_slave_updates`; ON/OFF, default OFF; changeable at runtime).
    #[arg(long = "log-slave-updates", alias = "log-replica-updates", num_args = 0..=1, require_equals = true, default_missing_value = "ON")]
    pub log_slave_updates: Option<String>,
    /// Error numbers the replica's SQL thread passes over (`1062,1032`, `all`).
    #[arg(long = "slave-skip-errors")]
    pub slave_skip_errors: Option<String>,
}

impl ReplicaArgs {
    fn lists(&self) -> [(&'static str, &Vec<String>); 7] {
        [
            ("replicate_do_db", &self.replicate_do_db),
            ("replicate_ignore_db", &self.replicate_ignore_db),
            ("replicate_do_table", &self.replicate_do_table),
            ("replicate_ignore_table", &self.replicate_ignore_table),
            ("replicate_wild_do_table", &self.replicate_wild_do_table),
            (
                "replicate_wild_ignore_table",
                &self.replicate_wild_ignore_table,
            ),
            ("replicate_rewrite_db", &self.replicate_rewrite_db),
        ]
    }

    /// The filter lists named at start, as (variable, comma-separated list); the
    /// command line wins over the defaults file, list by list.
    pub fn filters(&self, get: &dyn Fn(&str) -> Option<String>) -> Vec<(String, String)> {
        self.lists()
            .into_iter()
            .filter_map(|(name, flags)| {
                let text = if flags.is_empty() {
                    get(name)?
                } else {
                    flags.join(",")
                };
                Some((name.to_string(), text))
            })
            .collect()
    }

    /// `log_slave_updates` at start: the flag, else the defaults file's
    /// `log_slave_updates` or `log_replica_updates`.
    pub fn log_slave_updates(&self, get: &dyn Fn(&str) -> Option<String>) -> bool {
        let v = (self.log_slave_updates.clone())
            .or_else(|| get("log_slave_updates"))
            .or_else(|| get("log_replica_updates"));
        v.is_some_and(|v| {
            v == "1" || v.eq_ignore_ascii_case("on") || v.eq_ignore_ascii_case("true")
        })
    }

    /// `@@slave_skip_errors` as MariaDB shows it.
    pub fn skip_errors(&self, get: &dyn Fn(&str) -> Option<String>) -> Result<String, ConfigError> {
        match self
            .slave_skip_errors
            .clone()
            .or_else(|| get("slave_skip_errors"))
        {
            Some(v) => skip_errors_text(&v),
            None => Ok("OFF".into()),
        }
    }
}

/// Error numbers at or above this are not kept (MariaDB's `MAX_SLAVE_ERROR`).
const MAX_SLAVE_ERROR: u32 = 10_000;
/// Where MariaDB's printable list stops adding numbers and ends with `...`.
const PRINT_LIMIT: usize = 2038;

/// `OFF`, or the error numbers ascending (`all`: every one below 10000), cut
/// with `...` past MariaDB's buffer.
pub fn skip_errors_text(v: &str) -> Result<String, ConfigError> {
    let v = v.trim();
    let mut codes: Vec<u32> = if v.eq_ignore_ascii_case("all") {
        (0..MAX_SLAVE_ERROR).collect()
    } else if v.eq_ignore_ascii_case("off") || v.is_empty() {
        Vec::new()
    } else {
        let mut out = Vec::new();
        for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let n: u32 = part.parse().map_err(|_| ConfigError::Value {
                option: "slave-skip-errors".into(),
                value: v.to_string(),
                msg: "expected error numbers separated by commas, or all".into(),
            })?;
            if n < MAX_SLAVE_ERROR {
                out.push(n);
            }
        }
        out
    };
    codes.sort_unstable();
    codes.dedup();
    if codes.is_empty() {
        return Ok("OFF".into());
    }
    let mut text = String::new();
    let mut cut = false;
    for c in codes {
        if text.len() >= PRINT_LIMIT {
            cut = true;
            break;
        }
        text.push_str(&c.to_string());
        text.push(',');
    }
    text.pop();
    if cut {
        text.push_str("...");
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::skip_errors_text;

    #[test]
    fn printed_as_mariadb() {
        assert_eq!(
            skip_errors_text("1062,1032,99999").expect("valid list"),
            "1032,1062"
        );
        assert_eq!(skip_errors_text("off").expect("valid list"), "OFF");
        let all = skip_errors_text("all").expect("valid list");
        assert_eq!(all.len(), 2040);
        assert!(all.starts_with("0,1,2,") && all.ends_with(",535,536..."));
        assert!(skip_errors_text("10x").is_err());
    }
}
