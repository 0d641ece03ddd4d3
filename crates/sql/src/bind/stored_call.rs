//! CALL and GET DIAGNOSTICS in the body of a stored function or trigger, and
//! the procedures such a CALL runs. A CALL binds its arguments with the body;
//! the procedure itself is bound when the CALL first runs
//! (`exec/stored_call.rs`), like a function's body but with its parameters'
//! modes and what MariaDB refuses in a procedure called from a function or
//! trigger.

use super::stored_fn::{routine_collation, FnBinder, Named};
use crate::front::native::diagnostics::{DiagTarget, GetDiagnostics};
use crate::session::ctx::SessionCtx;
use crate::sp::function::{BoundFunction, BoundProcedure, FInstr, FnCall, SetTo};
use crate::sp::{Code, Instr, ParamDef, SpScope};
use basalt_common::MySqlError;
use basalt_storage::{RoutineDef, Storage};
use std::sync::{Arc, OnceLock};

type R<T> = Result<T, MySqlError>;

/// A procedure's entry in a binding stack (told apart from a function of the
/// same name).
pub fn procedure_key(db: &str, name: &str) -> Named {
    (
        db.to_string(),
        format!("\u{0}procedure {}", name.to_lowercase()),
    )
}

impl FnBinder<'_> {
    /// `CALL [db.]name(args)`.
    pub(super) fn call(
        &mut self,
        db: Option<String>,
        name: String,
        args: Vec<String>,
        scope: &Arc<SpScope>,
    ) -> R<FInstr> {
        let mut bound = Vec::with_capacity(args.len());
        for text in args {
            let target = self.out_target(&text, scope);
            let code = Code {
                text,
                scope: scope.clone(),
            };
            bound.push((self.expr(&code)?, target));
        }
        // What the procedure does is known only when it runs.
        self.calls = true;
        Ok(FInstr::Call(Box::new(FnCall {
            db: db.unwrap_or_else(|| self.db.clone()),
            name,
            args: bound,
            stack: self.stack.clone(),
            in_use: self.in_use.clone(),
            in_trigger: self.in_trigger,
            bound: OnceLock::new(),
        })))
    }

    /// Where an OUT / INOUT argument's value can go: a user variable, a
    /// variable of the body, or NEW.col in a BEFORE trigger.
    fn out_target(&self, text: &str, scope: &Arc<SpScope>) -> Option<SetTo> {
        let t = text.trim();
        if t.starts_with('@') && !t.starts_with("@@") {
            return Some(SetTo::User(crate::front::native::user_var_name(t), 0));
        }
        let name: String = t
            .split('.')
            .map(|p| p.trim().trim_matches('`'))
            .collect::<Vec<_>>()
            .join(".");
        if let Some((word, _)) = name.split_once('.') {
            let writable =
                word.eq_ignore_ascii_case("new") && self.trigger.as_ref().is_some_and(|r| r.before);
            if !writable {
                return None;
            }
            return scope.slot(&name.to_lowercase()).map(SetTo::Local);
        }
        scope.slot(&name).map(SetTo::Local)
    }

    /// GET DIAGNOSTICS: targets resolved now (1327 for an unknown variable).
    pub(super) fn get_diagnostics(&mut self, g: GetDiagnostics, scope: &Arc<SpScope>) -> R<FInstr> {
        self.diagnostics = true;
        let mut items = Vec::with_capacity(g.items.len());
        for (target, item) in g.items {
            let to = match target {
                DiagTarget::User(n) => SetTo::User(n, 0),
                DiagTarget::Local(n) => SetTo::Local(scope.slot(&n).ok_or_else(|| {
                    MySqlError::new(1327, "42000", format!("Undeclared variable: {n}"))
                })?),
            };
            items.push((to, item));
        }
        let condition = match g.condition {
            Some(text) => Some(self.expr(&Code {
                text,
                scope: scope.clone(),
            })?),
            None => None,
        };
        Ok(FInstr::GetDiagnostics { condition, items })
    }
}

/// Binds a procedure for a CALL inside a function or trigger.
pub fn bind_procedure(
    storage: &Arc<Storage>,
    cx: &SessionCtx,
    def: &RoutineDef,
    (stack, in_use): (Vec<Named>, Vec<Named>),
    in_trigger: bool,
) -> R<BoundProcedure> {
    let params: Vec<ParamDef> = crate::sp::parse_params(&def.params, false)?;
    let tree = crate::sp::parse::parse_body(&def.body)?;
    let coll = routine_collation(storage, &def.database_collation, &def.schema);
    let mut catalog =
        super::row_type::Catalog::new(storage, cx, (&def.schema, &def.sql_mode), coll);
    let program = crate::sp::compile::compile(&tree, &params, &mut catalog)?;
    let refusal = refusal(&program.instrs, in_trigger);
    let mut slots = Vec::with_capacity(program.slot_types.len());
    for (name, ty) in &program.slot_types {
        slots.push(crate::sp::slot_def(name, ty, coll, cx)?);
    }
    let mut fb = FnBinder::new(
        storage,
        cx,
        (&def.schema, &def.sql_mode),
        slots,
        (stack, in_use),
    );
    fb.in_trigger = in_trigger;
    // A refused procedure never runs: nothing to bind.
    let instrs = match refusal {
        Some(_) => Vec::new(),
        None => fb.instrs(&program.instrs),
    };
    let definer =
        (def.security == "DEFINER").then(|| (def.definer_user.clone(), def.definer_host.clone()));
    let body = BoundFunction {
        db: def.schema.clone(),
        name: def.name.clone(),
        slots: fb.slots,
        params: params.len(),
        ret: None,
        table: None,
        instrs,
        lines: crate::sp::statement_lines(
            &program,
            &crate::infoschema::routines::create_statement(def),
            &def.body,
        ),
        handlers: program.handlers,
        cursors: program.cursors,
        mode: crate::sysvars::ModeFlags::from_text(&def.sql_mode),
        definer,
        reads: fb.reads || fb.calls,
        writes: fb.writes || fb.calls,
        uses_tables: fb.reads || fb.writes,
        reads_diagnostics: fb.diagnostics,
        procedure: true,
    };
    Ok(BoundProcedure {
        body,
        modes: params.iter().map(|p| p.mode).collect(),
        refusal,
    })
}

/// What MariaDB refuses in a procedure called from a function or trigger, in
/// its order: dynamic SQL, a result set, SET autocommit, a commit.
fn refusal(instrs: &[Instr], in_trigger: bool) -> Option<MySqlError> {
    let mut found: Vec<MySqlError> = instrs
        .iter()
        .filter_map(|i| match i {
            Instr::Sql(code) => super::stored_fn::check_statement(&code.text).err(),
            _ => None,
        })
        .collect();
    let rank = |code: u16| match code {
        1336 => 0,
        1415 => 1,
        1445 => 2,
        1422 => 3,
        _ => 4,
    };
    found.sort_by_key(|e| rank(e.code));
    let mut e = found.into_iter().next()?;
    if e.code == 1415 && in_trigger {
        e.message = "Not allowed to return a result set from a trigger".into();
    }
    Some(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sql(t: &str) -> Instr {
        Instr::Sql(Code {
            text: t.into(),
            scope: SpScope::new(Vec::new()),
        })
    }

    #[test]
    fn refusals_in_mariadbs_order() {
        let body = [
            sql("commit"),
            sql("select 1"),
            sql("prepare s from 'select 1'"),
        ];
        assert_eq!(refusal(&body, false).map(|e| e.code), Some(1336));
        let body = [sql("commit"), sql("select 1")];
        let e = refusal(&body, true).expect("refused");
        assert_eq!(e.code, 1415);
        assert_eq!(
            e.message,
            "Not allowed to return a result set from a trigger"
        );
        assert_eq!(
            refusal(&[sql("insert into t values (1)")], false).map(|e| e.code),
            None
        );
        assert_eq!(
            refusal(&[sql("set autocommit = 0")], false).map(|e| e.code),
            Some(1445)
        );
    }
}
