//! `SELECT ... INTO`: the INTO clause is cut out of the statement text here and
//! the rest runs as an ordinary query whose rows go to the target.
//!
//! ```text
//! INTO @var [, @var ...]
//! INTO OUTFILE 'file' [CHARACTER SET cs] [{FIELDS|COLUMNS} ...] [LINES ...]
//! INTO DUMPFILE 'file'
//! ```
//!
//! MariaDB takes the clause before FROM or at the end of the query (after
//! LIMIT, before or after the locking clause); it is found as the word INTO at
//! parenthesis depth 0 of a statement that starts as a query.

use super::load::{fields_clause, lines_clause};
use super::{user_var_name, Native, P, R};
use crate::exec::textfile::Format;
use crate::front::lexer::{TokKind, Token};

#[derive(Debug, Clone, PartialEq)]
pub enum IntoTarget {
    Vars(Vec<IntoVar>),
    Outfile {
        file: Vec<u8>,
        charset: Option<String>,
        format: Format,
    },
    Dumpfile(Vec<u8>),
}

/// A variable of `INTO var, ...`: `@name`, or a stored program's variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntoVar {
    User(String),
    Local(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct SelectInto {
    /// The statement without its INTO clause.
    pub query: String,
    pub target: IntoTarget,
    /// The clause follows FROM (MariaDB deprecates that order: warning 1287).
    pub after_from: bool,
}

/// The INTO clause of a query statement, if it has one at depth 0.
pub(in crate::front) fn select_into(src: &str, toks: &[Token], markers: bool) -> R<Option<Native>> {
    let first = &toks[0];
    let query_start = first.is_kw(src, "select")
        || first.is_kw(src, "with")
        || (first.kind == TokKind::Punct && first.text(src) == "(");
    if !query_start || !has_into(src.as_bytes(), toks) {
        return Ok(None);
    }
    let mut depth = 0i32;
    let mut at = None;
    let mut after_from = false;
    for (i, t) in toks.iter().enumerate() {
        if t.kind == TokKind::Punct {
            match t.text(src) {
                "(" => depth += 1,
                ")" => depth -= 1,
                _ => {}
            }
        } else if depth == 0 && t.end - t.start == 4 && t.is_kw(src, "into") {
            at = Some(i);
            break;
        } else if depth == 0 && t.is_kw(src, "from") {
            after_from = true;
        }
    }
    let Some(at) = at else {
        return Ok(None);
    };
    let mut p = P {
        src,
        toks,
        pos: at + 1,
        markers,
    };
    let target = target(&mut p)?;
    let start = toks[at].start;
    let rest = p.peek().map_or(src.len(), |t| t.start);
    let query = format!("{} {}", &src[..start], &src[rest..]);
    Ok(Some(Native::SelectInto(Box::new(SelectInto {
        query,
        target,
        after_from,
    }))))
}

/// Whether a word token is INTO: most queries have none, and every query is
/// looked at, so this is a tight loop over the tokens' lengths.
#[inline]
fn has_into(b: &[u8], toks: &[Token]) -> bool {
    for t in toks {
        if t.end - t.start == 4 && t.kind == TokKind::Word {
            let w =
                u32::from_le_bytes([b[t.start], b[t.start + 1], b[t.start + 2], b[t.start + 3]]);
            if w | 0x2020_2020 == u32::from_le_bytes(*b"into") {
                return true;
            }
        }
    }
    false
}

fn target(p: &mut P) -> R<IntoTarget> {
    if p.kw("outfile") {
        let file = literal(p)?;
        let charset = if p.kw("character") || p.kw("charset") {
            if p.peek().is_some_and(|t| t.is_kw(p.src, "set")) {
                p.pos += 1;
            }
            Some(p.ident()?.to_ascii_lowercase())
        } else {
            None
        };
        let mut format = Format::default();
        if p.kw("fields") || p.kw("columns") {
            fields_clause(p, &mut format)?;
        }
        if p.kw("lines") {
            lines_clause(p, &mut format)?;
        }
        return Ok(IntoTarget::Outfile {
            file,
            charset,
            format,
        });
    }
    if p.kw("dumpfile") {
        return Ok(IntoTarget::Dumpfile(literal(p)?));
    }
    let mut vars = Vec::new();
    loop {
        let t = p.peek().ok_or_else(|| p.err())?;
        if matches!(t.kind, TokKind::Word | TokKind::QuotedIdent) {
            // A stored program's variable (1327 outside one, when it runs).
            vars.push(IntoVar::Local(p.ident()?));
        } else if t.kind != TokKind::Var || t.text(p.src).starts_with("@@") {
            return Err(p.err());
        } else {
            vars.push(IntoVar::User(user_var_name(t.text(p.src))));
            p.pos += 1;
        }
        if !p.punct(",") {
            return Ok(IntoTarget::Vars(vars));
        }
    }
}

fn literal(p: &mut P) -> R<Vec<u8>> {
    match p.marker() {
        Some(b) => Ok(b),
        None => p.string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::lexer::lex;

    fn split(s: &str) -> Option<SelectInto> {
        let l = lex(s);
        match select_into(s, &l.tokens, false).expect("parses") {
            Some(Native::SelectInto(x)) => Some(*x),
            Some(other) => panic!("{other:?}"),
            None => None,
        }
    }

    #[test]
    fn clause_is_cut_out_wherever_it_stands() {
        let x = split("SELECT a, b INTO @x, @`y` FROM t WHERE a = 1").expect("into");
        assert_eq!(x.query, "SELECT a, b  FROM t WHERE a = 1");
        assert_eq!(
            x.target,
            IntoTarget::Vars(vec![IntoVar::User("x".into()), IntoVar::User("y".into())])
        );
        assert!(!x.after_from);
        let x = split("select a from t limit 1 into @x for update").expect("into");
        assert_eq!(x.query, "select a from t limit 1  for update");
        assert!(x.after_from);
        let x = split(
            "SELECT * FROM t INTO OUTFILE '/tmp/f' FIELDS TERMINATED BY ',' ENCLOSED BY '\"' LINES TERMINATED BY '\\n'",
        )
        .expect("into");
        assert_eq!(x.query.trim(), "SELECT * FROM t");
        match x.target {
            IntoTarget::Outfile { file, format, .. } => {
                assert_eq!(file, b"/tmp/f");
                assert_eq!(format.field_end, b",");
                assert_eq!(format.enclosed, Some(b'"'));
            }
            other => panic!("{other:?}"),
        }
        let x = split("SELECT b INTO DUMPFILE 'x' FROM t").expect("into");
        assert_eq!(x.target, IntoTarget::Dumpfile(b"x".to_vec()));
        assert_eq!(
            split("SELECT (SELECT 1) FROM t WHERE a IN (SELECT 1)"),
            None
        );
        assert_eq!(split("INSERT INTO t SELECT 1"), None);
        let x = split("SELECT 1 INTO x, @y").expect("into");
        assert_eq!(
            x.target,
            IntoTarget::Vars(vec![IntoVar::Local("x".into()), IntoVar::User("y".into())])
        );
    }
}
