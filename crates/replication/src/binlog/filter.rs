//! `binlog_do_db` / `binlog_ignore_db`: which databases the binary log records.
//!
//! As MariaDB does under row-based logging, a row change is logged by the database
//! of its table, and a statement logged as a QUERY event (DDL) by the session's
//! default database. With a do-list, only its databases are logged; otherwise every
//! database but those of the ignore-list. Unlike MariaDB (start-up options only),
//! both lists can change at runtime (`SET GLOBAL`), taking effect for transactions
//! that commit afterwards.

/// The two lists, comma-separated names as the variables show them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DbFilter {
    pub do_db: Vec<String>,
    pub ignore_db: Vec<String>,
}

impl DbFilter {
    /// Whether changes in database `db` are logged.
    pub fn logs(&self, db: &str) -> bool {
        if !self.do_db.is_empty() {
            return self.do_db.iter().any(|d| d == db);
        }
        !self.ignore_db.iter().any(|d| d == db)
    }

    pub fn is_empty(&self) -> bool {
        self.do_db.is_empty() && self.ignore_db.is_empty()
    }

    /// A list as `SET GLOBAL binlog_do_db = 'a,b'` gives it.
    pub fn parse_list(text: &str) -> Vec<String> {
        text.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }

    /// How SHOW MASTER STATUS and the variables print a list.
    pub fn show(list: &[String]) -> String {
        list.join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn do_list_wins_over_ignore_list() {
        let mut f = DbFilter::default();
        assert!(f.logs("a"));
        f.ignore_db = DbFilter::parse_list("a, b");
        assert!(!f.logs("a") && f.logs("c"));
        f.do_db = DbFilter::parse_list("c");
        assert!(f.logs("c") && !f.logs("d") && !f.logs("a"));
        assert_eq!(DbFilter::show(&f.ignore_db), "a,b");
    }
}
