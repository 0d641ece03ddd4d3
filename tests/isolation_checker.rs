//! An anomaly checker for list-append histories, after Jepsen's Elle (Kingsbury and
//! Alvaro, 2020).
//!
//! Every key holds a list; transactions read whole lists and append unique values.
//! Because each value is appended once, a read names exactly which writes it saw, and
//! the final list of a key is the version order of its writes. From these the checker
//! derives, without knowing anything about the server:
//!
//! - per read: garbage values, duplicates, reads that are not a prefix of the final
//!   list (incompatible orders), values of aborted transactions (G1a), intermediate
//!   states of another transaction (G1b), a transaction's own appends missing from its
//!   reads, and (under snapshot levels) a read of a key that differs from the
//!   transaction's earlier read of it plus its own appends since (non-repeatable read);
//! - per final list: committed appends missing (lost) or present twice, and another
//!   transaction's append between two appends of one transaction (dirty write);
//! - a dependency graph over transactions with write-write (version order),
//!   write-read (the last value a read saw) and read-write (the first value a read did
//!   not see) edges, searched for cycles: G0 (write-write only), G1c (write-write and
//!   write-read), G-single (exactly one read-write edge: read skew, lost update; out
//!   of a transaction that read everything in one statement, a statement that did not
//!   read one snapshot, which no level allows) and G2 (several read-write edges: write
//!   skew, allowed under snapshot isolation).
//!
//! Which anomalies a level forbids: [`Kind::forbidden_under`].

#![allow(dead_code, reason = "each test file uses a different part")]

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fmt;

/// One operation of a transaction, in the order it ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// A read of `key` that saw `list` (empty when the row did not exist).
    Read { key: u64, list: Vec<u64> },
    /// An append of `value` to `key` that was sent (whether it took effect depends
    /// on the transaction's outcome).
    Append { key: u64, value: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Committed,
    /// Rolled back, with the errno that ended it (0 for a voluntary rollback).
    Aborted(u16),
    /// The connection went away around COMMIT: may or may not have committed.
    Unknown,
}

#[derive(Clone, Debug)]
pub struct Txn {
    pub session: usize,
    pub ops: Vec<Op>,
    pub outcome: Outcome,
    /// All its reads came from one statement, hence from one snapshot at any level.
    pub one_statement: bool,
}

/// A history: transactions (their index is their id) and the final state of every
/// key, read after all of them ended.
#[derive(Clone, Debug, Default)]
pub struct History {
    pub txns: Vec<Txn>,
    pub final_state: BTreeMap<u64, Vec<u64>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A value that was never appended to that key.
    GarbageRead,
    /// A value present twice in one list.
    DuplicateAppend,
    /// A read that is not a prefix of the key's final list.
    IncompatibleOrder,
    /// A committed append missing from the final list.
    LostAppend,
    /// A value appended by an aborted transaction was read or survived (G1a).
    G1a,
    /// A read saw some but not all of another transaction's appends to a key (G1b).
    G1b,
    /// Another transaction's append lies between two appends of one transaction.
    DirtyWrite,
    /// A transaction's read misses or misorders its own earlier appends.
    OwnWrites,
    /// A transaction read a key twice and the second read is not the first plus its
    /// own appends since.
    NonRepeatableRead,
    /// A cycle of write-write edges.
    G0,
    /// A cycle of write-write and write-read edges (circular information flow).
    G1c,
    /// A cycle with exactly one read-write edge (read skew, lost update).
    GSingle,
    /// G-single through a read-write edge out of a transaction whose reads were all
    /// one statement: that statement did not read from one snapshot.
    StatementReadSkew,
    /// A cycle with more than one read-write edge (write skew).
    G2,
}

/// The isolation a history is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Committed reads and long write locks (Adya's PL-2); also what classic InnoDB
    /// REPEATABLE READ guarantees once locking writes read the latest version.
    ReadCommitted,
    /// REPEATABLE READ with a snapshot per transaction and the snapshot-isolation
    /// write check (MariaDB's `innodb_snapshot_isolation=ON`, Basalt's default).
    SnapshotRepeatableRead,
}

impl Kind {
    pub fn forbidden_under(self, level: Level) -> bool {
        match self {
            Kind::G2 => false,
            Kind::NonRepeatableRead | Kind::GSingle => level == Level::SnapshotRepeatableRead,
            _ => true,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Anomaly {
    pub kind: Kind,
    /// Transactions involved (indices into `History::txns`).
    pub txns: Vec<usize>,
    pub detail: String,
}

impl fmt::Display for Anomaly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} txns {:?}: {}", self.kind, self.txns, self.detail)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Edge {
    Ww,
    Wr,
    Rw,
}

/// Everything found in a history.
#[derive(Debug, Default)]
pub struct Report {
    pub anomalies: Vec<Anomaly>,
    /// Edge counts of the dependency graph, for the test's summary.
    pub edges: BTreeMap<Edge, usize>,
}

impl Report {
    pub fn kinds(&self) -> BTreeMap<Kind, usize> {
        let mut m = BTreeMap::new();
        for a in &self.anomalies {
            *m.entry(a.kind).or_insert(0) += 1;
        }
        m
    }

    pub fn has(&self, kind: Kind) -> bool {
        self.anomalies.iter().any(|a| a.kind == kind)
    }

    /// The anomalies `level` forbids.
    pub fn forbidden(&self, level: Level) -> Vec<&Anomaly> {
        self.anomalies
            .iter()
            .filter(|a| a.kind.forbidden_under(level))
            .collect()
    }
}

/// What a transaction expects a key to read as, from its own earlier operations.
#[derive(Clone)]
enum Expect {
    /// The whole list (an earlier read plus own appends since).
    Known(Vec<u64>),
    /// Only how it ends (own appends, with no read of the key before them).
    Suffix(Vec<u64>),
}

/// A read after the checks: the transaction, the key and how many elements of the
/// final list it saw, excluding its own appends.
struct SeenPrefix {
    txn: usize,
    key: u64,
    len: usize,
}

pub fn check(h: &History) -> Report {
    let mut out = Vec::new();
    let mut anomaly = |kind: Kind, txns: Vec<usize>, detail: String| {
        out.push(Anomaly { kind, txns, detail });
    };

    // Who appended what (values are unique by construction of the workload).
    let mut writer: HashMap<u64, (usize, u64)> = HashMap::new();
    // Per transaction and key, its appends in order.
    let mut appends: Vec<BTreeMap<u64, Vec<u64>>> = vec![BTreeMap::new(); h.txns.len()];
    for (t, txn) in h.txns.iter().enumerate() {
        for op in &txn.ops {
            if let Op::Append { key, value } = *op {
                let prev = writer.insert(value, (t, key));
                assert!(
                    prev.is_none(),
                    "value {value} appended twice: a workload bug"
                );
                appends[t].entry(key).or_default().push(value);
            }
        }
    }
    let committed = |t: usize| h.txns[t].outcome == Outcome::Committed;
    let aborted = |t: usize| matches!(h.txns[t].outcome, Outcome::Aborted(_));
    let empty = Vec::new();
    let final_of = |k: u64| h.final_state.get(&k).unwrap_or(&empty);

    // The final lists: the version order of every key.
    let mut pos: HashMap<u64, usize> = HashMap::new();
    for (&k, list) in &h.final_state {
        let mut seen = HashSet::new();
        for (i, &x) in list.iter().enumerate() {
            if !seen.insert(x) {
                anomaly(
                    Kind::DuplicateAppend,
                    writer.get(&x).map(|w| vec![w.0]).unwrap_or_default(),
                    format!("final list of key {k} holds {x} twice: {list:?}"),
                );
                continue;
            }
            pos.insert(x, i);
            match writer.get(&x) {
                None => anomaly(
                    Kind::GarbageRead,
                    vec![],
                    format!("final list of key {k} holds {x}, never appended"),
                ),
                Some(&(_, wk)) if wk != k => anomaly(
                    Kind::GarbageRead,
                    vec![],
                    format!("final list of key {k} holds {x}, appended to key {wk}"),
                ),
                Some(&(w, _)) if aborted(w) => anomaly(
                    Kind::G1a,
                    vec![w],
                    format!(
                        "final list of key {k} holds {x} of aborted txn {w} ({:?})",
                        h.txns[w].outcome
                    ),
                ),
                _ => {}
            }
        }
    }
    for (t, per_key) in appends.iter().enumerate() {
        if !committed(t) {
            continue;
        }
        for (&k, values) in per_key {
            let fin = final_of(k);
            let mut places = Vec::new();
            for &x in values {
                match fin.iter().position(|&y| y == x) {
                    Some(p) => places.push(p),
                    None => anomaly(
                        Kind::LostAppend,
                        vec![t],
                        format!("committed append of {x} to key {k} is not in {fin:?}"),
                    ),
                }
            }
            if places.windows(2).any(|w| w[1] < w[0]) {
                anomaly(
                    Kind::OwnWrites,
                    vec![t],
                    format!("appends {values:?} to key {k} are out of order in {fin:?}"),
                );
            } else if let (Some(&first), Some(&last)) = (places.first(), places.last()) {
                if last - first + 1 != places.len() {
                    let others: Vec<usize> = fin[first..=last]
                        .iter()
                        .filter_map(|x| writer.get(x).map(|w| w.0))
                        .filter(|&w| w != t)
                        .collect();
                    let mut txns = vec![t];
                    txns.extend(others);
                    anomaly(
                        Kind::DirtyWrite,
                        txns,
                        format!("appends {values:?} to key {k} are interleaved in {fin:?}"),
                    );
                }
            }
        }
    }

    // Every read.
    let mut prefixes: Vec<SeenPrefix> = Vec::new();
    for (t, txn) in h.txns.iter().enumerate() {
        let mut own: HashMap<u64, Vec<u64>> = HashMap::new();
        let mut expect: HashMap<u64, Expect> = HashMap::new();
        for op in &txn.ops {
            match op {
                Op::Append { key, value } => {
                    own.entry(*key).or_default().push(*value);
                    let e = match expect.remove(key) {
                        Some(Expect::Known(mut l)) => {
                            l.push(*value);
                            Expect::Known(l)
                        }
                        Some(Expect::Suffix(mut s)) => {
                            s.push(*value);
                            Expect::Suffix(s)
                        }
                        None => Expect::Suffix(vec![*value]),
                    };
                    expect.insert(*key, e);
                }
                Op::Read { key, list } => {
                    let k = *key;
                    let mut ok = true;
                    let mut seen = HashSet::new();
                    for &x in list {
                        if !seen.insert(x) {
                            anomaly(
                                Kind::DuplicateAppend,
                                vec![t],
                                format!("read of key {k} holds {x} twice: {list:?}"),
                            );
                            ok = false;
                        }
                        match writer.get(&x) {
                            None => {
                                anomaly(
                                    Kind::GarbageRead,
                                    vec![t],
                                    format!("read of key {k} saw {x}, never appended"),
                                );
                                ok = false;
                            }
                            Some(&(_, wk)) if wk != k => {
                                anomaly(
                                    Kind::GarbageRead,
                                    vec![t],
                                    format!("read of key {k} saw {x}, appended to key {wk}"),
                                );
                                ok = false;
                            }
                            _ => {}
                        }
                    }
                    // Own appends so far must end the list.
                    let mine = own.get(&k).cloned().unwrap_or_default();
                    let external: Vec<u64> = if list.ends_with(&mine) {
                        list[..list.len() - mine.len()].to_vec()
                    } else {
                        anomaly(
                            Kind::OwnWrites,
                            vec![t],
                            format!(
                                "read of key {k} = {list:?} does not end with own appends {mine:?}"
                            ),
                        );
                        ok = false;
                        list.iter().copied().filter(|x| !mine.contains(x)).collect()
                    };
                    if let Some(&x) = external
                        .iter()
                        .find(|x| writer.get(x).map(|w| w.0) == Some(t))
                    {
                        anomaly(
                            Kind::OwnWrites,
                            vec![t],
                            format!(
                                "read of key {k} = {list:?} saw own {x} before it was appended"
                            ),
                        );
                        ok = false;
                    }
                    if let Some(Expect::Known(before)) = expect.get(&k) {
                        if before != list {
                            anomaly(
                                Kind::NonRepeatableRead,
                                vec![t],
                                format!("key {k} read as {list:?}, expected {before:?} from the txn's earlier read and appends"),
                            );
                        }
                    }
                    expect.insert(k, Expect::Known(list.clone()));
                    // Values of others.
                    let mut from: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
                    for &x in &external {
                        if let Some(&(w, _)) = writer.get(&x) {
                            if w != t {
                                from.entry(w).or_default().push(x);
                            }
                        }
                    }
                    for (&w, xs) in &from {
                        if aborted(w) {
                            anomaly(
                                Kind::G1a,
                                vec![w, t],
                                format!(
                                    "read of key {k} saw {xs:?} of aborted txn {w} ({:?})",
                                    h.txns[w].outcome
                                ),
                            );
                        } else if committed(w) {
                            let all = &appends[w][&k];
                            if all.last() != xs.last() {
                                anomaly(
                                    Kind::G1b,
                                    vec![w, t],
                                    format!("read of key {k} = {list:?} saw {xs:?} of txn {w}, which appended {all:?}"),
                                );
                            }
                        }
                    }
                    let fin = final_of(k);
                    if !fin.starts_with(&external) {
                        anomaly(
                            Kind::IncompatibleOrder,
                            vec![t],
                            format!(
                                "read of key {k} = {list:?} is not a prefix of the final {fin:?}"
                            ),
                        );
                        ok = false;
                    }
                    if ok && !matches!(txn.outcome, Outcome::Unknown) {
                        prefixes.push(SeenPrefix {
                            txn: t,
                            key: k,
                            len: external.len(),
                        });
                    }
                }
            }
        }
    }

    // The dependency graph: committed transactions with their writes; aborted ones
    // only as readers (their reads still came from one snapshot).
    let n = h.txns.len();
    let mut graph: Vec<Vec<(usize, Edge)>> = vec![Vec::new(); n];
    let mut edge_set: HashSet<(usize, usize, Edge)> = HashSet::new();
    let mut add = |graph: &mut Vec<Vec<(usize, Edge)>>, a: usize, b: usize, e: Edge| {
        if a != b && edge_set.insert((a, b, e)) {
            graph[a].push((b, e));
        }
    };
    let wrote = |x: u64| writer.get(&x).map(|w| w.0).filter(|&w| committed(w));
    for list in h.final_state.values() {
        for pair in list.windows(2) {
            if let (Some(a), Some(b)) = (wrote(pair[0]), wrote(pair[1])) {
                add(&mut graph, a, b, Edge::Ww);
            }
        }
    }
    for p in &prefixes {
        let fin = final_of(p.key);
        if p.len > 0 {
            if let Some(w) = wrote(fin[p.len - 1]) {
                add(&mut graph, w, p.txn, Edge::Wr);
            }
        }
        if p.len < fin.len() {
            if let Some(w) = wrote(fin[p.len]) {
                add(&mut graph, p.txn, w, Edge::Rw);
            }
        }
    }
    let mut edges = BTreeMap::new();
    for &(_, _, e) in &edge_set {
        *edges.entry(e).or_insert(0) += 1;
    }

    // G0: a cycle of ww edges; G1c: of ww and wr edges, through a wr edge.
    for (kind, through, allowed) in [
        (Kind::G0, Edge::Ww, &[Edge::Ww][..]),
        (Kind::G1c, Edge::Wr, &[Edge::Ww, Edge::Wr][..]),
    ] {
        let comp = sccs(&graph, allowed);
        let mut reported = HashSet::new();
        for a in 0..n {
            for &(b, e) in &graph[a] {
                if e != through || comp[a] != comp[b] || !reported.insert(comp[a]) {
                    continue;
                }
                let path = path(&graph, b, a, allowed).expect("same component");
                let mut cycle = vec![a];
                cycle.extend(path);
                anomaly(kind, cycle.clone(), describe_cycle(&graph, &cycle));
            }
        }
    }

    // G-single: a rw edge a -> b with b reaching a over ww and wr edges.
    let full = sccs(&graph, &[Edge::Ww, Edge::Wr, Edge::Rw]);
    let mut single_components = HashSet::new();
    let mut reach_cache: HashMap<usize, HashSet<usize>> = HashMap::new();
    for a in 0..n {
        for &(b, e) in &graph[a] {
            if e != Edge::Rw || full[a] != full[b] {
                continue;
            }
            let reach = reach_cache
                .entry(b)
                .or_insert_with(|| reachable(&graph, b, &[Edge::Ww, Edge::Wr]));
            if reach.contains(&a) {
                single_components.insert(full[a]);
                let path = path(&graph, b, a, &[Edge::Ww, Edge::Wr]).expect("reachable");
                let mut cycle = vec![a];
                cycle.extend(path);
                let kind = if h.txns[a].one_statement {
                    Kind::StatementReadSkew
                } else {
                    Kind::GSingle
                };
                anomaly(kind, cycle.clone(), describe_cycle(&graph, &cycle));
            }
        }
    }
    // G2: components of the full graph with an rw edge and no G-single.
    let mut g2 = HashSet::new();
    for a in 0..n {
        for &(b, e) in &graph[a] {
            if e == Edge::Rw
                && full[a] == full[b]
                && !single_components.contains(&full[a])
                && g2.insert(full[a])
            {
                let path = path(&graph, b, a, &[Edge::Ww, Edge::Wr, Edge::Rw]).expect("cycle");
                let mut cycle = vec![a];
                cycle.extend(path);
                anomaly(Kind::G2, cycle.clone(), describe_cycle(&graph, &cycle));
            }
        }
    }

    Report {
        anomalies: out,
        edges,
    }
}

/// Strongly connected components over the edges of the `allowed` kinds (Tarjan,
/// iterative); returns the component number of every node.
fn sccs(graph: &[Vec<(usize, Edge)>], allowed: &[Edge]) -> Vec<usize> {
    let n = graph.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut comp = vec![usize::MAX; n];
    let mut next_index = 0;
    let mut next_comp = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, next edge to look at)
        let mut work = vec![(root, 0usize)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i < graph[v].len() {
                let (w, e) = graph[v][*i];
                *i += 1;
                if !allowed.contains(&e) {
                    continue;
                }
                if index[w] == usize::MAX {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(parent, _)) = work.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    loop {
                        let w = stack.pop().expect("on stack");
                        on_stack[w] = false;
                        comp[w] = next_comp;
                        if w == v {
                            break;
                        }
                    }
                    next_comp += 1;
                }
            }
        }
    }
    comp
}

fn reachable(graph: &[Vec<(usize, Edge)>], from: usize, allowed: &[Edge]) -> HashSet<usize> {
    let mut seen = HashSet::from([from]);
    let mut queue = VecDeque::from([from]);
    while let Some(v) = queue.pop_front() {
        for &(w, e) in &graph[v] {
            if allowed.contains(&e) && seen.insert(w) {
                queue.push_back(w);
            }
        }
    }
    seen
}

/// A shortest path `from` .. `to` (both included) over the `allowed` edges.
fn path(
    graph: &[Vec<(usize, Edge)>],
    from: usize,
    to: usize,
    allowed: &[Edge],
) -> Option<Vec<usize>> {
    let mut prev: HashMap<usize, usize> = HashMap::new();
    let mut queue = VecDeque::from([from]);
    let mut seen = HashSet::from([from]);
    while let Some(v) = queue.pop_front() {
        if v == to {
            let mut p = vec![to];
            let mut cur = to;
            while cur != from {
                cur = prev[&cur];
                p.push(cur);
            }
            p.reverse();
            return Some(p);
        }
        for &(w, e) in &graph[v] {
            if allowed.contains(&e) && seen.insert(w) {
                prev.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    None
}

/// `t0 -ww-> t1 -wr-> t0` for a cycle given as its nodes (the first repeated last).
fn describe_cycle(graph: &[Vec<(usize, Edge)>], cycle: &[usize]) -> String {
    let mut s = format!("T{}", cycle[0]);
    for pair in cycle.windows(2) {
        let kinds: Vec<String> = graph[pair[0]]
            .iter()
            .filter(|&&(b, _)| b == pair[1])
            .map(|&(_, e)| format!("{e:?}").to_lowercase())
            .collect();
        s.push_str(&format!(" -{}-> T{}", kinds.join("/"), pair[1]));
    }
    s
}

/// Hand-made histories with one anomaly each, so the checker cannot pass silently.
#[cfg(test)]
mod tests {
    use super::*;

    fn r(key: u64, list: &[u64]) -> Op {
        Op::Read {
            key,
            list: list.to_vec(),
        }
    }

    fn a(key: u64, value: u64) -> Op {
        Op::Append { key, value }
    }

    fn ok(ops: Vec<Op>) -> Txn {
        Txn {
            session: 0,
            ops,
            outcome: Outcome::Committed,
            one_statement: false,
        }
    }

    fn failed(ops: Vec<Op>) -> Txn {
        Txn {
            session: 0,
            ops,
            outcome: Outcome::Aborted(1213),
            one_statement: false,
        }
    }

    fn history(txns: Vec<Txn>, fin: &[(u64, &[u64])]) -> History {
        History {
            txns,
            final_state: fin.iter().map(|&(k, l)| (k, l.to_vec())).collect(),
        }
    }

    /// The history has exactly the anomalies `kinds` (G2 aside, which is allowed).
    fn expect(h: &History, kinds: &[Kind]) -> Report {
        let rep = check(h);
        let mut found: Vec<Kind> = rep.kinds().keys().copied().collect();
        found.retain(|k| *k != Kind::G2 || kinds.contains(&Kind::G2));
        let mut want = kinds.to_vec();
        want.sort();
        assert_eq!(found, want, "{:#?}", rep.anomalies);
        rep
    }

    #[test]
    fn checker_serial_history_is_clean() {
        let h = history(
            vec![
                ok(vec![r(0, &[]), a(0, 1), a(1, 2), r(0, &[1])]),
                ok(vec![r(0, &[1]), r(1, &[2]), a(0, 3), r(0, &[1, 3])]),
                ok(vec![r(0, &[1, 3]), r(1, &[2])]),
                failed(vec![r(1, &[2]), a(1, 4), r(1, &[2, 4])]),
            ],
            &[(0, &[1, 3]), (1, &[2])],
        );
        let rep = expect(&h, &[]);
        assert!(rep.edges[&Edge::Ww] >= 1 && rep.edges[&Edge::Wr] >= 3);
    }

    #[test]
    fn checker_allows_write_skew_under_snapshot_isolation() {
        // Both read both keys empty, each appends to a different one: G2 only.
        let h = history(
            vec![
                ok(vec![r(0, &[]), r(1, &[]), a(0, 1)]),
                ok(vec![r(0, &[]), r(1, &[]), a(1, 2)]),
            ],
            &[(0, &[1]), (1, &[2])],
        );
        let rep = expect(&h, &[Kind::G2]);
        assert!(rep.forbidden(Level::SnapshotRepeatableRead).is_empty());
    }

    #[test]
    fn checker_finds_aborted_reads_g1a() {
        let h = history(
            vec![failed(vec![a(0, 1)]), ok(vec![r(0, &[1])])],
            &[(0, &[])],
        );
        expect(&h, &[Kind::G1a, Kind::IncompatibleOrder]);
        // An aborted append that survived.
        let h = history(vec![failed(vec![a(0, 1)])], &[(0, &[1])]);
        expect(&h, &[Kind::G1a]);
    }

    #[test]
    fn checker_finds_intermediate_reads_g1b() {
        let h = history(
            vec![ok(vec![a(0, 1), a(0, 2)]), ok(vec![r(0, &[1])])],
            &[(0, &[1, 2])],
        );
        // The reader also depends both ways on the writer.
        expect(&h, &[Kind::G1b, Kind::GSingle]);
    }

    #[test]
    fn checker_finds_write_cycles_g0_and_dirty_writes() {
        let h = history(
            vec![ok(vec![a(0, 1), a(1, 3)]), ok(vec![a(0, 2), a(1, 4)])],
            &[(0, &[1, 2]), (1, &[4, 3])],
        );
        let rep = expect(&h, &[Kind::G0]);
        assert!(rep.anomalies[0].detail.contains("-ww->"), "{rep:?}");
        let h = history(
            vec![ok(vec![a(0, 1), a(0, 3)]), ok(vec![a(0, 2)])],
            &[(0, &[1, 2, 3])],
        );
        // ...which is a write cycle as well.
        expect(&h, &[Kind::DirtyWrite, Kind::G0]);
    }

    #[test]
    fn checker_finds_circular_information_flow_g1c() {
        let h = history(
            vec![ok(vec![a(0, 1), r(1, &[2])]), ok(vec![a(1, 2), r(0, &[1])])],
            &[(0, &[1]), (1, &[2])],
        );
        expect(&h, &[Kind::G1c]);
    }

    #[test]
    fn checker_finds_read_skew_of_a_read_only_txn() {
        // T0 appends to both keys; T1 sees its append to key 1 but not to key 0.
        let h = history(
            vec![ok(vec![a(0, 1), a(1, 2)]), ok(vec![r(0, &[]), r(1, &[2])])],
            &[(0, &[1]), (1, &[2])],
        );
        let rep = expect(&h, &[Kind::GSingle]);
        assert_eq!(rep.forbidden(Level::SnapshotRepeatableRead).len(), 1);
        assert!(rep.forbidden(Level::ReadCommitted).is_empty());
        // The same across three transactions: T2 sees T1, which saw T0, but not T0.
        let h = history(
            vec![
                ok(vec![a(0, 1)]),
                ok(vec![r(0, &[1]), a(1, 2)]),
                ok(vec![r(0, &[]), r(1, &[2])]),
            ],
            &[(0, &[1]), (1, &[2])],
        );
        expect(&h, &[Kind::GSingle]);
        // Read by one statement: forbidden at every level.
        let mut h = history(
            vec![ok(vec![a(0, 1), a(1, 2)]), ok(vec![r(0, &[]), r(1, &[2])])],
            &[(0, &[1]), (1, &[2])],
        );
        h.txns[1].one_statement = true;
        let rep = expect(&h, &[Kind::StatementReadSkew]);
        assert_eq!(rep.forbidden(Level::ReadCommitted).len(), 1);
    }

    #[test]
    fn checker_finds_lost_updates() {
        // Both read the empty list and append: the second append was based on a
        // stale read (G-single through ww).
        let h = history(
            vec![ok(vec![r(0, &[]), a(0, 1)]), ok(vec![r(0, &[]), a(0, 2)])],
            &[(0, &[1, 2])],
        );
        expect(&h, &[Kind::GSingle]);
        // ...and reading again shows more than snapshot plus own append.
        let h = history(
            vec![
                ok(vec![r(0, &[]), a(0, 1)]),
                ok(vec![r(0, &[]), a(0, 2), r(0, &[1, 2])]),
            ],
            &[(0, &[1, 2])],
        );
        let rep = expect(&h, &[Kind::NonRepeatableRead, Kind::GSingle]);
        assert_eq!(rep.forbidden(Level::SnapshotRepeatableRead).len(), 2);
        // A committed append that vanished.
        let h = history(vec![ok(vec![a(0, 1)]), ok(vec![a(0, 2)])], &[(0, &[2])]);
        expect(&h, &[Kind::LostAppend]);
    }

    #[test]
    fn checker_finds_non_repeatable_reads_and_own_write_errors() {
        let h = history(
            vec![ok(vec![r(0, &[]), r(0, &[1])]), ok(vec![a(0, 1)])],
            &[(0, &[1])],
        );
        let rep = expect(&h, &[Kind::NonRepeatableRead, Kind::GSingle]);
        assert!(rep.forbidden(Level::ReadCommitted).is_empty());
        let h = history(vec![ok(vec![a(0, 1), r(0, &[])])], &[(0, &[1])]);
        let rep = expect(&h, &[Kind::OwnWrites]);
        assert_eq!(rep.forbidden(Level::ReadCommitted).len(), 1);
    }

    #[test]
    fn checker_finds_garbage_duplicates_and_incompatible_orders() {
        let h = history(vec![ok(vec![r(0, &[99])])], &[(0, &[])]);
        expect(&h, &[Kind::GarbageRead, Kind::IncompatibleOrder]);
        let h = history(vec![ok(vec![a(0, 1)])], &[(0, &[1, 1])]);
        expect(&h, &[Kind::DuplicateAppend]);
        let h = history(
            vec![ok(vec![a(0, 1)]), ok(vec![a(0, 2)]), ok(vec![r(0, &[2])])],
            &[(0, &[1, 2])],
        );
        expect(&h, &[Kind::IncompatibleOrder]);
    }
}
