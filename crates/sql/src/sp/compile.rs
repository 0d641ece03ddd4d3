//! A program tree made flat: instructions with jumps, as MariaDB's `sp_head`
//! holds them, and every variable given a slot of the frame. Each instruction
//! that evaluates text carries the scope of names visible where it stands, so
//! the binder resolves a name to the right slot (inner declarations shadow
//! outer ones) and plans made for it are cached per scope.

use super::parse::{Decl, Node};
use super::{Code, CondValue, HandlerDef, Instr, ParamDef, Program, RowTypes, SpScope};
use basalt_common::MySqlError;
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

#[derive(PartialEq, Eq, Clone, Copy)]
pub(super) enum LabelKind {
    Block,
    Loop,
}

struct Label {
    name: String,
    kind: LabelKind,
    /// Where ITERATE goes.
    start: usize,
    /// LEAVE jumps to patch with the end.
    leaves: Vec<usize>,
}

pub struct Compiler<'a> {
    pub(super) instrs: Vec<Instr>,
    /// The body line of each instruction's statement.
    lines: Vec<u32>,
    /// The line of the statement being compiled.
    line: u32,
    /// Declared names, innermost last: (lower-case name, slot).
    pub(super) names: Vec<(String, usize)>,
    /// Type text of each slot, in slot order.
    pub types: Vec<(String, String)>,
    labels: Vec<Label>,
    pub(super) scope: Arc<SpScope>,
    /// Declared conditions, innermost last.
    pub(super) conditions: Vec<(String, CondValue)>,
    /// Declared cursors, innermost last.
    pub(super) cursors: Vec<super::compile_decl::CursorDef>,
    pub(super) cursor_count: usize,
    pub(super) handlers: Vec<HandlerDef>,
    /// Compiling a stored function's body (RETURN allowed).
    function: bool,
    /// Reads ROW TYPE OF / TYPE OF / FOR records' types from the catalog.
    pub(super) rows: &'a mut dyn RowTypes,
    /// Some type was read from the catalog.
    pub(super) catalog_types: bool,
    /// The first slot of each row declared with its fields (`ROW (..)`),
    /// whose fields are known when the program is created.
    pub(super) explicit_rows: Vec<usize>,
    /// The parameters' slots (0..params); a trigger's `new.col` / `old.col`
    /// are parameters, not ROW variables.
    pub(super) params: usize,
}

/// Compiles a procedure's or compound statement's body whose parameters are
/// `params` (slots 0..n); RETURN is refused there (1313). `rows` reads the
/// types of ROW TYPE OF / TYPE OF variables from the catalog.
pub fn compile(root: &Node, params: &[ParamDef], rows: &mut dyn RowTypes) -> R<Program> {
    compile_as(root, params, false, rows)
}

/// Compiles a stored function's body (1320 when it has no RETURN).
pub fn compile_function(
    root: &Node,
    params: &[ParamDef],
    name: &str,
    rows: &mut dyn RowTypes,
) -> R<Program> {
    let p = compile_as(root, params, true, rows)?;
    if !p.instrs.iter().any(|i| matches!(i, Instr::Return(_))) {
        return Err(MySqlError::new(
            1320,
            "42000",
            format!("No RETURN found in FUNCTION {name}"),
        ));
    }
    Ok(p)
}

fn compile_as(
    root: &Node,
    params: &[ParamDef],
    function: bool,
    rows: &mut dyn RowTypes,
) -> R<Program> {
    let mut c = Compiler {
        instrs: Vec::new(),
        lines: Vec::new(),
        line: 1,
        names: Vec::new(),
        types: Vec::new(),
        labels: Vec::new(),
        scope: SpScope::new(Vec::new()),
        conditions: Vec::new(),
        cursors: Vec::new(),
        cursor_count: 0,
        handlers: Vec::new(),
        function,
        rows,
        catalog_types: false,
        explicit_rows: Vec::new(),
        params: params.len(),
    };
    for p in params {
        c.declare_name(&p.name, &p.type_text);
    }
    c.refresh_scope();
    c.node(root)?;
    if c.rows.defer_errors() {
        c.check_fields()?;
    }
    Ok(Program {
        instrs: c.instrs,
        lines: c.lines,
        slot_types: c.types,
        handlers: c.handlers,
        cursors: c.cursor_count,
        catalog_types: c.catalog_types,
    })
}

impl Compiler<'_> {
    pub(super) fn declare_name(&mut self, name: &str, type_text: &str) -> usize {
        let slot = self.types.len();
        self.types.push((name.to_string(), type_text.to_string()));
        self.names.push((name.to_lowercase(), slot));
        slot
    }

    pub(super) fn refresh_scope(&mut self) {
        self.scope = SpScope::new(self.names.clone());
    }

    pub(super) fn code(&self, text: &str) -> Code {
        Code {
            text: text.to_string(),
            scope: self.scope.clone(),
        }
    }

    pub(super) fn slot_of(&self, name: &str) -> Option<usize> {
        let lower = name.to_lowercase();
        self.names
            .iter()
            .rev()
            .find(|(n, _)| *n == lower)
            .map(|(_, s)| *s)
    }

    pub(super) fn emit(&mut self, i: Instr) {
        self.instrs.push(i);
        self.lines.push(self.line);
    }

    pub(super) fn pc(&self) -> usize {
        self.instrs.len()
    }

    pub(super) fn list(&mut self, nodes: &[Node]) -> R<()> {
        nodes.iter().try_for_each(|n| self.node(n))
    }

    pub(super) fn node(&mut self, n: &Node) -> R<()> {
        match n {
            Node::Line(line, n) => {
                let outer = std::mem::replace(&mut self.line, *line);
                let r = self.node(n);
                self.line = outer;
                r
            }
            Node::Block { label, decls, body } => self.block(label, decls, body),
            Node::Loop { label, body } => {
                let start = self.pc();
                self.open_label(label, LabelKind::Loop, start);
                self.list(body)?;
                self.emit(Instr::Jump(start));
                self.close_label(label);
                Ok(())
            }
            Node::While { label, cond, body } => {
                let start = self.pc();
                self.open_label(label, LabelKind::Loop, start);
                let test = self.pc();
                self.emit(Instr::JumpUnless {
                    cond: self.code(cond),
                    to: 0,
                });
                self.list(body)?;
                self.emit(Instr::Jump(start));
                self.patch(test);
                self.close_label(label);
                Ok(())
            }
            Node::Repeat { label, body, until } => {
                let start = self.pc();
                self.open_label(label, LabelKind::Loop, start);
                self.list(body)?;
                self.emit(Instr::JumpUnless {
                    cond: self.code(until),
                    to: start,
                });
                self.close_label(label);
                Ok(())
            }
            Node::If {
                branches,
                otherwise,
            } => {
                let conds: Vec<(String, &[Node])> = branches
                    .iter()
                    .map(|(c, b)| (c.clone(), b.as_slice()))
                    .collect();
                self.branches(&conds, otherwise.as_deref(), false)
            }
            Node::Case {
                operand,
                whens,
                otherwise,
            } => {
                let conds: Vec<(String, &[Node])> = whens
                    .iter()
                    .map(|(w, b)| {
                        let c = match operand {
                            Some(o) => format!("({o}) = ({w})"),
                            None => w.clone(),
                        };
                        (c, b.as_slice())
                    })
                    .collect();
                self.branches(&conds, otherwise.as_deref(), true)
            }
            Node::Leave(l) => {
                let i = self.find_label(l, "LEAVE", false)?;
                let at = self.pc();
                self.emit(Instr::Jump(0));
                self.labels[i].leaves.push(at);
                Ok(())
            }
            Node::Iterate(l) => {
                let i = self.find_label(l, "ITERATE", true)?;
                self.emit(Instr::Jump(self.labels[i].start));
                Ok(())
            }
            Node::Return(value) if self.function => {
                self.emit(Instr::Return(self.code(value)));
                Ok(())
            }
            Node::Return(_) => Err(MySqlError::new(
                1313,
                "42000",
                "RETURN is only allowed in a FUNCTION",
            )),
            Node::Set(items) => {
                for (target, value) in items {
                    if self.set_row(target, value)? {
                        continue;
                    }
                    match self.slot_of(target.trim_matches('`')) {
                        Some(slot) if !target.starts_with('@') => {
                            self.emit(Instr::Assign {
                                slot,
                                value: self.code(value),
                            });
                        }
                        _ => {
                            let text = format!("SET {target} = {value}");
                            self.emit(Instr::Sql(self.code(&text)));
                        }
                    }
                }
                Ok(())
            }
            Node::Sql(text) => {
                self.emit(Instr::Sql(self.code(text)));
                Ok(())
            }
            Node::Open { cursor, args } => self.open(cursor, args),
            Node::Close(c) => {
                let cursor = self.cursor(c)?.number;
                self.emit(Instr::Close(cursor));
                Ok(())
            }
            Node::Fetch { cursor, vars } => self.fetch(cursor, vars),
            Node::ForRows {
                label,
                var,
                source,
                body,
            } => self.for_rows(label, var, source, body),
            Node::Signal {
                resignal,
                cond,
                items,
            } => self.signal(*resignal, cond.as_ref(), items),
        }
    }

    fn block(&mut self, label: &Option<String>, decls: &[Decl], body: &[Node]) -> R<()> {
        let marks = self.marks();
        let start = self.pc();
        self.open_label(label, LabelKind::Block, start);
        let mut handlers = Vec::new();
        for d in decls {
            match d {
                Decl::Var {
                    names,
                    type_text,
                    default,
                } => self.declare_vars(marks.0, names, type_text, default.as_deref())?,
                Decl::Row { names, of, default } => {
                    self.declare_rows(marks.0, names, of, default.as_deref())?
                }
                Decl::TypeOf { names, of, default } => {
                    self.declare_type_of(marks.0, names, of, default.as_deref())?
                }
                Decl::Condition { name, value } => self.declare_condition(marks.1, name, value)?,
                Decl::Cursor {
                    name,
                    params,
                    query,
                } => self.declare_cursor(marks.2, name, params, query)?,
                Decl::Handler { exit, conds, body } => handlers.push((*exit, conds, &**body)),
            }
        }
        let body_start = self.pc();
        self.list(body)?;
        self.handler_bodies(start.max(body_start), &handlers)?;
        self.close_label(label);
        self.restore(marks);
        Ok(())
    }

    /// 1331 for a name declared twice in one block.
    pub(super) fn check_duplicates(&self, outer: usize, names: &[String]) -> R<()> {
        let mut declared: Vec<&str> = Vec::new();
        for n in names {
            let lower = n.to_lowercase();
            let field = format!("{lower}.");
            let dup = declared.iter().any(|x| x.eq_ignore_ascii_case(n))
                || self.names[outer..]
                    .iter()
                    .any(|(x, _)| *x == lower || x.starts_with(&field));
            if dup {
                return Err(MySqlError::new(
                    1331,
                    "42000",
                    format!("Duplicate variable: {n}"),
                ));
            }
            declared.push(n);
        }
        Ok(())
    }

    pub(super) fn declare_vars(
        &mut self,
        outer: usize,
        names: &[String],
        type_text: &str,
        default: Option<&str>,
    ) -> R<()> {
        self.check_duplicates(outer, names)?;
        // The default is evaluated where the variables are not yet visible.
        let slots: Vec<usize> = names
            .iter()
            .map(|n| {
                self.declare_name(n, type_text);
                self.types.len() - 1
            })
            .collect();
        let value = default.map(|v| self.code(v));
        for slot in slots {
            self.emit(match &value {
                Some(v) => Instr::Assign {
                    slot,
                    value: v.clone(),
                },
                None => Instr::Null(slot),
            });
        }
        self.refresh_scope();
        Ok(())
    }

    /// IF / CASE: each condition in turn, the first true one's statements run.
    fn branches(
        &mut self,
        conds: &[(String, &[Node])],
        otherwise: Option<&[Node]>,
        case: bool,
    ) -> R<()> {
        let mut to_end = Vec::new();
        for (cond, body) in conds {
            let test = self.pc();
            self.emit(Instr::JumpUnless {
                cond: self.code(cond),
                to: 0,
            });
            self.list(body)?;
            to_end.push(self.pc());
            self.emit(Instr::Jump(0));
            self.patch(test);
        }
        match otherwise {
            Some(body) => self.list(body)?,
            None if case => self.emit(Instr::CaseNotFound),
            None => {}
        }
        let end = self.pc();
        for at in to_end {
            self.instrs[at] = Instr::Jump(end);
        }
        Ok(())
    }

    /// Points the JumpUnless at `at` to the current end.
    fn patch(&mut self, at: usize) {
        let end = self.pc();
        if let Instr::JumpUnless { to, .. } = &mut self.instrs[at] {
            *to = end;
        }
    }

    pub(super) fn open_label(&mut self, label: &Option<String>, kind: LabelKind, start: usize) {
        self.labels.push(Label {
            name: label.clone().unwrap_or_default(),
            kind,
            start,
            leaves: Vec::new(),
        });
    }

    pub(super) fn close_label(&mut self, _label: &Option<String>) {
        let l = self.labels.pop().expect("label opened");
        let end = self.pc();
        for at in l.leaves {
            self.instrs[at] = Instr::Jump(end);
        }
    }

    fn find_label(&self, name: &str, what: &str, loop_only: bool) -> R<usize> {
        self.labels
            .iter()
            .rposition(|l| {
                !l.name.is_empty()
                    && l.name.eq_ignore_ascii_case(name)
                    && (!loop_only || l.kind == LabelKind::Loop)
            })
            .ok_or_else(|| {
                MySqlError::new(
                    1308,
                    "42000",
                    format!("{what} with no matching label: {name}"),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse_body;
    use super::*;

    /// The error code compiling `body` fails with.
    fn e(body: &str) -> u16 {
        compile(
            &parse_body(body).expect("test body parses"),
            &[],
            &mut super::super::NoCatalog,
        )
        .unwrap_err()
        .code
    }

    fn prog(body: &str) -> Program {
        compile(
            &parse_body(body).expect("test body parses"),
            &[],
            &mut super::super::NoCatalog,
        )
        .expect("test body compiles")
    }

    #[test]
    fn loops_jump_back_and_leave_forward() {
        let p = prog("l: loop set @a = 1; if @a then leave l; end if; iterate l; end loop l");
        // 0 SET, 1 JumpUnless->4, 2 Jump(end) (leave), 3 Jump(4) (end of IF),
        // 4 Jump(0) (iterate), 5 Jump(0) (loop)
        assert!(matches!(p.instrs[1], Instr::JumpUnless { to: 4, .. }));
        assert!(matches!(p.instrs[2], Instr::Jump(6)));
        assert!(matches!(p.instrs[3], Instr::Jump(4)));
        assert!(matches!(p.instrs[4], Instr::Jump(0)));
        assert!(matches!(p.instrs[5], Instr::Jump(0)));
    }

    #[test]
    fn inner_declarations_shadow_outer_ones() {
        let p = prog("begin declare a int default 1; begin declare a int default a + 1; set a = 3; end; set a = 4; end");
        let slots: Vec<usize> = p
            .instrs
            .iter()
            .filter_map(|i| match i {
                Instr::Assign { slot, .. } => Some(*slot),
                _ => None,
            })
            .collect();
        assert_eq!(slots, [0, 1, 1, 0]);
        assert_eq!(p.slot_types.len(), 2);
    }

    #[test]
    fn cursor_parameters_are_set_by_open() {
        let p = prog("begin declare a int; declare c cursor(a int, b char(1)) for select a, b; open c(a + 1, 'x'); end");
        // Slot 0 is the block's `a`; the cursor's `a` and `b` are 1 and 2,
        // visible to its query only.
        assert!(
            matches!(&p.instrs[1], Instr::Assign { slot: 1, value } if value.text == "a + 1" && value.scope.slot("a") == Some(0))
        );
        assert!(matches!(&p.instrs[2], Instr::Assign { slot: 2, .. }));
        let Instr::Open { query, .. } = &p.instrs[3] else {
            panic!()
        };
        assert_eq!(
            (query.scope.slot("a"), query.scope.slot("b")),
            (Some(1), Some(2))
        );
        assert_eq!(
            e("begin declare c cursor(x int) for select x; open c; end"),
            4080
        );
        assert_eq!(
            e("begin declare c cursor for select 1; open c(1); end"),
            4080
        );
    }

    #[test]
    fn label_errors() {
        assert_eq!(e("begin leave x; end"), 1308);
        assert_eq!(e("b: begin iterate b; end"), 1308);
        assert_eq!(e("begin return 1; end"), 1313);
        assert_eq!(e("begin declare a int; declare a int; end"), 1331);
    }
}
