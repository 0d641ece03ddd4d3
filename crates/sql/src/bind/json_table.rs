//! `JSON_TABLE(doc, path COLUMNS (...)) AS alias` in FROM, as MariaDB 10.11 has
//! it.
//!
//! The document is bound in the scope of the tables to the JSON_TABLE's left
//! (the FROM tables added so far) and of the enclosing queries: a column of a
//! table to its right is unknown there (1054 `... in 'JSON_TABLE'`), as in
//! MariaDB. The tables the document reads become the level's dependencies, so the
//! join order keeps the JSON_TABLE after them and the executor evaluates the
//! document for each of their rows (see `exec::json_table`).
//!
//! The paths and DEFAULT values are literals (MariaDB's grammar: 1064 for
//! anything else); a literal the plan cache stripped is read from the stripped
//! values, and the plan is then not reused for other values. Paths are parsed
//! here (4042 naming argument 2, for the row path and the column paths alike).
//! Column names must be unique across the nested paths (1060); the alias is
//! required (4177) and takes no column list (1064). ENUM and SET columns are a
//! syntax error in MariaDB's grammar; JSON columns are LONGTEXT in the
//! connection's collation.

use super::from::From;
use super::{Binder, Clause};
use crate::expr::func::json_tree::{self as jt, Path};
use crate::expr::Expr;
use crate::plan::json_table::{Column, ColumnKind, JsonTableFn, OnResponse, Scope};
use basalt_common::{ColumnDef, DataType, LobKind, MySqlError, Value};
use sqlparser::ast::{self, JsonTableColumn, JsonTableColumnErrorHandling as Handling};
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// The columns of a JSON_TABLE as they are bound: definitions in row order.
struct Columns {
    defs: Vec<ColumnDef>,
}

impl Binder<'_> {
    /// Adds `JSON_TABLE(...) AS alias` to `out`; returns its table index.
    pub(super) fn json_table(
        &mut self,
        json_expr: &ast::Expr,
        json_path: &ast::ValueWithSpan,
        columns: &[JsonTableColumn],
        alias: Option<&ast::TableAlias>,
        out: &mut From,
    ) -> R<usize> {
        let Some(alias) = alias else {
            return Err(MySqlError::new(
                4177,
                "HY000",
                "Every table function must have an alias.",
            ));
        };
        if !alias.columns.is_empty() {
            return Err(self.syntax_error_after(alias.name.span.end));
        }
        self.reusable = false;
        let saved = self.clause;
        self.clause = Clause::JsonTable;
        let doc = self.expr(json_expr, &out.scope, None);
        self.clause = saved;
        let (doc, _) = doc?;
        let deps = tables_read(&doc, out);
        let mut cols = Columns { defs: Vec::new() };
        let root = self.scope(json_path, columns, &mut cols)?;
        let name = alias.name.value.clone();
        let width = cols.defs.len();
        let def = crate::infoschema::columns_def("", &name, cols.defs);
        let vt = Arc::new(crate::infoschema::VirtualTable::new(def, Vec::new()));
        let t = self.add_virtual(vt, &name, out)?;
        out.tables[t].func = Some(Arc::new(JsonTableFn {
            doc,
            alias: name,
            root,
            width,
        }));
        out.lateral.push((t, deps));
        Ok(t)
    }

    /// A row path and its columns (the table's, or a NESTED PATH's).
    fn scope(
        &mut self,
        path: &ast::ValueWithSpan,
        columns: &[JsonTableColumn],
        cols: &mut Columns,
    ) -> R<Scope> {
        let path = self.path_literal(path)?;
        let mut scope = Scope {
            path,
            columns: Vec::new(),
            nested: Vec::new(),
        };
        for c in columns {
            match c {
                JsonTableColumn::Nested(n) => {
                    let inner = self.scope(&n.path, &n.columns, cols)?;
                    scope.nested.push(inner);
                }
                JsonTableColumn::ForOrdinality(name) => {
                    let def = ColumnDef::new(
                        &name.value,
                        DataType::int(basalt_common::IntKind::Int, false),
                    );
                    let index = add_column(cols, def)?;
                    scope.columns.push(Column {
                        index,
                        kind: ColumnKind::Ordinality,
                    });
                }
                JsonTableColumn::Named(n) => {
                    let (def, json) = self.column_def(n)?;
                    let path = self.path_literal(&n.path)?;
                    let kind = if n.exists {
                        ColumnKind::Exists(path)
                    } else {
                        ColumnKind::Path {
                            path,
                            on_empty: self.response(n.on_empty.as_ref())?,
                            on_error: self.response(n.on_error.as_ref())?,
                            json,
                        }
                    };
                    let index = add_column(cols, def)?;
                    scope.columns.push(Column { index, kind });
                }
            }
        }
        Ok(scope)
    }

    /// A column's definition, and whether it is a JSON column.
    fn column_def(&mut self, n: &ast::JsonTableNamedColumn) -> R<(ColumnDef, bool)> {
        use sqlparser::ast::DataType as D;
        let name = &n.name.value;
        let coll = self.cx.connection_collation;
        let (dt, json) = match &n.r#type {
            D::JSON => (
                DataType::Text {
                    kind: LobKind::Long,
                    collation: coll,
                },
                true,
            ),
            D::Enum(..) | D::Set(_) => {
                return Err(self.syntax_error_after(n.name.span.end));
            }
            other => (super::column_type::data_type(other, coll, name)?, false),
        };
        Ok((ColumnDef::new(name, dt), json))
    }

    fn response(&mut self, h: Option<&Handling>) -> R<OnResponse> {
        Ok(match h {
            None | Some(Handling::Null) => OnResponse::Null,
            Some(Handling::Error) => OnResponse::Error,
            Some(Handling::Default(v)) => OnResponse::Default(self.literal_value(v, false)?),
        })
    }

    /// A JSON path literal, parsed (4042 when it is not a path).
    fn path_literal(&mut self, v: &ast::ValueWithSpan) -> R<Path> {
        let Value::Bytes(b) = self.literal_value(v, true)? else {
            return Err(self.syntax_error_at(v.span.start));
        };
        jt::parse_path(&String::from_utf8_lossy(&b)).map_err(|pos| {
            MySqlError::new(
                4042,
                "HY000",
                format!(
                    "Syntax error in JSON path in argument 2 to function 'JSON_TABLE' at position {pos}"
                ),
            )
        })
    }

    /// A string (or, unless `string_only`, number) literal of the clause; one the
    /// plan cache stripped comes from the stripped values.
    fn literal_value(&mut self, v: &ast::ValueWithSpan, string_only: bool) -> R<Value> {
        use sqlparser::ast::Value as V;
        let val = match &v.value {
            V::SingleQuotedString(s) | V::DoubleQuotedString(s) => Value::str(s),
            V::Number(n, _) if !string_only => Value::str(n),
            V::Placeholder(_) => {
                let loc = v.span.start;
                let stripped = self.params.stripped;
                match (stripped, self.params.map.index(loc.line, loc.column)) {
                    (Some(vals), Some(i)) => match vals.get(i) {
                        Some(Value::Bytes(b)) => Value::Bytes(b.clone()),
                        Some(n) if !string_only && !n.is_null() => {
                            Value::Bytes(crate::value::to_bytes(n))
                        }
                        _ => return Err(self.syntax_error_at(loc)),
                    },
                    _ => return Err(self.syntax_error_at(loc)),
                }
            }
            _ => return Err(self.syntax_error_at(v.span.start)),
        };
        Ok(val)
    }

    /// 1064 near the text from (line, column) of the parsed statement on.
    fn syntax_error_at(&self, loc: sqlparser::tokenizer::Location) -> MySqlError {
        let at = byte_offset(self.text, loc.line, loc.column);
        MySqlError::parse_error(&self.text[at..], loc.line.max(1) as u32)
    }

    /// 1064 near the text after (line, column), past blanks.
    fn syntax_error_after(&self, loc: sqlparser::tokenizer::Location) -> MySqlError {
        let at = byte_offset(self.text, loc.line, loc.column);
        let rest = self.text[at..].trim_start();
        MySqlError::parse_error(rest, loc.line.max(1) as u32)
    }
}

/// The byte offset of 1-based (line, column) in `text` (columns count
/// characters, as sqlparser's locations do).
pub(super) fn byte_offset(text: &str, line: u64, column: u64) -> usize {
    let mut l = 1;
    let mut c = 1;
    for (i, ch) in text.char_indices() {
        if l == line && c == column {
            return i;
        }
        if ch == '\n' {
            l += 1;
            c = 1;
        } else {
            c += 1;
        }
    }
    text.len()
}

fn add_column(cols: &mut Columns, def: ColumnDef) -> R<usize> {
    if cols
        .defs
        .iter()
        .any(|d| d.name.eq_ignore_ascii_case(&def.name))
    {
        return Err(MySqlError::dup_fieldname(&def.name));
    }
    cols.defs.push(def);
    Ok(cols.defs.len() - 1)
}

/// The FROM tables (bit set by index) whose columns `doc` reads.
fn tables_read(doc: &Expr, out: &From) -> u64 {
    let mut mask = 0u64;
    doc.walk(&mut |e| {
        if let Expr::Column(i) = e {
            if let Some(t) = out
                .tables
                .iter()
                .position(|t| (t.offset..t.offset + t.width()).contains(i))
            {
                mask |= 1 << t;
            }
        }
    });
    mask
}
