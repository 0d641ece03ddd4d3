//! The heads of trigger statements; the body stays text for [`crate::sp`].
//!
//! ```text
//! CREATE [OR REPLACE] [DEFINER = account] TRIGGER [IF NOT EXISTS] [db.]name
//!     {BEFORE | AFTER} {INSERT | UPDATE | DELETE} ON [db.]table FOR EACH ROW
//!     [{FOLLOWS | PRECEDES} other] body
//! DROP TRIGGER [IF EXISTS] [db.]name
//! ```

use super::routine::RoutineStmt;
use super::view::Definer;
use super::{P, R};
use basalt_storage::TriggerOrder;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateTrigger {
    pub or_replace: bool,
    pub if_not_exists: bool,
    pub definer: Option<Definer>,
    pub db: Option<String>,
    pub name: String,
    /// `BEFORE` or `AFTER`.
    pub timing: &'static str,
    /// `INSERT`, `UPDATE` or `DELETE`.
    pub event: &'static str,
    pub table_db: Option<String>,
    pub table: String,
    pub order: TriggerOrder,
    pub body: String,
    /// Lines of the statement before the body.
    pub body_line: u32,
    /// The statement from its TRIGGER keyword on, as written.
    pub statement: String,
}

/// `CREATE ... TRIGGER` / `DROP TRIGGER`, or `Ok(None)` with the cursor back
/// where it was.
pub(super) fn statement(p: &mut P, first: &str) -> R<Option<RoutineStmt>> {
    let start = p.pos;
    let found = match first {
        "create" => create(p)?.map(|c| RoutineStmt::CreateTrigger(Box::new(c))),
        "drop" if p.kw("trigger") => {
            let if_exists = p.kw("if") && {
                p.expect_kw("exists")?;
                true
            };
            let (db, name) = p.qualified()?;
            p.end()?;
            Some(RoutineStmt::DropTrigger {
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
    Ok(found)
}

fn create(p: &mut P) -> R<Option<CreateTrigger>> {
    let (or_replace, definer) = super::routine::create_head(p)?;
    let Some(kw) = p.peek().filter(|t| t.is_kw(p.src, "trigger")) else {
        return Ok(None);
    };
    let from = kw.start;
    p.pos += 1;
    let if_not_exists = p.kw("if") && {
        p.expect_kw("not")?;
        p.expect_kw("exists")?;
        true
    };
    let (db, name) = p.qualified()?;
    let timing = one_of(p, &["BEFORE", "AFTER"])?;
    let event = one_of(p, &["INSERT", "UPDATE", "DELETE"])?;
    p.expect_kw("on")?;
    let (table_db, table) = p.qualified()?;
    p.expect_kw("for")?;
    p.expect_kw("each")?;
    p.expect_kw("row")?;
    let order = if p.kw("follows") || p.kw("precedes") {
        let follows = p.toks[p.pos - 1].is_kw(p.src, "follows");
        TriggerOrder::Near {
            follows,
            other: p.ident()?,
        }
    } else {
        TriggerOrder::Last
    };
    let (body, body_line) = match p.peek() {
        Some(t) => (
            p.src[t.start..].trim_end().to_string(),
            super::routine::lines_before(p.src, t.start),
        ),
        None => return Err(p.err()),
    };
    Ok(Some(CreateTrigger {
        or_replace,
        if_not_exists,
        definer,
        db,
        name,
        timing,
        event,
        table_db,
        table,
        order,
        body,
        body_line,
        statement: p.src[from..].trim_end().to_string(),
    }))
}

fn one_of(p: &mut P, words: &[&'static str]) -> R<&'static str> {
    for w in words {
        if p.kw(&w.to_ascii_lowercase()) {
            return Ok(w);
        }
    }
    Err(p.err())
}
