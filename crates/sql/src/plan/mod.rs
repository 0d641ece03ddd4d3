//! Executable plans: what the binder and the access-path chooser produce and the
//! executor runs.
//!
//! A plan refers to its constants only through [`Expr::Param`] when they came from
//! the statement text, so one plan serves every execution of a prepared statement
//! and every query with the same plan-cache key. Anything that depends on the
//! parameter values (index key ranges, LIMIT) is evaluated when the plan runs.
//!
//! Rows of a SELECT are built as the concatenation of the rows of the tables in the
//! FROM clause, in FROM order; `TableRef::offset` is where a table's columns start.
//! Join levels may run in another order (RIGHT JOIN), each writing its own slot.

pub mod access;
pub mod cache;
pub mod equalities;
pub mod hash_keys;
pub mod join_order;
pub mod json_table;
pub mod multi_dml;
pub mod outer_join;
pub mod range;
pub mod switch;
pub mod window;

use crate::expr::Expr;
use crate::ty::ExprType;
use basalt_common::{Collation, ColumnMeta, TableDef};
use basalt_storage::{LockMode, Table, WaitPolicy};
use std::sync::Arc;

/// A table of the FROM clause.
#[derive(Clone)]
pub struct TableRef {
    pub table: Arc<dyn Table>,
    pub def: Arc<TableDef>,
    pub db: String,
    /// The name the query uses for it (alias, or the table name).
    pub alias: String,
    /// Position of its first column in the joined row.
    pub offset: usize,
    /// A JSON_TABLE: its rows come from the document, not from `table`.
    pub func: Option<Arc<json_table::JsonTableFn>>,
}

impl std::fmt::Debug for TableRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "TableRef({}.{} as {} @{})",
            self.db, self.def.name, self.alias, self.offset
        )
    }
}

impl TableRef {
    pub fn width(&self) -> usize {
        self.def.columns.len()
    }
}

/// The ranges an index access reads, as expressions evaluated at run time.
#[derive(Clone, Debug, PartialEq)]
pub enum RangeSpec {
    /// `eq` on the leading columns (`None`: `IS NULL`; an expression that is NULL
    /// matches nothing), then optional bounds on the next one, in value order.
    Prefix {
        eq: Vec<Option<Expr>>,
        lower: Option<(Expr, bool)>,
        upper: Option<(Expr, bool)>,
    },
    /// IN-list points on the leading columns (each a full prefix of equal values).
    Points(Vec<Vec<Expr>>),
    /// The whole index.
    All,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Access {
    /// Point lookup on the primary key (every key column bound by equality).
    PkGet { key: Vec<Expr> },
    /// Scan of an index (the clustered index when `index_id` is the primary's).
    Index {
        index_id: u32,
        range: RangeSpec,
        reverse: bool,
        /// Every column the query reads is in the index: no clustered lookup.
        covering: bool,
    },
}

#[derive(Clone, Debug)]
pub struct Level {
    /// Index into [`SelectPlan::tables`].
    pub table: usize,
    pub access: Access,
    /// Conditions that decide whether a row of this table matches (ON for outer
    /// joins, plus WHERE conjuncts for inner ones), evaluated on the joined row.
    pub filter: Option<Expr>,
    /// `filter` without the conjuncts the access path already guarantees; used when
    /// every key value converted exactly at run time.
    pub residual: Option<Expr>,
    /// LEFT JOIN inner side: a NULL row when nothing matches.
    pub outer: bool,
    /// WHERE conjuncts evaluated after this level's row (possibly NULL) is placed.
    pub post_filter: Option<Expr>,
    /// Column ordinals of this table the query reads.
    pub columns: Vec<usize>,
    /// Estimated rows per lookup (for EXPLAIN).
    pub est_rows: u64,
    /// Joined through a hash table of the table's rows instead of a scan per
    /// outer row (`exec::hash_join`).
    pub hash: Option<hash_keys::HashJoin>,
    /// Names for EXPLAIN.
    pub explain: ExplainInfo,
}

/// `levels` with the constant subexpressions of their conditions marked, to be
/// evaluated once per statement (see [`crate::expr::once`]); the last step of
/// planning, after everything that reads the conditions' shapes.
pub fn mark_constants(mut levels: Vec<Level>) -> Vec<Level> {
    use crate::expr::once::mark_opt;
    for l in &mut levels {
        mark_opt(&mut l.filter);
        mark_opt(&mut l.residual);
        mark_opt(&mut l.post_filter);
    }
    levels
}

#[derive(Clone, Debug, Default)]
pub struct ExplainInfo {
    pub access_type: &'static str,
    pub possible_keys: Vec<String>,
    pub key: Option<String>,
    pub key_len: Option<u32>,
    pub using_where: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggFunc {
    CountStar,
    Count,
    Sum,
    Avg,
    Min,
    Max,
    /// Value of the first row of the group (a bare column under GROUP BY).
    First,
    GroupConcat,
    BitAnd,
    BitOr,
    BitXor,
    StdDev,
    Variance,
    /// STDDEV_SAMP / VAR_SAMP: divided by n - 1 (NULL for fewer than two values).
    StdDevSamp,
    VarSamp,
}

#[derive(Clone, Debug)]
pub struct AggCall {
    pub func: AggFunc,
    pub arg: Option<Expr>,
    pub distinct: bool,
    pub coll: Collation,
    /// GROUP_CONCAT separator.
    pub separator: Vec<u8>,
    /// GROUP_CONCAT ... ORDER BY keys (expression, descending, collation).
    pub order: Vec<(Expr, bool, Collation)>,
}

#[derive(Clone, Debug)]
pub struct AggPlan {
    pub group_by: Vec<Expr>,
    pub group_colls: Vec<Collation>,
    pub calls: Vec<AggCall>,
    /// WITH ROLLUP: super-aggregate rows for every prefix of `group_by`.
    pub rollup: bool,
}

#[derive(Clone, Debug)]
pub struct SortKey {
    /// Position in the projected row.
    pub column: usize,
    pub desc: bool,
    pub coll: Collation,
    /// UUID / INET6 values sort by their binary form, not their text.
    pub fixed: Option<basalt_common::fixedbin::FixedBin>,
}

/// A privilege a statement needs on a table or view its text names (views'
/// bodies run with their definer's rights). `column`: the first column read, for
/// MariaDB's 1143 when SELECT is missing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Need {
    pub db: String,
    pub table: String,
    pub privs: basalt_acl::Privs,
    pub column: Option<String>,
}

/// The privileges a top-level plan needs (empty in subplans).
pub type Needs = std::sync::Arc<Vec<Need>>;

#[derive(Clone, Debug)]
pub struct SelectPlan {
    pub needs: Needs,
    pub tables: Vec<TableRef>,
    /// Join levels in execution order.
    pub levels: Vec<Level>,
    pub row_width: usize,
    /// Conditions on no table (constants, variables), checked once.
    pub const_filter: Option<Expr>,
    pub agg: Option<AggPlan>,
    pub having: Option<Expr>,
    /// Output expressions: the visible columns first, then hidden sort keys.
    pub project: Vec<Expr>,
    pub visible: usize,
    pub distinct: bool,
    /// Empty when the access path already delivers rows in order.
    pub order: Vec<SortKey>,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
    pub columns: Arc<[ColumnMeta]>,
    pub lock: LockMode,
    pub wait: WaitPolicy,
    pub calc_found_rows: bool,
    /// A SELECT with a FROM clause (needs a transaction).
    pub reads_tables: bool,
    /// It calls a stored function that changes rows (its transaction must
    /// not be read-only).
    pub calls_writer: bool,
    /// Static types of the visible columns.
    pub types: Vec<ExprType>,
    /// Uncorrelated subqueries, in evaluation order (top-level plans only).
    pub subs: std::sync::Arc<Vec<SubPlan>>,
    /// A UNION: the branches (each with whether it joins the previous ones with
    /// UNION ALL). This plan's own levels are then empty; its ORDER BY / LIMIT
    /// apply to the combined rows.
    pub union: Vec<(SelectPlan, bool)>,
    /// INTERSECT / EXCEPT of two operands (then `union` and the levels are
    /// empty); ORDER BY / LIMIT apply to its result.
    pub setop: Option<Box<SetOpPlan>>,
    /// Window functions, computed over the rows before the projection.
    pub window: Option<Box<window::WindowPlan>>,
    /// Where the query block's SELECT keyword stands in the statement text (a
    /// UNION: its first branch's); EXPLAIN numbers query blocks in this order, as
    /// MariaDB numbers them as it parses. A block with no SELECT
    /// keyword (the rows an UPDATE or DELETE reads) is (0, 0, 0).
    pub pos: SelectPos,
}

/// A query block's place in the statement: (text, line, column) of its SELECT,
/// where text 0 is the statement's own and each view body bound gets the next
/// number (MariaDB numbers a view's blocks after the statement's).
pub type SelectPos = (u64, u64, u64);

impl SelectPlan {
    /// The plans this one combines: UNION branches, INTERSECT / EXCEPT operands.
    pub fn operands(&self) -> impl Iterator<Item = &SelectPlan> {
        let so = self.setop.as_deref();
        self.union
            .iter()
            .map(|(b, _)| b)
            .chain(so.map(|s| &s.left))
            .chain(so.map(|s| &s.right))
    }
}

impl SubPlan {
    /// Every SELECT the subquery runs (a recursive CTE's anchors and steps).
    pub fn plans(&self) -> impl Iterator<Item = &SelectPlan> {
        let rec = self.recursive.as_deref();
        std::iter::once(&self.plan).chain(
            rec.into_iter()
                .flat_map(|r| r.anchors.iter().chain(&r.steps)),
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetOpKind {
    Intersect,
    Except,
}

/// `left INTERSECT|EXCEPT [ALL] right`; rows compare as UNION DISTINCT compares
/// them (NULLs equal).
#[derive(Clone, Debug)]
pub struct SetOpPlan {
    pub kind: SetOpKind,
    pub all: bool,
    pub left: SelectPlan,
    pub right: SelectPlan,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubKind {
    Scalar,
    Exists,
    In,
}

/// An uncorrelated subquery, run once before the statement that contains it.
#[derive(Clone, Debug)]
pub struct SubPlan {
    pub plan: SelectPlan,
    pub kind: SubKind,
    /// A derived table (subquery in FROM) whose rows this subquery provides.
    pub target: Option<std::sync::Arc<crate::infoschema::VirtualTable>>,
    /// For a correlated subquery, the outer-row expressions its `Expr::OuterRef`s
    /// stand for; it then runs per distinct outer value instead of once.
    pub outer: Vec<Expr>,
    /// A recursive CTE: `plan` is its first anchor and `target` its result.
    pub recursive: Option<Box<Recursion>>,
    /// The query block the subquery stands in (its [`SelectPlan::pos`]).
    pub parent: SelectPos,
}

/// A recursive CTE (see `exec::cte`): the anchors run once, then the steps run
/// over `work` (the rows the previous round added) until a round adds none.
#[derive(Clone, Debug)]
pub struct Recursion {
    /// The anchors after the first.
    pub anchors: Vec<SelectPlan>,
    pub steps: Vec<SelectPlan>,
    /// What the steps' self-references read.
    pub work: std::sync::Arc<crate::infoschema::VirtualTable>,
    /// UNION DISTINCT somewhere in the definition: a row already in the result
    /// is not added again.
    pub distinct: bool,
    /// The result's columns (types from the anchors): every row is stored as
    /// these, with strict-mode errors.
    pub columns: Vec<basalt_common::ColumnDef>,
    pub types: Vec<ExprType>,
    /// The statement's subqueries bound inside the steps (derived tables over the
    /// working table): run again before each round.
    pub subs: std::ops::Range<usize>,
}

#[derive(Clone, Debug)]
pub enum InsertSource {
    /// Rows of expressions; `None` is DEFAULT.
    Values(Vec<Vec<Option<Expr>>>),
    Select(Box<SelectPlan>),
}

/// `RETURNING` of INSERT / REPLACE / DELETE: expressions over the target table's
/// row (as stored, or as it was before DELETE), sent back as a result set.
#[derive(Clone, Debug)]
pub struct Returning {
    pub exprs: Vec<Expr>,
    pub columns: Arc<[ColumnMeta]>,
}

#[derive(Clone, Debug)]
pub struct InsertPlan {
    pub needs: Needs,
    pub table: TableRef,
    /// Target column ordinal of each value position.
    pub columns: Vec<usize>,
    pub source: InsertSource,
    /// ON DUPLICATE KEY UPDATE: (column, expr over `[existing row, new row]`).
    pub on_dup: Vec<(usize, Expr)>,
    pub ignore: bool,
    pub replace: bool,
    pub subs: std::sync::Arc<Vec<SubPlan>>,
    /// The table's CHECK constraints, over its row.
    pub checks: crate::bind::check::Checks,
    pub returning: Option<Returning>,
}

#[derive(Clone, Debug)]
pub struct ModifyPlan {
    pub needs: Needs,
    /// A single-table SELECT plan reading the rows to change (locking, exclusive).
    pub scan: SelectPlan,
    /// UPDATE assignments (column, expr over the table's row); empty for DELETE.
    pub set: Vec<(usize, Expr)>,
    pub delete: bool,
    pub subs: std::sync::Arc<Vec<SubPlan>>,
    /// The table's CHECK constraints (UPDATE), over its row.
    pub checks: crate::bind::check::Checks,
    /// DELETE ... RETURNING (UPDATE has none in MariaDB 10.11).
    pub returning: Option<Returning>,
    /// UPDATE IGNORE / DELETE IGNORE.
    pub ignore: bool,
    /// Multi-table UPDATE / DELETE: `scan` is the join, `set` and `checks` are
    /// empty and each target says what changes.
    pub multi: Option<Box<multi_dml::MultiDml>>,
}

#[derive(Clone, Debug)]
pub enum Plan {
    Select(SelectPlan),
    Insert(InsertPlan),
    Modify(ModifyPlan),
}

impl Plan {
    /// The result columns the statement sends (empty for an OK packet).
    pub fn result_columns(&self) -> &[ColumnMeta] {
        match self {
            Plan::Select(s) => &s.columns,
            Plan::Insert(InsertPlan {
                returning: Some(r), ..
            })
            | Plan::Modify(ModifyPlan {
                returning: Some(r), ..
            }) => &r.columns,
            _ => &[],
        }
    }

    /// The privileges the statement needs.
    pub fn needs(&self) -> &[Need] {
        match self {
            Plan::Select(p) => &p.needs,
            Plan::Insert(p) => &p.needs,
            Plan::Modify(p) => &p.needs,
        }
    }

    pub fn set_needs(&mut self, needs: Vec<Need>) {
        let n = std::sync::Arc::new(needs);
        match self {
            Plan::Select(p) => p.needs = n,
            Plan::Insert(p) => p.needs = n,
            Plan::Modify(p) => p.needs = n,
        }
    }
}

/// The plan of a one-row `INSERT ... VALUES` repeated for `rows` rows of `width`
/// parameters each (row `k` reads parameters `k * width ..`); `None` unless every
/// value of the row is a parameter of that row, a constant or DEFAULT.
pub fn repeat_insert_row(plan: &Plan, width: usize, rows: usize) -> Option<Plan> {
    let Plan::Insert(p) = plan else {
        return None;
    };
    let InsertSource::Values(v) = &p.source else {
        return None;
    };
    let [row] = v.as_slice() else {
        return None;
    };
    if !p.on_dup.is_empty() {
        return None;
    }
    let ok = row.iter().all(|e| match e {
        None | Some(Expr::Const(_)) => true,
        Some(Expr::Param(j)) => *j < width,
        Some(_) => false,
    });
    if !ok {
        return None;
    }
    let all = (0..rows)
        .map(|k| {
            row.iter()
                .map(|e| match e {
                    Some(Expr::Param(j)) => Some(Expr::Param(k * width + j)),
                    other => other.clone(),
                })
                .collect()
        })
        .collect();
    Some(Plan::Insert(InsertPlan {
        source: InsertSource::Values(all),
        ..p.clone()
    }))
}
