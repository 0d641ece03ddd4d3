//! The durable [`Store`]: a table file's B+trees, every change logged to the WAL.
//!
//! `modify` logs the change (with both images) from inside the tree's `modify`, after
//! every fallible step and before the change is applied, while the file's checkpoint
//! gate is held: so a checkpoint cut at LSN C contains exactly the changes whose
//! records start before C. Changes made outside a transaction (`txn_id == 0`: purge
//! of delete-marked entries, index builds) are not logged; index builds are followed
//! by a checkpoint of the file, and a purge lost in a crash is redone by the sweep at the
//! next start (`table::sweep`).

use super::record::{change_header, image_prefix, KIND_CHANGE};
use super::Shared;
use crate::api::Result;
use crate::btree::{Change, TableFile, Tree};
use crate::error::StorageError;
use crate::store::{Entry, EntrySource, Modify, Scratch, Store, TreeId, WriteCtx};
use parking_lot::RwLock;
use std::collections::HashMap;
use std::ops::Bound;
use std::sync::Arc;

pub struct DurableStore {
    table_id: u64,
    pub(crate) file: TableFile,
    trees: RwLock<HashMap<TreeId, Tree>>,
    shared: Arc<Shared>,
}

impl DurableStore {
    pub fn new(table_id: u64, file: TableFile, shared: Arc<Shared>) -> Self {
        let trees = file
            .tree_ids()
            .into_iter()
            .filter_map(|id| file.tree(id).map(|t| (id, t)))
            .collect();
        DurableStore {
            table_id,
            file,
            trees: RwLock::new(trees),
            shared,
        }
    }

    fn tree(&self, id: TreeId) -> Result<Tree> {
        self.trees.read().get(&id).cloned().ok_or_else(|| {
            StorageError::Invalid(format!("table {} has no tree {id}", self.table_id))
        })
    }

    /// Appends the CHANGE record for `c` made by transaction `txn`.
    fn log_change(&self, ctx_txn: u64, first: bool, c: &Change<'_>) -> Result<()> {
        if first {
            self.shared.txn_started(ctx_txn);
        }
        let header = change_header(ctx_txn, self.table_id, c.tree, c.key.len());
        let old_prefix = image_prefix(c.old);
        let new_prefix = image_prefix(c.new);
        let parts: [&[u8]; 6] = [
            &header,
            c.key,
            &old_prefix,
            c.old.unwrap_or_default(),
            &new_prefix,
            c.new.unwrap_or_default(),
        ];
        self.shared
            .wal
            .append_parts(KIND_CHANGE, &parts)
            .map(|_| ())
    }
}

impl Store for DurableStore {
    fn create_tree(&self, tree: TreeId) -> Result<()> {
        let t = self.file.create_tree(tree)?;
        self.trees.write().insert(tree, t);
        Ok(())
    }

    fn drop_tree(&self, tree: TreeId) -> Result<()> {
        if self.trees.write().remove(&tree).is_some() {
            self.file.drop_tree(tree)?;
        }
        Ok(())
    }

    fn clear(&self) -> Result<()> {
        let trees: Vec<Tree> = self.trees.read().values().cloned().collect();
        for t in trees {
            t.clear()?;
        }
        Ok(())
    }

    fn get(&self, tree: TreeId, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.tree(tree)?.get(key)
    }

    fn modify(
        &self,
        ctx: &mut WriteCtx,
        tree: TreeId,
        key: &[u8],
        f: &mut dyn FnMut(Option<&[u8]>) -> Modify,
    ) -> Result<()> {
        let t = self.tree(tree)?;
        if ctx.txn_id == 0 {
            t.modify(key, f, |_| Ok(()))?;
            return Ok(());
        }
        let txn = ctx.txn_id;
        let first = !ctx.logged;
        let mut logged = false;
        let r = t.modify(key, f, |c| {
            self.log_change(txn, first, c)?;
            logged = true;
            Ok(())
        });
        if logged {
            ctx.logged = true;
        }
        r.map(|_| ())
    }

    fn scan(
        &self,
        tree: TreeId,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        reverse: bool,
        max: usize,
        out: &mut Vec<Entry>,
    ) -> Result<()> {
        self.tree(tree)?.scan(lower, upper, reverse, max, out)
    }

    fn sample_keys(&self, tree: TreeId, n: usize) -> Result<Vec<Vec<u8>>> {
        self.tree(tree)?.sample_keys(n)
    }

    fn bulk_load(&self, tree: TreeId, source: &mut dyn EntrySource) -> Result<()> {
        self.tree(tree)?.bulk_load(source).map(|_| ())
    }

    fn scratch(&self) -> Option<Scratch> {
        Some(Scratch {
            fs: self.shared.fs.clone(),
            dir: self.shared.sort_dir.clone(),
        })
    }

    fn size_bytes(&self) -> u64 {
        self.file.size_bytes()
    }

    fn verify(&self) -> Result<()> {
        self.file.verify()?;
        let trees: Vec<Tree> = self.trees.read().values().cloned().collect();
        for t in trees {
            t.check()?;
        }
        Ok(())
    }
}

/// The store of a table whose file failed its checks at start-up: every access fails
/// with the error that names the file and page, instead of serving wrong rows.
pub struct BrokenStore {
    file: String,
    page: u64,
    detail: String,
}

impl BrokenStore {
    pub fn new(e: &StorageError) -> Self {
        match e {
            StorageError::Corrupt { file, page, detail } => BrokenStore {
                file: file.clone(),
                page: *page,
                detail: detail.clone(),
            },
            other => BrokenStore {
                file: String::new(),
                page: 0,
                detail: other.to_string(),
            },
        }
    }

    fn err<T>(&self) -> Result<T> {
        Err(StorageError::Corrupt {
            file: self.file.clone(),
            page: self.page,
            detail: self.detail.clone(),
        })
    }
}

impl Store for BrokenStore {
    fn create_tree(&self, _tree: TreeId) -> Result<()> {
        self.err()
    }
    fn drop_tree(&self, _tree: TreeId) -> Result<()> {
        self.err()
    }
    fn clear(&self) -> Result<()> {
        self.err()
    }
    fn get(&self, _tree: TreeId, _key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.err()
    }
    fn modify(
        &self,
        _ctx: &mut WriteCtx,
        _tree: TreeId,
        _key: &[u8],
        _f: &mut dyn FnMut(Option<&[u8]>) -> Modify,
    ) -> Result<()> {
        self.err()
    }
    fn scan(
        &self,
        _tree: TreeId,
        _lower: Bound<&[u8]>,
        _upper: Bound<&[u8]>,
        _reverse: bool,
        _max: usize,
        _out: &mut Vec<Entry>,
    ) -> Result<()> {
        self.err()
    }
    fn sample_keys(&self, _tree: TreeId, _n: usize) -> Result<Vec<Vec<u8>>> {
        self.err()
    }
    fn size_bytes(&self) -> u64 {
        0
    }

    fn verify(&self) -> Result<()> {
        self.err()
    }
}
