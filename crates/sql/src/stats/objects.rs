//! Per-table and per-index statistics (information_schema TABLE_STATISTICS and
//! INDEX_STATISTICS, MariaDB's `userstat` tables), always collected.
//!
//! A statement notes its reads and changes in a small list of its own (no lock);
//! when it ends, the list is merged into the session's map under the session's
//! own mutex, which only a reader of the tables also takes. Readers sum every
//! live session's map and the totals of ended sessions, as for the status
//! counters. Names are kept with the counts, so a dropped table's row stays
//! until FLUSH TABLE_STATISTICS (MariaDB drops it with the table).

use basalt_common::TableDef;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

/// No index: a table's changes (counted per table, not per index).
const NO_INDEX: u32 = u32::MAX;

/// Where a pending entry's names come from.
enum Names {
    Def(Arc<TableDef>),
    Owned(String, String),
}

struct Pending {
    table: u64,
    index: u32,
    names: Names,
    read: u64,
    changed: u64,
    changed_x: u64,
    /// Rows inserted, updated, deleted (`changed` is their sum).
    kinds: [u64; 3],
}

/// One statement's notes (the session's thread only).
#[derive(Default)]
pub struct StatementNotes {
    list: Vec<Pending>,
}

impl StatementNotes {
    fn entry(&mut self, table: u64, index: u32, names: impl FnOnce() -> Names) -> &mut Pending {
        let at = match self
            .list
            .iter()
            .position(|p| p.table == table && p.index == index)
        {
            Some(i) => i,
            None => {
                self.list.push(Pending {
                    table,
                    index,
                    names: names(),
                    read: 0,
                    changed: 0,
                    changed_x: 0,
                    kinds: [0; 3],
                });
                self.list.len() - 1
            }
        };
        &mut self.list[at]
    }

    /// `rows` read through index `index_id` of `def`'s table.
    pub fn read(&mut self, def: &Arc<TableDef>, index_id: u32, rows: u64) {
        if rows == 0 {
            return;
        }
        let e = self.entry(def.id, index_id, || Names::Def(def.clone()));
        e.read += rows;
    }

    /// One row of `def`'s table written (`kind` 0), updated (1) or deleted (2).
    pub fn changed(&mut self, def: &TableDef, kind: usize) {
        let e = self.entry(def.id, NO_INDEX, || {
            Names::Owned(def.schema.clone(), def.name.clone())
        });
        e.changed += 1;
        e.kinds[kind] += 1;
        e.changed_x += def.indexes.len() as u64;
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct Counts {
    pub schema: String,
    pub table: String,
    /// Empty for the table's own entry (its changes).
    pub index: String,
    pub read: u64,
    pub changed: u64,
    pub changed_x: u64,
    /// Rows inserted, updated, deleted.
    pub kinds: [u64; 3],
}

type Map = HashMap<(u64, u32), Counts, foldhash::fast::RandomState>;

/// A session's merged notes.
#[derive(Default)]
pub struct SessionObjects {
    map: Mutex<Map>,
}

impl SessionObjects {
    /// Merges a statement's notes (and empties them).
    pub fn merge(&self, notes: &mut StatementNotes) {
        let mut map = self.map.lock();
        for p in &notes.list {
            let c = match map.get_mut(&(p.table, p.index)) {
                Some(c) => c,
                None => map.entry((p.table, p.index)).or_insert_with(|| names_of(p)),
            };
            c.read += p.read;
            c.changed += p.changed;
            c.changed_x += p.changed_x;
            for (a, b) in c.kinds.iter_mut().zip(p.kinds) {
                *a += b;
            }
        }
        drop(map);
        notes.list.clear();
    }

    fn add_into(&self, out: &mut Map) {
        for (k, c) in self.map.lock().iter() {
            add(out, *k, c);
        }
    }
}

fn names_of(p: &Pending) -> Counts {
    let (schema, table, index) = match &p.names {
        Names::Def(d) => {
            let index = d
                .index_by_id(p.index)
                .filter(|i| !i.columns.is_empty())
                .map(|i| i.name.clone())
                .unwrap_or_default();
            (d.schema.clone(), d.name.clone(), index)
        }
        Names::Owned(s, t) => (s.clone(), t.clone(), String::new()),
    };
    Counts {
        schema,
        table,
        index,
        ..Default::default()
    }
}

fn add(out: &mut Map, k: (u64, u32), c: &Counts) {
    let e = out.entry(k).or_insert_with(|| Counts {
        read: 0,
        changed: 0,
        changed_x: 0,
        kinds: [0; 3],
        ..c.clone()
    });
    e.read += c.read;
    e.changed += c.changed;
    e.changed_x += c.changed_x;
    for (a, b) in e.kinds.iter_mut().zip(c.kinds) {
        *a += b;
    }
}

/// Every session's objects and the ended sessions' totals.
#[derive(Default)]
pub struct ObjectHub {
    inner: Mutex<Hub>,
}

#[derive(Default)]
struct Hub {
    live: Vec<Option<Arc<SessionObjects>>>,
    free: Vec<usize>,
    ended: Map,
}

impl ObjectHub {
    pub(super) fn join(&self) -> (usize, Arc<SessionObjects>) {
        let s = Arc::new(SessionObjects::default());
        let mut h = self.inner.lock();
        let i = match h.free.pop() {
            Some(i) => {
                h.live[i] = Some(s.clone());
                i
            }
            None => {
                h.live.push(Some(s.clone()));
                h.live.len() - 1
            }
        };
        (i, s)
    }

    pub(super) fn leave(&self, index: usize) {
        let mut h = self.inner.lock();
        if let Some(s) = h.live[index].take() {
            let mut ended = std::mem::take(&mut h.ended);
            s.add_into(&mut ended);
            h.ended = ended;
        }
        h.free.push(index);
    }

    /// Every (table, index) with counts: index entries have `index` set, and
    /// a table's own entry (its changes) has it empty.
    pub fn snapshot(&self) -> Vec<Counts> {
        let h = self.inner.lock();
        let mut all = h.ended.clone();
        for s in h.live.iter().flatten() {
            s.add_into(&mut all);
        }
        all.into_values().collect()
    }

    /// FLUSH TABLE_STATISTICS / INDEX_STATISTICS: every count starts again.
    pub fn flush(&self) {
        let mut h = self.inner.lock();
        h.ended.clear();
        for s in h.live.iter().flatten() {
            s.map.lock().clear();
        }
    }
}

/// TABLE_STATISTICS rows: (schema, table, rows read, changed, changed × indexes).
pub fn table_rows(all: &[Counts]) -> Vec<(String, String, u64, u64, u64)> {
    let mut by: std::collections::BTreeMap<(String, String), (u64, u64, u64)> = Default::default();
    for c in all {
        let e = by.entry((c.schema.clone(), c.table.clone())).or_default();
        e.0 += c.read;
        e.1 += c.changed;
        e.2 += c.changed_x;
    }
    by.into_iter()
        .map(|((s, t), (r, c, x))| (s, t, r, c, x))
        .collect()
}

/// INDEX_STATISTICS rows: (schema, table, index, rows read).
pub fn index_rows(all: &[Counts]) -> Vec<(String, String, String, u64)> {
    let mut rows: Vec<_> = all
        .iter()
        .filter(|c| !c.index.is_empty() && c.read > 0)
        .map(|c| (c.schema.clone(), c.table.clone(), c.index.clone(), c.read))
        .collect();
    rows.sort();
    rows
}
