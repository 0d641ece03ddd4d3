//! Join order: which table each nested-loop level reads, chosen by estimated cost.
//!
//! The search sees the join as relations (one per level) with precedence
//! constraints (`deps`: tables that must already be joined, e.g. the left operand
//! of a LEFT JOIN or STRAIGHT_JOIN) and a cost oracle: for a relation and the set
//! of tables joined before it, the cost of one execution of its access path and
//! its fanout (rows it adds per row of the prefix, after the filters it checks).
//! A prefix's cost is the sum over its levels of (rows entering the level) × (cost
//! of one access); its row count is the product of the fanouts.
//!
//! Up to [`EXHAUSTIVE`] relations the search is exhaustive: dynamic programming
//! over subsets keeps, for each set of joined tables, the cheapest order found
//! (the row count of a set barely depends on the order, so the cheapest prefix
//! extends to the cheapest plan in practice). Beyond it the search is greedy in
//! the spirit of MariaDB's `optimizer_search_depth`: the next table is the one
//! whose best extension [`LOOKAHEAD`] levels deep is cheapest, scored by cost plus
//! the rows the remaining levels must process. That costs about n³/3 oracle
//! calls for n tables (a 61-table join in a few milliseconds); the oracle's
//! answers are memoised by the part of the prefix that can matter to the
//! relation (`nbrs`: the tables its conditions read).
//!
//! The FROM order is kept unless the chosen order is clearly cheaper
//! ([`KEEP_FROM`]), so that joins whose orders cost the same keep the rows in the
//! order the query lists the tables.

use super::switch::Search as How;
use std::collections::HashMap;

/// Relations up to which the search is exhaustive (2^n subsets).
pub const EXHAUSTIVE: usize = 10;
/// Levels the greedy search looks ahead beyond [`EXHAUSTIVE`] relations.
pub const LOOKAHEAD: usize = 2;
/// A reordering must cost less than this fraction of the FROM order's cost.
pub const KEEP_FROM: f64 = 0.9;

/// One join level to place.
#[derive(Clone, Debug)]
pub struct Rel {
    /// FROM index of its table (bit `table` in the masks).
    pub table: usize,
    /// Tables that must be joined before it.
    pub deps: u64,
    /// Tables whose presence can change its cost (the tables its conditions read).
    pub nbrs: u64,
}

/// What one more level costs and yields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// Cost of one execution of the level's access path.
    pub cost: f64,
    /// Rows the level passes on per row entering it.
    pub fanout: f64,
}

/// The cost oracle: (relation index, tables joined before it) → [`Step`].
pub type Oracle<'a> = dyn FnMut(usize, u64) -> Step + 'a;

struct Search<'a, 'o> {
    rels: &'a [Rel],
    oracle: &'a mut Oracle<'o>,
    memo: HashMap<(usize, u64), Step>,
}

#[derive(Clone, Copy, Debug)]
struct State {
    tables: u64,
    cost: f64,
    rows: f64,
}

const START: State = State {
    tables: 0,
    cost: 0.0,
    rows: 1.0,
};

impl Search<'_, '_> {
    fn step(&mut self, r: usize, tables: u64) -> Step {
        let key = (r, tables & self.rels[r].nbrs);
        if let Some(s) = self.memo.get(&key) {
            return *s;
        }
        let s = (self.oracle)(r, tables);
        self.memo.insert(key, s);
        s
    }

    fn ready(&self, r: usize, tables: u64) -> bool {
        let rel = &self.rels[r];
        tables & (1 << rel.table) == 0 && rel.deps & !tables == 0
    }

    fn extend(&mut self, s: State, r: usize) -> State {
        let st = self.step(r, s.tables);
        State {
            tables: s.tables | 1 << self.rels[r].table,
            cost: s.cost + s.rows * st.cost,
            rows: (s.rows * st.fanout).max(1e-9),
        }
    }

    fn cost_of(&mut self, order: &[usize]) -> f64 {
        order.iter().fold(START, |s, &r| self.extend(s, r)).cost
    }

    /// Exhaustive search by dynamic programming over subsets of relations: for
    /// each set (visited in increasing order, so every subset comes first) the
    /// cheapest state reaching it and the relation it added last.
    fn exhaustive(&mut self) -> Option<Vec<usize>> {
        let n = self.rels.len();
        let full = (1usize << n) - 1;
        let mut best: Vec<Option<(State, usize)>> = vec![None; full + 1];
        for set in 0..full {
            let s = if set == 0 {
                START
            } else {
                match best[set] {
                    Some((s, _)) => s,
                    None => continue,
                }
            };
            for r in 0..n {
                if set & (1 << r) != 0 || !self.ready(r, s.tables) {
                    continue;
                }
                let next = self.extend(s, r);
                let to = set | 1 << r;
                if best[to].is_none_or(|(b, _)| next.cost < b.cost) {
                    best[to] = Some((next, r));
                }
            }
        }
        let mut order = Vec::with_capacity(n);
        let mut set = full;
        while set != 0 {
            let (_, r) = best[set]?;
            order.push(r);
            set &= !(1 << r);
        }
        order.reverse();
        Some(order)
    }

    /// Score of the cheapest extension of `s` by up to `depth` more relations.
    fn look(&mut self, s: State, done: &[bool], depth: usize, bound: f64) -> f64 {
        let own = s.cost + s.rows;
        if depth == 0 || own >= bound {
            return own;
        }
        let mut best = f64::INFINITY;
        let mut any = false;
        for r in 0..self.rels.len() {
            if done[r] || !self.ready(r, s.tables) {
                continue;
            }
            any = true;
            let next = self.extend(s, r);
            let score = self.look(next, done, depth - 1, best.min(bound));
            if score < best {
                best = score;
            }
        }
        if any {
            best
        } else {
            own
        }
    }

    /// Greedy search with a lookahead of `lookahead` levels.
    fn greedy(&mut self, lookahead: usize) -> Option<Vec<usize>> {
        let n = self.rels.len();
        let mut done = vec![false; n];
        let mut order = Vec::with_capacity(n);
        let mut s = START;
        for _ in 0..n {
            let mut pick: Option<(f64, usize, State)> = None;
            for r in 0..n {
                if done[r] || !self.ready(r, s.tables) {
                    continue;
                }
                let next = self.extend(s, r);
                done[r] = true;
                let bound = pick.map_or(f64::INFINITY, |p| p.0);
                let score = self.look(next, &done, lookahead - 1, bound);
                done[r] = false;
                if pick.is_none_or(|p| score < p.0) {
                    pick = Some((score, r, next));
                }
            }
            let (_, r, next) = pick?;
            done[r] = true;
            order.push(r);
            s = next;
        }
        Some(order)
    }
}

/// The order (indexes into `rels`) to run the levels in; `rels` lists them in
/// FROM order, which is the answer unless another order is clearly cheaper.
/// `how` is how to look (see [`super::switch::Planner::search`]).
pub fn best_order(rels: &[Rel], oracle: &mut Oracle, how: How) -> Vec<usize> {
    let identity: Vec<usize> = (0..rels.len()).collect();
    if rels.len() <= 1 {
        return identity;
    }
    let mut search = Search {
        rels,
        oracle,
        memo: HashMap::new(),
    };
    let found = match how {
        How::Exhaustive => search.exhaustive(),
        How::Greedy { lookahead } => search.greedy(lookahead),
    };
    let Some(found) = found else {
        return identity;
    };
    if found == identity {
        return identity;
    }
    let from_cost = search.cost_of(&identity);
    let cost = search.cost_of(&found);
    if cost < from_cost * KEEP_FROM {
        found
    } else {
        identity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain t_i - t_{i+1} listed in `from` order; joined neighbours cost an
    /// index lookup (fanout 1), anything else a 10-row scan (fanout 10).
    fn chain(from: &[usize]) -> (Vec<Rel>, Vec<usize>) {
        let rels = from
            .iter()
            .map(|&t| {
                let mut nbrs = 0u64;
                if t > 0 {
                    nbrs |= 1 << (t - 1);
                }
                if t + 1 < from.len() {
                    nbrs |= 1 << (t + 1);
                }
                Rel {
                    table: t,
                    deps: 0,
                    nbrs,
                }
            })
            .collect();
        (rels, from.to_vec())
    }

    fn oracle(rels: &[Rel]) -> impl FnMut(usize, u64) -> Step + '_ {
        move |r, tables| {
            if tables & rels[r].nbrs != 0 {
                Step {
                    cost: 1.0,
                    fanout: 1.0,
                }
            } else {
                Step {
                    cost: 10.0,
                    fanout: 10.0,
                }
            }
        }
    }

    fn connected(rels: &[Rel], order: &[usize]) -> bool {
        let mut seen = 1u64 << rels[order[0]].table;
        for &r in &order[1..] {
            if rels[r].nbrs & seen == 0 {
                return false;
            }
            seen |= 1 << rels[r].table;
        }
        true
    }

    fn auto(n: usize) -> How {
        crate::plan::switch::Planner::default().search(n)
    }

    fn shuffled(n: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).step_by(2).collect();
        v.extend((1..n).step_by(2));
        v
    }

    #[test]
    fn exhaustive_follows_the_chain() {
        let (rels, _) = chain(&shuffled(8));
        let mut o = oracle(&rels);
        let order = best_order(&rels, &mut o, auto(rels.len()));
        assert!(connected(&rels, &order), "{order:?}");
    }

    #[test]
    fn greedy_follows_the_chain() {
        for n in [16, 32, 61] {
            let (rels, _) = chain(&shuffled(n));
            let mut o = oracle(&rels);
            let order = best_order(&rels, &mut o, auto(rels.len()));
            assert_eq!(order.len(), n);
            assert!(connected(&rels, &order), "{n}: {order:?}");
        }
    }

    #[test]
    fn a_shallow_search_still_places_every_table() {
        let (rels, _) = chain(&shuffled(8));
        let mut o = oracle(&rels);
        let order = best_order(&rels, &mut o, How::Greedy { lookahead: 1 });
        assert_eq!(order.len(), 8);
        assert!(connected(&rels, &order), "{order:?}");
    }

    #[test]
    fn dependencies_are_kept() {
        // The first listed table must come after the last listed one.
        for n in [6, 12] {
            let (mut rels, _) = chain(&shuffled(n));
            let dep = rels[n - 1].table;
            rels[0].deps = 1 << dep;
            let mut o = oracle(&rels);
            let order = best_order(&rels, &mut o, auto(rels.len()));
            let p0 = order.iter().position(|&r| r == 0).expect("placed");
            let pd = order.iter().position(|&r| r == n - 1).expect("placed");
            assert!(pd < p0, "{order:?}");
        }
    }

    #[test]
    fn equal_costs_keep_from_order() {
        let rels: Vec<Rel> = (0..4)
            .map(|t| Rel {
                table: t,
                deps: 0,
                nbrs: 0,
            })
            .collect();
        let mut o = |_r: usize, _t: u64| Step {
            cost: 10.0,
            fanout: 10.0,
        };
        assert_eq!(
            best_order(&rels, &mut o, auto(rels.len())),
            vec![0, 1, 2, 3]
        );
    }
}
