//! Creating, dropping and clearing trees, and the invariant checker.
//!
//! A tree is created with an empty leaf as its root; the root's page number is
//! recorded in the file's catalog and never changes. Dropping or clearing walks the
//! tree and frees every node and overflow page (clearing keeps the root, reset to an
//! empty leaf). Both hold the checkpoint gate for their whole run, so a checkpoint
//! never records a half-freed tree; both require that no other operation uses the tree
//! (the table's DDL lock), because they detach pages without bumping the versions of
//! every node a concurrent writer might have latched.

use super::{TableFile, Tree};
use crate::api::Result;
use crate::error::StorageError;
use crate::page::node::{LeafVal, Node, NodeMut, OverflowRef};
use crate::page::overflow;
use crate::page::{PageNo, PageView, NO_PAGE, PAGE_SIZE};
use crate::pool::PageFile;
use crate::store::TreeId;
use std::sync::Arc;

pub(super) fn create(file: &Arc<PageFile>, id: TreeId) -> Result<Tree> {
    let _gate = file.gate().enter();
    if file.tree(id).is_some() {
        return Err(StorageError::Invalid(format!(
            "tree {id} exists in {}",
            file.name()
        )));
    }
    let mut root = file.pool().alloc_page(file)?;
    NodeMut::new(root.bytes_mut()).init(id, 0, NO_PAGE, NO_PAGE);
    let lpn = root.lpn();
    std::mem::drop(root);
    match file.add_tree(id, lpn) {
        Ok(info) => Ok(Tree {
            file: file.clone(),
            info,
        }),
        Err(e) => {
            file.pool().free_page(file, lpn)?;
            Err(e)
        }
    }
}

pub(super) fn drop(file: &Arc<PageFile>, id: TreeId) -> Result<()> {
    let _gate = file.gate().enter();
    let Some(info) = file.remove_tree(id) else {
        return Err(StorageError::Invalid(format!(
            "no tree {id} in {}",
            file.name()
        )));
    };
    let tree = Tree {
        file: file.clone(),
        info,
    };
    tree.free_subtrees(vec![tree.root()])
}

pub(super) fn clear(tree: &Tree) -> Result<()> {
    let _gate = tree.file.gate().enter();
    let mut root = tree
        .pool()
        .lock_page(&tree.file, tree.root())?
        .ok_or_else(|| {
            tree.file
                .corrupt(tree.root() as u64, "tree root is a free page".into())
        })?;
    let image = tree.copy_node(&root.view(), root.lpn())?;
    NodeMut::new(root.bytes_mut()).init(tree.id(), 0, NO_PAGE, NO_PAGE);
    std::mem::drop(root);
    tree.info.reset_stats();
    let (children, chains) = tree.contents(&image)?;
    for r in chains {
        tree.free_chain(&tree.chain_pages(r)?);
    }
    tree.free_subtrees(children)
}

impl TableFile {
    /// Bytes of memory this file's page maps take.
    pub fn map_memory_bytes(&self) -> usize {
        self.file.map_memory_bytes()
    }
}

impl Tree {
    /// A stable copy of a node, checked to belong to this tree.
    fn copy_node(&self, view: &PageView<'_>, lpn: PageNo) -> Result<Vec<u8>> {
        let image = view
            .bytes(0, PAGE_SIZE)
            .expect("a page is PAGE_SIZE bytes")
            .to_vec();
        let node = Node::new(PageView::of(&image));
        if !node.is_node() || node.tree() != self.id() {
            return Err(self
                .file
                .corrupt(lpn as u64, format!("not a node of tree {}", self.id())));
        }
        Ok(image)
    }

    /// The children (inner node) or overflow chains (leaf) of a node image.
    fn contents(&self, image: &[u8]) -> Result<(Vec<PageNo>, Vec<OverflowRef>)> {
        let node = Node::new(PageView::of(image));
        if !node.is_leaf() {
            return Ok((
                (0..=node.count()).map(|i| node.child(i)).collect(),
                Vec::new(),
            ));
        }
        let mut chains = Vec::new();
        for i in 0..node.count() {
            if let Some((_, LeafVal::Overflow(r))) = node.leaf_entry(i) {
                chains.push(r);
            }
        }
        Ok((Vec::new(), chains))
    }

    /// Frees the subtrees rooted at `roots` and their overflow chains.
    fn free_subtrees(&self, mut stack: Vec<PageNo>) -> Result<()> {
        while let Some(lpn) = stack.pop() {
            let g = self.pool().lock_page(&self.file, lpn)?.ok_or_else(|| {
                self.file
                    .corrupt(lpn as u64, "tree points to a free page".into())
            })?;
            let image = self.copy_node(&g.view(), lpn)?;
            g.free();
            let (children, chains) = self.contents(&image)?;
            stack.extend(children);
            for r in chains {
                self.free_chain(&self.chain_pages(r)?);
            }
        }
        Ok(())
    }

    /// The pages of an overflow chain.
    fn chain_pages(&self, r: OverflowRef) -> Result<Vec<PageNo>> {
        let mut pages = Vec::new();
        let mut lpn = r.first;
        while lpn != NO_PAGE && pages.len() < overflow::pages_for(r.len as usize) {
            let image = self.snapshot(lpn)?;
            let h = overflow::header(&PageView::of(&image))
                .filter(|h| h.chain == r.chain)
                .ok_or_else(|| {
                    self.file.corrupt(
                        lpn as u64,
                        format!("not a page of overflow chain {}", r.chain),
                    )
                })?;
            pages.push(lpn);
            lpn = h.next;
        }
        Ok(pages)
    }

    /// A consistent copy of a page (optimistic read, retried until it validates).
    pub(super) fn snapshot(&self, lpn: PageNo) -> Result<Vec<u8>> {
        super::retry(|| {
            let (f, v) = self.fix(lpn)?;
            let image = self
                .pool()
                .view(f)
                .bytes(0, PAGE_SIZE)
                .expect("whole page")
                .to_vec();
            if self.pool().validate(f, v) {
                Ok(image)
            } else {
                Err(super::Fail::Restart)
            }
        })
    }
}

/// What [`Tree::check`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeCheck {
    pub entries: u64,
    pub leaves: u64,
    pub inner_nodes: u64,
    /// Levels, 1 for a tree that is a single leaf.
    pub height: u32,
    pub overflow_pages: u64,
    /// Bytes of keys and values.
    pub bytes: u64,
}

/// A leaf seen by the checker, for the sibling-link check.
struct LeafLinks {
    lpn: PageNo,
    left: PageNo,
    right: PageNo,
}

pub(super) fn check(tree: &Tree) -> Result<TreeCheck> {
    let mut out = TreeCheck::default();
    let mut leaves = Vec::new();
    let root = tree.snapshot(tree.root())?;
    let height = Node::new(PageView::of(&root)).level() as u32 + 1;
    out.height = height;
    tree.check_node(
        tree.root(),
        None,
        None,
        height as u8 - 1,
        &mut out,
        &mut leaves,
    )?;
    for (i, l) in leaves.iter().enumerate() {
        let left = if i == 0 { NO_PAGE } else { leaves[i - 1].lpn };
        let right = leaves.get(i + 1).map_or(NO_PAGE, |n| n.lpn);
        if l.left != left || l.right != right {
            return Err(tree.bad(
                l.lpn,
                format!(
                    "sibling links ({}, {}) but neighbours are ({left}, {right})",
                    l.left, l.right
                ),
            ));
        }
    }
    Ok(out)
}

impl Tree {
    fn bad(&self, lpn: PageNo, detail: String) -> StorageError {
        self.file
            .corrupt(lpn as u64, format!("tree {} check: {detail}", self.id()))
    }

    fn check_node(
        &self,
        lpn: PageNo,
        low: Option<&[u8]>,
        high: Option<&[u8]>,
        level: u8,
        out: &mut TreeCheck,
        leaves: &mut Vec<LeafLinks>,
    ) -> Result<()> {
        let image = self.snapshot(lpn)?;
        let image = self.copy_node(&PageView::of(&image), lpn)?;
        let node = Node::new(PageView::of(&image));
        if node.level() != level || node.is_leaf() != (level == 0) {
            return Err(self.bad(
                lpn,
                format!("level {} where {level} expected", node.level()),
            ));
        }
        let keys: Vec<&[u8]> = (0..node.count())
            .map(|i| {
                node.key(i)
                    .ok_or_else(|| self.bad(lpn, format!("cell {i} unreadable")))
            })
            .collect::<Result<_>>()?;
        for (i, k) in keys.iter().enumerate() {
            let ordered = i == 0 || keys[i - 1] < *k;
            let in_range = low.is_none_or(|l| *k >= l) && high.is_none_or(|h| *k < h);
            if !ordered || !in_range {
                return Err(self.bad(lpn, format!("key {i} out of order or out of range")));
            }
        }
        if node.is_leaf() {
            self.check_leaf(lpn, &node, out)?;
            leaves.push(LeafLinks {
                lpn,
                left: node.left(),
                right: node.right(),
            });
            return Ok(());
        }
        out.inner_nodes += 1;
        for i in 0..=node.count() {
            let lo = if i == 0 { low } else { Some(keys[i - 1]) };
            let hi = if i == node.count() {
                high
            } else {
                Some(keys[i])
            };
            self.check_node(node.child(i), lo, hi, level - 1, out, leaves)?;
        }
        Ok(())
    }

    fn check_leaf(&self, lpn: PageNo, node: &Node<'_>, out: &mut TreeCheck) -> Result<()> {
        out.leaves += 1;
        for i in 0..node.count() {
            let (k, v) = node
                .leaf_entry(i)
                .ok_or_else(|| self.bad(lpn, format!("cell {i} unreadable")))?;
            out.entries += 1;
            out.bytes += k.len() as u64;
            match v {
                LeafVal::Inline(v) => out.bytes += v.len() as u64,
                LeafVal::Overflow(r) => {
                    let pages = self.chain_pages(r)?;
                    if pages.len() != overflow::pages_for(r.len as usize) {
                        return Err(self.bad(
                            lpn,
                            format!("overflow chain of cell {i} has {} pages", pages.len()),
                        ));
                    }
                    let value = super::retry(|| self.read_chain(r, None))?;
                    if value.len() != r.len as usize {
                        return Err(self.bad(lpn, format!("overflow value of cell {i} truncated")));
                    }
                    out.overflow_pages += pages.len() as u64;
                    out.bytes += r.len as u64;
                }
            }
        }
        Ok(())
    }
}
