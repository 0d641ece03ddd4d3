//! The binder: sqlparser AST to plans.
//!
//! It resolves names against the catalog (tables) and the FROM clause (columns),
//! chooses collations for comparisons, computes static types and result metadata,
//! and hands single-table access decisions to [`crate::plan::access`].
//!
//! Parameters: every `?` in the parsed text is numbered by its position in the text
//! ([`ParamMap`]), independent of the order in which the binder visits clauses.
//! When the text is the plan cache's literal-stripped form, the binder knows the
//! literal values (for typing) and records whether the plan may be reused with
//! other values ([`Binder::reusable`]): a literal used where its value shapes the
//! plan (a select-list item, whose text is its column name; ORDER BY / GROUP BY
//! positions) makes the plan single-use.

pub mod alter;
pub mod call;
pub mod chains;
pub mod check;
pub mod column_type;
pub mod computed;
pub mod cte;
pub mod ddl;
pub mod dml;
pub mod enums;
pub mod expr;
pub mod fixed_cmp;
pub mod foreign_key;
pub mod from;
mod idents;
pub mod json_agg;
pub mod json_table;
pub mod json_table_print;
pub mod levels;
pub mod multi_dml;
pub mod names;
pub mod nested_join;
pub mod options;
pub mod part_select;
pub mod print;
pub mod returning;
pub mod row_type;
pub mod rows;
pub mod select;
pub mod stored_call;
pub mod stored_fn;
pub mod stored_set;
pub mod strings;
pub mod trigger;
pub mod typing;
pub mod union;
pub mod view;
pub mod view_print;
pub mod window;

use crate::front::lexer::{lex, TokKind};
use crate::session::ctx::SessionCtx;
use crate::ty::ExprType;
use basalt_common::{MySqlError, TableDef, Value};
use basalt_storage::{Storage, Table};
use sqlparser::ast::{ObjectName, ObjectNamePart};
use std::collections::HashMap;
use std::sync::Arc;

/// Maps the source position of each `?` to its parameter number.
#[derive(Debug, Default, Clone)]
pub struct ParamMap {
    by_pos: HashMap<(u64, u64), usize>,
}

impl ParamMap {
    pub fn new(text: &str) -> Self {
        let lexed = lex(text);
        let mut by_pos = HashMap::new();
        let mut count = 0;
        for t in lexed.tokens.iter().filter(|t| t.kind == TokKind::Param) {
            by_pos.insert(line_col(text, t.start), count);
            count += 1;
        }
        let _ = count;
        ParamMap { by_pos }
    }

    pub fn index(&self, line: u64, col: u64) -> Option<usize> {
        self.by_pos.get(&(line, col)).copied()
    }
}

/// 1-based (line, column in characters) of a byte offset, as sqlparser counts.
pub fn line_col(text: &str, offset: usize) -> (u64, u64) {
    let before = &text[..offset];
    let line = before.matches('\n').count() as u64 + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let col = text[line_start..offset].chars().count() as u64 + 1;
    (line, col)
}

/// What the binder knows about the statement's parameters.
pub struct Params<'a> {
    pub map: ParamMap,
    /// Values of literal-stripped parameters (None for a prepared statement).
    pub stripped: Option<&'a [Value]>,
    /// `?` is allowed (a prepared statement); otherwise it is a syntax error.
    pub prepared: bool,
}

/// The clause being bound, for MariaDB 10.11's `Unknown column 'x' in 'WHERE'`
/// (and `Column 'x' in SELECT is ambiguous`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clause {
    FieldList,
    Where,
    Order,
    Group,
    Having,
    On,
    /// `JOIN ... USING` / `NATURAL JOIN` columns.
    From,
    /// UPDATE ... SET (targets and values).
    Set,
    /// INSERT column list and INSERT ... SET targets.
    InsertInto,
    /// ON DUPLICATE KEY UPDATE targets.
    OnDupTarget,
    /// A CHECK constraint's condition.
    Check,
    /// A column's DEFAULT expression.
    Default,
    /// A generated column's expression.
    Generated,
    /// INSERT / REPLACE / DELETE ... RETURNING.
    Returning,
    /// The document of a JSON_TABLE.
    JsonTable,
}

impl Clause {
    pub fn name(self) -> &'static str {
        match self {
            Clause::FieldList => "SELECT",
            Clause::Where => "WHERE",
            Clause::Order => "ORDER BY",
            Clause::Group => "GROUP BY",
            Clause::Having => "HAVING",
            Clause::On => "ON",
            Clause::From => "FROM",
            Clause::Set => "SET",
            Clause::InsertInto => "INSERT INTO",
            Clause::OnDupTarget => "UPDATE",
            Clause::Check => "CHECK",
            Clause::Default => "DEFAULT",
            Clause::Generated => "GENERATED ALWAYS AS",
            Clause::JsonTable => "JSON_TABLE",
            Clause::Returning => "RETURNING",
        }
    }
}

/// A table visible to column references.
#[derive(Clone)]
pub struct ScopeTable {
    pub alias: String,
    pub db: String,
    pub def: Arc<TableDef>,
    pub offset: usize,
    /// On the NULL-extended side of an outer join.
    pub nullable: bool,
    /// A merged view: what each of its columns stands for (the table's row is
    /// the view's base table's, see `view`).
    pub view: Option<Arc<Vec<(crate::expr::Expr, ExprType)>>>,
    /// A derived table or CTE: the static types of its select list, which its
    /// columns report (MariaDB's temporary table keeps each item's type).
    pub types: Option<Arc<Vec<ExprType>>>,
}

/// Names visible to an expression: tables of the FROM clause, or named columns
/// (SHOW ... WHERE, the existing/new rows of ON DUPLICATE KEY UPDATE).
#[derive(Clone, Default)]
pub struct Scope {
    pub tables: Vec<ScopeTable>,
    pub named: Vec<(String, usize, ExprType)>,
    /// Select-list aliases, visible in GROUP BY, HAVING and ORDER BY.
    pub aliases: Vec<(String, crate::expr::Expr, ExprType)>,
    /// Aliases win over table columns (ORDER BY, HAVING); otherwise columns win.
    pub alias_first: bool,
    /// Columns joined by `USING` / `NATURAL JOIN`: each stands, under its
    /// unqualified name, for the columns it joins (see [`Coalesced`]).
    pub coalesced: Vec<Coalesced>,
}

/// One column of a `JOIN ... USING` or `NATURAL JOIN`: the equal columns of the
/// joined tables seen as one. An unqualified reference to the name resolves to
/// `source` (the left table's column, the right one's for a RIGHT JOIN, which is
/// the coalesced value in each case), and none of the `members` makes the name
/// ambiguous; a qualified reference still reaches each member.
#[derive(Clone, Debug)]
pub struct Coalesced {
    /// (index into `Scope::tables`, column ordinal) of every joined column.
    pub members: Vec<(usize, usize)>,
    pub source: (usize, usize),
}

pub struct Binder<'a> {
    pub storage: &'a Arc<Storage>,
    pub cx: &'a SessionCtx,
    pub params: Params<'a>,
    /// The statement as the client wrote it: select-item names are cut from it.
    pub raw: &'a str,
    /// The statement as sqlparser read it (after the front end's rewrites).
    pub text: &'a str,
    pub clause: Clause,
    /// The plan does not depend on the values of stripped literals.
    pub reusable: bool,
    /// Binding a select-list item (literals there name the column).
    pub in_projection: bool,
    /// A prepared statement's `?` in the select list: the result's column types
    /// follow the bound values, so each execution types the statement again.
    pub param_in_projection: bool,
    /// The plan holds rows read when it was bound (information_schema and the
    /// `mysql` system tables): a prepared statement binds again at each execution
    /// to see the server as it is then.
    pub reads_live_rows: bool,
    /// Uncorrelated subqueries bound so far (inner ones before outer ones).
    pub subplans: Vec<crate::plan::SubPlan>,
    /// Subquery nesting depth (select-item names come from `raw` only at depth 0).
    pub depth: u32,
    /// Scopes of the expressions enclosing the subqueries being bound.
    pub outer_scopes: Vec<Scope>,
    /// Outer-row expressions referenced by each subquery being bound.
    pub outer_refs: Vec<Vec<crate::expr::Expr>>,
    /// MariaDB's stack check, replayed (errno 1436 past its depth; see
    /// [`crate::stack`]).
    pub stack: crate::stack::Budget,
    /// The texts of the first SELECT's items in `raw`, once cut.
    item_texts: Option<Vec<String>>,
    /// Derived tables being bound, nested in one another.
    pub derived_depth: u32,
    /// The WITH clauses in scope, outermost first.
    pub ctes: Vec<cte::Frame>,
    /// Recursive CTEs whose steps are being bound.
    pub recursing: Vec<cte::Recursing>,
    /// The view that CREATE VIEW is defining: invisible while its query binds.
    pub hidden_view: Option<(String, String)>,
    /// Binding the target of UPDATE / DELETE: a view with expression columns
    /// merges too (no outer join can NULL-extend it).
    pub merge_expressions: bool,
    /// Views whose bodies are being bound: their names never resolve to the
    /// session's temporary tables (MariaDB).
    pub view_body: u32,
    /// The query blocks being bound, outermost first (their SELECT positions).
    pub selects: Vec<crate::plan::SelectPos>,
    /// The text positions are in: 0 for the statement, then one per view body.
    pub text_no: u64,
    /// Texts numbered so far.
    pub texts: u64,
    /// The privileges the statement needs (see [`crate::plan::Need`]).
    pub needs: Vec<crate::plan::Need>,
    /// Above 0 while binding what a view stands for (its rights are the view's).
    pub unchecked: u32,
    /// Binding a statement of a stored function's body.
    pub routine: Option<stored_fn::RoutineBinding>,
    /// Stored functions the statement calls read tables / change rows.
    pub fn_reads: bool,
    pub fn_writes: bool,
}

impl<'a> Binder<'a> {
    pub fn new(
        storage: &'a Arc<Storage>,
        cx: &'a SessionCtx,
        text: &'a str,
        stripped: Option<&'a [Value]>,
    ) -> Self {
        Binder {
            storage,
            cx,
            params: Params {
                map: ParamMap::new(text),
                stripped,
                prepared: false,
            },
            raw: text,
            text,
            clause: Clause::FieldList,
            reusable: true,
            in_projection: false,
            param_in_projection: false,
            reads_live_rows: false,
            subplans: Vec::new(),
            depth: 0,
            outer_scopes: Vec::new(),
            outer_refs: Vec::new(),
            stack: crate::stack::Budget::new(crate::stack::base::SELECT),
            item_texts: None,
            derived_depth: 0,
            ctes: Vec::new(),
            recursing: Vec::new(),
            hidden_view: None,
            merge_expressions: false,
            view_body: 0,
            selects: Vec::new(),
            text_no: 0,
            texts: 0,
            needs: Vec::new(),
            unchecked: 0,
            routine: None,
            fn_reads: false,
            fn_writes: false,
        }
    }

    /// The database unqualified names are in: a stored function's own while
    /// its body binds, else the session's.
    pub fn db(&self) -> Option<&str> {
        match &self.routine {
            Some(r) => Some(&r.db),
            None => self.cx.db.as_deref(),
        }
    }

    /// The query block being bound ((0, 0, 0) outside any SELECT).
    pub fn current_select(&self) -> crate::plan::SelectPos {
        self.selects.last().copied().unwrap_or((0, 0, 0))
    }

    /// Starts the virtual stack at `base` (the statement kind's, see
    /// [`crate::stack::base`]).
    pub fn with_stack_base(mut self, base: u32) -> Self {
        self.stack = crate::stack::Budget::new(base);
        self
    }

    /// Accepts `?` parameters (PREPARE / COM_STMT_PREPARE).
    pub fn prepared(mut self) -> Self {
        self.params.prepared = true;
        self
    }

    /// Names select items from `raw` (the unrewritten statement text).
    pub fn with_raw(mut self, raw: &'a str) -> Self {
        self.raw = raw;
        self
    }

    /// Binds a subquery and registers it; returns its index and the type of its
    /// first column. Columns the subquery does not find in its own FROM clause are
    /// looked up in `outer` (the scope of the expression containing it): such
    /// references make it correlated.
    pub fn subquery(
        &mut self,
        q: &sqlparser::ast::Query,
        kind: crate::plan::SubKind,
        outer: &Scope,
    ) -> Result<(usize, Vec<crate::expr::Expr>, ExprType), MySqlError> {
        self.outer_scopes.push(outer.clone());
        self.outer_refs.push(Vec::new());
        let plan = self.nested_select(q, crate::stack::cost::SUBQUERY);
        self.outer_scopes.pop();
        let refs = self.outer_refs.pop().unwrap_or_default();
        let plan = plan?;
        if kind != crate::plan::SubKind::Exists && plan.visible != 1 {
            return Err(MySqlError::operand_columns(1));
        }
        let mut ty = plan
            .types
            .first()
            .cloned()
            .unwrap_or_else(ExprType::null)
            .nullable(true);
        if kind == crate::plan::SubKind::Scalar && ty.class == crate::ty::Class::Int {
            // A positive integer literal is sized by its digits alone; the
            // subquery's value holder counts the sign place as well.
            if !ty.sign_char && !ty.unsigned {
                ty.len += 1;
                ty.sign_char = true;
            }
        }
        self.subplans.push(crate::plan::SubPlan {
            plan,
            kind,
            target: None,
            outer: refs.clone(),
            recursive: None,
            parent: self.current_select(),
        });
        Ok((self.subplans.len() - 1, refs, ty))
    }

    /// Binds a SELECT nested in the statement (subquery, derived table), charging
    /// `cost` on the virtual stack. Beyond 63 levels: 1473, as MariaDB.
    pub fn nested_select(
        &mut self,
        q: &sqlparser::ast::Query,
        cost: u32,
    ) -> Result<crate::plan::SelectPlan, MySqlError> {
        if self.depth >= 63 {
            return Err(MySqlError::new(
                basalt_common::error::code::ER_TOO_HIGH_LEVEL_OF_NESTING_FOR_SELECT,
                "HY000",
                "Too high level of nesting for select",
            ));
        }
        self.stack.enter(cost)?;
        let (clause, proj) = (self.clause, self.in_projection);
        self.in_projection = false;
        self.depth += 1;
        let plan = crate::stack::grow(|| self.select(q));
        self.depth -= 1;
        self.clause = clause;
        self.in_projection = proj;
        self.stack.leave(cost);
        plan
    }

    /// Moves the bound subqueries into the top-level plan.
    pub fn attach_subqueries(&mut self, plan: &mut crate::plan::Plan) {
        plan.set_needs(std::mem::take(&mut self.needs));
        if let crate::plan::Plan::Select(p) = plan {
            p.reads_tables |= self.fn_reads || self.fn_writes;
            p.calls_writer |= self.fn_writes;
        }
        let subs = std::mem::take(&mut self.subplans);
        if subs.is_empty() {
            return;
        }
        let reads = subs.iter().any(|s| s.plan.reads_tables);
        match plan {
            crate::plan::Plan::Select(p) => {
                p.reads_tables |= reads;
                p.subs = std::sync::Arc::new(subs);
            }
            crate::plan::Plan::Insert(p) => p.subs = std::sync::Arc::new(subs),
            crate::plan::Plan::Modify(p) => p.subs = std::sync::Arc::new(subs),
        }
    }

    /// The current database, or 1046.
    pub fn current_db(&self) -> Result<String, MySqlError> {
        self.db().map(str::to_string).ok_or_else(MySqlError::no_db)
    }

    /// Resolves `[db.]table` to (db, name).
    pub fn table_name(&self, name: &ObjectName) -> Result<(String, String), MySqlError> {
        let parts = object_parts(name);
        match parts.as_slice() {
            [t] => Ok((self.current_db()?, t.clone())),
            [d, t] => Ok((d.clone(), t.clone())),
            _ => Err(MySqlError::parse_error(&name.to_string(), 1)),
        }
    }

    /// Notes that the statement needs `privs` on `db.table` as its text names it
    /// (not inside a view's body, nor for information_schema or a temporary table).
    pub fn need(&mut self, db: &str, table: &str, privs: basalt_acl::Privs) {
        if self.view_body > 0
            || self.unchecked > 0
            || crate::infoschema::is_schema(db)
            || self.cx.temp.contains(db, table)
        {
            return;
        }
        self.needs.push(crate::plan::Need {
            db: db.to_string(),
            table: table.to_string(),
            privs,
            column: None,
        });
    }

    /// Changes the need noted at `at` (the target of UPDATE / DELETE, noted as
    /// read when its FROM bound) to `privs`, plus SELECT when the statement reads
    /// a column (`column`, the first one it reads).
    pub fn retarget_need(&mut self, at: usize, privs: basalt_acl::Privs, column: Option<String>) {
        if let Some(n) = self.needs.get_mut(at) {
            n.privs = match &column {
                Some(_) => privs | basalt_acl::Privs::SELECT,
                None => privs,
            };
            n.column = column;
        }
    }

    /// View `db.name`: a stored view, or one of the sys schema's.
    pub fn view_of(&self, db: &str, name: &str) -> Option<Arc<basalt_storage::ViewDef>> {
        if crate::sysschema::is_schema(db) {
            return crate::sysschema::view_def(name);
        }
        self.storage.view(db, name)
    }

    /// Opens a table, or 1146 (1049 when the database itself is missing).
    pub fn open_table(&mut self, db: &str, name: &str) -> Result<Arc<dyn Table>, MySqlError> {
        if crate::infoschema::is_schema(db) {
            self.reusable = false;
            self.reads_live_rows = true;
            return crate::infoschema::open(name, self.cx);
        }
        if crate::perfschema::is_schema(db) {
            self.reusable = false;
            self.reads_live_rows = true;
            return crate::perfschema::open(name, self.cx);
        }
        if let Some(t) = self.cx.temp.table(db, name).filter(|_| self.view_body == 0) {
            if self.hidden_view.is_some() {
                return Err(MySqlError::new(
                    1352,
                    "HY000",
                    format!("View's SELECT refers to a temporary table '{name}'"),
                ));
            }
            // The shared plan cache must never hand this plan to another session.
            self.reusable = false;
            return Ok(t);
        }
        match self.storage.table(db, name) {
            Some(t) => Ok(t),
            None => {
                let collation = self.storage.database_collation(db);
                let collation = collation.unwrap_or(self.cx.engine.config.collation_server);
                if let Some(t) = crate::seq_engine::open(db, name, collation) {
                    return t;
                }
                let t = crate::system_tables::open(&self.cx.engine, db, name)
                    .ok_or_else(|| MySqlError::no_such_table(db, name))?;
                self.reusable = false;
                self.reads_live_rows = true;
                Ok(t)
            }
        }
    }
}

/// The identifiers of an object name, unquoted.
pub fn object_parts(name: &ObjectName) -> Vec<String> {
    name.0
        .iter()
        .map(|p| match p {
            ObjectNamePart::Identifier(i) => i.value.clone(),
            ObjectNamePart::Function(f) => f.name.value.clone(),
        })
        .collect()
}
