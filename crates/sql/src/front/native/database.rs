//! `ALTER {DATABASE|SCHEMA} [name] alter_option ...`, as MariaDB's grammar has it:
//!
//! ```text
//! alter_option: [DEFAULT] {CHARACTER SET | CHARSET} [=] name
//!             | [DEFAULT] COLLATE [=] name
//!             | COMMENT [=] 'text'
//! ```
//!
//! and `CREATE [OR REPLACE] {DATABASE|SCHEMA} [IF NOT EXISTS] name
//! [alter_option ...]`. `UPGRADE DATA DIRECTORY NAME` is refused with 1235:
//! Basalt keeps no old-style directory names.

use super::{Native, P, R};
use basalt_common::MySqlError;

/// The options of CREATE / ALTER DATABASE.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DbOptions {
    pub charset: Option<String>,
    pub collation: Option<String>,
    pub comment: Option<String>,
}

/// `CREATE [OR REPLACE] {DATABASE|SCHEMA} ...`, the cursor after CREATE; `None`
/// for any other CREATE.
pub(super) fn create_database(p: &mut P) -> R<Option<Native>> {
    let at = p.pos;
    let or_replace = p.kw("or") && p.kw("replace");
    if !(p.kw("database") || p.kw("schema")) {
        p.pos = at;
        return Ok(None);
    }
    let if_not_exists = p.if_not_exists()?;
    if or_replace && if_not_exists {
        return Err(MySqlError::new(
            1221,
            "HY000",
            "Incorrect usage of OR REPLACE and IF NOT EXISTS",
        ));
    }
    let name = p.ident()?;
    let opts = options(p)?;
    p.end()?;
    Ok(Some(Native::CreateDatabase {
        or_replace,
        if_not_exists,
        name,
        opts,
    }))
}

fn options(p: &mut P) -> R<DbOptions> {
    let mut o = DbOptions::default();
    loop {
        if p.kw("comment") {
            p.punct("=");
            o.comment = Some(String::from_utf8_lossy(&p.string()?).into_owned());
            continue;
        }
        let at = p.pos;
        p.kw("default");
        if p.kw("character") {
            p.expect_kw("set")?;
            o.charset = Some(value(p)?);
        } else if p.kw("charset") {
            o.charset = Some(value(p)?);
        } else if p.kw("collate") {
            o.collation = Some(value(p)?);
        } else {
            p.pos = at;
            break;
        }
    }
    Ok(o)
}
use crate::front::lexer::TokKind;

pub(super) fn alter_database(p: &mut P) -> R<Native> {
    if !(p.kw("database") || p.kw("schema")) {
        return Err(p.err());
    }
    let starts_option = |p: &P| {
        p.peek().is_some_and(|t| {
            [
                "default",
                "character",
                "charset",
                "collate",
                "comment",
                "upgrade",
            ]
            .iter()
            .any(|k| t.is_kw(p.src, k))
        })
    };
    let name = if starts_option(p) {
        None
    } else {
        Some(p.ident()?)
    };
    if p.kw("upgrade") {
        return Ok(Native::Unsupported(
            "ALTER DATABASE ... UPGRADE DATA DIRECTORY NAME",
        ));
    }
    let opts = options(p)?;
    if opts == DbOptions::default() {
        return Err(p.err());
    }
    p.end()?;
    Ok(Native::AlterDatabase { name, opts })
}

/// `[=] name` where the name may be a word, a quoted identifier or a string.
fn value(p: &mut P) -> R<String> {
    p.punct("=");
    match p.peek() {
        Some(t) if t.kind == TokKind::Str => {
            Ok(String::from_utf8_lossy(&p.string()?).to_ascii_lowercase())
        }
        _ => Ok(p.ident()?.to_ascii_lowercase()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse_native, Native};
    use super::DbOptions;
    use crate::front::lexer::lex;

    fn native(s: &str) -> Result<Option<Native>, basalt_common::MySqlError> {
        parse_native(s, &lex(s).tokens, false)
    }

    #[test]
    fn create_database() {
        assert_eq!(
            native("create or replace schema d comment = 'c' default character set latin1")
                .expect("parses"),
            Some(Native::CreateDatabase {
                or_replace: true,
                if_not_exists: false,
                name: "d".into(),
                opts: DbOptions {
                    charset: Some("latin1".into()),
                    collation: None,
                    comment: Some("c".into()),
                },
            })
        );
        assert_eq!(
            native("CREATE DATABASE IF NOT EXISTS `d` COLLATE utf8mb4_bin").expect("parses"),
            Some(Native::CreateDatabase {
                or_replace: false,
                if_not_exists: true,
                name: "d".into(),
                opts: DbOptions {
                    collation: Some("utf8mb4_bin".into()),
                    ..DbOptions::default()
                },
            })
        );
        let e = native("create or replace database if not exists d").unwrap_err();
        assert_eq!(e.code, 1221);
        assert!(native("create database d comment").is_err());
        assert!(native("create database").is_err());
        // Other CREATEs are not this statement's.
        assert!(!matches!(
            native("create table t (a int)"),
            Ok(Some(Native::CreateDatabase { .. }))
        ));
    }

    #[test]
    fn alter_database_comment() {
        assert_eq!(
            native("alter database d comment 'x'").expect("parses"),
            Some(Native::AlterDatabase {
                name: Some("d".into()),
                opts: DbOptions {
                    comment: Some("x".into()),
                    ..DbOptions::default()
                },
            })
        );
        assert!(native("alter database d").is_err());
    }
}
