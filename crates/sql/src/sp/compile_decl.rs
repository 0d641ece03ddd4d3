//! Compiling conditions, cursors, handlers and SIGNAL. A block's handlers are
//! placed after its statements; each covers the block's instruction range
//! (statements in a handler's own body are covered only by outer blocks'
//! handlers, as in MariaDB). A CONTINUE handler goes back to the instruction
//! after the one that raised the condition, an EXIT handler to the end of its
//! block.

use super::compile::Compiler;
use super::parse::{CondRef, Node};
use super::{Code, CondValue, HandlerDef, Instr, ParamDef};

/// A declared cursor: its number, query, and parameters' slots.
pub(super) struct CursorDef {
    pub name: String,
    pub number: usize,
    pub query: Code,
    pub params: Vec<usize>,
}
use basalt_common::MySqlError;

type R<T> = Result<T, MySqlError>;

/// How far each scoped list reached when a block began.
pub(super) type Marks = (usize, usize, usize);

impl Compiler<'_> {
    pub(super) fn marks(&self) -> Marks {
        (self.names.len(), self.conditions.len(), self.cursors.len())
    }

    /// Leaves a block: its declarations go out of scope.
    pub(super) fn restore(&mut self, (names, conds, cursors): Marks) {
        self.names.truncate(names);
        self.conditions.truncate(conds);
        self.cursors.truncate(cursors);
        self.refresh_scope();
    }

    pub(super) fn declare_condition(&mut self, outer: usize, name: &str, value: &CondRef) -> R<()> {
        let lower = name.to_lowercase();
        if self.conditions[outer..].iter().any(|(n, _)| *n == lower) {
            return Err(MySqlError::new(
                1332,
                "42000",
                format!("Duplicate condition: {name}"),
            ));
        }
        let v = self.resolve(value)?;
        self.conditions.push((lower, v));
        Ok(())
    }

    /// DECLARE name CURSOR [(params)] FOR query: the parameters are variables
    /// of their own that only the query sees (OPEN sets them).
    pub(super) fn declare_cursor(
        &mut self,
        outer: usize,
        name: &str,
        params: &[ParamDef],
        query: &str,
    ) -> R<()> {
        let lower = name.to_lowercase();
        if self.cursors[outer..].iter().any(|c| c.name == lower) {
            return Err(MySqlError::new(
                1333,
                "42000",
                format!("Duplicate cursor: {name}"),
            ));
        }
        let first = query.split_whitespace().next().unwrap_or("");
        if !(first.eq_ignore_ascii_case("select")
            || first.eq_ignore_ascii_case("with")
            || first.starts_with('('))
        {
            return Err(MySqlError::parse_error(query, 1));
        }
        let visible = self.names.len();
        let slots: Vec<usize> = params
            .iter()
            .map(|p| self.declare_name(&p.name, &p.type_text))
            .collect();
        self.refresh_scope();
        let code = self.code(query);
        self.names.truncate(visible);
        self.refresh_scope();
        self.cursors.push(CursorDef {
            name: lower,
            number: self.cursor_count,
            query: code,
            params: slots,
        });
        self.cursor_count += 1;
        Ok(())
    }

    /// A cursor in scope.
    pub(super) fn cursor(&self, name: &str) -> R<&CursorDef> {
        let lower = name.to_lowercase();
        self.cursors
            .iter()
            .rev()
            .find(|c| c.name == lower)
            .ok_or_else(|| MySqlError::new(1324, "42000", format!("Undefined CURSOR: {name}")))
    }

    /// OPEN: the arguments into the cursor's parameters (4080 when their
    /// number differs), then the query runs.
    pub(super) fn open(&mut self, name: &str, args: &[String]) -> R<()> {
        let c = self.cursor(name)?;
        if c.params.len() != args.len() {
            return Err(MySqlError::new(
                4080,
                "42000",
                format!("Incorrect parameter count to cursor '{name}'"),
            ));
        }
        let (cursor, query, params) = (c.number, c.query.clone(), c.params.clone());
        for (slot, arg) in params.into_iter().zip(args) {
            let value = self.code(arg);
            self.emit(Instr::Assign { slot, value });
        }
        self.emit(Instr::Open {
            cursor,
            query,
            reopen: false,
        });
        Ok(())
    }

    pub(super) fn fetch(&mut self, cursor: &str, vars: &[String]) -> R<()> {
        let cursor = self.cursor(cursor)?.number;
        let mut slots = Vec::with_capacity(vars.len());
        for v in vars {
            let row = super::row::row_fields(&self.names, v).filter(|f| f[0] >= self.params);
            if let Some(fields) = row {
                slots.extend(fields);
                continue;
            }
            let slot = self.slot_of(v).ok_or_else(|| {
                MySqlError::new(1327, "42000", format!("Undeclared variable: {v}"))
            })?;
            slots.push(slot);
        }
        self.emit(Instr::Fetch {
            cursor,
            slots,
            done: None,
        });
        Ok(())
    }

    pub(super) fn signal(
        &mut self,
        resignal: bool,
        cond: Option<&CondRef>,
        items: &[(String, String)],
    ) -> R<()> {
        let cond = match cond {
            Some(c) => {
                let v = self.resolve(c)?;
                if !matches!(v, CondValue::SqlState(_)) {
                    return Err(MySqlError::new(
                        1646,
                        "HY000",
                        "SIGNAL/RESIGNAL can only use a CONDITION defined with SQLSTATE",
                    ));
                }
                Some(v)
            }
            None => None,
        };
        let mut seen: Vec<&str> = Vec::new();
        let mut out = Vec::new();
        for (item, value) in items {
            if !SIGNAL_ITEMS.contains(&item.as_str()) {
                return Err(MySqlError::parse_error(item, 1));
            }
            if seen.contains(&item.as_str()) {
                return Err(MySqlError::new(
                    1641,
                    "42000",
                    format!("Duplicate condition information item '{item}'"),
                ));
            }
            seen.push(item);
            out.push((item.clone(), self.code(value)));
        }
        self.emit(Instr::Signal {
            resignal,
            cond,
            items: out,
        });
        Ok(())
    }

    /// A condition as a handler or SIGNAL names it, names resolved.
    fn resolve(&self, c: &CondRef) -> R<CondValue> {
        Ok(match c {
            CondRef::SqlState(s) => CondValue::SqlState(s.clone()),
            CondRef::Errno(n) => CondValue::Errno(*n),
            CondRef::SqlWarning => CondValue::SqlWarning,
            CondRef::NotFound => CondValue::NotFound,
            CondRef::SqlException => CondValue::SqlException,
            CondRef::Name(n) => {
                let lower = n.to_lowercase();
                self.conditions
                    .iter()
                    .rev()
                    .find(|(x, _)| *x == lower)
                    .map(|(_, v)| v.clone())
                    .ok_or_else(|| {
                        MySqlError::new(1319, "42000", format!("Undefined CONDITION: {n}"))
                    })?
            }
        })
    }

    /// The block's handler bodies after its statements; `start` is where the
    /// block's covered range begins.
    pub(super) fn handler_bodies(
        &mut self,
        start: usize,
        handlers: &[(bool, &Vec<CondRef>, &Node)],
    ) -> R<()> {
        if handlers.is_empty() {
            return Ok(());
        }
        let end = self.pc();
        let skip = self.pc();
        self.emit(Instr::Jump(0));
        let mut seen: Vec<CondValue> = Vec::new();
        let mut defs = Vec::new();
        for (exit, conds, body) in handlers {
            let mut values = Vec::new();
            for c in conds.iter() {
                let v = self.resolve(c)?;
                if seen.contains(&v) {
                    return Err(MySqlError::new(
                        1413,
                        "42000",
                        "Duplicate handler declared in the same block",
                    ));
                }
                seen.push(v.clone());
                values.push(v);
            }
            let id = self.handlers.len();
            let body_pc = self.pc();
            self.handlers.push(HandlerDef {
                start,
                end,
                conds: values,
                body: body_pc,
                body_end: 0,
                exit_to: None,
            });
            self.node(body)?;
            self.handlers[id].body_end = self.pc();
            self.emit(Instr::HandlerEnd(id));
            defs.push((id, *exit));
        }
        let block_end = self.pc();
        self.instrs[skip] = Instr::Jump(block_end);
        for (id, exit) in defs {
            if exit {
                self.handlers[id].exit_to = Some(block_end);
            }
        }
        Ok(())
    }
}

const SIGNAL_ITEMS: &[&str] = &[
    "CLASS_ORIGIN",
    "SUBCLASS_ORIGIN",
    "CONSTRAINT_CATALOG",
    "CONSTRAINT_SCHEMA",
    "CONSTRAINT_NAME",
    "CATALOG_NAME",
    "SCHEMA_NAME",
    "TABLE_NAME",
    "COLUMN_NAME",
    "CURSOR_NAME",
    "MESSAGE_TEXT",
    "MYSQL_ERRNO",
];
