//! Assigns WHERE / ON conjuncts to join levels and chooses each level's access path.
//!
//! A conjunct is checked at the first level (in execution order) after which every
//! table it reads has its row in place. At an outer level, WHERE conjuncts go to
//! `post_filter` (they apply after NULL-extension) while the level's ON conjuncts
//! decide matches. Conjuncts that read no table are checked once, up front.

use super::from::{From, LevelSpec};
use crate::expr::Expr;
use crate::plan::access::{self, Hints, Input};
use crate::plan::{Level, TableRef};

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
        Expr::SetUserVar(..) => ok = false,
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
}

pub struct Planned {
    pub levels: Vec<Level>,
    pub const_filter: Option<Expr>,
    pub order_satisfied: bool,
}

pub fn plan_levels(inp: LevelInputs) -> Planned {
    let tables = &inp.from.tables;
    let specs: &[LevelSpec] = &inp.from.levels;
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
            hints,
            available,
        );
        if li == 0 {
            order_satisfied = satisfied;
        }
        let mut level = level;
        level.post_filter = and_of(std::mem::take(&mut post[li]));
        levels.push(level);
        available |= 1 << s.table;
    }
    Planned {
        levels,
        const_filter: and_of(consts),
        order_satisfied,
    }
}

#[allow(clippy::too_many_arguments)]
fn plan_one(
    tables: &[TableRef],
    spec: &LevelSpec,
    conj: Vec<Expr>,
    needed: &[usize],
    order: Option<&[(usize, bool)]>,
    limit: Option<u64>,
    hints: &Hints,
    available: u64,
) -> (Level, bool) {
    let t = &tables[spec.table];
    let avail = |e: &Expr| table_mask(e, tables).is_some_and(|m| m & !available == 0);
    let sargs: Vec<_> = conj
        .iter()
        .enumerate()
        .filter_map(|(i, c)| access::sarg(i, c, t.offset, t.width(), &t.def, &avail))
        .collect();
    let stats = t.table.stats();
    let choice = access::choose(&Input {
        def: &t.def,
        stats: &stats,
        sargs: &sargs,
        needed,
        order,
        limit,
        hints,
    });
    let residual: Vec<Expr> = conj
        .iter()
        .enumerate()
        .filter(|(i, _)| !choice.consumed.contains(i))
        .map(|(_, c)| c.clone())
        .collect();
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
        explain,
    };
    (level, choice.order_satisfied)
}
