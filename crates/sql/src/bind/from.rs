//! The FROM clause: table references, aliases, index hints, joins.
//!
//! Produces the tables in FROM order (which fixes the joined-row layout), the
//! execution order of the join levels (FROM order, except that `A RIGHT JOIN B`
//! runs B first), which levels are outer (NULL-extended), and the bound ON
//! conditions.
//!
//! `JOIN ... USING (c)` and `NATURAL JOIN` follow MySQL: the left operand is the
//! chain of joins so far within one comma-separated item, and its columns are
//! what `SELECT *` would show of it, where an earlier USING column counts once.
//! Each joined name must name exactly one column of the left operand (1052
//! otherwise, 1054 when missing on either side). The joined columns become one
//! [`Coalesced`] column, listed first by `SELECT *`, followed by the other columns
//! of the left operand and then of the right table (the right table's first for a
//! RIGHT JOIN); unqualified references resolve to it, qualified ones to each table.

use super::{Binder, Clause, Coalesced, Scope, ScopeTable};
use crate::expr::{CmpOp, Expr};
use crate::plan::access::Hints;
use crate::plan::{SubKind, SubPlan, TableRef};
use crate::ty::{Class, ExprType};
use basalt_common::MySqlError;
use basalt_common::{ColumnDef, DataType, IntKind, LobKind};
use sqlparser::ast::{self, JoinConstraint, JoinOperator, TableFactor};
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// One join level before access paths are chosen.
#[derive(Debug, Clone)]
pub struct LevelSpec {
    pub table: usize,
    pub outer: bool,
    /// ON conjuncts of an outer join (they decide matches, not filter rows).
    pub on: Vec<Expr>,
    /// Tables (bit set by FROM index) that must run before this level: the left
    /// operand of a LEFT JOIN (or STRAIGHT_JOIN) whose right side this is, the
    /// right table of a RIGHT JOIN. The join-order search keeps these.
    pub deps: u64,
}

pub struct From {
    pub tables: Vec<TableRef>,
    pub hints: Vec<Hints>,
    pub scope: Scope,
    /// Levels in execution order.
    pub levels: Vec<LevelSpec>,
    /// ON conjuncts of inner joins: they filter like WHERE conjuncts.
    pub inner_on: Vec<Expr>,
    pub width: usize,
    /// What `SELECT *` shows, as (table, column): every column of every table in
    /// FROM order, except that a USING/NATURAL column appears once, first in its
    /// join.
    pub star: Vec<(usize, usize)>,
    /// WHERE conditions of merged views, by the table they were merged into: an
    /// outer level's ON conditions or, for an inner one, filters.
    pub view_filters: Vec<(usize, Expr)>,
    /// `SELECT STRAIGHT_JOIN`: the levels run in FROM order.
    pub straight: bool,
    /// JSON_TABLEs and the tables (bit set) their documents read: those run
    /// first.
    pub lateral: Vec<(usize, u64)>,
}

struct RawJoin<'a> {
    table: usize,
    kind: Kind,
    constraint: Option<&'a JoinConstraint>,
    /// `a STRAIGHT_JOIN b`: the left operand runs first.
    straight: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    First,
    Inner,
    Left,
    Right,
}

impl From {
    /// A FROM clause with no tables.
    pub fn empty() -> From {
        From {
            tables: Vec::new(),
            hints: Vec::new(),
            scope: Scope::default(),
            levels: Vec::new(),
            inner_on: Vec::new(),
            width: 0,
            star: Vec::new(),
            view_filters: Vec::new(),
            straight: false,
            lateral: Vec::new(),
        }
    }
}

impl Binder<'_> {
    pub fn bind_from(&mut self, from: &[ast::TableWithJoins]) -> R<From> {
        let flat;
        let from = match super::nested_join::flatten(from) {
            Some(f) => {
                flat = f;
                &flat[..]
            }
            None => from,
        };
        let mut out = From::empty();
        let mut raw = Vec::new();
        for twj in from {
            if let Some(t) = self.table_factor(&twj.relation, &mut out)? {
                raw.push(RawJoin {
                    table: t,
                    kind: Kind::First,
                    constraint: None,
                    straight: false,
                });
            }
            for j in &twj.joins {
                let (kind, c) = match &j.join_operator {
                    JoinOperator::Join(c)
                    | JoinOperator::Inner(c)
                    | JoinOperator::StraightJoin(c) => (Kind::Inner, Some(c)),
                    JoinOperator::CrossJoin(c) => (Kind::Inner, Some(c)),
                    JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (Kind::Left, Some(c)),
                    JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (Kind::Right, Some(c)),
                    other => return Err(MySqlError::not_supported(&format!("join {other:?}"))),
                };
                if let Some(t) = self.table_factor(&j.relation, &mut out)? {
                    raw.push(RawJoin {
                        table: t,
                        kind,
                        constraint: c,
                        straight: matches!(j.join_operator, JoinOperator::StraightJoin(_)),
                    });
                }
            }
        }
        // Table sets are 64-bit masks, and MariaDB's limit is lower.
        if out.tables.len() > crate::front::parse::MAX_TABLES {
            return Err(crate::front::parse::too_many_tables());
        }
        self.mark_nullable(&raw, &mut out);
        self.bind_joins(raw, &mut out)?;
        for &(t, deps) in &out.lateral {
            if let Some(l) = out.levels.iter_mut().find(|l| l.table == t) {
                l.deps |= deps;
            }
        }
        Ok(out)
    }

    fn mark_nullable(&self, raw: &[RawJoin], out: &mut From) {
        for (i, r) in raw.iter().enumerate() {
            match r.kind {
                Kind::Left => out.scope.tables[r.table].nullable = true,
                Kind::Right if i > 0 => out.scope.tables[raw[i - 1].table].nullable = true,
                _ => {}
            }
        }
    }

    fn bind_joins(&mut self, raw: Vec<RawJoin<'_>>, out: &mut From) -> R<()> {
        let saved = self.clause;
        self.clause = Clause::On;
        // The `SELECT *` columns of the current chain (its left operand so far).
        let mut chain: Vec<(usize, usize)> = Vec::new();
        // The tables of the current comma-separated item before this one.
        let mut left = 0u64;
        for (i, r) in raw.iter().enumerate() {
            if r.kind == Kind::First {
                out.star.append(&mut chain);
                left = 0;
            }
            let conds = match &r.constraint {
                Some(c @ (JoinConstraint::Using(_) | JoinConstraint::Natural)) => {
                    self.clause = Clause::From;
                    let conds = self.coalesce(c, r, &mut chain, out);
                    self.clause = Clause::On;
                    conds?
                }
                Some(c) => {
                    chain.extend(table_columns(out, r.table));
                    self.constraint(c, out)?
                }
                None => {
                    chain.extend(table_columns(out, r.table));
                    Vec::new()
                }
            };
            match r.kind {
                Kind::First | Kind::Inner => {
                    out.levels.push(LevelSpec {
                        table: r.table,
                        outer: false,
                        on: Vec::new(),
                        deps: if r.straight { left } else { 0 },
                    });
                    out.inner_on.extend(conds);
                }
                Kind::Left => out.levels.push(LevelSpec {
                    table: r.table,
                    outer: true,
                    on: conds,
                    deps: left,
                }),
                Kind::Right => {
                    if i != 1 {
                        return Err(MySqlError::not_supported(
                            "RIGHT JOIN of more than two tables",
                        ));
                    }
                    let prev = out.levels.pop().map_or(raw[0].table, |l| l.table);
                    out.levels.push(LevelSpec {
                        table: r.table,
                        outer: false,
                        on: Vec::new(),
                        deps: 0,
                    });
                    out.levels.push(LevelSpec {
                        table: prev,
                        outer: true,
                        on: conds,
                        deps: 1 << r.table,
                    });
                }
            }
            left |= 1 << r.table;
        }
        out.star.append(&mut chain);
        for (t, cond) in std::mem::take(&mut out.view_filters) {
            match out.levels.iter_mut().find(|l| l.table == t && l.outer) {
                Some(level) => level.on.push(cond),
                None => out.inner_on.push(cond),
            }
        }
        self.clause = saved;
        Ok(())
    }

    fn constraint(&mut self, c: &JoinConstraint, out: &From) -> R<Vec<Expr>> {
        match c {
            JoinConstraint::On(e) => {
                let (b, _) = self.expr(e, &out.scope, None)?;
                Ok(split_and(b))
            }
            JoinConstraint::None => Ok(Vec::new()),
            other => Err(MySqlError::not_supported(&format!(
                "join constraint {other:?}"
            ))),
        }
    }

    /// Joins table `r.table` to the chain's columns `chain` by USING or NATURAL:
    /// returns the equalities, records the coalesced columns in the scope and
    /// rewrites `chain` to the joined result's columns.
    fn coalesce(
        &mut self,
        c: &JoinConstraint,
        r: &RawJoin,
        chain: &mut Vec<(usize, usize)>,
        out: &mut From,
    ) -> R<Vec<Expr>> {
        let right = r.table;
        let rdef = out.scope.tables[right].def.clone();
        let col_name = |out: &From, (t, c): (usize, usize)| -> String {
            out.scope.tables[t].def.columns[c].name.clone()
        };
        let mut names: Vec<String> = Vec::new();
        let mut add = |n: String| {
            if !names.iter().any(|m| m.eq_ignore_ascii_case(&n)) {
                names.push(n);
            }
        };
        match c {
            JoinConstraint::Using(cols) => {
                for n in cols {
                    add(super::object_parts(n).last().cloned().unwrap_or_default());
                }
            }
            _ => {
                for &lc in chain.iter() {
                    let n = col_name(out, lc);
                    if rdef.column_index(&n).is_some() {
                        add(n);
                    }
                }
            }
        }
        let mut conds = Vec::with_capacity(names.len());
        let mut joined = Vec::with_capacity(names.len());
        let mut used = Vec::with_capacity(names.len() * 2);
        for n in &names {
            let mut lefts = chain
                .iter()
                .filter(|lc| col_name(out, **lc).eq_ignore_ascii_case(n));
            let left = match (lefts.next(), lefts.next()) {
                (Some(l), None) => *l,
                (None, _) => return Err(MySqlError::bad_field(n, self.clause.name())),
                _ => return Err(MySqlError::ambiguous_field(n, self.clause.name())),
            };
            let rc = rdef
                .column_index(n)
                .ok_or_else(|| MySqlError::bad_field(n, self.clause.name()))?;
            conds.push(self.join_eq(left, (right, rc), out)?);
            let source = if r.kind == Kind::Right {
                (right, rc)
            } else {
                left
            };
            match out.scope.coalesced.iter_mut().find(|g| g.source == left) {
                Some(g) => {
                    g.members.push((right, rc));
                    g.source = source;
                }
                None => out.scope.coalesced.push(Coalesced {
                    members: vec![left, (right, rc)],
                    source,
                }),
            }
            joined.push(source);
            used.extend([left, (right, rc)]);
        }
        let rest_left = chain.iter().copied().filter(|x| !used.contains(x));
        let rest_right = table_columns(out, right).filter(|x| !used.contains(x));
        let mut cols = joined;
        if r.kind == Kind::Right {
            cols.extend(rest_right.chain(rest_left));
        } else {
            cols.extend(rest_left.chain(rest_right));
        }
        *chain = cols;
        Ok(conds)
    }

    /// `left = right` for two columns given as (table, column).
    fn join_eq(&mut self, left: (usize, usize), right: (usize, usize), out: &From) -> R<Expr> {
        let mut side = |(t, c): (usize, usize)| {
            let st = &out.scope.tables[t];
            let q = [st.alias.clone()];
            self.column(Some(&q), &st.def.columns[c].name, &out.scope)
        };
        let (l, lt) = side(left)?;
        let (r, rt) = side(right)?;
        Ok(Expr::Cmp(
            CmpOp::Eq,
            l.boxed(),
            r.boxed(),
            super::expr::cmp_collation(&lt, &rt),
        ))
    }

    /// Adds a derived table (a subquery in FROM): a virtual table whose rows the
    /// subquery provides when the statement runs.
    fn derived(
        &mut self,
        q: &ast::Query,
        alias: Option<&ast::TableAlias>,
        out: &mut From,
    ) -> R<usize> {
        let Some(alias) = alias else {
            return Err(MySqlError::parse_error("", 1));
        };
        let names: Vec<String> = alias.columns.iter().map(|c| c.name.value.clone()).collect();
        let cols = (!names.is_empty()).then_some(names.as_slice());
        self.derived_named(q, &alias.name.value, cols, false, out)
    }

    /// Binds `q` as a derived table named `name` (columns named `cols`, else as
    /// the select list names them) and adds it to `out`. Derived tables and
    /// non-recursive CTE references share this.
    pub(super) fn derived_named(
        &mut self,
        q: &ast::Query,
        name: &str,
        cols: Option<&[String]>,
        cte: bool,
        out: &mut From,
    ) -> R<usize> {
        let saved = std::mem::take(&mut self.outer_scopes);
        let cost = crate::stack::cost::derived(self.derived_depth);
        self.derived_depth += 1;
        let plan = self.nested_select(q, cost);
        self.derived_depth -= 1;
        self.outer_scopes = saved;
        let plan = plan?;
        let names: Vec<String> = match cols {
            None => plan.columns.iter().map(|c| c.name.clone()).collect(),
            Some(c) => c.to_vec(),
        };
        if names.len() != plan.visible {
            return Err(if !cte {
                MySqlError::new(1353, "HY000", "In definition of view, derived table or common table expression, SELECT list and column names list have different column counts")
            } else {
                MySqlError::new(
                    4002,
                    "HY000",
                    "WITH column list and SELECT field list have different column counts",
                )
            });
        }
        check_dup_names(&names)?;
        let types = plan.types[..names.len()].to_vec();
        let cols = names
            .iter()
            .zip(&plan.types)
            .map(|(n, t)| derived_column(n, t))
            .collect();
        let def = crate::infoschema::columns_def("", name, cols);
        let vt = Arc::new(crate::infoschema::VirtualTable::new(def, Vec::new()));
        self.subplans.push(SubPlan {
            plan,
            kind: SubKind::Scalar,
            target: Some(vt.clone()),
            outer: Vec::new(),
            recursive: None,
            parent: self.current_select(),
        });
        self.reusable = false;
        let i = self.add_virtual(vt, name, out)?;
        if let Some(st) = out.scope.tables.last_mut() {
            st.types = Some(Arc::new(types));
        }
        Ok(i)
    }

    /// Adds a materialised table (derived table, CTE, CTE working table) to `out`
    /// under the name `alias`.
    pub(super) fn add_virtual(
        &mut self,
        vt: Arc<crate::infoschema::VirtualTable>,
        alias: &str,
        out: &mut From,
    ) -> R<usize> {
        if out.tables.iter().any(|t| t.alias == alias) {
            return Err(MySqlError::nonunique_table(alias));
        }
        let table: Arc<dyn basalt_storage::Table> = vt;
        let def = table.def();
        let offset = out.width;
        out.width += def.columns.len();
        out.scope.tables.push(ScopeTable {
            alias: alias.to_string(),
            db: String::new(),
            def: def.clone(),
            offset,
            nullable: false,
            view: None,
            types: None,
        });
        out.tables.push(TableRef {
            table,
            def,
            db: String::new(),
            alias: alias.to_string(),
            offset,
            func: None,
        });
        out.hints.push(Hints::default());
        Ok(out.tables.len() - 1)
    }

    /// Adds a table reference (a merged view's table); `None` for `DUAL`.
    pub(super) fn table_factor_of(&mut self, tf: &TableFactor, out: &mut From) -> R<Option<usize>> {
        self.table_factor(tf, out)
    }

    /// Adds a table reference; `None` for `DUAL`.
    fn table_factor(&mut self, tf: &TableFactor, out: &mut From) -> R<Option<usize>> {
        if let TableFactor::Derived {
            lateral: false,
            subquery,
            alias,
            ..
        } = tf
        {
            return self.derived(subquery, alias.as_ref(), out).map(Some);
        }
        if let TableFactor::JsonTable {
            json_expr,
            json_path,
            columns,
            alias,
        } = tf
        {
            return self
                .json_table(json_expr, json_path, columns, alias.as_ref(), out)
                .map(Some);
        }
        let TableFactor::Table {
            name,
            alias,
            index_directives,
            args: None,
            partitions,
            ..
        } = tf
        else {
            return Err(MySqlError::not_supported(
                "derived tables and table functions",
            ));
        };
        unsupported_table_clauses(tf)?;
        let parts = super::object_parts(name);
        if parts.len() == 1 && parts[0].eq_ignore_ascii_case("dual") && alias.is_none() {
            return Ok(None);
        }
        if let [single] = parts.as_slice() {
            let alias_name = alias
                .as_ref()
                .map_or(single.as_str(), |a| a.name.value.as_str());
            if let Some(t) = self.cte_reference(single, alias_name, out)? {
                if alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
                    return Err(MySqlError::parse_error("(", 1));
                }
                return Ok(Some(t));
            }
        }
        let (db, tname) = self.table_name(name)?;
        if let Some(v) = self.view_of(&db, &tname) {
            if self.hidden_view.as_ref() != Some(&(db.clone(), tname.clone())) {
                let a = alias
                    .as_ref()
                    .map_or(tname.as_str(), |a| a.name.value.as_str());
                self.need(&db, &tname, basalt_acl::Privs::SELECT);
                return self.view_reference(&v, a, index_directives, out).map(Some);
            }
            return Err(MySqlError::no_such_table(&db, &tname));
        }
        // Noted before the table is opened: an account without the privilege
        // gets 1142 rather than learning whether the table exists.
        self.need(&db, &tname, basalt_acl::Privs::SELECT);
        let mut table = self.open_table(&db, &tname)?;
        if !partitions.is_empty() {
            let names: Vec<String> = partitions.iter().map(|p| p.value.clone()).collect();
            table = super::part_select::select_partitions(table, &tname, &names)?;
        }
        let def = table.def();
        let alias = alias
            .as_ref()
            .map_or(tname.clone(), |a| a.name.value.clone());
        if out.tables.iter().any(|t| t.alias == alias) {
            return Err(MySqlError::nonunique_table(&alias));
        }
        let hints = hints(index_directives, &def)?;
        let offset = out.width;
        out.width += def.columns.len();
        out.scope.tables.push(ScopeTable {
            alias: alias.clone(),
            db: db.clone(),
            def: def.clone(),
            offset,
            nullable: false,
            view: None,
            types: None,
        });
        out.tables.push(TableRef {
            table,
            def,
            db,
            alias,
            offset,
            func: None,
        });
        out.hints.push(hints);
        Ok(Some(out.tables.len() - 1))
    }
}

/// Clauses of a table reference that the parser knows and Basalt does not carry
/// out: refused, so that none is silently dropped.
fn unsupported_table_clauses(tf: &TableFactor) -> R<()> {
    let TableFactor::Table {
        alias,
        with_hints,
        version,
        with_ordinality,
        json_path,
        sample,
        inheritance,
        ..
    } = tf
    else {
        return Ok(());
    };
    let what = if version.is_some() {
        "FOR SYSTEM_TIME"
    } else if sample.is_some() {
        "TABLESAMPLE"
    } else if !with_hints.is_empty() {
        "WITH table hints"
    } else if *with_ordinality || json_path.is_some() || inheritance.is_some() {
        "this table reference"
    } else if alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
        "column aliases of a table"
    } else {
        return Ok(());
    };
    Err(MySqlError::not_supported(what))
}

fn hints(directives: &[ast::TableIndexDirective], def: &basalt_common::TableDef) -> R<Hints> {
    let mut h = Hints::default();
    for d in directives {
        let ast::TableIndexDirective::MySql(hint) = d else {
            return Err(MySqlError::not_supported("index directive"));
        };
        let names: Vec<String> = hint.index_names.iter().map(|i| i.value.clone()).collect();
        for n in &names {
            if def.index_by_name(n).is_none() {
                return Err(MySqlError::key_does_not_exist(n, &def.name));
            }
        }
        match hint.hint_type {
            ast::TableIndexHintType::Force => h.force.extend(names),
            ast::TableIndexHintType::Use => h.use_only.get_or_insert_with(Vec::new).extend(names),
            ast::TableIndexHintType::Ignore => h.ignore.extend(names),
        }
    }
    Ok(h)
}

/// Every column of FROM table `t`, as (table, column).
fn table_columns(out: &From, t: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..out.scope.tables[t].def.columns.len()).map(move |c| (t, c))
}

/// 1060 when a derived table or CTE names two columns alike.
pub(crate) fn check_dup_names(names: &[String]) -> R<()> {
    for (i, n) in names.iter().enumerate() {
        if names[..i].iter().any(|m| m.eq_ignore_ascii_case(n)) {
            return Err(MySqlError::dup_fieldname(n));
        }
    }
    Ok(())
}

/// Splits a condition into its AND-ed conjuncts.
pub fn split_and(e: Expr) -> Vec<Expr> {
    match e {
        Expr::And(v) => v.into_iter().flat_map(split_and).collect(),
        other => vec![other],
    }
}

/// The column of a derived table that holds values of static type `t`.
pub(crate) fn derived_column(name: &str, t: &ExprType) -> ColumnDef {
    let coll = t.collation;
    let dt = match t.class {
        Class::Int => DataType::Int {
            kind: if t.len <= 11 {
                IntKind::Int
            } else {
                IntKind::Big
            },
            unsigned: t.unsigned,
            width: 0,
            zerofill: false,
        },
        Class::Decimal => DataType::Decimal {
            precision: t.precision().clamp(1, 38) as u8,
            scale: t.decimals.min(30),
        },
        Class::Double => DataType::Double,
        Class::String if t.len > 16_383 => DataType::Text {
            kind: LobKind::Long,
            collation: coll,
        },
        Class::String => DataType::VarChar {
            len: t.len.max(1),
            collation: coll,
        },
        Class::Date => DataType::Date,
        Class::DateTime => DataType::DateTime {
            fsp: t.decimals.min(6),
        },
        Class::Time => DataType::Time {
            fsp: t.decimals.min(6),
        },
        Class::Null => DataType::VarChar {
            len: 1,
            collation: basalt_common::Collation::Binary,
        },
    };
    let mut c = ColumnDef::new(name, dt);
    c.nullable = t.nullable;
    c
}

/// The type a column of a derived table reports: its select item's, as a
/// column (the integer type fixed, no key or default flags).
pub(super) fn derived_type(item: &ExprType) -> ExprType {
    let mut t = match item.class {
        // A NULL or empty string item is a CHAR(0) column.
        Class::Null => ExprType::string(0, basalt_common::Collation::Binary).nullable(true),
        _ => item.clone(),
    };
    // Read through the derived table, a literal counts a place for its sign.
    t.sign_char = t.class.is_numeric() && !t.unsigned;
    match t.class {
        Class::Int if t.column_type.is_none() => t.column_type = Some(t.protocol_type()),
        Class::String if t.len == 0 => {
            t.column_type = Some(basalt_common::ColumnType::String);
            t.decimals = 0;
        }
        _ => {}
    }
    t.col_flags &= basalt_common::column::flags::ENUM | basalt_common::column::flags::SET;
    t
}
