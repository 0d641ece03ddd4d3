//! Multi-row `INSERT`/`REPLACE ... VALUES` whose rows all have one shape (the same
//! tokens, with literals of the same kinds in the same places), as bulk loads and
//! dumps send them. Such a statement is planned once per shape: the plan of its
//! first row alone is cached under a key that does not depend on the row count, and
//! each execution repeats that row's plan with the parameters of every row. A
//! thousand-row INSERT then costs one lexer pass instead of a full parse and bind,
//! and its plan-cache key stays one row long whatever the row count.
//!
//! Anything else (no VALUES, a single row, rows of different shapes, literals in the
//! statement head, a clause after the rows such as `ON DUPLICATE KEY UPDATE`)
//! is not a bulk insert and takes the ordinary route.

use super::lexer::{self, TokKind, Token};
use super::{apply, literal, marker_literal, marker_tail, rewrites, strip, LitOpts, Stripped};
use basalt_common::Value;

/// A bulk insert (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct BulkInsert<'a> {
    /// Plan cache key: the stripped key of the one-row statement, marked as bulk.
    pub key: String,
    /// The literal values of every row, row after row.
    pub params: Vec<Value>,
    /// Literals per row.
    pub width: usize,
    pub rows: usize,
    /// The statement with its first row only.
    one_row: String,
    text: &'a str,
}

impl BulkInsert<'_> {
    /// The one-row statement's stripped form, to plan on a cache miss.
    pub fn template(&self, opts: LitOpts) -> Option<Stripped<'_>> {
        stripped(&self.one_row, opts)
    }

    /// The whole statement with the rewrites applied, for the full parse (only
    /// when the one-row plan cannot be repeated, so its tokens are not kept).
    pub fn original(&self) -> String {
        let lexed = lexer::lex(self.text);
        apply(self.text, &rewrites(self.text, &lexed.tokens, true))
    }
}

/// Recognises a bulk insert; `toks` are the lexer's tokens of `text`.
pub(super) fn bulk_insert<'a>(
    text: &'a str,
    toks: &[Token],
    opts: LitOpts,
) -> Option<BulkInsert<'a>> {
    let first = toks.first()?;
    if !(first.is_kw(text, "insert") || first.is_kw(text, "replace")) {
        return None;
    }
    let values = values_keyword(text, toks)?;
    let head = &toks[..=values];
    if head
        .iter()
        .any(|t| matches!(t.kind, TokKind::Str | TokKind::Num(_) | TokKind::HexOrBit))
    {
        return None;
    }
    let mut rows = Vec::new();
    let mut i = values + 1;
    loop {
        let end = row_end(text, toks, i)?;
        rows.push(i..end);
        i = end;
        match toks.get(i) {
            None => break,
            Some(t) if t.kind == TokKind::Semi && i + 1 == toks.len() => break,
            Some(t) if t.text(text) == "," => i += 1,
            Some(_) => return None,
        }
    }
    if rows.len() < 2 {
        return None;
    }
    let mut params = Vec::new();
    let mut shape: Option<Vec<Shape>> = None;
    for r in &rows {
        let mut this = Vec::with_capacity(r.len());
        for j in r.clone() {
            if marker_tail(text, toks, j, opts) {
                continue;
            }
            let lit = if opts.markers && toks[j].kind == TokKind::QuotedIdent {
                marker_literal(text, toks, j)
            } else {
                literal(text, toks, j, opts.backslash)
            };
            match lit? {
                Some((marker, v)) => {
                    this.push(Shape::Literal(marker));
                    params.push(v);
                }
                None => this.push(Shape::Text(toks[j].text(text))),
            }
        }
        match &shape {
            None => shape = Some(this),
            Some(s) if *s == this => {}
            Some(_) => return None,
        }
    }
    let width = params.len() / rows.len();
    let first_row = &rows[0];
    let one_row = text[..toks[first_row.end - 1].end].to_string();
    let key = format!("{}\u{2}bulk", stripped(&one_row, opts)?.key);
    Some(BulkInsert {
        key,
        width,
        rows: rows.len(),
        params,
        one_row,
        text,
    })
}

/// The stripped form of a statement text of its own.
fn stripped(text: &str, opts: LitOpts) -> Option<Stripped<'_>> {
    let lexed = lexer::lex(text);
    strip(
        text,
        &lexed.tokens,
        rewrites(text, &lexed.tokens, true),
        opts,
    )
}

/// The position of `VALUES` (or `VALUE`) outside parentheses.
fn values_keyword(text: &str, toks: &[Token]) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate() {
        match t.text(text) {
            "(" => depth += 1,
            ")" => depth = depth.checked_sub(1)?,
            _ if depth == 0 && (t.is_kw(text, "values") || t.is_kw(text, "value")) => {
                return Some(i)
            }
            _ => {}
        }
    }
    None
}

#[derive(Debug, PartialEq)]
enum Shape<'a> {
    Literal(char),
    Text(&'a str),
}

/// The index just past the row starting at `i` (`(` ... `)` with no nested
/// parentheses), or `None` if no such row starts there.
fn row_end(text: &str, toks: &[Token], i: usize) -> Option<usize> {
    if toks.get(i)?.text(text) != "(" {
        return None;
    }
    for (j, t) in toks.iter().enumerate().skip(i + 1) {
        match t.text(text) {
            ")" => return Some(j + 1),
            "(" => return None,
            _ if t.kind == TokKind::Semi || t.kind == TokKind::Param => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bulk(sql: &str) -> Option<BulkInsert<'_>> {
        let l = lexer::lex(sql);
        bulk_insert(sql, &l.tokens, LitOpts::new(true, false))
    }

    #[test]
    fn same_shaped_literal_rows_are_bulk() {
        let b = bulk("INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y'),(3,'z')").expect("bulk");
        assert_eq!((b.rows, b.width), (3, 2));
        assert_eq!(b.params[4], Value::Int(3));
        assert_eq!(b.params[5], Value::Bytes(b"z".to_vec()));
        assert_eq!(b.one_row, "INSERT INTO t (a, b) VALUES (1, 'x')");
        // The key does not depend on the row count or the values.
        let b2 = bulk("INSERT INTO t (a, b) VALUES (7, 'q'), (8, 'r')").expect("bulk");
        assert_eq!(b.key, b2.key);
        assert!(b.key.ends_with("\u{2}bulk"));
        let n = bulk("insert into t values (NULL, -1, DEFAULT), (NULL, -2, DEFAULT);")
            .expect("bulk with NULL, DEFAULT and a sign");
        assert_eq!((n.rows, n.width), (2, 1));
        assert_eq!(n.one_row, "insert into t values (NULL, -1, DEFAULT)");
        let v =
            bulk("INSERT INTO t (id, value) VALUES (1, 2), (3, 4)").expect("column named value");
        assert_eq!(v.one_row, "INSERT INTO t (id, value) VALUES (1, 2)");
    }

    #[test]
    fn everything_else_is_not() {
        for sql in [
            "INSERT INTO t VALUES (1, 'x')",
            "INSERT INTO t VALUES (1, 'x'), (NULL, 'y')",
            "INSERT INTO t VALUES (1, 'x'), (2, 3)",
            "INSERT INTO t VALUES (1, 2), (3, 4) ON DUPLICATE KEY UPDATE a = 1",
            "INSERT INTO t VALUES (1, now()), (2, now())",
            "INSERT INTO t VALUES (1, ?), (2, ?)",
            "INSERT INTO t VALUES (1, _utf8mb4'a'), (2, _utf8mb4'b')",
            "INSERT INTO t VALUES (1, 'a' 'b'), (2, 'c' 'd')",
            "INSERT INTO t SELECT 1 UNION SELECT 2",
            "INSERT INTO t SELECT * FROM (VALUES (1), (2)) AS d",
            "UPDATE t SET a = 1",
            "INSERT INTO t VALUES (1), (2) AS new",
            "INSERT INTO t VALUES (1), (2",
        ] {
            assert!(bulk(sql).is_none(), "{sql}");
        }
    }
}
