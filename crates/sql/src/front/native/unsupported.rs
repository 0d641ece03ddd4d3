//! Statement modifiers Basalt accepts and skips where MariaDB does nothing with
//! them either.

use super::Token;

/// Modifiers that may follow UPDATE / DELETE: LOW_PRIORITY and QUICK do nothing
/// for transactional tables in MariaDB either (they concern table-level locks and
/// MyISAM's index merging), IGNORE does.
pub fn dml_modifiers(src: &str, toks: &[Token]) -> usize {
    let Some(first) = toks.first() else { return 0 };
    let delete = first.is_kw(src, "delete");
    if !(delete || first.is_kw(src, "update")) {
        return 0;
    }
    toks[1..]
        .iter()
        .take_while(|t| {
            t.is_kw(src, "low_priority")
                || t.is_kw(src, "ignore")
                || (delete && t.is_kw(src, "quick"))
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::super::super::lexer::lex;
    use super::*;

    #[test]
    fn dml_modifiers_are_counted() {
        let n = |s: &str| dml_modifiers(s, &lex(s).tokens);
        assert_eq!(n("update low_priority t set a = 1"), 1);
        assert_eq!(n("delete low_priority quick ignore from t"), 3);
        assert_eq!(n("update t set a = 1"), 0);
        assert_eq!(n("select ignore from t"), 0);
        assert_eq!(n("update quick set a = 1"), 0, "a table named quick");
    }
}
