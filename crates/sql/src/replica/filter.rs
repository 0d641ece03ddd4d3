//! Replication filters: `replicate_do_db`, `replicate_ignore_db`,
//! `replicate_do_table`, `replicate_ignore_table`, `replicate_wild_do_table`,
//! `replicate_wild_ignore_table` and `replicate_rewrite_db`, evaluated as
//! MariaDB's `Rpl_filter` does.
//!
//! - The database is rewritten first (`from->to`): the table map's database of a
//!   row event, the default database of a QUERY event.
//! - Database rules (`db_ok`): no rules pass everything; with a do-list only its
//!   databases pass (names compared exactly); otherwise every database but those of
//!   the ignore-list. A QUERY event without a default database is checked as
//!   database `''` (so a do-list drops it, as MariaDB 10.11 does).
//! - Table rules (`tables_ok`), when any is set, over the tables a change updates:
//!   the first table found in do-table passes the change, in ignore-table drops
//!   it, matching a wild-do pattern passes it, a wild-ignore pattern drops it;
//!   when no table decided, the change passes only if there is neither a do-table
//!   nor a wild-do rule. Table names and patterns compare case-insensitively, the
//!   patterns with LIKE's `%`, `_` and `\` escape over `db.table`.
//! - A row event passes when its database and its table pass; a DDL statement
//!   when its default database passes and, with table rules, its tables do.
//!   CREATE / DROP / ALTER DATABASE also check the database they name against the
//!   database rules and the wild table rules (`db_ok_with_wild_table`).
//!
//! Unlike MariaDB, the rules change while the SQL thread runs: it takes the
//! current [`Filters`] at each transaction's start. [`store`] keeps them in
//! `replication-filters.info` in the data directory (written whole, fsynced,
//! renamed), read back at start.

use basalt_common::MySqlError;
use basalt_storage::io::{FileSystem, OpenOptions};
use std::path::Path;

pub const FILE: &str = "replication-filters.info";
const TMP: &str = "replication-filters.info.tmp";
const MAGIC: &str = "basalt-replication-filters 1";

/// One of the seven rule lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    DoDb,
    IgnoreDb,
    DoTable,
    IgnoreTable,
    WildDoTable,
    WildIgnoreTable,
    RewriteDb,
}

impl Rule {
    pub const ALL: [Rule; 7] = [
        Rule::DoDb,
        Rule::IgnoreDb,
        Rule::DoTable,
        Rule::IgnoreTable,
        Rule::WildDoTable,
        Rule::WildIgnoreTable,
        Rule::RewriteDb,
    ];

    /// The system variable's name (`replicate_do_db`, ...).
    pub fn variable(self) -> &'static str {
        match self {
            Rule::DoDb => "replicate_do_db",
            Rule::IgnoreDb => "replicate_ignore_db",
            Rule::DoTable => "replicate_do_table",
            Rule::IgnoreTable => "replicate_ignore_table",
            Rule::WildDoTable => "replicate_wild_do_table",
            Rule::WildIgnoreTable => "replicate_wild_ignore_table",
            Rule::RewriteDb => "replicate_rewrite_db",
        }
    }

    pub fn from_variable(name: &str) -> Option<Rule> {
        Rule::ALL
            .into_iter()
            .find(|r| r.variable().eq_ignore_ascii_case(name))
    }
}

/// The rules; each list keeps the order it was given in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filters {
    pub do_db: Vec<String>,
    pub ignore_db: Vec<String>,
    /// `db.table` entries.
    pub do_table: Vec<String>,
    pub ignore_table: Vec<String>,
    /// `db_pattern.table_pattern` entries.
    pub wild_do_table: Vec<String>,
    pub wild_ignore_table: Vec<String>,
    /// (from, to) database pairs.
    pub rewrite_db: Vec<(String, String)>,
}

fn bad_set() -> MySqlError {
    MySqlError::wrong_arguments("SET")
}

impl Filters {
    /// Whether any table rule is set (MariaDB's `is_on`).
    pub fn table_rules_on(&self) -> bool {
        !(self.do_table.is_empty()
            && self.ignore_table.is_empty()
            && self.wild_do_table.is_empty()
            && self.wild_ignore_table.is_empty())
    }

    pub fn is_empty(&self) -> bool {
        !self.table_rules_on()
            && self.do_db.is_empty()
            && self.ignore_db.is_empty()
            && self.rewrite_db.is_empty()
    }

    /// `db` after `replicate_rewrite_db` (the first pair naming it).
    pub fn rewrite<'a>(&'a self, db: &'a str) -> &'a str {
        self.rewrite_db
            .iter()
            .find(|(from, _)| from == db)
            .map_or(db, |(_, to)| to.as_str())
    }

    /// The database rules for database `db` (`""`: no default database).
    pub fn db_ok(&self, db: &str) -> bool {
        if !self.do_db.is_empty() {
            return self.do_db.iter().any(|d| d == db);
        }
        !self.ignore_db.iter().any(|d| d == db)
    }

    /// The wild table rules for database statements on `db` (MariaDB's
    /// `db_ok_with_wild_table`): `db.` matching a wild-do pattern passes, a
    /// wild-ignore pattern drops; otherwise it passes unless there is a wild-do rule.
    pub fn db_ok_with_wild_table(&self, db: &str) -> bool {
        let key = format!("{db}.");
        if self.wild_do_table.iter().any(|p| wild_match(&key, p)) {
            return true;
        }
        if self.wild_ignore_table.iter().any(|p| wild_match(&key, p)) {
            return false;
        }
        self.wild_do_table.is_empty()
    }

    /// The table rules for a change updating `tables` ((database, table) pairs).
    pub fn tables_ok(&self, tables: &[(String, String)]) -> bool {
        let listed = |list: &[String], key: &str| list.iter().any(|e| e.eq_ignore_ascii_case(key));
        let wild = |list: &[String], key: &str| list.iter().any(|p| wild_match(key, p));
        for (db, table) in tables {
            let key = format!("{db}.{table}");
            if listed(&self.do_table, &key) {
                return true;
            }
            if listed(&self.ignore_table, &key) {
                return false;
            }
            if wild(&self.wild_do_table, &key) {
                return true;
            }
            if wild(&self.wild_ignore_table, &key) {
                return false;
            }
        }
        !tables.is_empty() && self.do_table.is_empty() && self.wild_do_table.is_empty()
    }

    /// Whether a row event on `db.table` (database already rewritten) applies.
    pub fn row_event_ok(&self, db: &str, table: &str) -> bool {
        self.db_ok(db)
            && (!self.table_rules_on() || self.tables_ok(&[(db.to_string(), table.to_string())]))
    }

    /// The rule's list as the variable and SHOW SLAVE STATUS show it.
    pub fn show(&self, rule: Rule) -> String {
        match rule {
            Rule::DoDb => self.do_db.join(","),
            Rule::IgnoreDb => self.ignore_db.join(","),
            Rule::DoTable => self.do_table.join(","),
            Rule::IgnoreTable => self.ignore_table.join(","),
            Rule::WildDoTable => self.wild_do_table.join(","),
            Rule::WildIgnoreTable => self.wild_ignore_table.join(","),
            Rule::RewriteDb => {
                let pairs: Vec<String> = self
                    .rewrite_db
                    .iter()
                    .map(|(f, t)| format!("{f}->{t}"))
                    .collect();
                pairs.join(",")
            }
        }
    }

    /// Replaces one rule's list with `text` as `SET GLOBAL replicate_x = 'text'`
    /// gives it: comma-separated entries, leading blanks dropped (as MariaDB
    /// does); 1210 for an entry of the wrong form, with nothing changed.
    pub fn set_text(&mut self, rule: Rule, text: &str) -> Result<(), MySqlError> {
        let entries: Vec<String> = text
            .split(',')
            .map(str::trim_start)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        if rule == Rule::RewriteDb {
            let pairs = entries
                .iter()
                .map(|e| rewrite_pair(e).ok_or_else(bad_set))
                .collect::<Result<Vec<_>, _>>()?;
            self.rewrite_db = pairs;
            return Ok(());
        }
        self.set_list(rule, entries)
    }

    /// Replaces one rule's list (not [`Rule::RewriteDb`]); table entries must be
    /// `db.table` (1210 otherwise).
    pub fn set_list(&mut self, rule: Rule, entries: Vec<String>) -> Result<(), MySqlError> {
        let tables = !matches!(rule, Rule::DoDb | Rule::IgnoreDb | Rule::RewriteDb);
        if tables && entries.iter().any(|e| !valid_table_entry(e)) {
            return Err(bad_set());
        }
        *match rule {
            Rule::DoDb => &mut self.do_db,
            Rule::IgnoreDb => &mut self.ignore_db,
            Rule::DoTable => &mut self.do_table,
            Rule::IgnoreTable => &mut self.ignore_table,
            Rule::WildDoTable => &mut self.wild_do_table,
            Rule::WildIgnoreTable => &mut self.wild_ignore_table,
            Rule::RewriteDb => return Err(bad_set()),
        } = entries;
        Ok(())
    }

    fn encode(&self) -> String {
        let mut out = format!("{MAGIC}\n");
        for rule in Rule::ALL {
            out.push_str(rule.variable());
            out.push('=');
            out.push_str(&self.show(rule).replace('\\', "\\\\").replace('\n', "\\n"));
            out.push('\n');
        }
        out
    }

    fn decode(text: &str) -> Option<Filters> {
        let mut lines = text.lines();
        if lines.next()? != MAGIC {
            return None;
        }
        let mut f = Filters::default();
        for line in lines {
            let (k, v) = line.split_once('=')?;
            let v = unescape(v);
            if let Some(rule) = Rule::from_variable(k) {
                f.set_text(rule, &v).ok()?;
            }
        }
        Some(f)
    }
}

/// `from->to`, both sides non-empty (blanks around the arrow dropped).
fn rewrite_pair(entry: &str) -> Option<(String, String)> {
    let (from, to) = entry.split_once("->")?;
    let (from, to) = (from.trim(), to.trim());
    (!from.is_empty() && !to.is_empty()).then(|| (from.to_string(), to.to_string()))
}

/// `db.table`: a dot with something before it.
fn valid_table_entry(e: &str) -> bool {
    e.find('.').is_some_and(|i| i > 0)
}

/// LIKE over ASCII case-insensitively: `%` any run, `_` one character, `\`
/// escapes the next one.
pub fn wild_match(text: &str, pattern: &str) -> bool {
    let t: Vec<char> = text.chars().map(|c| c.to_ascii_lowercase()).collect();
    let p: Vec<char> = pattern.chars().map(|c| c.to_ascii_lowercase()).collect();
    wild_from(&t, &p)
}

fn wild_from(t: &[char], p: &[char]) -> bool {
    match p.first() {
        None => t.is_empty(),
        Some('%') => {
            let rest = &p[1..];
            (0..=t.len()).any(|i| wild_from(&t[i..], rest))
        }
        Some('_') => !t.is_empty() && wild_from(&t[1..], &p[1..]),
        Some('\\') if p.len() > 1 => t.first() == Some(&p[1]) && wild_from(&t[1..], &p[2..]),
        Some(c) => t.first() == Some(c) && wild_from(&t[1..], &p[1..]),
    }
}

fn unescape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Reads `dir/replication-filters.info` (`Ok(None)` when there is none).
pub fn load(fs: &dyn FileSystem, dir: &Path) -> std::io::Result<Option<Filters>> {
    let path = dir.join(FILE);
    if !fs.exists(&path) {
        return Ok(None);
    }
    let file = fs.open(
        &path,
        OpenOptions {
            create: false,
            direct: false,
        },
    )?;
    let mut buf = vec![0; file.len()? as usize];
    file.read_at(&mut buf, 0)?;
    Filters::decode(&String::from_utf8_lossy(&buf))
        .map(Some)
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{} is not a Basalt replication filter file", path.display()),
            )
        })
}

/// Writes `dir/replication-filters.info` durably.
pub fn store(filters: &Filters, fs: &dyn FileSystem, dir: &Path) -> std::io::Result<()> {
    basalt_storage::io::replace_file(fs, dir, FILE, TMP, filters.encode().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(db: &str, table: &str) -> Vec<(String, String)> {
        vec![(db.to_string(), table.to_string())]
    }

    #[test]
    fn database_rules() {
        let mut f = Filters::default();
        assert!(f.db_ok("x") && f.db_ok(""));
        f.set_text(Rule::IgnoreDb, "a, b").expect("valid");
        assert!(!f.db_ok("a") && f.db_ok("c") && f.db_ok(""));
        f.set_text(Rule::DoDb, "c").expect("valid");
        assert!(f.db_ok("c") && !f.db_ok("d") && !f.db_ok("C") && !f.db_ok(""));
        assert_eq!(f.show(Rule::IgnoreDb), "a,b");
    }

    #[test]
    fn table_rules_in_mariadbs_order() {
        let mut f = Filters::default();
        f.set_text(Rule::IgnoreTable, "d.t1").expect("valid");
        assert!(!f.tables_ok(&t("d", "t1")) && f.tables_ok(&t("d", "T2")));
        assert!(
            !f.tables_ok(&t("D", "T1")),
            "names compare case-insensitively"
        );
        f.set_text(Rule::WildDoTable, "d%.x\\_%").expect("valid");
        assert!(f.tables_ok(&t("d2", "x_y")) && !f.tables_ok(&t("d2", "xy")));
        assert!(
            !f.tables_ok(&t("d", "t1")),
            "ignore-table decides before wild-do"
        );
        f.set_text(Rule::DoTable, "d.t1").expect("valid");
        assert!(f.tables_ok(&t("d", "t1")), "do-table decides first");
        assert!(!f.tables_ok(&[]), "no table updated");
    }

    #[test]
    fn rewrite_and_bad_entries() {
        let mut f = Filters::default();
        f.set_text(Rule::RewriteDb, "a->b, c -> d").expect("valid");
        assert_eq!(f.rewrite("a"), "b");
        assert_eq!(f.rewrite("c"), "d");
        assert_eq!(f.rewrite("x"), "x");
        assert_eq!(f.show(Rule::RewriteDb), "a->b,c->d");
        let before = f.clone();
        assert_eq!(
            f.set_text(Rule::RewriteDb, "a").map_err(|e| e.code),
            Err(1210)
        );
        assert_eq!(
            f.set_text(Rule::DoTable, "t").map_err(|e| e.code),
            Err(1210)
        );
        assert_eq!(f, before);
    }

    #[test]
    fn round_trips() {
        let mut f = Filters::default();
        for (rule, text) in [
            (Rule::DoDb, "a,b\\c"),
            (Rule::DoTable, "d.t"),
            (Rule::WildIgnoreTable, "x%.%"),
            (Rule::RewriteDb, "p->q"),
        ] {
            f.set_text(rule, text).expect("valid");
        }
        assert_eq!(Filters::decode(&f.encode()), Some(f));
    }

    #[test]
    fn like_patterns() {
        assert!(wild_match("db1.t", "db%.%"));
        assert!(wild_match("DB1.T", "db_.t"));
        assert!(!wild_match("db12.t", "db_.t"));
        assert!(wild_match("a%b", "a\\%b") && !wild_match("axb", "a\\%b"));
    }
}
