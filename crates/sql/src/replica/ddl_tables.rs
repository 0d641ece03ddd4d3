//! The tables a replicated DDL statement changes, for the table filters
//! (MariaDB checks the statement's updated tables against `replicate_*_table`):
//! CREATE [OR REPLACE] TABLE, DROP TABLE, ALTER TABLE, TRUNCATE [TABLE], RENAME
//! TABLE (both names of each pair), CREATE [UNIQUE] INDEX ... ON t, DROP INDEX ...
//! ON t. A name without a database is in the statement's default database.
//! Other statements change no table (`None`): the table filters do not apply.

/// A statement's words: identifiers (unquoted or in backquotes, with the dot of
/// `db.table` kept as a word of its own) and punctuation; string literals and
/// comments are left out.
fn words(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' => {
                let mut w = String::new();
                while let Some(c) = chars.next() {
                    if c == '`' {
                        if chars.peek() == Some(&'`') {
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    w.push(c);
                }
                out.push(format!("`{w}"));
            }
            '\'' | '"' => {
                while let Some(x) = chars.next() {
                    if x == '\\' {
                        chars.next();
                    } else if x == c {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut prev = ' ';
                for x in chars.by_ref() {
                    if prev == '*' && x == '/' {
                        break;
                    }
                    prev = x;
                }
            }
            c if c.is_alphanumeric() || c == '_' || c == '$' => {
                let mut w = c.to_string();
                while let Some(&x) = chars.peek() {
                    if !(x.is_alphanumeric() || x == '_' || x == '$') {
                        break;
                    }
                    w.push(x);
                    chars.next();
                }
                out.push(w);
            }
            c if c.is_whitespace() => {}
            c => out.push(c.to_string()),
        }
    }
    out
}

fn is(w: Option<&String>, kw: &str) -> bool {
    w.is_some_and(|w| !w.starts_with('`') && w.eq_ignore_ascii_case(kw))
}

fn name(w: &str) -> String {
    w.strip_prefix('`').unwrap_or(w).to_string()
}

/// `[db.]table` at `words[at]`: (database, table) and the index after it.
fn table_at(words: &[String], at: usize, db: &str) -> Option<((String, String), usize)> {
    let first = words.get(at)?;
    if words.get(at + 1).map(String::as_str) == Some(".") {
        let t = words.get(at + 2)?;
        return Some(((name(first), name(t)), at + 3));
    }
    Some(((db.to_string(), name(first)), at + 1))
}

/// A comma-separated list of tables from `at` (DROP TABLE, TRUNCATE).
fn table_list(words: &[String], mut at: usize, db: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    while let Some((t, next)) = table_at(words, at, db) {
        out.push(t);
        if words.get(next).map(String::as_str) != Some(",") {
            break;
        }
        at = next + 1;
    }
    out
}

/// Skips `IF [NOT] EXISTS`.
fn skip_if(words: &[String], mut at: usize) -> usize {
    if is(words.get(at), "IF") {
        at += 1;
        if is(words.get(at), "NOT") {
            at += 1;
        }
        if is(words.get(at), "EXISTS") {
            at += 1;
        }
    }
    at
}

/// The tables `sql` changes, in default database `db`; `None` when it is not a
/// statement on tables.
pub fn ddl_tables(sql: &str, db: &str) -> Option<Vec<(String, String)>> {
    let w = words(sql);
    let at = |i: usize| w.get(i);
    let mut i = 1;
    if is(at(0), "CREATE") && is(at(1), "OR") && is(at(2), "REPLACE") {
        i = 3;
    }
    let first = at(0)?.to_ascii_uppercase();
    match first.as_str() {
        "CREATE" | "DROP" if is(at(i), "TEMPORARY") => None,
        "CREATE" if is(at(i), "TABLE") => {
            table_at(&w, skip_if(&w, i + 1), db).map(|(t, _)| vec![t])
        }
        "DROP" if is(at(i), "TABLE") => Some(table_list(&w, skip_if(&w, i + 1), db)),
        "ALTER" => {
            let j = (i..w.len().min(i + 3)).find(|&j| is(at(j), "TABLE"))?;
            table_at(&w, j + 1, db).map(|(t, _)| vec![t])
        }
        "TRUNCATE" => {
            let j = if is(at(1), "TABLE") { 2 } else { 1 };
            Some(table_list(&w, j, db))
        }
        "RENAME" if is(at(1), "TABLE") => {
            let flat: Vec<String> = w[2..]
                .iter()
                .map(|x| {
                    if is(Some(x), "TO") {
                        ",".into()
                    } else {
                        x.clone()
                    }
                })
                .collect();
            Some(table_list(&flat, 0, db))
        }
        "CREATE" | "DROP" => {
            let on = w.iter().position(|x| is(Some(x), "ON"))?;
            let index = (1..on).any(|j| is(at(j), "INDEX"));
            if !index {
                return None;
            }
            table_at(&w, on + 1, db).map(|(t, _)| vec![t])
        }
        _ => None,
    }
}

/// The database a CREATE / DROP / ALTER DATABASE | SCHEMA statement names (MariaDB
/// checks it against the database rules and the wild table rules, as `db.`).
pub fn database_named(sql: &str) -> Option<String> {
    let w = words(sql);
    let verb = ["CREATE", "DROP", "ALTER"].iter().any(|v| is(w.first(), v));
    if !verb || !(is(w.get(1), "DATABASE") || is(w.get(1), "SCHEMA")) {
        return None;
    }
    w.get(skip_if(&w, 2)).map(|n| name(n))
}

#[cfg(test)]
mod tests {
    use super::{database_named, ddl_tables};

    #[test]
    fn database_statements() {
        let named = |s: &str| database_named(s);
        assert_eq!(named("CREATE DATABASE x"), Some("x".into()));
        assert_eq!(named("drop schema if exists `a b`"), Some("a b".into()));
        assert_eq!(
            named("CREATE DATABASE IF NOT EXISTS y CHARACTER SET latin1"),
            Some("y".into())
        );
        assert_eq!(
            named("ALTER DATABASE z COLLATE utf8mb4_bin"),
            Some("z".into())
        );
        assert_eq!(named("CREATE TABLE t (a int)"), None);
    }

    fn t(pairs: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(
            pairs
                .iter()
                .map(|(d, t)| (d.to_string(), t.to_string()))
                .collect(),
        )
    }

    #[test]
    fn tables_of_ddl() {
        assert_eq!(ddl_tables("CREATE TABLE t (a int)", "d"), t(&[("d", "t")]));
        assert_eq!(
            ddl_tables(
                "create or replace table if not exists `x y`.`t`` ` (a int)",
                "d"
            ),
            t(&[("x y", "t` ")])
        );
        assert_eq!(
            ddl_tables("DROP TABLE IF EXISTS a, e.b /* generated by server */", "d"),
            t(&[("d", "a"), ("e", "b")])
        );
        assert_eq!(
            ddl_tables("ALTER ONLINE TABLE e.t ADD b int", "d"),
            t(&[("e", "t")])
        );
        assert_eq!(ddl_tables("TRUNCATE t", "d"), t(&[("d", "t")]));
        assert_eq!(
            ddl_tables("RENAME TABLE a TO e.b, c TO d2", "d"),
            t(&[("d", "a"), ("e", "b"), ("d", "c"), ("d", "d2")])
        );
        assert_eq!(
            ddl_tables("CREATE UNIQUE INDEX i ON e.t (a)", "d"),
            t(&[("e", "t")])
        );
        assert_eq!(ddl_tables("DROP INDEX i ON t", "d"), t(&[("d", "t")]));
        assert_eq!(ddl_tables("CREATE DATABASE x", "d"), None);
        assert_eq!(ddl_tables("DROP TEMPORARY TABLE t", "d"), None);
    }
}
