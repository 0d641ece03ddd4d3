//! CREATE / ALTER / DROP SEQUENCE and SHOW CREATE SEQUENCE, in MariaDB 10.11's
//! grammar (sqlparser 0.64 reads none of its options):
//!
//! ```text
//! CREATE [OR REPLACE] SEQUENCE [IF NOT EXISTS] [db.]name [option ...] [table option ...]
//! ALTER SEQUENCE [IF EXISTS] [db.]name [option | RESTART [[WITH | =] n] ...]
//! DROP SEQUENCE [IF EXISTS] [db.]name [, ...]
//! SHOW CREATE SEQUENCE [db.]name
//! option: INCREMENT [BY | =] n | START [WITH | =] n
//!       | MINVALUE [=] n | NO MINVALUE | NOMINVALUE
//!       | MAXVALUE [=] n | NO MAXVALUE | NOMAXVALUE
//!       | CACHE [=] n | NOCACHE | CYCLE | NOCYCLE
//! table option: ENGINE [=] name | COMMENT [=] 'text'
//! ```
//!
//! An option given twice is MariaDB's 1225. TEMPORARY sequences are refused
//! with 1235.

use super::{Native, P, R};
use crate::front::lexer::TokKind;
use basalt_common::MySqlError;

/// Options as written; `None` where the statement does not say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeqOptions {
    pub increment: Option<i64>,
    pub start: Option<i64>,
    /// `Some(None)`: NO MINVALUE.
    pub min: Option<Option<i64>>,
    pub max: Option<Option<i64>>,
    pub cache: Option<u64>,
    pub cycle: Option<bool>,
    /// ALTER only: `Some(None)` for RESTART without a value.
    pub restart: Option<Option<i64>>,
    pub engine: Option<String>,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeqStmt {
    Create {
        or_replace: bool,
        if_not_exists: bool,
        db: Option<String>,
        name: String,
        options: SeqOptions,
    },
    Alter {
        if_exists: bool,
        db: Option<String>,
        name: String,
        options: SeqOptions,
    },
    Drop {
        if_exists: bool,
        names: Vec<(Option<String>, String)>,
    },
    ShowCreate {
        db: Option<String>,
        name: String,
    },
}

/// Reads a sequence statement; `Ok(None)` when the statement is not one (the
/// cursor is then back after the first keyword).
pub(super) fn sequence_statement(p: &mut P, first: &str) -> R<Option<Native>> {
    let start = p.pos;
    let stmt = match first {
        "show" => {
            if !(p.kw("create") && p.kw("sequence")) {
                p.pos = start;
                return Ok(None);
            }
            let (db, name) = p.qualified()?;
            p.end()?;
            SeqStmt::ShowCreate { db, name }
        }
        "drop" => {
            let temporary = p.kw("temporary");
            if !p.kw("sequence") {
                p.pos = start;
                return Ok(None);
            }
            if temporary {
                return Ok(Some(Native::Unsupported("temporary sequences")));
            }
            let if_exists = if_exists(p)?;
            let mut names = vec![p.qualified()?];
            while p.punct(",") {
                names.push(p.qualified()?);
            }
            p.end()?;
            SeqStmt::Drop { if_exists, names }
        }
        "alter" => {
            if !p.kw("sequence") {
                p.pos = start;
                return Ok(None);
            }
            let if_exists = if_exists(p)?;
            let (db, name) = p.qualified()?;
            let options = options(p, true)?;
            SeqStmt::Alter {
                if_exists,
                db,
                name,
                options,
            }
        }
        _ => {
            let or_replace = p.kw("or") && p.kw("replace");
            if !or_replace {
                p.pos = start;
            }
            let temporary = p.kw("temporary");
            if !p.kw("sequence") {
                p.pos = start;
                return Ok(None);
            }
            if temporary {
                return Ok(Some(Native::Unsupported("temporary sequences")));
            }
            let if_not_exists = p.if_not_exists()?;
            let (db, name) = p.qualified()?;
            let options = options(p, false)?;
            SeqStmt::Create {
                or_replace,
                if_not_exists,
                db,
                name,
                options,
            }
        }
    };
    Ok(Some(Native::Sequence(stmt)))
}

fn if_exists(p: &mut P) -> R<bool> {
    if p.kw("if") {
        p.expect_kw("exists")?;
        return Ok(true);
    }
    Ok(false)
}

fn twice(option: &str) -> MySqlError {
    MySqlError::new(
        1225,
        "HY000",
        format!("Option '{option}' used twice in statement"),
    )
}

fn set<T>(slot: &mut Option<T>, v: T, name: &str) -> R<()> {
    if slot.is_some() {
        return Err(twice(name));
    }
    *slot = Some(v);
    Ok(())
}

/// A signed integer literal in the range of BIGINT.
fn number(p: &mut P) -> R<i64> {
    let neg = if p.punct("-") {
        true
    } else {
        p.punct("+");
        false
    };
    let t = p.peek().ok_or_else(|| p.err())?;
    if !matches!(t.kind, TokKind::Num(_)) {
        return Err(p.err());
    }
    let text = t.text(p.src);
    let v: i128 = text.parse().map_err(|_| p.err())?;
    let v = if neg { -v } else { v };
    let v = i64::try_from(v).map_err(|_| p.err())?;
    if neg && v == i64::MIN {
        return Err(p.err());
    }
    p.pos += 1;
    Ok(v)
}

fn options(p: &mut P, alter: bool) -> R<SeqOptions> {
    let mut o = SeqOptions::default();
    loop {
        if p.kw("increment") {
            if !p.kw("by") {
                p.punct("=");
            }
            let n = number(p)?;
            set(&mut o.increment, n, "INCREMENT")?;
        } else if p.kw("start") {
            if !p.kw("with") {
                p.punct("=");
            }
            let n = number(p)?;
            set(&mut o.start, n, "START")?;
        } else if p.kw("minvalue") {
            p.punct("=");
            let n = number(p)?;
            set(&mut o.min, Some(n), "MINVALUE")?;
        } else if p.kw("maxvalue") {
            p.punct("=");
            let n = number(p)?;
            set(&mut o.max, Some(n), "MAXVALUE")?;
        } else if p.kw("nominvalue") {
            set(&mut o.min, None, "MINVALUE")?;
        } else if p.kw("nomaxvalue") {
            set(&mut o.max, None, "MAXVALUE")?;
        } else if p.kw("no") {
            if p.kw("minvalue") {
                set(&mut o.min, None, "MINVALUE")?;
            } else if p.kw("maxvalue") {
                set(&mut o.max, None, "MAXVALUE")?;
            } else if p.kw("cycle") {
                set(&mut o.cycle, false, "CYCLE")?;
            } else if p.kw("cache") {
                set(&mut o.cache, 0, "CACHE")?;
            } else {
                return Err(p.err());
            }
        } else if p.kw("cache") {
            p.punct("=");
            let n = number(p)?;
            let n = u64::try_from(n).map_err(|_| p.err())?;
            set(&mut o.cache, n, "CACHE")?;
        } else if p.kw("nocache") {
            set(&mut o.cache, 0, "CACHE")?;
        } else if p.kw("cycle") {
            set(&mut o.cycle, true, "CYCLE")?;
        } else if p.kw("nocycle") {
            set(&mut o.cycle, false, "CYCLE")?;
        } else if alter && p.kw("restart") {
            let explicit = p.kw("with") || p.punct("=");
            let number_follows = p
                .peek()
                .is_some_and(|t| matches!(t.kind, TokKind::Num(_)) || t.text(p.src) == "-");
            let value = if explicit || number_follows {
                Some(number(p)?)
            } else {
                None
            };
            set(&mut o.restart, value, "RESTART")?;
        } else if !alter && p.kw("engine") {
            p.punct("=");
            let e = p.ident()?;
            o.engine = Some(e);
        } else if !alter && p.kw("comment") {
            p.punct("=");
            let c = p.string()?;
            o.comment = Some(String::from_utf8_lossy(&c).into_owned());
        } else if p.punct(",") {
            continue;
        } else {
            p.end()?;
            return Ok(o);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::lexer::lex;
    use crate::front::native::parse_native;

    fn parse(sql: &str) -> Result<Option<Native>, MySqlError> {
        let lexed = lex(sql);
        parse_native(sql, &lexed.tokens, false)
    }

    #[test]
    fn options_in_any_order_with_mariadbs_spellings() {
        let n = parse("create sequence if not exists d.s start = 5 increment by -2 minvalue=-10 nomaxvalue cache 3 cycle")
            .expect("parses")
            .expect("native");
        let Native::Sequence(SeqStmt::Create {
            if_not_exists,
            db,
            name,
            options,
            ..
        }) = n
        else {
            panic!("not a CREATE SEQUENCE: {n:?}");
        };
        assert!(if_not_exists);
        assert_eq!((db.as_deref(), name.as_str()), (Some("d"), "s"));
        assert_eq!(options.start, Some(5));
        assert_eq!(options.increment, Some(-2));
        assert_eq!(options.min, Some(Some(-10)));
        assert_eq!(options.max, Some(None));
        assert_eq!(options.cache, Some(3));
        assert_eq!(options.cycle, Some(true));
    }

    #[test]
    fn restart_forms_and_errors() {
        let restart = |sql: &str| match parse(sql).expect("parses").expect("native") {
            Native::Sequence(SeqStmt::Alter { options, .. }) => options.restart,
            other => panic!("{other:?}"),
        };
        assert_eq!(restart("alter sequence s restart"), Some(None));
        assert_eq!(restart("alter sequence s restart with 7"), Some(Some(7)));
        assert_eq!(restart("alter sequence s restart = -3"), Some(Some(-3)));
        assert_eq!(restart("alter sequence s restart 9"), Some(Some(9)));
        let e = parse("create sequence s cache 1 nocache").expect_err("twice");
        assert_eq!(
            (e.code, e.message.as_str()),
            (1225, "Option 'CACHE' used twice in statement")
        );
        assert_eq!(
            parse("create sequence s restart")
                .expect_err("no restart")
                .code,
            1064
        );
        assert_eq!(
            parse("create sequence s start with 1.5")
                .expect_err("not an integer")
                .code,
            1064
        );
        assert!(parse("create table t (a int)").expect("parses").is_none());
    }
}
