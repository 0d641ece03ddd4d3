//! Rebalancing after deletes: merging underfull nodes and shortening the tree.
//!
//! After a delete leaves a leaf under a quarter full, the leaf is merged with a
//! sibling under the same parent: the right sibling if the pair fits, else the left
//! one. The right node of the pair moves into the left one and is
//! freed; for leaves the next leaf's left link is updated, for inner nodes the
//! parent's separator comes down between the two halves. The pair is merged only if it
//! fits in three quarters of a page (so the result is not split again at once), or if
//! one side is empty. A parent left underfull merges with its sibling the same way, up
//! the path; a root left with one child takes the child's contents (height shrinks).
//!
//! Everything here is best effort and never waits: the parent is latched only if its
//! version is still the one recorded by the delete's descent, siblings only if free
//! right now. On any contention the merge is skipped; the tree stays valid, only less
//! compact.

use super::read::Step;
use super::Tree;
use crate::api::Result;
use crate::page::node::{inner_cell, Node, NodeMut, SLOT, USABLE};
use crate::page::{NO_PAGE, PAGE_SIZE};
use crate::pool::XGuard;

/// A node with fewer bytes in use than this is merged if possible.
pub(crate) const MERGE_BELOW: usize = USABLE / 4;

impl Tree {
    /// Rebalances after a delete left `node` (latched) possibly underfull.
    pub(crate) fn after_delete<'a>(&'a self, node: XGuard<'a>, path: &[Step]) {
        if let Err(e) = self.rebalance(node, path) {
            tracing::debug!(
                file = self.file.name(),
                tree = self.id(),
                "merge skipped: {e}"
            );
        }
    }

    fn rebalance<'a>(&'a self, mut node: XGuard<'a>, path: &[Step]) -> Result<()> {
        let mut level = 0usize;
        loop {
            if node.lpn() == self.root() || node.node().used() >= MERGE_BELOW {
                return Ok(());
            }
            let recorded = path.len().checked_sub(level + 1).and_then(|i| path.get(i));
            let Some(s) = recorded else {
                return Ok(());
            };
            let Some(mut parent) = self.pool().upgrade(&self.file, s.lpn, s.frame, s.version)
            else {
                return Ok(());
            };
            if !self.merge_child(&mut parent, node, level > 0)? {
                return Ok(());
            }
            if parent.lpn() == self.root() {
                return self.collapse_root(parent);
            }
            node = parent;
            level += 1;
        }
    }

    /// Merges latched `node` with a sibling under latched `parent`: the right one,
    /// else the left one (a purge or delete sweeping left to right leaves each leaf
    /// sparse while its right sibling is still full; the next leaf's turn merges it
    /// into the sparse one on its left). False when no merge is possible right now.
    fn merge_child<'a>(
        &'a self,
        parent: &mut XGuard<'a>,
        node: XGuard<'a>,
        inner: bool,
    ) -> Result<bool> {
        let pn = parent.node();
        let Some(idx) = pn.child_index(node.lpn()) else {
            return Ok(false);
        };
        let last = pn.count();
        let candidates = [(idx < last).then(|| idx + 1), idx.checked_sub(1)];
        for other_idx in candidates.into_iter().flatten() {
            let pn = parent.node();
            let Some(other) = self.pool().try_lock_page(&self.file, pn.child(other_idx))? else {
                continue;
            };
            // (a, b): b is child `cell + 1`, i.e. the child of parent cell `cell`.
            let (cell, a, b) = if other_idx > idx {
                (idx, &node, &other)
            } else {
                (other_idx, &other, &node)
            };
            let sep = pn.key(cell).expect("a latched node is consistent");
            if !fits(&a.node(), &b.node(), sep, inner) {
                continue;
            }
            let (a, b) = if other_idx > idx {
                (node, other)
            } else {
                (other, node)
            };
            return self.merge_pair(parent, cell, a, b, inner);
        }
        Ok(false)
    }

    /// Moves `b` (the child of parent cell `cell`) into `a`, its left neighbour, and
    /// frees it; false if `b`'s right neighbour is busy (leaves relink it).
    fn merge_pair<'a>(
        &'a self,
        parent: &mut XGuard<'a>,
        cell: usize,
        mut a: XGuard<'a>,
        b: XGuard<'a>,
        inner: bool,
    ) -> Result<bool> {
        let (an, bn) = (a.node(), b.node());
        let next = bn.right();
        let neighbor = if !inner && next != NO_PAGE {
            match self.pool().try_lock_page(&self.file, next)? {
                Some(g) => Some(g),
                None => return Ok(false),
            }
        } else {
            None
        };
        let mut cells = an.cells().expect("a latched node is consistent");
        if inner {
            let sep = parent
                .node()
                .key(cell)
                .expect("a latched node is consistent");
            cells.push(inner_cell(sep, bn.leftmost()));
        }
        cells.extend(bn.cells().expect("a latched node is consistent"));
        let alpn = a.lpn();
        let mut am = NodeMut::new(a.bytes_mut());
        am.rebuild(&cells);
        if !inner {
            am.set_right(next);
        }
        if let Some(mut nb) = neighbor {
            NodeMut::new(nb.bytes_mut()).set_left(alpn);
        }
        NodeMut::new(parent.bytes_mut()).remove(cell);
        b.free();
        Ok(true)
    }

    /// A root with no separator left (one child) takes over its child's contents.
    fn collapse_root<'a>(&'a self, mut root: XGuard<'a>) -> Result<()> {
        let rn = root.node();
        if rn.is_leaf() || rn.count() > 0 {
            return Ok(());
        }
        let Some(child) = self.pool().try_lock_page(&self.file, rn.child(0))? else {
            return Ok(());
        };
        let image = child
            .view()
            .bytes(0, PAGE_SIZE)
            .expect("a page is PAGE_SIZE bytes")
            .to_vec();
        root.bytes_mut().copy_from_slice(&image);
        child.free();
        Ok(())
    }
}

/// Whether nodes `a` and `b` (with separator `sep` between them) merge into one: the
/// result must fit in three quarters of a page (so it is not split again at once),
/// or one side must be empty.
fn fits(a: &Node<'_>, b: &Node<'_>, sep: &[u8], inner: bool) -> bool {
    let down = if inner {
        inner_cell(sep, b.leftmost()).len() + SLOT
    } else {
        0
    };
    let combined = a.used() + b.used() + down;
    let empty = a.count() == 0 || b.count() == 0;
    combined <= USABLE && (empty || combined <= USABLE * 3 / 4)
}
