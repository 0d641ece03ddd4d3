//! Calls of stored functions. The function is looked up in the catalog when the
//! calling statement binds, and its body is bound then too: each statement to
//! a plan, each expression to an [`Expr`], names of variables resolved to the
//! function's slots, unqualified tables in the function's database. An
//! instruction that does not bind (a missing table, a recursive call) keeps its
//! error and raises it only if it runs, as MariaDB opens a statement's tables
//! when it executes.

use super::expr::AggCollector;
use super::{Binder, Scope};
use crate::expr::Expr;
use crate::front::native::routine::RoutineStmt;
use crate::front::native::{IntoTarget, IntoVar, Native, SetTarget};
use crate::front::{analyze_with, Front, LitOpts};
use crate::plan::{Plan, SelectPlan};
use crate::session::ctx::SessionCtx;
use crate::sp::function::{BExpr, BoundFunction, FInstr, SetTo, StoredFn};
use crate::sp::{Code, Instr, SlotDef, SpScope};
use crate::ty::ExprType;
use basalt_common::{Collation, MySqlError};
use basalt_storage::{RoutineDef, Storage};
use sqlparser::ast;
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// `(database, name)` of a routine or table.
pub type Named = (String, String);

/// What a binder of a function's statement sees besides the session.
#[derive(Clone, Debug)]
pub struct RoutineBinding {
    pub db: String,
    pub scope: Arc<SpScope>,
    pub slots: Arc<[SlotDef]>,
    /// The functions being bound, outermost first (a call of one of them is
    /// recursion, 1424).
    pub stack: Vec<(String, String)>,
    /// A trigger's body: the event it fires on and its table (NEW / OLD).
    pub trigger: Option<TriggerRows>,
    /// The tables the statements that fire the triggers being bound change: a
    /// trigger's statement may not change them (1442).
    pub in_use: Vec<(String, String)>,
}

/// What `NEW.col` / `OLD.col` name in a trigger's body.
#[derive(Clone, Debug)]
pub struct TriggerRows {
    pub event: crate::sp::trigger::Event,
    /// A BEFORE trigger (its NEW row can be written).
    pub before: bool,
}

impl Binder<'_> {
    /// A variable visible where the statement stands: the function's being
    /// bound, else the running program's.
    pub(super) fn local(&self, name: &str) -> Option<(usize, ExprType)> {
        match &self.routine {
            Some(r) => {
                let slot = r.scope.slot(name)?;
                Some((slot, r.slots.get(slot)?.ty.clone()))
            }
            None => {
                let (slot, t) = self.cx.sp.as_ref()?.lookup(name)?;
                Some((slot, t.clone()))
            }
        }
    }

    /// The names visible where the statement stands (the function's being
    /// bound, else the running program's); `None` outside programs.
    fn visible_vars(&self) -> Option<&[(String, usize)]> {
        match &self.routine {
            Some(r) => Some(&r.scope.vars),
            None => Some(&self.cx.sp.as_ref()?.scope.vars),
        }
    }

    /// `row.field` of a ROW variable (4082 for a field it lacks); `None`
    /// when `row` names no row variable.
    /// The field is described as a column of no table named `field`.
    pub(super) fn row_field(&self, row: &str, field: &str) -> Option<R<(Expr, ExprType)>> {
        crate::sp::row::row_fields(self.visible_vars()?, row)?;
        let Some((slot, mut t)) = self.local(&format!("{row}.{field}")) else {
            return Some(Err(crate::sp::row::no_field(row, field)));
        };
        t.origin = Some(crate::ty::Origin {
            schema: String::new(),
            table: String::new(),
            org_table: String::new(),
            org_name: field.to_string(),
        });
        Some(Ok((Expr::Local(slot), t)))
    }

    /// `left op right` with a ROW variable on either side as its fields'
    /// tuple.
    pub(super) fn row_comparison(
        &self,
        left: &ast::Expr,
        op: &ast::BinaryOperator,
        right: &ast::Expr,
    ) -> ast::Expr {
        let side = |x: &ast::Expr| Box::new(self.row_tuple(x).unwrap_or_else(|| x.clone()));
        ast::Expr::BinaryOp {
            left: side(left),
            op: op.clone(),
            right: side(right),
        }
    }

    /// A ROW variable compared as a whole, as the tuple of its fields
    /// (`(r.a, r.b)`); `None` for any other operand.
    pub(super) fn row_tuple(&self, e: &ast::Expr) -> Option<ast::Expr> {
        let ast::Expr::Identifier(id) = e else {
            return None;
        };
        let vars = self.visible_vars()?;
        if is_trigger_row(&id.value) {
            return None;
        }
        let slots = crate::sp::row::row_fields(vars, &id.value)?;
        let fields = slots.iter().map(|s| {
            let (_, field) = vars.iter().rev().find(|(_, x)| x == s)?.0.split_once('.')?;
            Some(ast::Expr::CompoundIdentifier(vec![
                id.clone(),
                ast::Ident::with_quote('`', field),
            ]))
        });
        Some(ast::Expr::Tuple(fields.collect::<Option<Vec<_>>>()?))
    }

    /// 1241 for a ROW variable used as a value (a trigger's NEW and OLD are
    /// columns' names there).
    pub(super) fn check_not_row(&self, name: &str) -> R<()> {
        let Some(vars) = self.visible_vars() else {
            return Ok(());
        };
        match crate::sp::row::row_fields(vars, name) {
            Some(_) if !is_trigger_row(name) => Err(crate::sp::row::operand_columns(1)),
            _ => Ok(()),
        }
    }

    /// `[db.]name(args)` naming no built-in function: a stored function.
    pub(super) fn stored_call(
        &mut self,
        parts: &[String],
        name: &str,
        args: &[&ast::Expr],
        scope: &Scope,
        mut aggs: Option<&mut AggCollector>,
    ) -> R<(Expr, ExprType)> {
        let db = match parts {
            [d, _] => d.clone(),
            _ => self.db().unwrap_or_default().to_string(),
        };
        let def = self
            .storage
            .routine(&db, "FUNCTION", name)
            .ok_or_else(|| MySqlError::function_not_defined(&db, name))?;
        let params = crate::sp::parse_params(&def.params, true)?;
        if params.len() != args.len() {
            return Err(MySqlError::new(
                1318,
                "42000",
                format!(
                    "Incorrect number of arguments for FUNCTION {db}.{}; expected {}, got {}",
                    def.name,
                    params.len(),
                    args.len()
                ),
            ));
        }
        let mut bound = Vec::with_capacity(args.len());
        for a in args {
            bound.push(self.expr(a, scope, aggs.as_deref_mut())?.0);
        }
        let mut stack = self
            .routine
            .as_ref()
            .map(|r| r.stack.clone())
            .unwrap_or_default();
        let key = (def.schema.clone(), def.name.to_lowercase());
        if stack.contains(&key) {
            return Err(MySqlError::new(
                1424,
                "HY000",
                "Recursive stored functions and triggers are not allowed",
            ));
        }
        stack.push(key);
        let in_use = self.tables_in_use();
        let f = bind_function(self.storage, self.cx, &def, &params, (stack, in_use))?;
        self.fn_reads |= f.reads;
        self.fn_writes |= f.writes;
        let ty = f
            .ret
            .as_ref()
            .map_or(ExprType::null(), |r| r.ty.clone().nullable(true));
        Ok((Expr::StoredCall(StoredFn(Arc::new(f)), bound), ty))
    }
}

/// Binds a function's body for one calling statement.
pub fn bind_function(
    storage: &Arc<Storage>,
    cx: &SessionCtx,
    def: &RoutineDef,
    params: &[crate::sp::ParamDef],
    (stack, in_use): (Vec<Named>, Vec<Named>),
) -> R<BoundFunction> {
    let tree = crate::sp::parse::parse_body(&def.body)?;
    let coll = routine_collation(storage, &def.database_collation, &def.schema);
    let mut catalog =
        super::row_type::Catalog::new(storage, cx, (&def.schema, &def.sql_mode), coll);
    let program = crate::sp::compile::compile_function(
        &tree,
        params,
        &format!("{}.{}", def.schema, def.name),
        &mut catalog,
    )?;
    let mut slots = Vec::with_capacity(program.slot_types.len());
    for (name, ty) in &program.slot_types {
        slots.push(crate::sp::slot_def(name, ty, coll, cx)?);
    }
    let ret = crate::sp::slot_def(&format!("{}()", def.name), &def.returns, coll, cx)?;
    let mut fb = FnBinder::new(
        storage,
        cx,
        (&def.schema, &def.sql_mode),
        slots,
        (stack, in_use),
    );
    let instrs = fb.instrs(&program.instrs);
    let definer =
        (def.security == "DEFINER").then(|| (def.definer_user.clone(), def.definer_host.clone()));
    Ok(BoundFunction {
        db: def.schema.clone(),
        name: def.name.clone(),
        slots: fb.slots,
        params: params.len(),
        ret: Some(ret),
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
        procedure: false,
    })
}

fn lit_opts(sql_mode: &str) -> LitOpts {
    let mode = crate::sysvars::ModeFlags::from_text(sql_mode);
    LitOpts {
        backslash: !mode.no_backslash_escapes,
        markers: false,
        pipes_as_concat: mode.pipes_as_concat,
    }
}

/// Binds a stored function's or trigger's instructions.
pub(super) struct FnBinder<'a> {
    pub storage: &'a Arc<Storage>,
    pub cx: &'a SessionCtx,
    pub db: String,
    pub slots: Arc<[SlotDef]>,
    pub stack: Vec<(String, String)>,
    pub reads: bool,
    pub writes: bool,
    pub opts: LitOpts,
    pub trigger: Option<TriggerRows>,
    pub in_use: Vec<(String, String)>,
    /// Some instruction is GET DIAGNOSTICS.
    pub diagnostics: bool,
    /// Some instruction is a CALL (whose procedure may read and write).
    pub calls: bool,
    /// A trigger's body, or a procedure a trigger calls.
    pub in_trigger: bool,
}

impl<'a> FnBinder<'a> {
    /// A binder for the body of routine `schema`.`...` created under
    /// `sql_mode`, with its variables' `slots`; not a trigger's.
    pub(super) fn new(
        storage: &'a Arc<Storage>,
        cx: &'a SessionCtx,
        (schema, sql_mode): (&str, &str),
        slots: Vec<SlotDef>,
        (stack, in_use): (Vec<Named>, Vec<Named>),
    ) -> Self {
        FnBinder {
            storage,
            cx,
            db: schema.to_string(),
            slots: slots.into(),
            stack,
            reads: false,
            writes: false,
            opts: lit_opts(sql_mode),
            trigger: None,
            in_use,
            diagnostics: false,
            calls: false,
            in_trigger: false,
        }
    }

    /// Every instruction bound; one that does not bind keeps its error to
    /// raise when it runs.
    pub(super) fn instrs(&mut self, instrs: &[Instr]) -> Vec<FInstr> {
        instrs
            .iter()
            .map(|i| self.instr(i).unwrap_or_else(FInstr::Fail))
            .collect()
    }
}

/// The collation a routine's variables default to: its database's when it
/// was created, else the database's now.
pub(super) fn routine_collation(storage: &Storage, created: &str, schema: &str) -> Collation {
    Collation::from_name(created)
        .or_else(|| storage.database_collation(schema))
        .unwrap_or(Collation::Utf8mb4GeneralCi)
}

impl FnBinder<'_> {
    pub(super) fn instr(&mut self, i: &Instr) -> R<FInstr> {
        Ok(match i {
            Instr::Sql(code) => self.statement(code)?,
            Instr::Assign { slot, value } => {
                FInstr::Set(vec![(SetTo::Local(*slot), self.expr_into(value, *slot)?)])
            }
            Instr::Null(s) => FInstr::Null(*s),
            Instr::JumpUnless { cond, to } => FInstr::JumpUnless {
                cond: self.expr(cond)?,
                to: *to,
            },
            Instr::Jump(to) => FInstr::Jump(*to),
            Instr::CaseNotFound => FInstr::CaseNotFound,
            Instr::Open {
                cursor,
                query,
                reopen,
            } => FInstr::Open {
                cursor: *cursor,
                plan: self.select(&query.text, &query.scope)?,
                reopen: *reopen,
            },
            Instr::Fetch {
                cursor,
                slots,
                done,
            } => FInstr::Fetch {
                cursor: *cursor,
                slots: slots.clone(),
                done: *done,
            },
            Instr::Raise(e) => FInstr::Fail(e.clone()),
            Instr::Close(c) => FInstr::Close(*c),
            Instr::Signal {
                resignal,
                cond,
                items,
            } => {
                let mut bound = Vec::with_capacity(items.len());
                for (item, code) in items {
                    bound.push((item.clone(), self.expr(code)?));
                }
                FInstr::Signal {
                    resignal: *resignal,
                    cond: cond.clone(),
                    items: bound,
                }
            }
            Instr::HandlerEnd(h) => FInstr::HandlerEnd(*h),
            Instr::Return(code) => FInstr::Return(self.expr(code)?),
        })
    }

    fn binder<'b>(&'b self, text: &'b str, scope: &Arc<SpScope>) -> Binder<'b> {
        let mut b = Binder::new(self.storage, self.cx, text, None);
        b.routine = Some(RoutineBinding {
            db: self.db.clone(),
            scope: scope.clone(),
            slots: self.slots.clone(),
            stack: self.stack.clone(),
            trigger: self.trigger.clone(),
            in_use: self.in_use.clone(),
        });
        b
    }

    /// An expression; one with a subquery binds as `SELECT expr`.
    pub(super) fn expr(&mut self, code: &Code) -> R<BExpr> {
        self.expr_typed(code).map(|(e, _)| e)
    }

    /// [`FnBinder::expr`] of a value assigned to variable `slot`: bound as a
    /// value for a column of the variable's type (a hex literal into a number
    /// variable is its number).
    fn expr_into(&mut self, code: &Code, slot: usize) -> R<BExpr> {
        let (e, ty) = self.bind_code(code)?;
        Ok(match (e, ty, self.slots.get(slot)) {
            (BExpr::Plain(e), Some(t), Some(def)) => {
                BExpr::Plain(super::strings::into_column(e, &t, &def.col))
            }
            (e, ..) => e,
        })
    }

    /// [`FnBinder::expr`] with the value's fractional digits.
    pub(super) fn expr_typed(&mut self, code: &Code) -> R<(BExpr, u8)> {
        let (e, ty) = self.bind_code(code)?;
        let fsp = match (&e, ty) {
            (BExpr::Query(p), _) => p.columns.first().map_or(0, |c| c.decimals),
            (_, t) => t.map_or(0, |t| t.decimals),
        };
        Ok((e, fsp))
    }

    /// An expression bound, with its type when it is a plain one (one with a
    /// subquery runs as a query).
    fn bind_code(&mut self, code: &Code) -> R<(BExpr, Option<ExprType>)> {
        let ast = crate::front::parse::parse_expr(&code.text)?;
        let (r, reads, writes) = {
            let mut b = self.binder(&code.text, &code.scope);
            let r = b.expr(&ast, &Scope::default(), None);
            (r, b.fn_reads, b.fn_writes)
        };
        let query = |fb: &mut Self| {
            let p = fb.select(&format!("SELECT {}", code.text), &code.scope)?;
            Ok((BExpr::Query(p), None))
        };
        match r {
            Ok((e, ty)) if !crate::expr::has_subquery(&e) => {
                self.reads |= reads;
                self.writes |= writes;
                Ok((BExpr::Plain(e), Some(ty)))
            }
            Ok(_) => query(self),
            Err(_) if code.text.to_ascii_lowercase().contains("select") => query(self),
            Err(e) => Err(e),
        }
    }

    pub(super) fn select(&mut self, text: &str, scope: &Arc<SpScope>) -> R<Arc<SelectPlan>> {
        match self.plan(text, scope)? {
            Plan::Select(p) => Ok(Arc::new(p)),
            _ => Err(no_result_set()),
        }
    }

    /// A statement's text (the front end's rewrites applied) to its plan.
    fn plan(&mut self, text: &str, scope: &Arc<SpScope>) -> R<Plan> {
        let text = match analyze_with(text, self.opts)? {
            Front::Cached(s) => s.original(),
            Front::Bulk(b) => b.original(),
            Front::Parse(t) => t,
            Front::Native(_) => return Err(not_in_function(text)),
        };
        let stmt = crate::front::parse::parse_statement(&text)?;
        let mut b = self.binder(&text, scope);
        let mut plan = match &stmt {
            ast::Statement::Query(q) => Plan::Select(b.select(q)?),
            ast::Statement::Insert(i) => Plan::Insert(b.insert(i)?),
            ast::Statement::Update(u) => Plan::Modify(b.update(u)?),
            ast::Statement::Delete(d) => Plan::Modify(b.delete(d)?),
            _ => return Err(not_in_function(&text)),
        };
        b.attach_subqueries(&mut plan);
        let (reads, writes) = (b.fn_reads, b.fn_writes);
        drop(b);
        self.reads |= reads || matches!(&plan, Plan::Select(p) if p.reads_tables);
        self.writes |= writes || !matches!(plan, Plan::Select(_));
        Ok(plan)
    }

    fn statement(&mut self, code: &Code) -> R<FInstr> {
        if let Some(rows) = &self.trigger {
            super::trigger::check_row_set(rows, &code.text)?;
        }
        match analyze_with(&code.text, self.opts)? {
            Front::Native(Native::Set(items)) => self.set_items(items, &code.scope),
            Front::Native(Native::SelectInto(s)) => {
                let IntoTarget::Vars(vars) = s.target else {
                    return Err(not_in_function("SELECT ... INTO OUTFILE"));
                };
                let plan = self.select(&s.query, &code.scope)?;
                let fsp = |i: usize| plan.columns.get(i).map_or(0, |c| c.decimals);
                let mut into = Vec::with_capacity(vars.len());
                for v in vars {
                    match v {
                        IntoVar::User(n) => into.push(SetTo::User(n, fsp(into.len()))),
                        IntoVar::Local(n) => {
                            if let Some(f) = crate::sp::row::row_fields(&code.scope.vars, &n) {
                                into.extend(f.into_iter().map(SetTo::Local));
                                continue;
                            }
                            into.push(SetTo::Local(code.scope.slot(&n).ok_or_else(|| {
                                MySqlError::new(1327, "42000", format!("Undeclared variable: {n}"))
                            })?))
                        }
                    }
                }
                Ok(FInstr::SelectInto { plan, into })
            }
            Front::Native(Native::Do(exprs)) => Ok(FInstr::Do(
                self.select(&format!("SELECT {exprs}"), &code.scope)?,
            )),
            Front::Native(Native::GetDiagnostics(g)) => self.get_diagnostics(g, &code.scope),
            Front::Native(Native::Routine(RoutineStmt::Call { db, name, args })) => {
                self.call(db, name, args, &code.scope)
            }
            Front::Native(_) => Err(not_in_function(&code.text)),
            _ => match self.plan(&code.text, &code.scope)? {
                Plan::Select(_) => Err(no_result_set()),
                p => Ok(FInstr::Change(Arc::new(p))),
            },
        }
    }
}

/// A trigger's NEW / OLD, whose columns are slots named like a row's fields.
fn is_trigger_row(name: &str) -> bool {
    ["new", "old"].iter().any(|w| name.eq_ignore_ascii_case(w))
}

/// 1415: a statement of a function would send rows to the client.
pub fn no_result_set() -> MySqlError {
    MySqlError::new(
        1415,
        "0A000",
        "Not allowed to return a result set from a function",
    )
}

fn not_in_function(text: &str) -> MySqlError {
    let word = text
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_ascii_uppercase();
    MySqlError::not_supported(&format!("{word} in a stored function"))
}

/// What CREATE FUNCTION refuses in a body, as MariaDB does when it parses it:
/// a statement sending rows (1415), one that commits (1422), dynamic SQL
/// (1336), LOAD DATA (1314).
pub fn check_statement(text: &str) -> R<()> {
    let opts = LitOpts {
        backslash: true,
        markers: false,
        pipes_as_concat: false,
    };
    let parsed = match analyze_with(text, opts)? {
        Front::Native(n) => return check_native(&n),
        Front::Cached(s) => s.original(),
        Front::Bulk(b) => b.original(),
        Front::Parse(t) => t,
    };
    use ast::Statement as S;
    match crate::front::parse::parse_statement(&parsed)? {
        S::Query(_) => Err(no_result_set()),
        S::Commit { .. }
        | S::Rollback { .. }
        | S::StartTransaction { .. }
        | S::CreateTable(_)
        | S::CreateIndex(_)
        | S::CreateView { .. }
        | S::AlterTable { .. }
        | S::Drop { .. }
        | S::Truncate { .. }
        | S::RenameTable(_)
        | S::Grant { .. }
        | S::Revoke { .. } => Err(commit_not_allowed()),
        _ => Ok(()),
    }
}

fn check_native(n: &Native) -> R<()> {
    match n {
        Native::Set(items)
            if items.iter().any(|it| {
                matches!(&it.target, SetTarget::Sys { name, .. } if name.eq_ignore_ascii_case("autocommit"))
            }) =>
        {
            Err(MySqlError::new(
                1445,
                "HY000",
                "Not allowed to set autocommit from a stored function or trigger",
            ))
        }
        Native::Set(items) => super::stored_set::check_set(items),
        Native::Show(_) | Native::Explain { .. } => Err(no_result_set()),
        Native::Prepare { .. }
        | Native::Execute { .. }
        | Native::ExecuteImmediate { .. }
        | Native::Deallocate { .. } => {
            Err(MySqlError::new(
                1336,
                "0A000",
                "Dynamic SQL is not allowed in stored function or trigger",
            ))
        }
        Native::LoadData(_) => Err(MySqlError::new(
            1314,
            "0A000",
            "LOAD DATA is not allowed in stored procedures",
        )),
        Native::Begin { .. }
        | Native::Commit { .. }
        | Native::Rollback { .. }
        | Native::AlterTable(_)
        | Native::AlterDatabase { .. }
        | Native::CreateDatabase { .. }
        | Native::View(_)
        | Native::Sequence(_)
        | Native::Account(_)
        | Native::Role(_)
        | Native::Maintenance(_) => Err(commit_not_allowed()),
        _ => Ok(()),
    }
}

fn commit_not_allowed() -> MySqlError {
    MySqlError::new(
        1422,
        "HY000",
        "Explicit or implicit commit is not allowed in stored function or trigger",
    )
}
