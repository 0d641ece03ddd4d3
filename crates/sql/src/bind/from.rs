//! The FROM clause: table references, aliases, index hints, joins.
//!
//! Produces the tables in FROM order (which fixes the joined-row layout), the
//! execution order of the join levels (FROM order, except that `A RIGHT JOIN B`
//! runs B first), which levels are outer (NULL-extended), and the bound ON
//! conditions.

use super::{Binder, Clause, Scope, ScopeTable};
use crate::expr::{CmpOp, Expr};
use crate::plan::access::Hints;
use crate::plan::{SubKind, SubPlan, TableRef};
use crate::ty::{Class, ExprType};
use basalt_common::{Collation, MySqlError};
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
}

struct RawJoin<'a> {
    table: usize,
    kind: Kind,
    constraint: Option<&'a JoinConstraint>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    First,
    Inner,
    Left,
    Right,
}

impl Binder<'_> {
    pub fn bind_from(&mut self, from: &[ast::TableWithJoins]) -> R<From> {
        let mut out = From {
            tables: Vec::new(),
            hints: Vec::new(),
            scope: Scope::default(),
            levels: Vec::new(),
            inner_on: Vec::new(),
            width: 0,
        };
        let mut raw = Vec::new();
        for twj in from {
            if let Some(t) = self.table_factor(&twj.relation, &mut out)? {
                raw.push(RawJoin {
                    table: t,
                    kind: Kind::First,
                    constraint: None,
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
        for (i, r) in raw.iter().enumerate() {
            let conds = match r.constraint {
                Some(c) => self.constraint(c, r.table, out)?,
                None => Vec::new(),
            };
            match r.kind {
                Kind::First | Kind::Inner => {
                    out.levels.push(LevelSpec {
                        table: r.table,
                        outer: false,
                        on: Vec::new(),
                    });
                    out.inner_on.extend(conds);
                }
                Kind::Left => out.levels.push(LevelSpec {
                    table: r.table,
                    outer: true,
                    on: conds,
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
                    });
                    out.levels.push(LevelSpec {
                        table: prev,
                        outer: true,
                        on: conds,
                    });
                }
            }
        }
        self.clause = saved;
        Ok(())
    }

    fn constraint(&mut self, c: &JoinConstraint, table: usize, out: &From) -> R<Vec<Expr>> {
        match c {
            JoinConstraint::On(e) => {
                let (b, _) = self.expr(e, &out.scope, None)?;
                Ok(split_and(b))
            }
            JoinConstraint::Using(cols) => {
                let names: Vec<String> = cols
                    .iter()
                    .filter_map(|n| super::object_parts(n).last().cloned())
                    .collect();
                self.using(&names, table, out)
            }
            JoinConstraint::Natural => {
                let t = &out.scope.tables[table];
                let names: Vec<String> = t
                    .def
                    .columns
                    .iter()
                    .filter(|c| {
                        out.scope.tables[..table]
                            .iter()
                            .any(|p| p.def.column_index(&c.name).is_some())
                    })
                    .map(|c| c.name.clone())
                    .collect();
                self.using(&names, table, out)
            }
            JoinConstraint::None => Ok(Vec::new()),
            other => Err(MySqlError::not_supported(&format!(
                "join constraint {other:?}"
            ))),
        }
    }

    fn using(&self, names: &[String], table: usize, out: &From) -> R<Vec<Expr>> {
        let mut conds = Vec::new();
        let right = &out.scope.tables[table];
        for n in names {
            let rc = right
                .def
                .column_index(n)
                .ok_or_else(|| MySqlError::bad_field(n, "from clause"))?;
            let left = out.scope.tables[..table]
                .iter()
                .find_map(|t| t.def.column_index(n).map(|c| t.offset + c))
                .ok_or_else(|| MySqlError::bad_field(n, "from clause"))?;
            let coll = right.def.columns[rc]
                .data_type
                .collation()
                .unwrap_or(Collation::Binary);
            conds.push(Expr::Cmp(
                CmpOp::Eq,
                Expr::Column(left).boxed(),
                Expr::Column(right.offset + rc).boxed(),
                coll,
            ));
        }
        Ok(conds)
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
        let saved = std::mem::take(&mut self.outer_scopes);
        let cost = crate::stack::cost::derived(self.derived_depth);
        self.derived_depth += 1;
        let plan = self.nested_select(q, cost);
        self.derived_depth -= 1;
        self.outer_scopes = saved;
        let plan = plan?;
        let names: Vec<String> = if alias.columns.is_empty() {
            plan.columns.iter().map(|c| c.name.clone()).collect()
        } else {
            alias.columns.iter().map(|c| c.name.value.clone()).collect()
        };
        if names.len() != plan.visible {
            return Err(MySqlError::new(1353, "HY000", "In definition of view, derived table or common table expression, SELECT list and column names list have different column counts"));
        }
        for (i, n) in names.iter().enumerate() {
            if names[..i].iter().any(|m| m.eq_ignore_ascii_case(n)) {
                return Err(MySqlError::dup_fieldname(n));
            }
        }
        let cols = names
            .iter()
            .zip(&plan.types)
            .map(|(n, t)| derived_column(n, t))
            .collect();
        let name = alias.name.value.clone();
        if out.tables.iter().any(|t| t.alias == name) {
            return Err(MySqlError::nonunique_table(&name));
        }
        let def = crate::infoschema::columns_def("", &name, cols);
        let vt = Arc::new(crate::infoschema::VirtualTable::new(def, Vec::new()));
        self.subplans.push(SubPlan {
            plan,
            kind: SubKind::Scalar,
            target: Some(vt.clone()),
            outer: Vec::new(),
        });
        self.reusable = false;
        let table: Arc<dyn basalt_storage::Table> = vt;
        let def = table.def();
        let offset = out.width;
        out.width += def.columns.len();
        out.scope.tables.push(ScopeTable {
            alias: name.clone(),
            db: String::new(),
            def: def.clone(),
            offset,
            nullable: false,
        });
        out.tables.push(TableRef {
            table,
            def,
            db: String::new(),
            alias: name,
            offset,
        });
        out.hints.push(Hints::default());
        Ok(out.tables.len() - 1)
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
        let TableFactor::Table {
            name,
            alias,
            index_directives,
            args: None,
            ..
        } = tf
        else {
            return Err(MySqlError::not_supported(
                "derived tables and table functions",
            ));
        };
        let parts = super::object_parts(name);
        if parts.len() == 1 && parts[0].eq_ignore_ascii_case("dual") && alias.is_none() {
            return Ok(None);
        }
        let (db, tname) = self.table_name(name)?;
        let table = self.open_table(&db, &tname)?;
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
        });
        out.tables.push(TableRef {
            table,
            def,
            db,
            alias,
            offset,
        });
        out.hints.push(hints);
        Ok(Some(out.tables.len() - 1))
    }
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
