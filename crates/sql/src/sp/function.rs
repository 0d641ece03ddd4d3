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
    pub handlers: Vec<HandlerDef>,
    pub cursors: usize,
    /// The sql_mode the function was created under (it runs under it).
    pub mode: ModeFlags,
    /// SQL SECURITY DEFINER: the definer account it runs as.
    pub definer: Option<(String, String)>,
    /// Some statement of the body reads a table / changes rows.
    pub reads: bool,
    pub writes: bool,
}

/// Where a value of SET or SELECT ... INTO goes.
#[derive(Debug, Clone)]
pub enum SetTo {
    Local(usize),
    User(String),
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
    },
    Fetch {
        cursor: usize,
        slots: Vec<usize>,
    },
    Close(usize),
    Signal {
        resignal: bool,
        cond: Option<CondValue>,
        items: Vec<(String, BExpr)>,
    },
    HandlerEnd(usize),
    Return(BExpr),
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
