//! Compiling ROW and TYPE OF variables and FOR loops over cursors and
//! queries (see `row.rs`). A row's fields are slots named `row.field`; a
//! FOR loop over rows is
//!
//! ```text
//!         [arguments into the cursor's parameters]
//!         Open cursor
//! start:  Fetch cursor -> record fields, to end when no row is left
//!         body                      (ITERATE: start)
//!         Jump start
//! end:    Close cursor              (LEAVE: end)
//! ```

use super::compile::{Compiler, LabelKind};
use super::parse::{Node, RowOf, RowsOf};
use super::row::{
    declared_fields, field_target, no_field, operand_columns, row_constructor, row_fields,
};
use super::{Code, Instr, RowSource};
use basalt_common::MySqlError;

type R<T> = Result<T, MySqlError>;

impl Compiler<'_> {
    /// Field (name, type text) pairs from the catalog. An error fails the
    /// compile (a declaration's, as MariaDB's CALL fails before the body
    /// runs), or is raised when the statement runs (`defer`, and at CREATE),
    /// with no fields.
    fn catalog_fields(&mut self, src: RowSource<'_>, defer: bool) -> R<Vec<(String, String)>> {
        self.catalog_types = true;
        match self.rows.fields(src, &self.types) {
            Ok(f) => Ok(f),
            Err(e) if defer || self.rows.defer_errors() => {
                self.emit(Instr::Raise(e));
                Ok(Vec::new())
            }
            Err(e) => Err(e),
        }
    }

    /// The fields of a ROW declaration.
    fn row_of(&mut self, of: &RowOf) -> R<Vec<(String, String)>> {
        Ok(match of {
            RowOf::Fields(f) => declared_fields(f),
            RowOf::Named(parts) => match parts.as_slice() {
                [name] if self.cursor(name).is_ok() => {
                    let query = self.cursor(name)?.query.clone();
                    self.catalog_fields(RowSource::Query(&query), false)?
                }
                [t] => self.catalog_fields(RowSource::Table(None, t), false)?,
                [db, t] => self.catalog_fields(RowSource::Table(Some(db), t), false)?,
                _ => return Err(MySqlError::parse_error(&parts.join("."), 1)),
            },
        })
    }

    /// Declares row `name` with `fields`; returns its slots.
    fn declare_row(&mut self, name: &str, fields: &[(String, String)]) -> Vec<usize> {
        let slots = fields
            .iter()
            .map(|(f, ty)| {
                let slot = self.types.len();
                self.types.push((f.clone(), ty.clone()));
                self.names
                    .push((format!("{}.{}", name, f).to_lowercase(), slot));
                slot
            })
            .collect();
        self.refresh_scope();
        slots
    }

    /// DECLARE r [, r] ROW ... [DEFAULT ...].
    pub(super) fn declare_rows(
        &mut self,
        outer: usize,
        names: &[String],
        of: &RowOf,
        default: Option<&str>,
    ) -> R<()> {
        self.check_duplicates(outer, names)?;
        let fields = self.row_of(of)?;
        // The default is evaluated where the rows are not yet visible.
        let scope = self.scope.clone();
        for n in names {
            let slots = self.declare_row(n, &fields);
            if let (RowOf::Fields(_), Some(first)) = (of, slots.first()) {
                self.explicit_rows.push(*first);
            }
            match default {
                Some(v) => self.assign_row(&slots, v, &scope),
                None => slots.iter().for_each(|s| self.emit(Instr::Null(*s))),
            }
        }
        Ok(())
    }

    /// DECLARE v [, v] TYPE OF {var | [db.]table.column} [DEFAULT ...].
    pub(super) fn declare_type_of(
        &mut self,
        outer: usize,
        names: &[String],
        of: &[String],
        default: Option<&str>,
    ) -> R<()> {
        if let [var] = of {
            if let Some(slots) = row_fields(&self.names, var) {
                // TYPE OF a row variable: a row of the same fields.
                let fields: Vec<(String, String)> =
                    slots.iter().map(|s| self.types[*s].clone()).collect();
                return self.declare_rows(outer, names, &RowOf::Fields(params(&fields)), default);
            }
        }
        let (column, type_text) = match of {
            [var] => {
                let slot = self.slot_of(var).ok_or_else(|| undeclared(var))?;
                (None, self.types[slot].1.clone())
            }
            [t, c] => self.column_type(RowSource::Column(None, t, c))?,
            [db, t, c] => self.column_type(RowSource::Column(Some(db), t, c))?,
            _ => return Err(MySqlError::parse_error(&of.join("."), 1)),
        };
        let first = self.types.len();
        self.declare_vars(outer, names, &type_text, default)?;
        // Conversion errors name the column, as MariaDB's copy of its
        // definition does.
        if let Some(column) = column {
            self.types[first..]
                .iter_mut()
                .for_each(|t| t.0 = column.clone());
        }
        Ok(())
    }

    /// A column's name and type text; INT when it cannot be resolved (the
    /// error is raised before the variable is used).
    fn column_type(&mut self, src: RowSource<'_>) -> R<(Option<String>, String)> {
        Ok(match self.catalog_fields(src, false)?.pop() {
            Some((name, ty)) => (Some(name), ty),
            None => (None, "INT".to_string()),
        })
    }

    /// Assignments of a whole row from `ROW(...)` or another row variable
    /// (1241 when it runs, for a value of another number of columns).
    pub(super) fn assign_row(
        &mut self,
        slots: &[usize],
        value: &str,
        scope: &std::sync::Arc<super::SpScope>,
    ) {
        let code = |text: &str| Code {
            text: text.to_string(),
            scope: scope.clone(),
        };
        let parts: Vec<Code> = match row_constructor(value) {
            Some(parts) => parts.iter().map(|p| code(p)).collect(),
            None => match scope_row(scope, value) {
                Some(from) => from
                    .iter()
                    .map(|s| code(&format!("`{}`", scope_name(scope, *s))))
                    .collect(),
                None => vec![code(value)],
            },
        };
        if parts.len() != slots.len() {
            self.emit(Instr::Raise(operand_columns(slots.len())));
            return;
        }
        for (slot, value) in slots.iter().zip(parts) {
            self.emit(Instr::Assign { slot: *slot, value });
        }
    }

    /// SET of a row variable or of a row's field; false for another target.
    pub(super) fn set_row(&mut self, target: &str, value: &str) -> R<bool> {
        let scope = self.scope.clone();
        let params = self.params;
        let scope_row = |name: &str| scope_row(&scope, name).filter(|s| s[0] >= params);
        if let Some(slots) = scope_row(target) {
            self.assign_row(&slots, value, &scope);
            return Ok(true);
        }
        let Some((row, field)) = field_target(target) else {
            return Ok(false);
        };
        let Some(slots) = scope_row(&row) else {
            return Ok(false);
        };
        match scope.slot(&format!("{row}.{field}")) {
            Some(slot) => {
                let value = self.code(value);
                self.emit(Instr::Assign { slot, value });
            }
            None if self.is_explicit(&slots) && self.rows.defer_errors() => {
                return Err(no_field(&row, &field))
            }
            None => self.emit(Instr::Raise(no_field(&row, &field))),
        }
        Ok(true)
    }

    fn is_explicit(&self, slots: &[usize]) -> bool {
        slots
            .first()
            .is_some_and(|s| self.explicit_rows.contains(s))
    }

    /// At CREATE: `r.f` in a statement or expression names a field of each
    /// row declared with its fields (4082, as MariaDB's parser checks them;
    /// the fields of other rows are known only when the program runs).
    pub(super) fn check_fields(&self) -> R<()> {
        if self.explicit_rows.is_empty() {
            return Ok(());
        }
        for code in self.instrs.iter().flat_map(codes) {
            let toks = crate::front::lexer::lex(&code.text).tokens;
            let text = |i: usize| ident_text(&code.text, &toks[i]);
            for i in 0..toks.len().saturating_sub(2) {
                let dotted = toks[i + 1].text(&code.text) == "."
                    && (i == 0 || toks[i - 1].text(&code.text) != ".");
                let (Some(row), Some(field)) = (text(i), text(i + 2)) else {
                    continue;
                };
                if !dotted {
                    continue;
                }
                let Some(slots) = row_fields(&code.scope.vars, &row) else {
                    continue;
                };
                if self.is_explicit(&slots) && code.scope.slot(&format!("{row}.{field}")).is_none()
                {
                    return Err(no_field(&row, &field));
                }
            }
        }
        Ok(())
    }

    /// FOR rec IN cursor / (query) DO body END FOR.
    pub(super) fn for_rows(
        &mut self,
        label: &Option<String>,
        var: &str,
        source: &RowsOf,
        body: &[Node],
    ) -> R<()> {
        let marks = self.marks();
        let query = match source {
            RowsOf::Cursor(name, _) => self.cursor(name)?.query.clone(),
            RowsOf::Query(text) => self.code(text),
        };
        // MariaDB reads the record's structure when the loop starts: an
        // error is the FOR statement's.
        let fields = self.catalog_fields(RowSource::Query(&query), true)?;
        let cursor = match source {
            RowsOf::Cursor(name, args) => {
                self.open(name, args)?;
                self.cursor(name)?.number
            }
            RowsOf::Query(_) => {
                let number = self.cursor_count;
                self.cursor_count += 1;
                self.emit(Instr::Open {
                    cursor: number,
                    query,
                    reopen: true,
                });
                number
            }
        };
        let slots = self.declare_row(var, &fields);
        let start = self.pc();
        self.open_label(label, LabelKind::Loop, start);
        self.emit(Instr::Fetch {
            cursor,
            slots,
            done: Some(0),
        });
        self.list(body)?;
        self.emit(Instr::Jump(start));
        self.close_label(label);
        let end = self.pc();
        if let Instr::Fetch { done, .. } = &mut self.instrs[start] {
            *done = Some(end);
        }
        self.emit(Instr::Close(cursor));
        self.restore(marks);
        Ok(())
    }
}

/// The texts an instruction evaluates or runs.
fn codes(i: &Instr) -> Vec<&Code> {
    match i {
        Instr::Sql(c) | Instr::Assign { value: c, .. } | Instr::JumpUnless { cond: c, .. } => {
            vec![c]
        }
        Instr::Open { query, .. } => vec![query],
        Instr::Return(c) => vec![c],
        Instr::Signal { items, .. } => items.iter().map(|(_, c)| c).collect(),
        _ => Vec::new(),
    }
}

/// An identifier token's name (unquoted).
fn ident_text(src: &str, t: &crate::front::lexer::Token) -> Option<String> {
    use crate::front::lexer::TokKind;
    match t.kind {
        TokKind::Word => Some(t.text(src).to_string()),
        TokKind::QuotedIdent => Some(t.text(src).trim_matches('`').replace("``", "`")),
        _ => None,
    }
}

/// The fields of row `name` visible in `scope`.
fn scope_row(scope: &super::SpScope, name: &str) -> Option<Vec<usize>> {
    let name = name.trim();
    let name = name
        .strip_prefix('`')
        .and_then(|n| n.strip_suffix('`'))
        .unwrap_or(name);
    row_fields(&scope.vars, name)
}

/// The scope name of `slot` (`row.field`).
fn scope_name(scope: &super::SpScope, slot: usize) -> String {
    scope
        .vars
        .iter()
        .rev()
        .find(|(_, s)| *s == slot)
        .map_or_else(String::new, |(n, _)| n.replace('`', "``"))
}

fn params(fields: &[(String, String)]) -> Vec<super::ParamDef> {
    fields
        .iter()
        .map(|(name, ty)| super::ParamDef {
            mode: super::Mode::In,
            name: name.clone(),
            type_text: ty.clone(),
        })
        .collect()
}

fn undeclared(name: &str) -> MySqlError {
    MySqlError::new(1327, "42000", format!("Undeclared variable: {name}"))
}
