//! Temporal units sqlparser does not read: `EXTRACT(unit FROM x)` for every unit
//! and the compound interval units (`INTERVAL '1:30' MINUTE_SECOND`), rewritten
//! into calls the binder knows.
//!
//! - `EXTRACT(DAY_HOUR FROM x)` becomes `` `extract:DAY_HOUR`( x) ``.
//! - `INTERVAL v DAY_HOUR` becomes `` INTERVAL `interval:DAY_HOUR`( v) MICROSECOND ``;
//!   the binder sees the call and takes the unit from it. MySQL reserves the
//!   compound unit words, so an unquoted one is always a unit.
//!
//! - `CHAR(n, ... USING cs)` becomes `` `char using`(n, ... , cs) `` (the character
//!   set as a bare name the binder reads).
//!
//! The unit is part of the function's name, not a string argument, so the plan
//! cache (which turns literals into parameters) keeps it.

use super::lexer::{TokKind, Token};

/// A replacement of `text[start..end]` by the string.
pub type RawEdit = (usize, usize, &'static str);

/// The compound units: (name, the text that opens the value's call).
const COMPOUND: [(&str, &str); 11] = [
    ("year_month", " `interval:YEAR_MONTH`("),
    ("day_hour", " `interval:DAY_HOUR`("),
    ("day_minute", " `interval:DAY_MINUTE`("),
    ("day_second", " `interval:DAY_SECOND`("),
    ("day_microsecond", " `interval:DAY_MICROSECOND`("),
    ("hour_minute", " `interval:HOUR_MINUTE`("),
    ("hour_second", " `interval:HOUR_SECOND`("),
    ("hour_microsecond", " `interval:HOUR_MICROSECOND`("),
    ("minute_second", " `interval:MINUTE_SECOND`("),
    ("minute_microsecond", " `interval:MINUTE_MICROSECOND`("),
    ("second_microsecond", " `interval:SECOND_MICROSECOND`("),
];

/// The single units an INTERVAL may end with (sqlparser reads these itself).
const SINGLE: [&str; 9] = [
    "microsecond",
    "second",
    "minute",
    "hour",
    "day",
    "week",
    "month",
    "quarter",
    "year",
];

/// `EXTRACT ( unit FROM` at token `i`: the three edits of the rewrite.
pub fn extract(text: &str, toks: &[Token], i: usize) -> Option<[RawEdit; 3]> {
    let [kw, open, unit, from] = toks.get(i..i + 4)? else {
        return None;
    };
    let shaped = kw.is_kw(text, "extract")
        && open.text(text) == "("
        && unit.kind == TokKind::Word
        && from.is_kw(text, "from");
    shaped.then_some([
        (kw.start, open.end, "`extract:"),
        (unit.end, unit.end, "`"),
        (from.start, from.end, "("),
    ])
}

/// `CHAR ( ... USING cs )` at token `i`: the two edits (the last top-level
/// `USING` of the parentheses, followed by one word and the closing one).
pub fn char_using(text: &str, toks: &[Token], i: usize) -> Option<[RawEdit; 2]> {
    let kw = toks.get(i)?;
    if !kw.is_kw(text, "char") || toks.get(i + 1)?.text(text) != "(" {
        return None;
    }
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().skip(i + 2) {
        match (t.kind, t.text(text)) {
            (TokKind::Punct, "(") => depth += 1,
            (TokKind::Punct, ")") if depth == 0 => return None,
            (TokKind::Punct, ")") => depth -= 1,
            (TokKind::Word, _) if depth == 0 && t.is_kw(text, "using") => {
                let [cs, close] = toks.get(j + 1..j + 3)? else {
                    return None;
                };
                let shaped = cs.kind == TokKind::Word && close.text(text) == ")";
                return shaped
                    .then_some([(kw.start, kw.end, "`char using`"), (t.start, t.end, ",")]);
            }
            _ => {}
        }
    }
    None
}

/// `WEIGHT_STRING ( s AS CHAR ( n ) )` at token `i`: becomes
/// `` `weight_string as char`(s, n) ``; `WEIGHT_STRING ( s AS BINARY ( n ) )` becomes
/// `WEIGHT_STRING(CAST(s AS BINARY(n)))`, as MariaDB's grammar builds it.
pub fn weight_string(text: &str, toks: &[Token], i: usize) -> Option<[RawEdit; 3]> {
    let kw = toks.get(i)?;
    let open = toks.get(i + 1)?;
    if !kw.is_kw(text, "weight_string") || open.text(text) != "(" {
        return None;
    }
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().skip(i + 2) {
        match (t.kind, t.text(text)) {
            (TokKind::Punct, "(") => depth += 1,
            (TokKind::Punct, ")") if depth == 0 => return None,
            (TokKind::Punct, ")") => depth -= 1,
            (TokKind::Word, _) if depth == 0 && t.is_kw(text, "as") => {
                let [ty, p1, n, p2, p3] = toks.get(j + 1..j + 6)? else {
                    return None;
                };
                let shaped = matches!(n.kind, TokKind::Num(_))
                    && (p1.text(text), p2.text(text), p3.text(text)) == ("(", ")", ")");
                if !shaped {
                    return None;
                }
                return if ty.is_kw(text, "char") {
                    Some([
                        (kw.start, kw.end, "`weight_string as char`"),
                        (t.start, p1.end, ","),
                        (p2.start, p2.end, ""),
                    ])
                } else if ty.is_kw(text, "binary") {
                    Some([
                        // Replacements of whole tokens, never insertions: a literal
                        // right after `(` is an edit of its own at the same place.
                        (kw.start, kw.end, "WEIGHT_STRING"),
                        (open.start, open.end, "(CAST("),
                        (p2.start, p2.end, "))"),
                    ])
                } else {
                    None
                };
            }
            _ => {}
        }
    }
    None
}

/// `CAST ( x AS CHAR [(n)] {CHARACTER SET | CHARSET} cs )` and `CONVERT ( x ,
/// CHAR [(n)] CHARSET cs )` at token `i`: the CAST becomes the CONVERT form
/// sqlparser reads with its character set (`CONVERT(x, CHAR(n) CHARACTER SET
/// cs)`), and `CHARSET` is spelled `CHARACTER SET`. Only whole tokens are
/// replaced.
pub fn cast_charset(text: &str, toks: &[Token], i: usize) -> Option<Vec<RawEdit>> {
    let kw = toks.get(i)?;
    let cast = kw.is_kw(text, "cast");
    if !(cast || kw.is_kw(text, "convert")) || toks.get(i + 1)?.text(text) != "(" {
        return None;
    }
    let mut depth = 0usize;
    let mut sep = None;
    for (j, t) in toks.iter().enumerate().skip(i + 2) {
        match (t.kind, t.text(text)) {
            (TokKind::Punct, "(") => depth += 1,
            (TokKind::Punct, ")") if depth == 0 => return None,
            (TokKind::Punct, ")") => depth -= 1,
            (TokKind::Word, _) if depth == 0 && cast && t.is_kw(text, "as") => {
                sep = Some(j);
                break;
            }
            (TokKind::Punct, ",") if depth == 0 && !cast => {
                sep = Some(j);
                break;
            }
            _ => {}
        }
    }
    let sep = sep?;
    let mut k = sep + 1;
    if !toks.get(k)?.is_kw(text, "char") {
        return None;
    }
    k += 1;
    if toks.get(k)?.text(text) == "(" {
        let [n, close] = toks.get(k + 1..k + 3)? else {
            return None;
        };
        if !matches!(n.kind, TokKind::Num(_)) || close.text(text) != ")" {
            return None;
        }
        k += 3;
    }
    let word = toks.get(k)?;
    let spelled = if word.is_kw(text, "charset") {
        Some((word.start, word.end, "CHARACTER SET"))
    } else if word.is_kw(text, "character") && toks.get(k + 1)?.is_kw(text, "set") {
        None
    } else {
        return None;
    };
    let mut edits = Vec::with_capacity(3);
    if cast {
        edits.push((kw.start, kw.end, "CONVERT"));
        edits.push((toks[sep].start, toks[sep].end, ","));
    }
    edits.extend(spelled);
    (!edits.is_empty()).then_some(edits)
}

/// `INTERVAL value unit` at token `i` with a compound unit: the two edits.
pub fn compound_interval(text: &str, toks: &[Token], i: usize) -> Option<[RawEdit; 2]> {
    let kw = toks.get(i)?;
    let mut depth = 0usize;
    for t in toks.get(i + 1..)? {
        match (t.kind, t.text(text)) {
            (TokKind::Punct, "(") => depth += 1,
            (TokKind::Punct, ")" | "," | ";") if depth == 0 => return None,
            (TokKind::Punct, ")") => depth -= 1,
            (TokKind::Word, w) if depth == 0 => {
                let lower = w.to_ascii_lowercase();
                if let Some((_, open)) = COMPOUND.iter().find(|(n, _)| *n == lower) {
                    return Some([(kw.end, kw.end, open), (t.start, t.end, ") MICROSECOND")]);
                }
                if SINGLE.contains(&lower.as_str()) {
                    return None;
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::lexer::lex;

    fn apply(text: &str, mut edits: Vec<RawEdit>) -> String {
        edits.sort_by_key(|e| e.0);
        let mut out = String::new();
        let mut pos = 0;
        for (start, end, with) in edits {
            out.push_str(&text[pos..start]);
            out.push_str(with);
            pos = end;
        }
        out.push_str(&text[pos..]);
        out
    }

    fn rewrite(text: &str) -> String {
        let toks = lex(text).tokens;
        let mut edits = Vec::new();
        for i in 0..toks.len() {
            if let Some(e) = extract(text, &toks, i) {
                edits.extend(e);
            }
            if let Some(e) = char_using(text, &toks, i) {
                edits.extend(e);
            }
            if toks[i].is_kw(text, "interval") {
                if let Some(e) = compound_interval(text, &toks, i) {
                    edits.extend(e);
                }
            }
        }
        apply(text, edits)
    }

    #[test]
    fn rewrites() {
        assert_eq!(
            rewrite("select extract(day_hour from d) from t"),
            "select `extract:day_hour` ( d) from t"
        );
        assert_eq!(
            rewrite("select d + interval '1:30' minute_second"),
            "select d + interval `interval:MINUTE_SECOND`( '1:30' ) MICROSECOND"
        );
        assert_eq!(
            rewrite("select date_add(d, interval (a + 1) day_hour), 2"),
            "select date_add(d, interval `interval:DAY_HOUR`( (a + 1) ) MICROSECOND), 2"
        );
        assert_eq!(
            rewrite("select char(65, 66 using utf8mb4), char(1)"),
            "select `char using`(65, 66 , utf8mb4), char(1)"
        );
        for same in [
            "select cast(a as char(10)), convert(b using latin1)",
            "create table t (c char(10) character set latin1)",
            "select d + interval 1 day",
            "select date_add(d, interval n hour), day_hour",
            "select interval(1, 2, 3)",
        ] {
            assert_eq!(rewrite(same), same);
        }
    }
}
