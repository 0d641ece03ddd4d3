//! On-disk page formats of a table file.
//!
//! A table file is an array of 16 KiB pages, addressed by *physical page number*
//! (`offset = number * PAGE_SIZE`). Physical pages 0 and 1 are the two meta slots
//! ([`meta`]); every other physical page ("slot") holds one page image: a page-map
//! page, a map-directory page ([`meta`]), a B+tree node ([`node`]) or an overflow page
//! ([`overflow`]). Tree pages refer to each other by *logical* page number; the page
//! map (in memory: an array; on disk: map pages listed by directory pages, listed by
//! the meta slot) translates logical to physical.
//!
//! # Torn-page protection by construction (no doublewrite, no full-page images)
//! A page image that the last durable checkpoint refers to is never overwritten:
//! every write of a page goes to a physical slot that no durable checkpoint refers to,
//! and the map is updated to point there (shadow paging). A crash can therefore tear
//! only slots that nothing durable refers to; after a crash the file is opened at the
//! last complete checkpoint, whose pages are all intact, and the logical WAL is
//! replayed on top. The meta slots alternate (the new checkpoint's meta goes to the
//! slot the previous checkpoint did not use), so a torn meta write leaves the previous
//! checkpoint valid. Every page carries a crc32c so corruption (bit rot, torn writes,
//! misdirected writes) is detected, never served.
//!
//! # Common page header (all integers little-endian)
//! ```text
//! offset size field
//!  0     4    crc32c of bytes 4..PAGE_SIZE
//!  4     2    format version (FORMAT_VERSION)
//!  6     1    page type (PageType)
//!  7     1    reserved, 0
//!  8     8    checkpoint sequence the image was written for (the "page LSN": the
//!             engine logs logical records, so pages carry the checkpoint epoch)
//! 16     4    page number: logical page (nodes, overflow), map/dir page index,
//!             or meta slot (0/1)
//! 20     4    aux: tree id for nodes, 0 otherwise
//! 24          type-specific body
//! ```

pub mod meta;
pub mod node;
pub mod overflow;

use std::marker::PhantomData;

/// Bytes in a page (and in a buffer-pool frame).
pub const PAGE_SIZE: usize = 16384;
/// Version of the formats in this module; bumped on any incompatible change.
pub const FORMAT_VERSION: u16 = 1;

pub const H_CRC: usize = 0;
pub const H_VERSION: usize = 4;
pub const H_TYPE: usize = 6;
pub const H_SEQ: usize = 8;
pub const H_PAGE_NO: usize = 16;
pub const H_AUX: usize = 20;
/// Size of the common header; bodies start here.
pub const HEADER_SIZE: usize = 24;

/// A logical page number (what tree pages store), or a physical slot number.
pub type PageNo = u32;
/// "No page" in sibling links, chain ends and map entries.
pub const NO_PAGE: PageNo = u32::MAX;

/// What a page holds (byte 6 of the header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PageType {
    Meta = 1,
    MapDir = 2,
    Map = 3,
    Leaf = 4,
    Inner = 5,
    Overflow = 6,
}

impl PageType {
    pub fn from_u8(b: u8) -> Option<PageType> {
        Some(match b {
            1 => PageType::Meta,
            2 => PageType::MapDir,
            3 => PageType::Map,
            4 => PageType::Leaf,
            5 => PageType::Inner,
            6 => PageType::Overflow,
            _ => return None,
        })
    }
}

pub fn get_u16(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}

pub fn get_u32(b: &[u8], off: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[off..off + 4]);
    u32::from_le_bytes(a)
}

pub fn get_u64(b: &[u8], off: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[off..off + 8]);
    u64::from_le_bytes(a)
}

pub fn put_u16(b: &mut [u8], off: usize, v: u16) {
    b[off..off + 2].copy_from_slice(&v.to_le_bytes());
}

pub fn put_u32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

pub fn put_u64(b: &mut [u8], off: usize, v: u64) {
    b[off..off + 8].copy_from_slice(&v.to_le_bytes());
}

/// The checksum of a page image: crc32c of everything after the checksum field.
pub fn checksum(page: &[u8]) -> u32 {
    crc32c::crc32c(&page[H_CRC + 4..PAGE_SIZE])
}

/// Writes the common header fields a page is stored with and its checksum.
/// The body (and the aux field) must be final.
pub fn seal(page: &mut [u8], ty: PageType, seq: u64, page_no: PageNo) {
    put_u16(page, H_VERSION, FORMAT_VERSION);
    page[H_TYPE] = ty as u8;
    page[H_TYPE + 1] = 0;
    put_u64(page, H_SEQ, seq);
    put_u32(page, H_PAGE_NO, page_no);
    let crc = checksum(page);
    put_u32(page, H_CRC, crc);
}

/// Checks a page image read from disk: checksum, format version, and that it is the
/// page the caller expects. Returns a description of the first problem found.
pub fn check(page: &[u8], expect: &[PageType], page_no: PageNo) -> Result<PageType, String> {
    let stored = get_u32(page, H_CRC);
    let actual = checksum(page);
    if stored != actual {
        return Err(format!(
            "checksum mismatch (stored {stored:#010x}, computed {actual:#010x})"
        ));
    }
    let version = get_u16(page, H_VERSION);
    if version != FORMAT_VERSION {
        return Err(format!("unknown format version {version}"));
    }
    let ty = PageType::from_u8(page[H_TYPE])
        .ok_or_else(|| format!("unknown page type {}", page[H_TYPE]))?;
    if !expect.contains(&ty) {
        return Err(format!("unexpected page type {ty:?}"));
    }
    let no = get_u32(page, H_PAGE_NO);
    if no != page_no {
        return Err(format!("holds page {no}, expected {page_no}"));
    }
    Ok(ty)
}

/// A read-only view of a page that may be modified concurrently (an optimistic read of
/// a buffer-pool frame), or of a stable page.
///
/// Every accessor is bounds-checked against the page, so a torn or garbage read can
/// produce wrong values but never touches memory outside the page. Integer fields are
/// read with volatile loads so that a value checked once is the value used (the
/// compiler may not re-load it). Callers validate the frame version before trusting
/// anything they derived from the view.
#[derive(Clone, Copy)]
pub struct PageView<'a> {
    ptr: *const u8,
    _life: PhantomData<&'a [u8]>,
}

impl<'a> PageView<'a> {
    /// A view of a stable page image.
    pub fn of(page: &'a [u8]) -> PageView<'a> {
        assert!(page.len() >= PAGE_SIZE, "a page view needs a whole page");
        PageView {
            ptr: page.as_ptr(),
            _life: PhantomData,
        }
    }

    /// A view of PAGE_SIZE bytes at `ptr`.
    ///
    /// # Safety
    /// `ptr` must be valid for reads of PAGE_SIZE bytes for `'a`. Other threads may
    /// write those bytes concurrently (seqlock-style optimistic reads); the caller
    /// validates before using what it read.
    pub unsafe fn from_raw(ptr: *const u8) -> PageView<'a> {
        PageView {
            ptr,
            _life: PhantomData,
        }
    }

    fn load<const N: usize>(&self, off: usize) -> [u8; N] {
        if off.checked_add(N).is_none_or(|end| end > PAGE_SIZE) {
            return [0; N];
        }
        // SAFETY: off + N <= PAGE_SIZE, and ptr is valid for PAGE_SIZE bytes (see
        // constructors). A volatile read of a byte array has no alignment requirement.
        unsafe { std::ptr::read_volatile(self.ptr.add(off) as *const [u8; N]) }
    }

    pub fn u8(&self, off: usize) -> u8 {
        self.load::<1>(off)[0]
    }

    pub fn u16(&self, off: usize) -> u16 {
        u16::from_le_bytes(self.load::<2>(off))
    }

    pub fn u32(&self, off: usize) -> u32 {
        u32::from_le_bytes(self.load::<4>(off))
    }

    pub fn u32_be(&self, off: usize) -> u32 {
        u32::from_be_bytes(self.load::<4>(off))
    }

    pub fn u64(&self, off: usize) -> u64 {
        u64::from_le_bytes(self.load::<8>(off))
    }

    /// `len` bytes at `off`, or None when the range leaves the page.
    pub fn bytes(&self, off: usize, len: usize) -> Option<&'a [u8]> {
        let end = off.checked_add(len)?;
        if end > PAGE_SIZE {
            return None;
        }
        // SAFETY: the range is inside the PAGE_SIZE bytes ptr is valid for. The bytes
        // may change under a concurrent writer (optimistic read); callers only compare
        // or copy them and validate the frame version before trusting the result.
        Some(unsafe { std::slice::from_raw_parts(self.ptr.add(off), len) })
    }

    pub fn page_type(&self) -> Option<PageType> {
        PageType::from_u8(self.u8(H_TYPE))
    }

    pub fn page_no(&self) -> PageNo {
        self.u32(H_PAGE_NO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_then_check() {
        let mut p = vec![0u8; PAGE_SIZE];
        p[100] = 7;
        seal(&mut p, PageType::Leaf, 3, 42);
        assert_eq!(check(&p, &[PageType::Leaf], 42), Ok(PageType::Leaf));
        assert!(check(&p, &[PageType::Leaf], 43).is_err());
        assert!(check(&p, &[PageType::Inner], 42).is_err());
        p[9000] ^= 1;
        assert!(check(&p, &[PageType::Leaf], 42)
            .unwrap_err()
            .contains("checksum"));
    }

    #[test]
    fn view_is_bounds_checked() {
        let p = vec![1u8; PAGE_SIZE];
        let v = PageView::of(&p);
        assert_eq!(v.u16(PAGE_SIZE - 2), 0x0101);
        assert_eq!(v.u16(PAGE_SIZE - 1), 0);
        assert!(v.bytes(PAGE_SIZE - 1, 2).is_none());
        assert!(v.bytes(usize::MAX, 2).is_none());
        assert_eq!(v.bytes(10, 3), Some(&[1u8, 1, 1][..]));
    }
}
