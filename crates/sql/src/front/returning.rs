//! MariaDB writes DELETE's RETURNING after ORDER BY / LIMIT
//! (`DELETE FROM t ORDER BY id LIMIT 2 RETURNING id`); sqlparser 0.64 only reads it
//! before them. Such a statement is given to the parser with the RETURNING list
//! moved in front of its ORDER BY / LIMIT, which means the same.
//!
//! `?` parameters are numbered by their position in the parsed text, so the move
//! is refused (errno 1235) when both the moved list and the clauses it moves over
//! hold parameters: their order would change.

use super::lexer::{TokKind, Token};
use basalt_common::MySqlError;

/// The text to parse for a DELETE whose RETURNING follows its ORDER BY / LIMIT;
/// `None` for every other statement (checked on the first token, so other
/// statements pay nothing).
pub fn reorder_delete(text: &str, toks: &[Token]) -> Option<Result<String, MySqlError>> {
    if !toks.first()?.is_kw(text, "delete") {
        return None;
    }
    let mut depth = 0i32;
    let mut tail: Option<usize> = None;
    let mut returning: Option<usize> = None;
    for (i, t) in toks.iter().enumerate() {
        match (t.kind, t.text(text)) {
            (TokKind::Punct, "(") => depth += 1,
            (TokKind::Punct, ")") => depth -= 1,
            _ if depth != 0 => {}
            _ if t.is_kw(text, "order") || t.is_kw(text, "limit") => {
                tail.get_or_insert(i);
            }
            _ if t.is_kw(text, "returning") => returning = Some(i),
            _ => {}
        }
    }
    let (tail, returning) = (tail?, returning?);
    if returning < tail {
        return None;
    }
    let has_param = |ts: &[Token]| ts.iter().any(|t| t.kind == TokKind::Param);
    if has_param(&toks[tail..returning]) && has_param(&toks[returning..]) {
        return Some(Err(MySqlError::not_supported(
            "parameters both in RETURNING and in the ORDER BY / LIMIT before it",
        )));
    }
    let end = toks
        .iter()
        .rposition(|t| t.kind != TokKind::Semi)
        .map_or(text.len(), |i| toks[i].end);
    let (t, r) = (toks[tail].start, toks[returning].start);
    Some(Ok(format!(
        "{} {} {}",
        &text[..t],
        &text[r..end],
        &text[t..r]
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::lexer::lex;

    fn run(text: &str) -> Option<Result<String, MySqlError>> {
        reorder_delete(text, &lex(text).tokens)
    }

    #[test]
    fn moves_returning_before_order_and_limit() {
        assert_eq!(
            run("DELETE FROM t WHERE a > 1 ORDER BY id DESC LIMIT 2 RETURNING id, (a)")
                .expect("reordered")
                .expect("ok"),
            "DELETE FROM t WHERE a > 1  RETURNING id, (a) ORDER BY id DESC LIMIT 2 "
        );
        assert!(run("DELETE FROM t RETURNING id").is_none());
        assert!(run("DELETE FROM t ORDER BY id LIMIT 1").is_none());
        assert!(run("SELECT 1 ORDER BY 1 LIMIT 1").is_none());
        assert!(run("DELETE FROM t ORDER BY id LIMIT ? RETURNING ?")
            .expect("checked")
            .is_err());
        assert!(run("DELETE FROM t ORDER BY id LIMIT ? RETURNING id")
            .expect("checked")
            .is_ok());
    }
}
