//! Stored functions as the binder leaves them: the body's instructions with
//! every statement bound to a plan and every expression to an [`Expr`], ready
//! to run inside the statement that calls the function (see
//! `exec/stored_fn.rs`). A function is bound with the statement that calls it
//! and cached in that statement's plan; a schema change binds it again.

use super::{CondValue, HandlerDef, SlotDef};
use crate::expr::Expr;
use crate::plan::{Plan, SelectPlan};
use crate::sysvars::ModeFlags;
use basalt_common::MySqlError;
use std::sync::Arc;

/// A stored function bound for one calling statement.
#[derive(Debug)]
pub struct BoundFunction {
    pub db: String,
    pub name: String,
    /// Parameters first, then every DECLAREd variable.
    pub slots: Arc<[SlotDef]>,
    pub params: usize,
    /// The RETURNS type (None for a trigger).
    pub ret: Option<SlotDef>,
    /// A trigger's table `(db, name)`: its NEW / OLD variables (the first
    /// `params` slots) convert values as that table's columns.
    pub table: Option<(String, String)>,
    pub instrs: Vec<FInstr>,
    /// The line of its CREATE statement each instruction starts on (for the
    /// note an unhandled error gets).
    pub lines: Arc<[u32]>,
    pub handlers: Vec<HandlerDef>,
    pub cursors: usize,
    /// The sql_mode the function was created under (it runs under it).
    pub mode: ModeFlags,
    /// SQL SECURITY DEFINER: the definer account it runs as.
    pub definer: Option<(String, String)>,
    /// Some statement of the body reads a table / changes rows.
    pub reads: bool,
    pub writes: bool,
    /// Some statement of the body uses tables (a CALL's procedure counts
    /// when it runs).
    pub uses_tables: bool,
    /// The body has GET DIAGNOSTICS (it may read the caller's conditions).
    pub reads_diagnostics: bool,
    /// A procedure CALLed from a function or trigger (its conditions reach
    /// the caller as a procedure's do).
    pub procedure: bool,
}

/// A procedure as a CALL inside a function or trigger runs it.
#[derive(Debug)]
pub struct BoundProcedure {
    pub body: BoundFunction,
    /// IN / OUT / INOUT of each parameter.
    pub modes: Vec<super::Mode>,
    /// Why it cannot run here: a statement sending rows (1415), dynamic SQL
    /// (1336), SET autocommit (1445) or a commit (1422), as MariaDB refuses
    /// such a procedure in a function or trigger.
    pub refusal: Option<MySqlError>,
}

/// CALL inside a function or trigger. The procedure is bound when the CALL
/// first runs, so a recursive procedure binds only as deep as it runs.
#[derive(Debug)]
pub struct FnCall {
    pub db: String,
    pub name: String,
    /// Each argument: its value (read for IN / INOUT) and the variable an
    /// OUT / INOUT value goes to (None: not a variable, 1414 for those).
    pub args: Vec<(BExpr, Option<SetTo>)>,
    /// The routines around this CALL (`stored_call::procedure_key` for
    /// procedures) and the tables their statements use (1442).
    pub stack: Vec<(String, String)>,
    pub in_use: Vec<(String, String)>,
    /// Inside a trigger (MariaDB's refusals say "trigger").
    pub in_trigger: bool,
    pub bound: std::sync::OnceLock<Result<Arc<BoundProcedure>, MySqlError>>,
}

/// Where a value of SET or SELECT ... INTO goes.
#[derive(Debug, Clone)]
pub enum SetTo {
    Local(usize),
    /// A user variable, with the fractional digits a temporal value keeps
    /// in its text there.
    User(String, u8),
    /// A session system variable (`default`: SET ... = DEFAULT, the global
    /// value).
    Sys {
        def: &'static crate::sysvars::VarDef,
        default: bool,
    },
}

/// A bound expression: evaluated directly, or (with a subquery) run as
/// `SELECT expr`.
#[derive(Debug)]
pub enum BExpr {
    Plain(Expr),
    Query(Arc<SelectPlan>),
}

#[derive(Debug)]
pub enum FInstr {
    /// An instruction whose binding failed: its error is raised when it runs
    /// (as MariaDB opens a statement's tables only when it executes).
    Fail(MySqlError),
    Set(Vec<(SetTo, BExpr)>),
    Null(usize),
    JumpUnless {
        cond: BExpr,
        to: usize,
    },
    Jump(usize),
    CaseNotFound,
    /// INSERT / UPDATE / DELETE / REPLACE.
    Change(Arc<Plan>),
    SelectInto {
        plan: Arc<SelectPlan>,
        into: Vec<SetTo>,
    },
    Open {
        cursor: usize,
        plan: Arc<SelectPlan>,
        reopen: bool,
    },
    Fetch {
        cursor: usize,
        slots: Vec<usize>,
        done: Option<usize>,
    },
    Close(usize),
    Signal {
        resignal: bool,
        cond: Option<CondValue>,
        items: Vec<(String, BExpr)>,
    },
    HandlerEnd(usize),
    Return(BExpr),
    /// DO: the expressions' query run for nothing; an error it raises is
    /// listed, not raised (MariaDB's DO always ends OK).
    Do(Arc<SelectPlan>),
    /// GET DIAGNOSTICS: the condition number, each target with its item.
    GetDiagnostics {
        condition: Option<BExpr>,
        items: Vec<(SetTo, String)>,
    },
    Call(Box<FnCall>),
}

/// A call's function in an expression tree: two calls of one function in a
/// statement compare equal (GROUP BY f(x) matches the select item f(x)).
#[derive(Clone)]
pub struct StoredFn(pub Arc<BoundFunction>);

impl PartialEq for StoredFn {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || (self.0.db == other.0.db && self.0.name.eq_ignore_ascii_case(&other.0.name))
    }
}

impl std::fmt::Debug for StoredFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}`.`{}`", self.0.db, self.0.name)
    }
}
