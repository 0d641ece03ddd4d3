//! The heads of stored-routine statements; bodies stay text for
//! [`crate::sp`], which compiles them when they first run.
//!
//! ```text
//! CREATE [OR REPLACE] [DEFINER = account] {PROCEDURE | FUNCTION} [IF NOT EXISTS]
//!     [db.]name ([param, ...]) [RETURNS type] [characteristic ...] body
//! ALTER {PROCEDURE | FUNCTION} [db.]name [characteristic ...]
//! DROP {PROCEDURE | FUNCTION} [IF EXISTS] [db.]name
//! CALL [db.]name[([expr, ...])]
//! characteristic: COMMENT 'text' | LANGUAGE SQL | [NOT] DETERMINISTIC
//!     | {CONTAINS SQL | NO SQL | READS SQL DATA | MODIFIES SQL DATA}
//!     | SQL SECURITY {DEFINER | INVOKER}
//! ```

use super::view::{definer, Definer};
use super::{Native, P, R};
use crate::front::lexer::TokKind;

/// The characteristics a CREATE or ALTER wrote (None: not written).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Characteristics {
    pub deterministic: Option<bool>,
    pub data_access: Option<String>,
    pub security: Option<String>,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateRoutine {
    pub or_replace: bool,
    pub if_not_exists: bool,
    pub definer: Option<Definer>,
    /// `PROCEDURE` or `FUNCTION`.
    pub kind: &'static str,
    pub db: Option<String>,
    pub name: String,
    /// The parameter list as written, without its parentheses.
    pub params: String,
    /// RETURNS type as written (functions).
    pub returns: String,
    pub chars: Characteristics,
    pub body: String,
    /// Lines of the statement before the body.
    pub body_line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoutineStmt {
    Create(Box<CreateRoutine>),
    Alter {
        kind: &'static str,
        db: Option<String>,
        name: String,
        chars: Characteristics,
    },
    Drop {
        kind: &'static str,
        if_exists: bool,
        db: Option<String>,
        name: String,
    },
    Call {
        db: Option<String>,
        name: String,
        /// Argument expressions as text.
        args: Vec<String>,
    },
    CreateTrigger(Box<super::trigger::CreateTrigger>),
    DropTrigger {
        if_exists: bool,
        db: Option<String>,
        name: String,
    },
    /// An anonymous compound statement (`BEGIN NOT ATOMIC ... END`, or IF /
    /// CASE / LOOP / WHILE / REPEAT outside a program), run at once.
    Compound(String),
}

/// Reads a routine statement; `Ok(None)` when the statement is not one (the
/// cursor is then back after the first keyword).
pub(super) fn statement(p: &mut P, first: &str) -> R<Option<Native>> {
    let start = p.pos;
    if let Some(t) = super::trigger::statement(p, first)? {
        return Ok(Some(Native::Routine(t)));
    }
    let stmt = match first {
        "call" => call(p)?,
        "drop" | "alter" => {
            let Some(kind) = kind(p) else {
                p.pos = start;
                return Ok(None);
            };
            if first == "drop" {
                let if_exists = p.kw("if") && {
                    p.expect_kw("exists")?;
                    true
                };
                let (db, name) = p.qualified()?;
                p.end()?;
                RoutineStmt::Drop {
                    kind,
                    if_exists,
                    db,
                    name,
                }
            } else {
                let (db, name) = p.qualified()?;
                let chars = characteristics(p)?;
                p.end()?;
                RoutineStmt::Alter {
                    kind,
                    db,
                    name,
                    chars,
                }
            }
        }
        "create" => match create(p)? {
            Some(c) => RoutineStmt::Create(Box::new(c)),
            None => {
                p.pos = start;
                return Ok(None);
            }
        },
        _ => return Ok(None),
    };
    Ok(Some(Native::Routine(stmt)))
}

fn kind(p: &mut P) -> Option<&'static str> {
    if p.kw("procedure") {
        Some("PROCEDURE")
    } else if p.kw("function") {
        Some("FUNCTION")
    } else {
        None
    }
}

/// `[OR REPLACE] [DEFINER = account]` after CREATE.
pub(super) fn create_head(p: &mut P) -> R<(bool, Option<Definer>)> {
    let or_replace = p.kw("or") && {
        p.expect_kw("replace")?;
        true
    };
    let definer = if p.kw("definer") {
        p.punct("=");
        Some(definer(p)?)
    } else {
        None
    };
    Ok((or_replace, definer))
}

fn create(p: &mut P) -> R<Option<CreateRoutine>> {
    let (or_replace, definer) = create_head(p)?;
    if p.kw("aggregate") {
        return Err(basalt_common::MySqlError::not_supported(
            "CREATE AGGREGATE FUNCTION",
        ));
    }
    let Some(kind) = kind(p) else {
        return Ok(None);
    };
    let if_not_exists = p.kw("if") && {
        p.expect_kw("not")?;
        p.expect_kw("exists")?;
        true
    };
    let (db, name) = p.qualified()?;
    if !p.punct("(") {
        return Err(p.err());
    }
    let params = parenthesised(p)?;
    let returns = if kind == "FUNCTION" {
        p.expect_kw("returns")?;
        type_text(p)?
    } else {
        String::new()
    };
    let chars = characteristics(p)?;
    let (body, body_line) = match p.peek() {
        Some(t) => (
            p.src[t.start..].trim_end().to_string(),
            lines_before(p.src, t.start),
        ),
        None => return Err(p.err()),
    };
    Ok(Some(CreateRoutine {
        or_replace,
        if_not_exists,
        definer,
        kind,
        db,
        name,
        params,
        returns,
        chars,
        body,
        body_line,
    }))
}

/// Lines of `src` before byte `at` (where a program's body starts).
pub fn lines_before(src: &str, at: usize) -> u32 {
    src[..at].matches('\n').count() as u32
}

/// The text up to the `)` matching the `(` just read, which it consumes.
fn parenthesised(p: &mut P) -> R<String> {
    let from = p.peek().map_or(p.src.len(), |t| t.start);
    let mut depth = 1;
    while let Some(t) = p.peek() {
        p.pos += 1;
        if t.kind == TokKind::Punct {
            match t.text(p.src) {
                "(" => depth += 1,
                ")" => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(p.src[from..t.start].trim().to_string());
                    }
                }
                _ => {}
            }
        }
    }
    Err(p.err())
}

/// A RETURNS type: the words and parenthesised lists up to the first
/// characteristic or the body.
fn type_text(p: &mut P) -> R<String> {
    let from = p.peek().ok_or_else(|| p.err())?.start;
    let mut end = from;
    while let Some(t) = p.peek() {
        let stop = [
            "comment",
            "language",
            "not",
            "deterministic",
            "contains",
            "no",
            "reads",
            "modifies",
            "sql",
            "begin",
            "return",
        ]
        .iter()
        .any(|k| t.is_kw(p.src, k));
        if stop && end > from {
            break;
        }
        p.pos += 1;
        end = t.end;
        if t.kind == TokKind::Punct && t.text(p.src) == "(" {
            parenthesised(p)?;
            end = p.toks[p.pos - 1].end;
        }
    }
    Ok(p.src[from..end].to_string())
}

fn characteristics(p: &mut P) -> R<Characteristics> {
    let mut c = Characteristics::default();
    loop {
        if p.kw("comment") {
            c.comment = Some(String::from_utf8_lossy(&p.string()?).into_owned());
        } else if p.kw("language") {
            p.expect_kw("sql")?;
        } else if p.kw("deterministic") {
            c.deterministic = Some(true);
        } else if p.peek().is_some_and(|t| t.is_kw(p.src, "not"))
            && p.toks
                .get(p.pos + 1)
                .is_some_and(|t| t.is_kw(p.src, "deterministic"))
        {
            p.pos += 2;
            c.deterministic = Some(false);
        } else if p.kw("contains") {
            p.expect_kw("sql")?;
            c.data_access = Some("CONTAINS SQL".into());
        } else if p.kw("no") {
            p.expect_kw("sql")?;
            c.data_access = Some("NO SQL".into());
        } else if p.kw("reads") || p.kw("modifies") {
            let reads = p.toks[p.pos - 1].is_kw(p.src, "reads");
            p.expect_kw("sql")?;
            p.expect_kw("data")?;
            c.data_access = Some(
                if reads {
                    "READS SQL DATA"
                } else {
                    "MODIFIES SQL DATA"
                }
                .into(),
            );
        } else if p.peek().is_some_and(|t| t.is_kw(p.src, "sql"))
            && p.toks
                .get(p.pos + 1)
                .is_some_and(|t| t.is_kw(p.src, "security"))
        {
            p.pos += 2;
            c.security = Some(if p.kw("definer") {
                "DEFINER".into()
            } else {
                p.expect_kw("invoker")?;
                "INVOKER".into()
            });
        } else {
            return Ok(c);
        }
    }
}

fn call(p: &mut P) -> R<RoutineStmt> {
    let (db, name) = p.qualified()?;
    let mut args = Vec::new();
    if p.punct("(") {
        let inner = parenthesised(p)?;
        if !inner.is_empty() {
            args = split_commas(&inner);
        }
    }
    p.end()?;
    Ok(RoutineStmt::Call { db, name, args })
}

/// `text` split at its commas outside parentheses, each part trimmed.
pub fn split_commas(text: &str) -> Vec<String> {
    let lexed = crate::front::lexer::lex(text);
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for t in &lexed.tokens {
        if t.kind != TokKind::Punct {
            continue;
        }
        match t.text(text) {
            "(" => depth += 1,
            ")" => depth -= 1,
            "," if depth == 0 => {
                out.push(text[start..t.start].trim().to_string());
                start = t.end;
            }
            _ => {}
        }
    }
    out.push(text[start..].trim().to_string());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::lexer::lex;
    use crate::front::native::parse_native;

    fn routine(s: &str) -> RoutineStmt {
        match parse_native(s, &lex(s).tokens, false) {
            Ok(Some(Native::Routine(r))) => r,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn create_heads() {
        let RoutineStmt::Create(c) = routine(
            "create definer=`u`@`%` procedure if not exists d.p(in a int, out b varchar(10)) \
             comment 'x' modifies sql data sql security invoker begin select a; end",
        ) else {
            panic!()
        };
        assert_eq!((c.db.as_deref(), c.name.as_str()), (Some("d"), "p"));
        assert_eq!(c.params, "in a int, out b varchar(10)");
        assert_eq!(c.chars.comment.as_deref(), Some("x"));
        assert_eq!(c.chars.security.as_deref(), Some("INVOKER"));
        assert_eq!(c.body, "begin select a; end");
        let RoutineStmt::Create(f) =
            routine("create function f(x int) returns decimal(10,2) deterministic return x * 2")
        else {
            panic!()
        };
        assert_eq!(f.returns, "decimal(10,2)");
        assert_eq!(f.chars.deterministic, Some(true));
        assert_eq!(f.body, "return x * 2");
    }

    #[test]
    fn calls_and_drops() {
        assert_eq!(
            routine("call p(1, concat('a', 'b'), @x)"),
            RoutineStmt::Call {
                db: None,
                name: "p".into(),
                args: vec!["1".into(), "concat('a', 'b')".into(), "@x".into()],
            }
        );
        assert_eq!(
            routine("call d.p"),
            RoutineStmt::Call {
                db: Some("d".into()),
                name: "p".into(),
                args: vec![],
            }
        );
        assert!(matches!(
            routine("drop procedure if exists p"),
            RoutineStmt::Drop {
                if_exists: true,
                ..
            }
        ));
    }
}
