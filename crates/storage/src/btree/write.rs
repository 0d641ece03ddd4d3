//! Writes: `modify`, overflow chains, and splits.
//!
//! `modify` descends optimistically and upgrades the leaf's version to an exclusive
//! latch (a moved version restarts the descent; the closure has not run yet). From
//! then on nothing restarts: the closure decides, the new value's overflow chain is
//! written if needed, a split is planned if the leaf overflows (latching the nodes it
//! will change and allocating its new pages), the log callback runs, and only then is
//! the tree changed, by steps that cannot fail.
//!
//! A split plan walks up from the leaf: each level that overflows gets a new right
//! page and its parent latched; it stops at the first ancestor with room for the
//! separator, or at the root, which is split in place (its contents move to two new
//! children). Leaf splits push up the shortest separating prefix; inner splits push up
//! their middle key. Ascending inserts at a leaf's end split off only the new entry,
//! leaving full leaves behind (as InnoDB does).

use super::read::{Step, Target};
use super::{Action, Change, Olc, Tree, MAX_VALUE};
use crate::api::Result;
use crate::error::StorageError;
use crate::page::node::{
    cell_child, cell_key, fits_inline, inner_cell, leaf_cell, separator, split_point, LeafVal,
    NodeMut, SLOT,
};
use crate::page::overflow::{self, OVERFLOW_DATA};
use crate::page::{PageNo, NO_PAGE};
use crate::pool::{Backoff, XGuard};
use crate::store::Modify;

/// One node of a split plan.
struct LevelSplit<'a> {
    /// The node (None for the leaf, which the caller holds).
    guard: Option<XGuard<'a>>,
    /// Its contents with the new cell, too big for one page.
    cells: Vec<Vec<u8>>,
    /// Cells going to the left half.
    m: usize,
    level: u8,
    /// The node's leftmost child before the split (inner nodes).
    leftmost: PageNo,
    /// New pages: one right sibling, or two children for the root.
    pages: Vec<XGuard<'a>>,
    /// The leaf's old right neighbour, whose left link changes.
    neighbor: Option<XGuard<'a>>,
}

/// A planned split, holding every latch and page it needs.
struct Split<'a> {
    levels: Vec<LevelSplit<'a>>,
    /// The ancestor that takes the last separator: (node, cell index, cell); None when
    /// the top level is the root.
    parent: Option<(XGuard<'a>, usize, Vec<u8>)>,
}

impl Split<'_> {
    /// Gives back the new pages; the latched nodes were not changed.
    fn abort(self) {
        for lv in self.levels {
            for p in lv.pages {
                p.free();
            }
        }
    }
}

impl Tree {
    pub(crate) fn try_modify<F, L>(
        &self,
        key: &[u8],
        f: &mut F,
        called: &mut bool,
        log: &mut Option<L>,
    ) -> Olc<Action>
    where
        F: FnMut(Option<&[u8]>) -> Modify,
        L: FnOnce(&Change<'_>) -> Result<()>,
    {
        let mut path = Vec::with_capacity(8);
        let at = self.descend(Target::Key(key), 0, Some(&mut path))?;
        let leaf = self
            .pool()
            .upgrade(&self.file, at.lpn, at.frame, at.version)
            .ok_or(super::Fail::Restart)?;
        debug_assert!(!*called, "modify restarted after running its closure");
        *called = true;
        let log = log.take().expect("the log callback is used once");
        Ok(self.modify_leaf(leaf, &path, key, f, log)?)
    }

    fn modify_leaf<'a, F, L>(
        &'a self,
        mut leaf: XGuard<'a>,
        path: &[Step],
        key: &[u8],
        f: &mut F,
        log: L,
    ) -> Result<Action>
    where
        F: FnMut(Option<&[u8]>) -> Modify,
        L: FnOnce(&Change<'_>) -> Result<()>,
    {
        let node = leaf.node();
        let pos = node.search(key).expect("a latched leaf is consistent");
        let mut old_pages = Vec::new();
        let old_chain;
        let old: Option<&[u8]> = match pos {
            Err(_) => None,
            Ok(i) => match node.leaf_entry(i).expect("a latched leaf is consistent").1 {
                LeafVal::Inline(v) => Some(v),
                LeafVal::Overflow(r) => {
                    old_chain = self.read_stable_chain(r, &mut old_pages)?;
                    Some(&old_chain)
                }
            },
        };
        let old_len = old.map_or(0, <[u8]>::len);
        let (action, new) = match f(old) {
            Modify::Keep => return Ok(Action::Kept),
            Modify::Delete if old.is_none() => return Ok(Action::Kept),
            Modify::Delete => (Action::Deleted, None),
            Modify::Put(v) if old.is_some() => (Action::Updated, Some(v)),
            Modify::Put(v) => (Action::Inserted, Some(v)),
        };
        let change = Change {
            tree: self.id(),
            key,
            old,
            new: new.as_deref(),
        };
        match pos {
            Ok(i) if new.is_none() => {
                log(&change)?;
                NodeMut::new(leaf.bytes_mut()).remove(i);
                self.free_chain(&old_pages);
                self.info.account(-1, -((key.len() + old_len) as i64));
                self.after_delete(leaf, path);
            }
            _ => {
                let v = new.as_deref().expect("a put has a value");
                self.put_in_leaf(&mut leaf, path, key, pos, v, || log(&change))?;
                self.free_chain(&old_pages);
                let grow = if pos.is_ok() { 0 } else { 1 };
                let bytes = v.len() as i64 - old_len as i64
                    + if pos.is_ok() { 0 } else { key.len() as i64 };
                self.info.account(grow, bytes);
            }
        }
        Ok(action)
    }

    /// Stores `value` under `key` in the latched leaf (splitting if needed); `log`
    /// runs once everything that can fail has succeeded.
    fn put_in_leaf<'a>(
        &'a self,
        leaf: &mut XGuard<'a>,
        path: &[Step],
        key: &[u8],
        pos: std::result::Result<usize, usize>,
        value: &[u8],
        log: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        if value.len() > MAX_VALUE {
            return Err(StorageError::Invalid(format!(
                "value of {} bytes exceeds {MAX_VALUE}",
                value.len()
            )));
        }
        let mut chain = Vec::new();
        let cell = if fits_inline(key.len(), value.len()) {
            leaf_cell(key, LeafVal::Inline(value))
        } else {
            let r = self.write_chain(value, &mut chain)?;
            leaf_cell(key, LeafVal::Overflow(r))
        };
        let node = leaf.node();
        let freed = match pos {
            Ok(i) => {
                node.raw_cell(i)
                    .expect("a latched leaf is consistent")
                    .len()
                    + SLOT
            }
            Err(_) => 0,
        };
        let split = if node.gap() + node.frag() + freed >= cell.len() + SLOT {
            None
        } else {
            match self.plan_split(leaf, path, key, pos, &cell) {
                Ok(s) => Some(s),
                Err(e) => {
                    self.free_chain(&chain);
                    return Err(e);
                }
            }
        };
        if let Err(e) = log() {
            if let Some(s) = split {
                s.abort();
            }
            self.free_chain(&chain);
            return Err(e);
        }
        match split {
            Some(s) => self.apply_split(leaf, s),
            None => {
                let mut nm = NodeMut::new(leaf.bytes_mut());
                let at = match pos {
                    Ok(i) => {
                        nm.remove(i);
                        i
                    }
                    Err(i) => i,
                };
                assert!(nm.insert(at, &cell), "room was checked");
            }
        }
        Ok(())
    }

    /// Reads an overflow chain that cannot change (its leaf is latched).
    fn read_stable_chain(
        &self,
        r: crate::page::node::OverflowRef,
        pages: &mut Vec<PageNo>,
    ) -> Result<Vec<u8>> {
        super::retry(|| {
            pages.clear();
            self.read_chain(r, Some(pages))
        })
    }

    /// Writes `value` into a new overflow chain; `pages` receives its pages.
    pub(super) fn write_chain(
        &self,
        value: &[u8],
        pages: &mut Vec<PageNo>,
    ) -> Result<crate::page::node::OverflowRef> {
        let n = overflow::pages_for(value.len());
        pages.extend((0..n).map(|_| self.file.alloc_lpn()));
        let chain = self.file.next_chain_id();
        for (i, chunk) in value.chunks(OVERFLOW_DATA).enumerate() {
            let next = pages.get(i + 1).copied().unwrap_or(NO_PAGE);
            match self.pool().new_page(&self.file, pages[i]) {
                Ok(mut g) => overflow::write(g.bytes_mut(), chain, i as u32, next, chunk),
                Err(e) => {
                    self.free_chain(&pages[..i]);
                    for &p in &pages[i..] {
                        self.file.free_lpn(p);
                    }
                    pages.clear();
                    return Err(e);
                }
            }
        }
        Ok(crate::page::node::OverflowRef {
            first: pages[0],
            len: value.len() as u32,
            chain,
        })
    }

    /// Frees the pages of a chain no one refers to any more. A failure leaks pages
    /// rather than failing a change that is already made.
    pub(crate) fn free_chain(&self, pages: &[PageNo]) {
        for &p in pages {
            if let Err(e) = self.pool().free_page(&self.file, p) {
                tracing::warn!(
                    file = self.file.name(),
                    page = p,
                    "overflow page leaked: {e}"
                );
            }
        }
    }

    /// Latches the parent (at `level`) of the latched node `child` on the way to
    /// `key`: the node recorded in `path` if its version has not moved, otherwise the
    /// parent found by a new descent, verified after latching.
    fn lock_parent(
        &self,
        path: &[Step],
        child: PageNo,
        level: u8,
        key: &[u8],
    ) -> Result<XGuard<'_>> {
        let recorded = path
            .len()
            .checked_sub(level as usize)
            .and_then(|i| path.get(i));
        if let Some(s) = recorded {
            if let Some(g) = self.pool().upgrade(&self.file, s.lpn, s.frame, s.version) {
                return Ok(g);
            }
        }
        let mut backoff = Backoff::new();
        loop {
            let at = super::retry(|| self.descend(Target::Key(key), level, None))?;
            if let Some(g) = self.pool().lock_page(&self.file, at.lpn)? {
                let n = g.node();
                let ok = n.is_node()
                    && !n.is_leaf()
                    && n.tree() == self.id()
                    && n.level() == level
                    && n.route(key).map(|(_, c)| c) == Some(child);
                if ok {
                    return Ok(g);
                }
            }
            backoff.snooze();
        }
    }

    /// Latches and allocates everything a split of `leaf` needs.
    fn plan_split<'a>(
        &'a self,
        leaf: &XGuard<'a>,
        path: &[Step],
        key: &[u8],
        pos: std::result::Result<usize, usize>,
        cell: &[u8],
    ) -> Result<Split<'a>> {
        let node = leaf.node();
        let mut cells = node.cells().expect("a latched leaf is consistent");
        let append = pos == Err(cells.len());
        match pos {
            Ok(i) => cells[i] = cell.to_vec(),
            Err(i) => cells.insert(i, cell.to_vec()),
        }
        let mut split = Split {
            levels: Vec::new(),
            parent: None,
        };
        let res = self.plan_levels(
            &mut split,
            leaf.lpn(),
            node.right(),
            cells,
            append,
            path,
            key,
        );
        match res {
            Ok(()) => Ok(split),
            Err(e) => {
                split.abort();
                Err(e)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn plan_levels<'a>(
        &'a self,
        split: &mut Split<'a>,
        mut lpn: PageNo,
        right_link: PageNo,
        mut cells: Vec<Vec<u8>>,
        append: bool,
        path: &[Step],
        key: &[u8],
    ) -> Result<()> {
        let mut level = 0u8;
        let mut guard = None;
        let mut leftmost = NO_PAGE;
        loop {
            let m = split_point(&cells, append && level == 0);
            let mut lv = LevelSplit {
                guard: guard.take(),
                cells: Vec::new(),
                m,
                level,
                leftmost,
                pages: Vec::new(),
                neighbor: None,
            };
            if lpn == self.root() {
                lv.cells = cells;
                split.levels.push(lv);
                for _ in 0..2 {
                    let p = self.pool().alloc_page(&self.file)?;
                    split.levels.last_mut().expect("just pushed").pages.push(p);
                }
                return Ok(());
            }
            let sep = if level == 0 {
                separator(cell_key(&cells[m - 1]), cell_key(&cells[m])).to_vec()
            } else {
                cell_key(&cells[m]).to_vec()
            };
            lv.cells = cells;
            split.levels.push(lv);
            let lv = split.levels.last_mut().expect("just pushed");
            lv.pages.push(self.pool().alloc_page(&self.file)?);
            let new_lpn = lv.pages[0].lpn();
            if level == 0 && right_link != NO_PAGE {
                let nb = self.pool().lock_page(&self.file, right_link)?;
                lv.neighbor = Some(nb.ok_or_else(|| {
                    self.file
                        .corrupt(right_link as u64, "leaf sibling link to a free page".into())
                })?);
            }
            let parent = self.lock_parent(path, lpn, level + 1, key)?;
            let pn = parent.node();
            let idx = pn.child_index(lpn).expect("the parent was verified");
            let pcell = inner_cell(&sep, new_lpn);
            if pn.gap() + pn.frag() >= pcell.len() + SLOT {
                split.parent = Some((parent, idx, pcell));
                return Ok(());
            }
            cells = pn.cells().expect("a latched node is consistent");
            cells.insert(idx, pcell);
            leftmost = pn.leftmost();
            level += 1;
            lpn = parent.lpn();
            guard = Some(parent);
        }
    }

    /// Carries out a split plan; cannot fail.
    fn apply_split<'a>(&'a self, leaf: &mut XGuard<'a>, split: Split<'a>) {
        for lv in split.levels {
            let LevelSplit {
                guard,
                cells,
                m,
                level,
                leftmost,
                mut pages,
                neighbor,
            } = lv;
            let mut held = guard;
            let g = held.as_mut().unwrap_or(&mut *leaf);
            if g.lpn() == self.root() {
                self.split_root(g, &cells, m, level, leftmost, &mut pages);
            } else {
                let mut right = pages.pop().expect("a split has a new page");
                self.split_node(g, &mut right, &cells, m, level, neighbor);
            }
        }
        if let Some((mut p, idx, cell)) = split.parent {
            assert!(
                NodeMut::new(p.bytes_mut()).insert(idx, &cell),
                "room was checked"
            );
        }
    }

    fn split_node(
        &self,
        g: &mut XGuard<'_>,
        right: &mut XGuard<'_>,
        cells: &[Vec<u8>],
        m: usize,
        level: u8,
        neighbor: Option<XGuard<'_>>,
    ) {
        let (lpn, rlpn) = (g.lpn(), right.lpn());
        if level == 0 {
            let old_right = g.node().right();
            let mut r = NodeMut::new(right.bytes_mut());
            r.init(self.id(), 0, lpn, old_right);
            r.rebuild(&cells[m..]);
            let mut l = NodeMut::new(g.bytes_mut());
            l.rebuild(&cells[..m]);
            l.set_right(rlpn);
            if let Some(mut nb) = neighbor {
                NodeMut::new(nb.bytes_mut()).set_left(rlpn);
            }
        } else {
            let mut r = NodeMut::new(right.bytes_mut());
            r.init(self.id(), level, NO_PAGE, cell_child(&cells[m]));
            r.rebuild(&cells[m + 1..]);
            NodeMut::new(g.bytes_mut()).rebuild(&cells[..m]);
        }
    }

    /// Splits the root in place: its halves move to two new children.
    fn split_root(
        &self,
        root: &mut XGuard<'_>,
        cells: &[Vec<u8>],
        m: usize,
        level: u8,
        leftmost: PageNo,
        pages: &mut [XGuard<'_>],
    ) {
        let [a, b] = pages else {
            unreachable!("a root split allocates two pages")
        };
        let (al, bl) = (a.lpn(), b.lpn());
        let sep = if level == 0 {
            NodeMut::new(a.bytes_mut()).init(self.id(), 0, NO_PAGE, bl);
            NodeMut::new(b.bytes_mut()).init(self.id(), 0, al, NO_PAGE);
            NodeMut::new(a.bytes_mut()).rebuild(&cells[..m]);
            NodeMut::new(b.bytes_mut()).rebuild(&cells[m..]);
            separator(cell_key(&cells[m - 1]), cell_key(&cells[m])).to_vec()
        } else {
            NodeMut::new(a.bytes_mut()).init(self.id(), level, NO_PAGE, leftmost);
            NodeMut::new(b.bytes_mut()).init(self.id(), level, NO_PAGE, cell_child(&cells[m]));
            NodeMut::new(a.bytes_mut()).rebuild(&cells[..m]);
            NodeMut::new(b.bytes_mut()).rebuild(&cells[m + 1..]);
            cell_key(&cells[m]).to_vec()
        };
        let mut r = NodeMut::new(root.bytes_mut());
        r.init(self.id(), level + 1, NO_PAGE, al);
        assert!(r.insert(0, &inner_cell(&sep, bl)), "an empty root has room");
    }
}
