//! Crash recovery: redo from each file's checkpoint cut, undo transactions that never
//! ended, then checkpoint (behind a CHECKPOINT record holding the next transaction
//! id) so the log can start afresh.

use super::record::{
    self, ChangeRec, KIND_ABORT, KIND_BINLOG, KIND_CHANGE, KIND_CHECKPOINT, KIND_CLEAN,
    KIND_COMMIT, KIND_COMMIT_BINLOG,
};
use super::{checkpoint_file, table_files, Shared};
use crate::api::Result;
use crate::binlog::BinlogRecovery;
use crate::btree::TableFile;
use crate::error::StorageError;
use crate::store::Modify;
use basalt_common::{EngineKind, TableDef};
use std::collections::{HashMap, HashSet};

/// What recovery found.
pub(super) struct Recovered {
    /// The first transaction id to hand out (above every id the log and files saw).
    pub first_trx: u64,
    /// The previous run ended with a clean shutdown that finished purge (its last
    /// record is CLEAN): no delete-marked garbage of earlier transactions is left.
    pub clean: bool,
}

/// Opens the table files of `tables`, replays the log from `from`, and says what it
/// found.
pub(super) fn recover(
    shared: &Shared,
    tables: &[TableDef],
    from: u64,
    binlog: Option<&BinlogRecovery>,
) -> Result<Recovered> {
    open_files(shared, tables, from)?;
    let scan = first_pass(shared, from)?;
    // The binlog files get what they lack before the log that holds it is released.
    match binlog {
        Some(hook) => hook(&scan.binlog)?,
        None if !scan.binlog.is_empty() => {
            return Err(StorageError::Invalid(
                "the log holds binary log events but no binary log was configured".into(),
            ))
        }
        None => {}
    }
    let losers = redo(shared, from, &scan.ended)?;
    let undone = losers.len();
    undo(shared, losers)?;
    let first_trx = scan.max_txn.saturating_add(1).max(scan.next_id).max(1);
    // The log is about to be cut at this point, and with it every record that told
    // which ids were used: start the retained log with the next id, as a checkpoint
    // does, or a crash before the next checkpoint would hand out ids again that rows
    // on disk carry (their changes would look uncommitted, the rows invisible).
    let start = shared.wal.end_lsn();
    let record = shared
        .wal
        .append(KIND_CHECKPOINT, &first_trx.to_le_bytes())?;
    shared.wal.wait_durable(record)?;
    let files: Vec<TableFile> = shared.files.read().values().cloned().collect();
    for f in &files {
        // Redo and undo may have grown the file (the old image stays until the new one
        // is durable): give a free tail back before serving.
        let mut moved = checkpoint_file(shared, f)?;
        for _ in 0..super::COMPACT_PASSES {
            if moved == 0 {
                break;
            }
            moved = checkpoint_file(shared, f)?;
        }
    }
    shared.wal.checkpoint_done(start)?;
    if scan.records > 0 {
        tracing::info!(
            records = scan.records,
            loser_changes = undone,
            "recovered from the log"
        );
    }
    Ok(Recovered {
        first_trx,
        clean: scan.last_kind == Some(KIND_CLEAN),
    })
}

/// Opens every durable table's file for a replay of the log from `from`; removes
/// files of tables the catalog does not know (a CREATE TABLE that crashed before the
/// catalog was written, or a DROP whose file removal did not happen) and trees of
/// indexes it does not know. A file that cannot be opened at an image the log covers
/// leaves its table unavailable (every access fails with the error), never empty or
/// rolled back.
fn open_files(shared: &Shared, tables: &[TableDef], from: u64) -> Result<()> {
    let wanted: HashMap<u64, &TableDef> = tables
        .iter()
        .filter(|t| t.engine == EngineKind::Basalt)
        .map(|t| (t.id, t))
        .collect();
    for (id, path) in table_files(&*shared.fs, &shared.tables_dir)? {
        if !wanted.contains_key(&id) {
            tracing::info!(path = %path.display(), "removing the file of a dropped table");
            shared.fs.remove(&path)?;
        }
    }
    for (id, def) in wanted {
        let path = shared.path(id);
        let opened = if shared.fs.exists(&path) {
            TableFile::open_at(&shared.pool, &*shared.fs, &path, from)
        } else {
            Err(StorageError::Corrupt {
                file: path.display().to_string(),
                page: 0,
                detail: format!("data file of table {} is missing", def.qualified_name()),
            })
        };
        let file = match opened {
            Ok(f) => f,
            Err(e) => {
                // One damaged table must not keep the others from serving: it stays
                // in the catalog and answers every access with this error.
                tracing::error!(
                    table = %def.qualified_name(),
                    error = %e,
                    "table unavailable: its data file is damaged and every access to it fails \
                     with error 1877. Other tables are served. Restore the table from a backup: \
                     DROP TABLE, then re-create it and reload its rows (a copy of the data \
                     directory taken now keeps the damaged file for analysis)"
                );
                shared.broken.lock().insert(id, broken_error(&path, e));
                continue;
            }
        };
        let known: HashSet<u32> = def.indexes.iter().map(|i| i.id).collect();
        for tree in file.tree_ids() {
            if !known.contains(&tree) {
                file.drop_tree(tree)?;
            }
        }
        for ix in &def.indexes {
            if file.tree(ix.id).is_none() {
                file.create_tree(ix.id)?;
            }
        }
        shared.files.write().insert(id, file);
    }
    Ok(())
}

struct Scan {
    ended: HashSet<u64>,
    max_txn: u64,
    next_id: u64,
    records: u64,
    last_kind: Option<u8>,
    /// Binlog groups of committed transactions, in log order.
    binlog: Vec<(u64, Vec<u8>)>,
}

/// Which transactions ended (COMMIT or ABORT), and the highest ids seen.
fn first_pass(shared: &Shared, from: u64) -> Result<Scan> {
    let mut scan = Scan {
        ended: HashSet::new(),
        max_txn: 0,
        next_id: 0,
        records: 0,
        last_kind: None,
        binlog: Vec::new(),
    };
    for rec in shared.wal.read_from(from) {
        let rec = rec?;
        scan.records += 1;
        scan.last_kind = Some(rec.kind);
        match rec.kind {
            KIND_COMMIT | KIND_ABORT => {
                let txn = record::decode_u64(&rec.payload).ok_or_else(|| bad(rec.lsn))?;
                scan.ended.insert(txn);
                scan.max_txn = scan.max_txn.max(txn);
            }
            KIND_COMMIT_BINLOG => {
                let id = rec.payload.get(..8).and_then(record::decode_u64);
                let txn = id.ok_or_else(|| bad(rec.lsn))?;
                scan.ended.insert(txn);
                scan.max_txn = scan.max_txn.max(txn);
                scan.binlog.push((rec.end_lsn, rec.payload[8..].to_vec()));
            }
            KIND_BINLOG => {
                scan.binlog.push((rec.end_lsn, rec.payload));
            }
            KIND_CHECKPOINT => {
                let next = record::decode_u64(&rec.payload).ok_or_else(|| bad(rec.lsn))?;
                scan.next_id = scan.next_id.max(next);
            }
            KIND_CHANGE => {
                let c = record::decode_change(&rec.payload).ok_or_else(|| bad(rec.lsn))?;
                scan.max_txn = scan.max_txn.max(c.txn);
            }
            _ => {}
        }
    }
    Ok(scan)
}

/// The error a broken table answers with: always naming file and page.
fn broken_error(path: &std::path::Path, e: StorageError) -> StorageError {
    match e {
        StorageError::Corrupt { .. } => e,
        other => StorageError::Corrupt {
            file: path.display().to_string(),
            page: 0,
            detail: other.to_string(),
        },
    }
}

fn bad(lsn: u64) -> StorageError {
    StorageError::Corrupt {
        file: "log".into(),
        page: lsn,
        detail: "undecodable log record".into(),
    }
}

/// Redoes changes at or after their file's cut; returns the changes of transactions
/// that never ended, in log order.
fn redo(shared: &Shared, from: u64, ended: &HashSet<u64>) -> Result<Vec<ChangeRec>> {
    let mut losers = Vec::new();
    for rec in shared.wal.read_from(from) {
        let rec = rec?;
        if rec.kind != KIND_CHANGE {
            continue;
        }
        let c = record::decode_change(&rec.payload).ok_or_else(|| bad(rec.lsn))?;
        let file = shared.files.read().get(&c.table).cloned();
        if let Some(file) = file {
            if rec.lsn >= file.checkpoint_lsn() {
                apply(&file, c.tree, &c.key, c.new.clone())?;
            }
        }
        if !ended.contains(&c.txn) {
            losers.push(c);
        }
    }
    Ok(losers)
}

/// Restores the before-images of unfinished transactions, newest change first.
fn undo(shared: &Shared, losers: Vec<ChangeRec>) -> Result<()> {
    for c in losers.into_iter().rev() {
        let file = shared.files.read().get(&c.table).cloned();
        if let Some(file) = file {
            apply(&file, c.tree, &c.key, c.old)?;
        }
    }
    Ok(())
}

/// Sets `key` of `tree` to `value` (absent = delete), unlogged.
fn apply(file: &TableFile, tree: u32, key: &[u8], value: Option<Vec<u8>>) -> Result<()> {
    let Some(t) = file.tree(tree) else {
        return Ok(());
    };
    let mut value = Some(value);
    t.modify(
        key,
        |_| match value.take().flatten() {
            Some(v) => Modify::Put(v),
            None => Modify::Delete,
        },
        |_| Ok(()),
    )?;
    Ok(())
}
