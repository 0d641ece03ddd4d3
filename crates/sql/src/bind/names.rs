//! Column names of unaliased select-list expressions: MariaDB names such a column
//! by the expression's text exactly as written, so the names are cut from the
//! statement text rather than printed from the AST.

use crate::front::lexer::{lex, TokKind, Token};

const MODIFIERS: &[&str] = &[
    "all",
    "distinct",
    "distinctrow",
    "high_priority",
    "straight_join",
    "sql_small_result",
    "sql_big_result",
    "sql_buffer_result",
    "sql_cache",
    "sql_no_cache",
    "sql_calc_found_rows",
];

const ENDS: &[&str] = &[
    "from",
    "where",
    "group",
    "having",
    "order",
    "limit",
    "into",
    "for",
    "lock",
    "union",
    "window",
    "procedure",
];

/// The text of each top-level select-list item of the first SELECT in `text`.
pub fn select_item_texts(text: &str) -> Vec<String> {
    let lexed = lex(text);
    let toks = &lexed.tokens;
    let Some(start) = toks.iter().position(|t| t.is_kw(text, "select")) else {
        return Vec::new();
    };
    let mut i = start + 1;
    while toks
        .get(i)
        .is_some_and(|t| MODIFIERS.iter().any(|m| t.is_kw(text, m)))
    {
        i += 1;
    }
    let mut items = Vec::new();
    let mut depth = 0i32;
    let mut item_start: Option<&Token> = None;
    let mut item_end: Option<&Token> = None;
    while let Some(t) = toks.get(i) {
        let s = t.text(text);
        if depth == 0 && (t.kind == TokKind::Semi || ENDS.iter().any(|e| t.is_kw(text, e))) {
            break;
        }
        if t.kind == TokKind::Punct {
            match s {
                "(" => depth += 1,
                ")" => depth -= 1,
                "," if depth == 0 => {
                    items.push(span_text(text, item_start, item_end));
                    item_start = None;
                    item_end = None;
                    i += 1;
                    continue;
                }
                _ => {}
            }
        }
        item_start.get_or_insert(t);
        item_end = Some(t);
        i += 1;
    }
    if item_start.is_some() {
        items.push(span_text(text, item_start, item_end));
    }
    items
}

fn span_text(text: &str, a: Option<&Token>, b: Option<&Token>) -> String {
    match (a, b) {
        (Some(a), Some(b)) => text[a.start..b.end].to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items() {
        assert_eq!(
            select_item_texts("select a, 1 + 2, count(*), f(x, y) from t"),
            vec!["a", "1 + 2", "count(*)", "f(x, y)"]
        );
        assert_eq!(
            select_item_texts("SELECT DISTINCT  @@version_comment limit 1"),
            vec!["@@version_comment"]
        );
        assert_eq!(
            select_item_texts("select (select 1 from t), 2"),
            vec!["(select 1 from t)", "2"]
        );
    }
}
