//! Where a compound statement ends. A stored program's body holds statements
//! separated by `;`, so a text with CREATE PROCEDURE / FUNCTION / TRIGGER /
//! EVENT or an anonymous `BEGIN NOT ATOMIC` block is split at the `;` that
//! follows its last END, not at the first `;` (the `mariadb` client sends such a
//! statement whole after a `DELIMITER` change).
//!
//! Blocks open with BEGIN, CASE, and IF / LOOP / WHILE / REPEAT where a
//! statement starts; END closes one (with the IF / LOOP / ... that may follow it).

use super::lexer::{TokKind, Token};

/// Whether the statement at `toks` (its first token first) is a compound
/// statement or defines a stored program.
pub fn starts_compound(src: &str, toks: &[Token]) -> bool {
    let kw = |i: usize, k: &str| toks.get(i).is_some_and(|t| t.is_kw(src, k));
    if kw(0, "begin") && kw(1, "not") && kw(2, "atomic") {
        return true;
    }
    // `label: BEGIN` and the loops MariaDB runs outside programs.
    if toks.get(1).is_some_and(|t| t.text(src) == ":") && toks[0].kind == TokKind::Word {
        return true;
    }
    if ["if", "loop", "while", "repeat", "case", "for"]
        .iter()
        .any(|k| kw(0, k))
        && !toks
            .get(1)
            .is_some_and(|t| t.kind == TokKind::Punct && t.text(src) == "=")
    {
        // `IF ... THEN`, not a statement that merely starts with the word.
        return toks
            .iter()
            .any(|t| t.is_kw(src, "then") || t.is_kw(src, "do") || t.is_kw(src, "until"))
            || kw(0, "loop");
    }
    if !kw(0, "create") {
        return false;
    }
    program_keyword(src, toks).is_some()
}

/// The PROCEDURE / FUNCTION / TRIGGER / EVENT keyword's index in a CREATE
/// statement's head (after OR REPLACE, DEFINER = ..., AGGREGATE).
pub fn program_keyword(src: &str, toks: &[Token]) -> Option<usize> {
    for (i, t) in toks.iter().enumerate().take(16).skip(1) {
        if ["procedure", "function", "trigger", "event"]
            .iter()
            .any(|k| t.is_kw(src, k))
        {
            return Some(i);
        }
        let head = t.kind == TokKind::Word
            && ["or", "replace", "definer", "aggregate", "current_user"]
                .iter()
                .any(|k| t.is_kw(src, k));
        let account = matches!(t.kind, TokKind::Str | TokKind::QuotedIdent | TokKind::Var)
            || (t.kind == TokKind::Punct && matches!(t.text(src), "=" | "@" | "(" | ")"))
            || (t.kind == TokKind::Word && toks[i - 1].text(src) == "=");
        if !head && !account {
            return None;
        }
    }
    None
}

/// The index of the `;` token that ends the compound statement starting at
/// `toks[0]`, or `toks.len()` when it runs to the end.
pub fn end_of(src: &str, toks: &[Token]) -> usize {
    let mut depth = 0usize;
    let mut at_start = true;
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        if t.kind == TokKind::Semi {
            if depth == 0 {
                return i;
            }
            at_start = true;
            i += 1;
            continue;
        }
        let opens = t.is_kw(src, "begin")
            || t.is_kw(src, "case")
            || (at_start
                && ["if", "loop", "while", "repeat", "for"]
                    .iter()
                    .any(|k| t.is_kw(src, k)));
        if opens {
            depth += 1;
        } else if t.is_kw(src, "end") && depth > 0 {
            depth -= 1;
            let closes_kind = toks.get(i + 1).is_some_and(|n| {
                ["if", "loop", "while", "repeat", "case", "for"]
                    .iter()
                    .any(|k| n.is_kw(src, k))
            });
            if closes_kind {
                i += 1;
            }
        }
        at_start = t.kind == TokKind::Word
            && ["begin", "then", "else", "do", "loop", "repeat", "atomic"]
                .iter()
                .any(|k| t.is_kw(src, k))
            || (t.kind == TokKind::Punct && t.text(src) == ":");
        i += 1;
    }
    toks.len()
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn end(s: &str) -> &str {
        let l = lex(s);
        let i = end_of(s, &l.tokens);
        match l.tokens.get(i) {
            Some(t) => &s[..t.start],
            None => s,
        }
    }

    #[test]
    fn blocks_hold_their_semicolons() {
        let p = "create procedure p() begin if a then select 1; else select 2; end if; \
                 while x do set x = x - 1; end while; select case when 1 then 2 end; end";
        assert!(starts_compound(p, &lex(p).tokens));
        assert_eq!(end(&format!("{p}; select 3")), p);
        let b = "begin not atomic l: loop leave l; end loop; end";
        assert!(starts_compound(b, &lex(b).tokens));
        assert_eq!(end(&format!("{b};select 1")), b);
        let f = "create definer=`root`@`%` function f() returns int return 1";
        assert!(starts_compound(f, &lex(f).tokens));
        assert_eq!(end(&format!("{f};select 1")), f);
    }

    #[test]
    fn plain_statements_are_not_compound() {
        for s in [
            "begin",
            "begin work",
            "create table t (a int)",
            "select if(a, 1, 2) from t",
            "create or replace view v as select 1",
        ] {
            assert!(!starts_compound(s, &lex(s).tokens), "{s}");
        }
    }
}
