//! The rows of a JSON_TABLE for the current outer row.
//!
//! The document is evaluated against the joined row built so far (its lateral
//! references are to tables of earlier levels), read as JSON (a NULL document
//! gives no rows; an invalid one fails the statement with MariaDB's 4035..4040
//! naming argument 1 of 'JSON_TABLE'), and expanded in two steps:
//!
//! 1. Bindings. Each node the row path selects, in document order, is a row of
//!    its scope, numbered from 1 (FOR ORDINALITY). A scope with NESTED PATHs
//!    repeats its row for every row of each nested path in turn (siblings never
//!    combine: a row of one nested path has NULL in the columns of the others);
//!    when no nested path has a row, the row stands once with NULL there.
//! 2. Values. Each output row's columns are computed from its bindings and
//!    stored as MariaDB stores into a column of the declared type, without
//!    strict mode: 1264 / 1265 / 1366 warnings naming the column and the
//!    output row's number (1366 names `*any*`.`json_table`, as MariaDB does).
//!
//! A PATH column takes the first node its path selects. A scalar is stored as
//! text (strings unescaped, numbers as written, true / false as 1 / 0 in
//! numeric columns and as words otherwise, null as NULL); an array or object
//! only goes into a JSON column (as its source text), anything else is the ON
//! ERROR case. Nothing found is the ON EMPTY case. DEFAULT values are stored
//! like found ones; ERROR gives 4176 (empty) or 4178 (not a scalar).

use super::store::{store, Target};
use super::Exec;
use crate::expr::func::json_tree::{self as jt, Json, V};
use crate::plan::json_table::{Column, ColumnKind, JsonTableFn, OnResponse, Scope};
use crate::value::to_bytes;
use basalt_common::{ColumnDef, DataType, MySqlError, TableDef, Value};
use basalt_storage::api::{Fetched, RowHandle};

type R<T> = Result<T, MySqlError>;

/// A node bound to a scope: (scope, node, ordinal).
type Binding<'a> = (&'a Scope, &'a Json, usize);

/// The JSON_TABLE's rows for the joined row `row`.
pub fn rows(f: &JsonTableFn, def: &TableDef, row: &[Value], ex: &mut Exec) -> R<Vec<Fetched>> {
    let doc = f.doc.eval(row, ex.ctx)?;
    if doc.is_null() {
        return Ok(Vec::new());
    }
    let text = to_bytes(&doc);
    let tree = jt::parse(&text).map_err(|(e, pos)| {
        let (code, msg) = e.note("JSON_TABLE", 1, pos);
        MySqlError::new(code, "HY000", msg)
    })?;
    let mut bound = Vec::new();
    expand(&f.root, &tree, &mut Vec::new(), &mut bound);
    let mut out = Vec::with_capacity(bound.len());
    for (n, bindings) in bound.iter().enumerate() {
        if n % 256 == 255 {
            ex.check_interrupt()?;
        }
        let mut values = vec![Value::Null; f.width];
        for &(scope, node, ord) in bindings {
            for c in &scope.columns {
                let col = &def.columns[c.index];
                let cell = Cell {
                    f,
                    col,
                    text: &text,
                    row: n as u64 + 1,
                };
                values[c.index] = cell.value(c, node, ord, ex)?;
            }
        }
        out.push(Fetched {
            handle: RowHandle((n as u64).to_be_bytes().to_vec()),
            row: values,
        });
    }
    Ok(out)
}

/// Appends to `out` the binding lists of `scope`'s rows under `node`, each
/// prefixed by `prefix` (the bindings of the enclosing scopes).
fn expand<'a>(
    scope: &'a Scope,
    node: &'a Json,
    prefix: &mut Vec<Binding<'a>>,
    out: &mut Vec<Vec<Binding<'a>>>,
) {
    let mut found = Vec::new();
    jt::select(node, &scope.path.steps, &mut found);
    for (i, m) in found.into_iter().enumerate() {
        prefix.push((scope, m, i + 1));
        let before = out.len();
        for nested in &scope.nested {
            expand(nested, m, prefix, out);
        }
        if out.len() == before {
            out.push(prefix.clone());
        }
        prefix.pop();
    }
}

/// One column of one output row.
struct Cell<'a> {
    f: &'a JsonTableFn,
    col: &'a ColumnDef,
    text: &'a [u8],
    row: u64,
}

impl Cell<'_> {
    fn value(&self, c: &Column, node: &Json, ord: usize, ex: &mut Exec) -> R<Value> {
        match &c.kind {
            ColumnKind::Ordinality => self.store(Value::Int(ord as i64), ex),
            ColumnKind::Exists(p) => {
                let mut found = Vec::new();
                jt::select(node, &p.steps, &mut found);
                self.store(Value::Int(!found.is_empty() as i64), ex)
            }
            ColumnKind::Path {
                path,
                on_empty,
                on_error,
                json,
            } => {
                let mut found = Vec::new();
                jt::select(node, &path.steps, &mut found);
                match found.first() {
                    None => self.respond(on_empty, 4176, ex),
                    Some(v) if *json => {
                        let (a, b) = v.span;
                        self.store(Value::Bytes(self.text[a..b].to_vec()), ex)
                    }
                    Some(v) if !v.is_scalar() => self.respond(on_error, 4178, ex),
                    Some(v) => self.store(self.scalar(v), ex),
                }
            }
        }
    }

    fn scalar(&self, v: &Json) -> Value {
        match &v.v {
            V::Null => Value::Null,
            V::Bool(b) if numeric(&self.col.data_type) => Value::Int(*b as i64),
            V::Bool(b) => Value::str(if *b { "true" } else { "false" }),
            V::Num(s) => Value::str(s),
            V::Str(s) => Value::str(&jt::unescape(s)),
            V::Arr(_) | V::Obj(_) => Value::Null,
        }
    }

    /// The ON EMPTY / ON ERROR response; `code` is the error ERROR gives.
    fn respond(&self, r: &OnResponse, code: u16, ex: &mut Exec) -> R<Value> {
        match r {
            OnResponse::Null => Ok(Value::Null),
            OnResponse::Default(v) => self.store(v.clone(), ex),
            OnResponse::Error if code == 4176 => Err(MySqlError::new(
                4176,
                "HY000",
                format!(
                    "Field '{}' can't be set for JSON_TABLE '{}'.",
                    self.col.name, self.f.alias
                ),
            )),
            OnResponse::Error => Err(MySqlError::new(
                4178,
                "HY000",
                format!(
                    "Can't store an array or an object in the scalar column '{}' of JSON_TABLE '{}'.",
                    self.col.name, self.f.alias
                ),
            )),
        }
    }

    fn store(&self, v: Value, ex: &mut Exec) -> R<Value> {
        let target = Target {
            db: "*any*",
            table: "json_table",
            col: self.col,
            row: self.row,
            strict: false,
        };
        store(v, &target, ex.ctx.cx)
    }
}

fn numeric(dt: &DataType) -> bool {
    matches!(
        dt,
        DataType::Int { .. }
            | DataType::Decimal { .. }
            | DataType::Float
            | DataType::Double
            | DataType::Year
    )
}
