//! Running stored programs: CALL of a procedure and anonymous compound
//! statements. A program runs its instructions one after the other in this
//! session; its statements run as the client's would, their result sets go
//! to the client each flagged SERVER_MORE_RESULTS_EXISTS, and the CALL ends
//! with an OK packet, as MariaDB answers it.
//!
//! Variables are slots of a [`Frame`] in the session context; expressions of
//! SET / IF / WHILE / ... are bound once per program and scope and evaluated
//! directly (a subquery in one makes it run as `SELECT expr`).

use super::call_markers::MarkerOut;
use super::{Out, Session};
use crate::bind::{Binder, Scope};
use crate::expr::{EvalCtx, Expr};
use crate::result::QueryResult;
use crate::sp::{Code, Frame, Mode, Program, SlotDef, SpScope};
use basalt_common::{ColumnDef, MySqlError, Value};
use basalt_storage::RoutineDef;
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// Nested CALLs beyond this depth fail (MariaDB runs out of thread stack,
/// 1436, at a similar depth).
const MAX_NESTING: usize = 200;

/// A compiled program and what its runs keep between instructions.
pub(crate) struct Compiled {
    /// The definition it was compiled from (replaced routines compile again).
    pub(super) def: Option<Arc<RoutineDef>>,
    pub(super) program: Program,
    /// The parameters (read once per compile, not per CALL).
    params: Arc<[crate::sp::ParamDef]>,
    slots: Arc<[SlotDef]>,
    /// Bound expressions by instruction, with the schema version they were
    /// bound at; `None` inside when the expression runs as a statement.
    exprs: Vec<Option<(u64, Option<Arc<Expr>>)>>,
    /// The schema version variables' types were read from the catalog at
    /// (ROW TYPE OF, TYPE OF, FOR records): the program compiles again after
    /// DDL, as MariaDB resolves them each time the declaration runs.
    catalog_version: Option<u64>,
}

impl Session {
    /// Compiles a body with its parameters (types resolved now, so that a bad
    /// type fails CREATE as in MariaDB). `create`: the body is being created
    /// after that many lines of its statement (its syntax is checked whole).
    pub(super) fn compile_program(
        &mut self,
        def: Option<Arc<RoutineDef>>,
        params: &[crate::sp::ParamDef],
        body: &str,
        create: Option<u32>,
    ) -> R<Compiled> {
        let tree = match create {
            Some(line0) => crate::sp::parse::parse_body_checked(body, line0)?,
            None => crate::sp::parse::parse_body(body)?,
        };
        let version = self.cx.engine.storage.schema_version();
        let program = {
            let mut catalog = self.catalog();
            catalog.creating = create.is_some();
            crate::sp::compile::compile(&tree, params, &mut catalog)?
        };
        let mut slots = Vec::with_capacity(program.slot_types.len());
        for (name, ty) in &program.slot_types {
            slots.push(self.slot_def(name, ty)?);
        }
        let n = program.instrs.len();
        let catalog_version = program.catalog_types.then_some(version);
        Ok(Compiled {
            catalog_version,
            def,
            params: params.into(),
            program,
            slots: slots.into(),
            exprs: vec![None; n],
        })
    }

    /// The declared type of a variable, read as a column definition (in the
    /// current database's collation).
    pub(super) fn slot_def(&mut self, name: &str, type_text: &str) -> R<SlotDef> {
        crate::sp::slot_def(name, type_text, self.variable_collation(), &self.cx)
    }

    /// The collation variables of a program compiled now default to.
    fn variable_collation(&self) -> basalt_common::Collation {
        self.cx
            .db
            .as_deref()
            .and_then(|d| self.cx.engine.storage.database_collation(d))
            .unwrap_or(basalt_common::Collation::Utf8mb4GeneralCi)
    }

    /// Row types of a program compiled now, in the current database and
    /// sql_mode.
    pub(super) fn catalog(&self) -> crate::bind::row_type::Catalog<'_> {
        crate::bind::row_type::Catalog::new(
            &self.cx.engine.storage,
            &self.cx,
            (
                self.cx.db.as_deref().unwrap_or_default(),
                &self.cx.var_text("sql_mode"),
            ),
            self.variable_collation(),
        )
    }

    /// Runs an anonymous compound statement (BEGIN NOT ATOMIC ... END, or a
    /// loop or IF outside a program).
    pub(super) fn run_compound(&mut self, text: &str, out: &mut Out<'_>) -> R<QueryResult> {
        if self.sp_depth >= MAX_NESTING {
            return Err(MySqlError::new(1436, "HY000", "Thread stack overrun"));
        }
        let mut c = self.compile_program(None, &[], text, Some(0))?;
        let values = vec![Value::Null; c.slots.len()];
        self.run_frame(&mut c, values, out).map(|_| ())?;
        Ok(self.program_ok())
    }

    /// CALL: arguments evaluated in the caller's scope, the body run in a frame
    /// of its own, OUT / INOUT values written back to the caller's variables
    /// (or, for a prepared CALL's markers, sent back; see `call_markers`).
    pub(super) fn call(
        &mut self,
        db: Option<String>,
        name: &str,
        args: &[CallArg],
        out: &mut Out<'_>,
    ) -> R<QueryResult> {
        let db = match db {
            Some(d) => d,
            None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        let def = self
            .cx
            .engine
            .storage
            .routine(&db, "PROCEDURE", name)
            .ok_or_else(|| does_not_exist("PROCEDURE", &db, name))?;
        self.require_execute(&def)?;
        let mut compiled = self.compiled(&def)?;
        let params = compiled.params.clone();
        if params.len() != args.len() {
            return Err(MySqlError::new(
                1318,
                "42000",
                format!(
                    "Incorrect number of arguments for PROCEDURE {db}.{}; expected {}, got {}",
                    def.name,
                    params.len(),
                    args.len()
                ),
            ));
        }
        let outs = self.out_targets(&def, &params, args)?;
        let depth = self.sp_stack.iter().filter(|k| **k == key_of(&def)).count();
        let limit = self.cx.var_u64("max_sp_recursion_depth");
        if depth as u64 > limit {
            return Err(MySqlError::new(
                1456,
                "HY000",
                format!(
                    "Recursive limit {limit} (as set by the max_sp_recursion_depth variable) was exceeded for routine {}",
                    def.name
                ),
            ));
        }
        if self.sp_depth >= MAX_NESTING {
            return Err(MySqlError::new(1436, "HY000", "Thread stack overrun"));
        }
        let mut values = vec![Value::Null; compiled.slots.len()];
        for (i, (p, a)) in params.iter().zip(args).enumerate() {
            if p.mode != Mode::Out {
                let v = match a {
                    CallArg::Text(t) => self.eval_caller(t)?,
                    CallArg::Marker(v, _) => v.clone(),
                };
                values[i] = self.convert(&compiled.slots[i], v)?;
            }
        }
        let privs = self.definer_rights(&def)?;
        self.sp_stack.push(key_of(&def));
        let saved = self.enter_routine(&def);
        let r = crate::stack::grow(|| self.run_frame(&mut compiled, values, out));
        self.leave_routine(saved);
        self.sp_stack.pop();
        if let Some(p) = privs {
            self.cx.privs = p;
        }
        let values = match r {
            Ok(v) => v,
            Err(e) => {
                self.sp_cache.insert(key_of(&def), compiled);
                return Err(e);
            }
        };
        let mut wire = Vec::new();
        for (i, target) in outs {
            let v = values[i].clone();
            match target {
                OutTarget::User(n) => {
                    let fsp = compiled.slots[i].ty.decimals;
                    self.cx
                        .user_vars
                        .insert(n, crate::value::user_var_value(v, fsp));
                }
                OutTarget::Local(slot) => self.sp_assign(slot, v)?,
                OutTarget::Wire => wire.push((self.param_meta(&def, &compiled, i), v)),
            }
        }
        self.sp_cache.insert(key_of(&def), compiled);
        self.send_out_params(wire, out);
        Ok(self.program_ok())
    }

    /// The OUT-parameter result set's column for parameter `i`: named after
    /// it, typed as declared, from the routine as its table.
    fn param_meta(&self, def: &RoutineDef, c: &Compiled, i: usize) -> basalt_common::ColumnMeta {
        let mut ty = c.slots[i].ty.clone();
        ty.origin = Some(crate::ty::Origin {
            schema: def.schema.clone(),
            table: def.name.clone(),
            org_table: def.name.clone(),
            org_name: c.params[i].name.clone(),
        });
        ty.meta(&c.params[i].name, self.cx.results_charset)
    }

    /// The OK that ends a program: the last statement's affected rows.
    fn program_ok(&self) -> QueryResult {
        QueryResult::Ok {
            affected_rows: self.sp_affected,
            last_insert_id: 0,
            info: String::new(),
            warnings: self.warning_count(),
        }
    }

    fn require_execute(&mut self, def: &RoutineDef) -> R<()> {
        self.cx
            .require_db(&def.schema, basalt_acl::Privs::EXECUTE)
            .map_err(|_| {
                let (user, host) = self.cx.privs.account.clone().unwrap_or_default();
                MySqlError::new(
                    1370,
                    "42000",
                    format!(
                        "execute command denied to user '{user}'@'{host}' for routine '{}.{}'",
                        def.schema, def.name
                    ),
                )
            })
    }

    /// SQL SECURITY DEFINER: the procedure runs with its definer's privileges
    /// (and CURRENT_USER() is the definer); returns the caller's to restore.
    /// 1449 when the definer account does not exist.
    fn definer_rights(&mut self, def: &RoutineDef) -> R<Option<crate::account::SessionPrivs>> {
        // Internal sessions (no account) are allowed everything already.
        if def.security != "DEFINER" || self.cx.privs.account.is_none() {
            return Ok(None);
        }
        let exists = self
            .cx
            .engine
            .acl
            .snapshot()
            .account(&def.definer_user, &def.definer_host)
            .is_some();
        if !exists {
            return Err(MySqlError::new(
                1449,
                "HY000",
                format!(
                    "The user specified as a definer ('{}'@'{}') does not exist",
                    def.definer_user, def.definer_host
                ),
            ));
        }
        let definer =
            crate::account::SessionPrivs::for_account(&def.definer_user, &def.definer_host);
        Ok(Some(std::mem::replace(&mut self.cx.privs, definer)))
    }

    /// Where each OUT / INOUT argument's value goes: a user variable or a
    /// variable of the calling program (1414 for anything else).
    fn out_targets(
        &self,
        def: &RoutineDef,
        params: &[crate::sp::ParamDef],
        args: &[CallArg],
    ) -> R<Vec<(usize, OutTarget)>> {
        let mut outs = Vec::new();
        for (i, (p, a)) in params.iter().zip(args).enumerate() {
            if p.mode == Mode::In {
                continue;
            }
            let a = match a {
                CallArg::Text(t) => t.trim(),
                CallArg::Marker(_, MarkerOut::Wire) => {
                    outs.push((i, OutTarget::Wire));
                    continue;
                }
                CallArg::Marker(_, MarkerOut::Var(v)) => {
                    outs.push((i, OutTarget::User(v.clone())));
                    continue;
                }
                CallArg::Marker(_, MarkerOut::Literal) => "",
            };
            let target = if let Some(v) = a.strip_prefix('@').filter(|v| !v.starts_with('@')) {
                Some(OutTarget::User(crate::front::native::user_var_name(
                    &format!("@{v}"),
                )))
            } else {
                self.cx
                    .sp
                    .as_ref()
                    .and_then(|f| f.lookup(a.trim_matches('`')))
                    .map(|(slot, _)| OutTarget::Local(slot))
            };
            match target {
                Some(t) => outs.push((i, t)),
                None => return Err(crate::sp::out_not_variable(i + 1, &def.schema, &def.name)),
            }
        }
        Ok(outs)
    }

    /// The session's compiled copy of a routine (compiled again after the
    /// routine was replaced).
    fn compiled(&mut self, def: &Arc<RoutineDef>) -> R<Compiled> {
        if let Some(c) = self.sp_cache.remove(&key_of(def)) {
            let current = c
                .catalog_version
                .is_none_or(|v| v == self.cx.engine.storage.schema_version());
            if current && c.def.as_ref().is_some_and(|d| Arc::ptr_eq(d, def)) {
                return Ok(c);
            }
        }
        let params = crate::sp::parse_params(&def.params, false)?;
        // The body binds under the routine's sql_mode and database.
        let saved = self.enter_routine(def);
        let r = self.compile_program(Some(def.clone()), &params, &def.body, None);
        self.leave_routine(saved);
        r
    }

    /// Switches to the routine's database and sql_mode; returns what to
    /// restore.
    fn enter_routine(&mut self, def: &RoutineDef) -> (Option<String>, Option<String>) {
        let db = self.cx.db.replace(def.schema.clone());
        let mode = self.cx.var_text("sql_mode");
        let mode = if mode != def.sql_mode {
            let _ = self.assign_sysvar("sql_mode", Value::str(&def.sql_mode), false);
            Some(mode)
        } else {
            None
        };
        (db, mode)
    }

    fn leave_routine(&mut self, (db, mode): (Option<String>, Option<String>)) {
        self.cx.db = db;
        if let Some(m) = mode {
            let _ = self.assign_sysvar("sql_mode", Value::str(&m), false);
        }
    }

    /// Evaluates a CALL argument in the caller's scope.
    fn eval_caller(&mut self, text: &str) -> R<Value> {
        // Integer literals, the usual arguments, need no parse.
        if let Ok(n) = text.parse::<i64>() {
            if !text.starts_with('+') {
                return Ok(Value::Int(n));
            }
        }
        let ast = crate::front::parse::parse_expr(text)?;
        let storage = self.cx.engine.storage.clone();
        let expr = {
            let mut b = Binder::new(&storage, &self.cx, text, None);
            b.expr(&ast, &Scope::default(), None)?.0
        };
        if crate::expr::has_subquery(&expr) {
            return self.eval_as_select(text);
        }
        self.eval_detached(&expr)
    }

    /// Evaluates a bound expression outside any statement: in a transaction
    /// of its own when it calls stored functions that read or change tables.
    pub(super) fn eval_detached(&mut self, expr: &Expr) -> R<Value> {
        if crate::expr::calls_stored_data(expr) {
            return self.in_statement(&[], false, |ex| expr.eval(&[], ex.ctx));
        }
        let mut ctx = EvalCtx::new(&[], &mut self.cx);
        ctx.interrupt = Some(&self.interrupt);
        expr.eval(&[], &mut ctx)
    }

    /// Runs a frame to its end; returns its final values.
    fn run_frame(
        &mut self,
        c: &mut Compiled,
        values: Vec<Value>,
        out: &mut Out<'_>,
    ) -> R<Vec<Value>> {
        let scope = SpScope::new(Vec::new());
        let frame = Frame {
            values,
            slots: c.slots.clone(),
            scope,
        };
        let caller = self.cx.sp.replace(Box::new(frame));
        let more = std::mem::replace(&mut self.more_results, true);
        let list = (self.cx.kept_warnings, self.cx.clears);
        self.sp_depth += 1;
        let r = self.run_program(c, out);
        self.sp_depth -= 1;
        if self.sp_depth == 0 {
            // The CALL's OK counts the conditions its statements left in the
            // list, also under a later statement that kept them (MariaDB's
            // diagnostics area belongs to the CALL); none when the list is
            // still the one from before the CALL.
            let own = !list.0 || list.1 != self.cx.clears;
            self.program_warnings = Some(if own { self.cx.warning_total } else { 0 });
        }
        self.more_results = more;
        let frame = std::mem::replace(&mut self.cx.sp, caller);
        r?;
        Ok(frame.map(|f| f.values).unwrap_or_default())
    }

    pub(super) fn set_scope(&mut self, scope: &Arc<SpScope>) {
        if let Some(f) = self.cx.sp.as_mut() {
            if !Arc::ptr_eq(&f.scope, scope) {
                f.scope = scope.clone();
            }
        }
    }

    /// One statement of a program: its result set goes to the client, an OK
    /// only sets the affected-row count.
    pub(super) fn sp_statement(&mut self, code: &Code, out: &mut Out<'_>) -> R<()> {
        self.set_scope(&code.scope);
        let mut o = out.nested();
        let r = self.run_in_program(&code.text, &mut o);
        match r {
            Ok(QueryResult::Ok { affected_rows, .. }) if !o.opened() => {
                self.sp_affected = affected_rows;
                Ok(())
            }
            Ok(r) => {
                self.sp_affected = 0;
                self.respond(Ok(r), &mut o);
                Ok(())
            }
            Err(e) => {
                self.sp_error_listed = true;
                Err(e)
            }
        }
    }

    /// A statement inside a program: as the client's, but under the CALL's
    /// deadline and KILL flag.
    pub(super) fn run_in_program(&mut self, text: &str, out: &mut Out<'_>) -> R<QueryResult> {
        self.extra_status = 0;
        if let Some(r) = self.run_memoized(text, out) {
            return r;
        }
        let r = crate::stack::for_text(text.len(), || self.run_text(text, out));
        if let Err(e) = &r {
            if e.code == 1412 && self.replanable() {
                return crate::stack::for_text(text.len(), || self.run_text(text, out));
            }
        }
        r
    }

    /// The value of an expression of instruction `pc`.
    pub(super) fn sp_value(&mut self, c: &mut Compiled, pc: usize, code: &Code) -> R<Value> {
        self.sp_value_into(c, pc, code, None)
    }

    /// [`Session::sp_value`] of a value assigned to a variable of slot `into`: it
    /// binds as a value for a column of the variable's type (a hex literal into
    /// a number variable is its number, `DECLARE i INT DEFAULT 0xFF` is 255).
    pub(super) fn sp_value_into(
        &mut self,
        c: &mut Compiled,
        pc: usize,
        code: &Code,
        into: Option<usize>,
    ) -> R<Value> {
        self.set_scope(&code.scope);
        let version = self.cx.engine.storage.schema_version();
        let bound = match &c.exprs[pc] {
            Some((v, e)) if *v == version => e.clone(),
            _ => {
                let col = into.and_then(|s| Some(self.cx.sp.as_ref()?.slots[s].col.clone()));
                let e = self.bind_sp_expr(&code.text, col.as_ref())?.map(Arc::new);
                c.exprs[pc] = Some((version, e.clone()));
                e
            }
        };
        match bound {
            Some(e) => self.eval_detached(&e),
            None => self.eval_as_select(&code.text),
        }
    }

    /// The value of an expression bound for this evaluation only (SIGNAL's
    /// items, evaluated once when raised).
    pub(super) fn sp_value_once(&mut self, code: &Code) -> R<Value> {
        self.set_scope(&code.scope);
        match self.bind_sp_expr(&code.text, None)? {
            Some(e) => self.eval_detached(&e),
            None => self.eval_as_select(&code.text),
        }
    }

    /// An expression bound for direct evaluation; `None` when it has a
    /// subquery (it then runs as a statement).
    fn bind_sp_expr(&mut self, text: &str, into: Option<&ColumnDef>) -> R<Option<Expr>> {
        let ast = crate::front::parse::parse_expr(text)?;
        let storage = self.cx.engine.storage.clone();
        let mut b = Binder::new(&storage, &self.cx, text, None);
        match b.expr(&ast, &Scope::default(), None) {
            Ok((e, t)) if !crate::expr::has_subquery(&e) => Ok(Some(match into {
                Some(col) => crate::bind::strings::into_column(e, &t, col),
                None => e,
            })),
            Ok(_) => Ok(None),
            // Subqueries need a statement around them.
            Err(_) if text.to_ascii_lowercase().contains("select") => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `SELECT expr` run as a statement, its one value.
    fn eval_as_select(&mut self, text: &str) -> R<Value> {
        let mut sink = super::select_into::VarSink::default();
        let q = format!("SELECT {text}");
        if let Err(e) = self.run_in_program(&q, &mut Out::new(&mut sink)) {
            self.sp_error_listed = true;
            return Err(e);
        }
        Ok(sink
            .first
            .and_then(|r| r.into_iter().next())
            .unwrap_or(Value::Null))
    }

    /// The slot of variable `name` visible to the running statement (1327
    /// when there is none).
    pub(super) fn local_slot(&self, name: &str) -> R<usize> {
        self.cx
            .sp
            .as_ref()
            .and_then(|f| f.lookup(name))
            .map(|(s, _)| s)
            .ok_or_else(|| MySqlError::new(1327, "42000", format!("Undeclared variable: {name}")))
    }

    /// Stores a value in a slot, converted to its declared type as a column
    /// would store it (errors in strict mode, warnings otherwise).
    pub(super) fn sp_assign(&mut self, slot: usize, v: Value) -> R<()> {
        let Some(def) = self.cx.sp.as_ref().map(|f| f.slots[slot].clone()) else {
            return Err(MySqlError::internal("no stored program is running"));
        };
        let v = self.convert(&def, v)?;
        if let Some(f) = self.cx.sp.as_mut() {
            f.values[slot] = v;
        }
        Ok(())
    }

    fn convert(&mut self, def: &SlotDef, v: Value) -> R<Value> {
        let target = crate::exec::store::Target {
            db: "",
            table: "",
            col: &def.col,
            // MariaDB reports a variable's conversions "at row 0".
            row: 0,
            strict: self.cx.mode.strict,
        };
        crate::exec::store::store(v, &target, &mut self.cx)
    }
}

/// An argument of CALL: text evaluated in the caller's scope, or a prepared
/// statement's marker that is the whole argument (see `call_markers`).
pub(super) enum CallArg {
    Text(String),
    Marker(Value, MarkerOut),
}

enum OutTarget {
    User(String),
    Local(usize),
    /// The OUT-parameter result set of COM_STMT_EXECUTE.
    Wire,
}

/// The session cache key of a routine.
fn key_of(def: &RoutineDef) -> (String, String) {
    (def.schema.clone(), def.name.to_lowercase())
}

pub(super) fn does_not_exist(kind: &str, db: &str, name: &str) -> MySqlError {
    MySqlError::new(1305, "42000", format!("{kind} {db}.{name} does not exist"))
}
