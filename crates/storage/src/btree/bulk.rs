//! Bottom-up bulk load of an empty tree from entries in ascending key order.
//!
//! Leaves are filled left to right up to [`FILL`] bytes (a sixteenth of each node is
//! left free, as InnoDB's bulk load does, so the first inserts into a loaded tree do
//! not split every leaf they touch). When the next entry does not fit, the leaf is
//! written out with its right link pointing to the leaf that will follow, and the
//! shortest prefix separating the two goes up into the open node one level above,
//! which closes the same way when it is full. So every level has one open node, the
//! rightmost one, kept in memory; the topmost open node is the root page, whose
//! number never changes: when it fills, its contents move to a new page and the root
//! becomes the parent of that page (the tree gets one level taller).
//!
//! # Checkpoints and crashes
//! Nothing is logged: the caller checkpoints the file before anything names the tree,
//! and a tree that nothing names is dropped at the next start. The load holds the
//! file's checkpoint gate shared for a chunk of entries at a time, and before each
//! release writes every open node to its page, so a checkpoint cut between chunks sees
//! a valid tree (the rightmost nodes partly filled) that reaches every page the load
//! has allocated: dropping it after a crash frees them all.
//!
//! # Invariants kept
//! The loaded tree is one `modify` calls could have built: keys strictly increase
//! (checked; an out-of-order entry fails the load), separators route as in a split,
//! the leaves form the doubly linked list, all leaves are at level 0, and values too
//! large for a leaf cell go to overflow chains. A failed load gives every page back
//! and leaves the root an empty leaf.

use super::Tree;
use crate::api::Result;
use crate::error::StorageError;
use crate::page::node::{
    cell_key, fits_inline, inner_cell, leaf_cell, separator, LeafVal, NodeMut, SLOT, USABLE,
};
use crate::page::{PageNo, NO_PAGE};
use crate::store::EntrySource;

/// Bytes of cells and slots a loaded node is filled to.
pub const FILL: usize = USABLE - USABLE / 16;

/// Entries entered per hold of the checkpoint gate.
const CHUNK: usize = 16_384;

/// The open (rightmost) node of one level.
struct Open {
    lpn: PageNo,
    /// Whether the page has a frame already (written once).
    written: bool,
    /// Leaves: the left sibling. Inner nodes: the leftmost child.
    link: PageNo,
    /// The cells, back to back; `ends[i]` is where cell i ends.
    cells: Vec<u8>,
    ends: Vec<usize>,
}

impl Open {
    fn new(lpn: PageNo, written: bool, link: PageNo) -> Open {
        Open {
            lpn,
            written,
            link,
            cells: Vec::new(),
            ends: Vec::new(),
        }
    }

    fn used(&self) -> usize {
        self.cells.len() + SLOT * self.ends.len()
    }

    /// Whether `len` more bytes of cell fit; an empty node takes any cell.
    fn fits(&self, len: usize) -> bool {
        self.ends.is_empty() || self.used() + len + SLOT <= FILL
    }

    fn push(&mut self, cell: &[u8]) {
        self.cells.extend_from_slice(cell);
        self.ends.push(self.cells.len());
    }

    fn cell(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.cells[start..self.ends[i]]
    }

    fn last_key(&self) -> Option<&[u8]> {
        self.ends
            .len()
            .checked_sub(1)
            .map(|i| cell_key(self.cell(i)))
    }
}

/// The state of a load in progress.
struct Builder<'t> {
    tree: &'t Tree,
    /// Open nodes by level; the last one is the root page.
    levels: Vec<Open>,
    /// Every page the load allocated (nodes and overflow chains), for a failed load.
    owned: Vec<PageNo>,
    entries: u64,
    bytes: u64,
}

impl Tree {
    /// Fills this empty tree with `source`'s entries, which must come in strictly
    /// ascending key order; returns how many there were. Nothing is logged (see the
    /// module docs). No other operation may use the tree meanwhile (it is not yet
    /// named by any definition). On failure the tree is left empty.
    pub fn bulk_load(&self, source: &mut dyn EntrySource) -> Result<u64> {
        self.live()?;
        self.check_empty()?;
        let mut b = Builder {
            tree: self,
            levels: vec![Open::new(self.root(), true, NO_PAGE)],
            owned: Vec::new(),
            entries: 0,
            bytes: 0,
        };
        match b.run(source) {
            Ok(()) => {
                self.info.account(b.entries as i64, b.bytes as i64);
                Ok(b.entries)
            }
            Err(e) => {
                b.abort();
                Err(e)
            }
        }
    }

    fn check_empty(&self) -> Result<()> {
        let root = self.snapshot(self.root())?;
        let node = crate::page::node::Node::new(crate::page::PageView::of(&root));
        if node.is_leaf() && node.count() == 0 {
            return Ok(());
        }
        Err(StorageError::Invalid(format!(
            "bulk load into tree {} which is not empty",
            self.id()
        )))
    }

    /// Writes a node into page `lpn` (a new frame unless `written`); a leaf gets
    /// `right` as its right sibling.
    fn write_node(
        &self,
        lpn: PageNo,
        written: bool,
        level: u8,
        open: &Open,
        right: PageNo,
    ) -> Result<()> {
        let mut g = if written {
            self.pool().lock_page(&self.file, lpn)?.ok_or_else(|| {
                self.file
                    .corrupt(lpn as u64, "bulk-loaded node is a free page".into())
            })?
        } else {
            self.pool().new_page(&self.file, lpn)?
        };
        let mut nm = NodeMut::new(g.bytes_mut());
        let (left, right) = if level == 0 {
            (open.link, right)
        } else {
            (NO_PAGE, open.link)
        };
        nm.init(self.id(), level, left, right);
        for i in 0..open.ends.len() {
            assert!(
                nm.insert(i, open.cell(i)),
                "a loaded node is filled to FILL"
            );
        }
        Ok(())
    }
}

impl Builder<'_> {
    /// Enters the entries a chunk at a time, each chunk under the checkpoint gate
    /// and ending with every open node written.
    fn run(&mut self, source: &mut dyn EntrySource) -> Result<()> {
        loop {
            let _gate = self.tree.file.gate().enter();
            let mut done = true;
            for _ in 0..CHUNK {
                match source.next_entry()? {
                    Some((k, v)) => self.add(k, v)?,
                    None => break,
                }
                done = false;
            }
            self.publish()?;
            if done {
                return Ok(());
            }
        }
    }

    fn add(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        super::check_key(key)?;
        if value.len() > super::MAX_VALUE {
            return Err(StorageError::Invalid(format!(
                "value of {} bytes exceeds {}",
                value.len(),
                super::MAX_VALUE
            )));
        }
        if self.levels[0].last_key().is_some_and(|last| last >= key) {
            return Err(StorageError::Invalid(
                "bulk load entries out of order".into(),
            ));
        }
        let cell = if fits_inline(key.len(), value.len()) {
            leaf_cell(key, LeafVal::Inline(value))
        } else {
            let mut pages = Vec::new();
            let r = self.tree.write_chain(value, &mut pages);
            self.owned.extend_from_slice(&pages);
            leaf_cell(key, LeafVal::Overflow(r?))
        };
        if !self.levels[0].fits(cell.len()) {
            let next = self.tree.file.alloc_lpn();
            self.owned.push(next);
            let last = self.levels[0].last_key().expect("a full leaf has cells");
            let sep = separator(last, key).to_vec();
            let closed = self.close(0, next, sep)?;
            self.levels[0] = Open::new(next, false, closed);
        }
        self.levels[0].push(&cell);
        self.entries += 1;
        self.bytes += (key.len() + value.len()) as u64;
        Ok(())
    }

    /// Enters separator `sep` with the child `child` to its right at `level`.
    fn add_inner(&mut self, level: usize, sep: Vec<u8>, child: PageNo) -> Result<()> {
        let cell = inner_cell(&sep, child);
        if self.levels[level].fits(cell.len()) {
            self.levels[level].push(&cell);
            return Ok(());
        }
        let next = self.tree.file.alloc_lpn();
        self.owned.push(next);
        self.close(level, next, sep)?;
        self.levels[level] = Open::new(next, false, child);
        Ok(())
    }

    /// Writes out the full open node of `level`, whose right neighbour will be
    /// `next` with `sep` its lower bound, and enters `sep` one level up. Returns the
    /// page the closed node went to: its own, or a new one when it was the root.
    fn close(&mut self, level: usize, next: PageNo, sep: Vec<u8>) -> Result<PageNo> {
        let top = level + 1 == self.levels.len();
        let open = &self.levels[level];
        let (lpn, written) = if top {
            let lpn = self.tree.file.alloc_lpn();
            self.owned.push(lpn);
            (lpn, false)
        } else {
            (open.lpn, open.written)
        };
        self.tree
            .write_node(lpn, written, level as u8, open, next)?;
        if top {
            self.levels.push(Open::new(self.tree.root(), true, lpn));
        }
        self.add_inner(level + 1, sep, next)?;
        Ok(lpn)
    }

    /// Writes every open node to its page, so the root reaches every page so far.
    fn publish(&mut self) -> Result<()> {
        for (level, open) in self.levels.iter_mut().enumerate() {
            self.tree
                .write_node(open.lpn, open.written, level as u8, open, NO_PAGE)?;
            open.written = true;
        }
        Ok(())
    }

    /// Undoes a failed load: the root becomes an empty leaf and every page the
    /// load allocated is freed.
    fn abort(&mut self) {
        let _gate = self.tree.file.gate().enter();
        let root = self.tree.root();
        match self.tree.pool().lock_page(&self.tree.file, root) {
            Ok(Some(mut g)) => {
                NodeMut::new(g.bytes_mut()).init(self.tree.id(), 0, NO_PAGE, NO_PAGE)
            }
            Ok(None) => tracing::warn!(tree = self.tree.id(), "tree root is a free page"),
            Err(e) => tracing::warn!(tree = self.tree.id(), "resetting a failed bulk load: {e}"),
        }
        self.tree.free_chain(&self.owned);
        self.owned.clear();
    }
}
