//! Statements Basalt recognises only to refuse them with errno 1235
//! (ER_NOT_SUPPORTED_YET) naming the feature, instead of a syntax error or, worse,
//! an OK that does nothing.
//!
//! Accounts: roles do not exist yet, so the statements that create, drop or set
//! them are refused (account statements are parsed in [`super::account`]).

use super::Token;

/// The feature an account-management statement needs, when `toks` is one.
pub fn account_statement(src: &str, toks: &[Token]) -> Option<&'static str> {
    let first = toks.first()?;
    // Almost every statement is none of these: decide on the first word's length
    // and first letter before comparing words.
    let word = first.text(src).as_bytes();
    let plausible = matches!(
        (word.len(), word.first().map(|b| b | 0x20)),
        (5, Some(b'g' | b'a')) | (6, Some(b'r' | b'c')) | (4, Some(b'd')) | (3, Some(b's'))
    );
    if !plausible {
        return None;
    }
    let kw = |i: usize, k: &str| toks.get(i).is_some_and(|t| t.is_kw(src, k));
    let is = |k: &str| first.is_kw(src, k);
    // CREATE [OR REPLACE] USER|ROLE
    let create_at = if kw(1, "or") && kw(2, "replace") {
        3
    } else {
        1
    };
    if is("create") && kw(create_at, "role") {
        return Some("CREATE ROLE");
    }
    if is("drop") && kw(1, "role") {
        return Some("DROP ROLE");
    }
    if is("set") && kw(1, "role") {
        return Some("SET ROLE");
    }
    if is("set") && kw(1, "default") && kw(2, "role") {
        return Some("SET DEFAULT ROLE");
    }
    None
}

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

    fn what(s: &str) -> Option<&'static str> {
        account_statement(s, &lex(s).tokens)
    }

    #[test]
    fn role_statements_are_named() {
        assert_eq!(what("CREATE ROLE r"), Some("CREATE ROLE"));
        assert_eq!(what("create or replace role r"), Some("CREATE ROLE"));
        assert_eq!(what("drop role r"), Some("DROP ROLE"));
        assert_eq!(what("set role none"), Some("SET ROLE"));
        assert_eq!(what("set default role none"), Some("SET DEFAULT ROLE"));
        assert_eq!(what("GRANT SELECT ON *.* TO 'u'@'%'"), None);
        assert_eq!(what("set default_storage_engine = innodb"), None);
        assert_eq!(what("create table user (a int)"), None);
        assert_eq!(what("drop table role"), None);
    }

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
