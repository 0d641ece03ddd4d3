//! B+tree node pages: slotted pages of sorted cells.
//!
//! ```text
//! offset size field (after the common header; little-endian)
//! 24     2    n: number of cells
//! 26     2    heap top: cells occupy [heap top, PAGE_SIZE)
//! 28     2    fragmented bytes: dead cell space inside [heap top, PAGE_SIZE)
//! 30     1    level: 0 for leaves, parent = child + 1
//! 31     1    reserved, 0
//! 32     4    leaf: left sibling (NO_PAGE at the left end); inner: reserved
//! 36     4    leaf: right sibling (NO_PAGE at the right end); inner: leftmost child
//! 40     8    reserved, 0
//! 48     6*n  slot array, in key order: [cell offset u16][key head u32, big-endian]
//! ...         free space
//! heap top    cells, in any order
//! ```
//! Leaf cell: `[key len u16][value len u32][key][value]`; when bit 31 of the value
//! length is set the value lives in an overflow chain and the cell holds a 16-byte
//! [`OverflowRef`] instead. Inner cell: `[key len u16][child u32][key]`; an inner node
//! with n cells has n + 1 children: child 0 is the leftmost child (header), child
//! i + 1 is the child of cell i. Cell i's key is a lower bound of the keys below
//! child i + 1 and greater than every key below child i (separator keys are
//! truncated to the shortest prefix that separates, so they need not be real keys).
//!
//! The key head is the key's first four bytes (zero-padded), compared as a big-endian
//! integer: heads order like keys, except that equal heads need the full keys. Binary
//! search therefore stays inside the contiguous slot array and reads a cell only to
//! break a tie, a few cache lines per node instead of one per probe (LeanStore's
//! "heads"; the slot array of a full leaf spans a few hundred bytes, its cells 16 KiB).
//!
//! Size limits guarantee that any node holds at least four cells, so a split of a full
//! node plus one new cell always yields two halves that fit: a cell plus its slot takes
//! at most a quarter of the space after the node header ([`MAX_CELL`]).

use super::{get_u16, get_u32, put_u16, put_u32, PageNo, PageType, PageView, H_AUX, H_TYPE};
use super::{NO_PAGE, PAGE_SIZE};

pub const N_COUNT: usize = 24;
pub const N_HEAP: usize = 26;
pub const N_FRAG: usize = 28;
pub const N_LEVEL: usize = 30;
pub const N_LEFT: usize = 32;
pub const N_RIGHT: usize = 36;
pub const N_LEFTMOST: usize = 36;
pub const NODE_HEADER: usize = 48;
/// Bytes of a slot: cell offset and key head.
pub const SLOT: usize = 6;

/// Longest key a tree accepts.
pub const MAX_KEY: usize = 3072;
/// Largest cell (header included) a node accepts; with its slot it takes a quarter of
/// the usable space.
pub const MAX_CELL: usize = (PAGE_SIZE - NODE_HEADER) / 4 - SLOT;
/// Bytes of a node available for slots and cells.
pub const USABLE: usize = PAGE_SIZE - NODE_HEADER;
pub const CELL_HEADER: usize = 6;
pub const OVERFLOW_FLAG: u32 = 1 << 31;
pub const OVERFLOW_REF_LEN: usize = 16;

/// Where an overflowed value lives: `[first page u32][length u32][chain id u64]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OverflowRef {
    pub first: PageNo,
    pub len: u32,
    /// Unique per chain within a file; stamped on every page of the chain so that a
    /// reader detects a chain freed and reused under it.
    pub chain: u64,
}

impl OverflowRef {
    pub fn encode(&self) -> [u8; OVERFLOW_REF_LEN] {
        let mut b = [0u8; OVERFLOW_REF_LEN];
        b[0..4].copy_from_slice(&self.first.to_le_bytes());
        b[4..8].copy_from_slice(&self.len.to_le_bytes());
        b[8..16].copy_from_slice(&self.chain.to_le_bytes());
        b
    }

    pub fn decode(b: &[u8]) -> OverflowRef {
        OverflowRef {
            first: get_u32(b, 0),
            len: get_u32(b, 4),
            chain: super::get_u64(b, 8),
        }
    }
}

/// A leaf value as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafVal<'a> {
    Inline(&'a [u8]),
    Overflow(OverflowRef),
}

/// True when a value of `vlen` bytes under a key of `klen` bytes is stored in the leaf.
pub fn fits_inline(klen: usize, vlen: usize) -> bool {
    CELL_HEADER + klen + vlen <= MAX_CELL
}

pub fn leaf_cell(key: &[u8], val: LeafVal<'_>) -> Vec<u8> {
    let (vlen, body): (u32, &[u8]) = match val {
        LeafVal::Inline(v) => (v.len() as u32, v),
        LeafVal::Overflow(_) => (OVERFLOW_FLAG | OVERFLOW_REF_LEN as u32, &[]),
    };
    let mut c = Vec::with_capacity(CELL_HEADER + key.len() + body.len() + OVERFLOW_REF_LEN);
    c.extend_from_slice(&(key.len() as u16).to_le_bytes());
    c.extend_from_slice(&vlen.to_le_bytes());
    c.extend_from_slice(key);
    match val {
        LeafVal::Inline(v) => c.extend_from_slice(v),
        LeafVal::Overflow(r) => c.extend_from_slice(&r.encode()),
    }
    c
}

pub fn inner_cell(key: &[u8], child: PageNo) -> Vec<u8> {
    let mut c = Vec::with_capacity(CELL_HEADER + key.len());
    c.extend_from_slice(&(key.len() as u16).to_le_bytes());
    c.extend_from_slice(&child.to_le_bytes());
    c.extend_from_slice(key);
    c
}

/// The key of an encoded (leaf or inner) cell. For stable cells only (copies, or
/// nodes under an exclusive latch): it trusts the length fields.
pub fn cell_key(cell: &[u8]) -> &[u8] {
    let klen = get_u16(cell, 0) as usize;
    &cell[CELL_HEADER..CELL_HEADER + klen]
}

/// The child of an encoded inner cell.
pub fn cell_child(cell: &[u8]) -> PageNo {
    get_u32(cell, 2)
}

/// The value of an encoded leaf cell.
pub fn cell_value(cell: &[u8]) -> LeafVal<'_> {
    let klen = get_u16(cell, 0) as usize;
    let vraw = get_u32(cell, 2);
    let body = &cell[CELL_HEADER + klen..];
    if vraw & OVERFLOW_FLAG != 0 {
        LeafVal::Overflow(OverflowRef::decode(body))
    } else {
        LeafVal::Inline(&body[..vraw as usize])
    }
}

/// The head of a key: its first four bytes, zero-padded, as a big-endian integer.
/// `head(a) < head(b)` implies `a < b`.
pub fn head(key: &[u8]) -> u32 {
    let mut h = [0u8; 4];
    let n = key.len().min(4);
    h[..n].copy_from_slice(&key[..n]);
    u32::from_be_bytes(h)
}

/// The shortest prefix of `right` that is greater than `left` (`left < right`): the
/// separator pushed up when a leaf splits between these two keys.
pub fn separator<'k>(left: &[u8], right: &'k [u8]) -> &'k [u8] {
    let common = left.iter().zip(right).take_while(|(a, b)| a == b).count();
    &right[..(common + 1).min(right.len())]
}

/// Read access to a node through a (possibly racy) [`PageView`]. Accessors return
/// `None` when the bytes are inconsistent; see [`PageView`] for the validation rule.
#[derive(Clone, Copy)]
pub struct Node<'a> {
    v: PageView<'a>,
}

impl<'a> Node<'a> {
    pub fn new(v: PageView<'a>) -> Node<'a> {
        Node { v }
    }

    pub fn view(&self) -> PageView<'a> {
        self.v
    }

    pub fn page_type(&self) -> Option<PageType> {
        self.v.page_type()
    }

    pub fn is_leaf(&self) -> bool {
        self.v.u8(H_TYPE) == PageType::Leaf as u8
    }

    pub fn is_node(&self) -> bool {
        matches!(self.page_type(), Some(PageType::Leaf | PageType::Inner))
    }

    pub fn tree(&self) -> u32 {
        self.v.u32(H_AUX)
    }

    pub fn level(&self) -> u8 {
        self.v.u8(N_LEVEL)
    }

    pub fn count(&self) -> usize {
        (self.v.u16(N_COUNT) as usize).min((PAGE_SIZE - NODE_HEADER) / SLOT)
    }

    pub fn heap_top(&self) -> usize {
        self.v.u16(N_HEAP) as usize
    }

    pub fn frag(&self) -> usize {
        self.v.u16(N_FRAG) as usize
    }

    pub fn left(&self) -> PageNo {
        self.v.u32(N_LEFT)
    }

    pub fn right(&self) -> PageNo {
        self.v.u32(N_RIGHT)
    }

    pub fn leftmost(&self) -> PageNo {
        self.v.u32(N_LEFTMOST)
    }

    /// Free bytes between the slot array and the heap (not counting fragments).
    pub fn gap(&self) -> usize {
        self.heap_top()
            .saturating_sub(NODE_HEADER + SLOT * self.count())
    }

    /// Bytes in use by slots and live cells.
    pub fn used(&self) -> usize {
        (PAGE_SIZE.saturating_sub(self.heap_top()) + SLOT * self.count())
            .saturating_sub(self.frag())
    }

    fn slot(&self, i: usize) -> usize {
        self.v.u16(NODE_HEADER + SLOT * i) as usize
    }

    /// The key head stored in slot `i`.
    pub fn head(&self, i: usize) -> u32 {
        self.v.u32_be(NODE_HEADER + SLOT * i + 2)
    }

    /// The key of cell `i` (leaf or inner).
    pub fn key(&self, i: usize) -> Option<&'a [u8]> {
        let off = self.slot(i);
        let klen = self.v.u16(off) as usize;
        self.v.bytes(off + CELL_HEADER, klen)
    }

    /// Cell `i` as stored (header, key and value or child), for copying.
    pub fn raw_cell(&self, i: usize) -> Option<&'a [u8]> {
        let off = self.slot(i);
        let klen = self.v.u16(off) as usize;
        let body = if self.is_leaf() {
            let vraw = self.v.u32(off + 2);
            if vraw & OVERFLOW_FLAG != 0 {
                OVERFLOW_REF_LEN
            } else {
                vraw as usize
            }
        } else {
            0
        };
        self.v.bytes(off, CELL_HEADER + klen + body)
    }

    /// Key and value of leaf cell `i`. Each field is read once through the view, so
    /// a racy read yields wrong but in-bounds results.
    pub fn leaf_entry(&self, i: usize) -> Option<(&'a [u8], LeafVal<'a>)> {
        let off = self.slot(i);
        let klen = self.v.u16(off) as usize;
        let vraw = self.v.u32(off + 2);
        let key = self.v.bytes(off + CELL_HEADER, klen)?;
        let body = off + CELL_HEADER + klen;
        let val = if vraw & OVERFLOW_FLAG != 0 {
            LeafVal::Overflow(OverflowRef::decode(self.v.bytes(body, OVERFLOW_REF_LEN)?))
        } else {
            LeafVal::Inline(self.v.bytes(body, vraw as usize)?)
        };
        Some((key, val))
    }

    /// Child `i` of an inner node: 0 is the leftmost child, i > 0 the child of cell
    /// i - 1.
    pub fn child(&self, i: usize) -> PageNo {
        if i == 0 {
            self.leftmost()
        } else {
            self.v.u32(self.slot(i - 1) + 2)
        }
    }

    /// Binary search among the cell keys: `Ok(i)` when cell i holds `key`, otherwise
    /// `Err(i)` with i the number of cells whose key is smaller.
    pub fn search(&self, key: &[u8]) -> Option<Result<usize, usize>> {
        let kh = head(key);
        let (mut lo, mut hi) = (0usize, self.count());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let h = self.head(mid);
            let ord = if h != kh {
                h.cmp(&kh)
            } else {
                self.key(mid)?.cmp(key)
            };
            match ord {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(Ok(mid)),
            }
        }
        Some(Err(lo))
    }

    /// The child index of an inner node whose subtree covers `key`, and that child.
    pub fn route(&self, key: &[u8]) -> Option<(usize, PageNo)> {
        let idx = match self.search(key)? {
            Ok(i) => i + 1,
            Err(i) => i,
        };
        Some((idx, self.child(idx)))
    }

    /// Index of `child` among this inner node's children.
    pub fn child_index(&self, child: PageNo) -> Option<usize> {
        (0..=self.count()).find(|&i| self.child(i) == child)
    }

    /// Every cell, copied.
    pub fn cells(&self) -> Option<Vec<Vec<u8>>> {
        (0..self.count())
            .map(|i| self.raw_cell(i).map(<[u8]>::to_vec))
            .collect()
    }
}

/// Write access to a node held under an exclusive latch (or a private buffer).
pub struct NodeMut<'a> {
    b: &'a mut [u8],
}

impl<'a> NodeMut<'a> {
    pub fn new(b: &'a mut [u8]) -> NodeMut<'a> {
        debug_assert!(b.len() >= PAGE_SIZE);
        NodeMut { b }
    }

    pub fn node(&self) -> Node<'_> {
        Node::new(PageView::of(self.b))
    }

    /// Makes the page an empty node. Leaves get `left`/`right` links; inner nodes
    /// take `right` as their leftmost child.
    pub fn init(&mut self, tree: u32, level: u8, left: PageNo, right: PageNo) {
        self.b[..PAGE_SIZE].fill(0);
        let ty = if level == 0 {
            PageType::Leaf
        } else {
            PageType::Inner
        };
        self.b[H_TYPE] = ty as u8;
        put_u32(self.b, H_AUX, tree);
        self.set_heap(PAGE_SIZE);
        self.b[N_LEVEL] = level;
        put_u32(self.b, N_LEFT, if level == 0 { left } else { NO_PAGE });
        put_u32(self.b, N_RIGHT, right);
    }

    fn set_heap(&mut self, top: usize) {
        put_u16(self.b, N_HEAP, top as u16);
    }

    fn count(&self) -> usize {
        get_u16(self.b, N_COUNT) as usize
    }

    fn set_count(&mut self, n: usize) {
        put_u16(self.b, N_COUNT, n as u16);
    }

    pub fn set_left(&mut self, p: PageNo) {
        put_u32(self.b, N_LEFT, p);
    }

    pub fn set_right(&mut self, p: PageNo) {
        put_u32(self.b, N_RIGHT, p);
    }

    pub fn set_leftmost(&mut self, p: PageNo) {
        put_u32(self.b, N_LEFTMOST, p);
    }

    /// Bytes free for a new cell and its slot once fragments are compacted.
    pub fn room(&self) -> usize {
        let n = self.node();
        n.gap() + n.frag()
    }

    /// Inserts an encoded cell at slot `idx`; false when it does not fit.
    pub fn insert(&mut self, idx: usize, cell: &[u8]) -> bool {
        let need = cell.len() + SLOT;
        if self.node().gap() < need {
            if self.room() < need {
                return false;
            }
            self.compact();
        }
        let n = self.count();
        let top = get_u16(self.b, N_HEAP) as usize - cell.len();
        self.b[top..top + cell.len()].copy_from_slice(cell);
        self.set_heap(top);
        let s = NODE_HEADER + SLOT * idx;
        self.b.copy_within(s..NODE_HEADER + SLOT * n, s + SLOT);
        put_u16(self.b, s, top as u16);
        self.b[s + 2..s + SLOT].copy_from_slice(&head(cell_key(cell)).to_be_bytes());
        self.set_count(n + 1);
        true
    }

    /// Removes cell `idx`; its space becomes a fragment.
    pub fn remove(&mut self, idx: usize) {
        let n = self.count();
        let len = self
            .node()
            .raw_cell(idx)
            .expect("a latched node is consistent")
            .len();
        let frag = get_u16(self.b, N_FRAG) as usize + len;
        put_u16(self.b, N_FRAG, frag as u16);
        let s = NODE_HEADER + SLOT * idx;
        self.b.copy_within(s + SLOT..NODE_HEADER + SLOT * n, s);
        self.set_count(n - 1);
        if n == 1 {
            self.set_heap(PAGE_SIZE);
            put_u16(self.b, N_FRAG, 0);
        }
    }

    /// Sets the child of inner cell `idx - 1` (or the leftmost child when idx is 0).
    pub fn set_child(&mut self, idx: usize, child: PageNo) {
        if idx == 0 {
            self.set_leftmost(child);
        } else {
            let off = get_u16(self.b, NODE_HEADER + SLOT * (idx - 1)) as usize;
            put_u32(self.b, off + 2, child);
        }
    }

    /// Rewrites the cells contiguously, dropping fragments.
    pub fn compact(&mut self) {
        let cells = self.node().cells().expect("a latched node is consistent");
        self.rebuild(&cells);
    }

    /// Replaces all cells by `cells` (in key order); they must fit.
    pub fn rebuild<C: AsRef<[u8]>>(&mut self, cells: &[C]) {
        self.set_count(0);
        self.set_heap(PAGE_SIZE);
        put_u16(self.b, N_FRAG, 0);
        for (i, c) in cells.iter().enumerate() {
            let ok = self.insert(i, c.as_ref());
            assert!(ok, "rebuilt node overflows: caller checked sizes");
        }
    }
}

/// Space a set of cells needs in a node (cells plus slots).
pub fn cells_size<C: AsRef<[u8]>>(cells: &[C]) -> usize {
    cells.iter().map(|c| c.as_ref().len() + SLOT).sum()
}

/// Where to split `cells` (the cells of an overfull node, new cell included) so that
/// both sides fit: returns m, the number of cells going left. `append` asks for a
/// split that keeps the left node full (ascending inserts at the right end).
pub fn split_point<C: AsRef<[u8]>>(cells: &[C], append: bool) -> usize {
    let sizes: Vec<usize> = cells.iter().map(|c| c.as_ref().len() + SLOT).collect();
    let total: usize = sizes.iter().sum();
    if append && total - sizes[sizes.len() - 1] <= USABLE {
        return sizes.len() - 1;
    }
    let mut left = 0;
    for (i, s) in sizes.iter().enumerate() {
        if left + s > total / 2 {
            // Put cell i on the side that keeps the halves closest.
            let m = if left + s - total / 2 < total / 2 - left {
                i + 1
            } else {
                i
            };
            return m.clamp(1, sizes.len() - 1);
        }
        left += s;
    }
    sizes.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf() -> Vec<u8> {
        let mut b = vec![0u8; PAGE_SIZE];
        NodeMut::new(&mut b).init(7, 0, NO_PAGE, NO_PAGE);
        b
    }

    #[test]
    fn insert_search_remove() {
        let mut b = leaf();
        let mut n = NodeMut::new(&mut b);
        for (i, k) in [b"b", b"d", b"a"].iter().enumerate() {
            let idx = n
                .node()
                .search(*k)
                .expect("the node was built by this test")
                .unwrap_err();
            let v = [i as u8; 3];
            assert!(n.insert(idx, &leaf_cell(*k, LeafVal::Inline(&v))));
        }
        let node = n.node();
        assert_eq!(node.count(), 3);
        assert_eq!(node.key(0), Some(&b"a"[..]));
        assert_eq!(node.search(b"d"), Some(Ok(2)));
        assert_eq!(node.search(b"c"), Some(Err(2)));
        assert_eq!(
            node.leaf_entry(1)
                .expect("the node was built by this test")
                .1,
            LeafVal::Inline(&[0, 0, 0])
        );
        n.remove(0);
        assert_eq!(n.node().count(), 2);
        assert_eq!(n.node().frag(), CELL_HEADER + 1 + 3);
        n.compact();
        assert_eq!(n.node().frag(), 0);
        assert_eq!(n.node().key(0), Some(&b"b"[..]));
    }

    #[test]
    fn overflow_ref_roundtrip() {
        let r = OverflowRef {
            first: 9,
            len: 1 << 24,
            chain: 77,
        };
        let c = leaf_cell(b"k", LeafVal::Overflow(r));
        assert_eq!(cell_value(&c), LeafVal::Overflow(r));
        let mut b = leaf();
        let mut n = NodeMut::new(&mut b);
        assert!(n.insert(0, &c));
        assert_eq!(
            n.node().leaf_entry(0),
            Some((&b"k"[..], LeafVal::Overflow(r)))
        );
    }

    #[test]
    fn fills_until_full_and_splits() {
        let mut b = leaf();
        let mut n = NodeMut::new(&mut b);
        let mut cells = Vec::new();
        for i in 0u32.. {
            let c = leaf_cell(&i.to_be_bytes(), LeafVal::Inline(&[1; 100]));
            if !n.insert(i as usize, &c) {
                cells = n.node().cells().expect("the node was built by this test");
                cells.push(c);
                break;
            }
        }
        let m = split_point(&cells, false);
        assert!(cells_size(&cells[..m]) <= USABLE && cells_size(&cells[m..]) <= USABLE);
        let m = split_point(&cells, true);
        assert_eq!(m, cells.len() - 1);
    }

    #[test]
    fn separators_are_short() {
        assert_eq!(separator(b"abc", b"abd"), b"abd");
        assert_eq!(separator(b"ab", b"abzz"), b"abz");
        assert_eq!(separator(b"a", b"bcd"), b"b");
        assert_eq!(separator(b"", b"x"), b"x");
    }

    #[test]
    fn inner_routing() {
        let mut b = vec![0u8; PAGE_SIZE];
        let mut n = NodeMut::new(&mut b);
        n.init(1, 1, NO_PAGE, 100);
        assert!(n.insert(0, &inner_cell(b"m", 200)));
        assert!(n.insert(1, &inner_cell(b"t", 300)));
        let node = n.node();
        assert_eq!(node.route(b"a"), Some((0, 100)));
        assert_eq!(node.route(b"m"), Some((1, 200)));
        assert_eq!(node.route(b"s"), Some((1, 200)));
        assert_eq!(node.route(b"z"), Some((2, 300)));
        assert_eq!(node.child_index(300), Some(2));
        n.set_child(1, 201);
        assert_eq!(n.node().child(1), 201);
    }
}
