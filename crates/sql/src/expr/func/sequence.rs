//! NEXTVAL(s), LASTVAL(s) and SETVAL(s, n [, is_used [, round]]); the front end
//! turns `NEXT VALUE FOR s` and `PREVIOUS VALUE FOR s` into the first two.
//!
//! The sequence is named, not computed: the binder resolves it (4091 when there
//! is none, 4089 when the table is no sequence) and passes the database and the
//! name as constant arguments; evaluation opens it by name again, so a cached
//! plan follows a sequence dropped and created anew. SETVAL's other arguments
//! are integer literals, as MariaDB's grammar requires.

use crate::expr::{EvalCtx, Expr, R};
use crate::sequence::Handle;
use crate::ty::ExprType;
use basalt_common::{MySqlError, Value};
use sqlparser::ast;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeqFn {
    Next,
    Last,
    Set,
}

impl SeqFn {
    pub fn from_name(name: &str) -> Option<SeqFn> {
        Some(match name {
            "nextval" => SeqFn::Next,
            "lastval" => SeqFn::Last,
            "setval" => SeqFn::Set,
            _ => return None,
        })
    }
}

pub fn result_type(f: SeqFn) -> ExprType {
    match f {
        SeqFn::Next => ExprType::bigint(),
        SeqFn::Last | SeqFn::Set => ExprType::bigint().nullable(true),
    }
}

fn syntax(near: &str) -> MySqlError {
    MySqlError::parse_error(near, 1)
}

/// The (database, name) a sequence argument names.
fn sequence_name(e: &ast::Expr, current: Option<&str>) -> Result<(String, String), MySqlError> {
    match e {
        ast::Expr::Identifier(i) => {
            let db = current.ok_or_else(MySqlError::no_db)?;
            Ok((db.to_string(), i.value.clone()))
        }
        ast::Expr::CompoundIdentifier(ids) if ids.len() == 2 => {
            Ok((ids[0].value.clone(), ids[1].value.clone()))
        }
        other => Err(syntax(&other.to_string())),
    }
}

/// An integer literal argument (SETVAL's value, is_used and round).
fn literal(e: &ast::Expr) -> Result<i64, MySqlError> {
    let (neg, inner) = match e {
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr,
        } => (true, expr.as_ref()),
        other => (false, other),
    };
    let text = match inner {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) => n.clone(),
            ast::Value::Boolean(b) => (*b as u8).to_string(),
            _ => return Err(syntax(&e.to_string())),
        },
        _ => return Err(syntax(&e.to_string())),
    };
    let v: i128 = text.parse().map_err(|_| syntax(&text))?;
    let v = if neg { -v } else { v };
    i64::try_from(v).map_err(|_| syntax(&text))
}

/// Binds a call of a sequence function: `None` when `name` is none.
pub fn bind(
    name: &str,
    args: &[&ast::Expr],
    storage: &basalt_storage::Storage,
    current_db: Option<&str>,
) -> Result<Option<(Expr, ExprType)>, MySqlError> {
    let Some(f) = SeqFn::from_name(name) else {
        return Ok(None);
    };
    let (lo, hi) = match f {
        SeqFn::Set => (2, 4),
        _ => (1, 1),
    };
    if args.len() < lo || args.len() > hi {
        return Err(syntax(&format!("{name}(")));
    }
    let (db, seq) = sequence_name(args[0], current_db)?;
    Handle::open(storage, &db, &seq, &seq)?;
    let mut bound = vec![Expr::Const(Value::str(&db)), Expr::Const(Value::str(&seq))];
    if f == SeqFn::Set {
        let value = literal(args[1])?;
        let is_used = args.get(2).map(|a| literal(a)).transpose()?.unwrap_or(1);
        let round = args.get(3).map(|a| literal(a)).transpose()?.unwrap_or(0);
        bound.push(Expr::Const(Value::Int(value)));
        bound.push(Expr::Const(Value::Int((is_used != 0) as i64)));
        bound.push(Expr::Const(Value::Int(round)));
    }
    Ok(Some((
        Expr::Func(super::Func::Seq(f), bound),
        result_type(f),
    )))
}

fn text(v: &Value) -> String {
    String::from_utf8_lossy(&crate::value::to_bytes(v)).into_owned()
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::UInt(u) => *u as i64,
        _ => 0,
    }
}

pub fn eval(f: SeqFn, vals: Vec<Value>, ctx: &mut EvalCtx) -> R {
    let (db, name) = (text(&vals[0]), text(&vals[1]));
    let storage = ctx.cx.engine.storage.clone();
    if f == SeqFn::Last {
        let h = Handle::open(&storage, &db, &name, &name)?;
        return Ok(match ctx.cx.seq_last.get(&(db, name)) {
            Some((id, v)) if *id == h.id() => Value::Int(*v),
            _ => Value::Null,
        });
    }
    let h = Handle::open(&storage, &db, &name, &name)?.logged(ctx.cx.sequence_log());
    let auto = crate::session::sequence::auto_inc(ctx.cx);
    let engine = ctx.cx.engine.clone();
    match f {
        SeqFn::Next => {
            let v = engine.sequences.next(&storage, &h, auto)?;
            ctx.cx.seq_last.insert((db, name), (h.id(), v));
            Ok(Value::Int(v))
        }
        _ => {
            let r = engine.sequences.set(
                &storage,
                &h,
                auto,
                int(&vals[2]),
                int(&vals[3]) != 0,
                int(&vals[4]),
            )?;
            Ok(r.map_or(Value::Null, Value::Int))
        }
    }
}
