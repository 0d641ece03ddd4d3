//! Hash join: a level whose table no index serves, joined to earlier tables by
//! equalities that hash exactly (`plan::hash_keys`), reads its table once.
//!
//! Build: on the first probe, every row of the table that passes the level's
//! conditions on its own table is kept, in scan order, and indexed by its
//! encoded key; a row whose key is NULL can never match and is dropped, a row
//! whose key does not encode is kept aside and offered to every probe. Each
//! kept row is charged to the statement's memory budget; when the table would
//! pass `max_session_mem_used` the build gives back what it charged and the
//! level runs as a nested loop instead (which needs no memory per row), so a
//! join that ran before still runs. A built table is released when the run of
//! the join ends. Building checks for KILL every 256
//! rows like a scan.
//!
//! Probe: the outer row's key selects the bucket; rows come out in scan order,
//! so a probe yields the rows a nested loop would have matched, in the same
//! order, and the caller still evaluates the level's whole filter on each.

use super::mem::{row_bytes, HASH_ENTRY, VEC};
use super::scan::{Rows, R};
use super::Exec;
use crate::expr::EvalCtx;
use crate::plan::hash_keys::{encode, Encoded, HashJoin};
use crate::plan::{Level, TableRef};
use basalt_common::{MySqlError, Value};
use basalt_storage::Fetched;
use std::collections::HashMap;

pub(super) struct HashTable {
    rows: Vec<Fetched>,
    buckets: HashMap<Vec<u8>, Vec<u32>, foldhash::fast::RandomState>,
    /// Rows whose key did not encode: candidates for every probe.
    wild: Vec<u32>,
    charged: usize,
}

fn spec(l: &Level) -> R<&HashJoin> {
    l.hash
        .as_ref()
        .ok_or_else(|| MySqlError::internal("hash join without keys"))
}

fn key_of(h: &HashJoin, inner: bool, row: &[Value], ctx: &mut EvalCtx) -> R<Encoded> {
    let mut vals = Vec::with_capacity(h.keys.len());
    for k in &h.keys {
        let e = if inner { &k.inner } else { &k.outer };
        vals.push(e.eval(row, ctx)?);
    }
    Ok(encode(&h.keys, &vals))
}

impl HashTable {
    /// Reads `rows` (the level's whole table) into a hash table; `row` is the
    /// joined row, whose slot of the table is overwritten. `None` when the
    /// table does not fit in the memory budget (nothing stays charged).
    pub(super) fn build(
        l: &Level,
        t: &TableRef,
        mut rows: Rows,
        row: &mut [Value],
        ex: &mut Exec,
    ) -> R<Option<HashTable>> {
        let h = spec(l)?;
        let mut out = HashTable {
            rows: Vec::new(),
            buckets: HashMap::default(),
            wild: Vec::new(),
            charged: 0,
        };
        let mut n = 0u32;
        while let Some(f) = rows.next(ex)? {
            n = n.wrapping_add(1);
            if n.is_multiple_of(256) {
                ex.check_interrupt()?;
            }
            row[t.offset..t.offset + t.width()].clone_from_slice(&f.row);
            if let Some(bf) = &h.build_filter {
                if bf.eval_bool(row, ex.ctx)? != Some(true) {
                    continue;
                }
            }
            let key = key_of(h, true, row, ex.ctx)?;
            let bytes = row_bytes(&f.row) + f.handle.0.capacity() + VEC;
            let index = out.rows.len() as u32;
            let charge = match key {
                Encoded::Null => continue,
                Encoded::Key(k) => {
                    let c = bytes + k.capacity() + HASH_ENTRY + 4;
                    out.buckets.entry(k).or_default().push(index);
                    c
                }
                Encoded::Unhashable => {
                    out.wild.push(index);
                    bytes + 4
                }
            };
            out.charged += charge;
            if ex.ctx.mem.charge(charge).is_err() {
                // Only the budget fails a charge; it keeps the bytes charged.
                ex.ctx.mem.release(out.charged);
                rows.note_reads(&t.def, ex);
                return Ok(None);
            }
            out.rows.push(f);
        }
        rows.note_reads(&t.def, ex);
        Ok(Some(out))
    }

    /// The rows that may match the outer row `row`, in scan order.
    pub(super) fn probe<'a>(
        &'a self,
        l: &Level,
        row: &[Value],
        ex: &mut Exec,
    ) -> R<impl Iterator<Item = &'a Fetched> + 'a> {
        let h = spec(l)?;
        let picked: Vec<u32> = match key_of(h, false, row, ex.ctx)? {
            Encoded::Null => Vec::new(),
            Encoded::Unhashable => (0..self.rows.len() as u32).collect(),
            Encoded::Key(k) => {
                let hit = self.buckets.get(&k).map_or(&[][..], |v| v.as_slice());
                if self.wild.is_empty() {
                    hit.to_vec()
                } else {
                    let mut all: Vec<u32> = hit.iter().chain(&self.wild).copied().collect();
                    all.sort_unstable();
                    all
                }
            }
        };
        Ok(picked.into_iter().map(move |i| &self.rows[i as usize]))
    }

    /// Bytes charged to the memory budget.
    pub(super) fn charged(&self) -> usize {
        self.charged
    }
}
