//! MariaDB's ROW and TYPE OF variables, read from DECLARE:
//!
//! ```text
//! DECLARE r [, r] ROW (field type, ...) [DEFAULT ROW(expr, ...) | DEFAULT row_var]
//! DECLARE r [, r] ROW TYPE OF {cursor | [db.]table}
//! DECLARE v [, v] TYPE OF {var | [db.]table.column} [DEFAULT expr]
//! ```
//!
//! A ROW variable is one slot per field, named `r.field` in the scope (so
//! `r.field` binds to its slot as a variable does, and `FETCH c INTO r` or
//! `SELECT ... INTO r` fill the fields in order). The fields of `ROW TYPE OF`
//! and of a FOR loop's record take the types of a table's columns or of a
//! query's result, resolved when the program is compiled (each CALL, or when a
//! statement calling a function binds), as MariaDB resolves them when the
//! declaration runs; a table or query that cannot be resolved then raises its
//! error when the declaration runs.

use super::parse::{Decl, Parser, RowOf};
use super::ParamDef;
use basalt_common::MySqlError;

type R<T> = Result<T, MySqlError>;

impl Parser<'_> {
    /// After `DECLARE names`, at ROW or TYPE.
    pub(super) fn row_declaration(&mut self, names: Vec<String>) -> R<Decl> {
        let row = self.kw("row");
        let of = if self.kw("type") {
            self.expect("of")?;
            Some(self.dotted()?)
        } else {
            None
        };
        let fields = match (row, &of) {
            (true, None) => {
                if !self.punct("(") {
                    return Err(self.err());
                }
                let text = self.parenthesised()?;
                if text.trim().is_empty() {
                    return Err(self.err());
                }
                Some(super::parse_params(&text, true)?)
            }
            _ => None,
        };
        let default = if self.kw("default") {
            Some(self.expr(&[])?)
        } else {
            None
        };
        Ok(match (row, of, fields) {
            (true, Some(of), _) if of.len() <= 2 => Decl::Row {
                names,
                of: RowOf::Named(of),
                default,
            },
            (true, None, Some(f)) => Decl::Row {
                names,
                of: RowOf::Fields(f),
                default,
            },
            (false, Some(of), _) if of.len() <= 3 => Decl::TypeOf { names, of, default },
            _ => return Err(self.err()),
        })
    }

    /// `name [. name ...]`.
    fn dotted(&mut self) -> R<Vec<String>> {
        let mut parts = vec![self.ident()?];
        while self.punct(".") {
            parts.push(self.ident()?);
        }
        Ok(parts)
    }
}

/// The field slots of the innermost row variable `name` among `vars`
/// (lower-case scope names, fields named `row.field`, declared together);
/// `None` when the innermost `name` is no row.
pub fn row_fields(vars: &[(String, usize)], name: &str) -> Option<Vec<usize>> {
    let lower = name.to_lowercase();
    let prefix = format!("{lower}.");
    let last = vars
        .iter()
        .rposition(|(n, _)| *n == lower || n.starts_with(&prefix))
        .filter(|i| vars[*i].0 != lower)?;
    let first = vars[..=last]
        .iter()
        .rposition(|(n, _)| !n.starts_with(&prefix))
        .map_or(0, |i| i + 1);
    Some(vars[first..=last].iter().map(|(_, s)| *s).collect())
}

/// `r.f` / `` `r`.`f` `` as a SET target: (row, field).
pub fn field_target(target: &str) -> Option<(String, String)> {
    let (row, field) = target.split_once('.')?;
    let clean = |s: &str| {
        let s = s.trim();
        s.strip_prefix('`')
            .and_then(|q| q.strip_suffix('`'))
            .map_or(s.to_string(), |q| q.replace("``", "`"))
    };
    let (row, field) = (clean(row), clean(field));
    (!row.is_empty() && !field.is_empty() && !field.contains('.')).then_some((row, field))
}

/// The parts of a `ROW(a, b, ...)` value, if the text is one.
pub fn row_constructor(text: &str) -> Option<Vec<String>> {
    let t = text.trim();
    let rest = t.get(..3).filter(|h| h.eq_ignore_ascii_case("row"))?;
    let inner = t[rest.len()..]
        .trim_start()
        .strip_prefix('(')?
        .strip_suffix(')')?;
    // The closing parenthesis must be ROW's own.
    let mut depth = 0i32;
    let mut quote = None::<u8>;
    for &b in inner.as_bytes() {
        match (quote, b) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, c @ (b'\'' | b'"' | b'`')) => quote = Some(c),
            (None, b'(') => depth += 1,
            (None, b')') => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
            }
            _ => {}
        }
    }
    Some(
        crate::front::native::routine::split_commas(inner)
            .into_iter()
            .map(|s| s.trim().to_string())
            .collect(),
    )
}

/// 1241: a value of the wrong number of columns.
pub fn operand_columns(n: usize) -> MySqlError {
    MySqlError::new(
        1241,
        "21000",
        format!("Operand should contain {n} column(s)"),
    )
}

/// 4082: `r.f` names no field of row variable `r`.
pub fn no_field(row: &str, field: &str) -> MySqlError {
    MySqlError::new(
        4082,
        "HY000",
        format!("Row variable '{row}' does not have a field '{field}'"),
    )
}

/// The fields of `ROW (name type, ...)` as (name, type text); 1330 for a
/// repeated name was given by [`super::parse_params`].
pub fn declared_fields(fields: &[ParamDef]) -> Vec<(String, String)> {
    fields
        .iter()
        .map(|f| (f.name.clone(), f.type_text.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sp::parse::{parse_body, Node};

    #[test]
    fn declarations() {
        let tree = parse_body(
            "begin declare r row(a int, b varchar(10)) default row(1, 'x'); \
             declare s, s2 row type of db.t; declare v type of t.c default 3; \
             declare w type of v; end",
        )
        .expect("test declarations parse");
        let Node::Block { decls, .. } = tree.bare() else {
            panic!()
        };
        assert!(
            matches!(&decls[0], Decl::Row { of: RowOf::Fields(f), default: Some(d), .. } if f.len() == 2 && d == "row(1, 'x')")
        );
        assert!(
            matches!(&decls[1], Decl::Row { names, of: RowOf::Named(n), .. } if names.len() == 2 && n == &["db", "t"])
        );
        assert!(matches!(&decls[2], Decl::TypeOf { of, .. } if of == &["t", "c"]));
        assert!(matches!(&decls[3], Decl::TypeOf { of, default: None, .. } if of == &["v"]));
        let e = |b: &str| parse_body(b).unwrap_err().code;
        assert_eq!(e("begin declare r row(); end"), 1064);
        assert_eq!(e("begin declare r row type of a.b.c; end"), 1064);
        assert_eq!(e("begin declare r row(a int, A int); end"), 1330);
    }

    #[test]
    fn helpers() {
        let vars: Vec<(String, usize)> = [("r.a", 0), ("r.b", 1), ("x", 2), ("r.c", 3)]
            .iter()
            .map(|(n, s)| (n.to_string(), *s))
            .collect();
        assert_eq!(row_fields(&vars, "R"), Some(vec![3]));
        assert_eq!(row_fields(&vars[..3], "r"), Some(vec![0, 1]));
        assert_eq!(row_fields(&vars, "x"), None);
        let shadowed = [("r.a".to_string(), 0), ("r".to_string(), 1)];
        assert_eq!(row_fields(&shadowed, "r"), None);
        assert_eq!(field_target("`r` . `a`"), Some(("r".into(), "a".into())));
        assert_eq!(field_target("r"), None);
        assert_eq!(
            row_constructor("ROW (1, f(2, 3), ')')"),
            Some(vec!["1".into(), "f(2, 3)".into(), "')'".into()])
        );
        assert_eq!(row_constructor("row(1) + row(2)"), None);
        assert_eq!(row_constructor("rowx(1)"), None);
    }
}
