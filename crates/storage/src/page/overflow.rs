//! Overflow pages: values too large for a leaf cell live in a chain of these.
//!
//! ```text
//! offset size field (after the common header; little-endian)
//! 24     8    chain id (same on every page of a chain, in the leaf's OverflowRef)
//! 32     4    next page of the chain (NO_PAGE on the last)
//! 36     4    bytes of value data in this page
//! 40     4    position of this page in the chain (0, 1, ...)
//! 44     4    reserved, 0
//! 48          value data
//! ```

use super::{get_u32, get_u64, put_u32, put_u64, PageNo, PageType, PageView, H_TYPE, PAGE_SIZE};

pub const O_CHAIN: usize = 24;
pub const O_NEXT: usize = 32;
pub const O_LEN: usize = 36;
pub const O_INDEX: usize = 40;
pub const O_DATA: usize = 48;
/// Value bytes per overflow page.
pub const OVERFLOW_DATA: usize = PAGE_SIZE - O_DATA;

/// Pages a chain of `len` value bytes takes.
pub fn pages_for(len: usize) -> usize {
    len.div_ceil(OVERFLOW_DATA).max(1)
}

/// Formats an overflow page holding `data`.
pub fn write(b: &mut [u8], chain: u64, index: u32, next: PageNo, data: &[u8]) {
    b[..PAGE_SIZE].fill(0);
    b[H_TYPE] = PageType::Overflow as u8;
    put_u64(b, O_CHAIN, chain);
    put_u32(b, O_NEXT, next);
    put_u32(b, O_LEN, data.len() as u32);
    put_u32(b, O_INDEX, index);
    b[O_DATA..O_DATA + data.len()].copy_from_slice(data);
}

/// The header fields of an overflow page read through a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OverflowHeader {
    pub chain: u64,
    pub next: PageNo,
    pub len: usize,
    pub index: u32,
}

pub fn header(v: &PageView<'_>) -> Option<OverflowHeader> {
    if v.page_type() != Some(PageType::Overflow) {
        return None;
    }
    let len = v.u32(O_LEN) as usize;
    if len > OVERFLOW_DATA {
        return None;
    }
    Some(OverflowHeader {
        chain: v.u64(O_CHAIN),
        next: v.u32(O_NEXT),
        len,
        index: v.u32(O_INDEX),
    })
}

/// The next page of a stable overflow page image.
pub fn next_of(b: &[u8]) -> PageNo {
    get_u32(b, O_NEXT)
}

pub fn chain_of(b: &[u8]) -> u64 {
    get_u64(b, O_CHAIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip() {
        let mut b = vec![0u8; PAGE_SIZE];
        write(&mut b, 5, 2, 9, b"hello");
        let v = PageView::of(&b);
        let h = header(&v).expect("the page was just built");
        assert_eq!(
            h,
            OverflowHeader {
                chain: 5,
                next: 9,
                len: 5,
                index: 2
            }
        );
        assert_eq!(v.bytes(O_DATA, h.len), Some(&b"hello"[..]));
        assert_eq!(pages_for(0), 1);
        assert_eq!(pages_for(OVERFLOW_DATA + 1), 2);
        assert_eq!(next_of(&b), 9);
        assert_eq!(chain_of(&b), 5);
    }
}
