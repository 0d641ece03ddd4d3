//! `GET [CURRENT] DIAGNOSTICS`: the statement information of the diagnostics
//! area (NUMBER, ROW_COUNT) or one condition's items, into user or local
//! variables. MariaDB 10.11 has no STACKED diagnostics (a syntax error).
//!
//! ```text
//! GET [CURRENT] DIAGNOSTICS target = {NUMBER | ROW_COUNT} [, ...]
//! GET [CURRENT] DIAGNOSTICS CONDITION n target = item [, ...]
//! ```

use super::{Native, P, R};
use crate::front::lexer::TokKind;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiagTarget {
    /// `@name` (lower case).
    User(String),
    /// A stored program's variable.
    Local(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GetDiagnostics {
    /// CONDITION n: the number as written (a literal or a variable).
    pub condition: Option<String>,
    /// Each target with its item's name, upper case.
    pub items: Vec<(DiagTarget, String)>,
}

const STATEMENT_ITEMS: &[&str] = &["NUMBER", "ROW_COUNT"];
const CONDITION_ITEMS: &[&str] = &[
    "CLASS_ORIGIN",
    "SUBCLASS_ORIGIN",
    "RETURNED_SQLSTATE",
    "MESSAGE_TEXT",
    "MYSQL_ERRNO",
    "CONSTRAINT_CATALOG",
    "CONSTRAINT_SCHEMA",
    "CONSTRAINT_NAME",
    "CATALOG_NAME",
    "SCHEMA_NAME",
    "TABLE_NAME",
    "COLUMN_NAME",
    "CURSOR_NAME",
];

/// After the word GET.
pub(super) fn get(p: &mut P) -> R<Native> {
    if p.peek().is_some_and(|t| t.is_kw(p.src, "stacked")) {
        return Err(p.err());
    }
    p.kw("current");
    p.expect_kw("diagnostics")?;
    let condition = if p.kw("condition") {
        let t = p.peek().ok_or_else(|| p.err())?;
        if !matches!(t.kind, TokKind::Num(_) | TokKind::Var | TokKind::Word) {
            return Err(p.err());
        }
        p.pos += 1;
        Some(t.text(p.src).to_string())
    } else {
        None
    };
    let allowed = if condition.is_some() {
        CONDITION_ITEMS
    } else {
        STATEMENT_ITEMS
    };
    let mut items = Vec::new();
    loop {
        let t = p.peek().ok_or_else(|| p.err())?;
        let target = match t.kind {
            TokKind::Var => DiagTarget::User(
                t.text(p.src)
                    .trim_start_matches('@')
                    .trim_matches(|c| c == '`' || c == '\'' || c == '"')
                    .to_ascii_lowercase(),
            ),
            TokKind::Word | TokKind::QuotedIdent => DiagTarget::Local(p.ident()?),
            _ => return Err(p.err()),
        };
        if matches!(target, DiagTarget::User(_)) {
            p.pos += 1;
        }
        if !p.punct("=") {
            return Err(p.err());
        }
        let item = p.peek().ok_or_else(|| p.err())?;
        let name = item.text(p.src).to_ascii_uppercase();
        if item.kind != TokKind::Word || !allowed.contains(&name.as_str()) {
            return Err(p.err());
        }
        p.pos += 1;
        items.push((target, name));
        if !p.punct(",") {
            break;
        }
    }
    p.end()?;
    Ok(Native::GetDiagnostics(GetDiagnostics { condition, items }))
}
