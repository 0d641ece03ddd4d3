//! `CREATE VIEW`, `ALTER VIEW` and `DROP VIEW`, whose MariaDB clauses sqlparser
//! 0.64 does not read (`WITH CHECK OPTION`, `ALGORITHM` on ALTER, `DEFINER` as
//! MariaDB writes accounts). The head is read here; the query after `AS` is kept
//! as text and parsed by sqlparser when the statement runs.
//!
//! ```text
//! CREATE [OR REPLACE] [ALGORITHM = {UNDEFINED|MERGE|TEMPTABLE}]
//!     [DEFINER = {user | CURRENT_USER[()]}] [SQL SECURITY {DEFINER|INVOKER}]
//!     VIEW [IF NOT EXISTS] [db.]name [(column, ...)] AS select
//!     [WITH [CASCADED|LOCAL] CHECK OPTION]
//! ALTER [ALGORITHM = ...] [DEFINER = ...] [SQL SECURITY ...] VIEW [db.]name ... AS select ...
//! DROP VIEW [IF EXISTS] [db.]name [, ...] [RESTRICT|CASCADE]
//! ```

use super::set::name_or_string;
use super::{Native, P, R};
use crate::front::lexer::{unquote, TokKind};

/// `user@host` of a DEFINER clause; `None` host for CURRENT_USER.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Definer {
    CurrentUser,
    Account { user: String, host: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateView {
    pub or_replace: bool,
    /// ALTER VIEW: the view must exist.
    pub alter: bool,
    pub if_not_exists: bool,
    /// Upper case: UNDEFINED, MERGE or TEMPTABLE (None when not written).
    pub algorithm: Option<String>,
    pub definer: Option<Definer>,
    /// DEFINER or INVOKER (None when not written).
    pub security: Option<String>,
    pub db: Option<String>,
    pub name: String,
    pub columns: Vec<String>,
    /// The text of the query after AS.
    pub query: String,
    /// NONE, CASCADED or LOCAL.
    pub check_option: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewStmt {
    Create(CreateView),
    Drop {
        if_exists: bool,
        names: Vec<(Option<String>, String)>,
    },
}

/// Reads a view statement; `Ok(None)` when the statement is not one (the cursor
/// is then back after the first keyword).
pub(super) fn view_statement(p: &mut P, first: &str) -> R<Option<Native>> {
    let start = p.pos;
    let r = match first {
        "drop" => {
            if !p.kw("view") {
                return Ok(None);
            }
            drop_view(p)?
        }
        _ => {
            let alter = first == "alter";
            let or_replace = !alter && p.kw("or") && p.kw("replace");
            if !or_replace {
                p.pos = start;
            }
            let starts = p.peek().is_some_and(|t| {
                ["algorithm", "definer", "sql", "view"]
                    .iter()
                    .any(|k| t.is_kw(p.src, k))
            });
            if !starts {
                p.pos = start;
                return Ok(None);
            }
            ViewStmt::Create(create_view(p, alter, or_replace)?)
        }
    };
    Ok(Some(Native::View(r)))
}

fn drop_view(p: &mut P) -> R<ViewStmt> {
    let if_exists = p.kw("if") && {
        p.expect_kw("exists")?;
        true
    };
    let mut names = vec![p.qualified()?];
    while p.punct(",") {
        names.push(p.qualified()?);
    }
    let _ = p.kw("restrict") || p.kw("cascade");
    p.end()?;
    Ok(ViewStmt::Drop { if_exists, names })
}

fn create_view(p: &mut P, alter: bool, or_replace: bool) -> R<CreateView> {
    let mut algorithm = None;
    if p.kw("algorithm") {
        p.punct("=");
        let a = p.ident()?.to_ascii_uppercase();
        if !["UNDEFINED", "MERGE", "TEMPTABLE"].contains(&a.as_str()) {
            p.pos -= 1;
            return Err(p.err());
        }
        algorithm = Some(a);
    }
    let definer = if p.kw("definer") {
        p.punct("=");
        Some(definer(p)?)
    } else {
        None
    };
    let mut security = None;
    if p.kw("sql") {
        p.expect_kw("security")?;
        security = Some(if p.kw("definer") {
            "DEFINER".to_string()
        } else {
            p.expect_kw("invoker")?;
            "INVOKER".to_string()
        });
    }
    p.expect_kw("view")?;
    let if_not_exists = !alter && p.kw("if") && {
        p.expect_kw("not")?;
        p.expect_kw("exists")?;
        true
    };
    let (db, name) = p.qualified()?;
    let mut columns = Vec::new();
    if p.punct("(") {
        loop {
            columns.push(p.ident()?);
            if p.punct(")") {
                break;
            }
            if !p.punct(",") {
                return Err(p.err());
            }
        }
    }
    p.expect_kw("as")?;
    let (query, check_option) = query_and_check(p)?;
    Ok(CreateView {
        or_replace,
        alter,
        if_not_exists,
        algorithm,
        definer,
        security,
        db,
        name,
        columns,
        query,
        check_option,
    })
}

/// The account of a DEFINER clause: `user[@host]` (each a name or a string) or
/// `CURRENT_USER[()]`.
pub(super) fn definer(p: &mut P) -> R<Definer> {
    if p.kw("current_user") {
        if p.punct("(") && !p.punct(")") {
            return Err(p.err());
        }
        return Ok(Definer::CurrentUser);
    }
    let user = name_or_string(p)?;
    let Some(t) = p.peek() else {
        return Err(p.err());
    };
    let text = t.text(p.src);
    let host = if t.kind == TokKind::Var && !text.starts_with("@@") {
        p.pos += 1;
        let h = &text[1..];
        if h.starts_with('\'') || h.starts_with('"') {
            String::from_utf8_lossy(&unquote(h, true)).into_owned()
        } else {
            h.trim_matches('`').to_string()
        }
    } else if t.kind == TokKind::Punct && text == "@" {
        p.pos += 1;
        name_or_string(p)?
    } else {
        "%".to_string()
    };
    Ok(Definer::Account { user, host })
}

/// The query text from the cursor to the end, without a trailing
/// `WITH [CASCADED|LOCAL] CHECK OPTION`, and which check option that was.
fn query_and_check(p: &mut P) -> R<(String, &'static str)> {
    let toks = &p.toks[p.pos..];
    let Some(first) = toks.first() else {
        return Err(p.err());
    };
    let n = toks.len();
    let is = |i: usize, k: &str| i < n && toks[i].is_kw(p.src, k);
    let mut end = n;
    let mut check = "NONE";
    if n >= 3 && is(n - 1, "option") && is(n - 2, "check") {
        if is(n - 3, "with") {
            end = n - 3;
            check = "CASCADED";
        } else if n >= 4 && is(n - 4, "with") && (is(n - 3, "cascaded") || is(n - 3, "local")) {
            end = n - 4;
            check = if is(n - 3, "local") {
                "LOCAL"
            } else {
                "CASCADED"
            };
        }
    }
    if end == 0 {
        return Err(p.err());
    }
    let stop = toks[end - 1].end;
    let text = p.src[first.start..stop].to_string();
    p.pos = p.toks.len();
    Ok((text, check))
}
