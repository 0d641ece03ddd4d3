//! Assigns WHERE / ON conjuncts to join levels and chooses each level's access path.
//!
//! A conjunct is checked at the first level (in execution order) after which every
//! table it reads has its row in place. At an outer level, WHERE conjuncts go to
//! `post_filter` (they apply after NULL-extension) while the level's ON conjuncts
//! decide matches. Conjuncts that read no table are checked once, up front.
//!
//! Before that, a join of several tables is rearranged: outer joins whose
//! NULL-extended rows a filter rejects become inner joins
//! ([`crate::plan::outer_join`]), and the levels are put in the order of least
//! estimated cost ([`crate::plan::join_order`]), each level's cost being what
//! the access-path chooser estimates for it given the tables before it. A
//! single table skips both. `SELECT STRAIGHT_JOIN` keeps the FROM order; the
//! `STRAIGHT_JOIN` operator and outer joins constrain it (`LevelSpec::deps`).

use super::from::{From, LevelSpec};
use crate::expr::Expr;
use crate::plan::access::{self, Hints, Input};
use crate::plan::equalities::{self, EqClasses};
use crate::plan::hash_keys::{self, HashJoin};
use crate::plan::join_order::{self, Rel, Step};
use crate::plan::outer_join::{self, OuterLevel};
use crate::plan::switch::Planner;
use crate::plan::{Level, TableRef};
use basalt_common::Value;
use std::borrow::Cow;
use std::cell::Cell;

/// Bit set of the tables (by FROM index) an expression reads; `None` if it calls
/// something that must not be evaluated early (RAND(), `@x :=`).
pub fn table_mask(e: &Expr, tables: &[TableRef]) -> Option<u64> {
    let mut mask = 0u64;
    let mut ok = true;
    e.walk(&mut |x| match x {
        Expr::Column(c) => {
            if let Some(t) = tables
                .iter()
                .position(|t| *c >= t.offset && *c < t.offset + t.width())
            {
                mask |= 1 << t;
            }
        }
        Expr::SetUserVar(..) | Expr::StoredCall(..) => ok = false,
        Expr::Func(f, _) if !f.is_deterministic_per_statement() => ok = false,
        _ => {}
    });
    ok.then_some(mask)
}

fn and_of(mut v: Vec<Expr>) -> Option<Expr> {
    match v.len() {
        0 => None,
        1 => v.pop(),
        _ => Some(Expr::And(v)),
    }
}

/// Inputs for planning the join levels.
pub struct LevelInputs<'a> {
    pub from: &'a From,
    pub conjuncts: Vec<Expr>,
    /// Table columns read, per table.
    pub needed: Vec<Vec<usize>>,
    /// ORDER BY as (table column, desc) of the first level's table, when it alone
    /// decides the order.
    pub order: Option<Vec<(usize, bool)>>,
    pub limit: Option<u64>,
    /// The session's planner settings (hash joins, search depth).
    pub planner: Planner,
    /// The value of a constant expression, when planning can know it
    /// ([`crate::expr::fold::constant_value`]).
    pub constant: &'a dyn Fn(&Expr) -> Option<Value>,
}

pub struct Planned {
    pub levels: Vec<Level>,
    pub const_filter: Option<Expr>,
    pub order_satisfied: bool,
    /// Some choice went by the values of parameters (see
    /// [`access::Choice::uses_values`]): the plan holds for these values only.
    pub uses_values: bool,
}

/// What access choices may go by besides the conditions: the parameters'
/// values, and a flag set when a choice did.
struct Known<'a> {
    constant: &'a dyn Fn(&Expr) -> Option<Value>,
    used: Cell<bool>,
}

pub fn plan_levels(mut inp: LevelInputs) -> Planned {
    let tables = &inp.from.tables;
    let known = Known {
        constant: inp.constant,
        used: Cell::new(false),
    };
    let specs: Cow<[LevelSpec]> = if inp.from.levels.len() <= 1 {
        Cow::Borrowed(&inp.from.levels)
    } else {
        let s = join_levels(
            inp.from,
            &mut inp.conjuncts,
            inp.order.is_some() && inp.limit.is_some(),
            &inp.needed,
            (inp.planner, &known),
        );
        if s.first().map(|l| l.table) != inp.from.levels.first().map(|l| l.table) {
            // The ORDER BY columns given are of the FROM order's first table.
            inp.order = None;
        }
        Cow::Owned(s)
    };
    let specs: &[LevelSpec] = &specs;
    let mut per_level: Vec<Vec<Expr>> = vec![Vec::new(); specs.len()];
    let mut post: Vec<Vec<Expr>> = vec![Vec::new(); specs.len()];
    let mut consts = Vec::new();
    for c in inp.conjuncts {
        let mask = table_mask(&c, tables);
        let Some(mask) = mask.filter(|m| *m != 0) else {
            if mask == Some(0) {
                consts.push(c);
            } else {
                let last = specs.len().saturating_sub(1);
                match specs.get(last) {
                    Some(s) if s.outer => post[last].push(c),
                    Some(_) => per_level[last].push(c),
                    None => consts.push(c),
                }
            }
            continue;
        };
        let mut seen = 0u64;
        let mut placed = false;
        for (li, s) in specs.iter().enumerate() {
            seen |= 1 << s.table;
            if mask & !seen == 0 {
                if s.outer
                    || specs[..li]
                        .iter()
                        .any(|p| p.outer && mask & (1 << p.table) != 0)
                {
                    post[li].push(c.clone());
                } else {
                    per_level[li].push(c.clone());
                }
                placed = true;
                break;
            }
        }
        if !placed {
            if let Some(l) = per_level.last_mut() {
                l.push(c);
            }
        }
    }
    let mut levels = Vec::with_capacity(specs.len());
    let mut order_satisfied = false;
    let mut available = 0u64;
    for (li, s) in specs.iter().enumerate() {
        let mut conj = per_level[li].clone();
        conj.extend(s.on.iter().cloned());
        let order = if li == 0 { inp.order.as_deref() } else { None };
        let hints = &inp.from.hints[s.table];
        let (level, satisfied) = plan_one(
            tables,
            s,
            conj,
            &inp.needed[s.table],
            order,
            inp.limit,
            (hints, &known),
            available,
        );
        if li == 0 {
            order_satisfied = satisfied;
        }
        let mut level = level;
        if !inp.planner.hash_join {
            level.hash = None;
        }
        level.post_filter = and_of(std::mem::take(&mut post[li]));
        levels.push(level);
        available |= 1 << s.table;
    }
    Planned {
        levels,
        const_filter: and_of(consts),
        order_satisfied,
        uses_values: known.used.get(),
    }
}

/// The access path of table `t` given conditions `conj` (numbered in order) and
/// the tables in `available` already joined.
#[allow(clippy::too_many_arguments)]
fn choose_access<'e>(
    t: &TableRef,
    tables: &[TableRef],
    conj: impl Iterator<Item = &'e Expr>,
    available: u64,
    needed: &[usize],
    order: Option<&[(usize, bool)]>,
    limit: Option<u64>,
    (hints, known): (&Hints, &Known),
) -> access::Choice {
    let avail = |e: &Expr| table_mask(e, tables).is_some_and(|m| m & !available == 0);
    let sargs: Vec<_> = conj
        .enumerate()
        .filter_map(|(i, c)| access::sarg(i, c, t.offset, t.width(), &t.def, &avail))
        .collect();
    let stats = t.table.stats();
    let fraction = |id: u32, r: &basalt_storage::KeyRange| t.table.range_fraction(id, r);
    let choice = access::choose(&Input {
        def: &t.def,
        stats: &stats,
        sargs: &sargs,
        needed,
        order,
        limit,
        hints,
        constant: known.constant,
        range_fraction: &fraction,
    });
    // A join order is weighed with the estimates, so with several tables any
    // estimate from the values ties the plan to them.
    if choice.uses_values || (tables.len() > 1 && choice.values_estimated) {
        known.used.set(true);
    }
    choice
}

#[allow(clippy::too_many_arguments)]
fn plan_one(
    tables: &[TableRef],
    spec: &LevelSpec,
    conj: Vec<Expr>,
    needed: &[usize],
    order: Option<&[(usize, bool)]>,
    limit: Option<u64>,
    known: (&Hints, &Known),
    available: u64,
) -> (Level, bool) {
    let choice = choose_access(
        &tables[spec.table],
        tables,
        conj.iter(),
        available,
        needed,
        order,
        limit,
        known,
    );
    let residual: Vec<Expr> = conj
        .iter()
        .enumerate()
        .filter(|(i, _)| !choice.consumed.contains(i))
        .map(|(_, c)| c.clone())
        .collect();
    let hash = hash_join(tables, spec.table, &conj, &choice.access, available);
    let mut explain = choice.explain;
    explain.using_where = !residual.is_empty() || explain.access_type == "range";
    let level = Level {
        table: spec.table,
        access: choice.access,
        filter: and_of(conj),
        residual: and_of(residual),
        outer: spec.outer,
        post_filter: None,
        columns: needed.to_vec(),
        est_rows: choice.est_rows,
        hash,
        explain,
    };
    (level, choice.order_satisfied)
}

/// A hash join for a level that reads its whole table (no index serves it)
/// and has equalities with earlier tables that hash exactly.
fn hash_join(
    tables: &[TableRef],
    table: usize,
    conj: &[Expr],
    access: &crate::plan::Access,
    available: u64,
) -> Option<HashJoin> {
    let whole = matches!(
        access,
        crate::plan::Access::Index {
            range: crate::plan::RangeSpec::All,
            ..
        }
    );
    // A JSON_TABLE's rows depend on the outer row: never built once.
    if available == 0 || !whole || tables[table].func.is_some() {
        return None;
    }
    let keys = hash_keys::keys(conj, tables, table, available);
    if keys.is_empty() {
        return None;
    }
    Some(HashJoin {
        keys,
        build_filter: and_of(hash_keys::build_only(conj, tables, table)),
    })
}

/// The levels of a join of several tables, in execution order: outer joins that
/// filters make inner become inner (their ON conjuncts join `conjuncts`), then
/// the order of least estimated cost unless STRAIGHT_JOIN. `pin_first` keeps the
/// first table first (its index order may satisfy ORDER BY ... LIMIT).
fn join_levels(
    from: &From,
    conjuncts: &mut Vec<Expr>,
    pin_first: bool,
    needed: &[Vec<usize>],
    (planner, known): (Planner, &Known),
) -> Vec<LevelSpec> {
    let tables = &from.tables;
    let mut specs = from.levels.clone();
    if specs.iter().any(|s| s.outer) {
        simplify_outer(&mut specs, conjuncts, tables);
    }
    let (implied, classes) = equalities::implied(conjuncts, tables);
    conjuncts.extend(implied);
    if from.straight {
        return specs;
    }
    let masks: Vec<Option<u64>> = conjuncts.iter().map(|c| table_mask(c, tables)).collect();
    let first = specs[0].table;
    let rels: Vec<Rel> = specs
        .iter()
        .map(|s| {
            let own = 1u64 << s.table;
            let on =
                s.on.iter()
                    .map(|c| table_mask(c, tables).unwrap_or(0))
                    .fold(0, |a, m| a | m);
            let reads = masks
                .iter()
                .flatten()
                .filter(|m| *m & own != 0)
                .fold(on, |a, m| a | m);
            let pin = if pin_first && s.table != first {
                1 << first
            } else {
                0
            };
            Rel {
                table: s.table,
                deps: (s.deps | on | pin) & !own,
                nbrs: reads & !own,
            }
        })
        .collect();
    let mut oracle = |r: usize, joined: u64| {
        estimate(
            &specs[r],
            tables,
            (conjuncts, &masks, &classes),
            joined,
            &needed[specs[r].table],
            (&from.hints[specs[r].table], known),
        )
    };
    let order = join_order::best_order(&rels, &mut oracle, planner.search(rels.len()));
    order.into_iter().map(|r| specs[r].clone()).collect()
}

/// Turns the outer levels whose NULL rows a filter rejects into inner ones.
/// Derived tables and CTE references (no database) keep their outer join: a
/// recursive CTE on the NULL-extended side is refused (4008) as written.
fn simplify_outer(specs: &mut [LevelSpec], conjuncts: &mut Vec<Expr>, tables: &[TableRef]) {
    let outer: Vec<usize> = (0..specs.len())
        .filter(|&i| specs[i].outer && !tables[specs[i].table].db.is_empty())
        .collect();
    let view: Vec<OuterLevel> = outer
        .iter()
        .map(|&i| {
            let t = &tables[specs[i].table];
            OuterLevel {
                cols: t.offset..t.offset + t.width(),
                on: &specs[i].on,
            }
        })
        .collect();
    let inner = outer_join::convertible(&view, conjuncts);
    for (&i, make_inner) in outer.iter().zip(inner) {
        if make_inner {
            let s = &mut specs[i];
            s.outer = false;
            s.deps = 0;
            conjuncts.append(&mut s.on);
        }
    }
}

/// The cost and fanout of level `spec` after the tables `joined`: the access
/// path the chooser would take, and the share of its rows the conditions it can
/// check (and the access path does not) let through.
fn estimate(
    spec: &LevelSpec,
    tables: &[TableRef],
    (conjuncts, masks, classes): (&[Expr], &[Option<u64>], &EqClasses),
    joined: u64,
    needed: &[usize],
    known: (&Hints, &Known),
) -> Step {
    let t = &tables[spec.table];
    let own = 1u64 << spec.table;
    let here = |m: u64| m & own != 0 && m & !(joined | own) == 0;
    let conj: Vec<&Expr> = if spec.outer {
        spec.on
            .iter()
            .filter(|c| table_mask(c, tables).is_some_and(here))
            .collect()
    } else {
        conjuncts
            .iter()
            .zip(masks)
            .filter(|(_, m)| m.is_some_and(here))
            .map(|(c, _)| c)
            .collect()
    };
    let choice = choose_access(
        t,
        tables,
        conj.iter().copied(),
        joined,
        needed,
        None,
        None,
        known,
    );
    let mut fanout = choice.est_rows as f64;
    // An equality class restricts a table once: after one of its equalities, the
    // others with tables already joined hold or fail together with it.
    let mut applied: Vec<usize> = choice
        .consumed
        .iter()
        .filter_map(|&i| classes.class_of(conj[i]))
        .collect();
    for (i, c) in conj.iter().enumerate() {
        if choice.consumed.contains(&i) {
            continue;
        }
        match classes.class_of(c) {
            Some(k) if applied.contains(&k) => {}
            Some(k) => {
                applied.push(k);
                fanout *= selectivity(c);
            }
            None => fanout *= selectivity(c),
        }
    }
    if spec.outer {
        fanout = fanout.max(1.0);
    }
    Step {
        cost: choice.cost.max(0.1),
        fanout,
    }
}

/// The share of rows a condition is guessed to let through.
fn selectivity(e: &Expr) -> f64 {
    use crate::expr::CmpOp;
    match e {
        Expr::Cmp(CmpOp::Eq, ..) | Expr::NullSafeEq(..) => 0.1,
        Expr::Cmp(CmpOp::Ne, ..) => 0.9,
        Expr::Cmp(..) | Expr::Between { .. } => 0.33,
        Expr::In { list, .. } => (0.1 * list.len() as f64).min(0.5),
        _ => 0.5,
    }
}
