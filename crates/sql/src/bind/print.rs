//! Expressions printed the way MariaDB prints a stored expression (a CHECK
//! constraint in `SHOW CREATE TABLE` and `information_schema.CHECK_CONSTRAINTS`).
//!
//! MariaDB does not keep the text as written: it parses it to an item tree and
//! prints that. The printer reproduces the visible rules:
//! - column names in backquotes, function names in lower case under MariaDB's
//!   canonical name (`length` → `octet_length`, `upper` → `ucase`,
//!   `substring` → `substr`), arguments separated by `,` without a space;
//! - operators in lower case with one space around (`and`, `or`, `xor`, `DIV`,
//!   `MOD`), `!=` as `<>`, `&&` / `||` as `and` / `or`;
//! - parentheses only where precedence needs them ([`Prec`]; a right operand of
//!   the same precedence gets them, so `a - (b - c)` keeps its meaning), AND / OR
//!   chains flattened;
//! - NOT pushed into what it negates (`NOT (a > 1 AND b < 2)` → `a <= 1 or b >= 2`,
//!   `NOT a` → `a = 0`), `x IN (v)` with one value as `x = v`;
//! - integer literals normalised (`007` → `7`), other numbers as written, strings
//!   in single quotes with MariaDB's backslash escapes.
//!
//! The output is also what Basalt parses again when it binds the constraint, so
//! every form printed here must read back to the same expression
//! ([`reparse_text`] undoes the two forms sqlparser does not read: `MOD` and `!`).

use basalt_common::MySqlError;
use sqlparser::ast::{self, BinaryOperator as B, Expr as A, UnaryOperator as U};

type R<T> = Result<T, MySqlError>;

/// MariaDB's operator precedence levels (`enum precedence` in item.h), lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Lowest,
    Or,
    Xor,
    And,
    Not,
    Cmp,
    Between,
    In,
    BitOr,
    BitAnd,
    Shift,
    Add,
    Mul,
    BitXor,
    Neg,
    Highest,
}

impl Prec {
    fn next(self) -> Prec {
        use Prec::*;
        match self {
            Lowest => Or,
            Or => Xor,
            Xor => And,
            And => Not,
            Not => Cmp,
            Cmp => Between,
            Between => In,
            In => BitOr,
            BitOr => BitAnd,
            BitAnd => Shift,
            Shift => Add,
            Add => Mul,
            Mul => BitXor,
            BitXor => Neg,
            Neg | Highest => Highest,
        }
    }
}

/// The error for a construct a stored expression may not contain.
pub type Refusal = fn(&str) -> MySqlError;

/// Prints `e` in MariaDB's form. `refuse` builds the error for a subquery.
pub fn print(e: &A, refuse: Refusal) -> R<String> {
    let mut p = Printer {
        out: String::new(),
        refuse,
        queries: None,
    };
    p.expr(e, Prec::Lowest)?;
    Ok(p.out)
}

/// Prints the queries nested in an expression of a view's query.
pub trait Queries {
    fn query(&self, q: &ast::Query) -> R<String>;
}

/// Prints an expression of a view's query: qualified names keep every part,
/// subqueries are printed by `queries`, `count(*)` is `count(0)`.
pub fn print_in_view(e: &A, queries: &dyn Queries) -> R<String> {
    let mut p = Printer {
        out: String::new(),
        refuse: |w| MySqlError::not_supported(w),
        queries: Some(queries),
    };
    p.expr(e, Prec::Lowest)?;
    Ok(p.out)
}

/// The printed form rewritten into what sqlparser reads: `MOD` as `%`, `!(` as
/// `NOT (`. Only tokens outside string literals are touched.
pub fn reparse_text(text: &str) -> String {
    let lexed = crate::front::lexer::lex(text);
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for (i, t) in lexed.tokens.iter().enumerate() {
        let with = if t.is_kw(text, "mod") {
            "%"
        } else if t.text(text) == "!"
            && lexed.tokens.get(i + 1).is_some_and(|n| n.text(text) == "(")
        {
            "NOT "
        } else {
            continue;
        };
        out.push_str(&text[pos..t.start]);
        out.push_str(with);
        pos = t.end;
    }
    out.push_str(&text[pos..]);
    out
}

struct Printer<'a> {
    out: String,
    refuse: Refusal,
    queries: Option<&'a dyn Queries>,
}

fn bin_op(op: &B) -> Option<(&'static str, Prec)> {
    Some(match op {
        B::Or => ("or", Prec::Or),
        B::Xor => ("xor", Prec::Xor),
        B::And => ("and", Prec::And),
        B::Eq => ("=", Prec::Cmp),
        B::NotEq => ("<>", Prec::Cmp),
        B::Lt => ("<", Prec::Cmp),
        B::LtEq => ("<=", Prec::Cmp),
        B::Gt => (">", Prec::Cmp),
        B::GtEq => (">=", Prec::Cmp),
        B::Spaceship => ("<=>", Prec::Cmp),
        B::BitwiseOr => ("|", Prec::BitOr),
        B::BitwiseAnd => ("&", Prec::BitAnd),
        B::PGBitwiseShiftLeft => ("<<", Prec::Shift),
        B::PGBitwiseShiftRight => (">>", Prec::Shift),
        B::Plus => ("+", Prec::Add),
        B::Minus => ("-", Prec::Add),
        B::Multiply => ("*", Prec::Mul),
        B::Divide => ("/", Prec::Mul),
        B::Modulo => ("MOD", Prec::Mul),
        B::MyIntegerDivide | B::DuckIntegerDivide => ("DIV", Prec::Mul),
        B::BitwiseXor => ("^", Prec::BitXor),
        B::StringConcat => ("or", Prec::Or),
        _ => return None,
    })
}

/// The comparison that `NOT (a op b)` is.
fn negated_cmp(op: &B) -> Option<B> {
    Some(match op {
        B::Eq => B::NotEq,
        B::NotEq => B::Eq,
        B::Lt => B::GtEq,
        B::GtEq => B::Lt,
        B::Gt => B::LtEq,
        B::LtEq => B::Gt,
        _ => return None,
    })
}

/// MariaDB's name for a function as it prints it.
fn function_name(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "length" => "octet_length",
        "character_length" => "char_length",
        "upper" => "ucase",
        "lower" => "lcase",
        "substring" | "mid" => "substr",
        "now" | "localtime" | "localtimestamp" => "current_timestamp",
        "curdate" => "curdate",
        "power" => "pow",
        "ceiling" => "ceiling",
        _ => return lower,
    }
    .to_string()
}

/// Functions that are truth values: `NOT f(x)` prints as `!(f(x))`, not `f(x) = 0`.
fn is_bool_function(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "json_valid" | "regexp_like" | "isnull"
    )
}

/// A string literal with MariaDB's escapes.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{1a}' => out.push_str("\\Z"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

fn number(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(v) = s.parse::<u128>() {
            return v.to_string();
        }
    }
    s.to_string()
}

impl Printer<'_> {
    fn push(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// Prints `e`, in parentheses when it binds less tightly than `parent`.
    fn expr(&mut self, e: &A, parent: Prec) -> R<()> {
        let own = precedence(e);
        if own < parent {
            self.push("(");
            self.bare(e)?;
            self.push(")");
            Ok(())
        } else {
            self.bare(e)
        }
    }

    fn bare(&mut self, e: &A) -> R<()> {
        match e {
            A::Identifier(id) => self.ident(&id.value),
            A::CompoundIdentifier(ids) if self.queries.is_some() => {
                for (i, id) in ids.iter().enumerate() {
                    if i > 0 {
                        self.push(".");
                    }
                    self.ident(&id.value);
                }
            }
            A::CompoundIdentifier(ids) => {
                self.ident(ids.last().map_or("", |i| i.value.as_str()));
            }
            A::Value(v) => self.value(&v.value),
            A::Prefixed { prefix, value } => {
                self.push(&prefix.value.to_ascii_lowercase());
                self.expr(value, Prec::Highest)?;
            }
            A::Nested(inner) => self.bare(inner)?,
            A::BinaryOp { left, op, right } => self.binary(left, op, right)?,
            A::UnaryOp { op, expr } => self.unary(*op, expr)?,
            A::IsNull(x) => self.postfix(x, " is null")?,
            A::IsNotNull(x) => self.postfix(x, " is not null")?,
            A::IsTrue(x) => self.postfix(x, " is true")?,
            A::IsNotTrue(x) => self.postfix(x, " is not true")?,
            A::IsFalse(x) => self.postfix(x, " is false")?,
            A::IsNotFalse(x) => self.postfix(x, " is not false")?,
            A::IsUnknown(x) => self.postfix(x, " is null")?,
            A::IsNotUnknown(x) => self.postfix(x, " is not null")?,
            A::Between {
                expr,
                negated,
                low,
                high,
            } => {
                self.expr(expr, Prec::Between)?;
                self.push(if *negated {
                    " not between "
                } else {
                    " between "
                });
                self.expr(low, Prec::Between)?;
                self.push(" and ");
                self.expr(high, Prec::Between)?;
            }
            A::In {
                expr,
                target: ast::InTarget::List(list),
                negated,
                ..
            } => self.in_list(expr, list, *negated)?,
            A::In {
                expr,
                target: ast::InTarget::Subquery(subquery),
                negated,
                ..
            } if self.queries.is_some() => {
                self.expr(expr, Prec::In)?;
                self.push(if *negated { " not in (" } else { " in (" });
                self.subquery(subquery)?;
                self.push(")");
            }
            A::In { .. } => return Err((self.refuse)("subquery")),
            A::Like {
                negated,
                expr,
                pattern,
                escape_char,
                ..
            } => {
                self.expr(expr, Prec::In)?;
                self.push(if *negated { "  not like " } else { " like " });
                self.expr(pattern, Prec::In.next())?;
                if let Some(esc) = escape_char {
                    self.push(" escape ");
                    self.expr(esc, Prec::Highest)?;
                }
            }
            A::RLike {
                negated,
                expr,
                pattern,
                ..
            } => {
                if *negated {
                    self.push("!(");
                }
                self.expr(expr, Prec::In)?;
                self.push(" regexp ");
                self.expr(pattern, Prec::In.next())?;
                if *negated {
                    self.push(")");
                }
            }
            A::Function(f) => self.function(f)?,
            A::Cast {
                expr, data_type, ..
            } => {
                self.push("cast(");
                self.expr(expr, Prec::Lowest)?;
                self.push(" as ");
                self.push(&data_type.to_string().to_ascii_lowercase());
                self.push(")");
            }
            A::Case {
                operand,
                conditions,
                else_result,
                ..
            } => self.case(operand.as_deref(), conditions, else_result.as_deref())?,
            A::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args: Vec<&A> = vec![expr];
                args.extend(substring_from.as_deref());
                args.extend(substring_for.as_deref());
                self.call("substr", &args)?;
            }
            A::Trim {
                expr,
                trim_where: None,
                trim_what: None,
                ..
            } => self.call("trim", &[expr])?,
            A::Ceil { expr, .. } => self.call("ceiling", &[expr])?,
            A::Floor { expr, .. } => self.call("floor", &[expr])?,
            A::Subquery(q) if self.queries.is_some() => {
                self.push("(");
                self.subquery(q)?;
                self.push(")");
            }
            A::Exists { subquery, negated } if self.queries.is_some() => {
                self.push(if *negated { "!exists(" } else { "exists(" });
                self.subquery(subquery)?;
                if subquery.limit_clause.is_none() {
                    self.push(" limit 1");
                }
                self.push(")");
            }
            A::Subquery(_) | A::Exists { .. } => return Err((self.refuse)("subquery")),
            A::Interval(iv)
                if iv.last_field.is_none()
                    && iv.leading_precision.is_none()
                    && iv.fractional_seconds_precision.is_none() =>
            {
                self.push("interval ");
                self.expr(&iv.value, Prec::Highest)?;
                if let Some(f) = &iv.leading_field {
                    self.push(" ");
                    self.push(&f.to_string().to_ascii_lowercase());
                }
            }
            other => self.push(&other.to_string()),
        }
        Ok(())
    }

    fn subquery(&mut self, q: &ast::Query) -> R<()> {
        match self.queries {
            Some(qs) => {
                let text = qs.query(q)?;
                self.push(&text);
                Ok(())
            }
            None => Err((self.refuse)("subquery")),
        }
    }

    fn ident(&mut self, name: &str) {
        self.push("`");
        self.push(&name.replace('`', "``"));
        self.push("`");
    }

    fn value(&mut self, v: &ast::Value) {
        let text = match v {
            ast::Value::Number(n, _) => number(n),
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => quote(s),
            ast::Value::Boolean(b) => (*b as u8).to_string(),
            ast::Value::Null => "NULL".into(),
            other => other.to_string(),
        };
        self.push(&text);
    }

    fn postfix(&mut self, x: &A, suffix: &str) -> R<()> {
        self.expr(x, Prec::Cmp)?;
        self.push(suffix);
        Ok(())
    }

    fn binary(&mut self, l: &A, op: &B, r: &A) -> R<()> {
        let Some((name, prec)) = bin_op(op) else {
            self.push(&format!("{l} {op} {r}"));
            return Ok(());
        };
        if matches!(prec, Prec::And | Prec::Or) {
            // Chains print flat: both sides at the operator's own precedence.
            self.expr(l, prec)?;
            self.push(&format!(" {name} "));
            return self.expr(r, prec);
        }
        self.expr(l, prec)?;
        self.push(&format!(" {name} "));
        self.expr(r, prec.next())
    }

    fn unary(&mut self, op: U, x: &A) -> R<()> {
        match op {
            U::Minus => {
                self.push("-");
                self.expr(x, Prec::Neg)
            }
            U::Plus => self.expr(x, Prec::Neg),
            U::BitwiseNot => {
                self.push("~");
                self.expr(x, Prec::Neg)
            }
            U::Not | U::BangNot => self.not(x),
            other => {
                self.push(&format!("{other}{x}"));
                Ok(())
            }
        }
    }

    /// `NOT x`, pushed into `x` as MariaDB's parser does.
    fn not(&mut self, x: &A) -> R<()> {
        let inner = strip_nested(x);
        let neg = |e: &A| A::UnaryOp {
            op: U::Not,
            expr: Box::new(e.clone()),
        };
        let rewritten = match inner {
            A::BinaryOp { left, op, right } => match op {
                B::And | B::Or => Some(A::BinaryOp {
                    left: Box::new(neg(left)),
                    op: if *op == B::And { B::Or } else { B::And },
                    right: Box::new(neg(right)),
                }),
                _ => negated_cmp(op).map(|op| A::BinaryOp {
                    left: left.clone(),
                    op,
                    right: right.clone(),
                }),
            },
            A::Between {
                expr,
                negated,
                low,
                high,
            } => Some(A::Between {
                expr: expr.clone(),
                negated: !negated,
                low: low.clone(),
                high: high.clone(),
            }),
            A::In {
                expr,
                target,
                negated,
                global,
            } => Some(A::In {
                expr: expr.clone(),
                target: target.clone(),
                negated: !negated,
                global: *global,
            }),
            A::Like { negated, .. } => {
                let mut e = inner.clone();
                if let A::Like { negated: n, .. } = &mut e {
                    *n = !negated;
                }
                Some(e)
            }
            A::IsNull(e) => Some(A::IsNotNull(e.clone())),
            A::IsNotNull(e) => Some(A::IsNull(e.clone())),
            A::IsTrue(e) => Some(A::IsNotTrue(e.clone())),
            A::IsNotTrue(e) => Some(A::IsTrue(e.clone())),
            A::IsFalse(e) => Some(A::IsNotFalse(e.clone())),
            A::IsNotFalse(e) => Some(A::IsFalse(e.clone())),
            _ => None,
        };
        if let Some(e) = rewritten {
            return self.bare(&e);
        }
        let truth = match inner {
            A::Function(f) => is_bool_function(&f.name.to_string()),
            A::BinaryOp { .. } | A::RLike { .. } | A::UnaryOp { .. } => true,
            _ => false,
        };
        if truth {
            self.push("!(");
            self.bare(inner)?;
            self.push(")");
        } else {
            self.expr(inner, Prec::Cmp)?;
            self.push(" = 0");
        }
        Ok(())
    }

    fn in_list(&mut self, x: &A, list: &[A], negated: bool) -> R<()> {
        if let [one] = list {
            return self.binary(x, if negated { &B::NotEq } else { &B::Eq }, one);
        }
        self.expr(x, Prec::In)?;
        self.push(if negated { " not in (" } else { " in (" });
        for (i, v) in list.iter().enumerate() {
            if i > 0 {
                self.push(",");
            }
            self.expr(v, Prec::Lowest)?;
        }
        self.push(")");
        Ok(())
    }

    fn function(&mut self, f: &ast::Function) -> R<()> {
        let name = super::object_parts(&f.name)
            .last()
            .cloned()
            .unwrap_or_default();
        self.push(&function_name(&name));
        self.push("(");
        match &f.args {
            ast::FunctionArguments::List(l) => {
                if self.queries.is_some()
                    && matches!(
                        l.duplicate_treatment,
                        Some(ast::DuplicateTreatment::Distinct)
                    )
                {
                    self.push("distinct ");
                }
                for (i, a) in l.args.iter().enumerate() {
                    if i > 0 {
                        self.push(",");
                    }
                    match a {
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => {
                            self.expr(e, Prec::Lowest)?
                        }
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)
                            if self.queries.is_some() =>
                        {
                            self.push("0")
                        }
                        other => self.push(&other.to_string()),
                    }
                }
            }
            ast::FunctionArguments::None => {}
            ast::FunctionArguments::Subquery(_) => return Err((self.refuse)("subquery")),
        }
        self.push(")");
        Ok(())
    }

    fn call(&mut self, name: &str, args: &[&A]) -> R<()> {
        self.push(name);
        self.push("(");
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                self.push(",");
            }
            self.expr(a, Prec::Lowest)?;
        }
        self.push(")");
        Ok(())
    }

    fn case(
        &mut self,
        operand: Option<&A>,
        conditions: &[ast::CaseWhen],
        else_result: Option<&A>,
    ) -> R<()> {
        self.push("case ");
        if let Some(o) = operand {
            self.expr(o, Prec::Lowest)?;
            self.push(" ");
        }
        for w in conditions {
            self.push("when ");
            self.expr(&w.condition, Prec::Lowest)?;
            self.push(" then ");
            self.expr(&w.result, Prec::Lowest)?;
            self.push(" ");
        }
        if let Some(e) = else_result {
            self.push("else ");
            self.expr(e, Prec::Lowest)?;
            self.push(" ");
        }
        self.push("end");
        Ok(())
    }
}

fn strip_nested(e: &A) -> &A {
    match e {
        A::Nested(inner) => strip_nested(inner),
        other => other,
    }
}

/// The precedence an expression prints at (what its parent compares against).
fn precedence(e: &A) -> Prec {
    match e {
        A::Nested(inner) => precedence(inner),
        A::BinaryOp { op, .. } => bin_op(op).map_or(Prec::Highest, |(_, p)| p),
        A::UnaryOp { op: U::Not, expr } => precedence_of_not(expr),
        A::UnaryOp { .. } => Prec::Neg,
        A::IsNull(_)
        | A::IsNotNull(_)
        | A::IsTrue(_)
        | A::IsNotTrue(_)
        | A::IsFalse(_)
        | A::IsNotFalse(_)
        | A::IsUnknown(_)
        | A::IsNotUnknown(_) => Prec::Cmp,
        A::Between { .. } => Prec::Between,
        A::In {
            target: ast::InTarget::List(list),
            ..
        } if list.len() == 1 => Prec::Cmp,
        A::In { .. } | A::Like { .. } => Prec::In,
        A::RLike { negated: false, .. } => Prec::In,
        _ => Prec::Highest,
    }
}

/// The precedence of what `NOT x` prints as.
fn precedence_of_not(x: &A) -> Prec {
    match strip_nested(x) {
        A::BinaryOp { op: B::And, .. } => Prec::Or,
        A::BinaryOp { op: B::Or, .. } => Prec::And,
        A::BinaryOp { op, .. } if negated_cmp(op).is_some() => Prec::Cmp,
        A::BinaryOp { .. } | A::RLike { .. } | A::UnaryOp { .. } => Prec::Highest,
        A::Function(f) if is_bool_function(&f.name.to_string()) => Prec::Highest,
        other @ (A::Between { .. }
        | A::In { .. }
        | A::Like { .. }
        | A::IsNull(_)
        | A::IsNotNull(_)
        | A::IsTrue(_)
        | A::IsNotTrue(_)
        | A::IsFalse(_)
        | A::IsNotFalse(_)) => precedence(other),
        _ => Prec::Cmp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> String {
        let e = crate::front::parse::parse_expr(text).expect("parses");
        print(&e, MySqlError::not_supported).expect("prints")
    }

    #[test]
    fn prints_as_mariadb() {
        let cases = [
            ("a between 1 and 10", "`a` between 1 and 10"),
            ("b in ('x','y')", "`b` in ('x','y')"),
            ("not (a > 5)", "`a` <= 5"),
            (
                "a > 0 and b <> 'z' or c >= 1.5",
                "`a` > 0 and `b` <> 'z' or `c` >= 1.5",
            ),
            ("length(b) > 2", "octet_length(`b`) > 2"),
            ("upper(b) = 'X'", "ucase(`b`) = 'X'"),
            ("a % 2 = 0", "`a` MOD 2 = 0"),
            ("a div 2 = 1", "`a` DIV 2 = 1"),
            ("-a < 0", "-`a` < 0"),
            ("coalesce(a, 0) >= 0", "coalesce(`a`,0) >= 0"),
            ("if(a > 0, 1, 0) = 1", "if(`a` > 0,1,0) = 1"),
            (
                "case when a > 1 then 1 else 0 end = 1",
                "case when `a` > 1 then 1 else 0 end = 1",
            ),
            ("a != 3", "`a` <> 3"),
            ("b is null or b = \"q\"", "`b` is null or `b` = 'q'"),
            ("a + b * 2 - c / 3 > 0", "`a` + `b` * 2 - `c` / 3 > 0"),
            ("cast(b as signed) > 0", "cast(`b` as signed) > 0"),
            ("b not like 'zz%'", "`b`  not like 'zz%'"),
            ("a not between 3 and 4", "`a` not between 3 and 4"),
            ("true", "1"),
            ("substring(b, 1, 2) = 'ab'", "substr(`b`,1,2) = 'ab'"),
            (
                "a >= 0 && a <= 100 or a is null",
                "`a` >= 0 and `a` <= 100 or `a` is null",
            ),
            ("not a", "`a` = 0"),
            ("not (a > 1 and a < 5)", "`a` <= 1 or `a` >= 5"),
            ("(a + 1) * 2 > 0", "(`a` + 1) * 2 > 0"),
            ("a - (1 - 2) > 0", "`a` - (1 - 2) > 0"),
            ("a in (1)", "`a` = 1"),
            (
                "(a > 1 or a < -1) and a <> 0",
                "(`a` > 1 or `a` < -1) and `a` <> 0",
            ),
            ("a not in (1) is not null", "`a` <> 1 is not null"),
            ("a between 1 and 2 = 1", "`a` between 1 and 2 = 1"),
            ("-(a+1) < 0", "-(`a` + 1) < 0"),
            ("a = 1 or (a = 2 or a = 3)", "`a` = 1 or `a` = 2 or `a` = 3"),
            ("b <> 'it''s'", "`b` <> 'it\\'s'"),
            ("a <> 007", "`a` <> 7"),
            ("c > 1.50", "`c` > 1.50"),
            ("json_valid(j)", "json_valid(`j`)"),
        ];
        for (input, want) in cases {
            assert_eq!(p(input), want, "{input}");
        }
    }

    #[test]
    fn printed_text_reads_back() {
        for t in ["`a` MOD 2 = 0", "!(json_valid(`j`))", "`b` <> 'x MOD y'"] {
            let again = reparse_text(t);
            assert!(
                crate::front::parse::parse_expr(&again).is_ok(),
                "{t} -> {again}"
            );
        }
        assert_eq!(reparse_text("`b` <> 'x MOD y'"), "`b` <> 'x MOD y'");
    }
}
