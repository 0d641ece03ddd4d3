//! Meta slots, page-map pages and map-directory pages.
//!
//! A checkpoint is described by one meta slot (physical page 0 or 1, alternating by
//! sequence number). The meta lists the trees of the file and points to the first
//! map-directory page; directory pages list (in order) the physical slots of the map
//! pages; map page k holds the physical slot of logical pages
//! `k * LIST_ENTRIES .. (k + 1) * LIST_ENTRIES` (`NO_PAGE` for a free logical page).
//!
//! Meta slot:
//! ```text
//! offset size field (after the common header, whose seq is the checkpoint sequence
//!             and page number the slot, 0 or 1; little-endian)
//! 24     8    magic "BASALTTF"
//! 32     8    cut LSN: the WAL position the checkpoint image corresponds to
//! 40     4    page size (16384)
//! 44     4    logical pages (length of the page map)
//! 48     4    physical pages of the file when the checkpoint was written
//! 52     4    first map-directory page (physical; NO_PAGE when the map is empty)
//! 56     4    number of map pages
//! 60     4    number of trees
//! 64     8    next overflow chain id
//! 72     8    reserved, 0
//! 80     24*t trees: [tree id u32][root logical page u32][entries u64][bytes u64]
//! ```
//! Map page: `24: entries in this page u32, 28: reserved u32, 32: entries u32 each`.
//! Directory page: `24: entries u32, 28: next directory page (physical) u32,
//! 32: physical slots of map pages, u32 each`.

use super::{get_u32, get_u64, put_u32, put_u64, PageNo, PageType, PAGE_SIZE};

pub const MAGIC: &[u8; 8] = b"BASALTTF";
pub const M_MAGIC: usize = 24;
pub const M_CUT_LSN: usize = 32;
pub const M_PAGE_SIZE: usize = 40;
pub const M_LOGICAL: usize = 44;
pub const M_SLOTS: usize = 48;
pub const M_DIR: usize = 52;
pub const M_MAP_PAGES: usize = 56;
pub const M_TREES_N: usize = 60;
pub const M_NEXT_CHAIN: usize = 64;
pub const M_TREES: usize = 80;
pub const TREE_ENTRY: usize = 24;
/// Most trees (indexes) one file holds.
pub const MAX_TREES: usize = (PAGE_SIZE - M_TREES) / TREE_ENTRY;

pub const L_COUNT: usize = 24;
pub const L_NEXT: usize = 28;
pub const L_ENTRIES: usize = 32;
/// u32 entries per map or directory page.
pub const LIST_ENTRIES: usize = (PAGE_SIZE - L_ENTRIES) / 4;

/// A tree as recorded in a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeRoot {
    pub id: u32,
    pub root: PageNo,
    pub entries: u64,
    pub bytes: u64,
}

/// The contents of a meta slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    pub seq: u64,
    pub cut_lsn: u64,
    pub logical_pages: u32,
    pub slots: u32,
    pub dir_first: PageNo,
    pub map_pages: u32,
    pub next_chain: u64,
    pub trees: Vec<TreeRoot>,
}

impl Meta {
    /// Writes the body into a zeroed page; the caller seals it.
    pub fn encode(&self, b: &mut [u8]) {
        assert!(self.trees.len() <= MAX_TREES, "checked by create_tree");
        b[M_MAGIC..M_MAGIC + 8].copy_from_slice(MAGIC);
        put_u64(b, M_CUT_LSN, self.cut_lsn);
        put_u32(b, M_PAGE_SIZE, PAGE_SIZE as u32);
        put_u32(b, M_LOGICAL, self.logical_pages);
        put_u32(b, M_SLOTS, self.slots);
        put_u32(b, M_DIR, self.dir_first);
        put_u32(b, M_MAP_PAGES, self.map_pages);
        put_u32(b, M_TREES_N, self.trees.len() as u32);
        put_u64(b, M_NEXT_CHAIN, self.next_chain);
        for (i, t) in self.trees.iter().enumerate() {
            let o = M_TREES + i * TREE_ENTRY;
            put_u32(b, o, t.id);
            put_u32(b, o + 4, t.root);
            put_u64(b, o + 8, t.entries);
            put_u64(b, o + 16, t.bytes);
        }
    }

    /// Decodes a meta page whose checksum the caller verified.
    pub fn decode(b: &[u8]) -> Result<Meta, String> {
        if &b[M_MAGIC..M_MAGIC + 8] != MAGIC {
            return Err("not a Basalt table file (bad magic)".into());
        }
        if get_u32(b, M_PAGE_SIZE) as usize != PAGE_SIZE {
            return Err(format!("page size {} unsupported", get_u32(b, M_PAGE_SIZE)));
        }
        let n = get_u32(b, M_TREES_N) as usize;
        if n > MAX_TREES {
            return Err(format!("{n} trees listed, at most {MAX_TREES} fit"));
        }
        let trees = (0..n)
            .map(|i| {
                let o = M_TREES + i * TREE_ENTRY;
                TreeRoot {
                    id: get_u32(b, o),
                    root: get_u32(b, o + 4),
                    entries: get_u64(b, o + 8),
                    bytes: get_u64(b, o + 16),
                }
            })
            .collect();
        Ok(Meta {
            seq: get_u64(b, super::H_SEQ),
            cut_lsn: get_u64(b, M_CUT_LSN),
            logical_pages: get_u32(b, M_LOGICAL),
            slots: get_u32(b, M_SLOTS),
            dir_first: get_u32(b, M_DIR),
            map_pages: get_u32(b, M_MAP_PAGES),
            next_chain: get_u64(b, M_NEXT_CHAIN),
            trees,
        })
    }
}

/// Writes a map or directory page body: `entries` and, for directory pages, the next
/// directory page. The caller seals it as `PageType::Map` or `PageType::MapDir`.
pub fn encode_list(b: &mut [u8], entries: &[u32], next: PageNo) {
    assert!(entries.len() <= LIST_ENTRIES, "caller chunks lists");
    put_u32(b, L_COUNT, entries.len() as u32);
    put_u32(b, L_NEXT, next);
    for (i, e) in entries.iter().enumerate() {
        put_u32(b, L_ENTRIES + 4 * i, *e);
    }
}

/// Decodes a map or directory page: (entries, next).
pub fn decode_list(b: &[u8]) -> Result<(Vec<u32>, PageNo), String> {
    let n = get_u32(b, L_COUNT) as usize;
    if n > LIST_ENTRIES {
        return Err(format!("{n} entries listed, at most {LIST_ENTRIES} fit"));
    }
    let entries = (0..n).map(|i| get_u32(b, L_ENTRIES + 4 * i)).collect();
    Ok((entries, get_u32(b, L_NEXT)))
}

/// What a page type is called in error messages.
pub fn describe(ty: PageType) -> &'static str {
    match ty {
        PageType::Meta => "meta",
        PageType::MapDir => "page-map directory",
        PageType::Map => "page map",
        PageType::Leaf => "leaf",
        PageType::Inner => "inner node",
        PageType::Overflow => "overflow",
    }
}

/// True when a page image is all zeros (a slot never written).
pub fn is_blank(b: &[u8]) -> bool {
    b.iter().all(|&x| x == 0)
}

#[cfg(test)]
mod tests {
    use super::super::NO_PAGE;
    use super::*;

    #[test]
    fn meta_roundtrip() {
        let m = Meta {
            seq: 0,
            cut_lsn: 99,
            logical_pages: 10,
            slots: 20,
            dir_first: 5,
            map_pages: 1,
            next_chain: 3,
            trees: vec![TreeRoot {
                id: 4,
                root: 0,
                entries: 7,
                bytes: 8,
            }],
        };
        let mut b = vec![0u8; PAGE_SIZE];
        m.encode(&mut b);
        super::super::seal(&mut b, PageType::Meta, 12, 0);
        let d = Meta::decode(&b).expect("the page was just encoded");
        assert_eq!(d, Meta { seq: 12, ..m });
    }

    #[test]
    fn list_roundtrip() {
        let mut b = vec![0u8; PAGE_SIZE];
        encode_list(&mut b, &[1, 2, NO_PAGE], 8);
        assert_eq!(
            decode_list(&b).expect("the page was just encoded"),
            (vec![1, 2, NO_PAGE], 8)
        );
    }
}
