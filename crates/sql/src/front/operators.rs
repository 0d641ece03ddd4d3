//! Token-level helpers of the rewrites in [`super`]: where an operand ends, which
//! `MOD` is the operator, `INTERVAL(...)` as a function, ODBC's `{ OJ ... }`.

use super::lexer::{TokKind, Token};

/// Where the operand of a prefix operator starting at token `j` ends: a
/// parenthesised group, a function call, a (qualified) name or literal, or a
/// further prefix operator's operand.
pub(super) fn operand_end(text: &str, toks: &[Token], j: usize) -> Option<usize> {
    let t = toks.get(j)?;
    let is = |k: usize, s: &str| {
        toks.get(k)
            .is_some_and(|t| t.kind == TokKind::Punct && t.text(text) == s)
    };
    if t.kind == TokKind::Punct {
        return match t.text(text) {
            "(" => closing(text, toks, j).map(|k| toks[k].end),
            "!" | "-" | "+" | "~" => operand_end(text, toks, j + 1),
            _ => None,
        };
    }
    let mut k = j;
    while is(k + 1, ".") && toks.get(k + 2).is_some() {
        k += 2;
    }
    if is(k + 1, "(") {
        return closing(text, toks, k + 1).map(|c| toks[c].end);
    }
    Some(toks[k].end)
}

/// The index of the `}` closing an ODBC `{ OJ ... }` starting at token `i`.
pub(super) fn odbc_outer_join(text: &str, toks: &[Token], i: usize) -> Option<usize> {
    let punct = |t: &Token, p: &str| t.kind == TokKind::Punct && t.text(text) == p;
    if !punct(&toks[i], "{") || !toks.get(i + 1)?.is_kw(text, "oj") {
        return None;
    }
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(i + 2) {
        if punct(t, "{") {
            depth += 1;
        } else if punct(t, "}") {
            if depth == 0 {
                return Some(k);
            }
            depth -= 1;
        }
    }
    None
}

/// The index of the `)` matching the `(` at token `open`.
fn closing(text: &str, toks: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        if t.kind != TokKind::Punct {
            continue;
        }
        match t.text(text) {
            "(" => depth += 1,
            ")" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether the word MOD at `i` is the operator (`a MOD b`, `a MOD (b)`), not the
/// function `MOD(a, b)`: it is not followed by `(`, or it follows what ends an
/// operand (a literal, a variable, `)`, a name: a word that is not one of
/// [`OPERAND_FOLLOWS`]).
pub(super) fn mod_is_infix(text: &str, toks: &[Token], i: usize) -> bool {
    let Some(prev) = i.checked_sub(1).map(|p| &toks[p]) else {
        return false;
    };
    if toks.get(i + 1).is_none_or(|n| n.text(text) != "(") {
        return true;
    }
    match prev.kind {
        TokKind::Word => !OPERAND_FOLLOWS.iter().any(|w| prev.is_kw(text, w)),
        TokKind::Punct => prev.text(text) == ")",
        TokKind::Semi => false,
        _ => true,
    }
}

/// Words after which an operand starts (so `MOD(` after them is the function).
const OPERAND_FOLLOWS: &[&str] = &[
    "select",
    "distinct",
    "distinctrow",
    "all",
    "any",
    "some",
    "high_priority",
    "straight_join",
    "sql_small_result",
    "sql_big_result",
    "sql_buffer_result",
    "sql_cache",
    "sql_no_cache",
    "sql_calc_found_rows",
    "where",
    "having",
    "on",
    "by",
    "and",
    "or",
    "xor",
    "not",
    "when",
    "then",
    "else",
    "case",
    "in",
    "is",
    "like",
    "rlike",
    "regexp",
    "between",
    "div",
    "mod",
    "set",
    "values",
    "return",
    "returning",
    "escape",
    "interval",
    "limit",
    "offset",
    "do",
    "exists",
    "binary",
    "using",
    "default",
    "from",
    "for",
    "leading",
    "trailing",
    "both",
    "separator",
    "as",
];

/// True when `toks[open]` opens a parenthesised list with a comma at its top
/// level: MariaDB's grammar reads `INTERVAL (a, b, ...)` as the function.
pub(super) fn interval_call(text: &str, toks: &[Token], open: usize) -> bool {
    if toks.get(open).is_none_or(|t| t.text(text) != "(") {
        return false;
    }
    let mut depth = 0;
    for t in &toks[open + 1..] {
        if t.kind != TokKind::Punct {
            continue;
        }
        match t.text(text) {
            "(" => depth += 1,
            ")" if depth == 0 => return false,
            ")" => depth -= 1,
            "," if depth == 0 => return true,
            _ => {}
        }
    }
    false
}
