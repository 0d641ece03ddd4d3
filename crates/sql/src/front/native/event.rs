//! Event statements. Schedule times and the interval's quantity stay text
//! (expressions evaluated when the statement runs); the body stays text for
//! [`crate::sp`].
//!
//! ```text
//! CREATE [OR REPLACE] [DEFINER = account] EVENT [IF NOT EXISTS] [db.]name
//!     ON SCHEDULE schedule [ON COMPLETION [NOT] PRESERVE]
//!     [ENABLE | DISABLE | DISABLE ON SLAVE] [COMMENT 'text'] DO body
//! ALTER [DEFINER = account] EVENT [db.]name [ON SCHEDULE schedule]
//!     [ON COMPLETION [NOT] PRESERVE] [RENAME TO [db.]name]
//!     [ENABLE | DISABLE | DISABLE ON SLAVE] [COMMENT 'text'] [DO body]
//! DROP EVENT [IF EXISTS] [db.]name
//! schedule: AT time | EVERY quantity unit [STARTS time] [ENDS time]
//! ```

use super::view::Definer;
use super::{Native, P, R};
use crate::front::lexer::TokKind;

/// `ON SCHEDULE`, each expression as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScheduleText {
    At(String),
    Every {
        quantity: String,
        /// The unit as written, upper case (`HOUR`, `HOUR_MINUTE`, ...).
        unit: String,
        starts: Option<String>,
        ends: Option<String>,
    },
}

/// The clauses CREATE and ALTER share; `None` where not written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventClauses {
    pub schedule: Option<ScheduleText>,
    pub preserve: Option<bool>,
    /// `ENABLED`, `DISABLED` or `SLAVESIDE_DISABLED`.
    pub status: Option<&'static str>,
    pub comment: Option<String>,
    pub body: Option<String>,
    /// Lines of the statement before the body.
    pub body_line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventStmt {
    Create {
        or_replace: bool,
        if_not_exists: bool,
        definer: Option<Definer>,
        db: Option<String>,
        name: String,
        clauses: EventClauses,
    },
    Alter {
        definer: Option<Definer>,
        db: Option<String>,
        name: String,
        rename: Option<(Option<String>, String)>,
        clauses: EventClauses,
    },
    Drop {
        if_exists: bool,
        db: Option<String>,
        name: String,
    },
}

/// Reads an event statement; `Ok(None)` with the cursor back where it was
/// when the statement is not one.
pub(super) fn statement(p: &mut P, first: &str) -> R<Option<Native>> {
    let start = p.pos;
    let found = match first {
        "create" => create(p)?,
        "alter" => alter(p)?,
        "drop" if p.kw("event") => {
            let if_exists = p.kw("if") && {
                p.expect_kw("exists")?;
                true
            };
            let (db, name) = p.qualified()?;
            p.end()?;
            Some(EventStmt::Drop {
                if_exists,
                db,
                name,
            })
        }
        _ => None,
    };
    if found.is_none() {
        p.pos = start;
    }
    Ok(found.map(Native::Event))
}

fn create(p: &mut P) -> R<Option<EventStmt>> {
    let (or_replace, definer) = super::routine::create_head(p)?;
    if !p.kw("event") {
        return Ok(None);
    }
    let if_not_exists = p.kw("if") && {
        p.expect_kw("not")?;
        p.expect_kw("exists")?;
        true
    };
    let (db, name) = p.qualified()?;
    p.expect_kw("on")?;
    p.expect_kw("schedule")?;
    let schedule = Some(schedule(p)?);
    let clauses = clauses(p, schedule, None)?;
    if clauses.body.is_none() {
        return Err(p.err());
    }
    Ok(Some(EventStmt::Create {
        or_replace,
        if_not_exists,
        definer,
        db,
        name,
        clauses,
    }))
}

fn alter(p: &mut P) -> R<Option<EventStmt>> {
    let definer = if p.kw("definer") {
        p.punct("=");
        Some(super::view::definer(p)?)
    } else {
        None
    };
    if !p.kw("event") {
        return Ok(None);
    }
    let (db, name) = p.qualified()?;
    let schedule = if p.peek().is_some_and(|t| t.is_kw(p.src, "on"))
        && p.toks
            .get(p.pos + 1)
            .is_some_and(|t| t.is_kw(p.src, "schedule"))
    {
        p.pos += 2;
        Some(schedule(p)?)
    } else {
        None
    };
    let mut rename = None;
    let clauses = clauses(p, schedule, Some(&mut rename))?;
    let nothing = clauses == EventClauses::default() && rename.is_none() && definer.is_none();
    if nothing {
        // MariaDB's grammar wants at least one clause.
        return Err(p.err());
    }
    Ok(Some(EventStmt::Alter {
        definer,
        db,
        name,
        rename,
        clauses,
    }))
}

/// The clauses after ON SCHEDULE, in the grammar's order; RENAME TO goes to
/// `rename` (ALTER only: CREATE has no slot for it).
fn clauses(
    p: &mut P,
    schedule: Option<ScheduleText>,
    rename: Option<&mut Option<(Option<String>, String)>>,
) -> R<EventClauses> {
    let mut c = EventClauses {
        schedule,
        ..Default::default()
    };
    if p.peek().is_some_and(|t| t.is_kw(p.src, "on")) {
        p.pos += 1;
        p.expect_kw("completion")?;
        let not = p.kw("not");
        p.expect_kw("preserve")?;
        c.preserve = Some(!not);
    }
    if let Some(slot) = rename {
        if p.kw("rename") {
            p.expect_kw("to")?;
            *slot = Some(p.qualified()?);
        }
    }
    if p.kw("enable") {
        c.status = Some("ENABLED");
    } else if p.kw("disable") {
        c.status = Some(if p.kw("on") {
            p.expect_kw("slave")?;
            "SLAVESIDE_DISABLED"
        } else {
            "DISABLED"
        });
    }
    if p.kw("comment") {
        c.comment = Some(String::from_utf8_lossy(&p.string()?).into_owned());
    }
    if p.kw("do") {
        let t = p.peek().ok_or_else(|| p.err())?;
        c.body = Some(p.src[t.start..].trim_end().to_string());
        c.body_line = super::routine::lines_before(p.src, t.start);
        p.pos = p.toks.len();
    }
    p.end()?;
    Ok(c)
}

const STOP_WORDS: [&str; 8] = [
    "on", "starts", "ends", "enable", "disable", "comment", "do", "rename",
];

const UNITS: [&str; 20] = [
    "year",
    "quarter",
    "month",
    "week",
    "day",
    "hour",
    "minute",
    "second",
    "microsecond",
    "year_month",
    "day_hour",
    "day_minute",
    "day_second",
    "hour_minute",
    "hour_second",
    "minute_second",
    "day_microsecond",
    "hour_microsecond",
    "minute_microsecond",
    "second_microsecond",
];

fn schedule(p: &mut P) -> R<ScheduleText> {
    if p.kw("at") {
        return Ok(ScheduleText::At(expr_until(p, |_| false)?));
    }
    p.expect_kw("every")?;
    let is_unit = |w: &str| UNITS.iter().any(|u| w.eq_ignore_ascii_case(u));
    let quantity = expr_until(p, is_unit)?;
    let unit = p.peek().ok_or_else(|| p.err())?;
    if !is_unit(unit.text(p.src)) {
        return Err(p.err());
    }
    let unit = unit.text(p.src).to_ascii_uppercase();
    p.pos += 1;
    let starts = if p.kw("starts") {
        Some(expr_until(p, |_| false)?)
    } else {
        None
    };
    let ends = if p.kw("ends") {
        Some(expr_until(p, |_| false)?)
    } else {
        None
    };
    Ok(ScheduleText::Every {
        quantity,
        unit,
        starts,
        ends,
    })
}

/// The text of an expression: tokens up to a clause keyword (or a word
/// `stop` accepts) outside parentheses. An `INTERVAL n unit` inside the
/// expression keeps its unit.
fn expr_until(p: &mut P, stop: impl Fn(&str) -> bool) -> R<String> {
    let from = p.pos;
    let mut depth = 0usize;
    let mut after_interval = false;
    while let Some(t) = p.peek() {
        let text = t.text(p.src);
        if t.kind == TokKind::Punct {
            match text {
                "(" => depth += 1,
                ")" => depth = depth.checked_sub(1).ok_or_else(|| p.err())?,
                _ => {}
            }
        } else if depth == 0 && t.kind == TokKind::Word {
            let word = text.to_ascii_lowercase();
            let ends_here = STOP_WORDS.contains(&word.as_str()) || stop(&word);
            if ends_here && !(after_interval && UNITS.contains(&word.as_str())) {
                break;
            }
        }
        // The unit after `INTERVAL quantity` is the expression's.
        after_interval = matches!(t.kind, TokKind::Word if text.eq_ignore_ascii_case("interval"))
            || (after_interval && !UNITS.iter().any(|u| text.eq_ignore_ascii_case(u)));
        p.pos += 1;
    }
    if p.pos == from || depth != 0 {
        return Err(p.err());
    }
    let (a, b) = (p.toks[from].start, p.toks[p.pos - 1].end);
    Ok(p.src[a..b].to_string())
}

#[cfg(test)]
mod tests {
    use super::super::super::lexer::lex;
    use super::*;

    fn parse(s: &str) -> EventStmt {
        match super::super::parse_native(s, &lex(s).tokens, false) {
            Ok(Some(Native::Event(e))) => e,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn schedules_and_clauses() {
        let EventStmt::Create { clauses, name, .. } = parse(
            "CREATE EVENT e ON SCHEDULE EVERY '1:30' HOUR_MINUTE STARTS NOW() + INTERVAL 1 DAY \
             ENDS '2030-01-01' ON COMPLETION NOT PRESERVE DISABLE ON SLAVE COMMENT 'x' DO \
             INSERT INTO t VALUES (1)",
        ) else {
            panic!("create")
        };
        assert_eq!(name, "e");
        assert_eq!(
            clauses.schedule,
            Some(ScheduleText::Every {
                quantity: "'1:30'".into(),
                unit: "HOUR_MINUTE".into(),
                starts: Some("NOW() + INTERVAL 1 DAY".into()),
                ends: Some("'2030-01-01'".into()),
            })
        );
        assert_eq!(clauses.preserve, Some(false));
        assert_eq!(clauses.status, Some("SLAVESIDE_DISABLED"));
        assert_eq!(clauses.body.as_deref(), Some("INSERT INTO t VALUES (1)"));
        let EventStmt::Create { clauses, .. } = parse(
            "create event d.e on schedule at current_timestamp + interval 1 hour do select 1",
        ) else {
            panic!("create")
        };
        assert_eq!(
            clauses.schedule,
            Some(ScheduleText::At(
                "current_timestamp + interval 1 hour".into()
            ))
        );
    }

    #[test]
    fn alter_and_drop() {
        let EventStmt::Alter {
            rename, clauses, ..
        } = parse("ALTER EVENT e RENAME TO d2.f ENABLE")
        else {
            panic!("alter")
        };
        assert_eq!(rename, Some((Some("d2".into()), "f".into())));
        assert_eq!(clauses.status, Some("ENABLED"));
        assert_eq!(
            parse("drop event if exists e"),
            EventStmt::Drop {
                if_exists: true,
                db: None,
                name: "e".into()
            }
        );
    }

    #[test]
    fn malformed_statements_are_syntax_errors() {
        for s in [
            "CREATE EVENT e ON SCHEDULE EVERY 1 DO SELECT 1",
            "CREATE EVENT e ON SCHEDULE EVERY 1 HOUR",
            "CREATE EVENT e DO SELECT 1",
            "ALTER EVENT e",
            "CREATE EVENT e ON SCHEDULE AT DO SELECT 1",
            "CREATE EVENT e ON SCHEDULE AT (1 DO SELECT 1",
            "CREATE EVENT e ON SCHEDULE EVERY 1 HOUR COMMENT 'x' DISABLE DO SELECT 1",
        ] {
            let r = super::super::parse_native(s, &lex(s).tokens, false);
            assert!(matches!(r, Err(ref e) if e.code == 1064), "{s}: {r:?}");
        }
    }
}
