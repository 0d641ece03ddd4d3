//! A plan's query blocks as EXPLAIN shows them.
//!
//! MariaDB numbers query blocks as it parses them, so a block's number is its
//! rank among the SELECT keywords of the statement ([`SelectPlan::pos`]); a view's
//! blocks come after the statement's own. Each block gets MariaDB's select type:
//! SIMPLE when the statement has one block, else PRIMARY for the outermost,
//! SUBQUERY / DEPENDENT SUBQUERY for an expression subquery (dependent when it is
//! correlated), DERIVED for a materialised derived table or CTE, UNION /
//! INTERSECT / EXCEPT for the later members of a set operation, RECURSIVE UNION
//! for a recursive CTE's steps; a set operation that collects its rows in a
//! temporary table adds a result row (`UNION RESULT <union1,2>`, `INTERSECT
//! RESULT`, `EXCEPT RESULT`, `UNIT RESULT` when mixed). A derived table is shown
//! inside the table access that reads it, a subquery after the block it stands
//! in, in select-number order.
//!
//! Everything here describes Basalt's own plan in MariaDB's vocabulary: the
//! access types (`const`, `eq_ref`, `ref`, `range`, `index`, `ALL`, `hash_ALL` for
//! a hash-joined level), the keys, and the estimates the planner used.

use super::cond::{self, Names};
use crate::exec::analyze::{LevelStats, Tracker};
use crate::expr::Expr;
use crate::plan::{Access, Level, RangeSpec, SelectPlan, SelectPos, SetOpKind, SubKind, SubPlan};
use std::collections::HashMap;
use std::sync::Arc;

/// One query block.
pub struct Block {
    pub id: u64,
    pub select_type: String,
    /// JSON's `operation` for a set operation's later members.
    pub operation: Option<&'static str>,
    pub tables: Vec<TableAccess>,
    /// Why a block shows no table ("No tables used", "Impossible WHERE").
    pub message: Option<&'static str>,
    /// GROUP BY, DISTINCT or window functions collect rows in a temporary table.
    pub temporary: bool,
    /// The rows are sorted after the join: the sort key, as text.
    pub filesort: Option<String>,
    /// Window functions: the sort key of each window's sort.
    pub window: Option<Vec<String>>,
    /// The expression subqueries that stand in this block, by select number.
    pub children: Vec<Node>,
    /// The block is a correlated subquery whose results are cached per outer
    /// value (MariaDB's expression cache); ANALYZE: (lookups, hits).
    pub cache: Option<Option<(u64, u64)>>,
}

/// A query unit: one block, or a set operation over several.
pub enum Node {
    Block(Box<Block>),
    Set(SetNode),
}

pub struct SetNode {
    pub members: Vec<Block>,
    /// The row of the temporary table the result is collected in; `None` when the
    /// members' rows stream through (UNION ALL).
    pub result: Option<SetResult>,
}

pub struct SetResult {
    pub select_type: &'static str,
    pub table: String,
    /// ANALYZE: the rows the result held, per run.
    pub r_rows: Option<f64>,
}

/// One join level of a block.
pub struct TableAccess {
    pub name: String,
    /// The partitions read (None for a table that is not partitioned).
    pub partitions: Option<Vec<String>>,
    pub access_type: &'static str,
    pub possible_keys: Vec<String>,
    pub key: Option<String>,
    pub key_len: Option<u32>,
    pub used_key_parts: Vec<String>,
    pub refs: Vec<String>,
    pub rows: u64,
    pub condition: Option<String>,
    pub using_index: bool,
    pub hash: bool,
    /// The derived table or CTE this access reads, materialised first.
    pub materialized: Option<Box<Node>>,
    /// What ANALYZE measured (None for EXPLAIN, and for a const table, which
    /// MariaDB reads while planning).
    pub stats: Option<LevelStats>,
}

/// Builds the nodes of one statement's plan.
pub struct Builder<'p> {
    positions: Vec<SelectPos>,
    subs: &'p [SubPlan],
    /// `db.table.column` of each outer value a correlated subquery's blocks read,
    /// by block position.
    outer: HashMap<SelectPos, Arc<Vec<String>>>,
    /// More than one query block: the outermost is PRIMARY, not SIMPLE.
    pub multi: bool,
    tracker: Option<&'p Tracker>,
}

impl<'p> Builder<'p> {
    pub fn new(root: &'p SelectPlan, subs: &'p [SubPlan], tracker: Option<&'p Tracker>) -> Self {
        let mut plans = Vec::new();
        collect(root, &mut plans);
        for s in subs {
            for p in s.plans() {
                collect(p, &mut plans);
            }
        }
        // The statement's outermost block is number 1 wherever its SELECT stands
        // (after a WITH clause, say); the others go by their place in the text.
        let mut positions: Vec<SelectPos> = plans.iter().map(|p| p.pos).collect();
        positions.sort_unstable();
        positions.dedup();
        positions.retain(|p| *p != root.pos);
        positions.insert(0, root.pos);
        let multi = positions.len() > 1 || !root.union.is_empty() || root.setop.is_some();
        let by_pos: HashMap<SelectPos, &SelectPlan> = plans.iter().map(|p| (p.pos, *p)).collect();
        let mut outer = HashMap::new();
        for s in subs.iter().filter(|s| !s.outer.is_empty()) {
            let Some(parent) = by_pos.get(&s.parent) else {
                continue;
            };
            let names: Arc<Vec<String>> = Arc::new(
                s.outer
                    .iter()
                    .map(|e| match e {
                        Expr::Column(c) => column_name(parent, *c, true),
                        _ => "func".to_string(),
                    })
                    .collect(),
            );
            let mut inner = Vec::new();
            for p in s.plans() {
                collect(p, &mut inner);
            }
            for p in inner {
                outer.insert(p.pos, names.clone());
            }
        }
        Builder {
            positions,
            subs,
            outer,
            multi,
            tracker,
        }
    }

    /// Every query block's position, in select-number order.
    pub fn positions(&self) -> &[SelectPos] {
        &self.positions
    }

    /// The select number of the block at `pos`.
    pub fn id(&self, pos: SelectPos) -> u64 {
        self.positions
            .iter()
            .position(|p| *p == pos)
            .map_or(1, |i| i as u64 + 1)
    }

    /// The select number of subquery `i`, and whether it is an EXISTS.
    pub fn sub_id(&self, i: usize) -> Option<(u64, bool)> {
        self.subs
            .get(i)
            .map(|s| (self.id(s.plan.pos), s.kind == SubKind::Exists))
    }

    /// The name of outer value `k` in the blocks at `pos` (qualified by the
    /// database with `qualified`).
    fn outer_name(&self, pos: SelectPos, k: usize, qualified: bool) -> String {
        let full = self
            .outer
            .get(&pos)
            .and_then(|v| v.get(k))
            .cloned()
            .unwrap_or_else(|| "func".to_string());
        match full.split_once('.') {
            Some((_, rest)) if !qualified && rest.contains('.') => rest.to_string(),
            _ => full,
        }
    }

    /// The statement's outermost unit.
    pub fn root(&self, plan: &'p SelectPlan) -> Node {
        let kind = if self.multi { "PRIMARY" } else { "SIMPLE" };
        self.unit(plan, kind, false)
    }

    fn unit(&self, plan: &'p SelectPlan, first: &str, dependent: bool) -> Node {
        if plan.union.is_empty() && plan.setop.is_none() {
            return Node::Block(Box::new(self.block(plan, first.to_string(), None)));
        }
        let mut members = Vec::new();
        let mut kinds = Vec::new();
        flatten(plan, None, &mut members, &mut kinds);
        let blocks: Vec<Block> = members
            .into_iter()
            .enumerate()
            .map(|(i, (p, op))| {
                let ty = match op {
                    _ if i == 0 => first.to_string(),
                    Some("UNION") if dependent => "DEPENDENT UNION".to_string(),
                    Some(o) => o.to_string(),
                    None => first.to_string(),
                };
                self.block(p, ty, op.filter(|_| i > 0))
            })
            .collect();
        let streams = plan.setop.is_none()
            && plan.order.is_empty()
            && plan.union.iter().skip(1).all(|(_, all)| *all);
        let result = (!streams).then(|| {
            let ids: Vec<u64> = blocks.iter().map(|b| b.id).collect();
            let mut r = set_result(&kinds, &ids);
            r.r_rows = self.tracker.map(|t| t.unit_rows(plan).unwrap_or(0.0));
            r
        });
        Node::Set(SetNode {
            members: blocks,
            result,
        })
    }

    /// A recursive CTE: its anchors, then its steps, then the UNION RESULT row.
    fn recursive(&self, sub: &'p SubPlan) -> Node {
        let Some(rec) = &sub.recursive else {
            return self.unit(&sub.plan, "DERIVED", false);
        };
        let mut blocks = vec![self.block(&sub.plan, "DERIVED".into(), None)];
        for a in &rec.anchors {
            blocks.push(self.block(a, "UNION".into(), Some("UNION")));
        }
        for s in &rec.steps {
            blocks.push(self.block(s, "RECURSIVE UNION".into(), Some("UNION")));
        }
        let ids: Vec<u64> = blocks.iter().map(|b| b.id).collect();
        let mut result = set_result(&["UNION"], &ids);
        // MariaDB counts no rows for a recursive CTE's result table.
        result.r_rows = self.tracker.map(|_| 0.0);
        Node::Set(SetNode {
            members: blocks,
            result: Some(result),
        })
    }

    fn block(
        &self,
        plan: &'p SelectPlan,
        select_type: String,
        operation: Option<&'static str>,
    ) -> Block {
        let impossible = plan.const_filter.as_ref().is_some_and(always_false);
        let mut tables: Vec<TableAccess> = if impossible {
            Vec::new()
        } else {
            plan.levels.iter().map(|l| self.access(plan, l)).collect()
        };
        // A CTE read twice is materialised once: its blocks show under the first.
        let mut seen = std::collections::HashSet::new();
        for t in &mut tables {
            if t.materialized.is_some() && !seen.insert(t.name.clone()) {
                t.materialized = None;
            }
        }
        let message = if impossible {
            Some("Impossible WHERE")
        } else if plan.levels.is_empty() {
            Some("No tables used")
        } else {
            None
        };
        let grouped = plan.agg.as_ref().is_some_and(|a| !a.group_by.is_empty());
        let temporary = !tables.is_empty() && (grouped || plan.distinct || plan.window.is_some());
        let filesort = (!tables.is_empty() && (grouped || !plan.order.is_empty()))
            .then(|| self.sort_key(plan));
        let mut children: Vec<(u64, Node)> = self
            .subs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.target.is_none() && s.parent == plan.pos)
            .map(|(i, s)| {
                let dependent = !s.outer.is_empty();
                let ty = if dependent {
                    "DEPENDENT SUBQUERY"
                } else {
                    "SUBQUERY"
                };
                let mut unit = self.unit(&s.plan, ty, dependent);
                if dependent {
                    let head = match &mut unit {
                        Node::Block(b) => Some(b.as_mut()),
                        Node::Set(set) => set.members.first_mut(),
                    };
                    if let Some(b) = head {
                        b.cache = Some(self.tracker.map(|t| t.cache(i)));
                    }
                }
                (self.id(s.plan.pos), unit)
            })
            .collect();
        children.sort_by_key(|(id, _)| *id);
        Block {
            id: self.id(plan.pos),
            select_type,
            operation,
            tables,
            message,
            temporary,
            filesort,
            window: plan.window.as_ref().map(|w| self.window_sorts(plan, w)),
            children: children.into_iter().map(|(_, n)| n).collect(),
            cache: None,
        }
    }

    fn access(&self, plan: &'p SelectPlan, l: &'p Level) -> TableAccess {
        let t = &plan.tables[l.table];
        let e = &l.explain;
        let (name, materialized) = self.derived(t);
        let column = |c: usize| column_name(plan, c, false);
        let outer = |k: usize| self.outer_name(plan.pos, k, false);
        let sub = |i: usize| self.sub_id(i);
        let names = Names {
            column: &column,
            outer: &outer,
            sub: &sub,
        };
        let condition = level_condition(l).map(|c| cond::print(&c, &names));
        let ref_of = |x: &Expr| match x {
            Expr::OuterRef(k) => self.outer_name(plan.pos, *k, true),
            other => ref_name(plan, other),
        };
        let (mut key, mut key_len, mut used_key_parts, mut refs) = key_info(plan, l, &ref_of);
        let access_type = if l.hash.is_some() {
            if let Some(h) = &l.hash {
                key = Some("#hash#$hj".into());
                used_key_parts = h
                    .keys
                    .iter()
                    .map(|k| {
                        k.inner
                            .as_column()
                            .map_or("?".into(), |c| bare_column(plan, c))
                    })
                    .collect();
                refs = h.keys.iter().map(|k| ref_of(&k.outer)).collect();
                key_len = hash_key_len(plan, h);
            }
            "hash_ALL"
        } else if e.access_type == "const" && refs.iter().any(|r| r != "const") {
            // A primary key lookup by another table's value, once per row of it.
            "eq_ref"
        } else {
            e.access_type
        };
        if !matches!(access_type, "const" | "eq_ref" | "ref" | "hash_ALL") {
            refs.clear();
        }
        let pk = &t.def.indexes[0];
        let covering = match &l.access {
            Access::Index {
                covering, index_id, ..
            } => *covering && *index_id != pk.id,
            // A primary key lookup that needs no other column reads the key only.
            Access::PkGet { .. } => l
                .columns
                .iter()
                .all(|c| pk.column_ordinals().any(|k| k == *c)),
        };
        TableAccess {
            name,
            partitions: super::partitions::read_by(t, l),
            access_type,
            possible_keys: e.possible_keys.clone(),
            key: if access_type == "ALL" { None } else { key },
            key_len: if access_type == "ALL" { None } else { key_len },
            used_key_parts: if access_type == "ALL" {
                Vec::new()
            } else {
                used_key_parts
            },
            refs,
            rows: l.est_rows,
            condition,
            using_index: covering,
            hash: l.hash.is_some(),
            materialized,
            stats: self
                .tracker
                .filter(|_| access_type != "const")
                .map(|t| t.level(l)),
        }
    }

    /// The name EXPLAIN gives a table (`<derivedN>` for a derived table or CTE)
    /// and, for a derived table, the unit that fills it.
    fn derived(&self, t: &'p crate::plan::TableRef) -> (String, Option<Box<Node>>) {
        let ptr = Arc::as_ptr(&t.table) as *const u8;
        for s in self.subs {
            let is_target = s
                .target
                .as_ref()
                .is_some_and(|v| Arc::as_ptr(v) as *const u8 == ptr);
            let is_work = s
                .recursive
                .as_ref()
                .is_some_and(|r| Arc::as_ptr(&r.work) as *const u8 == ptr);
            if is_target || is_work {
                let name = format!("<derived{}>", self.id(s.plan.pos));
                let unit = is_target.then(|| Box::new(self.recursive(s)));
                return (name, unit);
            }
        }
        (t.alias.clone(), None)
    }

    /// The sort key of each window specification (PARTITION BY, then ORDER BY).
    fn window_sorts(&self, plan: &SelectPlan, w: &crate::plan::window::WindowPlan) -> Vec<String> {
        let column = |c: usize| column_name(plan, c, false);
        let outer = |k: usize| self.outer_name(plan.pos, k, false);
        let sub = |i: usize| self.sub_id(i);
        let names = Names {
            column: &column,
            outer: &outer,
            sub: &sub,
        };
        w.specs
            .iter()
            .filter(|s| !s.partition.is_empty() || !s.order.is_empty())
            .map(|s| {
                let parts = s.partition.iter().map(|(e, _)| cond::print(e, &names));
                let order = s.order.iter().map(|(e, desc, _)| {
                    let t = cond::print(e, &names);
                    if *desc {
                        format!("{t} desc")
                    } else {
                        t
                    }
                });
                parts.chain(order).collect::<Vec<_>>().join(", ")
            })
            .collect()
    }

    /// What the rows are sorted by: the GROUP BY expressions, else ORDER BY.
    fn sort_key(&self, plan: &SelectPlan) -> String {
        let column = |c: usize| column_name(plan, c, false);
        let outer = |k: usize| self.outer_name(plan.pos, k, false);
        let sub = |i: usize| self.sub_id(i);
        let names = Names {
            column: &column,
            outer: &outer,
            sub: &sub,
        };
        if let Some(a) = plan.agg.as_ref().filter(|a| !a.group_by.is_empty()) {
            return a
                .group_by
                .iter()
                .map(|e| cond::print(e, &names))
                .collect::<Vec<_>>()
                .join(", ");
        }
        plan.order
            .iter()
            .map(|k| {
                let text = plan
                    .project
                    .get(k.column)
                    .map_or_else(String::new, |e| cond::print(e, &names));
                if k.desc {
                    format!("{text} desc")
                } else {
                    text
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `p` and the members of its set operations.
fn collect<'p>(p: &'p SelectPlan, out: &mut Vec<&'p SelectPlan>) {
    out.push(p);
    for b in p.operands() {
        collect(b, out);
    }
}

/// The members of a set operation in order, each with the operation that joins
/// it to the ones before (`None` for the first), and the operations used.
fn flatten<'p>(
    plan: &'p SelectPlan,
    op: Option<&'static str>,
    out: &mut Vec<(&'p SelectPlan, Option<&'static str>)>,
    kinds: &mut Vec<&'static str>,
) {
    if !plan.union.is_empty() {
        for (i, (b, _)) in plan.union.iter().enumerate() {
            let this = if i == 0 { op } else { Some("UNION") };
            if i > 0 {
                kinds.push("UNION");
            }
            flatten(b, this, out, kinds);
        }
    } else if let Some(s) = &plan.setop {
        let name = match s.kind {
            SetOpKind::Intersect => "INTERSECT",
            SetOpKind::Except => "EXCEPT",
        };
        kinds.push(name);
        flatten(&s.left, op, out, kinds);
        flatten(&s.right, Some(name), out, kinds);
    } else {
        out.push((plan, op));
    }
}

/// The result row of a set operation: its type and `<union1,2>`-style name, cut
/// with `...` as MariaDB cuts names past 64 characters.
fn set_result(kinds: &[&'static str], ids: &[u64]) -> SetResult {
    let same = |k: &str| kinds.iter().all(|x| *x == k);
    let (select_type, prefix) = if same("UNION") {
        ("UNION RESULT", "<union")
    } else if same("INTERSECT") {
        ("INTERSECT RESULT", "<intersect")
    } else if same("EXCEPT") {
        ("EXCEPT RESULT", "<except")
    } else {
        ("UNIT RESULT", "<unit")
    };
    const NAME_LEN: usize = 64;
    let mut name = prefix.to_string();
    let mut all = true;
    for id in ids {
        let part = format!("{id},");
        if name.len() + part.len() + 4 >= NAME_LEN {
            all = false;
            break;
        }
        name.push_str(&part);
    }
    if all {
        name.pop();
        name.push('>');
    } else {
        name.push_str("...>");
    }
    SetResult {
        select_type,
        table: name,
        r_rows: None,
    }
}

/// A constant condition that is false whatever the rows (`WHERE 1 = 0`,
/// `WHERE FALSE`, `WHERE NULL`).
fn always_false(e: &Expr) -> bool {
    const_truth(e) == Some(false)
}

/// The truth of a condition of integer constants (`None`: not such a condition;
/// NULL counts as false, as WHERE treats it).
fn const_truth(e: &Expr) -> Option<bool> {
    use basalt_common::Value;
    let int = |x: &Expr| match x {
        Expr::Const(Value::Int(i)) => Some(Some(*i as i128)),
        Expr::Const(Value::UInt(u)) => Some(Some(*u as i128)),
        Expr::Const(Value::Null) => Some(None),
        _ => None,
    };
    match e {
        Expr::Const(_) => int(e).map(|v| v.is_some_and(|i| i != 0)),
        Expr::Cmp(op, a, b, _) => {
            let (a, b) = (int(a)?, int(b)?);
            Some(match (a, b) {
                (Some(a), Some(b)) => op.holds(a.cmp(&b)),
                _ => false,
            })
        }
        Expr::And(list) => {
            let v: Option<Vec<bool>> = list.iter().map(const_truth).collect();
            v.map(|v| v.iter().all(|b| *b))
        }
        Expr::Or(list) => {
            let v: Option<Vec<bool>> = list.iter().map(const_truth).collect();
            v.map(|v| v.iter().any(|b| *b))
        }
        _ => None,
    }
}

/// The conditions a level checks on its rows: those its access path does not
/// guarantee (MariaDB also shows a range's own condition), then what WHERE
/// checks once the row is placed.
fn level_condition(l: &Level) -> Option<Expr> {
    let base = if l.explain.access_type == "range" {
        l.filter.clone()
    } else {
        l.residual.clone()
    };
    match (base, l.post_filter.clone()) {
        (Some(a), Some(b)) => Some(Expr::And(vec![a, b])),
        (a, b) => a.or(b),
    }
}

/// Key, key length, key parts used and what they are compared with.
fn key_info(
    plan: &SelectPlan,
    l: &Level,
    ref_of: &dyn Fn(&Expr) -> String,
) -> (Option<String>, Option<u32>, Vec<String>, Vec<String>) {
    let t = &plan.tables[l.table];
    let e = &l.explain;
    let (index_id, exprs, parts): (u32, Vec<&Expr>, usize) = match &l.access {
        Access::PkGet { key } => (t.def.indexes[0].id, key.iter().collect(), key.len()),
        Access::Index {
            index_id, range, ..
        } => {
            let idx = t.def.indexes.iter().find(|i| i.id == *index_id);
            let all = idx.map_or(0, |i| i.columns.len());
            match range {
                RangeSpec::Prefix { eq, lower, upper } => (
                    *index_id,
                    eq.iter().flatten().collect(),
                    eq.len() + usize::from(lower.is_some() || upper.is_some()),
                ),
                RangeSpec::Points(p) => (*index_id, Vec::new(), p.first().map_or(all, Vec::len)),
                RangeSpec::All => (*index_id, Vec::new(), all),
            }
        }
    };
    let idx = t.def.indexes.iter().find(|i| i.id == index_id);
    let used = idx.map_or_else(Vec::new, |i| {
        i.columns
            .iter()
            .take(parts.max(1))
            .map(|c| t.def.columns[c.column].name.clone())
            .collect()
    });
    let refs = exprs.iter().map(|x| ref_of(x)).collect();
    (e.key.clone(), e.key_len, used, refs)
}

/// What a key part is compared with: `db.table.column`, `const`, or `func`.
fn ref_name(plan: &SelectPlan, e: &Expr) -> String {
    match e {
        Expr::Column(c) => column_name(plan, *c, true),
        Expr::Const(_) | Expr::Param(_) => "const".into(),
        Expr::Cast(x, _) => ref_name(plan, x),
        _ if is_constant(e) => "const".into(),
        _ => "func".into(),
    }
}

fn is_constant(e: &Expr) -> bool {
    let mut constant = true;
    e.walk(&mut |x| {
        constant &= !matches!(x, Expr::Column(_) | Expr::OuterRef(_) | Expr::Sub { .. })
    });
    constant
}

/// `alias.column` (with `qualified`, `db.alias.column`) of a joined-row position.
pub fn column_name(plan: &SelectPlan, c: usize, qualified: bool) -> String {
    for t in &plan.tables {
        if c >= t.offset && c < t.offset + t.width() {
            let col = &t.def.columns[c - t.offset].name;
            return if qualified && !t.db.is_empty() {
                format!("{}.{}.{col}", t.db, t.alias)
            } else {
                format!("{}.{col}", t.alias)
            };
        }
    }
    format!("column#{c}")
}

fn bare_column(plan: &SelectPlan, c: usize) -> String {
    let full = column_name(plan, c, false);
    full.rsplit('.').next().unwrap_or(&full).to_string()
}

/// A hash-joined level's key length: its key columns as an index would hold them.
fn hash_key_len(plan: &SelectPlan, h: &crate::plan::hash_keys::HashJoin) -> Option<u32> {
    let mut total = 0;
    for k in &h.keys {
        let c = k.inner.as_column()?;
        let t = plan
            .tables
            .iter()
            .find(|t| c >= t.offset && c < t.offset + t.width())?;
        total += crate::plan::access::column_key_len(&t.def, c - t.offset);
    }
    Some(total)
}
