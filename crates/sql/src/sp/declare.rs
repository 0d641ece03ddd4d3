//! DECLARE (variables, conditions, cursors, handlers) and the statements that
//! use them (OPEN, FETCH, CLOSE, SIGNAL, RESIGNAL).
//!
//! ```text
//! DECLARE name [, name] type [DEFAULT expr]
//! DECLARE name CONDITION FOR {SQLSTATE [VALUE] 'state' | errno}
//! DECLARE name CURSOR FOR select
//! DECLARE {CONTINUE | EXIT} HANDLER FOR condition [, condition] statement
//! condition: SQLSTATE [VALUE] 'state' | errno | name | SQLWARNING | NOT FOUND | SQLEXCEPTION
//! OPEN c | CLOSE c | FETCH [[NEXT] FROM] c INTO var [, var]
//! {SIGNAL | RESIGNAL} [condition] [SET item = expr [, ...]]
//! ```
//! Variables and conditions come first in a block, then cursors, then
//! handlers (1337 / 1338 otherwise, as MariaDB).

use super::parse::{CondRef, Decl, Node, Parser};
use crate::front::lexer::TokKind;
use basalt_common::MySqlError;

type R<T> = Result<T, MySqlError>;

impl Parser<'_> {
    /// The DECLAREs at the start of a block, each with its `;`.
    pub(super) fn declarations(&mut self) -> R<Vec<Decl>> {
        let mut out = Vec::new();
        // 0: variables and conditions, 1: cursors, 2: handlers.
        let mut stage = 0;
        while self.kw("declare") {
            let d = self.declare()?;
            let kind = match d {
                Decl::Var { .. }
                | Decl::Row { .. }
                | Decl::TypeOf { .. }
                | Decl::Condition { .. } => 0,
                Decl::Cursor { .. } => 1,
                Decl::Handler { .. } => 2,
            };
            if kind < stage {
                return Err(match kind {
                    0 => MySqlError::new(
                        1337,
                        "42000",
                        "Variable or condition declaration after cursor or handler declaration",
                    ),
                    _ => MySqlError::new(
                        1338,
                        "42000",
                        "Cursor declaration after handler declaration",
                    ),
                });
            }
            stage = kind;
            out.push(d);
            self.semi()?;
        }
        Ok(out)
    }

    fn declare(&mut self) -> R<Decl> {
        let handler = ["continue", "exit", "undo"].iter().any(|k| self.is(k))
            && self
                .toks
                .get(self.pos + 1)
                .is_some_and(|t| t.is_kw(self.src, "handler"));
        if handler {
            return self.handler();
        }
        let mut names = vec![self.ident()?];
        if self.kw("condition") {
            self.expect("for")?;
            let value = self.condition_value()?;
            return Ok(Decl::Condition {
                name: names.remove(0),
                value,
            });
        }
        if self.kw("cursor") {
            let params = if self.punct("(") {
                let params = self.parenthesised()?;
                super::parse_params(&params, true)?
            } else {
                Vec::new()
            };
            self.expect("for")?;
            let query = self.rest_of_statement()?;
            return Ok(Decl::Cursor {
                name: names.remove(0),
                params,
                query,
            });
        }
        while self.peek().is_some_and(|t| t.text(self.src) == ",") {
            self.pos += 1;
            names.push(self.ident()?);
        }
        if self.is("row") || self.is("type") {
            return self.row_declaration(names);
        }
        let start = self.peek().ok_or_else(|| self.err())?.start;
        let mut end = start;
        while let Some(t) = self.peek() {
            if t.kind == TokKind::Semi || t.is_kw(self.src, "default") {
                break;
            }
            end = t.end;
            self.pos += 1;
        }
        if end == start {
            return Err(self.err());
        }
        let default = if self.kw("default") {
            Some(self.expr(&[])?)
        } else {
            None
        };
        Ok(Decl::Var {
            names,
            type_text: self.src[start..end].to_string(),
            default,
        })
    }

    fn handler(&mut self) -> R<Decl> {
        if self.kw("undo") {
            return Err(MySqlError::not_supported("UNDO handlers"));
        }
        let exit = self.kw("exit");
        if !exit {
            self.expect("continue")?;
        }
        self.expect("handler")?;
        self.expect("for")?;
        let mut conds = vec![self.condition()?];
        while self.peek().is_some_and(|t| t.text(self.src) == ",") {
            self.pos += 1;
            conds.push(self.condition()?);
        }
        let body = Box::new(self.line_statement()?);
        Ok(Decl::Handler { exit, conds, body })
    }

    /// A condition of HANDLER FOR.
    fn condition(&mut self) -> R<CondRef> {
        if self.kw("sqlwarning") {
            return Ok(CondRef::SqlWarning);
        }
        if self.kw("sqlexception") {
            return Ok(CondRef::SqlException);
        }
        if self.is("not")
            && self
                .toks
                .get(self.pos + 1)
                .is_some_and(|t| t.is_kw(self.src, "found"))
        {
            self.pos += 2;
            return Ok(CondRef::NotFound);
        }
        if self.is("sqlstate")
            || self
                .peek()
                .is_some_and(|t| matches!(t.kind, TokKind::Num(_)))
        {
            return self.condition_value();
        }
        Ok(CondRef::Name(self.ident()?))
    }

    /// `SQLSTATE [VALUE] 'xxxxx'` or an error number.
    fn condition_value(&mut self) -> R<CondRef> {
        if self.kw("sqlstate") {
            self.kw("value");
            let t = *self.peek().ok_or_else(|| self.err())?;
            if t.kind != TokKind::Str {
                return Err(self.err());
            }
            self.pos += 1;
            let state = t.text(self.src);
            let state = state[1..state.len() - 1].to_string();
            let valid = state.len() == 5
                && state.bytes().all(|b| b.is_ascii_alphanumeric())
                && !state.starts_with("00");
            if !valid {
                return Err(MySqlError::new(
                    1407,
                    "42000",
                    format!("Bad SQLSTATE: '{state}'"),
                ));
            }
            return Ok(CondRef::SqlState(state));
        }
        let t = *self.peek().ok_or_else(|| self.err())?;
        let n: u16 = t.text(self.src).parse().map_err(|_| self.err())?;
        if n == 0 {
            return Err(self.err());
        }
        self.pos += 1;
        Ok(CondRef::Errno(n))
    }

    /// Consumes `p` if it is the next token.
    pub(super) fn punct(&mut self, p: &str) -> bool {
        let yes = self
            .peek()
            .is_some_and(|t| t.kind == TokKind::Punct && t.text(self.src) == p);
        if yes {
            self.pos += 1;
        }
        yes
    }

    /// The text up to the `)` closing the `(` just read, which it consumes.
    pub(super) fn parenthesised(&mut self) -> R<String> {
        let start = self.peek().ok_or_else(|| self.err())?.start;
        let mut depth = 0;
        while let Some(t) = self.peek() {
            match t.text(self.src) {
                ")" if depth == 0 => {
                    let text = self.src[start..t.start].to_string();
                    self.pos += 1;
                    return Ok(text);
                }
                ")" => depth -= 1,
                "(" => depth += 1,
                _ if t.kind == TokKind::Semi => break,
                _ => {}
            }
            self.pos += 1;
        }
        Err(self.err())
    }

    /// OPEN's arguments: `(expr, ...)`, or none.
    pub(super) fn open_args(&mut self) -> R<Vec<String>> {
        let mut args = Vec::new();
        if !self.punct("(") {
            return Ok(args);
        }
        if self.punct(")") {
            return Ok(args);
        }
        loop {
            args.push(self.expr(&[",", ")"])?);
            if self.punct(")") {
                return Ok(args);
            }
            if !self.punct(",") {
                return Err(self.err());
            }
        }
    }

    /// The text up to the statement's `;`.
    fn rest_of_statement(&mut self) -> R<String> {
        let start = self.peek().ok_or_else(|| self.err())?.start;
        let mut end = start;
        while let Some(t) = self.peek() {
            if t.kind == TokKind::Semi {
                break;
            }
            end = t.end;
            self.pos += 1;
        }
        Ok(self.src[start..end].to_string())
    }

    /// OPEN / FETCH / CLOSE / SIGNAL / RESIGNAL, if the statement is one.
    pub(super) fn cursor_or_signal(&mut self) -> R<Option<Node>> {
        let node = if self.kw("open") {
            Node::Open {
                cursor: self.ident()?,
                args: self.open_args()?,
            }
        } else if self.kw("close") {
            Node::Close(self.ident()?)
        } else if self.kw("fetch") {
            if self.kw("next") {
                self.expect("from")?;
            } else {
                self.kw("from");
            }
            let cursor = self.ident()?;
            self.expect("into")?;
            let mut vars = vec![self.ident()?];
            while self.peek().is_some_and(|t| t.text(self.src) == ",") {
                self.pos += 1;
                vars.push(self.ident()?);
            }
            Node::Fetch { cursor, vars }
        } else if self.is("signal") || self.is("resignal") {
            let resignal = self.is("resignal");
            self.pos += 1;
            let cond = if self.is("set") || self.at_end() {
                if !resignal {
                    return Err(self.err());
                }
                None
            } else if self.is("sqlstate") {
                Some(self.condition_value()?)
            } else {
                Some(CondRef::Name(self.ident()?))
            };
            let mut items = Vec::new();
            if self.kw("set") {
                loop {
                    let item = self.ident()?.to_ascii_uppercase();
                    if self.peek().is_none_or(|t| t.text(self.src) != "=") {
                        return Err(self.err());
                    }
                    self.pos += 1;
                    let value = self.expr(&[","])?;
                    items.push((item, value));
                    if self.peek().is_none_or(|t| t.text(self.src) != ",") {
                        break;
                    }
                    self.pos += 1;
                }
            }
            Node::Signal {
                resignal,
                cond,
                items,
            }
        } else {
            return Ok(None);
        };
        Ok(Some(node))
    }

    fn at_end(&self) -> bool {
        self.peek().is_none_or(|t| t.kind == TokKind::Semi)
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse_body;
    use super::*;

    #[test]
    fn declarations_in_order() {
        let tree = parse_body(
            "begin declare a int; declare nf condition for sqlstate '02000'; \
             declare c cursor for select id from t where id > a; \
             declare continue handler for nf, 1062, sqlexception set a = 1; \
             open c; fetch next from c into a; close c; \
             signal sqlstate '45000' set message_text = 'bad', mysql_errno = 1234; end",
        )
        .expect("test declaration parses");
        let Node::Block { decls, body, .. } = tree.bare() else {
            panic!()
        };
        assert_eq!(decls.len(), 4);
        let Decl::Handler { exit, conds, .. } = &decls[3] else {
            panic!()
        };
        assert!(!exit);
        assert_eq!(
            conds,
            &[
                CondRef::Name("nf".into()),
                CondRef::Errno(1062),
                CondRef::SqlException
            ]
        );
        assert_eq!(
            decls[2],
            Decl::Cursor {
                name: "c".into(),
                params: Vec::new(),
                query: "select id from t where id > a".into()
            }
        );
        assert_eq!(
            *body[1].bare(),
            Node::Fetch {
                cursor: "c".into(),
                vars: vec!["a".into()]
            }
        );
        let Node::Signal { items, .. } = body[3].bare() else {
            panic!()
        };
        assert_eq!(items[0], ("MESSAGE_TEXT".into(), "'bad'".into()));
    }

    #[test]
    fn declaration_errors() {
        let e = |b: &str| parse_body(b).unwrap_err().code;
        assert_eq!(
            e("begin declare c cursor for select 1; declare a int; end"),
            1337
        );
        assert_eq!(
            e("begin declare exit handler for sqlexception begin end; declare c cursor for select 1; end"),
            1338
        );
        assert_eq!(
            e("begin declare x condition for sqlstate '00000'; end"),
            1407
        );
    }
}
