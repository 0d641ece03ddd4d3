//! Column attributes of CREATE / ALTER TABLE that MariaDB's grammar has and
//! sqlparser's does not, respelled as ones it has:
//! - `CHAR(10) BINARY`, `TEXT BINARY` (the `_bin` collation of the column's
//!   character set) becomes `COLLATE `binary attribute``, which the binder
//!   resolves once it knows the character set (see [`BINARY_ATTRIBUTE`]);
//! - `CHARSET x` in a column definition is `CHARACTER SET x`;
//! - the old MySQL attributes `ASCII` (latin1), `UNICODE` (ucs2) and `BYTE`
//!   (binary) after a character type are `CHARACTER SET x`;
//! - a generated column's `PERSISTENT` (MariaDB's word for STORED) is `STORED`.

use super::lexer::{TokKind, Token};

/// The collation name the BINARY attribute is respelled as (it can name no
/// real collation).
pub const BINARY_ATTRIBUTE: &str = "binary attribute";

/// Character types a BINARY attribute can follow directly.
const TEXT_TYPES: [&str; 8] = [
    "char",
    "varchar",
    "text",
    "tinytext",
    "mediumtext",
    "longtext",
    "character",
    "national",
];

/// (start, end, replacement) of each respelled word of a CREATE / ALTER statement
/// (column definitions are inside parentheses in CREATE, not in ALTER).
pub fn rewrites(text: &str, toks: &[Token]) -> Vec<(usize, usize, &'static str)> {
    let alter = toks.first().is_some_and(|t| t.is_kw(text, "alter"));
    let mut out = Vec::new();
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate() {
        if t.kind == TokKind::Punct {
            match t.text(text) {
                "(" => depth += 1,
                ")" => depth = depth.saturating_sub(1),
                _ => {}
            }
            continue;
        }
        if i == 0 {
            continue;
        }
        let prev = &toks[i - 1];
        if t.is_kw(text, "persistent") && prev.kind == TokKind::Punct && prev.text(text) == ")" {
            out.push((t.start, t.end, "STORED"));
            continue;
        }
        if depth == 0 && !alter {
            continue;
        }
        let next_is = |s: &str| {
            toks.get(i + 1)
                .is_some_and(|n| n.kind == TokKind::Punct && n.text(text) == s)
        };
        if t.is_kw(text, "binary") && !next_is("(") && follows_text_type(text, toks, i) {
            out.push((t.start, t.end, "COLLATE `binary attribute`"));
        } else if let Some(set) = charset_word(text, t).filter(|_| follows_text_type(text, toks, i))
        {
            out.push((t.start, t.end, set));
        } else if t.is_kw(text, "charset")
            && depth > 0
            && !next_is("=")
            && !prev.is_kw(text, "default")
            && toks.get(i + 1).is_some_and(|n| n.kind != TokKind::Punct)
        {
            out.push((t.start, t.end, "CHARACTER SET"));
        }
    }
    out
}

/// `sql` with [`rewrites`] applied (column definitions parsed on their own).
pub fn respell(sql: &str) -> String {
    let toks = super::lexer::lex(sql).tokens;
    let mut out = sql.to_string();
    for (start, end, with) in rewrites(sql, &toks).into_iter().rev() {
        out.replace_range(start..end, with);
    }
    out
}

/// The character set an old attribute word names, respelled.
fn charset_word(text: &str, t: &Token) -> Option<&'static str> {
    [
        ("ascii", "CHARACTER SET latin1"),
        ("unicode", "CHARACTER SET ucs2"),
        ("byte", "CHARACTER SET binary"),
    ]
    .into_iter()
    .find(|(w, _)| t.is_kw(text, w))
    .map(|(_, set)| set)
}

/// Whether the word at `i` comes right after a character type (with its length,
/// or its character set and collation, or another attribute word).
fn follows_text_type(text: &str, toks: &[Token], i: usize) -> bool {
    let mut j = i;
    // `CHAR(2) BINARY ASCII`, `CHAR(2) ASCII BINARY`.
    while j >= 2
        && (toks[j - 1].is_kw(text, "binary") || charset_word(text, &toks[j - 1]).is_some())
    {
        j -= 1;
    }
    // `CHARACTER SET x` / `COLLATE x` between the type and BINARY.
    while j >= 3
        && (toks[j - 3].is_kw(text, "character") && toks[j - 2].is_kw(text, "set")
            || toks[j - 2].is_kw(text, "collate")
            || toks[j - 2].is_kw(text, "charset"))
    {
        j -= if toks[j - 2].is_kw(text, "set") { 3 } else { 2 };
    }
    let prev = &toks[j - 1];
    if prev.kind == TokKind::Punct && prev.text(text) == ")" {
        // CHAR(10) BINARY: the word before the parenthesis is the type.
        let open = (0..j - 1)
            .rev()
            .find(|&k| toks[k].kind == TokKind::Punct && toks[k].text(text) == "(");
        return open.is_some_and(|k| k > 0 && is_text_type(text, &toks[k - 1]));
    }
    is_text_type(text, prev)
}

fn is_text_type(text: &str, t: &Token) -> bool {
    TEXT_TYPES.iter().any(|w| t.is_kw(text, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn respelled(sql: &str) -> String {
        respell(sql)
    }

    #[test]
    fn binary_attribute_and_charset_word() {
        assert_eq!(
            respelled("create table t (a char(20) binary not null, b text binary, c binary(3))"),
            "create table t (a char(20) COLLATE `binary attribute` not null, \
             b text COLLATE `binary attribute`, c binary(3))"
        );
        assert_eq!(
            respelled("create table t (a varchar(5) character set latin1 binary)"),
            "create table t (a varchar(5) character set latin1 COLLATE `binary attribute`)"
        );
        assert_eq!(
            respelled("create table t (a varchar(5) charset latin1) default charset=utf8mb4"),
            "create table t (a varchar(5) CHARACTER SET latin1) default charset=utf8mb4"
        );
        assert_eq!(
            respelled("alter table t add b char(4) binary, modify a text binary"),
            "alter table t add b char(4) COLLATE `binary attribute`, \
             modify a text COLLATE `binary attribute`"
        );
        assert_eq!(
            respelled("create table t (a char(3) ascii, b varchar(4) unicode binary, c char(2) binary ascii, d char(1) byte, e char(1) character set ascii)"),
            "create table t (a char(3) CHARACTER SET latin1, b varchar(4) CHARACTER SET ucs2 COLLATE `binary attribute`, \
             c char(2) COLLATE `binary attribute` CHARACTER SET latin1, d char(1) CHARACTER SET binary, e char(1) character set ascii)"
        );
        // A BINARY cast or literal stays.
        let kept = "create table t (a int default (cast(1 as binary)), b blob default binary 'x')";
        assert_eq!(respelled(kept), kept);
    }
}
