//! Bound expressions printed as MariaDB's EXPLAIN prints attached conditions and
//! sort keys: `t1.b > 2`, `t2.a = t3.y and t2.c is not null`, `t1.a in (1,2)`.
//!
//! Columns are named `alias.column` (no backquotes, no database), operators in
//! lower case with one space around, string constants in single quotes, and a
//! subquery as `(subquery#N)`. Parentheses only where precedence needs them.
//! Function names come from the bound function (snake case of its name); for
//! most functions that is MariaDB's name, for a few it is Basalt's own spelling:
//! the text informs a reader, nothing parses it back.

use crate::expr::{BitOp, CmpOp, Expr};
use crate::value::arith::ArithOp;
use basalt_common::Value;

/// How the printer names what a bound expression refers to.
pub struct Names<'a> {
    /// `alias.column` of a position in the joined row.
    pub column: &'a dyn Fn(usize) -> String,
    /// The name of outer-row value `k` inside a correlated subquery.
    pub outer: &'a dyn Fn(usize) -> String,
    /// The select number of subquery `i`, and whether it is an EXISTS.
    pub sub: &'a dyn Fn(usize) -> Option<(u64, bool)>,
}

/// Binding strength, lowest first (MariaDB's `enum precedence`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Or,
    Xor,
    And,
    Cmp,
    BitOr,
    BitAnd,
    Shift,
    Add,
    Mul,
    BitXor,
    Unary,
    Atom,
}

pub fn print(e: &Expr, n: &Names) -> String {
    let mut out = String::new();
    write(e, n, &mut out);
    out
}

fn write(e: &Expr, n: &Names, out: &mut String) {
    match e {
        Expr::Once(x, _) => write(x, n, out),
        Expr::Const(v) => out.push_str(&literal(v)),
        Expr::Param(_) => out.push('?'),
        Expr::Column(c) => out.push_str(&(n.column)(*c)),
        Expr::OuterRef(k) => out.push_str(&(n.outer)(*k)),
        Expr::UserVar(v) => {
            out.push_str("@`");
            out.push_str(v);
            out.push('`');
        }
        Expr::SetUserVar(v, x, _) => {
            out.push_str(&format!("@`{v}` := "));
            operand(x, Prec::Atom, n, out);
        }
        Expr::SysVar { def, global } => {
            out.push_str(if *global { "@@global." } else { "@@" });
            out.push_str(def.name);
        }
        Expr::Neg(x) => prefix("-", x, n, out),
        Expr::BitNot(x) => prefix("~", x, n, out),
        Expr::Not(x) => {
            out.push('!');
            operand(x, Prec::Unary, n, out);
        }
        Expr::Arith(op, a, b) => {
            let p = arith_prec(*op);
            infix(a, arith_symbol(*op), b, p, n, out)
        }
        Expr::Bit(op, a, b) => {
            let (sym, p) = bit(*op);
            infix(a, sym, b, p, n, out)
        }
        Expr::Cmp(op, a, b, _) => infix(a, cmp_symbol(*op), b, Prec::Cmp, n, out),
        Expr::NullSafeEq(a, b, _) => infix(a, "<=>", b, Prec::Cmp, n, out),
        Expr::And(list) => chain(list, " and ", Prec::And, n, out),
        Expr::Or(list) => chain(list, " or ", Prec::Or, n, out),
        Expr::Xor(a, b) => infix(a, "xor", b, Prec::Xor, n, out),
        Expr::IsNull(x, negated) => {
            operand(x, Prec::Cmp, n, out);
            out.push_str(if *negated { " is not null" } else { " is null" });
        }
        Expr::IsBool(x, value, negated) => {
            operand(x, Prec::Cmp, n, out);
            out.push_str(if *negated { " is not " } else { " is " });
            out.push_str(if *value { "true" } else { "false" });
        }
        _ => write_more(e, n, out),
    }
}

fn write_more(e: &Expr, n: &Names, out: &mut String) {
    match e {
        Expr::In {
            arg, list, negated, ..
        } => {
            operand(arg, Prec::Cmp, n, out);
            out.push_str(if *negated { " not in (" } else { " in (" });
            list_of(list, n, out);
            out.push(')');
        }
        Expr::Between {
            arg,
            low,
            high,
            negated,
            ..
        } => {
            operand(arg, Prec::Cmp, n, out);
            out.push_str(if *negated {
                " not between "
            } else {
                " between "
            });
            operand(low, Prec::BitOr, n, out);
            out.push_str(" and ");
            operand(high, Prec::BitOr, n, out);
        }
        Expr::Like {
            arg,
            pattern,
            escape,
            negated,
            ..
        } => {
            operand(arg, Prec::Cmp, n, out);
            out.push_str(if *negated { " not like " } else { " like " });
            operand(pattern, Prec::BitOr, n, out);
            if let Some(x) = escape {
                out.push_str(" escape ");
                operand(x, Prec::Atom, n, out);
            }
        }
        Expr::Case {
            operand: op,
            whens,
            otherwise,
            ..
        } => case(op.as_deref(), whens, otherwise.as_deref(), n, out),
        Expr::Func(f, args) => {
            out.push_str(&func_name(f));
            out.push('(');
            list_of(args, n, out);
            out.push(')');
        }
        Expr::Cast(x, _) => {
            out.push_str("cast(");
            write(x, n, out);
            out.push(')');
        }
        Expr::Sub { id, .. } => subquery(*id, n, out),
        Expr::InSub {
            arg, sub, negated, ..
        } => {
            operand(arg, Prec::Cmp, n, out);
            out.push_str(if *negated { " not in " } else { " in " });
            subquery(*sub, n, out);
        }
        Expr::StoredCall(f, args) => {
            out.push_str(&format!("`{}`.`{}`(", f.0.db, f.0.name));
            list_of(args, n, out);
            out.push(')');
        }
        Expr::Local(slot) => out.push_str(&format!("<variable {slot}>")),
        // Every other form is printed by `write`.
        _ => out.push('?'),
    }
}

fn subquery(id: usize, n: &Names, out: &mut String) {
    match (n.sub)(id) {
        Some((sel, true)) => out.push_str(&format!("exists(subquery#{sel})")),
        Some((sel, false)) => out.push_str(&format!("(subquery#{sel})")),
        None => out.push_str("(subquery)"),
    }
}

fn case(
    op: Option<&Expr>,
    whens: &[(Expr, Expr)],
    otherwise: Option<&Expr>,
    n: &Names,
    out: &mut String,
) {
    out.push_str("case ");
    if let Some(o) = op {
        write(o, n, out);
        out.push(' ');
    }
    for (w, t) in whens {
        out.push_str("when ");
        write(w, n, out);
        out.push_str(" then ");
        write(t, n, out);
        out.push(' ');
    }
    if let Some(x) = otherwise {
        out.push_str("else ");
        write(x, n, out);
        out.push(' ');
    }
    out.push_str("end");
}

fn list_of(list: &[Expr], n: &Names, out: &mut String) {
    for (i, x) in list.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(x, n, out);
    }
}

fn prefix(sym: &str, x: &Expr, n: &Names, out: &mut String) {
    out.push_str(sym);
    operand(x, Prec::Unary, n, out);
}

fn infix(a: &Expr, sym: &str, b: &Expr, p: Prec, n: &Names, out: &mut String) {
    operand(a, p, n, out);
    out.push(' ');
    out.push_str(sym);
    out.push(' ');
    // A right operand of the same strength keeps its parentheses (a - (b - c)).
    operand_strict(b, p, n, out);
}

fn chain(list: &[Expr], sep: &str, p: Prec, n: &Names, out: &mut String) {
    for (i, x) in list.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        operand(x, p, n, out);
    }
}

fn operand(x: &Expr, p: Prec, n: &Names, out: &mut String) {
    if prec(x) < p {
        parens(x, n, out);
    } else {
        write(x, n, out);
    }
}

fn operand_strict(x: &Expr, p: Prec, n: &Names, out: &mut String) {
    if prec(x) <= p && prec(x) != Prec::Atom {
        parens(x, n, out);
    } else {
        write(x, n, out);
    }
}

fn parens(x: &Expr, n: &Names, out: &mut String) {
    out.push('(');
    write(x, n, out);
    out.push(')');
}

fn prec(e: &Expr) -> Prec {
    match e {
        Expr::Once(x, _) => prec(x),
        Expr::Or(l) if l.len() > 1 => Prec::Or,
        Expr::And(l) if l.len() > 1 => Prec::And,
        Expr::Xor(..) => Prec::Xor,
        Expr::Not(_) => Prec::Unary,
        Expr::Cmp(..)
        | Expr::NullSafeEq(..)
        | Expr::IsNull(..)
        | Expr::IsBool(..)
        | Expr::In { .. }
        | Expr::InSub { .. }
        | Expr::Between { .. }
        | Expr::Like { .. } => Prec::Cmp,
        Expr::Bit(op, ..) => bit(*op).1,
        Expr::Arith(op, ..) => arith_prec(*op),
        Expr::Neg(_) | Expr::BitNot(_) => Prec::Unary,
        Expr::SetUserVar(..) => Prec::Or,
        _ => Prec::Atom,
    }
}

fn arith_prec(op: ArithOp) -> Prec {
    match op {
        ArithOp::Add | ArithOp::Sub => Prec::Add,
        _ => Prec::Mul,
    }
}

fn arith_symbol(op: ArithOp) -> &'static str {
    match op {
        ArithOp::Add => "+",
        ArithOp::Sub => "-",
        ArithOp::Mul => "*",
        ArithOp::Div => "/",
        ArithOp::IntDiv => "DIV",
        ArithOp::Mod => "MOD",
    }
}

fn bit(op: BitOp) -> (&'static str, Prec) {
    match op {
        BitOp::And => ("&", Prec::BitAnd),
        BitOp::Or => ("|", Prec::BitOr),
        BitOp::Xor => ("^", Prec::BitXor),
        BitOp::Shl => ("<<", Prec::Shift),
        BitOp::Shr => (">>", Prec::Shift),
    }
}

fn cmp_symbol(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "=",
        CmpOp::Ne => "<>",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

/// A constant as MariaDB prints it in a condition.
fn literal(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) => {
            String::from_utf8_lossy(&crate::value::to_bytes(v)).into_owned()
        }
        other => quote(&crate::value::to_bytes(other)),
    }
}

fn quote(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() + 2);
    s.push('\'');
    for ch in String::from_utf8_lossy(b).chars() {
        match ch {
            '\'' => s.push_str("\\'"),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\0' => s.push_str("\\0"),
            c => s.push(c),
        }
    }
    s.push('\'');
    s
}

/// The function's name in snake case (`DateAdd` -> `date_add`); families
/// wrapped in one variant (`Text(Lpad)`) are named by the inner function.
fn func_name(f: &crate::expr::func::Func) -> String {
    const FAMILIES: [&str; 8] = [
        "Text", "Clock", "Misc", "Regexp", "Json", "Lock", "Seq", "Trig",
    ];
    let debug = format!("{f:?}");
    let name = match debug.split_once('(') {
        Some((outer, inner)) if FAMILIES.contains(&outer) => inner
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or(outer),
        Some((outer, _)) => outer,
        None => debug
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or(""),
    };
    snake(name)
}

fn snake(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_print_as_mariadb_prints_them() {
        let c = |c: usize| format!("t.c{c}");
        let o = |k: usize| format!("o.c{k}");
        let s = |i: usize| Some((i as u64 + 2, i == 1));
        let n = Names {
            column: &c,
            outer: &o,
            sub: &s,
        };
        let col = |i| Box::new(Expr::Column(i));
        let int = |i| Box::new(Expr::Const(Value::Int(i)));
        let gt = Expr::Cmp(CmpOp::Gt, col(1), int(2), basalt_common::Collation::Binary);
        assert_eq!(print(&gt, &n), "t.c1 > 2");
        let both = Expr::And(vec![gt.clone(), Expr::IsNull(col(0), true)]);
        assert_eq!(print(&both, &n), "t.c1 > 2 and t.c0 is not null");
        let either = Expr::Or(vec![both.clone(), Expr::OuterRef(0)]);
        assert_eq!(print(&either, &n), "t.c1 > 2 and t.c0 is not null or o.c0");
        let nested = Expr::And(vec![either, gt]);
        assert_eq!(
            print(&nested, &n),
            "(t.c1 > 2 and t.c0 is not null or o.c0) and t.c1 > 2"
        );
        let minus = Expr::Arith(
            ArithOp::Sub,
            col(1),
            Box::new(Expr::Arith(ArithOp::Sub, col(2), int(3))),
        );
        assert_eq!(print(&minus, &n), "t.c1 - (t.c2 - 3)");
        let s = Expr::Cmp(
            CmpOp::Eq,
            col(0),
            Box::new(Expr::Const(Value::Bytes(b"it's".to_vec()))),
            basalt_common::Collation::Binary,
        );
        assert_eq!(print(&s, &n), "t.c0 = 'it\\'s'");
        let sub = Expr::Sub {
            id: 0,
            outer: Vec::new(),
        };
        assert_eq!(print(&sub, &n), "(subquery#2)");
        let exists = Expr::Sub {
            id: 1,
            outer: Vec::new(),
        };
        assert_eq!(print(&exists, &n), "exists(subquery#3)");
    }

    #[test]
    fn function_names_are_snake_case() {
        assert_eq!(snake("DateAdd"), "date_add");
        assert_eq!(snake("Concat"), "concat");
    }
}
