//! The stored-program language, read from a body's text into a tree. SQL
//! statements and expressions inside it stay text (spans of the body) and are
//! parsed by the statement front end when they first run; only the control
//! structure is read here.
//!
//! ```text
//! stmt: [label:] BEGIN [NOT ATOMIC] [decl; ...] [stmt; ...] END [label]
//!     | [label:] LOOP stmt; ... END LOOP [label]
//!     | [label:] WHILE expr DO stmt; ... END WHILE [label]
//!     | [label:] REPEAT stmt; ... UNTIL expr END REPEAT [label]
//!     | IF expr THEN stmt; ... [ELSEIF expr THEN ...] [ELSE ...] END IF
//!     | CASE [expr] WHEN expr THEN stmt; ... [ELSE ...] END CASE
//!     | LEAVE label | ITERATE label | RETURN expr
//!     | SET target = expr [, ...] | any other SQL statement
//! decl: DECLARE name [, name ...] type [DEFAULT expr]
//! ```

use crate::front::lexer::{lex, TokKind, Token};
use basalt_common::MySqlError;

type R<T> = Result<T, MySqlError>;

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Block {
        label: Option<String>,
        decls: Vec<Decl>,
        body: Vec<Node>,
    },
    Loop {
        label: Option<String>,
        body: Vec<Node>,
    },
    While {
        label: Option<String>,
        cond: String,
        body: Vec<Node>,
    },
    Repeat {
        label: Option<String>,
        body: Vec<Node>,
        until: String,
    },
    If {
        branches: Vec<(String, Vec<Node>)>,
        otherwise: Option<Vec<Node>>,
    },
    Case {
        operand: Option<String>,
        whens: Vec<(String, Vec<Node>)>,
        otherwise: Option<Vec<Node>>,
    },
    Leave(String),
    Iterate(String),
    Return(String),
    /// `SET a = x, @b = y`: (target as written, value expression).
    Set(Vec<(String, String)>),
    /// Any other statement, as text.
    Sql(String),
    /// OPEN cursor [(arg, ...)].
    Open {
        cursor: String,
        args: Vec<String>,
    },
    Close(String),
    Fetch {
        cursor: String,
        vars: Vec<String>,
    },
    /// SIGNAL / RESIGNAL: the condition (none: RESIGNAL's caught one) and the
    /// `SET item = expr` list.
    Signal {
        resignal: bool,
        cond: Option<CondRef>,
        items: Vec<(String, String)>,
    },
    /// MariaDB's FOR over a cursor or a query: each row into the record
    /// `var` (its fields `var.name`), then the body.
    ForRows {
        label: Option<String>,
        var: String,
        source: RowsOf,
        body: Vec<Node>,
    },
    /// A statement and the line of the body it starts on (from 1).
    Line(u32, Box<Node>),
}

/// What a FOR loop reads rows from.
#[derive(Debug, Clone, PartialEq)]
pub enum RowsOf {
    /// A declared cursor with OPEN's arguments.
    Cursor(String, Vec<String>),
    /// A query in parentheses (an implicit cursor).
    Query(String),
}

/// The fields of a ROW variable.
#[derive(Debug, Clone, PartialEq)]
pub enum RowOf {
    /// `ROW (name type, ...)`.
    Fields(Vec<super::ParamDef>),
    /// `ROW TYPE OF` a cursor in scope or a `[db.]table`.
    Named(Vec<String>),
}

#[cfg(test)]
impl Node {
    /// The statement without its line.
    pub fn bare(&self) -> &Node {
        match self {
            Node::Line(_, n) => n.bare(),
            n => n,
        }
    }
}

/// A condition as DECLARE ... HANDLER FOR or SIGNAL names it.
#[derive(Debug, Clone, PartialEq)]
pub enum CondRef {
    SqlState(String),
    Errno(u16),
    Name(String),
    SqlWarning,
    NotFound,
    SqlException,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Decl {
    Var {
        names: Vec<String>,
        type_text: String,
        default: Option<String>,
    },
    Condition {
        name: String,
        value: CondRef,
    },
    Cursor {
        name: String,
        /// MariaDB's cursor parameters (visible to its query only).
        params: Vec<super::ParamDef>,
        query: String,
    },
    Handler {
        exit: bool,
        conds: Vec<CondRef>,
        body: Box<Node>,
    },
    /// `DECLARE r [, r] ROW ... [DEFAULT ...]`.
    Row {
        names: Vec<String>,
        of: RowOf,
        default: Option<String>,
    },
    /// `DECLARE v [, v] TYPE OF {var | [db.]table.column} [DEFAULT ...]`.
    TypeOf {
        names: Vec<String>,
        of: Vec<String>,
        default: Option<String>,
    },
}

pub(super) struct Parser<'a> {
    pub(super) src: &'a str,
    pub(super) toks: Vec<Token>,
    pub(super) pos: usize,
    /// Lines of the CREATE statement before the body (errors name the line
    /// of the whole statement, as MariaDB's do).
    line0: u32,
    /// Statements and expressions are parsed as they are read (at CREATE).
    check: bool,
    /// The last statement start whose line was counted, and that line (lines
    /// are counted on from there: statements come in order).
    counted: (usize, u32),
}

/// Reads a routine body (one statement, often a BEGIN ... END block).
pub fn parse_body(src: &str) -> R<Node> {
    parse_body_as(src, 0, false)
}

/// [`parse_body`] at CREATE: every statement and expression is parsed too, so
/// a syntax error fails CREATE and names its line in the whole statement,
/// whose first `line0` lines come before the body.
pub fn parse_body_checked(src: &str, line0: u32) -> R<Node> {
    parse_body_as(src, line0, true)
}

fn parse_body_as(src: &str, line0: u32, check: bool) -> R<Node> {
    let toks = lex(src).tokens;
    let mut p = Parser {
        src,
        toks,
        pos: 0,
        line0,
        check,
        counted: (0, 1),
    };
    let node = p.line_statement()?;
    if let Some(t) = p.toks.get(p.pos) {
        if t.kind != TokKind::Semi || p.pos + 1 < p.toks.len() {
            return Err(p.err());
        }
    }
    Ok(node)
}

/// The syntax of a program's statement, checked at CREATE as MariaDB parses
/// the whole body then.
fn check_syntax(text: &str) -> R<()> {
    use crate::front::{analyze_with, Front, LitOpts};
    let opts = LitOpts {
        backslash: true,
        markers: false,
        pipes_as_concat: false,
    };
    match analyze_with(text, opts)? {
        Front::Native(_) => Ok(()),
        Front::Cached(s) => crate::front::parse::parse_statement(&s.original()).map(|_| ()),
        Front::Bulk(_) => Ok(()),
        Front::Parse(t) => crate::front::parse::parse_statement(&t).map(|_| ()),
    }
}

const STOP_WORDS: &[&str] = &["end", "elseif", "else", "when", "until"];

impl Parser<'_> {
    pub(super) fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos)
    }

    pub(super) fn is(&self, k: &str) -> bool {
        self.peek().is_some_and(|t| t.is_kw(self.src, k))
    }

    pub(super) fn kw(&mut self, k: &str) -> bool {
        let yes = self.is(k);
        if yes {
            self.pos += 1;
        }
        yes
    }

    pub(super) fn expect(&mut self, k: &str) -> R<()> {
        if self.kw(k) {
            Ok(())
        } else {
            Err(self.err())
        }
    }

    pub(super) fn err(&self) -> MySqlError {
        self.err_at(self.peek().map_or(self.src.len(), |t| t.start))
    }

    /// 1064 quoting the body from byte `at`, on its line of the statement.
    fn err_at(&self, at: usize) -> MySqlError {
        let at = at.min(self.src.len());
        let line = self.line0 + self.src[..at].matches('\n').count() as u32 + 1;
        MySqlError::parse_error(&self.src[at..], line)
    }

    /// At CREATE, parses `src[start..]`'s text `text` (with `prefix`, as it
    /// will run: `SELECT ` for an expression); a syntax error points into the
    /// body. A statement starting with a word that begins none (`selec x`)
    /// fails at its second token, where MariaDB's grammar (which reads the
    /// word as a label) stops.
    pub(super) fn check(&self, start: usize, text: &str, prefix: &str) -> R<()> {
        if !self.check {
            return Ok(());
        }
        let full = format!("{prefix}{text}");
        let Err(e) = check_syntax(&full) else {
            return Ok(());
        };
        if e.code != 1064 || e.message.starts_with("memory exhausted") {
            return Err(e);
        }
        let Some(off) = crate::front::parse::error_offset(&full, &e) else {
            return Err(self.err_at(start));
        };
        let off = off.saturating_sub(prefix.len());
        let toks = lex(text).tokens;
        let off = match toks.as_slice() {
            [first, second, ..] if off == 0 && prefix.is_empty() && first.kind == TokKind::Word => {
                second.start
            }
            _ => off,
        };
        Err(self.err_at(start + off))
    }

    pub(super) fn ident(&mut self) -> R<String> {
        let t = *self.peek().ok_or_else(|| self.err())?;
        let name = match t.kind {
            TokKind::Word => t.text(self.src).to_string(),
            TokKind::QuotedIdent => t.text(self.src).trim_matches('`').replace("``", "`"),
            _ => return Err(self.err()),
        };
        self.pos += 1;
        Ok(name)
    }

    pub(super) fn semi(&mut self) -> R<()> {
        match self.peek() {
            Some(t) if t.kind == TokKind::Semi => {
                self.pos += 1;
                Ok(())
            }
            _ => Err(self.err()),
        }
    }

    /// Statements each ended by `;`, up to one of `STOP_WORDS`.
    pub(super) fn list(&mut self) -> R<Vec<Node>> {
        let mut out = Vec::new();
        while !STOP_WORDS.iter().any(|k| self.is(k)) {
            if self.peek().is_none() {
                return Err(self.err());
            }
            out.push(self.line_statement()?);
            self.semi()?;
        }
        Ok(out)
    }

    fn label(&mut self) -> Option<String> {
        let t = self.peek()?;
        let colon = self
            .toks
            .get(self.pos + 1)
            .is_some_and(|c| c.kind == TokKind::Punct && c.text(self.src) == ":");
        if colon && matches!(t.kind, TokKind::Word | TokKind::QuotedIdent) {
            let name = self.ident().ok()?;
            self.pos += 1;
            return Some(name);
        }
        None
    }

    /// The optional label after END [LOOP ...]: it must be the opening one.
    pub(super) fn end_label(&mut self, label: &Option<String>) -> R<()> {
        let Some(t) = self.peek() else { return Ok(()) };
        if !matches!(t.kind, TokKind::Word | TokKind::QuotedIdent) {
            return Ok(());
        }
        let at = self.pos;
        let name = self.ident()?;
        match label {
            Some(l) if l.eq_ignore_ascii_case(&name) => Ok(()),
            _ => {
                self.pos = at;
                Err(MySqlError::new(
                    1310,
                    "42000",
                    format!("End-label {name} without match"),
                ))
            }
        }
    }

    /// A statement with the line it starts on.
    pub(super) fn line_statement(&mut self) -> R<Node> {
        let at = self.peek().map_or(self.src.len(), |t| t.start);
        let (from, line) = match self.counted {
            (from, line) if from <= at => (from, line),
            _ => (0, 1),
        };
        let line = line + self.src[from..at].matches('\n').count() as u32;
        self.counted = (at, line);
        Ok(Node::Line(line, Box::new(self.statement()?)))
    }

    pub(super) fn statement(&mut self) -> R<Node> {
        let label = self.label();
        if self.kw("begin") {
            if self.kw("not") {
                self.expect("atomic")?;
            }
            return self.block(label);
        }
        if self.kw("loop") {
            let body = self.list()?;
            self.expect("end")?;
            self.expect("loop")?;
            self.end_label(&label)?;
            return Ok(Node::Loop { label, body });
        }
        if self.kw("while") {
            let cond = self.expr(&["do"])?;
            self.expect("do")?;
            let body = self.list()?;
            self.expect("end")?;
            self.expect("while")?;
            self.end_label(&label)?;
            return Ok(Node::While { label, cond, body });
        }
        if self.kw("repeat") {
            let body = self.list()?;
            self.expect("until")?;
            let until = self.expr(&["end"])?;
            self.expect("end")?;
            self.expect("repeat")?;
            self.end_label(&label)?;
            return Ok(Node::Repeat { label, body, until });
        }
        if self.kw("for") {
            return self.for_loop(label);
        }
        if label.is_some() {
            return Err(self.err());
        }
        if self.kw("if") {
            return self.if_statement();
        }
        if self.kw("case") {
            return self.case_statement();
        }
        if self.kw("leave") {
            return Ok(Node::Leave(self.ident()?));
        }
        if self.kw("iterate") {
            return Ok(Node::Iterate(self.ident()?));
        }
        if self.kw("return") {
            return Ok(Node::Return(self.expr(&[])?));
        }
        if self.is("declare") {
            return Err(self.err());
        }
        if let Some(n) = self.cursor_or_signal()? {
            return Ok(n);
        }
        if self.is("set") && !self.set_is_special() {
            self.pos += 1;
            return self.set();
        }
        self.sql()
    }

    /// SET forms the statement front end reads whole (SET NAMES, SET
    /// TRANSACTION, SET PASSWORD, SET ROLE, SET STATEMENT, ...).
    fn set_is_special(&self) -> bool {
        let Some(t) = self.toks.get(self.pos + 1) else {
            return true;
        };
        let next = |k: &str| t.is_kw(self.src, k);
        let assign = self
            .toks
            .get(self.pos + 2)
            .is_some_and(|a| matches!(a.text(self.src), "=" | ":="));
        !assign
            && [
                "names",
                "character",
                "charset",
                "transaction",
                "password",
                "role",
                "default",
                "statement",
                "global",
                "session",
                "local",
            ]
            .iter()
            .any(|k| next(k))
    }

    fn block(&mut self, label: Option<String>) -> R<Node> {
        let decls = self.declarations()?;
        let body = self.list()?;
        self.expect("end")?;
        self.end_label(&label)?;
        Ok(Node::Block { label, decls, body })
    }

    fn if_statement(&mut self) -> R<Node> {
        let mut branches = Vec::new();
        let mut otherwise = None;
        loop {
            let cond = self.expr(&["then"])?;
            self.expect("then")?;
            branches.push((cond, self.list()?));
            if self.kw("elseif") {
                continue;
            }
            if self.kw("else") {
                otherwise = Some(self.list()?);
            }
            self.expect("end")?;
            self.expect("if")?;
            return Ok(Node::If {
                branches,
                otherwise,
            });
        }
    }

    fn case_statement(&mut self) -> R<Node> {
        let operand = if self.is("when") {
            None
        } else {
            Some(self.expr(&["when"])?)
        };
        let mut whens = Vec::new();
        while self.kw("when") {
            let v = self.expr(&["then"])?;
            self.expect("then")?;
            whens.push((v, self.list()?));
        }
        if whens.is_empty() {
            return Err(self.err());
        }
        let otherwise = if self.kw("else") {
            Some(self.list()?)
        } else {
            None
        };
        self.expect("end")?;
        self.expect("case")?;
        Ok(Node::Case {
            operand,
            whens,
            otherwise,
        })
    }

    fn set(&mut self) -> R<Node> {
        let mut items = Vec::new();
        loop {
            let start = self.peek().ok_or_else(|| self.err())?.start;
            let mut end = start;
            while let Some(t) = self.peek() {
                if matches!(t.text(self.src), "=" | ":=") && t.kind == TokKind::Punct {
                    break;
                }
                if t.kind == TokKind::Semi {
                    return Err(self.err());
                }
                end = t.end;
                self.pos += 1;
            }
            self.pos += 1;
            let target = self.src[start..end].trim().to_string();
            let value = self.set_value()?;
            items.push((target, value));
            if self.peek().is_none_or(|t| t.text(self.src) != ",") {
                return Ok(Node::Set(items));
            }
            self.pos += 1;
        }
    }

    /// A SQL statement: the text up to the next `;`.
    fn sql(&mut self) -> R<Node> {
        let start = self.peek().ok_or_else(|| self.err())?.start;
        let mut end = start;
        while let Some(t) = self.peek() {
            if t.kind == TokKind::Semi {
                break;
            }
            end = t.end;
            self.pos += 1;
        }
        let text = &self.src[start..end];
        self.check(start, text, "")?;
        Ok(Node::Sql(text.to_string()))
    }

    /// A SET value: an expression, or one word (`DEFAULT`, `ON`) where the
    /// target is a system variable.
    fn set_value(&mut self) -> R<String> {
        let single = self.toks.get(self.pos + 1).is_none_or(|t| {
            t.kind == TokKind::Semi || (t.kind == TokKind::Punct && t.text(self.src) == ",")
        });
        if single {
            self.expr_until(&[","])
        } else {
            self.expr(&[","])
        }
    }

    /// An expression up to one of `stops`, parsed at CREATE.
    pub(super) fn expr(&mut self, stops: &[&str]) -> R<String> {
        let start = self.peek().map_or(self.src.len(), |t| t.start);
        let text = self.expr_until(stops)?;
        self.check(start, &text, "SELECT ")?;
        Ok(text)
    }

    /// An expression: the text up to one of `stops` (or `;`) outside
    /// parentheses and CASE ... END.
    pub(super) fn expr_until(&mut self, stops: &[&str]) -> R<String> {
        let start = self.peek().ok_or_else(|| self.err())?.start;
        let mut end = start;
        let mut parens = 0i32;
        let mut cases = 0i32;
        while let Some(t) = self.peek() {
            if t.kind == TokKind::Semi {
                break;
            }
            if parens == 0 && cases == 0 {
                let stop = stops.iter().any(|k| {
                    if k.len() == 1 {
                        t.text(self.src) == *k
                    } else {
                        t.is_kw(self.src, k)
                    }
                });
                if stop {
                    break;
                }
            }
            match t.text(self.src) {
                "(" if t.kind == TokKind::Punct => parens += 1,
                ")" if t.kind == TokKind::Punct => parens -= 1,
                _ if t.is_kw(self.src, "case") => cases += 1,
                _ if t.is_kw(self.src, "end") && cases > 0 => cases -= 1,
                _ => {}
            }
            end = t.end;
            self.pos += 1;
        }
        if end == start {
            return Err(self.err());
        }
        Ok(self.src[start..end].to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_structure() {
        let n = parse_body(
            "l: begin declare a, b int default 1; declare s varchar(10); \
             while a < 10 do set a = a + 1, @x = case when a > 2 then 1 end; end while; \
             if a = 1 then select 1; elseif a = 2 then leave l; else select 3; end if; \
             repeat set b = b + 1; until b > 3 end repeat; \
             case a when 1 then select 'one'; else begin end; end case; \
             insert into t values (a); end l",
        )
        .expect("test body parses");
        let Node::Block { label, decls, body } = n.bare().clone() else {
            panic!()
        };
        assert_eq!(label.as_deref(), Some("l"));
        assert_eq!(
            decls[0],
            Decl::Var {
                names: vec!["a".into(), "b".into()],
                type_text: "int".into(),
                default: Some("1".into()),
            }
        );
        assert!(matches!(&decls[1], Decl::Var { type_text, .. } if type_text == "varchar(10)"));
        assert_eq!(body.len(), 5);
        assert_eq!(body[1], Node::Line(1, Box::new(body[1].bare().clone())));
        let Node::While { cond, body: wb, .. } = body[0].bare() else {
            panic!()
        };
        assert_eq!(cond, "a < 10");
        assert_eq!(
            *wb[0].bare(),
            Node::Set(vec![
                ("a".into(), "a + 1".into()),
                ("@x".into(), "case when a > 2 then 1 end".into())
            ])
        );
        assert_eq!(
            *body[4].bare(),
            Node::Sql("insert into t values (a)".into())
        );
    }

    #[test]
    fn bad_bodies() {
        assert_eq!(parse_body("begin select 1 end").unwrap_err().code, 1064);
        let lines = parse_body("begin\n  select 1;\n\n  select 2; end").expect("parses");
        let Node::Block { body, .. } = lines.bare() else {
            panic!()
        };
        assert!(matches!(
            body.as_slice(),
            [Node::Line(2, _), Node::Line(4, _)]
        ));
        assert_eq!(parse_body("a: begin end b").unwrap_err().code, 1310);
        assert_eq!(
            parse_body("begin declare undo handler for sqlexception begin end; end")
                .unwrap_err()
                .code,
            1235
        );
        assert_eq!(
            parse_body("select 1\n").expect("test body parses"),
            Node::Line(1, Box::new(Node::Sql("select 1".into())))
        );
    }
}
