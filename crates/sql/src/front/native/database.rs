//! `ALTER {DATABASE|SCHEMA} [name] alter_option ...`, as MariaDB's grammar has it:
//!
//! ```text
//! alter_option: [DEFAULT] {CHARACTER SET | CHARSET} [=] name
//!             | [DEFAULT] COLLATE [=] name
//!             | COMMENT [=] 'text'
//! ```
//!
//! `COMMENT` (MariaDB 10.5's schema comments) and `UPGRADE DATA DIRECTORY NAME`
//! are refused with 1235: Basalt keeps no schema comment and no old-style
//! directory names.

use super::{Native, P, R};
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
    let (mut charset, mut collation) = (None, None);
    loop {
        if p.kw("upgrade") {
            return Ok(Native::Unsupported(
                "ALTER DATABASE ... UPGRADE DATA DIRECTORY NAME",
            ));
        }
        if p.kw("comment") {
            return Ok(Native::Unsupported("ALTER DATABASE ... COMMENT"));
        }
        p.kw("default");
        if p.kw("character") {
            p.expect_kw("set")?;
            charset = Some(value(p)?);
        } else if p.kw("charset") {
            charset = Some(value(p)?);
        } else if p.kw("collate") {
            collation = Some(value(p)?);
        } else {
            break;
        }
    }
    if charset.is_none() && collation.is_none() {
        return Err(p.err());
    }
    p.end()?;
    Ok(Native::AlterDatabase {
        name,
        charset,
        collation,
    })
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
