//! `SET`: variable assignments, `SET NAMES` / `CHARACTER SET`, `SET STATEMENT ...
//! FOR` and `SET [GLOBAL|SESSION] TRANSACTION`.

use super::super::lexer::TokKind;
use super::super::parse::near_offset;
use super::{user_var_name, Native, SetItem, SetTarget, TxScope, P, R};
use basalt_common::MySqlError;
use basalt_storage::IsolationLevel;

pub(super) fn set_native(p: &mut P) -> R<Option<Native>> {
    let scope = if p.kw("global") {
        TxScope::Global
    } else if p.kw("session") || p.kw("local") {
        TxScope::Session
    } else {
        TxScope::Next
    };
    if p.kw("transaction") {
        return set_transaction(p, scope).map(Some);
    }
    if scope == TxScope::Next && p.kw("names") {
        let (charset, collation) = if p.kw("default") {
            (None, None)
        } else {
            let cs = name_or_string(p)?;
            let collation = if p.kw("collate") {
                Some(name_or_string(p)?)
            } else {
                None
            };
            (Some(cs), collation)
        };
        // `SET NAMES x, a = v, ...`: the other assignments of the same SET.
        let then = if p.punct(",") {
            set_items(p, false)?
        } else {
            Vec::new()
        };
        p.end()?;
        return Ok(Some(Native::SetNames {
            charset,
            collation,
            then,
        }));
    }
    if scope == TxScope::Next && (p.kw("charset") || (p.kw("character") && p.kw("set"))) {
        let cs = if p.kw("default") {
            None
        } else {
            Some(name_or_string(p)?)
        };
        p.end()?;
        return Ok(Some(Native::SetCharset(cs)));
    }
    if scope == TxScope::Next && p.kw("statement") {
        return set_statement(p).map(Some);
    }
    let default_role = p.peek().is_some_and(|t| t.is_kw(p.src, "default"))
        && p.toks
            .get(p.pos + 1)
            .is_some_and(|t| t.is_kw(p.src, "role"));
    if default_role
        || p.peek()
            .is_some_and(|t| t.is_kw(p.src, "password") || t.is_kw(p.src, "role"))
    {
        return Ok(None);
    }
    p.pos = 1;
    let items = set_items(p, false)?;
    p.end()?;
    Ok(Some(Native::Set(items)))
}

/// `SET STATEMENT name = value [, ...] FOR statement`: only plain variable names
/// (no `@@`, no scope keyword), as in MariaDB's grammar.
fn set_statement(p: &mut P) -> R<Native> {
    let items = set_items(p, true)?;
    if !p.kw("for") {
        return Err(missing_for(p));
    }
    let body = p.peek().map_or("", |t| &p.src[t.start..]);
    Ok(Native::SetStatement {
        items,
        body: body.to_string(),
    })
}

/// The syntax error of a SET STATEMENT without FOR: MariaDB's expression parser
/// stops at a statement keyword that follows a value (`x=1 SELECT 1` is an error
/// near `SELECT 1`), else at the end of the text.
fn missing_for(p: &P) -> MySqlError {
    const STARTS: &[&str] = &[
        "select", "insert", "update", "delete", "replace", "set", "show", "create", "drop",
        "alter", "call", "do", "begin", "commit", "rollback", "with", "values", "execute",
        "prepare", "explain", "describe", "truncate",
    ];
    let mut depth = 0i32;
    for (i, t) in p.toks.iter().enumerate().skip(2) {
        match (t.kind, t.text(p.src)) {
            (TokKind::Punct, "(") => depth += 1,
            (TokKind::Punct, ")") => depth -= 1,
            _ => {}
        }
        let after_value = !matches!(p.toks[i - 1].text(p.src), "=" | ":=" | "," | "(");
        if depth == 0 && after_value && STARTS.iter().any(|k| t.is_kw(p.src, k)) {
            return near_offset(p.src, t.start);
        }
    }
    near_offset(p.src, p.src.len())
}

pub(super) fn name_or_string(p: &mut P) -> R<String> {
    if p.peek().is_some_and(|t| t.kind == TokKind::Str) {
        Ok(String::from_utf8_lossy(&p.string()?).into_owned())
    } else {
        p.ident()
    }
}

/// The assignments of SET; with `until_for`, the list ends at a FOR keyword outside
/// parentheses (SET STATEMENT), otherwise at the end of the statement (which the
/// caller checks).
fn set_items(p: &mut P, until_for: bool) -> R<Vec<SetItem>> {
    let mut items = Vec::new();
    loop {
        let kw_global = if p.kw("global") {
            Some(true)
        } else if p.kw("session") || p.kw("local") {
            Some(false)
        } else {
            None
        };
        let t = p.peek().ok_or_else(|| p.err())?;
        if until_for && (kw_global.is_some() || t.kind == TokKind::Var) {
            return Err(p.err());
        }
        let target = match t.kind {
            TokKind::Var if t.text(p.src).starts_with("@@") => {
                p.pos += 1;
                let body = t.text(p.src)[2..].to_string();
                let (scope, name) = match body.split_once('.') {
                    Some((s, n)) => (Some(s.to_ascii_lowercase()), n.to_string()),
                    None => (None, body),
                };
                let global = match scope.as_deref() {
                    Some("global") => true,
                    Some("session") | Some("local") | None => false,
                    Some(_) => return Err(p.err()),
                };
                SetTarget::Sys {
                    name,
                    global,
                    scoped: scope.is_some(),
                }
            }
            TokKind::Var => {
                p.pos += 1;
                SetTarget::User(user_var_name(t.text(p.src)))
            }
            TokKind::Word | TokKind::QuotedIdent => {
                let name = p.ident()?;
                SetTarget::Sys {
                    name,
                    global: kw_global == Some(true),
                    scoped: kw_global.is_some(),
                }
            }
            _ => return Err(p.err()),
        };
        if !(p.punct("=") || p.punct(":=")) {
            return Err(p.err());
        }
        let start = p.pos;
        let mut depth = 0i32;
        while let Some(t) = p.peek() {
            if t.kind == TokKind::Punct {
                match t.text(p.src) {
                    "(" => depth += 1,
                    ")" => depth -= 1,
                    "," if depth == 0 => break,
                    _ => {}
                }
            }
            if until_for && depth == 0 && t.is_kw(p.src, "for") {
                break;
            }
            p.pos += 1;
        }
        if p.pos == start {
            return Err(p.err());
        }
        let (a, b) = (&p.toks[start], &p.toks[p.pos - 1]);
        let bare_word = p.pos - start == 1 && a.kind == TokKind::Word;
        items.push(SetItem {
            target,
            value: p.src[a.start..b.end].to_string(),
            bare_word,
        });
        if !p.punct(",") {
            break;
        }
    }
    Ok(items)
}

fn set_transaction(p: &mut P, scope: TxScope) -> R<Native> {
    let mut isolation = None;
    let mut read_only = None;
    loop {
        if p.kw("isolation") {
            p.expect_kw("level")?;
            isolation = Some(if p.kw("serializable") {
                IsolationLevel::Serializable
            } else if p.kw("repeatable") {
                p.expect_kw("read")?;
                IsolationLevel::RepeatableRead
            } else {
                p.expect_kw("read")?;
                if p.kw("committed") {
                    IsolationLevel::ReadCommitted
                } else {
                    p.expect_kw("uncommitted")?;
                    IsolationLevel::ReadUncommitted
                }
            });
        } else if p.kw("read") {
            if p.kw("only") {
                read_only = Some(true);
            } else {
                p.expect_kw("write")?;
                read_only = Some(false);
            }
        } else {
            return Err(p.err());
        }
        if !p.punct(",") {
            break;
        }
    }
    p.end()?;
    Ok(Native::SetTransaction {
        scope,
        isolation,
        read_only,
    })
}
