//! `NEXT VALUE FOR s` and `PREVIOUS VALUE FOR s` (MariaDB's standard forms of
//! NEXTVAL(s) and LASTVAL(s)), rewritten into the function calls before
//! sqlparser, which reads neither. The rewrite keeps the text's length (the
//! call is padded with spaces), so select-list names cut from the client's text
//! by offset stay `next value for s`, as MariaDB names the column.

use super::lexer::{TokKind, Token};

/// Spaces that pad a rewritten phrase to its original length.
const PAD: &str = "                                                                ";

/// At token `i`: the end of the phrase's words, the end of the sequence name
/// that follows them, the function call's head and the padding after it.
pub(super) fn value_for(
    text: &str,
    toks: &[Token],
    i: usize,
) -> Option<(usize, usize, &'static str, &'static str)> {
    let t = &toks[i];
    let with = if t.is_kw(text, "next") {
        "NEXTVAL("
    } else if t.is_kw(text, "previous") {
        "LASTVAL("
    } else {
        return None;
    };
    let kw = |j: usize, k: &str| toks.get(j).is_some_and(|t| t.is_kw(text, k));
    if !(kw(i + 1, "value") && kw(i + 2, "for")) {
        return None;
    }
    let ident = |j: usize| {
        toks.get(j)
            .is_some_and(|t| matches!(t.kind, TokKind::Word | TokKind::QuotedIdent))
    };
    if !ident(i + 3) {
        return None;
    }
    let dotted = toks
        .get(i + 4)
        .is_some_and(|t| t.kind == TokKind::Punct && t.text(text) == ".")
        && ident(i + 5);
    let last = if dotted { i + 5 } else { i + 3 };
    let words = toks[i + 2].end - t.start;
    let pad = words.saturating_sub(with.len() + 1).min(PAD.len());
    Some((toks[i + 2].end, toks[last].end, with, &PAD[..pad]))
}
