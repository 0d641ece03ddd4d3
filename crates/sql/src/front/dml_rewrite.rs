//! Multi-table UPDATE / DELETE forms that sqlparser does not read, rewritten in
//! front of it, and the IGNORE modifier carried to the binder.
//!
//! - `UPDATE t1, t2 SET ...`: sqlparser takes one table with joins before SET, so
//!   each comma of the table list (outside parentheses) becomes `CROSS JOIN`.
//!   MySQL gives a comma a lower precedence than JOIN; the difference shows only
//!   in ON / USING clauses that name a table on the other side of a comma, which
//!   MySQL rejects and this accepts.
//! - `DELETE t1.*, t2.* FROM ...` and `DELETE FROM t1.* USING ...`: the `.*` after
//!   a target name is dropped (it means the table itself).
//! - `IGNORE` after UPDATE / DELETE is replaced by [`IGNORE_MARKER`], a comment
//!   sqlparser skips; the binder finds it between the statement's first two
//!   tokens. Being part of the text, it also keeps the plan cache keys of the
//!   statement with and without IGNORE apart.

use super::lexer::{TokKind, Token};

/// Stands for `IGNORE` in the text sqlparser reads.
pub const IGNORE_MARKER: &str = "/*basalt:ignore*/";

/// A replacement of `text[start..end]`.
pub struct Replace {
    pub start: usize,
    pub end: usize,
    pub with: &'static str,
}

/// The replacements for a multi-table UPDATE / DELETE; `first` is the index of
/// the first token after the statement keyword and its modifiers.
pub fn multi_table(text: &str, toks: &[Token], first: usize) -> Vec<Replace> {
    let mut out = Vec::new();
    let Some(kw) = toks.first() else {
        return out;
    };
    if kw.is_kw(text, "update") {
        update_commas(text, toks, first, &mut out);
    } else if kw.is_kw(text, "delete") {
        delete_stars(text, toks, first, &mut out);
    }
    out
}

/// The index of the statement keyword: 1 after EXPLAIN / DESCRIBE / DESC
/// (`EXPLAIN UPDATE t1, t2 SET ...`), else 0.
pub fn statement_start(text: &str, toks: &[Token]) -> usize {
    let explain = toks.first().is_some_and(|t| {
        ["explain", "describe", "desc"]
            .iter()
            .any(|k| t.is_kw(text, k))
    });
    let dml = toks
        .get(1)
        .is_some_and(|t| t.is_kw(text, "update") || t.is_kw(text, "delete"));
    usize::from(explain && dml)
}

/// Whether the statement text (as sqlparser reads it) had the IGNORE modifier.
pub fn has_ignore(text: &str, toks: &[Token]) -> bool {
    match &toks[statement_start(text, toks).min(toks.len())..] {
        [a, b, ..] => text[a.end..b.start].contains(IGNORE_MARKER),
        _ => false,
    }
}

fn is_punct(text: &str, t: &Token, p: &str) -> bool {
    t.kind == TokKind::Punct && t.text(text) == p
}

/// Calls `f` with each token index from `from` at parenthesis depth 0 until it
/// returns false.
fn top_level(text: &str, toks: &[Token], from: usize, mut f: impl FnMut(usize) -> bool) {
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate().skip(from) {
        if is_punct(text, t, "(") {
            depth += 1;
        } else if is_punct(text, t, ")") {
            depth -= 1;
        } else if depth == 0 && !f(i) {
            return;
        }
    }
}

fn update_commas(text: &str, toks: &[Token], first: usize, out: &mut Vec<Replace>) {
    top_level(text, toks, first, |i| {
        let t = &toks[i];
        if t.is_kw(text, "set") {
            return false;
        }
        if is_punct(text, t, ",") {
            out.push(Replace {
                start: t.start,
                end: t.end,
                with: " CROSS JOIN ",
            });
        }
        true
    });
}

fn delete_stars(text: &str, toks: &[Token], first: usize, out: &mut Vec<Replace>) {
    let Some(t) = toks.get(first) else { return };
    // `DELETE list FROM ...`, or `DELETE FROM list USING ...`.
    let (from, end_kw) = if t.is_kw(text, "from") {
        (first + 1, "using")
    } else {
        (first, "from")
    };
    let mut end = None;
    top_level(text, toks, from, |i| {
        let t = &toks[i];
        if t.is_kw(text, end_kw) {
            end = Some(i);
            return false;
        }
        !(t.is_kw(text, "where") || t.kind == TokKind::Semi)
    });
    let Some(end) = end else { return };
    for i in from..end.saturating_sub(1) {
        let (dot, star) = (&toks[i], &toks[i + 1]);
        if is_punct(text, dot, ".") && is_punct(text, star, "*") && dot.end == star.start {
            out.push(Replace {
                start: dot.start,
                end: star.end,
                with: "",
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn rewrite(s: &str, first: usize) -> String {
        let toks = lex(s).tokens;
        let mut out = String::new();
        let mut pos = 0;
        for r in multi_table(s, &toks, first) {
            out.push_str(&s[pos..r.start]);
            out.push_str(r.with);
            pos = r.end;
        }
        out.push_str(&s[pos..]);
        out
    }

    #[test]
    fn update_table_lists_become_cross_joins() {
        assert_eq!(
            rewrite("update t1, t2 set t1.a = f(1, 2) where x in (1, 2)", 1),
            "update t1 CROSS JOIN  t2 set t1.a = f(1, 2) where x in (1, 2)"
        );
        assert_eq!(
            rewrite("update (select a, b from t) d, t2 set t2.a = 1", 1),
            "update (select a, b from t) d CROSS JOIN  t2 set t2.a = 1"
        );
        assert_eq!(
            rewrite("update t set a = 1, b = 2", 1),
            "update t set a = 1, b = 2"
        );
    }

    #[test]
    fn delete_targets_lose_their_stars() {
        assert_eq!(
            rewrite("delete t1.*, t2.* from t1 join t2 where t1.a = 2", 1),
            "delete t1, t2 from t1 join t2 where t1.a = 2"
        );
        assert_eq!(
            rewrite("delete from t1.* using t1 join t2", 1),
            "delete from t1 using t1 join t2"
        );
        assert_eq!(
            rewrite("delete from t where a = 1 * 2", 1),
            "delete from t where a = 1 * 2"
        );
    }

    #[test]
    fn the_ignore_marker_is_found_after_the_keyword() {
        let s = format!("update {IGNORE_MARKER} t set a = 1");
        assert!(has_ignore(&s, &lex(&s).tokens));
        let s = format!("update t set a = '{IGNORE_MARKER}'");
        assert!(!has_ignore(&s, &lex(&s).tokens));
        let s = format!("explain delete {IGNORE_MARKER} from t");
        assert!(has_ignore(&s, &lex(&s).tokens));
    }

    #[test]
    fn an_insertion_where_a_comma_is_replaced_comes_first() {
        // `!p` gains `)` where the comma after it becomes CROSS JOIN.
        for text in ["UPDATE x !p, y SET a = 1", "UPDATE INTERVA !p,q L INDEX"] {
            match super::super::analyze(text, true, false) {
                Ok(super::super::Front::Cached(s)) => {
                    assert!(s.original().contains("(NOT p) CROSS JOIN "), "{text}");
                    assert!(s.parse_text().contains("(NOT p) CROSS JOIN "), "{text}");
                }
                Ok(super::super::Front::Parse(t)) => {
                    assert!(t.contains("(NOT p) CROSS JOIN "), "{text}: {t}")
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }
}
