//! Statements whose operands are expressions evaluated when they run:
//!
//! ```text
//! EXECUTE name [USING arg [, arg ...]]
//! EXECUTE IMMEDIATE expr [USING arg [, arg ...]]
//! KILL [HARD | SOFT] [CONNECTION | QUERY] expr
//! ```
//!
//! A USING argument is a user variable, a literal, or any other expression (as
//! MariaDB 10.2+ takes them). `KILL QUERY ID` (by query id) and `KILL USER` are
//! refused with 1235.

use super::{user_var_name, Native, UsingArg, P, R};
use crate::front::lexer::TokKind;
use basalt_common::Value;

pub(super) fn execute(p: &mut P) -> R<Native> {
    let named = |p: &P| p.peek().is_none_or(|t| t.is_kw(p.src, "using"));
    if p.kw("immediate") && !named(p) {
        let source = expr_text(p, true)?;
        let using = using(p)?;
        p.end()?;
        return Ok(Native::ExecuteImmediate { source, using });
    }
    if named(p) && p.pos > 0 && p.toks[p.pos - 1].is_kw(p.src, "immediate") {
        p.pos -= 1;
    }
    let name = p.ident()?;
    let using = using(p)?;
    p.end()?;
    Ok(Native::Execute { name, using })
}

pub(super) fn kill(p: &mut P) -> R<Native> {
    let _ = p.kw("hard") || p.kw("soft");
    let query_only = p.kw("query");
    if query_only && p.kw("id") {
        return Ok(Native::Unsupported("KILL QUERY ID"));
    }
    if !query_only && p.kw("user") {
        return Ok(Native::Unsupported("KILL USER"));
    }
    if !query_only {
        p.kw("connection");
    }
    let id = expr_text(p, false)?;
    p.end()?;
    Ok(Native::Kill { query_only, id })
}

fn using(p: &mut P) -> R<Vec<UsingArg>> {
    let mut args = Vec::new();
    if p.kw("using") {
        loop {
            args.push(using_arg(p)?);
            if !p.punct(",") {
                break;
            }
        }
    }
    Ok(args)
}

/// A user variable, a (signed) number, a string or NULL standing alone, else the
/// expression's text.
fn using_arg(p: &mut P) -> R<UsingArg> {
    let at = p.pos;
    if let Some(arg) = simple_arg(p)? {
        if p.peek()
            .is_none_or(|t| t.kind == TokKind::Punct && t.text(p.src) == ",")
        {
            return Ok(arg);
        }
    }
    p.pos = at;
    Ok(UsingArg::Expr(expr_text(p, false)?))
}

fn simple_arg(p: &mut P) -> R<Option<UsingArg>> {
    if let Some(bytes) = p.marker() {
        return Ok(Some(UsingArg::Value(Value::Bytes(bytes))));
    }
    let negative = p.punct("-");
    let Some(t) = p.peek() else {
        return Ok(None);
    };
    let text = t.text(p.src);
    let arg = match t.kind {
        TokKind::Num(k) => {
            let v = crate::front::number(text, k).1;
            UsingArg::Value(if negative {
                crate::value::arith::negate(&v).map_err(|_| p.err())?
            } else {
                v
            })
        }
        _ if negative => return Ok(None),
        TokKind::Var if !text.starts_with("@@") => UsingArg::Var(user_var_name(text)),
        TokKind::Str if text.starts_with('\'') => UsingArg::Str(text.to_string()),
        TokKind::Word if text.eq_ignore_ascii_case("null") => UsingArg::Value(Value::Null),
        _ => return Ok(None),
    };
    p.pos += 1;
    Ok(Some(arg))
}

/// The text of the expression at the cursor: up to a top-level `,`, the end, or
/// (`stop_at_using`) a top-level USING.
fn expr_text(p: &mut P, stop_at_using: bool) -> R<String> {
    let start = p.peek().ok_or_else(|| p.err())?.start;
    let mut depth = 0usize;
    let mut end = start;
    while let Some(t) = p.peek() {
        match (t.kind, t.text(p.src)) {
            (TokKind::Punct, "(") => depth += 1,
            (TokKind::Punct, ")") => depth = depth.checked_sub(1).ok_or_else(|| p.err())?,
            (TokKind::Punct, ",") if depth == 0 => break,
            (TokKind::Word, _) if depth == 0 && stop_at_using && t.is_kw(p.src, "using") => break,
            _ => {}
        }
        end = t.end;
        p.pos += 1;
    }
    if end == start || depth != 0 {
        return Err(p.err());
    }
    Ok(p.src[start..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::super::{parse_native, Native, UsingArg};
    use crate::front::lexer::lex;

    fn native(s: &str) -> Result<Option<Native>, basalt_common::MySqlError> {
        parse_native(s, &lex(s).tokens, false)
    }

    #[test]
    fn execute_immediate() {
        assert_eq!(
            native("EXECUTE IMMEDIATE concat('select ', ?) USING 1, @a").expect("parses"),
            Some(Native::ExecuteImmediate {
                source: "concat('select ', ?)".into(),
                using: vec![
                    UsingArg::Value(basalt_common::Value::Int(1)),
                    UsingArg::Var("a".into())
                ],
            })
        );
        // A statement called `immediate`.
        assert_eq!(
            native("execute immediate").expect("parses"),
            Some(Native::Execute {
                name: "immediate".into(),
                using: vec![],
            })
        );
        assert!(native("execute immediate 'x' using").is_err());
    }

    #[test]
    fn kill() {
        let k = |s: &str| native(s).expect("parses");
        assert_eq!(
            k("kill connection_id() + 1"),
            Some(Native::Kill {
                query_only: false,
                id: "connection_id() + 1".into()
            })
        );
        assert_eq!(
            k("KILL HARD QUERY 5"),
            Some(Native::Kill {
                query_only: true,
                id: "5".into()
            })
        );
        assert_eq!(
            k("kill soft connection @id"),
            Some(Native::Kill {
                query_only: false,
                id: "@id".into()
            })
        );
        assert_eq!(
            k("kill query id 4"),
            Some(Native::Unsupported("KILL QUERY ID"))
        );
        assert_eq!(k("kill user 'u'"), Some(Native::Unsupported("KILL USER")));
        assert!(native("kill").is_err());
        assert!(native("kill 1, 2").is_err());
    }
}
