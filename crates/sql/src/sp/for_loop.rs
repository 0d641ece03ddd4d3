//! MariaDB's integer FOR loop, read into the nodes the compiler has:
//!
//! ```text
//! [label:] FOR i IN [REVERSE] lower .. upper DO body END FOR [label]
//! ```
//!
//! becomes a block declaring `i` (an INT NOT NULL holding the first value,
//! then stepped back once) and the far bound (evaluated once, as MariaDB
//! does), holding a loop that steps `i`, leaves past the bound (or when it is
//! NULL) and runs the body. A NULL first value or bound is MariaDB's 1048. ITERATE
//! goes to the step, LEAVE out of the loop. The bound's name has a space, so
//! no program can name it.
//!
//! ```text
//! [label:] FOR rec IN {cursor [(args)] | (query)} DO body END FOR [label]
//! ```
//!
//! reads each row of the cursor (opened and closed by the loop) or query
//! into the record `rec` ([`Node::ForRows`], compiled in `compile_row.rs`).

use super::parse::{CondRef, Decl, Node, Parser, RowsOf};
use basalt_common::MySqlError;

type R<T> = Result<T, MySqlError>;

impl Parser<'_> {
    /// After `FOR`.
    pub(super) fn for_loop(&mut self, label: Option<String>) -> R<Node> {
        let id = self.pos;
        let var = self.ident()?;
        self.expect("in")?;
        let at = self.pos;
        let reverse = self.kw("reverse");
        let range = self.expr_until(&["do"])?;
        let Some((lower, upper)) = split_range(&range) else {
            if reverse {
                return Err(self.err());
            }
            self.pos = at;
            return self.for_rows(label, var);
        };
        self.expect("do")?;
        let body = self.list()?;
        self.expect("end")?;
        self.expect("for")?;
        self.end_label(&label)?;
        let bound_name = format!("for {id} bound");
        let bound = format!("`{bound_name}`");
        let loop_label = label.unwrap_or_else(|| format!("for {id}"));
        let (start, far, step, back, past) = if reverse {
            (upper, lower, "-", "+", "<")
        } else {
            (lower, upper, "+", "-", ">")
        };
        let mut steps = vec![
            Node::Set(vec![(var.clone(), format!("{var} {step} 1"))]),
            Node::If {
                branches: vec![(
                    format!("{var} {past} {bound} OR {var} IS NULL OR {bound} IS NULL"),
                    vec![Node::Leave(loop_label.clone())],
                )],
                otherwise: None,
            },
        ];
        steps.extend(body);
        // The first value converts as MariaDB converts it (1366, 1048), then
        // steps back once for the loop's first step.
        let back = Node::Set(vec![(var.clone(), format!("{var} {back} 1"))]);
        let not_null = [null_check(&var, &var), null_check(&bound, "[target_bound]")];
        Ok(Node::Block {
            label: None,
            decls: vec![
                Decl::Var {
                    names: vec![var],
                    type_text: "INT NOT NULL".into(),
                    default: Some(start.to_string()),
                },
                Decl::Var {
                    names: vec![bound_name],
                    type_text: "INT".into(),
                    default: Some(far.to_string()),
                },
            ],
            body: not_null
                .into_iter()
                .chain([
                    back,
                    Node::Loop {
                        label: Some(loop_label),
                        body: steps,
                    },
                ])
                .collect(),
        })
    }
}

impl Parser<'_> {
    /// FOR over a cursor or a query, after `IN`.
    fn for_rows(&mut self, label: Option<String>, var: String) -> R<Node> {
        let start = self.peek().ok_or_else(|| self.err())?.start;
        let source = if self.peek().is_some_and(|t| t.text(self.src) == "(") {
            let query = self.expr_until(&["do"])?;
            self.check(start, &query, "")?;
            RowsOf::Query(query)
        } else {
            let cursor = self.ident()?;
            RowsOf::Cursor(cursor, self.open_args()?)
        };
        self.expect("do")?;
        let body = self.list()?;
        self.expect("end")?;
        self.expect("for")?;
        self.end_label(&label)?;
        Ok(Node::ForRows {
            label,
            var,
            source,
            body,
        })
    }
}

/// `lower .. upper` (outside quotes and parentheses); `None` for a cursor
/// name or a query.
fn split_range(text: &str) -> Option<(&str, &str)> {
    let b = text.as_bytes();
    let (mut depth, mut quote) = (0i32, None::<u8>);
    for i in 0..b.len() {
        match (quote, b[i]) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, c @ (b'\'' | b'"' | b'`')) => quote = Some(c),
            (None, b'(') => depth += 1,
            (None, b')') => depth -= 1,
            (None, b'.') if depth == 0 && b.get(i + 1) == Some(&b'.') => {
                let (l, u) = (text[..i].trim(), text[i + 2..].trim());
                return (!l.is_empty() && !u.is_empty()).then_some((l, u));
            }
            _ => {}
        }
    }
    None
}

/// MariaDB's error for a NULL bound (1048, naming the loop variable for the
/// first value and `[target_bound]` for the other): a SIGNAL of the same
/// errno and SQLSTATE, which handlers catch as they would the error.
fn null_check(var: &str, column: &str) -> Node {
    let message = format!("'Column ''{}'' cannot be null'", column.replace('\'', "''"));
    Node::If {
        branches: vec![(
            format!("{var} IS NULL"),
            vec![Node::Signal {
                resignal: false,
                cond: Some(CondRef::SqlState("23000".into())),
                items: vec![
                    ("MYSQL_ERRNO".into(), "1048".into()),
                    ("MESSAGE_TEXT".into(), message),
                ],
            }],
        )],
        otherwise: None,
    }
}

#[cfg(test)]
mod tests {
    use super::split_range;

    #[test]
    fn ranges_split_at_the_double_dot() {
        assert_eq!(split_range("1..10"), Some(("1", "10")));
        assert_eq!(split_range("a + 1 .. (b)"), Some(("a + 1", "(b)")));
        assert_eq!(split_range("'..' .. 3"), Some(("'..'", "3")));
        assert_eq!(split_range("cur"), None);
        assert_eq!(split_range("(select 1..2)"), None);
    }
}
