//! `mysql.gtid_slave_pos`: the replica's applied GTID position, written in the
//! same transaction as the rows it applies, so the two commit (and survive a
//! crash) together.
//!
//! The table has MariaDB's layout (`domain_id, sub_id, server_id, seq_no`, primary
//! key `(domain_id, sub_id)`); tools read it. As in MariaDB, each applied
//! transaction inserts a row with a new, higher `sub_id`, and the position of a
//! domain is its row with the highest `sub_id`. Basalt deletes the domain's
//! previous row in the same transaction, so the table keeps one row per domain.

use crate::engine::Engine;
use basalt_common::{MySqlError, Row, Value};
use basalt_replication::gtid::{Gtid, GtidList};
use basalt_storage::{KeyRange, LockMode, ScanRequest, Storage, Table, Txn, WaitPolicy};
use std::collections::BTreeMap;
use std::sync::Arc;

pub const DB: &str = "mysql";
pub const TABLE: &str = "gtid_slave_pos";

const CREATE: &str = "CREATE TABLE IF NOT EXISTS mysql.gtid_slave_pos (\
    domain_id int(10) unsigned NOT NULL, \
    sub_id bigint(20) unsigned NOT NULL, \
    server_id int(10) unsigned NOT NULL, \
    seq_no bigint(20) unsigned NOT NULL, \
    PRIMARY KEY (domain_id, sub_id)\
    ) ENGINE=InnoDB DEFAULT CHARSET=latin1 COMMENT='Replication slave GTID position'";

/// The applied position as the table holds it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SlavePos {
    /// Each domain's row: (sub_id, gtid).
    rows: BTreeMap<u32, (u64, Gtid)>,
    next_sub_id: u64,
}

impl SlavePos {
    /// `@@gtid_slave_pos`.
    pub fn list(&self) -> GtidList {
        let mut l = GtidList::default();
        for (_, g) in self.rows.values() {
            l.record(*g);
        }
        l
    }

    pub fn text(&self) -> String {
        basalt_replication::gtid::format_list(&self.list().positions())
    }

    /// The row a new GTID of `gtid`'s domain replaces, and the new row's sub_id.
    pub fn reserve(&mut self, gtid: Gtid) -> (Option<u64>, u64) {
        let sub = self.next_sub_id.max(1);
        self.next_sub_id = sub + 1;
        (self.rows.get(&gtid.domain).map(|(s, _)| *s), sub)
    }

    /// Records a committed GTID (after [`record`] committed with it).
    pub fn committed(&mut self, gtid: Gtid, sub_id: u64) {
        self.rows.insert(gtid.domain, (sub_id, gtid));
    }
}

/// Creates `mysql.gtid_slave_pos` when missing (not binary-logged).
pub fn ensure_table(engine: &Arc<Engine>) -> Result<(), MySqlError> {
    if engine.storage().table(DB, TABLE).is_some() {
        return Ok(());
    }
    let mut s = engine.new_session(0, "system user", "");
    for q in [
        "SET SESSION sql_log_bin = 0",
        "CREATE DATABASE IF NOT EXISTS mysql",
        CREATE,
    ] {
        for r in s.execute(q) {
            r?;
        }
    }
    s.close();
    Ok(())
}

fn table(storage: &Storage) -> Result<Arc<dyn Table>, MySqlError> {
    storage.table(DB, TABLE).ok_or_else(|| {
        MySqlError::new(1146, "42S02", format!("Table '{DB}.{TABLE}' doesn't exist"))
    })
}

fn uint(v: &Value) -> u64 {
    match v {
        Value::UInt(u) => *u,
        Value::Int(i) => *i as u64,
        _ => 0,
    }
}

/// Reads the table (empty when it does not exist).
pub fn load(storage: &Arc<Storage>) -> Result<SlavePos, MySqlError> {
    let mut pos = SlavePos::default();
    let Some(t) = storage.table(DB, TABLE) else {
        return Ok(pos);
    };
    let mut txn = storage.begin(Default::default());
    for row in rows(&*t, &mut txn, LockMode::Consistent)? {
        let (domain, sub) = (uint(&row[0]) as u32, uint(&row[1]));
        let gtid = Gtid {
            domain,
            server: uint(&row[2]) as u32,
            seq: uint(&row[3]),
        };
        pos.next_sub_id = pos.next_sub_id.max(sub + 1);
        if pos.rows.get(&domain).is_none_or(|(s, _)| *s < sub) {
            pos.rows.insert(domain, (sub, gtid));
        }
    }
    txn.rollback().map_err(MySqlError::from)?;
    Ok(pos)
}

fn rows(t: &dyn Table, txn: &mut Txn, lock: LockMode) -> Result<Vec<Row>, MySqlError> {
    let def = t.def();
    let req = ScanRequest {
        index_id: def.indexes[0].id,
        range: KeyRange::all(),
        reverse: false,
        columns: (0..def.columns.len()).collect(),
        lock,
        wait: WaitPolicy::Wait,
    };
    let mut cur = t.scan(txn, req).map_err(MySqlError::from)?;
    let mut out = Vec::new();
    while let Some(f) = cur.next(txn).map_err(MySqlError::from)? {
        out.push(f.row);
    }
    Ok(out)
}

/// In `txn`: inserts `gtid` as row `sub_id` and deletes the domain's row `old`.
pub fn record(
    storage: &Storage,
    txn: &mut Txn,
    gtid: Gtid,
    old: Option<u64>,
    sub_id: u64,
) -> Result<(), MySqlError> {
    let t = table(storage)?;
    let row = vec![
        Value::UInt(gtid.domain as u64),
        Value::UInt(sub_id),
        Value::UInt(gtid.server as u64),
        Value::UInt(gtid.seq),
    ];
    t.insert(txn, row).map_err(MySqlError::from)?;
    if let Some(old) = old {
        delete_row(&*t, txn, gtid.domain, old)?;
    }
    Ok(())
}

fn delete_row(t: &dyn Table, txn: &mut Txn, domain: u32, sub: u64) -> Result<(), MySqlError> {
    let key = [Value::UInt(domain as u64), Value::UInt(sub)];
    if let Some(f) = t
        .get(txn, &key, LockMode::Exclusive, WaitPolicy::Wait)
        .map_err(MySqlError::from)?
    {
        t.delete(txn, &f.handle, &f.row).map_err(MySqlError::from)?;
    }
    Ok(())
}

/// `SET GLOBAL gtid_slave_pos = list` (and RESET SLAVE's clearing it when given an
/// empty list): replaces every row, in one transaction.
pub fn replace(storage: &Arc<Storage>, list: &GtidList) -> Result<SlavePos, MySqlError> {
    let t = table(storage)?;
    let mut txn = storage.begin(Default::default());
    for row in rows(&*t, &mut txn, LockMode::Exclusive)? {
        delete_row(&*t, &mut txn, uint(&row[0]) as u32, uint(&row[1]))?;
    }
    let mut pos = SlavePos::default();
    for g in list.positions() {
        let (_, sub) = pos.reserve(g);
        record(storage, &mut txn, g, None, sub)?;
        pos.committed(g, sub);
    }
    txn.commit().map_err(MySqlError::from)?;
    Ok(pos)
}
