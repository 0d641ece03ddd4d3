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
    "intersect",
    "except",
    "window",
    "procedure",
];

/// A result column's name as MariaDB sends it: at most 255 bytes, cut at a
/// character boundary (a longer expression text or alias is cut, not refused).
pub fn cut_column_name(mut name: String) -> String {
    const MAX: usize = 255;
    if name.len() > MAX {
        let mut end = MAX;
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        name.truncate(end);
    }
    name
}

/// The text of each top-level select-list item of the first SELECT in `text`.
pub fn select_item_texts(text: &str) -> Vec<String> {
    let lexed = lex(text);
    let toks = &lexed.tokens;
    let start = if toks.first().is_some_and(|t| t.is_kw(text, "with")) {
        main_select(text, toks)
    } else {
        toks.iter().position(|t| t.is_kw(text, "select"))
    };
    let Some(start) = start else {
        return Vec::new();
    };
    let mut i = start + 1;
    while toks
        .get(i)
        .is_some_and(|t| MODIFIERS.iter().any(|m| t.is_kw(text, m)))
    {
        i += 1;
    }
    item_spans(text, &toks[i..])
        .into_iter()
        .map(|(a, b)| text[a..b].to_string())
        .collect()
}

/// The (start, end) byte spans of the items of the RETURNING list of an INSERT,
/// REPLACE or DELETE (after the last RETURNING keyword outside parentheses).
pub fn returning_item_spans(text: &str) -> Vec<(usize, usize)> {
    let lexed = lex(text);
    let toks = &lexed.tokens;
    match returning_keyword(text, toks) {
        Some(i) => item_spans(text, &toks[i + 1..]),
        None => Vec::new(),
    }
}

/// Byte offset of the last RETURNING keyword outside parentheses.
pub fn returning_offset(text: &str) -> Option<usize> {
    let lexed = lex(text);
    returning_keyword(text, &lexed.tokens).map(|i| lexed.tokens[i].start)
}

/// The text from the statement a WITH clause introduces (its first keyword
/// outside parentheses after the definitions), for a syntax error near it.
pub fn after_with(text: &str) -> &str {
    let lexed = lex(text);
    let mut depth = 0i32;
    let mut seen_paren = false;
    for t in &lexed.tokens {
        match (t.kind, t.text(text)) {
            (TokKind::Punct, "(") => {
                depth += 1;
                seen_paren = true;
            }
            (TokKind::Punct, ")") => depth -= 1,
            _ if depth == 0
                && seen_paren
                && ["select", "update", "delete", "insert", "replace"]
                    .iter()
                    .any(|k| t.is_kw(text, k)) =>
            {
                return &text[t.start..];
            }
            _ => {}
        }
    }
    ""
}

/// The first SELECT outside parentheses: the query after a WITH clause, whose
/// definitions are parenthesised.
fn main_select(text: &str, toks: &[Token]) -> Option<usize> {
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate() {
        match (t.kind, t.text(text)) {
            (TokKind::Punct, "(") => depth += 1,
            (TokKind::Punct, ")") => depth -= 1,
            _ if depth == 0 && t.is_kw(text, "select") => return Some(i),
            _ => {}
        }
    }
    None
}

fn returning_keyword(text: &str, toks: &[Token]) -> Option<usize> {
    let mut depth = 0i32;
    let mut found = None;
    for (i, t) in toks.iter().enumerate() {
        match (t.kind, t.text(text)) {
            (TokKind::Punct, "(") => depth += 1,
            (TokKind::Punct, ")") => depth -= 1,
            _ if depth == 0 && t.is_kw(text, "returning") => found = Some(i),
            _ => {}
        }
    }
    found
}

/// The spans of the comma-separated items at the start of `toks`, up to the end
/// of the list (a clause keyword or `;` outside parentheses).
fn item_spans(text: &str, toks: &[Token]) -> Vec<(usize, usize)> {
    let mut items = Vec::new();
    let mut depth = 0i32;
    let mut item_start: Option<&Token> = None;
    let mut item_end: Option<&Token> = None;
    for t in toks {
        let s = t.text(text);
        if depth == 0 && (t.kind == TokKind::Semi || ENDS.iter().any(|e| t.is_kw(text, e))) {
            break;
        }
        if t.kind == TokKind::Punct {
            match s {
                "(" => depth += 1,
                ")" => depth -= 1,
                "," if depth == 0 => {
                    items.push(span(item_start, item_end));
                    item_start = None;
                    item_end = None;
                    continue;
                }
                _ => {}
            }
        }
        item_start.get_or_insert(t);
        item_end = Some(t);
    }
    if item_start.is_some() {
        items.push(span(item_start, item_end));
    }
    items
}

fn span(a: Option<&Token>, b: Option<&Token>) -> (usize, usize) {
    match (a, b) {
        (Some(a), Some(b)) => (a.start, b.end),
        _ => (0, 0),
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

    #[test]
    fn returning_items() {
        let text = "insert into t select a from u returning id+1, (select 1 from v) as x";
        let spans = returning_item_spans(text);
        let items: Vec<&str> = spans.iter().map(|&(a, b)| &text[a..b]).collect();
        assert_eq!(items, vec!["id+1", "(select 1 from v) as x"]);
        assert_eq!(returning_offset("delete from t"), None);
        assert_eq!(returning_offset("update t set a=1 returning a"), Some(17));
    }
}
