//! Optimistic reads: descent, point lookups, overflow chains and range scans.
//!
//! Nothing here takes a latch. A descent reads a node, picks the child, fetches the
//! child's version and then validates the parent, so the child pointer was current
//! when the child's version was taken. A scan reads a leaf's qualifying entries,
//! validates, hands them out, then hops to the sibling the same way (fetch the
//! sibling, re-validate the leaf). When any validation fails the scan descends again
//! from the root to the last key it returned, so a key is never skipped or repeated.

use super::{Fail, Olc, Tree};
use crate::api::Result;
use crate::page::node::{LeafVal, Node, OverflowRef};
use crate::page::overflow::{self, O_DATA};
use crate::page::{PageNo, NO_PAGE};
use crate::pool::Backoff;
use crate::store::Entry;
use std::ops::Bound;

/// A node on the path of a descent: its page, frame and version when read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    pub lpn: PageNo,
    pub frame: u32,
    pub version: u64,
}

/// Which way a descent goes at each inner node.
#[derive(Clone, Copy)]
pub(crate) enum Target<'k> {
    Key(&'k [u8]),
    First,
    Last,
}

impl Tree {
    /// Optimistic access to a page of this tree: a stale pointer restarts.
    pub(crate) fn fix(&self, lpn: PageNo) -> Olc<(u32, u64)> {
        match self.pool().fix(&self.file, lpn)? {
            Some(x) => Ok(x),
            None => Err(self.dropped().unwrap_or(Fail::Restart)),
        }
    }

    /// The error for using a handle of a dropped tree.
    pub(crate) fn dropped(&self) -> Option<Fail> {
        self.info.is_dropped().then(|| {
            Fail::Err(crate::error::StorageError::Invalid(format!(
                "tree {} of {} was dropped",
                self.id(),
                self.file.name()
            )))
        })
    }

    /// What to do when a node read optimistically makes no sense: restart if the read
    /// was racy, otherwise the page is corrupt in memory.
    pub(crate) fn inconsistent(&self, step: Step, what: &str) -> Fail {
        if let Some(f) = self.dropped() {
            return f;
        }
        if self.pool().validate(step.frame, step.version) {
            Fail::Err(self.file.corrupt(
                step.lpn as u64,
                format!("tree {}: {what} (logical page, in memory)", self.id()),
            ))
        } else {
            Fail::Restart
        }
    }

    /// A node of this tree, checked for type and tree id.
    pub(crate) fn node_at(&self, step: Step) -> Olc<Node<'_>> {
        let node = Node::new(self.pool().view(step.frame));
        if !node.is_node() || node.tree() != self.id() {
            return Err(self.inconsistent(step, "not a node of this tree"));
        }
        Ok(node)
    }

    /// Descends to the node at `level` (0: leaf) on the way to `target`, recording
    /// the inner nodes passed in `path` (root first). The returned node is not yet
    /// validated.
    pub(crate) fn descend(
        &self,
        target: Target<'_>,
        level: u8,
        mut path: Option<&mut Vec<Step>>,
    ) -> Olc<Step> {
        let pool = self.pool();
        let root = self.root();
        let (f, v) = self.fix(root)?;
        let mut at = Step {
            lpn: root,
            frame: f,
            version: v,
        };
        loop {
            let node = self.node_at(at)?;
            if node.level() <= level || node.is_leaf() {
                if node.level() != level {
                    return Err(self.inconsistent(at, "level below the one sought"));
                }
                return Ok(at);
            }
            let child = match target {
                Target::Key(k) => node.route(k).map(|(_, c)| c),
                Target::First => Some(node.child(0)),
                Target::Last => Some(node.child(node.count())),
            };
            let Some(child) = child else {
                return Err(self.inconsistent(at, "unreadable inner node"));
            };
            if !pool.validate(at.frame, at.version) {
                return Err(Fail::Restart);
            }
            if let Some(p) = path.as_deref_mut() {
                p.push(at);
            }
            let (cf, cv) = self.fix(child)?;
            if !pool.validate(at.frame, at.version) {
                return Err(Fail::Restart);
            }
            at = Step {
                lpn: child,
                frame: cf,
                version: cv,
            };
        }
    }

    /// The key at about `fraction` (0..1) of the tree's entries: each inner node
    /// passes the share to the child it falls in (as InnoDB's random dives do), so
    /// a balanced tree gives evenly spaced positions. None for an empty leaf.
    pub(crate) fn try_key_at(&self, fraction: f64) -> Olc<Option<Vec<u8>>> {
        let pool = self.pool();
        let root = self.root();
        let (f, v) = self.fix(root)?;
        let mut at = Step {
            lpn: root,
            frame: f,
            version: v,
        };
        let mut share = fraction.clamp(0.0, 1.0);
        loop {
            let node = self.node_at(at)?;
            if node.is_leaf() {
                let n = node.count();
                let key = match n {
                    0 => None,
                    _ => match node.leaf_entry(((share * n as f64) as usize).min(n - 1)) {
                        Some((k, _)) => Some(k.to_vec()),
                        None => return Err(self.inconsistent(at, "unreadable leaf cell")),
                    },
                };
                if !pool.validate(at.frame, at.version) {
                    return Err(Fail::Restart);
                }
                return Ok(key);
            }
            let children = node.count() + 1;
            let x = share * children as f64;
            let i = (x as usize).min(children - 1);
            share = (x - i as f64).clamp(0.0, 1.0);
            let child = node.child(i);
            if !pool.validate(at.frame, at.version) {
                return Err(Fail::Restart);
            }
            let (cf, cv) = self.fix(child)?;
            if !pool.validate(at.frame, at.version) {
                return Err(Fail::Restart);
            }
            at = Step {
                lpn: child,
                frame: cf,
                version: cv,
            };
        }
    }

    pub(crate) fn try_get(&self, key: &[u8]) -> Olc<Option<Vec<u8>>> {
        let at = self.descend(Target::Key(key), 0, None)?;
        let node = self.node_at(at)?;
        let found = match node.search(key) {
            None => return Err(self.inconsistent(at, "unreadable leaf")),
            Some(Err(_)) => None,
            Some(Ok(i)) => match node.leaf_entry(i) {
                None => return Err(self.inconsistent(at, "unreadable leaf cell")),
                Some((_, LeafVal::Inline(v))) => Some(Ok(v.to_vec())),
                Some((_, LeafVal::Overflow(r))) => Some(Err(r)),
            },
        };
        if !self.pool().validate(at.frame, at.version) {
            return Err(Fail::Restart);
        }
        match found {
            None => Ok(None),
            Some(Ok(v)) => Ok(Some(v)),
            Some(Err(r)) => self.read_chain(r, None).map(Some),
        }
    }

    /// Reads an overflow chain optimistically. A page of another chain (the value was
    /// replaced and its pages reused since the leaf was read) restarts the caller.
    /// With `pages`, also collects the chain's page numbers.
    pub(crate) fn read_chain(
        &self,
        r: OverflowRef,
        mut pages: Option<&mut Vec<PageNo>>,
    ) -> Olc<Vec<u8>> {
        let len = r.len as usize;
        let mut out = Vec::with_capacity(len);
        let mut lpn = r.first;
        let mut index = 0u32;
        loop {
            let (f, v) = self.fix(lpn)?;
            let view = self.pool().view(f);
            let step = Step {
                lpn,
                frame: f,
                version: v,
            };
            let h = overflow::header(&view).filter(|h| h.chain == r.chain && h.index == index);
            let Some(h) = h else {
                // A validated page of another chain means our reference is stale.
                return Err(Fail::Restart);
            };
            let take = h.len.min(len - out.len());
            let Some(data) = view.bytes(O_DATA, take) else {
                return Err(self.inconsistent(step, "overflow page length"));
            };
            out.extend_from_slice(data);
            if !self.pool().validate(f, v) {
                return Err(Fail::Restart);
            }
            if let Some(p) = pages.as_deref_mut() {
                p.push(lpn);
            }
            if out.len() == len {
                return Ok(out);
            }
            if h.next == NO_PAGE || h.len == 0 {
                return Err(self.inconsistent(step, "overflow chain ends early"));
            }
            lpn = h.next;
            index += 1;
        }
    }
}

/// A leaf entry read optimistically, before validation.
enum Val {
    Inline(Vec<u8>),
    Chain(OverflowRef),
}

struct Batch {
    entries: Vec<(Vec<u8>, Val)>,
    /// The sibling to continue with (NO_PAGE at the end).
    next: PageNo,
    /// A key beyond the far bound was seen: the scan is complete.
    done: bool,
}

/// The scan's bounds and direction.
struct Range<'a> {
    lower: Bound<&'a [u8]>,
    upper: Bound<&'a [u8]>,
    reverse: bool,
}

impl Range<'_> {
    /// True when `key` is past the bound the scan moves towards.
    fn beyond(&self, key: &[u8]) -> bool {
        if self.reverse {
            match self.lower {
                Bound::Included(b) => key < b,
                Bound::Excluded(b) => key <= b,
                Bound::Unbounded => false,
            }
        } else {
            match self.upper {
                Bound::Included(b) => key > b,
                Bound::Excluded(b) => key >= b,
                Bound::Unbounded => false,
            }
        }
    }
}

/// True when `key` is not yet at the position `from` (it was returned already or is
/// before the start bound).
fn before(from: &Bound<Vec<u8>>, key: &[u8], reverse: bool) -> bool {
    match (from, reverse) {
        (Bound::Unbounded, _) => false,
        (Bound::Included(b), false) => key < b.as_slice(),
        (Bound::Excluded(b), false) => key <= b.as_slice(),
        (Bound::Included(b), true) => key > b.as_slice(),
        (Bound::Excluded(b), true) => key >= b.as_slice(),
    }
}

pub(crate) fn scan(
    tree: &Tree,
    lower: Bound<&[u8]>,
    upper: Bound<&[u8]>,
    reverse: bool,
    max: usize,
    out: &mut Vec<Entry>,
) -> Result<()> {
    let range = Range {
        lower,
        upper,
        reverse,
    };
    let start = if reverse { upper } else { lower };
    let mut from: Bound<Vec<u8>> = start.map(<[u8]>::to_vec);
    let mut produced = 0usize;
    let mut backoff = Backoff::new();
    while produced < max {
        match scan_from(tree, &range, &mut from, max - produced, out) {
            Ok(_) => return Ok(()),
            Err((n, Fail::Restart)) => {
                produced += n;
                backoff.snooze();
            }
            Err((_, Fail::Err(e))) => return Err(e),
        }
    }
    Ok(())
}

/// Scans from `from` until done or `room` entries; on restart reports how many it
/// produced (and `from` has moved past them).
fn scan_from(
    tree: &Tree,
    range: &Range<'_>,
    from: &mut Bound<Vec<u8>>,
    room: usize,
    out: &mut Vec<Entry>,
) -> std::result::Result<usize, (usize, Fail)> {
    let target = match (&*from, range.reverse) {
        (Bound::Included(k) | Bound::Excluded(k), _) => Target::Key(k),
        (Bound::Unbounded, false) => Target::First,
        (Bound::Unbounded, true) => Target::Last,
    };
    let mut at = tree.descend(target, 0, None).map_err(|e| (0, e))?;
    let mut produced = 0;
    loop {
        let batch = read_leaf(tree, at, range, from, room - produced).map_err(|e| (produced, e))?;
        let before = out.len();
        let mut failed = None;
        for (key, val) in batch.entries {
            let value = match val {
                Val::Inline(v) => v,
                Val::Chain(r) => match tree.read_chain(r, None) {
                    Ok(v) => v,
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                },
            };
            out.push((key, value));
            produced += 1;
        }
        // A restart goes on after the last entry handed out (one key copy per
        // leaf, not per entry).
        if out.len() > before {
            if let Some((last, _)) = out.last() {
                *from = Bound::Excluded(last.clone());
            }
        }
        if let Some(e) = failed {
            return Err((produced, e));
        }
        if batch.done || produced >= room || batch.next == NO_PAGE {
            return Ok(produced);
        }
        let (f, v) = tree.fix(batch.next).map_err(|e| (produced, e))?;
        if !tree.pool().validate(at.frame, at.version) {
            return Err((produced, Fail::Restart));
        }
        at = Step {
            lpn: batch.next,
            frame: f,
            version: v,
        };
    }
}

/// Reads up to `room` qualifying entries of a leaf, validated.
fn read_leaf(
    tree: &Tree,
    at: Step,
    range: &Range<'_>,
    from: &Bound<Vec<u8>>,
    room: usize,
) -> Olc<Batch> {
    let node = tree.node_at(at)?;
    if !node.is_leaf() {
        return Err(tree.inconsistent(at, "scan reached an inner node"));
    }
    let n = node.count();
    let mut entries = Vec::new();
    let mut done = false;
    let order: Box<dyn Iterator<Item = usize>> = if range.reverse {
        Box::new((0..n).rev())
    } else {
        Box::new(0..n)
    };
    for i in order {
        let Some((key, val)) = node.leaf_entry(i) else {
            return Err(tree.inconsistent(at, "unreadable leaf cell"));
        };
        if before(from, key, range.reverse) {
            continue;
        }
        if range.beyond(key) || entries.len() >= room {
            done = range.beyond(key);
            break;
        }
        let val = match val {
            LeafVal::Inline(v) => Val::Inline(v.to_vec()),
            LeafVal::Overflow(r) => Val::Chain(r),
        };
        entries.push((key.to_vec(), val));
    }
    let next = if range.reverse {
        node.left()
    } else {
        node.right()
    };
    if !tree.pool().validate(at.frame, at.version) {
        return Err(Fail::Restart);
    }
    Ok(Batch {
        entries,
        next,
        done,
    })
}
