//! The instruction loop of a stored program, with its handlers, cursors and
//! SIGNAL. A condition an instruction raises (its error, or the warning a
//! statement left) goes to the innermost block's handler that matches it most
//! specifically (errno, then SQLSTATE, then SQLWARNING / NOT FOUND /
//! SQLEXCEPTION); the handled condition leaves the diagnostics list, as in
//! MariaDB. Cursors read the rows their query gave at OPEN.

use super::call::Compiled;
use super::ctx::Level;
use super::{Out, Session};
use crate::result::{Ending, ResultSink};
use crate::sp::conditions::{catchable, no_data, warning_state};
use crate::sp::{CondValue, Instr};
use basalt_common::{ColumnMeta, MySqlError, Row, Value};
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// A handler running: which, where a CONTINUE resumes, what it caught.
struct Activation {
    handler: usize,
    resume: usize,
    caught: MySqlError,
}

#[derive(Default)]
struct Runtime {
    cursors: Vec<Option<VecDeque<Row>>>,
    active: Vec<Activation>,
}

impl Session {
    pub(super) fn run_program(&mut self, c: &mut Compiled, out: &mut Out<'_>) -> R<()> {
        let mut rt = Runtime {
            cursors: vec![None; c.program.cursors],
            active: Vec::new(),
        };
        let mut pc = 0;
        while pc < c.program.instrs.len() {
            if self.interrupt.load(Ordering::Relaxed) {
                return Err(MySqlError::query_interrupted());
            }
            pc = match self.step(c, pc, &mut rt, out) {
                Ok(next) => match self.raised_warning(c, pc) {
                    Some((h, w)) => self.activate(c, &mut rt, h, next, (w, Level::Warning)),
                    None => next,
                },
                Err(e) => match catchable(&e)
                    .then(|| find(c, pc, e.code, e.state, false))
                    .flatten()
                {
                    Some(h) => {
                        let resume = match &c.program.instrs[pc] {
                            Instr::JumpUnless { to, .. } => *to,
                            _ => pc + 1,
                        };
                        let level = match e.state.get(..2) {
                            Some("01") | Some("02") => Level::Warning,
                            _ => Level::Error,
                        };
                        self.activate(c, &mut rt, h, resume, (e, level))
                    }
                    None => {
                        self.note_error_line(c, pc);
                        return Err(e);
                    }
                },
            };
        }
        Ok(())
    }

    /// Note 4094 naming the line of a stored procedure an error leaves it at:
    /// after the error if it is listed, else after it once it is.
    fn note_error_line(&mut self, c: &Compiled, pc: usize) {
        let (code, text) = match c.def.as_ref() {
            Some(def) => {
                let statement = crate::infoschema::routines::create_statement(def);
                let line = crate::sp::header_lines(&statement, &def.body)
                    + c.program.lines.get(pc).copied().unwrap_or(0);
                crate::sp::line_note(line, &def.schema, &def.name)
            }
            // A compound statement's own lines.
            None => crate::sp::anonymous_line_note(c.program.lines.get(pc).copied().unwrap_or(0)),
        };
        if self.sp_error_listed {
            self.cx.note(code, text);
        } else {
            self.cx.trailing_note(code, text);
        }
    }

    /// Starts handler `h` for condition `caught`; returns where to go.
    fn activate(
        &mut self,
        c: &Compiled,
        rt: &mut Runtime,
        h: usize,
        resume: usize,
        (caught, level): (MySqlError, Level),
    ) -> usize {
        // Handlers left by LEAVE or ITERATE are no longer running.
        let at = resume.saturating_sub(1);
        let handlers = &c.program.handlers;
        rt.active
            .retain(|a| (handlers[a.handler].body..handlers[a.handler].body_end).contains(&at));
        // The handler sees the condition it handles, and only it, in the
        // diagnostics area (GET DIAGNOSTICS).
        self.cx.clear_warnings();
        self.cx.trailing.clear();
        self.cx
            .warn_state(level, caught.code, caught.state, caught.message.clone());
        self.sp_error_listed = false;
        rt.active.push(Activation {
            handler: h,
            resume,
            caught,
        });
        handlers[h].body
    }

    /// The handler for the warning the statement at `pc` left, if one
    /// matches (SQLWARNING, NOT FOUND, a warning's errno).
    fn raised_warning(&self, c: &Compiled, pc: usize) -> Option<(usize, MySqlError)> {
        if c.program.handlers.is_empty() || !matches!(c.program.instrs[pc], Instr::Sql(_)) {
            return None;
        }
        if self.cx.kept_warnings {
            return None;
        }
        let w = self
            .cx
            .warnings
            .iter()
            .rev()
            .find(|w| w.level == Level::Warning)?;
        let h = find(c, pc, w.code, warning_state(w.code), true)?;
        // The handler's diagnostics show the warning's own SQLSTATE.
        Some((h, MySqlError::new(w.code, w.state, w.message.clone())))
    }

    /// One instruction; returns the next one's index.
    fn step(
        &mut self,
        c: &mut Compiled,
        pc: usize,
        rt: &mut Runtime,
        out: &mut Out<'_>,
    ) -> R<usize> {
        Ok(match &c.program.instrs[pc] {
            Instr::Sql(code) => {
                let code = code.clone();
                self.sp_statement(&code, out)?;
                pc + 1
            }
            Instr::Assign { slot, value } => {
                let (slot, value) = (*slot, value.clone());
                let v = self.sp_value_into(c, pc, &value, Some(slot))?;
                self.sp_assign(slot, v)?;
                pc + 1
            }
            Instr::Null(slot) => {
                if let Some(f) = self.cx.sp.as_mut() {
                    f.values[*slot] = Value::Null;
                }
                pc + 1
            }
            Instr::JumpUnless { cond, to } => {
                let (cond, to) = (cond.clone(), *to);
                let v = self.sp_value(c, pc, &cond)?;
                if crate::value::truth(&v) == Some(true) {
                    pc + 1
                } else {
                    to
                }
            }
            Instr::Jump(to) => *to,
            Instr::CaseNotFound => {
                return Err(MySqlError::new(
                    1339,
                    "20000",
                    "Case not found for CASE statement",
                ))
            }
            Instr::Open {
                cursor,
                query,
                reopen,
            } => {
                let (cursor, query) = (*cursor, query.clone());
                if rt.cursors[cursor].is_some() && !reopen {
                    return Err(MySqlError::new(1325, "24000", "Cursor is already open"));
                }
                self.set_scope(&query.scope);
                let mut sink = RowsSink::default();
                if let Err(e) = self.run_in_program(&query.text, &mut Out::new(&mut sink)) {
                    self.sp_error_listed = true;
                    return Err(e);
                }
                rt.cursors[cursor] = Some(sink.rows);
                pc + 1
            }
            Instr::Fetch {
                cursor,
                slots,
                done,
            } => {
                let rows = rt.cursors[*cursor]
                    .as_mut()
                    .ok_or_else(|| MySqlError::new(1326, "24000", "Cursor is not open"))?;
                let row = match (rows.pop_front(), done) {
                    (Some(row), _) => row,
                    (None, Some(to)) => return Ok(*to),
                    (None, None) => return Err(no_data()),
                };
                if row.len() != slots.len() {
                    return Err(MySqlError::new(
                        1328,
                        "HY000",
                        "Incorrect number of FETCH variables",
                    ));
                }
                for (slot, v) in slots.clone().into_iter().zip(row) {
                    self.sp_assign(slot, v)?;
                }
                pc + 1
            }
            Instr::Close(cursor) => {
                if rt.cursors[*cursor].take().is_none() {
                    return Err(MySqlError::new(1326, "24000", "Cursor is not open"));
                }
                pc + 1
            }
            Instr::Signal {
                resignal,
                cond,
                items,
            } => {
                let (resignal, cond, items) = (*resignal, cond.clone(), items.clone());
                let e = self.signal_error(rt, resignal, cond.as_ref(), &items)?;
                if e.state.starts_with("01") {
                    // A warning: listed, and the program goes on unless handled.
                    if let Some(h) = find(c, pc, e.code, e.state, true) {
                        return Ok(self.activate(c, rt, h, pc + 1, (e, Level::Warning)));
                    }
                    self.cx.warn(Level::Warning, e.code, e.message);
                    return Ok(pc + 1);
                }
                return Err(e);
            }
            Instr::Raise(e) => return Err(e.clone()),
            Instr::Return(_) => {
                return Err(MySqlError::internal("RETURN outside a function"));
            }
            Instr::HandlerEnd(id) => {
                let id = *id;
                while let Some(a) = rt.active.pop() {
                    if a.handler == id {
                        // The handled condition does not outlive its handler.
                        let only_it = matches!(self.cx.warnings.as_slice(),
                            [w] if w.code == a.caught.code && w.message == a.caught.message);
                        if only_it {
                            self.cx.clear_warnings();
                        }
                        return Ok(c.program.handlers[id].exit_to.unwrap_or(a.resume));
                    }
                }
                return Err(MySqlError::internal("handler end without its activation"));
            }
        })
    }

    /// The condition SIGNAL / RESIGNAL raises.
    fn signal_error(
        &mut self,
        rt: &Runtime,
        resignal: bool,
        cond: Option<&CondValue>,
        items: &[(String, crate::sp::Code)],
    ) -> R<MySqlError> {
        let caught = rt.active.last().map(|a| &a.caught);
        let mut e = crate::sp::conditions::signal_base(resignal, cond, caught)?;
        for (item, value) in items {
            let v = self.sp_value_once(value)?;
            crate::sp::conditions::signal_item(&mut e, item, v)?;
        }
        Ok(e)
    }
}

fn find(c: &Compiled, pc: usize, code: u16, state: &str, warning: bool) -> Option<usize> {
    crate::sp::conditions::find(&c.program.handlers, pc, code, state, warning)
}

/// Keeps the rows of a cursor's query.
#[derive(Default)]
struct RowsSink {
    rows: VecDeque<Row>,
}

impl ResultSink for RowsSink {
    fn columns(&mut self, _: &Arc<[ColumnMeta]>, _: u16) {}
    fn row(&mut self, row: &mut Row) -> R<()> {
        self.rows.push_back(std::mem::take(row));
        Ok(())
    }
    fn end(&mut self, _: Ending<'_>, _: u16) {}
}
