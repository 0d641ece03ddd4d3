//! Equalities a join's WHERE implies: from `a.x = b.y` and `b.y = c.z`, also
//! `a.x = c.z` (MariaDB's multiple equalities). With it the join-order search
//! can read `c` by an index on `z` right after `a`, without `b` in between (TPC-H
//! Q5's `c_nationkey = s_nationkey and s_nationkey = n_nationkey` lets customer
//! follow nation).
//!
//! Only equalities whose comparison is transitive take part: both sides bare
//! columns of the same kind (integers of any width and sign, DECIMAL, DATE,
//! DATETIME / TIMESTAMP, or strings compared in their own collation). Columns
//! joined by such equalities form classes; every pair of columns of a class from
//! different tables that no conjunct links directly gets one more conjunct. The
//! added conjuncts hold whenever the originals do, so results do not change;
//! [`EqClasses::class_of`] lets the cost model count a class once per table
//! instead of multiplying in the selectivity of equalities that add nothing.

use crate::expr::{CmpOp, Expr};
use crate::plan::TableRef;
use basalt_common::{Collation, DataType};
use std::collections::HashMap;

/// Largest class whose pairs are all linked: a larger one keeps the equalities
/// written (a chain of n tables on one column would add n(n-1)/2 conjuncts for
/// the join-order search to weigh).
const MAX_CLASS: usize = 6;

/// What makes `=` between two columns transitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Int,
    Decimal,
    Date,
    DateTime,
    Str(Collation),
}

fn kind(ty: &DataType, coll: Collation) -> Option<Kind> {
    Some(match ty {
        DataType::Int { .. } => Kind::Int,
        DataType::Decimal { .. } => Kind::Decimal,
        DataType::Date => Kind::Date,
        DataType::DateTime { .. } => Kind::DateTime,
        DataType::Char { collation, .. } | DataType::VarChar { collation, .. }
            if *collation == coll =>
        {
            Kind::Str(coll)
        }
        _ => return None,
    })
}

/// The columns of a join grouped by the transitive equalities between them.
#[derive(Debug, Default)]
pub struct EqClasses {
    /// Row position of a column -> its class.
    class: HashMap<usize, usize>,
}

impl EqClasses {
    /// The class of an equality between two columns of one class.
    pub fn class_of(&self, e: &Expr) -> Option<usize> {
        let (a, b) = column_pair(e)?;
        let k = *self.class.get(&a)?;
        (self.class.get(&b) == Some(&k)).then_some(k)
    }
}

/// `Column(a) = Column(b)` with its collation.
fn column_pair(e: &Expr) -> Option<(usize, usize)> {
    match e {
        Expr::Cmp(CmpOp::Eq, a, b, _) => match (a.as_ref(), b.as_ref()) {
            (Expr::Column(a), Expr::Column(b)) if a != b => Some((*a, *b)),
            _ => None,
        },
        _ => None,
    }
}

/// The table (FROM index) and data type of row position `c`.
fn column(tables: &[TableRef], c: usize) -> Option<(usize, &DataType)> {
    let t = tables
        .iter()
        .position(|t| c >= t.offset && c < t.offset + t.width())?;
    Some((t, &tables[t].def.columns[c - tables[t].offset].data_type))
}

/// The equalities `conjuncts` imply between columns of different tables and do
/// not state, and the classes of the columns they join.
pub fn implied(conjuncts: &[Expr], tables: &[TableRef]) -> (Vec<Expr>, EqClasses) {
    let mut parent: HashMap<usize, usize> = HashMap::new();
    let mut kinds: HashMap<usize, (Kind, Collation)> = HashMap::new();
    let mut direct = std::collections::HashSet::new();
    for c in conjuncts {
        let (Some((a, b)), Expr::Cmp(_, _, _, coll)) = (column_pair(c), c) else {
            continue;
        };
        let (Some((_, ta)), Some((_, tb))) = (column(tables, a), column(tables, b)) else {
            continue;
        };
        let (Some(ka), Some(kb)) = (kind(ta, *coll), kind(tb, *coll)) else {
            continue;
        };
        if ka != kb {
            continue;
        }
        kinds.insert(a, (ka, *coll));
        kinds.insert(b, (kb, *coll));
        direct.insert((a.min(b), a.max(b)));
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent.insert(ra, rb);
        }
    }
    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut cols: Vec<usize> = kinds.keys().copied().collect();
    cols.sort_unstable();
    for c in cols {
        let r = find(&mut parent, c);
        members.entry(r).or_default().push(c);
    }
    // In column order, so that plans do not depend on hashing.
    let mut groups: Vec<Vec<usize>> = members.into_values().collect();
    groups.sort_unstable();
    let mut classes = EqClasses::default();
    let mut added = Vec::new();
    for (id, cols) in groups.into_iter().enumerate() {
        for &c in &cols {
            classes.class.insert(c, id);
        }
        if cols.len() > MAX_CLASS {
            continue;
        }
        for (i, &a) in cols.iter().enumerate() {
            for &b in &cols[i + 1..] {
                let same_table = column(tables, a).map(|x| x.0) == column(tables, b).map(|x| x.0);
                if same_table || direct.contains(&(a, b)) {
                    continue;
                }
                let coll = kinds[&a].1;
                added.push(Expr::Cmp(
                    CmpOp::Eq,
                    Box::new(Expr::Column(a)),
                    Box::new(Expr::Column(b)),
                    coll,
                ));
            }
        }
    }
    (added, classes)
}

fn find(parent: &mut HashMap<usize, usize>, c: usize) -> usize {
    let mut r = c;
    while let Some(&p) = parent.get(&r) {
        if p == r {
            break;
        }
        r = p;
    }
    // Path compression.
    let mut x = c;
    while let Some(&p) = parent.get(&x) {
        if p == r || p == x {
            break;
        }
        parent.insert(x, r);
        x = p;
    }
    r
}
